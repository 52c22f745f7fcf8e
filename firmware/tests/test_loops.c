/* On-board loops against the fake die, whose read errors are known exactly:
 * hal_host_flips(P/E count, read offset) bits per page read. */
#include "fw_test.h"

#define DESC_OFF 2048u
#define BLOCK 3u

static int setup(void **state)
{
    (void)state;
    t_boot(&T_CFG);
    return 0;
}

static uint32_t *desc(uint32_t kind, uint32_t count)
{
    uint32_t *d = t_shared(DESC_OFF);
    for (uint32_t i = 0; i < FW_D_WORDS; i++) {
        d[i] = 0;
    }
    d[FW_D_KIND] = kind;
    d[FW_D_ROW] = BLOCK * T_CFG.pages;
    d[FW_D_PAGES] = T_CFG.pages;
    d[FW_D_PAGE_BYTES] = T_CFG.page_bytes;
    d[FW_D_PATTERN] = NANDLAB_PAT_PRBS;
    d[FW_D_SEED] = 99;
    d[FW_D_CHUNK] = 64;
    d[FW_D_COUNT] = count;
    d[FW_D_TIMEOUT_NS] = 10000000;
    d[FW_D_FEATURE] = T_CFG.offset_feature;
    d[FW_D_FIRST] = (uint32_t)-5;
    d[FW_D_STEP] = 1;
    return d;
}

static void run_loop(uint32_t ring_words)
{
    t_post(FW_CMD_RUN_LOOP, DESC_OFF, FW_D_WORDS, T_RING_OFF, ring_words);
}

static void test_pe_cycling_counts_errors_per_cycle(void **state)
{
    (void)state;
    const uint32_t cycles = 5;
    desc(FW_LOOP_PE_CYCLE, cycles);
    t_post(FW_CMD_SESSION, FW_PERMIT_ERASE | FW_PERMIT_PROGRAM, 0, 0, 0);
    run_loop(T_RING_WORDS);
    assert_int_equal(t_state(), FW_DONE);
    assert_int_equal(REG(MBX_RESULT), cycles);
    assert_int_equal(hal_host_stats()->pe[BLOCK], cycles);
    assert_int_equal(hal_host_stats()->erases, cycles);
    assert_int_equal(hal_host_stats()->programs, cycles * T_CFG.pages);
    assert_int_equal(REG(MBX_RES_HEAD), cycles * FW_REC_PE_WORDS);
    for (uint32_t c = 0; c < cycles; c++) {
        uint32_t r = c * FW_REC_PE_WORDS;
        assert_int_equal(t_ring(r), FW_REC_PE << 24 | (FW_REC_PE_WORDS - 1));
        assert_int_equal(t_ring(r + 1), c);
        assert_int_equal(t_ring(r + 2), FAKE_T_BERS_NS);
        assert_int_equal(t_ring(r + 3), T_CFG.pages * FAKE_T_PROG_NS);
        assert_int_equal(t_ring(r + 4), 0);
        /* read back after the cycle's erase: P/E count c + 1 */
        assert_int_equal(t_ring(r + 5) + t_ring(r + 6), T_CFG.pages * hal_host_flips(c + 1, 0));
    }
    assert_true(t_ring(5) + t_ring(6) < t_ring(4 * FW_REC_PE_WORDS + 5) + t_ring(4 * FW_REC_PE_WORDS + 6));
}

static void test_pe_cycling_leaves_the_pattern_on_the_die(void **state)
{
    (void)state;
    desc(FW_LOOP_PE_CYCLE, 1);
    t_shared(DESC_OFF)[FW_D_PATTERN] = NANDLAB_PAT_CONST | 0x3Cu << 16;
    t_post(FW_CMD_SESSION, FW_PERMIT_ERASE | FW_PERMIT_PROGRAM, 0, 0, 0);
    run_loop(T_RING_WORDS);
    assert_int_equal(t_state(), FW_DONE);
    for (uint32_t pg = 0; pg < T_CFG.pages; pg++) {
        for (uint32_t i = 0; i < T_CFG.page_bytes; i++) {
            assert_int_equal(hal_host_page(BLOCK, pg)[i], 0x3C);
        }
    }
    assert_int_equal(hal_host_page(BLOCK + 1, 0)[0], 0xFF); /* neighbours untouched */
}

static void test_worn_out_block_reports_status_fails(void **state)
{
    (void)state;
    struct fake_cfg cfg = T_CFG;
    cfg.endurance = 2;
    t_boot(&cfg);
    desc(FW_LOOP_PE_CYCLE, 3);
    t_post(FW_CMD_SESSION, FW_PERMIT_ERASE | FW_PERMIT_PROGRAM, 0, 0, 0);
    run_loop(T_RING_WORDS);
    assert_int_equal(t_state(), FW_DONE);
    assert_int_equal(t_ring(0 * FW_REC_PE_WORDS + 4), 0);
    assert_int_equal(t_ring(1 * FW_REC_PE_WORDS + 4), 0);
    /* third cycle: the erase and every page program fail */
    assert_int_equal(t_ring(2 * FW_REC_PE_WORDS + 4), 1 + T_CFG.pages);
}

static void test_pe_cycling_needs_erase_and_program_permits(void **state)
{
    (void)state;
    desc(FW_LOOP_PE_CYCLE, 2);
    t_post(FW_CMD_SESSION, FW_PERMIT_PROGRAM, 0, 0, 0);
    run_loop(T_RING_WORDS);
    assert_int_equal(t_error(), FW_ERR_NOT_PERMITTED);
    assert_int_equal(hal_host_stats()->programs_run, 0);
}

static void test_read_sweep_finds_the_best_offset(void **state)
{
    (void)state;
    const uint32_t steps = 8;
    desc(FW_LOOP_PE_CYCLE, 1);
    t_post(FW_CMD_SESSION, FW_PERMIT_ERASE | FW_PERMIT_PROGRAM, 0, 0, 0);
    run_loop(T_RING_WORDS);
    t_post(FW_CMD_END_SESSION, 0, 0, 0, 0);
    desc(FW_LOOP_READ_SWEEP, steps); /* reads only: no permit needed */
    run_loop(T_RING_WORDS);
    assert_int_equal(t_state(), FW_DONE);
    assert_int_equal(REG(MBX_RESULT), steps);
    uint32_t best = 0, best_err = UINT32_MAX;
    for (uint32_t s = 0; s < steps; s++) {
        uint32_t r = s * FW_REC_SWEEP_WORDS;
        int32_t offset = -5 + (int32_t)s;
        assert_int_equal(t_ring(r), FW_REC_SWEEP << 24 | (FW_REC_SWEEP_WORDS - 1));
        assert_int_equal((int32_t)t_ring(r + 1), offset);
        assert_int_equal(t_ring(r + 2), T_CFG.pages * FAKE_T_R_NS);
        uint32_t err = t_ring(r + 3) + t_ring(r + 4);
        assert_int_equal(err, T_CFG.pages * hal_host_flips(1, offset));
        if (err < best_err) {
            best_err = err;
            best = s;
        }
    }
    assert_int_equal(-5 + (int32_t)best, T_CFG.best_offset);
    assert_int_equal(hal_host_stats()->offset, 0); /* restored after the sweep */
    assert_int_equal(hal_host_stats()->erases, 1);
}

/* Read disturb: R senses of the aggressor per checkpoint, then a verify of
 * every other page; the fake die adds flips_per_kread bit errors per page per
 * 1000 earlier reads of the block (verify reads disturb too). */
static void test_read_disturb_counts_neighbour_errors_at_checkpoints(void **state)
{
    (void)state;
    struct fake_cfg cfg = T_CFG;
    cfg.flips_per_kread = 2000;
    t_boot(&cfg);
    const uint32_t reads = 50, checkpoints = 4, aggressor = 1;
    const uint32_t victims = T_CFG.pages - 1;
    desc(FW_LOOP_PE_CYCLE, 1);
    t_post(FW_CMD_SESSION, FW_PERMIT_ERASE | FW_PERMIT_PROGRAM, 0, 0, 0);
    run_loop(T_RING_WORDS);
    uint32_t reads_before = hal_host_stats()->block_reads[BLOCK]; /* the P/E loop's verify */
    t_post(FW_CMD_END_SESSION, 0, 0, 0, 0);
    uint32_t *d = desc(FW_LOOP_READ_DISTURB, checkpoints); /* reads only: no permit */
    d[FW_D_AGGRESSOR] = aggressor;
    d[FW_D_READS] = reads;
    run_loop(T_RING_WORDS);
    assert_int_equal(t_state(), FW_DONE);
    assert_int_equal(REG(MBX_RESULT), checkpoints);
    for (uint32_t s = 0; s < checkpoints; s++) {
        uint32_t r = s * FW_REC_DISTURB_WORDS, want = 0;
        assert_int_equal(t_ring(r), FW_REC_DISTURB << 24 | (FW_REC_DISTURB_WORDS - 1));
        assert_int_equal(t_ring(r + 1), s);
        assert_int_equal(t_ring(r + 2), (s + 1) * reads);
        assert_int_equal(t_ring(r + 3), reads * FAKE_T_R_NS);
        for (uint32_t v = 0; v < victims; v++) {
            uint32_t before = reads_before + (s + 1) * reads + s * victims + v;
            want += hal_host_flips(1, 0) + before * cfg.flips_per_kread / 1000u;
        }
        assert_int_equal(t_ring(r + 4) + t_ring(r + 5), want);
    }
    assert_true(t_ring(4) + t_ring(5) < t_ring(3 * FW_REC_DISTURB_WORDS + 4) +
                                            t_ring(3 * FW_REC_DISTURB_WORDS + 5));
    assert_int_equal(hal_host_stats()->reads,
                     reads_before + checkpoints * (reads + victims));
}

static void test_read_disturb_descriptor_checks(void **state)
{
    (void)state;
    uint32_t *d = desc(FW_LOOP_READ_DISTURB, 2);
    d[FW_D_READS] = 0;
    run_loop(T_RING_WORDS);
    assert_int_equal(t_error(), FW_ERR_BAD_ARG);
    assert_int_equal(REG(MBX_RESULT), FW_D_READS);
    d = desc(FW_LOOP_READ_DISTURB, 2);
    d[FW_D_READS] = 10;
    d[FW_D_PAGES] = 1;
    d[FW_D_AGGRESSOR] = 0; /* the only page is the aggressor: nothing to check */
    run_loop(T_RING_WORDS);
    assert_int_equal(REG(MBX_RESULT), FW_D_PAGES);
    assert_int_equal(hal_host_stats()->programs_run, 0);
}

static void test_bad_descriptor_names_the_word(void **state)
{
    (void)state;
    t_post(FW_CMD_SESSION, FW_PERMIT_ALL, 0, 0, 0);
    desc(9, 1);
    run_loop(T_RING_WORDS);
    assert_int_equal(t_error(), FW_ERR_BAD_ARG);
    assert_int_equal(REG(MBX_RESULT), FW_D_KIND);
    desc(FW_LOOP_PE_CYCLE, 0);
    run_loop(T_RING_WORDS);
    assert_int_equal(REG(MBX_RESULT), FW_D_COUNT);
    desc(FW_LOOP_PE_CYCLE, 1)[FW_D_CHUNK] = 0;
    run_loop(T_RING_WORDS);
    assert_int_equal(REG(MBX_RESULT), FW_D_CHUNK);
    assert_int_equal(hal_host_stats()->programs_run, 0);
}

struct abort_at {
    uint32_t reads, after;
};

static void post_abort(void *ctx)
{
    struct abort_at *a = ctx;
    if (++a->reads == a->after) {
        t_seq = (t_seq + 1) & 0xFFu;
        REG(MBX_CMD) = FW_CMD_ABORT | t_seq << 8;
    }
}

static void test_abort_stops_a_loop_between_cycles(void **state)
{
    (void)state;
    /* MBX_CMD reads: 1 by the poll that takes RUN_LOOP, then 1 before each cycle */
    struct abort_at a = {.reads = 0, .after = 4};
    desc(FW_LOOP_PE_CYCLE, 100);
    t_post(FW_CMD_SESSION, FW_PERMIT_ERASE | FW_PERMIT_PROGRAM, 0, 0, 0);
    hal_host_on_cmd_read(post_abort, &a);
    run_loop(T_RING_WORDS);
    hal_host_on_cmd_read(NULL, NULL);
    assert_int_equal(t_error(), FW_ERR_ABORTED);
    assert_int_equal(t_status_seq(), t_seq); /* the answer is the ABORT's */
    assert_int_equal(REG(MBX_RESULT), 2);
    assert_int_equal(hal_host_stats()->pe[BLOCK], 2);
    assert_int_equal(REG(MBX_RES_HEAD), 2 * FW_REC_PE_WORDS);
}

static void test_undrained_ring_stops_the_loop(void **state)
{
    (void)state;
    desc(FW_LOOP_PE_CYCLE, 10);
    t_post(FW_CMD_SESSION, FW_PERMIT_ERASE | FW_PERMIT_PROGRAM, 0, 0, 0);
    run_loop(3 * FW_REC_PE_WORDS);
    assert_int_equal(t_error(), FW_ERR_RESULT_FULL);
    assert_int_equal(REG(MBX_RESULT), 3);
    assert_int_equal(REG(MBX_RES_HEAD), 3 * FW_REC_PE_WORDS);
}

static void drain(void *ctx)
{
    (void)ctx;
    REG(MBX_RES_TAIL) = REG(MBX_RES_HEAD);
}

static void test_drained_ring_wraps(void **state)
{
    (void)state;
    desc(FW_LOOP_PE_CYCLE, 10);
    t_post(FW_CMD_SESSION, FW_PERMIT_ERASE | FW_PERMIT_PROGRAM, 0, 0, 0);
    hal_host_on_cmd_read(drain, NULL);
    run_loop(2 * FW_REC_PE_WORDS + 3); /* records straddle the ring's end */
    hal_host_on_cmd_read(NULL, NULL);
    assert_int_equal(t_state(), FW_DONE);
    assert_int_equal(REG(MBX_RES_HEAD), 10 * FW_REC_PE_WORDS);
    /* the last record: 63 words written in a ring of 17, it starts at 63 % 17 */
    uint32_t words = 2 * FW_REC_PE_WORDS + 3, start = 9 * FW_REC_PE_WORDS;
    assert_int_equal(t_shared(T_RING_OFF)[(start + 1) % words], 9);
}

static void test_stuck_chip_in_a_loop_names_the_cycle(void **state)
{
    (void)state;
    t_post(FW_CMD_SESSION, FW_PERMIT_ERASE | FW_PERMIT_PROGRAM, 0, 0, 0);
    hal_host_rb_stuck(true);
    desc(FW_LOOP_PE_CYCLE, 5);
    run_loop(T_RING_WORDS);
    assert_int_equal(t_error(), FW_ERR_CHIP_TIMEOUT);
    assert_int_equal(REG(MBX_RESULT), 0); /* the first cycle's erase */
    assert_int_equal(hal_host_stats()->resets, 1);
}

static void test_hung_sequencer_in_a_loop_fires_the_watchdog(void **state)
{
    (void)state;
    t_post(FW_CMD_SESSION, FW_PERMIT_ERASE | FW_PERMIT_PROGRAM, 0, 0, 0);
    hal_host_seq_hang(true);
    desc(FW_LOOP_PE_CYCLE, 5);
    run_loop(T_RING_WORDS);
    assert_int_equal(t_error(), FW_ERR_SEQ_STUCK);
    assert_int_equal(REG(MBX_RESULT), 0); /* the first cycle's erase never answered */
    assert_int_equal(hal_host_stats()->soft_resets, 1);
    assert_int_equal(REG(MBX_RES_HEAD), 0);
}

/* The ops of a loop are the programs of nandlab.sequences.core, each with its
 * own row: the second program page of the first cycle addresses row + 1. */
static void test_loop_ops_carry_their_rows(void **state)
{
    (void)state;
    desc(FW_LOOP_PE_CYCLE, 1);
    t_post(FW_CMD_SESSION, FW_PERMIT_ERASE | FW_PERMIT_PROGRAM, 0, 0, 0);
    run_loop(T_RING_WORDS);
    uint32_t n, rows = 0, row = BLOCK * T_CFG.pages;
    const uint32_t *w = hal_host_tx_log(&n);
    for (uint32_t i = 0; i + 2 < n; i++) {
        /* CMD 80h, ADDR 5: column 0, then the row */
        if (w[i] == (NANDLAB_OP_CMD << 24 | 0x80u) && w[i + 1] == (NANDLAB_OP_ADDR << 24 | 5u)) {
            assert_int_equal(w[i + 2], (row + rows) << 16 & 0xFFFF0000u);
            assert_int_equal(w[i + 3], (row + rows) >> 16);
            rows++;
        }
    }
    assert_int_equal(rows, T_CFG.pages);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_pe_cycling_counts_errors_per_cycle, setup),
        cmocka_unit_test_setup(test_pe_cycling_leaves_the_pattern_on_the_die, setup),
        cmocka_unit_test_setup(test_worn_out_block_reports_status_fails, setup),
        cmocka_unit_test_setup(test_pe_cycling_needs_erase_and_program_permits, setup),
        cmocka_unit_test_setup(test_read_sweep_finds_the_best_offset, setup),
        cmocka_unit_test_setup(test_read_disturb_counts_neighbour_errors_at_checkpoints, setup),
        cmocka_unit_test_setup(test_read_disturb_descriptor_checks, setup),
        cmocka_unit_test_setup(test_bad_descriptor_names_the_word, setup),
        cmocka_unit_test_setup(test_abort_stops_a_loop_between_cycles, setup),
        cmocka_unit_test_setup(test_undrained_ring_stops_the_loop, setup),
        cmocka_unit_test_setup(test_drained_ring_wraps, setup),
        cmocka_unit_test_setup(test_stuck_chip_in_a_loop_names_the_cycle, setup),
        cmocka_unit_test_setup(test_hung_sequencer_in_a_loop_fires_the_watchdog, setup),
        cmocka_unit_test_setup(test_loop_ops_carry_their_rows, setup),
    };
    return cmocka_run_group_tests_name("loops", tests, NULL, NULL);
}
