// generated from hw/regs/nandlab_cpu_regs.rdl by nandlab.firmware.cpu_regs, do not edit
// Byte offsets in the block, then each field's lsb and width.
`default_nettype none

package nandlab_cpu_regs_pkg;

  // the whole map, for every reader: one block uses part of it
  /* verilator lint_off UNUSEDPARAM */

  localparam int ID = 0;
  localparam int ID_MAGIC_LSB = 0;
  localparam int ID_MAGIC_W = 32;
  localparam int I2C_CLOCK = 4;
  localparam int I2C_CLOCK_QUARTER_LSB = 0;
  localparam int I2C_CLOCK_QUARTER_W = 16;
  localparam int I2C_CLOCK_QUARTER_RESET = 250;
  localparam int I2C_CMD = 8;
  localparam int I2C_CMD_DATA_LSB = 0;
  localparam int I2C_CMD_DATA_W = 8;
  localparam int I2C_CMD_DATA_RESET = 0;
  localparam int I2C_CMD_START_LSB = 8;
  localparam int I2C_CMD_START_W = 1;
  localparam int I2C_CMD_START_RESET = 0;
  localparam int I2C_CMD_WRITE_LSB = 9;
  localparam int I2C_CMD_WRITE_W = 1;
  localparam int I2C_CMD_WRITE_RESET = 0;
  localparam int I2C_CMD_READ_LSB = 10;
  localparam int I2C_CMD_READ_W = 1;
  localparam int I2C_CMD_READ_RESET = 0;
  localparam int I2C_CMD_NACK_LSB = 11;
  localparam int I2C_CMD_NACK_W = 1;
  localparam int I2C_CMD_NACK_RESET = 0;
  localparam int I2C_CMD_STOP_LSB = 12;
  localparam int I2C_CMD_STOP_W = 1;
  localparam int I2C_CMD_STOP_RESET = 0;
  localparam int I2C_STATUS = 12;
  localparam int I2C_STATUS_BUSY_LSB = 0;
  localparam int I2C_STATUS_BUSY_W = 1;
  localparam int I2C_STATUS_NACKED_LSB = 1;
  localparam int I2C_STATUS_NACKED_W = 1;
  localparam int I2C_STATUS_RX_DATA_LSB = 8;
  localparam int I2C_STATUS_RX_DATA_W = 8;
  localparam int PWM_PERIOD = 16;
  localparam int PWM_PERIOD_CLOCKS_LSB = 0;
  localparam int PWM_PERIOD_CLOCKS_W = 24;
  localparam int PWM_PERIOD_CLOCKS_RESET = 0;
  localparam int PWM_DUTY = 20;
  localparam int PWM_DUTY_CLOCKS_LSB = 0;
  localparam int PWM_DUTY_CLOCKS_W = 24;
  localparam int PWM_DUTY_CLOCKS_RESET = 0;
  localparam int PWM_DUTY_COOL_LSB = 31;
  localparam int PWM_DUTY_COOL_W = 1;
  localparam int PWM_DUTY_COOL_RESET = 0;

  // the host's user BAR with the CPU, generated from hw/regs/nandlab_cpu_bar.rdl, do not edit
  localparam int BAR_CSR = 'h0;
  localparam int BAR_CSR_SIZE = 'h1000;
  localparam int BAR_CPU_CTRL = 'h1000;
  localparam int BAR_CPU_CTRL_STREAM_CPU_LSB = 'h0;
  localparam int BAR_CPU_CTRL_STREAM_CPU_W = 'h1;
  localparam int BAR_CPU_CTRL_CPU_ID_LSB = 'h10;
  localparam int BAR_CPU_CTRL_CPU_ID_W = 'h10;
  localparam int BAR_CPU_CTRL_CPU_ID_VALUE = 'h4350;
  localparam int BAR_SHARED = 'h4000;
  localparam int BAR_SHARED_SIZE = 'h4000;

  /* verilator lint_on UNUSEDPARAM */

endpackage

`default_nettype wire
