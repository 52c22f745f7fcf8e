/* The temperature loop against a simulated plant: a socket with a heater (or
 * a TEC) as a first-order thermal system with a dead time, stepped in 100 ms
 * ticks; the firmware reads it through hal_temp_mC and drives it through
 * hal_pwm_set, run by its own mailbox poll. */
#include <math.h>

#include "fw_test.h"
#include "fwint.h"

#define TICK_MS 100u
#define DEAD_TICKS 20u /* 2 s from heater power to the sensor */

/* Plant: dT/dt = (gain x duty - (T - ambient)) / tau. The loop's tuning
 * assumes 50 K at full duty, tau 60 s, 2 s dead time; `gain` and `tau` here
 * may differ from that, as a real socket would. */
struct plant {
    double temp_C, ambient_C, gain_K, tau_s;
    int32_t pending[DEAD_TICKS];
    uint32_t at;
};

/* Time scale of the plant and of the firmware's clock: 1e-3 runs the same
 * socket 1000 times faster (tau 60 ms, dead time 2 ms, 100 µs ticks), as the
 * firmware-in-the-loop test does to fit a simulation. */
static double scale = 1.0;

static void tick(struct plant *pl)
{
    uint32_t writes;
    int32_t duty = hal_host_pwm(&writes);
    int32_t applied = pl->pending[pl->at];
    pl->pending[pl->at] = duty;
    pl->at = (pl->at + 1) % DEAD_TICKS;
    double target = pl->ambient_C + pl->gain_K * applied / 1000.0;
    pl->temp_C += (target - pl->temp_C) * (TICK_MS / 1000.0 * scale) / pl->tau_s;
    hal_host_temp(true, (int32_t)lround(pl->temp_C * 1000.0));
    hal_host_advance_ns((uint64_t)llround(TICK_MS * 1e6 * scale));
    fw_poll();
}

static int setup(void **state)
{
    (void)state;
    t_boot(&T_CFG);
    scale = 1.0;
    return 0;
}

struct run {
    double peak_C, settled_s;
};

/* Runs `seconds` of the loop towards `setpoint_C`; the peak temperature and
 * the time after which it stays within 0.5 °C of the setpoint. */
static struct run run_to(struct plant *pl, double setpoint_C, double seconds)
{
    struct run r = {.peak_C = pl->temp_C, .settled_s = -1};
    for (uint32_t k = 0; k < (uint32_t)lround(seconds * 1000 / TICK_MS / scale); k++) {
        tick(pl);
        double t = (k + 1) * TICK_MS / 1000.0 * scale;
        if (pl->temp_C > r.peak_C) {
            r.peak_C = pl->temp_C;
        }
        if (fabs(pl->temp_C - setpoint_C) > 0.5) {
            r.settled_s = -1;
        } else if (r.settled_s < 0) {
            r.settled_s = t;
        }
    }
    return r;
}

static void test_heater_reaches_and_holds_the_setpoint(void **state)
{
    (void)state;
    struct plant pl = {.temp_C = 25, .ambient_C = 25, .gain_K = 50, .tau_s = 60};
    hal_host_temp(true, 25000);
    t_post(FW_CMD_THERMAL, 1, 0, 55000, 0);
    assert_int_equal(t_state(), FW_DONE);
    assert_int_equal(REG(MBX_RESULT), 25000);
    struct run r = run_to(&pl, 55, 300);
    assert_true(r.settled_s > 0 && r.settled_s < 120); /* within 0.5 °C in 2 minutes */
    assert_true(r.peak_C < 55 + 2.0);                   /* overshoot under 2 °C */
    assert_true(fabs(pl.temp_C - 55) < 0.1);
    /* the room warms by 5 °C: the loop takes it out */
    pl.ambient_C = 30;
    r = run_to(&pl, 55, 300);
    assert_true(fabs(pl.temp_C - 55) < 0.1);
    assert_true(r.peak_C < 55 + 1.0);
}

static void test_loop_is_robust_to_a_slower_stronger_plant(void **state)
{
    (void)state;
    /* twice the gain, twice the time constant of the tuning's model */
    struct plant pl = {.temp_C = 25, .ambient_C = 25, .gain_K = 100, .tau_s = 120};
    t_post(FW_CMD_THERMAL, 1, 0, 85000, 0);
    struct run r = run_to(&pl, 85, 600);
    assert_true(r.settled_s > 0 && r.settled_s < 300);
    assert_true(r.peak_C < 85 + 3.0);
}

static void test_tec_cools_below_ambient(void **state)
{
    (void)state;
    struct plant pl = {.temp_C = 25, .ambient_C = 25, .gain_K = 50, .tau_s = 60};
    t_post(FW_CMD_THERMAL, 1, 1, 5000, 0); /* TEC: 5 °C */
    struct run r = run_to(&pl, 5, 300);
    uint32_t writes;
    assert_true(r.settled_s > 0);
    assert_true(fabs(pl.temp_C - 5) < 0.1);
    assert_true(hal_host_pwm(&writes) < 0); /* cooling */
    /* a heater cannot cool: it sits at 0 above its setpoint */
    t_post(FW_CMD_THERMAL, 1, 0, 5000, 0);
    run_to(&pl, 5, 10);
    assert_int_equal(hal_host_pwm(&writes), 0);
}

static void test_lost_sensor_turns_the_heater_off(void **state)
{
    (void)state;
    struct plant pl = {.temp_C = 25, .ambient_C = 25, .gain_K = 50, .tau_s = 60};
    uint32_t writes;
    t_post(FW_CMD_THERMAL, 1, 0, 60000, 0);
    run_to(&pl, 60, 5);
    assert_true(hal_host_pwm(&writes) > 0);
    hal_host_temp(false, 0);
    hal_host_advance_ns(200000000ull);
    fw_poll();
    assert_int_equal(hal_host_pwm(&writes), 0);
    /* and off means off */
    hal_host_temp(true, 30000);
    t_post(FW_CMD_THERMAL, 0, 0, 0, 0);
    assert_int_equal(t_state(), FW_DONE);
    hal_host_advance_ns(1000000000ull);
    fw_poll();
    assert_int_equal(hal_host_pwm(&writes), 0);
}

static void test_thermal_needs_a_sensor(void **state)
{
    (void)state;
    hal_host_temp(false, 0);
    t_post(FW_CMD_THERMAL, 1, 0, 50000, 0);
    assert_int_equal(t_error(), FW_ERR_NO_SENSOR);
    assert_int_equal(REG(MBX_RESULT), 1);
    t_post(FW_CMD_THERMAL, 2, 0, 50000, 0);
    assert_int_equal(t_error(), FW_ERR_BAD_ARG);
}

/* The PID alone: anti-windup keeps a long saturation from overshooting. */
/* THERMAL_GAINS: each argument past its limit is refused by name; good gains
 * change the output at once; END_SESSION brings the built-in tuning back. */
static void test_gains_are_set_at_run_time_within_limits(void **state)
{
    (void)state;
    struct pid c;
    pid_init(&c, 0, 1000);
    assert_int_equal(pid_step(&c, 1000, 0, 100000), 199); /* 0.2 ‰/m°C x 1 K, Q20 truncated */
    const uint32_t bad[][5] = {
        {0, 24000, 0, 100000, 0},                      /* no gain */
        {PID_KP_MAX + 1, 24000, 0, 100000, 0},
        {209715, 50, 0, 100000, 1},                    /* Ti shorter than a step */
        {209715, PID_TI_MAX_MS + 1, 0, 100000, 1},
        {209715, 24000, PID_TD_MAX_MS + 1, 100000, 2},
        {209715, 24000, 0, PID_PERIOD_MIN_US - 1, 3},
        {209715, 24000, 0, PID_PERIOD_MAX_US + 1, 3},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        t_post(FW_CMD_THERMAL_GAINS, bad[i][0], bad[i][1], bad[i][2], bad[i][3]);
        assert_int_equal(t_error(), FW_ERR_BAD_ARG);
        assert_int_equal(REG(MBX_RESULT), bad[i][4]);
    }
    pid_init(&c, 0, 1000);
    assert_int_equal(pid_step(&c, 1000, 0, 100000), 199); /* refused: unchanged */
    t_post(FW_CMD_THERMAL_GAINS, 2 * 209715, 0, 0, 100000);
    assert_int_equal(t_state(), FW_DONE);
    pid_init(&c, 0, 1000);
    assert_int_equal(pid_step(&c, 1000, 0, 100000), 399);
    assert_int_equal(pid_step(&c, 1000, 0, 100000), 399); /* Ti 0: no integral */
    t_post(FW_CMD_END_SESSION, 0, 0, 0, 0);
    pid_init(&c, 0, 1000);
    assert_int_equal(pid_step(&c, 1000, 0, 100000), 199);
}

/* The same socket 1000 times faster, with the step and Ti scaled through
 * THERMAL_GAINS: it settles at the same point of its response. */
static void test_scaled_gains_settle_a_scaled_plant_alike(void **state)
{
    (void)state;
    struct plant pl = {.temp_C = 25, .ambient_C = 25, .gain_K = 50, .tau_s = 60};
    hal_host_temp(true, 25000);
    t_post(FW_CMD_THERMAL, 1, 0, 55000, 0);
    struct run slow = run_to(&pl, 55, 300);

    t_boot(&T_CFG);
    scale = 1e-3;
    struct plant fast = {.temp_C = 25, .ambient_C = 25, .gain_K = 50, .tau_s = 0.060};
    t_post(FW_CMD_THERMAL_GAINS, 209715, 24, 0, 100);
    assert_int_equal(t_state(), FW_DONE);
    t_post(FW_CMD_THERMAL, 1, 0, 55000, 0);
    struct run r = run_to(&fast, 55, 0.300);
    assert_true(slow.settled_s > 0 && r.settled_s > 0);
    assert_true(fabs(r.settled_s * 1000 - slow.settled_s) <= 0.2);
    assert_true(fabs(r.peak_C - slow.peak_C) < 0.01);
}

/* A late step (the sensor's read or a loop's op outlasted the period) integrates
 * the time that passed, not the nominal period. */
static void test_late_step_integrates_the_time_that_passed(void **state)
{
    (void)state;
    uint32_t writes;
    t_post(FW_CMD_THERMAL_GAINS, 209715, 1000, 0, 100000); /* Kc 0.2 ‰/m°C, Ti 1 s */
    hal_host_temp(true, 54000);
    t_post(FW_CMD_THERMAL, 1, 0, 55000, 0);
    hal_host_advance_ns(500000000ull); /* 500 ms: five periods late */
    fw_poll();
    assert_int_equal(hal_host_pwm(&writes), 199); /* P: 1 K x 0.2 ‰/m°C (Q20, truncated) */
    hal_host_advance_ns(100000000ull);
    fw_poll();
    /* P, and the integral of the late step: 0.5 s of Ti 1 s, not 0.1 s (219) */
    assert_int_equal(hal_host_pwm(&writes), 299);
}

static void test_pid_does_not_wind_up(void **state)
{
    (void)state;
    struct pid c;
    pid_init(&c, 0, 1000);
    for (int i = 0; i < 10000; i++) { /* 1000 s far below the setpoint, output pinned */
        assert_int_equal(pid_step(&c, 100000, 20000, 100000), 1000);
    }
    /* at the setpoint the output drops at once, not after unwinding 1000 s of error */
    assert_true(pid_step(&c, 100000, 100000, 100000) <= 1000);
    assert_true(pid_step(&c, 100000, 101000, 100000) < 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_heater_reaches_and_holds_the_setpoint, setup),
        cmocka_unit_test_setup(test_loop_is_robust_to_a_slower_stronger_plant, setup),
        cmocka_unit_test_setup(test_gains_are_set_at_run_time_within_limits, setup),
        cmocka_unit_test_setup(test_scaled_gains_settle_a_scaled_plant_alike, setup),
        cmocka_unit_test_setup(test_late_step_integrates_the_time_that_passed, setup),
        cmocka_unit_test_setup(test_tec_cools_below_ambient, setup),
        cmocka_unit_test_setup(test_lost_sensor_turns_the_heater_off, setup),
        cmocka_unit_test_setup(test_thermal_needs_a_sensor, setup),
        cmocka_unit_test_setup(test_pid_does_not_wind_up, setup),
    };
    return cmocka_run_group_tests_name("thermal", tests, NULL, NULL);
}
