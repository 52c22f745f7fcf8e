/* Mailbox command server: one command at a time, answered in MBX_STATUS /
 * MBX_RESULT; every path ends in DONE or ERROR, never a wait on the host. */
#include <stddef.h>

#include "fwint.h"
#include "hal.h"
#include "nandlab_regs.h"

#define R(name) offsetof(nandlab_regs_t, name)
#define FIELD(v, reg, f) (((v) & NANDLAB_REGS__##reg##__##f##_bm) >> NANDLAB_REGS__##reg##__##f##_bp)

static uint32_t permits;
/* The session's limits (0: none): supply current (mA) and temperature (m°C). */
static uint32_t max_mA;
static int32_t max_mC;
/* The supply-current monitor (MONITOR), kept across sessions: it is the board's. */
static struct ina monitor;
static bool monitor_on;
static uint32_t heartbeat;
static uint32_t last_seq; /* SEQ of the last command taken */

static uint32_t version_word(void)
{
    return FW_VERSION_MINOR << NANDLAB_REGS__MBX_FW_VERSION__MINOR_bp |
           FW_VERSION_MAJOR << NANDLAB_REGS__MBX_FW_VERSION__MAJOR_bp |
           FW_PROTOCOL << NANDLAB_REGS__MBX_FW_VERSION__PROTOCOL_bp;
}

static void beat(void) { hal_reg_write(R(MBX_HEARTBEAT), ++heartbeat); }

static void set_status(uint32_t state, uint32_t error)
{
    hal_reg_write(R(MBX_STATUS), state << NANDLAB_REGS__MBX_STATUS__STATE_bp |
                                     last_seq << NANDLAB_REGS__MBX_STATUS__SEQ_bp |
                                     error << NANDLAB_REGS__MBX_STATUS__ERROR_bp);
}

void fw_init(void)
{
    permits = 0;
    max_mA = 0;
    max_mC = 0;
    monitor_on = false;
    uint32_t detail;
    thermal_set(false, false, 0, &detail); /* heater / TEC off from boot */
    thermal_default_gains();
    /* sets the board's temperature sensor converting, so it has a reading by
     * the time the host asks (a TMP117's first takes 15.5 ms) */
    int32_t mC;
    (void)hal_temp_mC(&mC);
    heartbeat = 0;
    /* A command left over from before this boot is not run: the host saw
     * MBX_FW_VERSION at 0 and must post again. */
    last_seq = FIELD(hal_reg_read(R(MBX_CMD)), MBX_CMD, SEQ);
    /* MBX_STATUS / MBX_RESULT are left as they are: idle after a power-up (the
     * CSR block's reset), and after a LOAD its answer, which the host may not
     * have read before the new image booted. */
    hal_reg_write(R(MBX_FW_VERSION), version_word());
    beat();
}

bool server_abort_requested(void)
{
    beat();
    uint32_t cmd = hal_reg_read(R(MBX_CMD));
    uint32_t seq = FIELD(cmd, MBX_CMD, SEQ);
    if (seq != last_seq && FIELD(cmd, MBX_CMD, CODE) == FW_CMD_ABORT) {
        last_seq = seq; /* the loop's end answers the ABORT */
        return true;
    }
    return false;
}

int server_check_limits(uint32_t *detail)
{
    if (max_mA != 0) {
        int32_t uA;
        if (!monitor_on || !ina_current_uA(&monitor, &uA)) {
            *detail = 0;
            return FW_ERR_NO_SENSOR;
        }
        /* the rail's draw, either sign of the shunt */
        uint32_t mA = (uint32_t)(uA < 0 ? -uA : uA) / 1000u;
        if (mA > max_mA) {
            *detail = mA;
            return FW_ERR_OVER_CURRENT;
        }
    }
    if (max_mC != 0) {
        int32_t mC;
        if (!hal_temp_mC(&mC)) {
            *detail = 1;
            return FW_ERR_NO_SENSOR;
        }
        if (mC > max_mC) {
            *detail = (uint32_t)mC;
            return FW_ERR_OVER_TEMP;
        }
    }
    return FW_OK;
}

/* A buffer the host named (byte offset, words) inside shared RAM, or NULL. */
static uint32_t *shared_buf(uint32_t offset, uint32_t words)
{
    uint32_t total = hal_shared_words();
    if (offset % 4 != 0 || words == 0 || offset / 4 > total || words > total - offset / 4) {
        return NULL;
    }
    return hal_shared() + offset / 4;
}

static int run_program(const uint32_t *arg, uint32_t *result)
{
    struct ring ring;
    struct seq_result res;
    uint32_t *prog = shared_buf(arg[0], arg[1]);
    uint32_t *rbuf = shared_buf(arg[2], arg[3]);
    if (prog == NULL || rbuf == NULL) {
        *result = prog == NULL ? 0 : 2;
        return FW_ERR_BAD_ARG;
    }
    ring_open(&ring, rbuf, arg[3]);
    int err = server_check_limits(result);
    if (err != FW_OK) {
        return err;
    }
    err = job_run(prog, arg[1], permits, &res, result);
    if (err == FW_OK || err == FW_ERR_CHIP_TIMEOUT || err == FW_ERR_SEQ_ERROR) {
        /* The host gets the stream, ERROR record included. */
        if (res.words > 0 && !ring_put(&ring, job_stream(), res.words)) {
            *result = res.words;
            return FW_ERR_RESULT_FULL;
        }
        if (err == FW_OK) {
            *result = res.words;
        }
    }
    return err;
}

static int run_loop(const uint32_t *arg, uint32_t *result)
{
    struct ring ring;
    uint32_t desc[FW_D_WORDS];
    const uint32_t *src = shared_buf(arg[0], arg[1]);
    uint32_t *rbuf = shared_buf(arg[2], arg[3]);
    if (src == NULL || rbuf == NULL) {
        *result = src == NULL ? 0 : 2;
        return FW_ERR_BAD_ARG;
    }
    if (arg[1] != FW_D_WORDS) {
        *result = 1;
        return FW_ERR_BAD_ARG;
    }
    /* A private copy: the ring may share RAM with the descriptor. */
    for (uint32_t i = 0; i < FW_D_WORDS; i++) {
        desc[i] = src[i];
    }
    ring_open(&ring, rbuf, arg[3]);
    return loop_run(desc, FW_D_WORDS, permits, &ring, result);
}

uint32_t fw_image_sum(const uint32_t *w, uint32_t n)
{
    uint32_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        sum = (sum << 1 | sum >> 31) + w[i];
    }
    return sum;
}

/* LOAD's checks; the reboot itself happens after the answer (fw_poll). */
static const uint32_t *load_image;
static uint32_t load_words;

static int load(const uint32_t *arg, uint32_t *result)
{
    if (arg[1] == 0 || arg[1] > FW_LOAD_MAX_WORDS) {
        *result = 1;
        return FW_ERR_BAD_ARG;
    }
    const uint32_t *img = shared_buf(arg[0], arg[1]);
    if (img == NULL) {
        *result = 0;
        return FW_ERR_BAD_ARG;
    }
    if (fw_image_sum(img, arg[1]) != arg[2]) {
        *result = 2;
        return FW_ERR_BAD_ARG;
    }
    /* Before the answer: a host that sees DONE must then see no version
     * until the new image has booted, and so leaves shared RAM (the image)
     * alone while it is copied. The heater stays off across the reboot. */
    uint32_t detail;
    thermal_set(false, false, 0, &detail);
    hal_reg_write(R(MBX_FW_VERSION), 0);
    load_image = img;
    load_words = arg[1];
    *result = arg[1];
    return FW_OK;
}

static int dispatch(uint32_t code, const uint32_t *arg, uint32_t *result)
{
    switch (code) {
    case FW_CMD_PING:
        *result = version_word();
        return FW_OK;
    case FW_CMD_SESSION:
        if (arg[0] & ~FW_PERMIT_ALL) {
            *result = 0;
            return FW_ERR_BAD_ARG;
        }
        permits = arg[0];
        *result = permits;
        return FW_OK;
    case FW_CMD_END_SESSION:
        permits = 0;
        max_mA = 0;
        max_mC = 0;
        thermal_default_gains();
        *result = 0;
        return FW_OK;
    case FW_CMD_THERMAL_GAINS: {
        struct pid_gains g = {.kp = arg[0], .ti_ms = arg[1], .td_ms = arg[2], .period_us = arg[3]};
        return thermal_gains(&g, result);
    }
    case FW_CMD_CURRENT: {
        int32_t uA;
        if (!monitor_on || !ina_current_uA(&monitor, &uA)) {
            *result = 0;
            return FW_ERR_NO_SENSOR;
        }
        *result = (uint32_t)uA;
        return FW_OK;
    }
    case FW_CMD_MONITOR: {
        uint32_t part = arg[0] >> 8;
        monitor_on = false;
        if (part == FW_MON_NONE) {
            *result = 0;
            return FW_OK;
        }
        if (part > FW_MON_INA228 || (arg[0] & 0xFFu) > 0x7Fu) {
            *result = 0;
            return FW_ERR_BAD_ARG;
        }
        monitor = (struct ina){.addr = (uint8_t)arg[0], .ina228 = part == FW_MON_INA228,
                               .shunt_uohm = arg[1], .max_mA = arg[2]};
        int st = ina_configure(&monitor);
        *result = (uint32_t)st;
        monitor_on = st == INA_OK;
        return monitor_on ? FW_OK : FW_ERR_NO_SENSOR;
    }
    case FW_CMD_THERMAL:
        if (arg[0] > 1 || arg[1] > 1) {
            *result = arg[0] > 1 ? 0 : 1;
            return FW_ERR_BAD_ARG;
        }
        return thermal_set(arg[0] == 1, arg[1] == 1, (int32_t)arg[2], result);
    case FW_CMD_LIMITS:
        max_mA = arg[0];
        max_mC = (int32_t)arg[1];
        *result = 0;
        return FW_OK;
    case FW_CMD_LOAD:
        return load(arg, result);
    case FW_CMD_RUN_PROGRAM:
        return run_program(arg, result);
    case FW_CMD_RUN_LOOP:
        return run_loop(arg, result);
    case FW_CMD_ABORT:
        /* Nothing runs between polls: an ABORT here finds no loop. */
        *result = 0;
        return FW_OK;
    default:
        *result = code;
        return FW_ERR_BAD_CMD;
    }
}

void fw_poll(void)
{
    beat();
    thermal_poll();
    uint32_t cmd = hal_reg_read(R(MBX_CMD));
    uint32_t seq = FIELD(cmd, MBX_CMD, SEQ);
    if (seq == last_seq) {
        return;
    }
    last_seq = seq;
    /* The ring restarts before BUSY shows: a host that sees its SEQ never
     * takes the last job's words. */
    hal_reg_write(R(MBX_RES_HEAD), 0);
    hal_reg_write(R(MBX_RES_TAIL), 0);
    set_status(FW_BUSY, FW_OK);
    uint32_t arg[4] = {
        hal_reg_read(R(MBX_ARG0)), hal_reg_read(R(MBX_ARG1)),
        hal_reg_read(R(MBX_ARG2)), hal_reg_read(R(MBX_ARG3)),
    };
    uint32_t result = 0;
    int err = dispatch(FIELD(cmd, MBX_CMD, CODE), arg, &result);
    hal_reg_write(R(MBX_RESULT), result);
    set_status(err == FW_OK ? FW_DONE : FW_ERROR, (uint32_t)err);
    if (load_image != NULL) {
        const uint32_t *img = load_image;
        load_image = NULL;
        hal_boot_image(img, load_words);
    }
}
