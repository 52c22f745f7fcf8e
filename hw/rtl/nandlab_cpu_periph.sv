// nandlab_cpu_periph: the board CPU's peripheral block: the I2C master of the
// power monitors and temperature sensor, and the PWM of the heater / TEC.
// Register offsets and fields come from nandlab_cpu_regs_pkg (generated from
// hw/regs/nandlab_cpu_regs.rdl); docs/firmware.md has the map.
//
// Bus: one register access per `sel` cycle (word address `addr`, whole-word
// writes), `rdata` combinational from `addr`: the CPU's bus adapter registers
// it with its ready.
//
// Clock / reset: clk, rst (active-high, synchronous).
`default_nettype none

module nandlab_cpu_periph (
    input  wire        clk,
    input  wire        rst,
    input  wire        sel,
    input  wire        we,
    input  wire [7:0]  addr,       // byte offset in the block
    input  wire [31:0] wdata,
    output reg  [31:0] rdata,
    // I2C (open drain: *_oe = 1 pulls the line low)
    input  wire        i2c_scl_i,
    input  wire        i2c_sda_i,
    output wire        i2c_scl_oe,
    output wire        i2c_sda_oe,
    // heater / TEC
    output wire        pwm_o,
    output wire        pwm_cool_o
);
    localparam logic [31:0] MAGIC = 32'h4350_5550;  // 'CPUP', the RDL's ID reset

    reg  [15:0] quarter_q;
    reg  [23:0] period_q, duty_q;
    reg         cool_q;
    wire        i2c_busy, i2c_nacked;
    wire [7:0]  i2c_rx;
    wire        wr = sel && we;
    wire        cmd_valid = wr && addr == 8'(nandlab_cpu_regs_pkg::I2C_CMD);

    always_ff @(posedge clk) begin
        if (rst) begin
            quarter_q <= 16'(nandlab_cpu_regs_pkg::I2C_CLOCK_QUARTER_RESET);
            period_q <= '0;
            duty_q <= '0;
            cool_q <= 1'b0;
        end else if (wr) begin
            case (addr)
                8'(nandlab_cpu_regs_pkg::I2C_CLOCK): quarter_q <= wdata[15:0];
                8'(nandlab_cpu_regs_pkg::PWM_PERIOD): period_q <= wdata[23:0];
                8'(nandlab_cpu_regs_pkg::PWM_DUTY): begin
                    duty_q <= wdata[23:0];
                    cool_q <= wdata[nandlab_cpu_regs_pkg::PWM_DUTY_COOL_LSB];
                end
                default: ;
            endcase
        end
    end

    always_comb begin
        rdata = 32'h0;
        case (addr)
            8'(nandlab_cpu_regs_pkg::ID): rdata = MAGIC;
            8'(nandlab_cpu_regs_pkg::I2C_CLOCK): rdata = {16'h0, quarter_q};
            8'(nandlab_cpu_regs_pkg::I2C_STATUS): begin
                rdata[nandlab_cpu_regs_pkg::I2C_STATUS_BUSY_LSB] = i2c_busy;
                rdata[nandlab_cpu_regs_pkg::I2C_STATUS_NACKED_LSB] = i2c_nacked;
                rdata[nandlab_cpu_regs_pkg::I2C_STATUS_RX_DATA_LSB +: 8] = i2c_rx;
            end
            8'(nandlab_cpu_regs_pkg::PWM_PERIOD): rdata = {8'h0, period_q};
            8'(nandlab_cpu_regs_pkg::PWM_DUTY): begin
                rdata[23:0] = duty_q;
                rdata[nandlab_cpu_regs_pkg::PWM_DUTY_COOL_LSB] = cool_q;
            end
            default: ;
        endcase
    end

    nandlab_i2c_master u_i2c (
        .clk(clk), .rst(rst), .quarter(quarter_q),
        .cmd_valid(cmd_valid),
        .cmd_start(wdata[nandlab_cpu_regs_pkg::I2C_CMD_START_LSB]),
        .cmd_write(wdata[nandlab_cpu_regs_pkg::I2C_CMD_WRITE_LSB]),
        .cmd_read(wdata[nandlab_cpu_regs_pkg::I2C_CMD_READ_LSB]),
        .cmd_nack(wdata[nandlab_cpu_regs_pkg::I2C_CMD_NACK_LSB]),
        .cmd_stop(wdata[nandlab_cpu_regs_pkg::I2C_CMD_STOP_LSB]),
        .cmd_data(wdata[nandlab_cpu_regs_pkg::I2C_CMD_DATA_LSB +: 8]),
        .busy(i2c_busy), .nacked(i2c_nacked), .rx_data(i2c_rx),
        .scl_i(i2c_scl_i), .sda_i(i2c_sda_i), .scl_oe(i2c_scl_oe), .sda_oe(i2c_sda_oe)
    );

    nandlab_pwm #(.WIDTH(24)) u_pwm (
        .clk(clk), .rst(rst), .period(period_q), .duty(duty_q), .cool(cool_q),
        .pwm_o(pwm_o), .cool_o(pwm_cool_o)
    );
endmodule

`default_nettype wire
