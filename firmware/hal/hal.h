/* Hardware abstraction of the board CPU: the CSR block (mailbox included), the
 * shared RAM the host also reaches, and the sequencer's op program stream.
 * hal_target.c implements it on the FPGA; hal_host.c over a simulated register
 * file and a fake sequencer with a fake NAND die, for native tests. */
#ifndef NANDLAB_HAL_H
#define NANDLAB_HAL_H

#include <stdbool.h>
#include <stdint.h>

uint32_t hal_reg_read(uint32_t offset);
void hal_reg_write(uint32_t offset, uint32_t value);

/* Shared RAM (words): the host writes op programs and loop descriptors there
 * and reads the result ring from it. */
uint32_t *hal_shared(void);
uint32_t hal_shared_words(void);

/* The sequencer's op program port (contract 1 words in; `last` marks the END
 * word, AXI-Stream tlast) and result stream port (records out). */
uint32_t hal_seq_tx_vacancy(void);
void hal_seq_tx(uint32_t word, bool last);
/* A whole program of n words, the last with tlast; the caller checked that
 * hal_seq_tx_vacancy() >= n. */
void hal_seq_tx_block(const uint32_t *w, uint32_t n);
uint32_t hal_seq_rx_occupancy(void);
uint32_t hal_seq_rx(void);

/* The board's I2C bus (power monitors): register `reg` of the device at 7-bit
 * address `addr`, n bytes, most significant first; false on a NACK. */
bool hal_i2c_read(uint8_t addr, uint8_t reg, uint8_t *buf, uint32_t n);
bool hal_i2c_write(uint8_t addr, uint8_t reg, const uint8_t *buf, uint32_t n);

/* The board's temperature sensor (m°C); false when it has none. */
bool hal_temp_mC(int32_t *mC);
/* The heater / TEC drive: PWM duty in ‰ (negative: a TEC's cooling);
 * false when the board has none. */
bool hal_pwm_set(int32_t permille);

/* Copies n words to the CPU's BRAM from address 0 and restarts the CPU there
 * (firmware loading); does not return on the board. The caller answered the
 * command and cleared MBX_FW_VERSION first. */
void hal_boot_image(const uint32_t *words, uint32_t n);

/* Monotonic time in ns (the watchdog's clock). */
uint64_t hal_time_ns(void);

#endif
