/* Running op programs on the sequencer under the firmware's watchdog. */
#include <stddef.h>

#include "fwint.h"
#include "hal.h"
#include "nandlab_ops.h"
#include "nandlab_regs.h"

#define CODE(w) ((w) >> NANDLAB_OPS_HEADER_CODE_LSB)
#define ARG(w) ((w) & 0xFFFFFFu)

/* Result stream of one program: a page read to the host (DOUT) of up to
 * 4 KiB fits; larger reads belong in the comparator (DOUT_CMP). */
#define STREAM_WORDS 1100u
/* RESET (FFh) ends within tRST (ONFI: at most 1 ms after a program or erase). */
#define RESET_TIMEOUT_NS 1000000u

static uint32_t stream[STREAM_WORDS];

const uint32_t *job_stream(void) { return stream; }

enum { SEQ_OK, SEQ_STUCK, SEQ_OVERFLOW };

/* Feeds `prog` to the sequencer and collects its result stream until the END
 * record is complete, or the watchdog fires (SEQ_STUCK) or the stream outgrows
 * `cap` (SEQ_OVERFLOW). */
static int seq_run(const uint32_t *prog, uint32_t n, uint32_t *rsp, uint32_t cap, uint32_t *len,
                   uint64_t watchdog_ns)
{
    uint64_t deadline = hal_time_ns() + watchdog_ns;
    uint32_t sent = 0, got = 0, record_end = 0;
    bool end_seen = false;
    *len = 0;
    while (!(end_seen && got == record_end)) {
        if (sent < n) {
            uint32_t room = hal_seq_tx_vacancy();
            uint32_t k = n - sent < room ? n - sent : room;
            if (k == n - sent) {
                hal_seq_tx_block(prog + sent, k);
            } else {
                for (uint32_t i = 0; i < k; i++) {
                    hal_seq_tx(prog[sent + i], false);
                }
            }
            sent += k;
        }
        while (hal_seq_rx_occupancy() > 0 && !(end_seen && got == record_end)) {
            uint32_t w = hal_seq_rx();
            if (got == cap) {
                return SEQ_OVERFLOW;
            }
            if (got == record_end) {
                uint32_t words = scan_record_words(w);
                /* An unknown tag cannot be framed: keep it as one word for
                 * parse() to report. */
                record_end = got + (words ? words : 1u);
                end_seen = CODE(w) == NANDLAB_RES_END;
            }
            rsp[got++] = w;
            *len = got;
        }
        if (!(end_seen && got == record_end) && hal_time_ns() > deadline) {
            return SEQ_STUCK;
        }
    }
    return SEQ_OK;
}

void job_reset_sequencer(void)
{
    hal_reg_write(offsetof(nandlab_regs_t, CONTROL), NANDLAB_REGS__CONTROL__SOFT_RESET_bm);
}

/* The chip enable the program selects first (0 if none). */
static uint32_t first_target(const uint32_t *prog, uint32_t n)
{
    for (uint32_t i = 0; i < n;) {
        uint32_t len = scan_instr_words(prog, n, i);
        if (len == 0 || CODE(prog[i]) == NANDLAB_OP_END) {
            break;
        }
        if (CODE(prog[i]) == NANDLAB_OP_CE) {
            return ARG(prog[i]);
        }
        i += len;
    }
    return 0;
}

/* A chip that kept R/B# low gets a RESET; if it stays busy even then the
 * sequencer is reset too, so the next job starts from a known state. */
void job_recover_chip(uint32_t target)
{
    uint32_t buf[8];
    uint32_t rsp[16]; /* its own stream: the failed job's stays readable */
    struct prog p;
    uint32_t len;
    prog_init(&p, buf, 8);
    prog_ce(&p, target);
    prog_cmd(&p, 0xFF);
    prog_delay(&p, T_WB_NS);
    prog_wait_rdy(&p, RESET_TIMEOUT_NS);
    prog_end(&p);
    if (seq_run(p.w, p.n, rsp, 16, &len, 2u * RESET_TIMEOUT_NS) != SEQ_OK) {
        job_reset_sequencer();
    }
}

static int parse(uint32_t len, struct seq_result *res, uint32_t *detail)
{
    res->words = len;
    for (uint32_t i = 0; i < len;) {
        uint32_t h = stream[i];
        uint32_t w = scan_record_words(h);
        if (w == 0 || w > len - i) {
            *detail = i;
            return FW_ERR_SEQ_ERROR;
        }
        switch (CODE(h)) {
        case NANDLAB_RES_BUSY:
            res->busy_ns += stream[i + 1];
            break;
        case NANDLAB_RES_ERRCNT:
            for (uint32_t k = 0; k < ARG(h); k++) {
                res->err_0to1 += stream[i + 2 + 2 * k];
                res->err_1to0 += stream[i + 3 + 2 * k];
            }
            break;
        case NANDLAB_RES_DATA:
            res->status = (stream[i + 1 + (ARG(h) - 1) / 4] >> (8 * ((ARG(h) - 1) % 4))) & 0xFFu;
            break;
        case NANDLAB_RES_ERROR:
            *detail = ARG(h);
            return ARG(h) == NANDLAB_ERR_TIMEOUT ? FW_ERR_CHIP_TIMEOUT : FW_ERR_SEQ_ERROR;
        default:
            break;
        }
        i += w;
    }
    return FW_OK;
}

int job_run(const uint32_t *prog, uint32_t n, uint32_t permits, struct seq_result *res,
            uint32_t *detail)
{
    uint64_t watchdog_ns;
    uint32_t len = 0, used;
    *res = (struct seq_result){0};
    int err = scan_program(prog, n, permits, detail, &used, &watchdog_ns);
    if (err != FW_OK) {
        return err;
    }
    /* Up to END only: its word carries tlast. */
    int st = seq_run(prog, used, stream, STREAM_WORDS, &len, watchdog_ns);
    if (st == SEQ_STUCK) {
        job_reset_sequencer();
        *detail = 0;
        return FW_ERR_SEQ_STUCK;
    }
    if (st == SEQ_OVERFLOW) {
        job_reset_sequencer();
        *detail = NANDLAB_ERR_OVERFLOW;
        return FW_ERR_SEQ_ERROR;
    }
    err = parse(len, res, detail);
    if (err == FW_ERR_CHIP_TIMEOUT) {
        job_recover_chip(first_target(prog, n));
    }
    return err;
}
