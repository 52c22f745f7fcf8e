/* Host HAL: register file, shared RAM and clock for native tests; the fake
 * sequencer and die are in fake_seq.c. */
#include <stddef.h>

#include "fake_seq.h"
#include "hal.h"
#include "hal_host.h"
#include "nandlab_regs.h"

static uint32_t regs[sizeof(nandlab_regs_t) / 4 + 1];
static uint32_t shared[FAKE_SHARED_WORDS];
static void (*cmd_hook)(void *);
static hal_host_i2c_fn i2c;
static int32_t pwm;
static uint32_t pwm_writes;
static bool has_temp = true;
static int32_t sense_mC = 25000;
static void *cmd_hook_ctx;

uint32_t *hal_host_regs(void) { return regs; }

void hal_host_on_cmd_read(void (*hook)(void *ctx), void *ctx)
{
    cmd_hook = hook;
    cmd_hook_ctx = ctx;
}

uint32_t hal_reg_read(uint32_t offset)
{
    if (offset == offsetof(nandlab_regs_t, MBX_CMD) && cmd_hook != NULL) {
        cmd_hook(cmd_hook_ctx);
    }
    return regs[offset / 4];
}

void hal_reg_write(uint32_t offset, uint32_t value)
{
    if (offset == offsetof(nandlab_regs_t, CONTROL)) {
        /* CONTROL's bits 1:0 are single pulses: they act and read back as 0. */
        if (value & NANDLAB_REGS__CONTROL__SOFT_RESET_bm) {
            fake_seq_soft_reset();
        }
        value &= ~(uint32_t)(NANDLAB_REGS__CONTROL__SOFT_RESET_bm |
                             NANDLAB_REGS__CONTROL__CLEAR_COUNTERS_bm);
    }
    regs[offset / 4] = value;
}

uint32_t *hal_shared(void) { return shared; }

void hal_host_i2c_attach(hal_host_i2c_fn fn) { i2c = fn; }

bool hal_i2c_read(uint8_t addr, uint8_t reg, uint8_t *buf, uint32_t n)
{
    return i2c != NULL && i2c(addr, reg, buf, n, false);
}

bool hal_i2c_write(uint8_t addr, uint8_t reg, const uint8_t *buf, uint32_t n)
{
    uint8_t copy[8];
    if (i2c == NULL || n > sizeof copy) {
        return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        copy[i] = buf[i];
    }
    return i2c(addr, reg, copy, n, true);
}

bool hal_pwm_set(int32_t permille)
{
    pwm = permille;
    pwm_writes++;
    return true;
}

int32_t hal_host_pwm(uint32_t *writes)
{
    *writes = pwm_writes;
    return pwm;
}

void hal_host_temp(bool present, int32_t mC)
{
    has_temp = present;
    sense_mC = mC;
}

bool hal_temp_mC(int32_t *mC)
{
    *mC = sense_mC;
    return has_temp;
}

uint32_t hal_shared_words(void) { return FAKE_SHARED_WORDS; }

/* The build machine has no BRAM to boot from: the image is kept for the test
 * to look at, and the firmware carries on. */
static const uint32_t *booted;
static uint32_t booted_words;

void hal_boot_image(const uint32_t *words, uint32_t n)
{
    booted = words;
    booted_words = n;
}

const uint32_t *hal_host_booted(uint32_t *n)
{
    *n = booted_words;
    return booted;
}

void hal_host_reset(const struct fake_cfg *cfg)
{
    for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++) {
        regs[i] = 0;
    }
    for (size_t i = 0; i < FAKE_SHARED_WORDS; i++) {
        shared[i] = 0;
    }
    regs[offsetof(nandlab_regs_t, ID) / 4] = NANDLAB_REGS__ID__MAGIC_reset;
    cmd_hook = NULL;
    i2c = NULL;
    pwm = 0;
    pwm_writes = 0;
    booted = NULL;
    booted_words = 0;
    hal_host_temp(true, 25000);
    fake_seq_reset(cfg);
}
