/* Bridge sequencer: the firmware's op programs run on a host transport (the
 * Python `nandlab.transport.firmware_native` board hands a callback that runs them on
 * `sim://` or `rtl://`, the virtual die behind it), so the firmware's own loops
 * can be compared, row for row, with host-driven loops on the same seeded die.
 * A program runs once its tlast word arrives; its result stream is queued for
 * hal_seq_rx. Registers and shared RAM are hal_host.c's. */
#include <stddef.h>

#include "fake_seq.h"
#include "hal.h"
#include "nandlab_ops.h"

#define TX_WORDS 4096u
#define RX_WORDS 8192u
/* One empty poll of the result port: lets a watchdog expire. */
#define POLL_NS 1000u

/* Runs `n` program words, writes at most `cap` result words to `out`; returns
 * how many it wrote and the program's elapsed ns in *elapsed_ns. */
typedef uint32_t (*seq_bridge_run)(const uint32_t *prog, uint32_t n, uint32_t *out,
                                   uint32_t cap, uint64_t *elapsed_ns);

static seq_bridge_run run_cb;
static uint32_t tx[TX_WORDS], tx_n;
static uint32_t rx[RX_WORDS], rx_head, rx_tail;
static uint32_t out[RX_WORDS];
static uint64_t now_ns;
static uint32_t soft_resets;

void seq_bridge_attach(seq_bridge_run cb) { run_cb = cb; }
uint32_t seq_bridge_soft_resets(void) { return soft_resets; }

void fake_seq_reset(const struct fake_cfg *cfg)
{
    (void)cfg;
    tx_n = rx_head = rx_tail = 0;
    now_ns = 0;
    soft_resets = 0;
}

void fake_seq_soft_reset(void)
{
    tx_n = 0;
    rx_head = rx_tail = 0;
    soft_resets++;
}

uint64_t hal_time_ns(void) { return now_ns; }
void hal_host_advance_ns(uint64_t ns) { now_ns += ns; }

uint32_t hal_seq_tx_vacancy(void) { return TX_WORDS - tx_n; }

void hal_seq_tx(uint32_t word, bool last)
{
    if (tx_n < TX_WORDS) {
        tx[tx_n++] = word;
    }
    if (!last || run_cb == NULL) {
        return;
    }
    uint64_t elapsed = 0;
    uint32_t room = RX_WORDS - (rx_tail - rx_head);
    uint32_t n = run_cb(tx, tx_n, out, room, &elapsed);
    for (uint32_t i = 0; i < n; i++) {
        rx[rx_tail++ % RX_WORDS] = out[i];
    }
    now_ns += elapsed;
    tx_n = 0;
}

void hal_seq_tx_block(const uint32_t *w, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        hal_seq_tx(w[i], i + 1 == n);
    }
}

uint32_t hal_seq_rx_occupancy(void)
{
    if (rx_tail == rx_head) {
        now_ns += POLL_NS;
    }
    return rx_tail - rx_head;
}

uint32_t hal_seq_rx(void) { return rx[rx_head++ % RX_WORDS]; }
