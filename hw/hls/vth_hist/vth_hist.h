// vth_hist: per-state "reads below" counts of a read-offset (Vth) sweep.
#ifndef NANDLAB_VTH_HIST_H
#define NANDLAB_VTH_HIST_H

#include <cstdint>

#include "nandlab_hls.h"

constexpr int VTH_MAX_STATES = 8;     // TLC
constexpr int VTH_MAX_STEPS = 256;    // one per DAC code of a reference's window
constexpr int VTH_MAX_CELLS = 147456; // 18 KiB page x 8 bits
constexpr uint8_t VTH_SKIP = 0xFF;    // a cell's state byte: leave the cell out

// For offset step s = 0..steps-1, `pages` carries the page read at that step,
// cells / 8 bytes (cell j = bit j % 8 of byte j / 8). `state[j]` is the state
// cell j was programmed to (0..VTH_MAX_STATES-1, or VTH_SKIP). A cell reads
// "below" the reference when its bit equals `below_bit`. The kernel adds, for
// every step s, the cells of state t that read below into hist[t][s]
// (accumulating: the caller zeroes hist before the first sweep).
// cells % 8 == 0, 1 <= steps <= VTH_MAX_STEPS.
void vth_hist(hls::stream<uint8_t> &pages, const uint8_t state[VTH_MAX_CELLS], uint32_t cells,
              uint32_t steps, uint32_t below_bit, uint32_t hist[VTH_MAX_STATES][VTH_MAX_STEPS]);

#endif
