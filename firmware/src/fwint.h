/* Internal interfaces between the firmware's modules. */
#ifndef NANDLAB_FWINT_H
#define NANDLAB_FWINT_H

#include <stdbool.h>
#include <stdint.h>

#include "fw.h"

/* --- prog.c: building op programs (contract 1) --- */
/* ONFI SDR delays the programs honour, mode 0's (the longest, so right in
 * every mode): WE# high to busy, to the first RE# (also tRR after ready), and
 * last address to data in. */
#define T_WB_NS 200u
#define T_WHR_NS 120u
#define T_ADL_NS 400u
#define T_CCS_NS 500u /* column change to data out */
struct prog {
    uint32_t *w;
    uint32_t n, cap;
    bool overflow;
};
void prog_init(struct prog *p, uint32_t *buf, uint32_t cap);
void prog_ce(struct prog *p, uint32_t target);
void prog_cmd(struct prog *p, uint8_t cmd);
void prog_addr(struct prog *p, const uint8_t *bytes, uint32_t n);
void prog_row_addr(struct prog *p, uint32_t row, bool with_column);
void prog_din(struct prog *p, const uint8_t *bytes, uint32_t n);
void prog_din_pat(struct prog *p, uint32_t n, uint32_t pattern, uint32_t seed);
void prog_dout(struct prog *p, uint32_t n);
void prog_dout_cmp(struct prog *p, uint32_t n, uint32_t pattern, uint32_t seed, uint32_t chunk);
void prog_wait_rdy(struct prog *p, uint32_t timeout_ns);
void prog_delay(struct prog *p, uint32_t ns);
void prog_end(struct prog *p);

/* --- scan.c: reading programs and result streams --- */
/* Words of the instruction at prog[i] (0: malformed or cut short). */
uint32_t scan_instr_words(const uint32_t *prog, uint32_t n, uint32_t i);
/* Words of the result record whose header is rsp[0] (0: unknown tag). */
uint32_t scan_record_words(uint32_t header);
/* Checks `prog` against the permits; FW_OK, or an error with *detail set.
 * *used gets its words up to and with END, *watchdog_ns the time it may take
 * (its WAIT_RDY and DELAY times plus a margin for the bus transfers). */
int scan_program(const uint32_t *prog, uint32_t n, uint32_t permits, uint32_t *detail,
                 uint32_t *used, uint64_t *watchdog_ns);

/* --- ring.c: the job's result ring in shared RAM --- */
struct ring {
    uint32_t *base;
    uint32_t words;
    uint32_t head;
};
void ring_open(struct ring *r, uint32_t *base, uint32_t words);
/* Appends one record; false when the host left too little room. */
bool ring_put(struct ring *r, const uint32_t *w, uint32_t n);
/* Words the host has left room for. */
uint32_t ring_room(const struct ring *r);

/* --- job.c: running programs with the watchdog --- */
struct seq_result {
    uint32_t busy_ns;   /* sum of BUSY records */
    uint32_t err_0to1;  /* sums of ERRCNT records */
    uint32_t err_1to0;
    uint32_t status;    /* last DATA byte (a READ STATUS), 0 if none */
    uint32_t words;     /* length of the result stream */
};
/* Checks `prog` against the permits and runs it; FW_OK or the error (after
 * recovering the chip / sequencer: FW_ERR_CHIP_TIMEOUT, FW_ERR_SEQ_STUCK). */
int job_run(const uint32_t *prog, uint32_t n, uint32_t permits, struct seq_result *res,
            uint32_t *detail);
/* The scratch result stream of the last job_run. */
const uint32_t *job_stream(void);
/* Pulses CONTROL.SOFT_RESET: the sequencer and its FIFOs start empty. */
void job_reset_sequencer(void);
/* RESET (FFh) of a chip that kept R/B# low (the sequencer too if that fails). */
void job_recover_chip(uint32_t target);

/* --- pipe.c: a loop's ops queued ahead of their results --- */
struct pipe_op {
    const uint32_t *w; /* the op program, END included */
    uint32_t n;
    uint64_t budget_ns; /* watchdog budget (scan_program) */
    uint32_t tag;       /* the loop's name for the op, handed back with its results */
};
/* What a source's next() answers: an op in *op, nothing yet (ask again once
 * results came back), no more ops; any other value is an FW_ERR_* that ends
 * the loop after the queued ops are answered. */
enum { PIPE_OP = -1, PIPE_WAIT = -2, PIPE_END = -3 };
struct pipe_src {
    int (*next)(void *ctx, struct pipe_op *op);
    /* One op's results, in queue order; FW_OK, or an error (detail in *detail)
     * that stops the pipe. */
    int (*done)(void *ctx, uint32_t tag, const struct seq_result *res, uint32_t *detail);
    void *ctx;
};
/* Runs a source's ops on chip `target` until it has no more; FW_OK, the
 * error next() gave, done()'s error (*failed_tag = its detail), or the error
 * of an op (*failed_tag = its tag) after flushing the queue and recovering
 * the chip: FW_ERR_CHIP_TIMEOUT, FW_ERR_SEQ_ERROR, FW_ERR_SEQ_STUCK. */
int pipe_run(const struct pipe_src *src, uint32_t target, uint32_t *failed_tag);

/* --- ina.c: INA226 / INA228 shunt monitors over I2C --- */
struct ina {
    uint8_t addr;        /* 7-bit I2C address */
    bool ina228;         /* else INA226 */
    uint32_t shunt_uohm; /* shunt resistance (µΩ) */
    uint32_t max_mA;     /* largest current to measure: sets the current LSB */
};
enum { INA_OK = 0, INA_NO_ANSWER = 1, INA_WRONG_ID = 2, INA_BAD_CALIBRATION = 3 };
/* Checks the IDs, resets the part, writes its settings and calibration. */
int ina_configure(const struct ina *d);
/* The last current result (µA, signed); false when the part does not answer. */
bool ina_current_uA(const struct ina *d, int32_t *uA);

/* --- tmp117.c: the board's temperature sensor (TI TMP117) over I2C --- */
#define TMP117_ADDR 0x48u /* ADD0 to GND */
/* The last conversion (m°C); false when the part does not answer, is not a
 * TMP117, or has not finished its first conversion. Configures it on first use. */
bool tmp117_read_mC(uint8_t addr, int32_t *mC);

/* --- thermal.c: temperature PID loop --- */
/* Ideal-form PID: Kc (e + 1/Ti ∫e dt - Td dmeas/dt), stepped every period. */
struct pid_gains {
    uint32_t kp;        /* Kc in Q20 ‰ per m°C (1..PID_KP_MAX) */
    uint32_t ti_ms;     /* integral time (0: no integral; else >= one period) */
    uint32_t td_ms;     /* derivative time (0: none) */
    uint32_t period_us; /* step period */
};
#define PID_KP_MAX (1u << 22) /* 4 ‰/m°C: 4000 ‰/K, far past any socket */
#define PID_TI_MAX_MS 3600000u
#define PID_TD_MAX_MS 10000u
#define PID_PERIOD_MIN_US 10u
#define PID_PERIOD_MAX_US 1000000u
/* THERMAL_GAINS: FW_OK, or FW_ERR_BAD_ARG with *detail the argument out of
 * its limits (0 kp, 1 ti, 2 td, 3 period); the running loop takes them at
 * its next step. */
int thermal_gains(const struct pid_gains *g, uint32_t *detail);
/* Back to the built-in tuning (boot, END_SESSION). */
void thermal_default_gains(void);
struct pid {
    int32_t out_min, out_max; /* ‰ */
    int64_t integ;            /* integral term, ‰ in Q20 */
    int32_t prev;             /* last measurement (m°C) */
    bool primed;
};
void pid_init(struct pid *c, int32_t out_min, int32_t out_max);
/* One step with the current gains: the output (‰) for `meas_mC` against
 * `setpoint_mC`, dt_us after the last. */
int32_t pid_step(struct pid *c, int32_t setpoint_mC, int32_t meas_mC, uint32_t dt_us);
/* THERMAL: on/off, heater (0..1000 ‰) or TEC (-1000..1000 ‰), setpoint; FW_OK
 * (detail: the temperature read) or FW_ERR_NO_SENSOR (detail 1 no sensor, 2 no PWM). */
int thermal_set(bool on, bool tec, int32_t setpoint_mC, uint32_t *detail);
/* Steps the loop when its period is due (mailbox poll, loops' idle passes). */
void thermal_poll(void);
int32_t thermal_last_mC(void);

/* --- server.c: firmware loading --- */
/* Checksum of a LOAD image: for each word, sum = rotl(sum, 1) + word (so a
 * swapped or shifted word changes it too); nandlab.firmware.image has the same. */
uint32_t fw_image_sum(const uint32_t *w, uint32_t n);

/* --- loops.c --- */
int loop_run(const uint32_t *desc, uint32_t n, uint32_t permits, struct ring *ring,
             uint32_t *steps);

/* --- server.c --- */
/* True if the host has posted ABORT (polled by loops between steps). */
bool server_abort_requested(void);
/* FW_OK, or the session's limit the board is past (FW_ERR_OVER_CURRENT,
 * FW_ERR_OVER_TEMP, FW_ERR_NO_SENSOR) with *detail the reading; checked before
 * every RUN_PROGRAM and every loop step. */
int server_check_limits(uint32_t *detail);

#endif
