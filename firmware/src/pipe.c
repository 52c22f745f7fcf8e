/* The loops' op pipeline: op programs go to the sequencer ahead of their
 * results, so the CPU queues the next operations and reads the last ones'
 * results while the chip is busy, and the sequencer never waits for the
 * firmware between two operations (the ≤ 1 % overhead goal of issue 15).
 * Results are parsed word by word as they arrive: nothing is copied. */
#include "fwint.h"
#include "hal.h"
#include "nandlab_ops.h"

#define CODE(w) ((w) >> NANDLAB_OPS_HEADER_CODE_LSB)
#define ARG(w) ((w) & 0xFFFFFFu)
/* Ops queued and not yet answered: a power of two (slots are indexed by
 * masking). 16 ops of some 20 words stay well inside the sequencer's
 * 512-word program FIFO. */
#define DEPTH 16u

struct slot {
    uint32_t tag;
    uint64_t budget_ns;
};

/* Result stream parser state: the record being read and the op's sums. */
struct rx {
    uint32_t left;     /* words of the current record still to come */
    uint32_t code, arg, pos;
    uint32_t error;    /* an ERROR record's code (0: none) */
    struct seq_result res;
};

/* Word by word: a struct assignment would call picolibc's byte-wise memset. */
static void rx_clear(struct rx *x)
{
    x->left = x->code = x->arg = x->pos = x->error = 0;
    x->res.busy_ns = x->res.err_0to1 = x->res.err_1to0 = x->res.status = x->res.words = 0;
}

/* Feeds one result word; true when it closes an op (its END record). */
static bool rx_word(struct rx *x, uint32_t w)
{
    if (x->left == 0) {
        uint32_t words = scan_record_words(w);
        x->code = CODE(w);
        x->arg = ARG(w);
        x->pos = 1;
        /* An unknown tag cannot be framed: it stops the op as a sequencer error. */
        if (words == 0) {
            x->error = NANDLAB_ERR_BAD_OPCODE;
            return true;
        }
        x->left = words - 1;
        return false;
    }
    switch (x->code) {
    case NANDLAB_RES_BUSY:
        x->res.busy_ns += w;
        break;
    case NANDLAB_RES_ERRCNT:
        /* word 1 is the chunk size, then (0->1, 1->0) pairs */
        if (x->pos >= 2) {
            if (x->pos & 1u) {
                x->res.err_1to0 += w;
            } else {
                x->res.err_0to1 += w;
            }
        }
        break;
    case NANDLAB_RES_DATA:
        /* the op's status is the last byte of its last DATA record */
        if (x->pos == 1 + ((x->arg - 1) >> 2)) {
            x->res.status = (w >> (8 * ((x->arg - 1) & 3u))) & 0xFFu;
        }
        break;
    case NANDLAB_RES_ERROR:
        x->error = x->arg;
        break;
    default:
        break;
    }
    x->pos++;
    x->left--;
    return x->left == 0 && x->code == NANDLAB_RES_END;
}

int pipe_run(const struct pipe_src *src, uint32_t target, uint32_t *failed_tag)
{
    struct slot q[DEPTH];
    struct rx x;
    struct pipe_op op;
    uint32_t head = 0, tail = 0; /* queued ops: q[tail..head) */
    bool more = true, have_op = false, armed = false;
    uint64_t deadline = 0;
    int err = FW_OK;
    rx_clear(&x);
    while (more || have_op || head != tail) {
        bool progress = false;
        /* Queue ops while the FIFO has room for a whole program. */
        while (head - tail < DEPTH && (have_op || more)) {
            if (!have_op) {
                int next = src->next(src->ctx, &op);
                if (next == PIPE_WAIT) {
                    break;
                }
                if (next == PIPE_END) {
                    more = false;
                    break;
                }
                if (next != PIPE_OP) {
                    err = next;
                    more = false;
                    break;
                }
                have_op = true;
            }
            if (hal_seq_tx_vacancy() < op.n) {
                break;
            }
            hal_seq_tx_block(op.w, op.n);
            q[head & (DEPTH - 1u)].tag = op.tag;
            q[head & (DEPTH - 1u)].budget_ns = op.budget_ns;
            head++;
            have_op = false;
            progress = true;
        }
        /* Read what came back, op by op, in queue order. */
        for (uint32_t avail = hal_seq_rx_occupancy(); avail > 0 && head != tail; avail--) {
            progress = true;
            if (!rx_word(&x, hal_seq_rx())) {
                continue;
            }
            struct slot *s = &q[tail & (DEPTH - 1u)];
            tail++;
            if (x.error != 0) {
                *failed_tag = s->tag;
                /* Later ops are queued behind it: flush them before the chip's RESET. */
                job_reset_sequencer();
                if (x.error == NANDLAB_ERR_TIMEOUT) {
                    job_recover_chip(target);
                    return FW_ERR_CHIP_TIMEOUT;
                }
                return FW_ERR_SEQ_ERROR;
            }
            uint32_t detail = 0;
            int done = src->done(src->ctx, s->tag, &x.res, &detail);
            rx_clear(&x);
            if (done != FW_OK) {
                if (head != tail) {
                    job_reset_sequencer();
                }
                *failed_tag = detail;
                return done;
            }
        }
        /* Watchdog on the oldest op, timed only while nothing moves, so a
         * streaming pipe never reads the clock. */
        if (!progress) {
            thermal_poll(); /* the chip is busy: the temperature loop keeps its period */
        }
        if (progress || head == tail) {
            armed = false;
        } else if (!armed) {
            deadline = hal_time_ns() + q[tail & (DEPTH - 1u)].budget_ns;
            armed = true;
        } else if (hal_time_ns() > deadline) {
            *failed_tag = q[tail & (DEPTH - 1u)].tag;
            job_reset_sequencer();
            return FW_ERR_SEQ_STUCK;
        }
    }
    return err;
}
