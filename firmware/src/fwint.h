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

/* --- loops.c --- */
int loop_run(const uint32_t *desc, uint32_t n, uint32_t permits, struct ring *ring,
             uint32_t *steps);

/* --- server.c --- */
/* True if the host has posted ABORT (polled by loops between steps). */
bool server_abort_requested(void);

#endif
