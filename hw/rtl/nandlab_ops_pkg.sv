// generated from host/nandlab/ops/spec.yaml by nandlab.ops.codegen, do not edit
// nandlab op program (contract 1): opcodes, result tags, error codes and word layouts.

`default_nettype none

package nandlab_ops_pkg;

  // A shared constants package: each module uses only some of them.
  /* verilator lint_off UNUSEDPARAM */

  localparam logic [31:0] SPEC_VERSION = 32'd1;  // version of spec.yaml
  localparam logic [31:0] WORD_BYTES = 32'd4;  // bytes per stream word
  localparam logic [31:0] MAX_ADDR_BYTES = 32'd8;  // most address cycles one ADDR latches
  localparam logic [31:0] MAX_LEN = 32'hFFFFFF;  // largest byte count of DIN / DIN_PAT / DOUT / DOUT_CMP
  localparam logic [31:0] MAX_TARGET = 32'hFF;  // highest chip-enable index
  localparam logic [31:0] MAX_DELAY_NS = 32'hFFFFFF;  // longest DELAY in ns
  localparam logic [31:0] MAX_ID = 32'hFFFFFF;  // highest MARK id
  localparam logic [31:0] MAX_SDR_MODE = 32'd5;  // highest ONFI SDR timing mode
  localparam logic [31:0] MAX_TIMING_MODE = 32'hF;  // highest timing mode number of any interface (which exist is per interface)
  localparam logic [31:0] MAX_INSTRUCTIONS = 32'h1000000;  // most instructions in a program (indices are 24 bits)
  localparam logic [31:0] MAX_U32 = 32'hFFFFFFFF;  // largest value of a 32-bit word
  localparam logic [31:0] HEADER_CODE_LSB = 32'd24;  // opcode (program) or tag (result stream)
  localparam logic [31:0] HEADER_CODE_WIDTH = 32'd8;
  localparam logic [31:0] HEADER_ARG_LSB = 32'd0;  // argument; layout per opcode / tag
  localparam logic [31:0] HEADER_ARG_WIDTH = 32'd24;
  localparam logic [31:0] PATTERN_KIND_LSB = 32'd0;  // pattern kind
  localparam logic [31:0] PATTERN_KIND_WIDTH = 32'd8;
  localparam logic [31:0] PATTERN_INVERT_LSB = 32'd8;  // 1 = every byte XOR 0xFF
  localparam logic [31:0] PATTERN_INVERT_WIDTH = 32'd1;
  localparam logic [31:0] PATTERN_PARAM_LSB = 32'd16;  // CONST: the byte; CHECKER: phase (0 or 1)
  localparam logic [31:0] PATTERN_PARAM_WIDTH = 32'd8;
  localparam logic [31:0] GPIO_WP_N_LSB = 32'd0;  // WP# level: 1 = writes allowed
  localparam logic [31:0] GPIO_WP_N_WIDTH = 32'd1;
  localparam logic [31:0] GPIO_SUPPLY_EN_LSB = 32'd1;  // supply enables (board specific)
  localparam logic [31:0] GPIO_SUPPLY_EN_WIDTH = 32'd7;
  localparam logic [31:0] CHECKER_BYTE_0 = 32'h55;  // CHECKER byte for phase 0
  localparam logic [31:0] CHECKER_BYTE_1 = 32'hAA;  // CHECKER byte for phase 1
  localparam logic [31:0] PRBS_DEFAULT_SEED = 32'h6A09E667;  // PRBS state used for seed 0
  localparam logic [31:0] PRBS_SHIFT_0 = 32'd13;  // xorshift32 shift <<
  localparam logic [31:0] PRBS_SHIFT_1 = 32'd17;  // xorshift32 shift >>
  localparam logic [31:0] PRBS_SHIFT_2 = 32'd5;  // xorshift32 shift <<

  // Instruction opcodes (header bits[31:24] of a program).
  typedef enum logic [7:0] {
    OP_END = 8'd0,  // marks the end of a program
    OP_CE = 8'd1,  // select chip-enable target
    OP_CMD = 8'd2,  // latch one command byte
    OP_ADDR = 8'd3,  // latch 1..8 address bytes, first byte first
    OP_DIN = 8'd4,  // send n bytes from the host to the chip
    OP_DIN_PAT = 8'd5,  // send n bytes from the on-board pattern generator to the chip
    OP_DOUT = 8'd6,  // read n bytes from the chip to the host (DATA record)
    OP_DOUT_CMP = 8'd7,  // read n bytes into the on-board comparator against the generated pattern; yields an ERRCNT record with one count pair per chunk (last chunk may be short)
    OP_WAIT_RDY = 8'd8,  // wait for R/B# high; yields a BUSY record, or an ERROR TIMEOUT record
    OP_DELAY = 8'd9,  // wait a fixed time (tWB, tWHR, tADL, tCCS, tFEAT...)
    OP_MARK = 8'd10,  // record a timestamp (MARK record)
    OP_POWER = 8'd11,  // open (start) or close (stop) a supply-current sampling window; stop yields a POWER record
    OP_TIMING = 8'd12,  // change the data interface, its timing mode and (DDR interfaces) the warm-up cycles the controller adds before a data burst, as SET FEATURES 02h told the die
    OP_GPIO = 8'd13  // drive WP# and the supply enables; only bits set in mask change
  } opcode_e;

  // Result record tags (header bits[31:24] of a result stream).
  typedef enum logic [7:0] {
    RES_DATA = 8'd128,  // bytes read by DOUT
    RES_BUSY = 8'd129,  // R/B# low time seen by a WAIT_RDY
    RES_ERRCNT = 8'd130,  // per-chunk bit error counts of a DOUT_CMP
    RES_POWER = 8'd131,  // supply-current samples of a POWER window
    RES_MARK = 8'd132,  // timestamp of a MARK
    RES_ERROR = 8'd133,  // an instruction failed; the program stops
    RES_END = 8'd134  // closes the result stream
  } result_tag_e;

  // Codes of ERROR result records.
  typedef enum logic [7:0] {
    ERR_TIMEOUT = 8'd1,  // R/B# did not return high within the WAIT_RDY timeout
    ERR_OVERFLOW = 8'd2,  // the result stream overflowed the bench's buffer
    ERR_BAD_OPCODE = 8'd3,  // unknown opcode
    ERR_TRUNCATED = 8'd4,  // the program ended inside an instruction or without END
    ERR_BAD_ARG = 8'd5,  // an argument is out of range
    ERR_NO_TARGET = 8'd6,  // the selected chip-enable target is not present
    ERR_TRANSPORT = 8'd7  // the link to the bench failed
  } error_code_e;

  // Pattern generator kinds (pattern word bits[7:0]).
  typedef enum logic [7:0] {
    PAT_CONST = 8'd0,  // every byte = param
    PAT_CHECKER = 8'd1,  // every byte = CHECKER_BYTES[phase]
    PAT_PRBS = 8'd2  // xorshift32 stream from the seed
  } pattern_kind_e;

  // Data interfaces (TIMING arg bits[6:4]).
  typedef enum logic [2:0] {
    IF_SDR = 3'd0,  // ONFI SDR
    IF_NV_DDR = 3'd1,  // ONFI NV-DDR
    IF_NV_DDR2 = 3'd2,  // ONFI NV-DDR2
    IF_NV_DDR3 = 3'd3,  // ONFI NV-DDR3 (NV-DDR2 signalling at 1.2 V VccQ)
    IF_TOGGLE = 3'd4  // JEDEC Toggle DDR (2.0 and later)
  } interface_e;

  // opcodes: arg fields and fixed trailing words
  localparam logic [31:0] OP_CE_TARGET_LSB = 32'd0;  // target index
  localparam logic [31:0] OP_CE_TARGET_WIDTH = 32'd8;
  localparam logic [31:0] OP_CE_TARGET_MIN = 32'd0;
  localparam logic [31:0] OP_CE_TARGET_MAX = 32'hFF;
  localparam logic [31:0] OP_CMD_BYTE_LSB = 32'd0;  // command byte
  localparam logic [31:0] OP_CMD_BYTE_WIDTH = 32'd8;
  localparam logic [31:0] OP_CMD_BYTE_MIN = 32'd0;
  localparam logic [31:0] OP_CMD_BYTE_MAX = 32'hFF;
  localparam logic [31:0] OP_ADDR_N_LSB = 32'd0;  // address byte count
  localparam logic [31:0] OP_ADDR_N_WIDTH = 32'd4;
  localparam logic [31:0] OP_ADDR_N_MIN = 32'd1;
  localparam logic [31:0] OP_ADDR_N_MAX = 32'd8;
  localparam logic [31:0] OP_DIN_N_LSB = 32'd0;  // byte count
  localparam logic [31:0] OP_DIN_N_WIDTH = 32'd24;
  localparam logic [31:0] OP_DIN_N_MIN = 32'd1;
  localparam logic [31:0] OP_DIN_N_MAX = 32'hFFFFFF;
  localparam logic [31:0] OP_DIN_PAT_N_LSB = 32'd0;  // byte count
  localparam logic [31:0] OP_DIN_PAT_N_WIDTH = 32'd24;
  localparam logic [31:0] OP_DIN_PAT_N_MIN = 32'd1;
  localparam logic [31:0] OP_DIN_PAT_N_MAX = 32'hFFFFFF;
  localparam logic [31:0] OP_DIN_PAT_PATTERN_WORD = 32'd1;  // pattern word (word offset from the header)
  localparam logic [31:0] OP_DIN_PAT_PATTERN_MIN = 32'd0;
  localparam logic [31:0] OP_DIN_PAT_PATTERN_MAX = 32'hFFFFFFFF;
  localparam logic [31:0] OP_DIN_PAT_SEED_WORD = 32'd2;  // PRBS seed (0 = PRBS_DEFAULT_SEED) (word offset from the header)
  localparam logic [31:0] OP_DIN_PAT_SEED_MIN = 32'd0;
  localparam logic [31:0] OP_DIN_PAT_SEED_MAX = 32'hFFFFFFFF;
  localparam logic [31:0] OP_DOUT_N_LSB = 32'd0;  // byte count
  localparam logic [31:0] OP_DOUT_N_WIDTH = 32'd24;
  localparam logic [31:0] OP_DOUT_N_MIN = 32'd1;
  localparam logic [31:0] OP_DOUT_N_MAX = 32'hFFFFFF;
  localparam logic [31:0] OP_DOUT_CMP_N_LSB = 32'd0;  // byte count
  localparam logic [31:0] OP_DOUT_CMP_N_WIDTH = 32'd24;
  localparam logic [31:0] OP_DOUT_CMP_N_MIN = 32'd1;
  localparam logic [31:0] OP_DOUT_CMP_N_MAX = 32'hFFFFFF;
  localparam logic [31:0] OP_DOUT_CMP_PATTERN_WORD = 32'd1;  // pattern word (word offset from the header)
  localparam logic [31:0] OP_DOUT_CMP_PATTERN_MIN = 32'd0;
  localparam logic [31:0] OP_DOUT_CMP_PATTERN_MAX = 32'hFFFFFFFF;
  localparam logic [31:0] OP_DOUT_CMP_SEED_WORD = 32'd2;  // PRBS seed (0 = PRBS_DEFAULT_SEED) (word offset from the header)
  localparam logic [31:0] OP_DOUT_CMP_SEED_MIN = 32'd0;
  localparam logic [31:0] OP_DOUT_CMP_SEED_MAX = 32'hFFFFFFFF;
  localparam logic [31:0] OP_DOUT_CMP_CHUNK_WORD = 32'd3;  // chunk size in bytes (word offset from the header)
  localparam logic [31:0] OP_DOUT_CMP_CHUNK_MIN = 32'd1;
  localparam logic [31:0] OP_DOUT_CMP_CHUNK_MAX = 32'hFFFFFF;
  localparam logic [31:0] OP_WAIT_RDY_TIMEOUT_NS_WORD = 32'd1;  // timeout in ns (word offset from the header)
  localparam logic [31:0] OP_WAIT_RDY_TIMEOUT_NS_MIN = 32'd0;
  localparam logic [31:0] OP_WAIT_RDY_TIMEOUT_NS_MAX = 32'hFFFFFFFF;
  localparam logic [31:0] OP_DELAY_NS_LSB = 32'd0;  // delay in ns
  localparam logic [31:0] OP_DELAY_NS_WIDTH = 32'd24;
  localparam logic [31:0] OP_DELAY_NS_MIN = 32'd0;
  localparam logic [31:0] OP_DELAY_NS_MAX = 32'hFFFFFF;
  localparam logic [31:0] OP_MARK_ID_LSB = 32'd0;  // mark id
  localparam logic [31:0] OP_MARK_ID_WIDTH = 32'd24;
  localparam logic [31:0] OP_MARK_ID_MIN = 32'd0;
  localparam logic [31:0] OP_MARK_ID_MAX = 32'hFFFFFF;
  localparam logic [31:0] OP_POWER_START_LSB = 32'd0;  // 1 = start
  localparam logic [31:0] OP_POWER_START_WIDTH = 32'd1;
  localparam logic [31:0] OP_POWER_START_MIN = 32'd0;
  localparam logic [31:0] OP_POWER_START_MAX = 32'd1;
  localparam logic [31:0] OP_POWER_PERIOD_NS_WORD = 32'd1;  // sample period in ns (word offset from the header)
  localparam logic [31:0] OP_POWER_PERIOD_NS_MIN = 32'd1;
  localparam logic [31:0] OP_POWER_PERIOD_NS_MAX = 32'hFFFFFFFF;
  localparam logic [31:0] OP_TIMING_MODE_LSB = 32'd0;  // timing mode of the interface
  localparam logic [31:0] OP_TIMING_MODE_WIDTH = 32'd4;
  localparam logic [31:0] OP_TIMING_MODE_MIN = 32'd0;
  localparam logic [31:0] OP_TIMING_MODE_MAX = 32'hF;
  localparam logic [31:0] OP_TIMING_INTERFACE_LSB = 32'd4;  // 0 SDR, 1 NV-DDR, 2 NV-DDR2, 3 NV-DDR3, 4 Toggle DDR
  localparam logic [31:0] OP_TIMING_INTERFACE_WIDTH = 32'd3;
  localparam logic [31:0] OP_TIMING_INTERFACE_MIN = 32'd0;
  localparam logic [31:0] OP_TIMING_INTERFACE_MAX = 32'd4;
  localparam logic [31:0] OP_TIMING_WARMUP_OUT_LSB = 32'd8;  // data-out warm-up RE# cycles, ONFI code: 0, 1, 2 or 4 cycles
  localparam logic [31:0] OP_TIMING_WARMUP_OUT_WIDTH = 32'd2;
  localparam logic [31:0] OP_TIMING_WARMUP_OUT_MIN = 32'd0;
  localparam logic [31:0] OP_TIMING_WARMUP_OUT_MAX = 32'd3;
  localparam logic [31:0] OP_TIMING_WARMUP_IN_LSB = 32'd10;  // data-in warm-up DQS cycles, ONFI code: 0, 1, 2 or 4 cycles
  localparam logic [31:0] OP_TIMING_WARMUP_IN_WIDTH = 32'd2;
  localparam logic [31:0] OP_TIMING_WARMUP_IN_MIN = 32'd0;
  localparam logic [31:0] OP_TIMING_WARMUP_IN_MAX = 32'd3;
  localparam logic [31:0] OP_GPIO_VALUE_LSB = 32'd0;  // levels (see gpio_bits)
  localparam logic [31:0] OP_GPIO_VALUE_WIDTH = 32'd8;
  localparam logic [31:0] OP_GPIO_VALUE_MIN = 32'd0;
  localparam logic [31:0] OP_GPIO_VALUE_MAX = 32'hFF;
  localparam logic [31:0] OP_GPIO_MASK_LSB = 32'd8;  // bits to change
  localparam logic [31:0] OP_GPIO_MASK_WIDTH = 32'd8;
  localparam logic [31:0] OP_GPIO_MASK_MIN = 32'd0;
  localparam logic [31:0] OP_GPIO_MASK_MAX = 32'hFF;

  // result tags: arg fields and fixed trailing words
  localparam logic [31:0] RES_DATA_N_LSB = 32'd0;  // byte count
  localparam logic [31:0] RES_DATA_N_WIDTH = 32'd24;
  localparam logic [31:0] RES_DATA_N_MIN = 32'd1;
  localparam logic [31:0] RES_DATA_N_MAX = 32'hFFFFFF;
  localparam logic [31:0] RES_BUSY_INDEX_LSB = 32'd0;  // index of the WAIT_RDY instruction
  localparam logic [31:0] RES_BUSY_INDEX_WIDTH = 32'd24;
  localparam logic [31:0] RES_BUSY_INDEX_MIN = 32'd0;
  localparam logic [31:0] RES_BUSY_INDEX_MAX = 32'hFFFFFF;
  localparam logic [31:0] RES_BUSY_BUSY_NS_WORD = 32'd1;  // busy time in ns (word offset from the header)
  localparam logic [31:0] RES_BUSY_BUSY_NS_MIN = 32'd0;
  localparam logic [31:0] RES_BUSY_BUSY_NS_MAX = 32'hFFFFFFFF;
  localparam logic [31:0] RES_ERRCNT_N_LSB = 32'd0;  // chunk count
  localparam logic [31:0] RES_ERRCNT_N_WIDTH = 32'd24;
  localparam logic [31:0] RES_ERRCNT_N_MIN = 32'd0;
  localparam logic [31:0] RES_ERRCNT_N_MAX = 32'hFFFFFF;
  localparam logic [31:0] RES_ERRCNT_CHUNK_BYTES_WORD = 32'd1;  // chunk size in bytes (word offset from the header)
  localparam logic [31:0] RES_ERRCNT_CHUNK_BYTES_MIN = 32'd1;
  localparam logic [31:0] RES_ERRCNT_CHUNK_BYTES_MAX = 32'hFFFFFF;
  localparam logic [31:0] RES_POWER_N_LSB = 32'd0;  // sample count
  localparam logic [31:0] RES_POWER_N_WIDTH = 32'd24;
  localparam logic [31:0] RES_POWER_N_MIN = 32'd0;
  localparam logic [31:0] RES_POWER_N_MAX = 32'hFFFFFF;
  localparam logic [31:0] RES_POWER_PERIOD_NS_WORD = 32'd1;  // sample period in ns (word offset from the header)
  localparam logic [31:0] RES_POWER_PERIOD_NS_MIN = 32'd1;
  localparam logic [31:0] RES_POWER_PERIOD_NS_MAX = 32'hFFFFFFFF;
  localparam logic [31:0] RES_MARK_ID_LSB = 32'd0;  // mark id
  localparam logic [31:0] RES_MARK_ID_WIDTH = 32'd24;
  localparam logic [31:0] RES_MARK_ID_MIN = 32'd0;
  localparam logic [31:0] RES_MARK_ID_MAX = 32'hFFFFFF;
  localparam logic [31:0] RES_MARK_T_NS_WORD = 32'd1;  // time since the program started in ns (offset of the low word; high next)
  localparam logic [31:0] RES_ERROR_CODE_LSB = 32'd0;  // error code
  localparam logic [31:0] RES_ERROR_CODE_WIDTH = 32'd24;
  localparam logic [31:0] RES_ERROR_CODE_MIN = 32'd1;
  localparam logic [31:0] RES_ERROR_CODE_MAX = 32'hFFFFFF;
  localparam logic [31:0] RES_ERROR_INDEX_WORD = 32'd1;  // index of the failing instruction (word offset from the header)
  localparam logic [31:0] RES_ERROR_INDEX_MIN = 32'd0;
  localparam logic [31:0] RES_ERROR_INDEX_MAX = 32'hFFFFFFFF;
  localparam logic [31:0] RES_END_ELAPSED_NS_WORD = 32'd1;  // time the program took in ns (offset of the low word; high next)

  /* verilator lint_on UNUSEDPARAM */

endpackage : nandlab_ops_pkg

`default_nettype wire
