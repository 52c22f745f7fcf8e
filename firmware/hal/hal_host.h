/* Host HAL for native tests: a simulated CSR block and shared RAM, and a fake
 * sequencer driving one fake NAND die (2 column + 3 row address bytes; erase
 * 60h-D0h, program 80h-10h, read 00h-30h, status 70h, SET FEATURES EFh,
 * RESET FFh). Its read errors are deterministic so tests know the counts the
 * firmware must report. */
#ifndef NANDLAB_HAL_HOST_H
#define NANDLAB_HAL_HOST_H

#include <stdbool.h>
#include <stdint.h>

#define FAKE_MAX_BLOCKS 16u
#define FAKE_MAX_PAGES 16u
#define FAKE_MAX_PAGE_BYTES 2048u
#define FAKE_SHARED_WORDS 4096u
#define FAKE_TX_LOG_WORDS 16384u

/* Busy times of the fake die (ns). */
#define FAKE_T_R_NS 50000u
#define FAKE_T_PROG_NS 600000u
#define FAKE_T_BERS_NS 3000000u
#define FAKE_T_RST_NS 5000u
#define FAKE_T_FEAT_NS 1000u

struct fake_cfg {
    uint32_t blocks, pages, page_bytes;
    uint32_t flips_per_kpe;   /* bit errors per page read per 1000 P/E cycles */
    int32_t best_offset;      /* read offset with the fewest errors */
    uint32_t flips_per_step;  /* extra bit errors per offset step away from it */
    uint32_t endurance;       /* P/E count after which erase / program report FAIL */
    uint32_t offset_feature;  /* SET FEATURES address of the read offset */
    uint32_t flips_per_kread; /* read disturb: bit errors per page per 1000 earlier reads of its block since the erase */
};

struct fake_stats {
    uint32_t erases, programs, reads, resets, soft_resets, set_features, programs_run;
    uint32_t cmd_count[256];
    uint32_t pe[FAKE_MAX_BLOCKS];
    int32_t offset;
    uint32_t block_reads[FAKE_MAX_BLOCKS]; /* page reads (senses) since the block's erase */
};

void hal_host_reset(const struct fake_cfg *cfg);
uint32_t *hal_host_regs(void);           /* CSR block, indexed by byte offset / 4 */
struct fake_stats *hal_host_stats(void);
uint8_t *hal_host_page(uint32_t block, uint32_t page);
void hal_host_rb_stuck(bool stuck);      /* R/B# never rises again */
void hal_host_seq_hang(bool hang);       /* the sequencer never answers */
/* The I2C bus: `fn` answers every access (write true: buf holds the bytes
 * written); false is a NACK. NULL (after hal_host_reset): nothing answers. */
typedef bool (*hal_host_i2c_fn)(uint8_t addr, uint8_t reg, uint8_t *buf, uint32_t n, bool write);
void hal_host_i2c_attach(hal_host_i2c_fn fn);
/* The image of the last LOAD (hal_boot_image), NULL if none since the reset. */
const uint32_t *hal_host_booted(uint32_t *n);
/* The temperature sensor's reading (hal_temp_mC); after hal_host_reset 25 °C. */
void hal_host_temp(bool present, int32_t mC);
/* The last PWM duty the firmware set (‰), and how many times it set one. */
int32_t hal_host_pwm(uint32_t *writes);
/* Moves the host HAL's clock (hal_time_ns) on by `ns`. */
void hal_host_advance_ns(uint64_t ns);
/* Called whenever the firmware reads MBX_CMD: the test's "host" acts there. */
void hal_host_on_cmd_read(void (*hook)(void *ctx), void *ctx);
/* Every word the firmware sent to the sequencer since the reset (the first
 * FAKE_TX_LOG_WORDS), *n of them. */
const uint32_t *hal_host_tx_log(uint32_t *n);
/* Bit errors the die puts into a read of a block with `pe` cycles at `offset`. */
uint32_t hal_host_flips(uint32_t pe, int32_t offset);

#endif
