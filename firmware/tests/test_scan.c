/* Op program building and checking: encodings against the op program spec
 * (host/nandlab/ops/spec.yaml), the permit classes, the watchdog budget. */
#include "fw_test.h"
#include "fwint.h"

static void test_builder_encodes_the_spec_words(void **state)
{
    (void)state;
    uint32_t buf[32];
    struct prog p;
    prog_init(&p, buf, 32);
    prog_ce(&p, 1);
    prog_cmd(&p, 0x80);
    prog_row_addr(&p, 0x123456, true);
    prog_din_pat(&p, 512, 0x00000102, 7);
    prog_wait_rdy(&p, 1000000);
    prog_end(&p);
    /* spec: header = opcode << 24 | arg; bytes four to a word, first byte lowest;
     * ONFI: 2 column cycles, then the row address low byte first */
    const uint32_t want[] = {
        0x01000001, 0x02000080, 0x03000005, 0x34560000, 0x00000012,
        0x05000200, 0x00000102, 0x00000007, 0x08000000, 1000000, 0x00000000,
    };
    assert_int_equal(p.n, sizeof want / sizeof want[0]);
    assert_memory_equal(buf, want, sizeof want);
    assert_false(p.overflow);
}

static void test_builder_flags_overflow(void **state)
{
    (void)state;
    uint32_t buf[2];
    struct prog p;
    prog_init(&p, buf, 2);
    prog_wait_rdy(&p, 5);
    prog_end(&p);
    assert_true(p.overflow);
    assert_int_equal(p.n, 2);
}

static int check(const uint32_t *prog, uint32_t n, uint32_t permits, uint32_t *detail)
{
    uint64_t wd;
    uint32_t used;
    return scan_program(prog, n, permits, detail, &used, &wd);
}

static void test_permit_classes(void **state)
{
    (void)state;
    uint32_t detail;
    /* erase, program, a vendor byte, and harmless ONFI commands */
    const struct { uint8_t cmd; uint32_t need; } cases[] = {
        {0x60, FW_PERMIT_ERASE}, {0xD0, FW_PERMIT_ERASE}, {0x80, FW_PERMIT_PROGRAM},
        {0x10, FW_PERMIT_PROGRAM}, {0x85, FW_PERMIT_PROGRAM}, {0x5C, FW_PERMIT_TEST_MODE},
        {0xB8, FW_PERMIT_TEST_MODE}, {0x00, 0}, {0x30, 0}, {0x70, 0}, {0x90, 0}, {0xEC, 0},
        {0xEF, 0}, {0xFF, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint32_t prog[3] = {0x01000000, 0x02000000u | cases[i].cmd, 0};
        int without = check(prog, 3, FW_PERMIT_ALL & ~cases[i].need, &detail);
        int with = check(prog, 3, cases[i].need, &detail);
        assert_int_equal(with, FW_OK);
        if (cases[i].need) {
            assert_int_equal(without, FW_ERR_NOT_PERMITTED);
            assert_int_equal(detail, 1); /* the CMD's word index */
        } else {
            assert_int_equal(without, FW_OK);
        }
    }
}

static void test_raising_wp_needs_a_write_permit(void **state)
{
    (void)state;
    uint32_t detail;
    const uint32_t raise[] = {0x0D000101, 0}, lower[] = {0x0D000100, 0};
    assert_int_equal(check(raise, 2, FW_PERMIT_TEST_MODE, &detail), FW_ERR_NOT_PERMITTED);
    assert_int_equal(check(raise, 2, FW_PERMIT_PROGRAM, &detail), FW_OK);
    assert_int_equal(check(lower, 2, 0, &detail), FW_OK);
}

static void test_malformed_programs(void **state)
{
    (void)state;
    uint32_t detail;
    const uint32_t no_end[] = {0x02000070, 0x06000001};
    const uint32_t bad_op[] = {0x02000070, 0x7F000000, 0};
    const uint32_t cut[] = {0x02000070, 0x08000000}; /* WAIT_RDY without its timeout */
    const uint32_t addr9[] = {0x03000009, 0, 0, 0, 0};
    assert_int_equal(check(no_end, 2, 0, &detail), FW_ERR_BAD_PROGRAM);
    assert_int_equal(detail, 2);
    assert_int_equal(check(bad_op, 3, 0, &detail), FW_ERR_BAD_PROGRAM);
    assert_int_equal(detail, 1);
    assert_int_equal(check(cut, 2, 0, &detail), FW_ERR_BAD_PROGRAM);
    assert_int_equal(detail, 1);
    assert_int_equal(check(addr9, 5, 0, &detail), FW_ERR_BAD_PROGRAM);
    assert_int_equal(detail, 0);
}

static void test_watchdog_budget_covers_waits_delays_and_transfers(void **state)
{
    (void)state;
    uint32_t detail;
    uint64_t wd, base;
    uint32_t used;
    const uint32_t empty[] = {0};
    const uint32_t prog[] = {0x08000000, 5000000, 0x09000100, 0x06000400, 0, 0x7F000000};
    assert_int_equal(scan_program(empty, 1, 0, &detail, &used, &base), FW_OK);
    assert_int_equal(used, 1);
    assert_int_equal(scan_program(prog, 6, 0, &detail, &used, &wd), FW_OK);
    assert_int_equal(used, 5); /* what follows END is not sent */
    /* 5 ms wait + 256 ns delay + 1024 bytes at 100 ns (SDR mode 0) */
    assert_int_equal(wd - base, 5000000u + 0x100u + 1024u * 100u);
}

static void test_record_lengths(void **state)
{
    (void)state;
    assert_int_equal(scan_record_words(0x80000005), 3);  /* DATA 5 bytes */
    assert_int_equal(scan_record_words(0x81000002), 2);  /* BUSY */
    assert_int_equal(scan_record_words(0x82000003), 8);  /* ERRCNT 3 chunks */
    assert_int_equal(scan_record_words(0x83000004), 6);  /* POWER 4 samples */
    assert_int_equal(scan_record_words(0x84000000), 3);  /* MARK */
    assert_int_equal(scan_record_words(0x85000001), 2);  /* ERROR */
    assert_int_equal(scan_record_words(0x86000000), 3);  /* END */
    assert_int_equal(scan_record_words(0x90000000), 0);  /* unknown */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builder_encodes_the_spec_words),
        cmocka_unit_test(test_builder_flags_overflow),
        cmocka_unit_test(test_permit_classes),
        cmocka_unit_test(test_raising_wp_needs_a_write_permit),
        cmocka_unit_test(test_malformed_programs),
        cmocka_unit_test(test_watchdog_budget_covers_waits_delays_and_transfers),
        cmocka_unit_test(test_record_lengths),
    };
    return cmocka_run_group_tests_name("scan", tests, NULL, NULL);
}
