/* generated from host/nandlab/ops/spec.yaml by nandlab.ops.codegen, do not edit */
/* nandlab op program (contract 1): opcodes, result tags, error codes and word layouts. */
#ifndef NANDLAB_OPS_H
#define NANDLAB_OPS_H

/* version of spec.yaml */
#define NANDLAB_OPS_SPEC_VERSION 1u
/* bytes per stream word */
#define NANDLAB_OPS_WORD_BYTES 4u
/* most address cycles one ADDR latches */
#define NANDLAB_OPS_MAX_ADDR_BYTES 8u
/* largest byte count of DIN / DIN_PAT / DOUT / DOUT_CMP */
#define NANDLAB_OPS_MAX_LEN 0xFFFFFFu
/* highest chip-enable index */
#define NANDLAB_OPS_MAX_TARGET 0xFFu
/* longest DELAY in ns */
#define NANDLAB_OPS_MAX_DELAY_NS 0xFFFFFFu
/* highest MARK id */
#define NANDLAB_OPS_MAX_ID 0xFFFFFFu
/* highest ONFI SDR timing mode */
#define NANDLAB_OPS_MAX_SDR_MODE 5u
/* highest timing mode number of any interface (which exist is per interface) */
#define NANDLAB_OPS_MAX_TIMING_MODE 0x0Fu
/* most instructions in a program (indices are 24 bits) */
#define NANDLAB_OPS_MAX_INSTRUCTIONS 0x1000000u
/* largest value of a 32-bit word */
#define NANDLAB_OPS_MAX_U32 0xFFFFFFFFu
/* opcode (program) or tag (result stream) */
#define NANDLAB_OPS_HEADER_CODE_LSB 24u
#define NANDLAB_OPS_HEADER_CODE_WIDTH 8u
/* argument; layout per opcode / tag */
#define NANDLAB_OPS_HEADER_ARG_LSB 0u
#define NANDLAB_OPS_HEADER_ARG_WIDTH 24u
/* pattern kind */
#define NANDLAB_OPS_PATTERN_KIND_LSB 0u
#define NANDLAB_OPS_PATTERN_KIND_WIDTH 8u
/* 1 = every byte XOR 0xFF */
#define NANDLAB_OPS_PATTERN_INVERT_LSB 8u
#define NANDLAB_OPS_PATTERN_INVERT_WIDTH 1u
/* CONST: the byte; CHECKER: phase (0 or 1) */
#define NANDLAB_OPS_PATTERN_PARAM_LSB 16u
#define NANDLAB_OPS_PATTERN_PARAM_WIDTH 8u
/* WP# level: 1 = writes allowed */
#define NANDLAB_OPS_GPIO_WP_N_LSB 0u
#define NANDLAB_OPS_GPIO_WP_N_WIDTH 1u
/* supply enables (board specific) */
#define NANDLAB_OPS_GPIO_SUPPLY_EN_LSB 1u
#define NANDLAB_OPS_GPIO_SUPPLY_EN_WIDTH 7u
/* CHECKER byte for phase 0 */
#define NANDLAB_OPS_CHECKER_BYTE_0 0x55u
/* CHECKER byte for phase 1 */
#define NANDLAB_OPS_CHECKER_BYTE_1 0xAAu
/* PRBS state used for seed 0 */
#define NANDLAB_OPS_PRBS_DEFAULT_SEED 0x6A09E667u
/* xorshift32 shift << */
#define NANDLAB_OPS_PRBS_SHIFT_0 0x0Du
/* xorshift32 shift >> */
#define NANDLAB_OPS_PRBS_SHIFT_1 0x11u
/* xorshift32 shift << */
#define NANDLAB_OPS_PRBS_SHIFT_2 5u

/* Instruction opcodes (header bits[31:24] of a program). */
enum nandlab_opcode {
    NANDLAB_OP_END = 0x00, /* marks the end of a program */
    NANDLAB_OP_CE = 0x01, /* select chip-enable target */
    NANDLAB_OP_CMD = 0x02, /* latch one command byte */
    NANDLAB_OP_ADDR = 0x03, /* latch 1..8 address bytes, first byte first */
    NANDLAB_OP_DIN = 0x04, /* send n bytes from the host to the chip */
    NANDLAB_OP_DIN_PAT = 0x05, /* send n bytes from the on-board pattern generator to the chip */
    NANDLAB_OP_DOUT = 0x06, /* read n bytes from the chip to the host (DATA record) */
    NANDLAB_OP_DOUT_CMP = 0x07, /* read n bytes into the on-board comparator against the generated pattern; yields an ERRCNT record with one count pair per chunk (last chunk may be short) */
    NANDLAB_OP_WAIT_RDY = 0x08, /* wait for R/B# high; yields a BUSY record, or an ERROR TIMEOUT record */
    NANDLAB_OP_DELAY = 0x09, /* wait a fixed time (tWB, tWHR, tADL, tCCS, tFEAT...) */
    NANDLAB_OP_MARK = 0x0A, /* record a timestamp (MARK record) */
    NANDLAB_OP_POWER = 0x0B, /* open (start) or close (stop) a supply-current sampling window; stop yields a POWER record */
    NANDLAB_OP_TIMING = 0x0C, /* change the data interface, its timing mode and (DDR interfaces) the warm-up cycles the controller adds before a data burst, as SET FEATURES 02h told the die */
    NANDLAB_OP_GPIO = 0x0D, /* drive WP# and the supply enables; only bits set in mask change */
};

/* Result record tags (header bits[31:24] of a result stream). */
enum nandlab_result_tag {
    NANDLAB_RES_DATA = 0x80, /* bytes read by DOUT */
    NANDLAB_RES_BUSY = 0x81, /* R/B# low time seen by a WAIT_RDY */
    NANDLAB_RES_ERRCNT = 0x82, /* per-chunk bit error counts of a DOUT_CMP */
    NANDLAB_RES_POWER = 0x83, /* supply-current samples of a POWER window */
    NANDLAB_RES_MARK = 0x84, /* timestamp of a MARK */
    NANDLAB_RES_ERROR = 0x85, /* an instruction failed; the program stops */
    NANDLAB_RES_END = 0x86, /* closes the result stream */
};

/* Codes of ERROR result records. */
enum nandlab_error_code {
    NANDLAB_ERR_TIMEOUT = 0x01, /* R/B# did not return high within the WAIT_RDY timeout */
    NANDLAB_ERR_OVERFLOW = 0x02, /* the result stream overflowed the bench's buffer */
    NANDLAB_ERR_BAD_OPCODE = 0x03, /* unknown opcode */
    NANDLAB_ERR_TRUNCATED = 0x04, /* the program ended inside an instruction or without END */
    NANDLAB_ERR_BAD_ARG = 0x05, /* an argument is out of range */
    NANDLAB_ERR_NO_TARGET = 0x06, /* the selected chip-enable target is not present */
    NANDLAB_ERR_TRANSPORT = 0x07, /* the link to the bench failed */
};

/* Pattern generator kinds (pattern word bits[7:0]). */
enum nandlab_pattern_kind {
    NANDLAB_PAT_CONST = 0x00, /* every byte = param */
    NANDLAB_PAT_CHECKER = 0x01, /* every byte = CHECKER_BYTES[phase] */
    NANDLAB_PAT_PRBS = 0x02, /* xorshift32 stream from the seed */
};

/* Data interfaces (TIMING arg bits[6:4]). */
enum nandlab_interface {
    NANDLAB_IF_SDR = 0x00, /* ONFI SDR */
    NANDLAB_IF_NV_DDR = 0x01, /* ONFI NV-DDR */
    NANDLAB_IF_NV_DDR2 = 0x02, /* ONFI NV-DDR2 */
    NANDLAB_IF_NV_DDR3 = 0x03, /* ONFI NV-DDR3 (NV-DDR2 signalling at 1.2 V VccQ) */
    NANDLAB_IF_TOGGLE = 0x04, /* JEDEC Toggle DDR (2.0 and later) */
};

/* opcodes: arg fields and fixed trailing words */
/* target index */
#define NANDLAB_OP_CE_TARGET_LSB 0u
#define NANDLAB_OP_CE_TARGET_WIDTH 8u
#define NANDLAB_OP_CE_TARGET_MIN 0u
#define NANDLAB_OP_CE_TARGET_MAX 0xFFu
/* command byte */
#define NANDLAB_OP_CMD_BYTE_LSB 0u
#define NANDLAB_OP_CMD_BYTE_WIDTH 8u
#define NANDLAB_OP_CMD_BYTE_MIN 0u
#define NANDLAB_OP_CMD_BYTE_MAX 0xFFu
/* address byte count */
#define NANDLAB_OP_ADDR_N_LSB 0u
#define NANDLAB_OP_ADDR_N_WIDTH 4u
#define NANDLAB_OP_ADDR_N_MIN 1u
#define NANDLAB_OP_ADDR_N_MAX 8u
/* byte count */
#define NANDLAB_OP_DIN_N_LSB 0u
#define NANDLAB_OP_DIN_N_WIDTH 24u
#define NANDLAB_OP_DIN_N_MIN 1u
#define NANDLAB_OP_DIN_N_MAX 0xFFFFFFu
/* byte count */
#define NANDLAB_OP_DIN_PAT_N_LSB 0u
#define NANDLAB_OP_DIN_PAT_N_WIDTH 24u
#define NANDLAB_OP_DIN_PAT_N_MIN 1u
#define NANDLAB_OP_DIN_PAT_N_MAX 0xFFFFFFu
/* pattern word (word offset from the header) */
#define NANDLAB_OP_DIN_PAT_PATTERN_WORD 1u
#define NANDLAB_OP_DIN_PAT_PATTERN_MIN 0u
#define NANDLAB_OP_DIN_PAT_PATTERN_MAX 0xFFFFFFFFu
/* PRBS seed (0 = PRBS_DEFAULT_SEED) (word offset from the header) */
#define NANDLAB_OP_DIN_PAT_SEED_WORD 2u
#define NANDLAB_OP_DIN_PAT_SEED_MIN 0u
#define NANDLAB_OP_DIN_PAT_SEED_MAX 0xFFFFFFFFu
/* byte count */
#define NANDLAB_OP_DOUT_N_LSB 0u
#define NANDLAB_OP_DOUT_N_WIDTH 24u
#define NANDLAB_OP_DOUT_N_MIN 1u
#define NANDLAB_OP_DOUT_N_MAX 0xFFFFFFu
/* byte count */
#define NANDLAB_OP_DOUT_CMP_N_LSB 0u
#define NANDLAB_OP_DOUT_CMP_N_WIDTH 24u
#define NANDLAB_OP_DOUT_CMP_N_MIN 1u
#define NANDLAB_OP_DOUT_CMP_N_MAX 0xFFFFFFu
/* pattern word (word offset from the header) */
#define NANDLAB_OP_DOUT_CMP_PATTERN_WORD 1u
#define NANDLAB_OP_DOUT_CMP_PATTERN_MIN 0u
#define NANDLAB_OP_DOUT_CMP_PATTERN_MAX 0xFFFFFFFFu
/* PRBS seed (0 = PRBS_DEFAULT_SEED) (word offset from the header) */
#define NANDLAB_OP_DOUT_CMP_SEED_WORD 2u
#define NANDLAB_OP_DOUT_CMP_SEED_MIN 0u
#define NANDLAB_OP_DOUT_CMP_SEED_MAX 0xFFFFFFFFu
/* chunk size in bytes (word offset from the header) */
#define NANDLAB_OP_DOUT_CMP_CHUNK_WORD 3u
#define NANDLAB_OP_DOUT_CMP_CHUNK_MIN 1u
#define NANDLAB_OP_DOUT_CMP_CHUNK_MAX 0xFFFFFFu
/* timeout in ns (word offset from the header) */
#define NANDLAB_OP_WAIT_RDY_TIMEOUT_NS_WORD 1u
#define NANDLAB_OP_WAIT_RDY_TIMEOUT_NS_MIN 0u
#define NANDLAB_OP_WAIT_RDY_TIMEOUT_NS_MAX 0xFFFFFFFFu
/* delay in ns */
#define NANDLAB_OP_DELAY_NS_LSB 0u
#define NANDLAB_OP_DELAY_NS_WIDTH 24u
#define NANDLAB_OP_DELAY_NS_MIN 0u
#define NANDLAB_OP_DELAY_NS_MAX 0xFFFFFFu
/* mark id */
#define NANDLAB_OP_MARK_ID_LSB 0u
#define NANDLAB_OP_MARK_ID_WIDTH 24u
#define NANDLAB_OP_MARK_ID_MIN 0u
#define NANDLAB_OP_MARK_ID_MAX 0xFFFFFFu
/* 1 = start */
#define NANDLAB_OP_POWER_START_LSB 0u
#define NANDLAB_OP_POWER_START_WIDTH 1u
#define NANDLAB_OP_POWER_START_MIN 0u
#define NANDLAB_OP_POWER_START_MAX 1u
/* sample period in ns (word offset from the header) */
#define NANDLAB_OP_POWER_PERIOD_NS_WORD 1u
#define NANDLAB_OP_POWER_PERIOD_NS_MIN 1u
#define NANDLAB_OP_POWER_PERIOD_NS_MAX 0xFFFFFFFFu
/* timing mode of the interface */
#define NANDLAB_OP_TIMING_MODE_LSB 0u
#define NANDLAB_OP_TIMING_MODE_WIDTH 4u
#define NANDLAB_OP_TIMING_MODE_MIN 0u
#define NANDLAB_OP_TIMING_MODE_MAX 0x0Fu
/* 0 SDR, 1 NV-DDR, 2 NV-DDR2, 3 NV-DDR3, 4 Toggle DDR */
#define NANDLAB_OP_TIMING_INTERFACE_LSB 4u
#define NANDLAB_OP_TIMING_INTERFACE_WIDTH 3u
#define NANDLAB_OP_TIMING_INTERFACE_MIN 0u
#define NANDLAB_OP_TIMING_INTERFACE_MAX 4u
/* data-out warm-up RE# cycles, ONFI code: 0, 1, 2 or 4 cycles */
#define NANDLAB_OP_TIMING_WARMUP_OUT_LSB 8u
#define NANDLAB_OP_TIMING_WARMUP_OUT_WIDTH 2u
#define NANDLAB_OP_TIMING_WARMUP_OUT_MIN 0u
#define NANDLAB_OP_TIMING_WARMUP_OUT_MAX 3u
/* data-in warm-up DQS cycles, ONFI code: 0, 1, 2 or 4 cycles */
#define NANDLAB_OP_TIMING_WARMUP_IN_LSB 10u
#define NANDLAB_OP_TIMING_WARMUP_IN_WIDTH 2u
#define NANDLAB_OP_TIMING_WARMUP_IN_MIN 0u
#define NANDLAB_OP_TIMING_WARMUP_IN_MAX 3u
/* levels (see gpio_bits) */
#define NANDLAB_OP_GPIO_VALUE_LSB 0u
#define NANDLAB_OP_GPIO_VALUE_WIDTH 8u
#define NANDLAB_OP_GPIO_VALUE_MIN 0u
#define NANDLAB_OP_GPIO_VALUE_MAX 0xFFu
/* bits to change */
#define NANDLAB_OP_GPIO_MASK_LSB 8u
#define NANDLAB_OP_GPIO_MASK_WIDTH 8u
#define NANDLAB_OP_GPIO_MASK_MIN 0u
#define NANDLAB_OP_GPIO_MASK_MAX 0xFFu

/* result tags: arg fields and fixed trailing words */
/* byte count */
#define NANDLAB_RES_DATA_N_LSB 0u
#define NANDLAB_RES_DATA_N_WIDTH 24u
#define NANDLAB_RES_DATA_N_MIN 1u
#define NANDLAB_RES_DATA_N_MAX 0xFFFFFFu
/* index of the WAIT_RDY instruction */
#define NANDLAB_RES_BUSY_INDEX_LSB 0u
#define NANDLAB_RES_BUSY_INDEX_WIDTH 24u
#define NANDLAB_RES_BUSY_INDEX_MIN 0u
#define NANDLAB_RES_BUSY_INDEX_MAX 0xFFFFFFu
/* busy time in ns (word offset from the header) */
#define NANDLAB_RES_BUSY_BUSY_NS_WORD 1u
#define NANDLAB_RES_BUSY_BUSY_NS_MIN 0u
#define NANDLAB_RES_BUSY_BUSY_NS_MAX 0xFFFFFFFFu
/* chunk count */
#define NANDLAB_RES_ERRCNT_N_LSB 0u
#define NANDLAB_RES_ERRCNT_N_WIDTH 24u
#define NANDLAB_RES_ERRCNT_N_MIN 0u
#define NANDLAB_RES_ERRCNT_N_MAX 0xFFFFFFu
/* chunk size in bytes (word offset from the header) */
#define NANDLAB_RES_ERRCNT_CHUNK_BYTES_WORD 1u
#define NANDLAB_RES_ERRCNT_CHUNK_BYTES_MIN 1u
#define NANDLAB_RES_ERRCNT_CHUNK_BYTES_MAX 0xFFFFFFu
/* sample count */
#define NANDLAB_RES_POWER_N_LSB 0u
#define NANDLAB_RES_POWER_N_WIDTH 24u
#define NANDLAB_RES_POWER_N_MIN 0u
#define NANDLAB_RES_POWER_N_MAX 0xFFFFFFu
/* sample period in ns (word offset from the header) */
#define NANDLAB_RES_POWER_PERIOD_NS_WORD 1u
#define NANDLAB_RES_POWER_PERIOD_NS_MIN 1u
#define NANDLAB_RES_POWER_PERIOD_NS_MAX 0xFFFFFFFFu
/* mark id */
#define NANDLAB_RES_MARK_ID_LSB 0u
#define NANDLAB_RES_MARK_ID_WIDTH 24u
#define NANDLAB_RES_MARK_ID_MIN 0u
#define NANDLAB_RES_MARK_ID_MAX 0xFFFFFFu
/* time since the program started in ns (offset of the low word; high next) */
#define NANDLAB_RES_MARK_T_NS_WORD 1u
/* error code */
#define NANDLAB_RES_ERROR_CODE_LSB 0u
#define NANDLAB_RES_ERROR_CODE_WIDTH 24u
#define NANDLAB_RES_ERROR_CODE_MIN 1u
#define NANDLAB_RES_ERROR_CODE_MAX 0xFFFFFFu
/* index of the failing instruction (word offset from the header) */
#define NANDLAB_RES_ERROR_INDEX_WORD 1u
#define NANDLAB_RES_ERROR_INDEX_MIN 0u
#define NANDLAB_RES_ERROR_INDEX_MAX 0xFFFFFFFFu
/* time the program took in ns (offset of the low word; high next) */
#define NANDLAB_RES_END_ELAPSED_NS_WORD 1u

#endif /* NANDLAB_OPS_H */
