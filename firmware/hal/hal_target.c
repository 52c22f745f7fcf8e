/* HAL of the board CPU (PicoRV32, rv32imc) in the FPGA design.
 *
 * Address map the SoC provides (docs/firmware.md): the CSR block the host
 * also sees, a stream bridge to the sequencer's program / result ports, a
 * shared RAM the host reaches over its own path, and the CPU's peripheral
 * block (I2C master, PWM: hw/rtl/nandlab_cpu_periph.sv). */
#include <stddef.h>

#include "hal.h"
#include "fwint.h"
#include "nandlab_cpu_regs.h"
#include "nandlab_regs.h"

#define CSR_BASE 0x40000000u
#define SEQ_BASE 0x40001000u
#define SEQ_TX_DATA 0x0u      /* write: push one program word */
#define SEQ_TX_VACANCY 0x4u   /* read: words the program FIFO can take */
#define SEQ_RX_DATA 0x8u      /* read: pop one result word */
#define SEQ_RX_OCCUPANCY 0xCu /* read: result words waiting */
#define SEQ_TX_LAST 0x10u     /* write: push the program's last word (tlast) */
#define PERIPH_BASE 0x40002000u
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

/* ---- the peripheral block (hw/rtl/nandlab_cpu_periph.sv) */

static uint32_t periph_read(uint32_t offset) { return *mmio(PERIPH_BASE + offset); }

static void periph_write(uint32_t offset, uint32_t value) { *mmio(PERIPH_BASE + offset) = value; }

/* Core clocks per unit of `ps`, rounded up; CONFIG.CLK_PERIOD_PS read once. */
static uint32_t clocks_for_ps(uint32_t ps)
{
    static uint32_t period_ps;
    if (period_ps == 0) {
        uint32_t cfg = hal_reg_read(offsetof(nandlab_regs_t, CONFIG));
        period_ps = (cfg & NANDLAB_REGS__CONFIG__CLK_PERIOD_PS_bm) >>
                    NANDLAB_REGS__CONFIG__CLK_PERIOD_PS_bp;
    }
    return (ps + period_ps - 1u) / period_ps;
}

#define I2C_CMD_(f) NANDLAB_CPU_REGS__I2C_CMD__##f##_bm
#define I2C_QUARTER_PS 650000u /* fast mode: tLOW 1.3 us = two quarters (UM10204) */

/* One bus step (START / byte / STOP); false if a byte written was not
 * acknowledged. *rx gets the byte read. */
static bool i2c_step(uint32_t cmd, uint8_t *rx)
{
    static bool clocked;
    if (!clocked) {
        periph_write(offsetof(nandlab_cpu_regs_t, I2C_CLOCK), clocks_for_ps(I2C_QUARTER_PS));
        clocked = true;
    }
    periph_write(offsetof(nandlab_cpu_regs_t, I2C_CMD), cmd);
    uint32_t st;
    do {
        st = periph_read(offsetof(nandlab_cpu_regs_t, I2C_STATUS));
    } while (st & NANDLAB_CPU_REGS__I2C_STATUS__BUSY_bm);
    if (rx) {
        *rx = (uint8_t)((st & NANDLAB_CPU_REGS__I2C_STATUS__RX_DATA_bm) >>
                        NANDLAB_CPU_REGS__I2C_STATUS__RX_DATA_bp);
    }
    return !(st & NANDLAB_CPU_REGS__I2C_STATUS__NACKED_bm);
}

/* START, the address byte and the register pointer; on a NACK the bus is
 * released with a STOP. */
static bool i2c_select(uint8_t addr, uint8_t reg)
{
    if (i2c_step(I2C_CMD_(START) | I2C_CMD_(WRITE) | (uint32_t)addr << 1, NULL) &&
        i2c_step(I2C_CMD_(WRITE) | reg, NULL)) {
        return true;
    }
    i2c_step(I2C_CMD_(STOP), NULL);
    return false;
}

bool hal_i2c_read(uint8_t addr, uint8_t reg, uint8_t *buf, uint32_t n)
{
    if (n == 0 || !i2c_select(addr, reg)) {
        return false;
    }
    if (!i2c_step(I2C_CMD_(START) | I2C_CMD_(WRITE) | (uint32_t)addr << 1 | 1u, NULL)) {
        i2c_step(I2C_CMD_(STOP), NULL);
        return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        bool last = i + 1 == n;
        i2c_step(I2C_CMD_(READ) | (last ? I2C_CMD_(NACK) | I2C_CMD_(STOP) : 0u), &buf[i]);
    }
    return true;
}

bool hal_i2c_write(uint8_t addr, uint8_t reg, const uint8_t *buf, uint32_t n)
{
    if (!i2c_select(addr, reg)) {
        return false;
    }
    bool ok = true;
    for (uint32_t i = 0; i < n && ok; i++) {
        ok = i2c_step(I2C_CMD_(WRITE) | buf[i], NULL);
    }
    i2c_step(I2C_CMD_(STOP), NULL);
    return ok;
}

/* The board's temperature sensor: a TMP117 at TMP117_ADDR on the same bus. */
bool hal_temp_mC(int32_t *mC) { return tmp117_read_mC(TMP117_ADDR, mC); }

/* PWM at 20 kHz (above hearing, for a TEC's filter), duty in core clocks. */
#define PWM_PERIOD_PS 50000000u

bool hal_pwm_set(int32_t permille)
{
    uint32_t period = clocks_for_ps(PWM_PERIOD_PS);
    uint32_t mag = (uint32_t)(permille < 0 ? -permille : permille);
    mag = mag > 1000u ? 1000u : mag;
    periph_write(offsetof(nandlab_cpu_regs_t, PWM_PERIOD), period);
    periph_write(offsetof(nandlab_cpu_regs_t, PWM_DUTY),
                 period * mag / 1000u | (permille < 0 ? NANDLAB_CPU_REGS__PWM_DUTY__COOL_bm : 0u));
    return true;
}

/* Firmware loading: the copy runs from RAM (.data, which crt0 placed at
 * 0xC000 and up), since it overwrites the code it would otherwise run from,
 * through volatile pointers so that no library copy (itself in the code being
 * replaced) is called. Then a jump to the reset address: the new image's crt0
 * sets up its own data, bss and stack. The BRAM at 0 is only reached through
 * an integer address, so no null pointer is formed in C. */
__attribute__((section(".data.boot_image"), noinline, noreturn)) static void
copy_and_boot(const volatile uint32_t *src, uint32_t n, uintptr_t bram)
{
    volatile uint32_t *dst = (volatile uint32_t *)bram;
    for (uint32_t i = 0; i < n; i++) {
        dst[i] = src[i];
    }
    __asm__ volatile("jr %0" : : "r"(bram));
    __builtin_unreachable();
}

void hal_boot_image(const uint32_t *words, uint32_t n) { copy_and_boot(words, n, 0); }
