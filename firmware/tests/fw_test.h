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

/* Ring word i of the last job. */
static inline uint32_t t_ring(uint32_t i) { return t_shared(T_RING_OFF)[i % T_RING_WORDS]; }

#endif
