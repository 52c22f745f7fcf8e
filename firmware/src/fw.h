/* nandlab firmware: the mailbox command server of the board CPU
 * (docs/firmware.md). The numbers below are the mailbox protocol; the host's
 * copy is host/nandlab/firmware/protocol.py, checked against this file by
 * host/tests/test_firmware_mailbox.py. */
#ifndef NANDLAB_FW_H
#define NANDLAB_FW_H

#include <stdint.h>

#define FW_VERSION_MAJOR 0u
#ifndef FW_VERSION_MINOR /* a build may set it (make FW_CFLAGS=-DFW_VERSION_MINOR=...) */
#define FW_VERSION_MINOR 1u
#endif
#define FW_PROTOCOL 1u

/* MBX_CMD.CODE */
enum fw_cmd {
    FW_CMD_PING = 0x01,        /* result: the MBX_FW_VERSION word */
    FW_CMD_SESSION = 0x02,     /* arg0: permit bits; result: permits held */
    FW_CMD_RUN_PROGRAM = 0x03, /* arg0/1: program byte offset / words; arg2/3: ring byte offset / words */
    FW_CMD_RUN_LOOP = 0x04,    /* arg0/1: descriptor byte offset / words; arg2/3: ring */
    FW_CMD_ABORT = 0x05,       /* stops a running loop between two steps */
    FW_CMD_END_SESSION = 0x06, /* drops every permit and limit */
    FW_CMD_LIMITS = 0x07,      /* arg0: max supply mA, arg1: max temperature m°C (signed); 0 = none */
    FW_CMD_MONITOR = 0x08,     /* arg0: I2C address | part << 8 (FW_MON_*), arg1: shunt µΩ, arg2: max mA */
    FW_CMD_THERMAL = 0x09,     /* arg0: 1 on / 0 off, arg1: 1 TEC / 0 heater, arg2: setpoint m°C (signed); result: m°C read */
    FW_CMD_THERMAL_GAINS = 0x0A, /* arg0: Kc Q20 ‰/m°C, arg1: Ti ms (0 none), arg2: Td ms, arg3: step µs */
    FW_CMD_CURRENT = 0x0B,     /* result: the supply current (µA, signed) from the MONITOR part */
    FW_CMD_LOAD = 0x0C,        /* arg0/1: image byte offset / words in shared RAM, arg2: its checksum; then reboots into it */
};

/* LOAD: the image is the BRAM's first words (code, then .data's initial
 * values), at most FW_LOAD_MAX_WORDS; its checksum is fw_image_sum(). */
#define FW_LOAD_MAX_WORDS (0xC000u / 4u)

/* MONITOR parts: the supply-current monitor the limits read */
enum fw_monitor { FW_MON_NONE = 0, FW_MON_INA226 = 1, FW_MON_INA228 = 2 };

/* MBX_STATUS.STATE */
enum fw_state { FW_IDLE = 0, FW_BUSY = 1, FW_DONE = 2, FW_ERROR = 3 };

/* MBX_STATUS.ERROR; MBX_RESULT then holds the detail named here. */
enum fw_error {
    FW_OK = 0,
    FW_ERR_BAD_CMD = 1,       /* unknown command code; detail: the code */
    FW_ERR_BAD_ARG = 2,       /* buffer outside shared RAM or bad descriptor; detail: argument index */
    FW_ERR_NOT_PERMITTED = 3, /* erase / program / test mode without permit; detail: instruction index */
    FW_ERR_CHIP_TIMEOUT = 4,  /* R/B# never rose; the chip got a RESET; detail: loop step */
    FW_ERR_SEQ_STUCK = 5,     /* watchdog: no END from the sequencer, which was reset; detail: loop step */
    FW_ERR_SEQ_ERROR = 6,     /* the sequencer's ERROR record; detail: its code */
    FW_ERR_RESULT_FULL = 7,   /* the host did not take results from the ring; detail: loop step */
    FW_ERR_ABORTED = 8,       /* ABORT from the host; detail: steps done */
    FW_ERR_BAD_PROGRAM = 9,   /* malformed op program; detail: word index */
    FW_ERR_OVER_CURRENT = 10, /* supply current above the session's limit; detail: mA read */
    FW_ERR_OVER_TEMP = 11,    /* temperature above the session's limit; detail: m°C read */
    FW_ERR_NO_SENSOR = 12,    /* no reading for a limit, or MONITOR failed; detail: 0 current, 1 temperature, or INA_* */
};

/* SESSION permit bits */
#define FW_PERMIT_ERASE 0x1u
#define FW_PERMIT_PROGRAM 0x2u
#define FW_PERMIT_TEST_MODE 0x4u
#define FW_PERMIT_ALL 0x7u

/* Loop descriptor words (RUN_LOOP) */
enum fw_desc {
    FW_D_KIND = 0,       /* FW_LOOP_* */
    FW_D_TARGET = 1,     /* chip enable */
    FW_D_ROW = 2,        /* row address of the block's first page */
    FW_D_PAGES = 3,      /* pages written and checked per block (from the first) */
    FW_D_PAGE_BYTES = 4, /* bytes per page written and compared */
    FW_D_PATTERN = 5,    /* pattern word (contract 1) */
    FW_D_SEED = 6,       /* PRBS seed */
    FW_D_CHUNK = 7,      /* DOUT_CMP chunk bytes */
    FW_D_COUNT = 8,      /* P/E cycles, or sweep steps */
    FW_D_TIMEOUT_NS = 9, /* WAIT_RDY timeout of every busy phase */
    FW_D_FEATURE = 10,   /* sweep: SET FEATURES address of the read offset */
    FW_D_FIRST = 11,     /* sweep: first offset (signed 8 bits) */
    FW_D_STEP = 12,      /* sweep: offset step (signed 8 bits) */
    FW_D_WORDS = 13,
    /* read disturb: the same words 10 and 11, other meanings */
    FW_D_AGGRESSOR = 10, /* page (from ROW) read again and again */
    FW_D_READS = 11,     /* its reads per checkpoint (step) */
};

enum fw_loop {
    FW_LOOP_PE_CYCLE = 1,
    FW_LOOP_READ_SWEEP = 2,
    FW_LOOP_READ_DISTURB = 3,
    FW_LOOP_VTH_HIST = 4, /* a sweep that counts, per written bit value, the cells reading 1 */
};

/* Ring records of the loops: header = tag << 24 | words after the header. */
#define FW_REC_PE 0xC0u    /* cycle, erase busy ns, program busy ns, status fails, err 0->1, err 1->0 */
#define FW_REC_SWEEP 0xC1u /* offset (signed), read busy ns, err 0->1, err 1->0 */
#define FW_REC_DISTURB 0xC2u /* checkpoint, aggressor reads so far, their busy ns, err 0->1, 1->0 */
#define FW_REC_HIST 0xC3u  /* offset (signed), read busy ns, cells written 1 / written 0 that read 1 */
#define FW_REC_PE_WORDS 7u
#define FW_REC_SWEEP_WORDS 5u
#define FW_REC_DISTURB_WORDS 6u
#define FW_REC_HIST_WORDS 5u

void fw_init(void);
/* One poll of the mailbox; a new command runs to completion inside it. */
void fw_poll(void);

#endif
