/* On-board loops: whole P/E cycles and read-offset sweeps with the pattern
 * generator and the DOUT_CMP comparator, one ring record per step and no host
 * round trip in between. */
#include "fwint.h"

#include "nandlab_ops.h"

#define PROG_WORDS 24u
/* ONFI status byte, bit 0: the last erase / program failed. */
#define STATUS_FAIL 0x01u

struct loop {
    const uint32_t *d;
    uint32_t permits;
    uint32_t buf[PROG_WORDS];
    struct prog p;
};

static struct prog *begin(struct loop *l)
{
    prog_init(&l->p, l->buf, PROG_WORDS);
    prog_ce(&l->p, l->d[FW_D_TARGET]);
    return &l->p;
}

/* The shapes of nandlab.sequences.core: tWB then WAIT_RDY after a confirm;
 * READ STATUS with tWHR before the byte. */
static void busy(struct loop *l)
{
    prog_delay(&l->p, T_WB_NS);
    prog_wait_rdy(&l->p, l->d[FW_D_TIMEOUT_NS]);
}

static void status(struct prog *p)
{
    prog_cmd(p, 0x70);
    prog_delay(p, T_WHR_NS);
    prog_dout(p, 1);
}

static int run(struct loop *l, struct seq_result *res, uint32_t *detail)
{
    prog_end(&l->p);
    return job_run(l->p.w, l->p.n, l->permits, res, detail);
}

static int erase(struct loop *l, struct seq_result *res, uint32_t *detail)
{
    struct prog *p = begin(l);
    prog_cmd(p, 0x60);
    prog_row_addr(p, l->d[FW_D_ROW], false);
    prog_cmd(p, 0xD0);
    busy(l);
    status(p);
    return run(l, res, detail);
}

static int program_page(struct loop *l, uint32_t page, struct seq_result *res, uint32_t *detail)
{
    struct prog *p = begin(l);
    prog_cmd(p, 0x80);
    prog_row_addr(p, l->d[FW_D_ROW] + page, true);
    prog_delay(p, T_ADL_NS);
    prog_din_pat(p, l->d[FW_D_PAGE_BYTES], l->d[FW_D_PATTERN], l->d[FW_D_SEED]);
    prog_cmd(p, 0x10);
    busy(l);
    status(p);
    return run(l, res, detail);
}

static int verify_page(struct loop *l, uint32_t page, struct seq_result *res, uint32_t *detail)
{
    struct prog *p = begin(l);
    prog_cmd(p, 0x00);
    prog_row_addr(p, l->d[FW_D_ROW] + page, true);
    prog_cmd(p, 0x30);
    busy(l);
    prog_delay(p, T_WHR_NS);
    prog_dout_cmp(p, l->d[FW_D_PAGE_BYTES], l->d[FW_D_PATTERN], l->d[FW_D_SEED],
                  l->d[FW_D_CHUNK]);
    return run(l, res, detail);
}

static int set_offset(struct loop *l, uint8_t offset, uint32_t *detail)
{
    struct seq_result res;
    uint8_t feature = (uint8_t)l->d[FW_D_FEATURE];
    uint8_t params[4] = {offset, 0, 0, 0};
    struct prog *p = begin(l);
    prog_cmd(p, 0xEF);
    prog_addr(p, &feature, 1);
    prog_delay(p, T_ADL_NS);
    prog_din(p, params, 4);
    busy(l);
    return run(l, &res, detail);
}

/* One P/E cycle: erase, program every page, read every page back into the
 * comparator. Status FAIL bits are counted, not fatal: wear-out is data. */
static int pe_cycle(struct loop *l, uint32_t cycle, uint32_t *rec, uint32_t *detail)
{
    struct seq_result res;
    uint32_t fails = 0, prog_ns = 0, e01 = 0, e10 = 0;
    int err = erase(l, &res, detail);
    if (err != FW_OK) {
        return err;
    }
    uint32_t erase_ns = res.busy_ns;
    fails += res.status & STATUS_FAIL;
    for (uint32_t pg = 0; pg < l->d[FW_D_PAGES]; pg++) {
        if ((err = program_page(l, pg, &res, detail)) != FW_OK) {
            return err;
        }
        prog_ns += res.busy_ns;
        fails += res.status & STATUS_FAIL;
    }
    for (uint32_t pg = 0; pg < l->d[FW_D_PAGES]; pg++) {
        if ((err = verify_page(l, pg, &res, detail)) != FW_OK) {
            return err;
        }
        e01 += res.err_0to1;
        e10 += res.err_1to0;
    }
    uint32_t r[FW_REC_PE_WORDS] = {FW_REC_PE << 24 | (FW_REC_PE_WORDS - 1), cycle, erase_ns,
                                   prog_ns, fails, e01, e10};
    for (uint32_t i = 0; i < FW_REC_PE_WORDS; i++) {
        rec[i] = r[i];
    }
    return FW_OK;
}

static int sweep_step(struct loop *l, uint32_t step, uint32_t *rec, uint32_t *detail)
{
    struct seq_result res;
    uint32_t read_ns = 0, e01 = 0, e10 = 0;
    int8_t offset = (int8_t)(uint8_t)(l->d[FW_D_FIRST] + step * l->d[FW_D_STEP]);
    int err = set_offset(l, (uint8_t)offset, detail);
    if (err != FW_OK) {
        return err;
    }
    for (uint32_t pg = 0; pg < l->d[FW_D_PAGES]; pg++) {
        if ((err = verify_page(l, pg, &res, detail)) != FW_OK) {
            return err;
        }
        read_ns += res.busy_ns;
        e01 += res.err_0to1;
        e10 += res.err_1to0;
    }
    uint32_t r[FW_REC_SWEEP_WORDS] = {FW_REC_SWEEP << 24 | (FW_REC_SWEEP_WORDS - 1),
                                      (uint32_t)(int32_t)offset, read_ns, e01, e10};
    for (uint32_t i = 0; i < FW_REC_SWEEP_WORDS; i++) {
        rec[i] = r[i];
    }
    return FW_OK;
}

/* Index of the first bad descriptor word, or FW_D_WORDS if it is sound. */
static uint32_t check_desc(const uint32_t *d)
{
    if (d[FW_D_KIND] != FW_LOOP_PE_CYCLE && d[FW_D_KIND] != FW_LOOP_READ_SWEEP) {
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
    if (d[FW_D_KIND] == FW_LOOP_READ_SWEEP && d[FW_D_FEATURE] > 0xFFu) {
        return FW_D_FEATURE;
    }
    return FW_D_WORDS;
}

int loop_run(const uint32_t *desc, uint32_t n, uint32_t permits, struct ring *ring,
             uint32_t *steps)
{
    struct loop l = {.d = desc, .permits = permits};
    uint32_t rec[FW_REC_PE_WORDS];
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
    int err = FW_OK;
    for (uint32_t s = 0; s < desc[FW_D_COUNT]; s++) {
        if (server_abort_requested()) {
            err = FW_ERR_ABORTED;
            break;
        }
        uint32_t detail;
        err = pe ? pe_cycle(&l, s, rec, &detail) : sweep_step(&l, s, rec, &detail);
        if (err != FW_OK) {
            break;
        }
        if (!ring_put(ring, rec, pe ? FW_REC_PE_WORDS : FW_REC_SWEEP_WORDS)) {
            err = FW_ERR_RESULT_FULL;
            break;
        }
        *steps = s + 1;
    }
    if (!pe) {
        /* The die keeps its last read offset: back to the default. */
        uint32_t detail;
        int back = set_offset(&l, 0, &detail);
        if (err == FW_OK) {
            err = back;
        }
    }
    return err;
}
