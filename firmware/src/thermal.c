/* Temperature control: a PI(D) loop from the board's temperature sensor
 * (hal_temp_mC) to a heater or a TEC on PWM (hal_pwm_set, duty in ‰, signed
 * for a TEC), stepped every THERMAL_PERIOD_NS from the mailbox poll and from
 * the loops' idle passes, so a long on-board loop keeps the chip at its
 * temperature. Fixed point only (no FPU on the board CPU). Tuning: docs/firmware.md. */
#include "fwint.h"
#include "hal.h"

#define THERMAL_PERIOD_NS 100000000u /* 100 ms */
#define DUTY_MAX 1000                /* ‰ */
#define Q 20                         /* gains are Q20 fixed point */

/* Lambda (SIMC) tuning for a first-order-plus-dead-time plant of gain
 * 50 K at full heat (0.05 K/‰), time constant 60 s, dead time 2 s, and a
 * closed-loop time constant of 4 s: Kc = tau / (K (lambda + theta)) =
 * 60 / (0.05 x 6) = 200 ‰/K, Ti = min(tau, 4 (lambda + theta)) = 24 s, no
 * derivative. As ‰ per m°C (and per m°C·s) in Q20. */
#define KP_Q20 209715 /* 0.2 ‰/m°C */
#define KI_Q20 8738   /* 0.2 / 24 s = 0.00833 ‰/(m°C·s) */
#define KD_Q20 0
#define TRACK_MS 6000 /* back-calculation time constant: Ti / 4 */

void pid_init(struct pid *c, int32_t out_min, int32_t out_max)
{
    c->kp = KP_Q20;
    c->ki = KI_Q20;
    c->kd = KD_Q20;
    c->out_min = out_min;
    c->out_max = out_max;
    c->integ = 0;
    c->prev = 0;
    c->primed = false;
}

int32_t pid_step(struct pid *c, int32_t setpoint_mC, int32_t meas_mC, uint32_t dt_ms)
{
    int64_t e = (int64_t)setpoint_mC - meas_mC;
    int64_t p = (int64_t)c->kp * e;
    /* derivative on the measurement: a setpoint step does not kick the output */
    int64_t d = 0;
    if (c->primed && dt_ms > 0) {
        d = -(int64_t)c->kd * ((int64_t)meas_mC - c->prev) * 1000 / dt_ms;
    }
    int64_t lo = (int64_t)c->out_min << Q, hi = (int64_t)c->out_max << Q;
    int64_t raw = p + c->integ + d;
    int64_t out = raw < lo ? lo : raw > hi ? hi : raw;
    /* anti-windup by back-calculation: while the output is clipped, the
     * integral is pulled towards the value that would just reach the limit,
     * with time constant TRACK_MS, so it leaves saturation ready, not wound up */
    c->integ += (int64_t)c->ki * e * dt_ms / 1000 + (out - raw) * dt_ms / TRACK_MS;
    c->prev = meas_mC;
    c->primed = true;
    return (int32_t)(out >> Q);
}

static struct {
    bool on, tec;
    int32_t setpoint_mC, last_mC;
    uint64_t next_ns;
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
    th.next_ns += THERMAL_PERIOD_NS;
    if (th.next_ns <= now) { /* a long stall: no burst of catch-up steps */
        th.next_ns = now + THERMAL_PERIOD_NS;
    }
    int32_t mC;
    if (!hal_temp_mC(&mC)) {
        /* no reading, no heat: a lost sensor must not leave the heater on */
        th.sensor_lost++;
        hal_pwm_set(0);
        return;
    }
    th.last_mC = mC;
    hal_pwm_set(pid_step(&th.pid, th.setpoint_mC, mC, THERMAL_PERIOD_NS / 1000000u));
}

int32_t thermal_last_mC(void) { return th.last_mC; }
