/* On-board loops: whole P/E cycles, read-offset sweeps (with error counts, or
 * with Vth histograms) and read-disturb runs with the pattern generator and the
 * DOUT_CMP comparator, one ring record per step and no host round trip in
 * between. */
#include "fwint.h"

#include "nandlab_ops.h"

#define PROG_WORDS 24u
/* ONFI status byte, bit 0: the last erase / program failed. */
#define STATUS_FAIL 0x01u

/* An op program built and scanned once per loop; each op patches its row
 * address (or feature parameter) into a copy. */
struct tmpl {
    uint32_t w[PROG_WORDS];
    uint32_t n;
    uint32_t patch_at; /* first word of the row address bytes / feature parameters */
    uint64_t budget_ns;
};

enum op_kind { K_ERASE, K_PROGRAM, K_VERIFY, K_OFFSET, K_SENSE, K_INVERSE };
/* Tag of an op in the pipe: kind, last op of its step, step. */
#define TAG(kind, last, step) ((uint32_t)(kind) | (last) << 3 | (step) << 4)
#define TAG_KIND(t) ((t) & 7u)
#define TAG_LAST(t) (((t) >> 3) & 1u)
#define TAG_STEP(t) ((t) >> 4)

struct loop {
    const uint32_t *d;
    uint32_t permits;
    uint32_t kind; /* FW_LOOP_* */
    bool pe;
    struct ring *ring;
    uint32_t rec_words;
    struct tmpl erase, program, verify, offset, sense, inverse;
    /* queuing cursor: step, op within the step (-1: not started) */
    uint32_t q_step;
    int32_t q_op;
    uint32_t limit_detail; /* the reading that stopped the loop at a limit */
    /* results: steps reported and the sums of the step being answered */
    uint32_t steps_done;
    uint32_t sum_erase_ns, sum_busy_ns, fails, e01, e10;
    uint32_t ones_below; /* histogram: cells written 1 that read 1 */
};

static struct prog *begin(struct loop *l, struct prog *p, struct tmpl *t)
{
    prog_init(p, t->w, PROG_WORDS);
    prog_ce(p, l->d[FW_D_TARGET]);
    return p;
}

/* The shapes of nandlab.sequences.core: tWB then WAIT_RDY after a confirm;
 * READ STATUS with tWHR before the byte. */
static void busy(const struct loop *l, struct prog *p)
{
    prog_delay(p, T_WB_NS);
    prog_wait_rdy(p, l->d[FW_D_TIMEOUT_NS]);
}

static void status(struct prog *p)
{
    prog_cmd(p, 0x70);
    prog_delay(p, T_WHR_NS);
    prog_dout(p, 1);
}

/* Closes and scans a template: permits, shape and watchdog budget once. */
static int finish(const struct loop *l, struct prog *p, struct tmpl *t, uint32_t *detail)
{
    uint32_t used;
    prog_end(p);
    t->n = p->n;
    return scan_program(t->w, t->n, l->permits, detail, &used, &t->budget_ns);
}

static int build_erase(struct loop *l, uint32_t *detail)
{
    struct prog p;
    begin(l, &p, &l->erase);
    prog_cmd(&p, 0x60);
    l->erase.patch_at = p.n + 1;
    prog_row_addr(&p, l->d[FW_D_ROW], false);
    prog_cmd(&p, 0xD0);
    busy(l, &p);
    status(&p);
    return finish(l, &p, &l->erase, detail);
}

static int build_program(struct loop *l, uint32_t *detail)
{
    struct prog p;
    begin(l, &p, &l->program);
    prog_cmd(&p, 0x80);
    l->program.patch_at = p.n + 1;
    prog_row_addr(&p, l->d[FW_D_ROW], true);
    prog_delay(&p, T_ADL_NS);
    prog_din_pat(&p, l->d[FW_D_PAGE_BYTES], l->d[FW_D_PATTERN], l->d[FW_D_SEED]);
    prog_cmd(&p, 0x10);
    busy(l, &p);
    status(&p);
    return finish(l, &p, &l->program, detail);
}

static int build_verify(struct loop *l, uint32_t *detail)
{
    struct prog p;
    begin(l, &p, &l->verify);
    prog_cmd(&p, 0x00);
    l->verify.patch_at = p.n + 1;
    prog_row_addr(&p, l->d[FW_D_ROW], true);
    prog_cmd(&p, 0x30);
    busy(l, &p);
    prog_delay(&p, T_WHR_NS);
    prog_dout_cmp(&p, l->d[FW_D_PAGE_BYTES], l->d[FW_D_PATTERN], l->d[FW_D_SEED],
                  l->d[FW_D_CHUNK]);
    return finish(l, &p, &l->verify, detail);
}

/* A read disturb: the page is sensed (READ 00h-30h, busy tR), no data out. */
static int build_sense(struct loop *l, uint32_t *detail)
{
    struct prog p;
    begin(l, &p, &l->sense);
    prog_cmd(&p, 0x00);
    l->sense.patch_at = p.n + 1;
    prog_row_addr(&p, l->d[FW_D_ROW], true);
    prog_cmd(&p, 0x30);
    busy(l, &p);
    return finish(l, &p, &l->sense, detail);
}

/* The histogram's second look at the page just read: CHANGE READ COLUMN to 0
 * (05h-E0h, no new sensing, the page register still holds it) and a DOUT_CMP
 * against the inverted pattern, whose 0->1 errors are the cells written 1
 * that read 1. The verify before it counts those written 0 (its 0->1 errors). */
static int build_inverse(struct loop *l, uint32_t *detail)
{
    static const uint8_t column[2] = {0, 0};
    struct prog p;
    begin(l, &p, &l->inverse);
    prog_cmd(&p, 0x05);
    prog_addr(&p, column, 2);
    prog_cmd(&p, 0xE0);
    prog_delay(&p, T_CCS_NS);
    prog_dout_cmp(&p, l->d[FW_D_PAGE_BYTES],
                  l->d[FW_D_PATTERN] ^ (1u << NANDLAB_OPS_PATTERN_INVERT_LSB), l->d[FW_D_SEED],
                  l->d[FW_D_CHUNK]);
    return finish(l, &p, &l->inverse, detail);
}

static int build_offset(struct loop *l, uint32_t *detail)
{
    uint8_t feature = (uint8_t)l->d[FW_D_FEATURE];
    uint8_t params[4] = {0, 0, 0, 0};
    struct prog p;
    begin(l, &p, &l->offset);
    prog_cmd(&p, 0xEF);
    prog_addr(&p, &feature, 1);
    prog_delay(&p, T_ADL_NS);
    l->offset.patch_at = p.n + 1;
    prog_din(&p, params, 4);
    busy(l, &p);
    return finish(l, &p, &l->offset, detail);
}

/* Patches `row` into template `t` in place (5 address bytes: column 0, then
 * the row; 3: the row alone). The pipe sends an op's words before it asks for
 * the next op, so no copy is needed. */
static const uint32_t *at_row(struct tmpl *t, uint32_t row, bool column)
{
    if (column) {
        t->w[t->patch_at] = (row & 0xFFFFu) << 16;
        t->w[t->patch_at + 1] = row >> 16;
    } else {
        t->w[t->patch_at] = row;
    }
    return t->w;
}

static const uint32_t *at_offset(struct loop *l, uint8_t offset)
{
    l->offset.w[l->offset.patch_at] = offset;
    return l->offset.w;
}

static int8_t sweep_offset(const struct loop *l, uint32_t step)
{
    return (int8_t)(uint8_t)(l->d[FW_D_FIRST] + step * l->d[FW_D_STEP]);
}

/* Pages the disturb loop checks: the first PAGES but the aggressor. */
static uint32_t victims(const uint32_t *d)
{
    return d[FW_D_PAGES] - (d[FW_D_AGGRESSOR] < d[FW_D_PAGES] ? 1u : 0u);
}

/* Ops of one step: P/E: erase, program each page, verify each page; sweep:
 * set the offset, verify each page; histogram: set the offset, verify and
 * inverse-compare each page; disturb: READS senses of the aggressor, then
 * verify each victim page. */
static uint32_t ops_per_step(const struct loop *l)
{
    switch (l->kind) {
    case FW_LOOP_PE_CYCLE:
        return 2u * l->d[FW_D_PAGES] + 1u;
    case FW_LOOP_READ_SWEEP:
        return l->d[FW_D_PAGES] + 1u;
    case FW_LOOP_VTH_HIST:
        return 2u * l->d[FW_D_PAGES] + 1u;
    default:
        return l->d[FW_D_READS] + victims(l->d);
    }
}

static int next_op(void *ctx, struct pipe_op *op)
{
    struct loop *l = ctx;
    uint32_t pages = l->d[FW_D_PAGES];
    if (l->q_op < 0) {
        if (l->q_step == l->d[FW_D_COUNT]) {
            return PIPE_END;
        }
        if (server_abort_requested()) {
            return FW_ERR_ABORTED;
        }
        int limit = server_check_limits(&l->limit_detail);
        if (limit != FW_OK) {
            return limit;
        }
        /* Room in the ring for every step queued, this one included: else
         * wait for the steps in flight, and stop if none is. */
        uint32_t in_flight = l->q_step - l->steps_done;
        if (ring_room(l->ring) < (in_flight + 1) * l->rec_words) {
            return in_flight ? PIPE_WAIT : FW_ERR_RESULT_FULL;
        }
        l->q_op = 0;
    }
    uint32_t k = (uint32_t)l->q_op, step = l->q_step, row = l->d[FW_D_ROW];
    struct tmpl *t = &l->verify;
    uint32_t kind = K_VERIFY, page = 0;
    if (l->kind == FW_LOOP_PE_CYCLE) {
        if (k == 0) {
            kind = K_ERASE;
            t = &l->erase;
        } else if (k <= pages) {
            kind = K_PROGRAM;
            t = &l->program;
            page = k - 1;
        } else {
            page = k - 1 - pages;
        }
    } else if (l->kind == FW_LOOP_READ_SWEEP) {
        if (k == 0) {
            kind = K_OFFSET;
            t = &l->offset;
        } else {
            page = k - 1;
        }
    } else if (l->kind == FW_LOOP_VTH_HIST) {
        if (k == 0) {
            kind = K_OFFSET;
            t = &l->offset;
        } else if ((k - 1) % 2 == 1) {
            kind = K_INVERSE;
            t = &l->inverse;
        } else {
            page = (k - 1) / 2;
        }
    } else if (k < l->d[FW_D_READS]) {
        kind = K_SENSE;
        t = &l->sense;
        page = l->d[FW_D_AGGRESSOR];
    } else {
        page = k - l->d[FW_D_READS];
        page += page >= l->d[FW_D_AGGRESSOR] ? 1u : 0u;
    }
    if (kind == K_OFFSET) {
        op->w = at_offset(l, (uint8_t)sweep_offset(l, step));
    } else if (kind == K_INVERSE) {
        op->w = t->w;
    } else {
        op->w = at_row(t, row + page, kind != K_ERASE);
    }
    op->n = t->n;
    op->budget_ns = t->budget_ns;
    bool last = k + 1 == ops_per_step(l);
    op->tag = TAG(kind, last ? 1u : 0u, step);
    if (last) {
        l->q_op = -1;
        l->q_step++;
    } else {
        l->q_op++;
    }
    return PIPE_OP;
}

/* Sums an op's results into its step; the step's last op writes the record.
 * Status FAIL bits are counted, not fatal: wear-out is data. */
static int op_done(void *ctx, uint32_t tag, const struct seq_result *res, uint32_t *detail)
{
    struct loop *l = ctx;
    switch (TAG_KIND(tag)) {
    case K_ERASE:
        l->sum_erase_ns = res->busy_ns;
        l->fails += res->status & STATUS_FAIL;
        break;
    case K_PROGRAM:
        l->sum_busy_ns += res->busy_ns;
        l->fails += res->status & STATUS_FAIL;
        break;
    case K_SENSE:
        l->sum_busy_ns += res->busy_ns;
        break;
    case K_VERIFY:
        if (l->kind == FW_LOOP_READ_SWEEP || l->kind == FW_LOOP_VTH_HIST) {
            l->sum_busy_ns += res->busy_ns;
        }
        l->e01 += res->err_0to1;
        l->e10 += res->err_1to0;
        break;
    case K_INVERSE:
        l->ones_below += res->err_0to1;
        break;
    default:
        break;
    }
    if (!TAG_LAST(tag)) {
        return FW_OK;
    }
    uint32_t step = TAG_STEP(tag), rec[FW_REC_PE_WORDS];
    /* element by element: an initialised array would be copied by memcpy */
    if (l->pe) {
        rec[0] = FW_REC_PE << 24 | (FW_REC_PE_WORDS - 1);
        rec[1] = step;
        rec[2] = l->sum_erase_ns;
        rec[3] = l->sum_busy_ns;
        rec[4] = l->fails;
        rec[5] = l->e01;
        rec[6] = l->e10;
    } else if (l->kind == FW_LOOP_READ_SWEEP) {
        rec[0] = FW_REC_SWEEP << 24 | (FW_REC_SWEEP_WORDS - 1);
        rec[1] = (uint32_t)(int32_t)sweep_offset(l, step);
        rec[2] = l->sum_busy_ns;
        rec[3] = l->e01;
        rec[4] = l->e10;
    } else if (l->kind == FW_LOOP_VTH_HIST) {
        rec[0] = FW_REC_HIST << 24 | (FW_REC_HIST_WORDS - 1);
        rec[1] = (uint32_t)(int32_t)sweep_offset(l, step);
        rec[2] = l->sum_busy_ns;
        rec[3] = l->ones_below;
        rec[4] = l->e01; /* written 0, read 1 */
    } else {
        rec[0] = FW_REC_DISTURB << 24 | (FW_REC_DISTURB_WORDS - 1);
        rec[1] = step;
        rec[2] = (step + 1) * l->d[FW_D_READS];
        rec[3] = l->sum_busy_ns;
        rec[4] = l->e01;
        rec[5] = l->e10;
    }
    l->sum_erase_ns = l->sum_busy_ns = l->fails = l->e01 = l->e10 = l->ones_below = 0;
    if (!ring_put(l->ring, rec, l->rec_words)) {
        *detail = step;
        return FW_ERR_RESULT_FULL;
    }
    l->steps_done = step + 1;
    return FW_OK;
}

/* The die keeps its last read offset: back to the default. */
static int reset_offset(struct loop *l)
{
    struct seq_result res;
    uint32_t detail;
    return job_run(at_offset(l, 0), l->offset.n, l->permits, &res, &detail);
}

/* Index of the first bad descriptor word, or FW_D_WORDS if it is sound. */
static uint32_t check_desc(const uint32_t *d)
{
    if (d[FW_D_KIND] < FW_LOOP_PE_CYCLE || d[FW_D_KIND] > FW_LOOP_VTH_HIST) {
        return FW_D_KIND;
    }
    if (d[FW_D_TARGET] > NANDLAB_OPS_MAX_TARGET) {
        return FW_D_TARGET;
    }
    if (d[FW_D_ROW] > 0xFFFFFFu) {
        return FW_D_ROW;
    }
    if (d[FW_D_PAGES] == 0 || d[FW_D_ROW] + d[FW_D_PAGES] - 1 > 0xFFFFFFu) {
        return FW_D_PAGES;
    }
    if (d[FW_D_PAGE_BYTES] == 0 || d[FW_D_PAGE_BYTES] > NANDLAB_OPS_MAX_LEN) {
        return FW_D_PAGE_BYTES;
    }
    if (d[FW_D_CHUNK] == 0 || d[FW_D_CHUNK] > NANDLAB_OPS_MAX_LEN) {
        return FW_D_CHUNK;
    }
    if (d[FW_D_COUNT] == 0) {
        return FW_D_COUNT;
    }
    if ((d[FW_D_KIND] == FW_LOOP_READ_SWEEP || d[FW_D_KIND] == FW_LOOP_VTH_HIST) &&
        d[FW_D_FEATURE] > 0xFFu) {
        return FW_D_FEATURE;
    }
    if (d[FW_D_KIND] == FW_LOOP_READ_DISTURB) {
        if (d[FW_D_AGGRESSOR] > 0xFFFFFFu - d[FW_D_ROW]) {
            return FW_D_AGGRESSOR;
        }
        /* the reads of a checkpoint are queued as ops: bounded so a step's
         * ops and the (step + 1) * reads of its record stay in 32 bits */
        if (d[FW_D_READS] == 0 || d[FW_D_READS] > 0xFFFFu || d[FW_D_COUNT] > 0xFFFFu) {
            return FW_D_READS;
        }
        if (victims(d) == 0) {
            return FW_D_PAGES;
        }
    }
    return FW_D_WORDS;
}

int loop_run(const uint32_t *desc, uint32_t n, uint32_t permits, struct ring *ring,
             uint32_t *steps)
{
    static struct loop l; /* off the 2 KiB stack */
    *steps = 0;
    if (n < FW_D_WORDS) {
        *steps = n;
        return FW_ERR_BAD_ARG;
    }
    uint32_t bad = check_desc(desc);
    if (bad != FW_D_WORDS) {
        *steps = bad;
        return FW_ERR_BAD_ARG;
    }
    bool pe = desc[FW_D_KIND] == FW_LOOP_PE_CYCLE;
    if (pe && (permits & (FW_PERMIT_ERASE | FW_PERMIT_PROGRAM)) !=
                  (FW_PERMIT_ERASE | FW_PERMIT_PROGRAM)) {
        return FW_ERR_NOT_PERMITTED;
    }
    /* Field by field: a compound literal would be built on the stack and
     * copied with picolibc's byte-wise memmove (some 20 000 clocks). */
    l.d = desc;
    l.permits = permits;
    l.kind = desc[FW_D_KIND];
    l.pe = pe;
    l.ring = ring;
    l.rec_words = pe                             ? FW_REC_PE_WORDS
                  : l.kind == FW_LOOP_READ_SWEEP ? FW_REC_SWEEP_WORDS
                  : l.kind == FW_LOOP_VTH_HIST   ? FW_REC_HIST_WORDS
                                                 : FW_REC_DISTURB_WORDS;
    l.q_step = 0;
    l.q_op = -1;
    l.steps_done = 0;
    l.sum_erase_ns = l.sum_busy_ns = l.fails = l.e01 = l.e10 = l.ones_below = 0;
    uint32_t detail;
    bool sweep = l.kind == FW_LOOP_READ_SWEEP || l.kind == FW_LOOP_VTH_HIST;
    int err = build_verify(&l, &detail);
    if (err == FW_OK && pe) {
        err = build_erase(&l, &detail);
        err = err == FW_OK ? build_program(&l, &detail) : err;
    }
    if (err == FW_OK && sweep) {
        err = build_offset(&l, &detail);
    }
    if (err == FW_OK && l.kind == FW_LOOP_VTH_HIST) {
        err = build_inverse(&l, &detail);
    }
    if (err == FW_OK && l.kind == FW_LOOP_READ_DISTURB) {
        err = build_sense(&l, &detail);
    }
    if (err != FW_OK) {
        return err;
    }
    struct pipe_src src = {.next = next_op, .done = op_done, .ctx = &l};
    uint32_t failed = 0;
    err = pipe_run(&src, desc[FW_D_TARGET], &failed);
    if (err == FW_ERR_CHIP_TIMEOUT || err == FW_ERR_SEQ_STUCK || err == FW_ERR_SEQ_ERROR) {
        /* the detail of a failed op is the step it belongs to */
        *steps = TAG_STEP(failed);
    } else if (err == FW_ERR_OVER_CURRENT || err == FW_ERR_OVER_TEMP || err == FW_ERR_NO_SENSOR) {
        *steps = l.limit_detail;
    } else {
        *steps = l.steps_done;
    }
    if (sweep) {
        int back = reset_offset(&l);
        if (err == FW_OK) {
            err = back;
        }
    }
    return err;
}
