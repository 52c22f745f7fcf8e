/* The mailbox command server: answers, permits, watchdog, ring. */
#include "fw_test.h"
#include "fwint.h"

static int setup(void **state)
{
    (void)state;
    t_boot(&T_CFG);
    return 0;
}

/* Puts `p` in shared RAM and posts RUN_PROGRAM with the test ring. */
static void run_prog(const struct prog *p)
{
    for (uint32_t i = 0; i < p->n; i++) {
        t_shared(T_PROG_OFF)[i] = p->w[i];
    }
    t_post(FW_CMD_RUN_PROGRAM, T_PROG_OFF, p->n, T_RING_OFF, T_RING_WORDS);
}

static void test_boot_publishes_version_and_heartbeat(void **state)
{
    (void)state;
    assert_int_equal(REG(MBX_FW_VERSION), FW_PROTOCOL << 16 | FW_VERSION_MAJOR << 8 | FW_VERSION_MINOR);
    assert_int_equal(t_state(), FW_IDLE);
    uint32_t beat = REG(MBX_HEARTBEAT);
    fw_poll();
    fw_poll();
    assert_int_equal(REG(MBX_HEARTBEAT), beat + 2);
    assert_int_equal(t_state(), FW_IDLE); /* no doorbell: nothing ran */
}

static void test_ping_answers_with_the_version(void **state)
{
    (void)state;
    t_post(FW_CMD_PING, 0, 0, 0, 0);
    assert_int_equal(t_state(), FW_DONE);
    assert_int_equal(t_status_seq(), t_seq);
    assert_int_equal(REG(MBX_RESULT), REG(MBX_FW_VERSION));
}

static void test_unknown_command_is_an_error_not_a_hang(void **state)
{
    (void)state;
    t_post(0x7E, 0, 0, 0, 0);
    assert_int_equal(t_state(), FW_ERROR);
    assert_int_equal(t_error(), FW_ERR_BAD_CMD);
    assert_int_equal(REG(MBX_RESULT), 0x7E);
    assert_int_equal(t_status_seq(), t_seq);
    /* the server still answers the next command */
    t_post(FW_CMD_PING, 0, 0, 0, 0);
    assert_int_equal(t_state(), FW_DONE);
}

static void test_a_command_runs_once_per_seq(void **state)
{
    (void)state;
    struct prog p;
    uint32_t buf[8];
    t_post(FW_CMD_SESSION, FW_PERMIT_ERASE, 0, 0, 0);
    prog_init(&p, buf, 8);
    prog_ce(&p, 0);
    prog_cmd(&p, 0x60);
    prog_row_addr(&p, 4, false);
    prog_cmd(&p, 0xD0);
    prog_wait_rdy(&p, 10000000);
    prog_end(&p);
    run_prog(&p);
    assert_int_equal(t_state(), FW_DONE);
    fw_poll(); /* same SEQ still in MBX_CMD */
    fw_poll();
    assert_int_equal(hal_host_stats()->erases, 1);
    assert_int_equal(hal_host_stats()->pe[1], 1);
}

static void test_session_rejects_unknown_permit_bits(void **state)
{
    (void)state;
    t_post(FW_CMD_SESSION, 0x10, 0, 0, 0);
    assert_int_equal(t_error(), FW_ERR_BAD_ARG);
    t_post(FW_CMD_SESSION, FW_PERMIT_PROGRAM, 0, 0, 0);
    assert_int_equal(t_state(), FW_DONE);
    assert_int_equal(REG(MBX_RESULT), FW_PERMIT_PROGRAM);
}

static void erase_prog(struct prog *p, uint32_t *buf)
{
    prog_init(p, buf, 16);
    prog_ce(p, 0);
    prog_cmd(p, 0x60);
    prog_row_addr(p, 0, false);
    prog_cmd(p, 0xD0);
    prog_wait_rdy(p, 10000000);
    prog_cmd(p, 0x70);
    prog_dout(p, 1);
    prog_end(p);
}

static void test_erase_needs_the_session_permit(void **state)
{
    (void)state;
    struct prog p;
    uint32_t buf[16];
    erase_prog(&p, buf);
    run_prog(&p);
    assert_int_equal(t_error(), FW_ERR_NOT_PERMITTED);
    assert_int_equal(REG(MBX_RESULT), 1); /* word index of CMD 60h */
    assert_int_equal(hal_host_stats()->cmd_count[0x60], 0); /* nothing reached the chip */
    assert_int_equal(hal_host_stats()->programs_run, 0);

    t_post(FW_CMD_SESSION, FW_PERMIT_ERASE, 0, 0, 0);
    run_prog(&p);
    assert_int_equal(t_state(), FW_DONE);
    assert_int_equal(hal_host_stats()->erases, 1);
    /* the stream in the ring: BUSY, DATA(status), END */
    assert_int_equal(REG(MBX_RES_HEAD), REG(MBX_RESULT));
    assert_int_equal(t_ring(0), 0x81000000u | 4u); /* BUSY of instruction 4 */
    assert_int_equal(t_ring(1), FAKE_T_BERS_NS);
    assert_int_equal(t_ring(2), 0x80000001u);
    assert_int_equal(t_ring(3) & 0xFF, 0xE0); /* ready, pass */
    assert_int_equal(t_ring(4) >> 24, NANDLAB_RES_END);

    t_post(FW_CMD_END_SESSION, 0, 0, 0, 0);
    run_prog(&p);
    assert_int_equal(t_error(), FW_ERR_NOT_PERMITTED);
    assert_int_equal(hal_host_stats()->erases, 1);
}

static void test_test_mode_commands_need_their_permit(void **state)
{
    (void)state;
    struct prog p;
    uint32_t buf[8];
    prog_init(&p, buf, 8);
    prog_ce(&p, 0);
    prog_cmd(&p, 0x5C); /* not an ONFI command: a vendor test mode entry */
    prog_end(&p);
    t_post(FW_CMD_SESSION, FW_PERMIT_ERASE | FW_PERMIT_PROGRAM, 0, 0, 0);
    run_prog(&p);
    assert_int_equal(t_error(), FW_ERR_NOT_PERMITTED);
    assert_int_equal(hal_host_stats()->cmd_count[0x5C], 0);
    t_post(FW_CMD_SESSION, FW_PERMIT_TEST_MODE, 0, 0, 0);
    run_prog(&p);
    assert_int_equal(t_state(), FW_DONE);
    assert_int_equal(hal_host_stats()->cmd_count[0x5C], 1);
}

static void test_buffers_outside_shared_ram_are_refused(void **state)
{
    (void)state;
    uint32_t words = hal_shared_words();
    t_post(FW_CMD_RUN_PROGRAM, words * 4, 1, T_RING_OFF, 16);
    assert_int_equal(t_error(), FW_ERR_BAD_ARG);
    assert_int_equal(REG(MBX_RESULT), 0);
    t_post(FW_CMD_RUN_PROGRAM, 0, 1, T_RING_OFF, words); /* ring runs past the end */
    assert_int_equal(t_error(), FW_ERR_BAD_ARG);
    assert_int_equal(REG(MBX_RESULT), 2);
    t_post(FW_CMD_RUN_PROGRAM, 2, 1, T_RING_OFF, 16); /* misaligned */
    assert_int_equal(t_error(), FW_ERR_BAD_ARG);
    t_post(FW_CMD_RUN_LOOP, 0, 3, T_RING_OFF, 16); /* short descriptor */
    assert_int_equal(t_error(), FW_ERR_BAD_ARG);
    assert_int_equal(REG(MBX_RESULT), 1);
}

static void test_malformed_program_is_refused(void **state)
{
    (void)state;
    t_shared(T_PROG_OFF)[0] = 0x02000070;
    t_shared(T_PROG_OFF)[1] = 0x06000001; /* no END */
    t_post(FW_CMD_RUN_PROGRAM, T_PROG_OFF, 2, T_RING_OFF, T_RING_WORDS);
    assert_int_equal(t_error(), FW_ERR_BAD_PROGRAM);
    assert_int_equal(REG(MBX_RESULT), 2);
    assert_int_equal(hal_host_stats()->programs_run, 0);
}

static void test_stuck_ready_busy_times_out_and_resets_the_chip(void **state)
{
    (void)state;
    struct prog p;
    uint32_t buf[16];
    erase_prog(&p, buf);
    t_post(FW_CMD_SESSION, FW_PERMIT_ERASE, 0, 0, 0);
    hal_host_rb_stuck(true);
    run_prog(&p);
    assert_int_equal(t_error(), FW_ERR_CHIP_TIMEOUT);
    assert_int_equal(REG(MBX_RESULT), NANDLAB_ERR_TIMEOUT);
    /* the host still gets the sequencer's ERROR record */
    assert_int_equal(t_ring(0), 0x85000000u | NANDLAB_ERR_TIMEOUT);
    assert_int_equal(t_ring(1), 4); /* instruction index of the WAIT_RDY */
    assert_int_equal(hal_host_stats()->resets, 1); /* recovery RESET FFh */
    hal_host_rb_stuck(false);
    run_prog(&p);
    assert_int_equal(t_state(), FW_DONE);
}

static void test_hung_sequencer_trips_the_watchdog(void **state)
{
    (void)state;
    struct prog p;
    uint32_t buf[8];
    prog_init(&p, buf, 8);
    prog_ce(&p, 0);
    prog_cmd(&p, 0x70);
    prog_dout(&p, 1);
    prog_end(&p);
    hal_host_seq_hang(true);
    uint64_t t0 = hal_time_ns();
    run_prog(&p);
    assert_int_equal(t_error(), FW_ERR_SEQ_STUCK);
    assert_int_equal(hal_host_stats()->soft_resets, 1);
    /* it gave up after its budget (1 ms margin + 1 byte), not at once, not never */
    uint64_t waited = hal_time_ns() - t0;
    assert_true(waited >= 1000000u && waited < 1200000u);
    assert_int_equal(REG(CONTROL), 0); /* SOFT_RESET is a pulse */
    hal_host_seq_hang(false);
    run_prog(&p);
    assert_int_equal(t_state(), FW_DONE);
}

static void test_stream_larger_than_the_ring_is_result_full(void **state)
{
    (void)state;
    struct prog p;
    uint32_t buf[8];
    prog_init(&p, buf, 8);
    prog_ce(&p, 0);
    prog_cmd(&p, 0x70);
    prog_dout(&p, 64);
    prog_end(&p);
    for (uint32_t i = 0; i < p.n; i++) {
        t_shared(T_PROG_OFF)[i] = p.w[i];
    }
    t_post(FW_CMD_RUN_PROGRAM, T_PROG_OFF, p.n, T_RING_OFF, 8);
    assert_int_equal(t_error(), FW_ERR_RESULT_FULL);
    assert_int_equal(REG(MBX_RES_HEAD), 0);
}

static void test_supply_current_limit_refuses_a_program(void **state)
{
    (void)state;
    struct prog p;
    uint32_t buf[16];
    hal_host_i2c_attach(t_ina226);
    t_post(FW_CMD_SESSION, FW_PERMIT_ERASE, 0, 0, 0);
    t_post(FW_CMD_LIMITS, 80, 0, 0, 0); /* 80 mA, no temperature limit */
    erase_prog(&p, buf);
    run_prog(&p); /* no monitor yet: the limit has no reading */
    assert_int_equal(t_error(), FW_ERR_NO_SENSOR);
    assert_int_equal(REG(MBX_RESULT), 0);
    /* INA226 at 0x40, 10 mΩ, up to 1 A: CALIBRATION = 0.00512 / (1 A / 2^15 x 10 mΩ) */
    t_post(FW_CMD_MONITOR, T_INA_ADDR | FW_MON_INA226 << 8, T_INA_SHUNT_UOHM, 1000, 0);
    assert_int_equal(t_state(), FW_DONE);
    assert_int_equal(t_ina_regs[5], 16777);
    assert_int_equal(t_ina_regs[0], 0x00DFu); /* the settings of nandlab.instruments.ina2xx */
    t_ina_uA = 95000;
    run_prog(&p);
    assert_int_equal(t_error(), FW_ERR_OVER_CURRENT);
    assert_int_equal(REG(MBX_RESULT), 95);
    assert_int_equal(hal_host_stats()->programs_run, 0); /* never reached the chip */
    t_ina_uA = 60000;
    run_prog(&p);
    assert_int_equal(t_state(), FW_DONE);
    assert_int_equal(hal_host_stats()->erases, 1);
    /* a monitor that does not answer is refused, and the limit has no reading again */
    t_post(FW_CMD_MONITOR, 0x41 | FW_MON_INA226 << 8, T_INA_SHUNT_UOHM, 1000, 0);
    assert_int_equal(t_error(), FW_ERR_NO_SENSOR);
    assert_int_equal(REG(MBX_RESULT), INA_NO_ANSWER);
    run_prog(&p);
    assert_int_equal(t_error(), FW_ERR_NO_SENSOR);
    t_post(FW_CMD_MONITOR, T_INA_ADDR | FW_MON_INA228 << 8, T_INA_SHUNT_UOHM, 1000, 0);
    assert_int_equal(REG(MBX_RESULT), INA_WRONG_ID); /* an INA226 has not the INA228 IDs */
}

static void test_limit_without_its_sensor_is_refused(void **state)
{
    (void)state;
    struct prog p;
    uint32_t buf[16];
    t_post(FW_CMD_SESSION, FW_PERMIT_ERASE, 0, 0, 0);
    t_post(FW_CMD_LIMITS, 0, 70000, 0, 0); /* 70 °C */
    hal_host_temp(false, 0);
    erase_prog(&p, buf);
    run_prog(&p);
    assert_int_equal(t_error(), FW_ERR_NO_SENSOR);
    assert_int_equal(REG(MBX_RESULT), 1); /* the temperature's */
    assert_int_equal(hal_host_stats()->programs_run, 0);
    /* END_SESSION drops the limits with the permits */
    t_post(FW_CMD_END_SESSION, 0, 0, 0, 0);
    t_post(FW_CMD_SESSION, FW_PERMIT_ERASE, 0, 0, 0);
    run_prog(&p);
    assert_int_equal(t_state(), FW_DONE);
}

/* The chip heats up during a loop: it stops before the step that finds it
 * past the limit; the steps before it are in the ring. */
struct heat {
    uint32_t reads, hot_after;
};

static void heat_up(void *ctx)
{
    struct heat *h = ctx;
    if (++h->reads == h->hot_after) {
        hal_host_temp(true, 85000);
    }
}

static void test_temperature_limit_stops_a_loop_between_steps(void **state)
{
    (void)state;
    uint32_t *d = t_shared(2048);
    for (uint32_t i = 0; i < FW_D_WORDS; i++) {
        d[i] = 0;
    }
    d[FW_D_KIND] = FW_LOOP_PE_CYCLE;
    d[FW_D_ROW] = 2 * T_CFG.pages;
    d[FW_D_PAGES] = 2;
    d[FW_D_PAGE_BYTES] = T_CFG.page_bytes;
    d[FW_D_CHUNK] = 64;
    d[FW_D_COUNT] = 10;
    d[FW_D_TIMEOUT_NS] = 10000000;
    /* MBX_CMD reads: 1 by the poll that takes RUN_LOOP, then 1 before each cycle */
    struct heat h = {.reads = 0, .hot_after = 4};
    t_post(FW_CMD_SESSION, FW_PERMIT_ERASE | FW_PERMIT_PROGRAM, 0, 0, 0);
    t_post(FW_CMD_LIMITS, 0, 70000, 0, 0);
    hal_host_on_cmd_read(heat_up, &h);
    t_post(FW_CMD_RUN_LOOP, 2048, FW_D_WORDS, T_RING_OFF, T_RING_WORDS);
    hal_host_on_cmd_read(NULL, NULL);
    assert_int_equal(t_error(), FW_ERR_OVER_TEMP);
    assert_int_equal(REG(MBX_RESULT), 85000);
    assert_int_equal(hal_host_stats()->pe[2], 2);
    assert_int_equal(REG(MBX_RES_HEAD), 2 * FW_REC_PE_WORDS);
}

/* LOAD: a bad place, size or checksum is BAD_ARG naming it and boots nothing;
 * a good image is answered (DONE, its words), the firmware shows no version
 * and the heater is off, and then it boots the image from shared RAM. */
static void test_load_checks_the_image_then_boots_it(void **state)
{
    (void)state;
    uint32_t *img = t_shared(1024);
    for (uint32_t i = 0; i < 100; i++) {
        img[i] = 0x01000193u + i * 0x9E3779B9u;
    }
    uint32_t sum = fw_image_sum(img, 100), n;
    const uint32_t bad[][4] = {
        {4 * FAKE_SHARED_WORDS, 100, sum, 0}, /* outside shared RAM */
        {1024, 0, sum, 1},                    /* empty */
        {1024, 100, sum + 1, 2},              /* checksum */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        t_post(FW_CMD_LOAD, bad[i][0], bad[i][1], bad[i][2], 0);
        assert_int_equal(t_error(), FW_ERR_BAD_ARG);
        assert_int_equal(REG(MBX_RESULT), bad[i][3]);
        assert_null(hal_host_booted(&n));
    }
    img[7] ^= 1u << 31; /* one bit: a different checksum */
    assert_int_not_equal(fw_image_sum(img, 100), sum);
    img[7] ^= 1u << 31;
    hal_host_temp(true, 25000);
    t_post(FW_CMD_THERMAL, 1, 0, 60000, 0);
    t_post(FW_CMD_LOAD, 1024, 100, sum, 0);
    assert_int_equal(t_state(), FW_DONE);
    assert_int_equal(REG(MBX_RESULT), 100);
    assert_ptr_equal(hal_host_booted(&n), img);
    assert_int_equal(n, 100);
    assert_int_equal(REG(MBX_FW_VERSION), 0);
    uint32_t writes;
    assert_int_equal(hal_host_pwm(&writes), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_boot_publishes_version_and_heartbeat, setup),
        cmocka_unit_test_setup(test_ping_answers_with_the_version, setup),
        cmocka_unit_test_setup(test_unknown_command_is_an_error_not_a_hang, setup),
        cmocka_unit_test_setup(test_a_command_runs_once_per_seq, setup),
        cmocka_unit_test_setup(test_session_rejects_unknown_permit_bits, setup),
        cmocka_unit_test_setup(test_erase_needs_the_session_permit, setup),
        cmocka_unit_test_setup(test_test_mode_commands_need_their_permit, setup),
        cmocka_unit_test_setup(test_buffers_outside_shared_ram_are_refused, setup),
        cmocka_unit_test_setup(test_malformed_program_is_refused, setup),
        cmocka_unit_test_setup(test_stuck_ready_busy_times_out_and_resets_the_chip, setup),
        cmocka_unit_test_setup(test_hung_sequencer_trips_the_watchdog, setup),
        cmocka_unit_test_setup(test_stream_larger_than_the_ring_is_result_full, setup),
        cmocka_unit_test_setup(test_supply_current_limit_refuses_a_program, setup),
        cmocka_unit_test_setup(test_limit_without_its_sensor_is_refused, setup),
        cmocka_unit_test_setup(test_temperature_limit_stops_a_loop_between_steps, setup),
        cmocka_unit_test_setup(test_load_checks_the_image_then_boots_it, setup),
    };
    return cmocka_run_group_tests_name("server", tests, NULL, NULL);
}
