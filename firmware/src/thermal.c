/* Temperature control: a PI(D) loop from the board's temperature sensor
 * (hal_temp_mC) to a heater or a TEC on PWM (hal_pwm_set, duty in ‰, signed
 * for a TEC), stepped every gains.period_us from the mailbox poll and from
 * the loops' idle passes, so a long on-board loop keeps the chip at its
 * temperature. Fixed point only (no FPU on the board CPU). Tuning: docs/firmware.md. */
#include "fwint.h"
#include "hal.h"

#define DUTY_MAX 1000 /* ‰ */
#define Q 20          /* the proportional gain is Q20 fixed point */
#define E_MAX (1 << 20) /* m°C: the error is clipped here, so no product overflows */
#define DM_MAX (1 << 16) /* m°C: likewise the change of the measurement per step */

/* Defaults: lambda (SIMC) tuning for a first-order-plus-dead-time plant of
 * gain 50 K at full heat (0.05 K/‰), time constant 60 s, dead time 2 s, and a
 * closed-loop time constant of 4 s: Kc = tau / (K (lambda + theta)) =
 * 60 / (0.05 x 6) = 200 ‰/K, Ti = min(tau, 4 (lambda + theta)) = 24 s, no
 * derivative, a step every 100 ms. THERMAL_GAINS replaces them at run time. */
#define DEFAULT_GAINS {.kp = 209715 /* 0.2 ‰/m°C in Q20 */, .ti_ms = 24000, .td_ms = 0, .period_us = 100000}
static const struct pid_gains default_gains = DEFAULT_GAINS;
static struct pid_gains gains = DEFAULT_GAINS;

int thermal_gains(const struct pid_gains *g, uint32_t *detail)
{
    if (g->kp == 0 || g->kp > PID_KP_MAX) {
        *detail = 0;
    } else if (g->ti_ms > PID_TI_MAX_MS || (g->ti_ms != 0 && g->ti_ms * 1000u < g->period_us)) {
        *detail = 1; /* an integral time shorter than a step is unstable */
    } else if (g->td_ms > PID_TD_MAX_MS) {
        *detail = 2;
    } else if (g->period_us < PID_PERIOD_MIN_US || g->period_us > PID_PERIOD_MAX_US) {
        *detail = 3;
    } else {
        gains = *g;
        *detail = 0;
        return FW_OK;
    }
    return FW_ERR_BAD_ARG;
}

void thermal_default_gains(void) { gains = default_gains; }

void pid_init(struct pid *c, int32_t out_min, int32_t out_max)
{
    c->out_min = out_min;
    c->out_max = out_max;
    c->integ = 0;
    c->prev = 0;
    c->primed = false;
}

static int64_t clip(int64_t v, int64_t lim) { return v < -lim ? -lim : v > lim ? lim : v; }

int32_t pid_step(struct pid *c, int32_t setpoint_mC, int32_t meas_mC, uint32_t dt_us)
{
    const struct pid_gains *g = &gains;
    int64_t e = clip((int64_t)setpoint_mC - meas_mC, E_MAX);
    int64_t kpe = (int64_t)g->kp * e;
    /* derivative on the measurement: a setpoint step does not kick the output */
    int64_t d = 0;
    if (c->primed && dt_us > 0 && g->td_ms > 0) {
        int64_t dm = clip((int64_t)meas_mC - c->prev, DM_MAX);
        d = -(int64_t)g->kp * dm * g->td_ms * 1000 / dt_us;
    }
    int64_t lo = (int64_t)c->out_min << Q, hi = (int64_t)c->out_max << Q;
    int64_t raw = kpe + c->integ + d;
    int64_t out = raw < lo ? lo : raw > hi ? hi : raw;
    /* integral Kc/Ti; anti-windup by back-calculation: while the output is
     * clipped, the integral is pulled towards the value that would just reach
     * the limit, with time constant Ti / 4, so it leaves saturation ready, not
     * wound up */
    if (g->ti_ms != 0) {
        int64_t ti_us = (int64_t)g->ti_ms * 1000;
        c->integ += kpe * dt_us / ti_us + (out - raw) * dt_us / (ti_us / 4);
    }
    c->prev = meas_mC;
    c->primed = true;
    return (int32_t)(out >> Q);
}

static struct {
    bool on, tec;
    int32_t setpoint_mC, last_mC;
    uint64_t next_ns, last_step_ns;
    uint32_t sensor_lost; /* steps without a reading: the output is off */
    struct pid pid;
} th;

int thermal_set(bool on, bool tec, int32_t setpoint_mC, uint32_t *detail)
{
    int32_t mC;
    hal_pwm_set(0);
    th.on = false;
    if (!on) {
        *detail = 0;
        return FW_OK;
    }
    if (!hal_temp_mC(&mC)) {
        *detail = 1;
        return FW_ERR_NO_SENSOR;
    }
    if (!hal_pwm_set(0)) {
        *detail = 2;
        return FW_ERR_NO_SENSOR;
    }
    th.tec = tec;
    th.setpoint_mC = setpoint_mC;
    th.last_mC = mC;
    th.sensor_lost = 0;
    th.next_ns = hal_time_ns();
    th.last_step_ns = th.next_ns;
    pid_init(&th.pid, tec ? -DUTY_MAX : 0, DUTY_MAX);
    th.on = true;
    *detail = (uint32_t)mC;
    return FW_OK;
}

void thermal_poll(void)
{
    if (!th.on) {
        return;
    }
    uint64_t now = hal_time_ns();
    if (now < th.next_ns) {
        return;
    }
    uint64_t period_ns = (uint64_t)gains.period_us * 1000u;
    th.next_ns += period_ns;
    if (th.next_ns <= now) { /* a long stall: no burst of catch-up steps */
        th.next_ns = now + period_ns;
    }
    int32_t mC;
    if (!hal_temp_mC(&mC)) {
        /* no reading, no heat: a lost sensor must not leave the heater on */
        th.sensor_lost++;
        th.last_step_ns = now; /* no integral over the time without a reading */
        hal_pwm_set(0);
        return;
    }
    th.last_mC = mC;
    /* the time since the last step, not the nominal step: a step is late when
     * the sensor's read or a loop's work outlasts the period, and the integral
     * must see the time that passed (kept within the gains' limits) */
    uint64_t dt_us = (now - th.last_step_ns) / 1000u;
    th.last_step_ns = now;
    if (dt_us == 0 || dt_us > PID_PERIOD_MAX_US) {
        dt_us = dt_us == 0 ? gains.period_us : PID_PERIOD_MAX_US;
    }
    hal_pwm_set(pid_step(&th.pid, th.setpoint_mC, mC, (uint32_t)dt_us));
}

int32_t thermal_last_mC(void) { return th.last_mC; }
