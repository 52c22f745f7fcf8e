/* HAL of the board CPU (PicoRV32, rv32imc) in the FPGA design.
 *
 * Address map the SoC must provide (docs/firmware.md, "Missing on the FPGA
 * side"): the CSR block the host also sees, a stream bridge to the
 * sequencer's program / result ports, and a shared RAM the host reaches over
 * its own AXI path. Only the CSR block exists in hw/rtl today. */
#include <stddef.h>

#include "hal.h"
#include "nandlab_regs.h"

#define CSR_BASE 0x40000000u
#define SEQ_BASE 0x40001000u
#define SEQ_TX_DATA 0x0u      /* write: push one program word */
#define SEQ_TX_VACANCY 0x4u   /* read: words the program FIFO can take */
#define SEQ_RX_DATA 0x8u      /* read: pop one result word */
#define SEQ_RX_OCCUPANCY 0xCu /* read: result words waiting */
#define SEQ_TX_LAST 0x10u     /* write: push the program's last word (tlast) */
#define SHARED_BASE 0x30000000u
#define SHARED_WORDS 4096u

static volatile uint32_t *mmio(uint32_t addr) { return (volatile uint32_t *)(uintptr_t)addr; }

uint32_t hal_reg_read(uint32_t offset) { return *mmio(CSR_BASE + offset); }

void hal_reg_write(uint32_t offset, uint32_t value) { *mmio(CSR_BASE + offset) = value; }

uint32_t *hal_shared(void) { return (uint32_t *)(uintptr_t)SHARED_BASE; }

uint32_t hal_shared_words(void) { return SHARED_WORDS; }

uint32_t hal_seq_tx_vacancy(void) { return *mmio(SEQ_BASE + SEQ_TX_VACANCY); }

void hal_seq_tx(uint32_t word, bool last)
{
    *mmio(SEQ_BASE + (last ? SEQ_TX_LAST : SEQ_TX_DATA)) = word;
}

void hal_seq_tx_block(const uint32_t *w, uint32_t n)
{
    volatile uint32_t *tx = mmio(SEQ_BASE + SEQ_TX_DATA);
    for (uint32_t i = 0; i + 1 < n; i++) {
        *tx = w[i];
    }
    *mmio(SEQ_BASE + SEQ_TX_LAST) = w[n - 1];
}

uint32_t hal_seq_rx_occupancy(void) { return *mmio(SEQ_BASE + SEQ_RX_OCCUPANCY); }

uint32_t hal_seq_rx(void) { return *mmio(SEQ_BASE + SEQ_RX_DATA); }

/* CPU cycles (rdcycle) times the core clock period (CONFIG.CLK_PERIOD_PS, read
 * once). The core clocks the design builds (10, 8 and 5 ns) are whole ns, so
 * no division runs per call: the watchdog polls this in its busy loop. The
 * 32-bit counter is widened here, so this must run at least once per counter
 * wrap (about 34 s at 125 MHz): the job loop calls it on every pass. */
uint64_t hal_time_ns(void)
{
    static uint32_t last, period_ns;
    static uint64_t ns;
    uint32_t now;
    if (period_ns == 0) {
        uint32_t cfg = hal_reg_read(offsetof(nandlab_regs_t, CONFIG));
        period_ns = ((cfg & NANDLAB_REGS__CONFIG__CLK_PERIOD_PS_bm) >>
                     NANDLAB_REGS__CONFIG__CLK_PERIOD_PS_bp) / 1000u;
    }
    __asm__ volatile("rdcycle %0" : "=r"(now));
    ns += (uint64_t)(now - last) * period_ns;
    last = now;
    return ns;
}

/* The FPGA design has no I2C controller for the CPU yet (docs/firmware.md,
 * "Missing on the FPGA side"): every access NACKs, so a power monitor does
 * not configure and a current limit answers FW_ERR_NO_SENSOR instead of
 * running unguarded. Likewise no temperature sensor. */
bool hal_i2c_read(uint8_t addr, uint8_t reg, uint8_t *buf, uint32_t n)
{
    (void)addr;
    (void)reg;
    (void)buf;
    (void)n;
    return false;
}

bool hal_i2c_write(uint8_t addr, uint8_t reg, const uint8_t *buf, uint32_t n)
{
    (void)addr;
    (void)reg;
    (void)buf;
    (void)n;
    return false;
}

bool hal_temp_mC(int32_t *mC)
{
    (void)mC;
    return false;
}

/* No PWM output for a heater / TEC in the FPGA design yet: THERMAL refuses. */
bool hal_pwm_set(int32_t permille)
{
    (void)permille;
    return false;
}
