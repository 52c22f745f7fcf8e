/* Helpers of the native firmware tests: the test plays the host on the
 * simulated mailbox registers (host HAL). */
#ifndef NANDLAB_FW_TEST_H
#define NANDLAB_FW_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fw.h"
#include "hal.h"
#include "hal_host.h"
#include "nandlab_ops.h"
#include "nandlab_regs.h"

#define REG(name) (hal_host_regs()[offsetof(nandlab_regs_t, name) / 4])

/* Shared RAM layout the tests use (byte offsets). */
#define T_PROG_OFF 0u
#define T_RING_OFF 4096u
#define T_RING_WORDS 2048u

static const struct fake_cfg T_CFG = {
    .blocks = 8, .pages = 4, .page_bytes = 256, .flips_per_kpe = 3000, .best_offset = -2,
    .flips_per_step = 5, .endurance = 1000000, .offset_feature = 0x89, .flips_per_kread = 0,
};

static uint32_t t_seq;

static inline void t_boot(const struct fake_cfg *cfg)
{
    hal_host_reset(cfg);
    t_seq = 0;
    fw_init();
}

/* Posts a command the way the host does (arguments, then MBX_CMD with a new
 * SEQ) and gives the firmware one poll. */
static inline void t_post(uint32_t code, uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3)
{
    REG(MBX_ARG0) = a0;
    REG(MBX_ARG1) = a1;
    REG(MBX_ARG2) = a2;
    REG(MBX_ARG3) = a3;
    t_seq = (t_seq + 1) & 0xFFu;
    REG(MBX_CMD) = code | t_seq << 8;
    fw_poll();
}

static inline uint32_t t_state(void) { return REG(MBX_STATUS) & 0xFu; }
static inline uint32_t t_error(void) { return (REG(MBX_STATUS) >> 16) & 0xFFu; }
static inline uint32_t t_status_seq(void) { return (REG(MBX_STATUS) >> 8) & 0xFFu; }

static inline uint32_t *t_shared(uint32_t byte_offset) { return hal_shared() + byte_offset / 4; }

/* An INA226 at I2C address 0x40 on a 10 mΩ shunt (datasheet model: SHUNT in
 * 2.5 µV steps, CURRENT = SHUNT x CALIBRATION / 2048), drawing t_ina_uA. */
#define T_INA_ADDR 0x40u
#define T_INA_SHUNT_UOHM 10000u
static int32_t t_ina_uA;
static uint32_t t_ina_regs[256];

static inline bool t_ina226(uint8_t addr, uint8_t reg, uint8_t *buf, uint32_t n, bool write)
{
    if (addr != T_INA_ADDR || n != 2) {
        return false;
    }
    if (write) {
        uint32_t v = (uint32_t)buf[0] << 8 | buf[1];
        t_ina_regs[reg] = reg == 0 && (v & 0x8000u) ? 0x4127u : v;
        if (reg == 0 && (v & 0x8000u)) {
            t_ina_regs[5] = 0;
        }
        return true;
    }
    int64_t shunt = ((int64_t)t_ina_uA * T_INA_SHUNT_UOHM / 1000000 * 2 + 5) / 5; /* nV / 2500 */
    uint32_t v = t_ina_regs[reg];
    if (reg == 4) {
        v = (uint32_t)(shunt * (int64_t)t_ina_regs[5] / 2048) & 0xFFFFu;
    } else if (reg == 0xFE) {
        v = 0x5449u;
    } else if (reg == 0xFF) {
        v = 0x2260u;
    }
    buf[0] = (uint8_t)(v >> 8);
    buf[1] = (uint8_t)v;
    return true;
}

/* Ring word i of the last job. */
static inline uint32_t t_ring(uint32_t i) { return t_shared(T_RING_OFF)[i % T_RING_WORDS]; }

#endif
