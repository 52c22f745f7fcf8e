// vth_hist: per-state "reads below" counts of a read-offset sweep (see vth_hist.h).
//
// Per step the page streams in one byte per clock; each byte updates eight
// per-state counters (one per bit, states partitioned into registers so the
// eight increments of a byte land in one cycle), which are added to hist at
// the end of the step. `state` sits in a BRAM read 8 cells per clock.
#include "vth_hist.h"

void vth_hist(hls::stream<uint8_t> &pages, const uint8_t state[VTH_MAX_CELLS], uint32_t cells,
              uint32_t steps, uint32_t below_bit, uint32_t hist[VTH_MAX_STATES][VTH_MAX_STEPS]) {
#pragma HLS INTERFACE mode = axis port = pages
#pragma HLS INTERFACE mode = m_axi port = state offset = slave bundle = gmem0 depth = 147456
#pragma HLS INTERFACE mode = m_axi port = hist offset = slave bundle = gmem1 depth = 2048
#pragma HLS INTERFACE mode = s_axilite port = cells
#pragma HLS INTERFACE mode = s_axilite port = steps
#pragma HLS INTERFACE mode = s_axilite port = below_bit
#pragma HLS INTERFACE mode = s_axilite port = return
#pragma HLS ARRAY_RESHAPE variable = state type = cyclic factor = 8
    const uint8_t below = below_bit ? 0x00 : 0xFF;  // XOR that turns "below" into bit 1
steps:
    for (uint32_t s = 0; s < steps; s++) {
#pragma HLS LOOP_TRIPCOUNT min = 1 max = 256
        uint32_t count[VTH_MAX_STATES];
#pragma HLS ARRAY_PARTITION variable = count type = complete
        for (int t = 0; t < VTH_MAX_STATES; t++) {
#pragma HLS UNROLL
            count[t] = 0;
        }
    bytes:
        for (uint32_t b = 0; b < cells / 8; b++) {
#pragma HLS PIPELINE II = 1
#pragma HLS LOOP_TRIPCOUNT min = 1 max = 18432
            const uint8_t bits = static_cast<uint8_t>(pages.read() ^ below);
            for (int k = 0; k < 8; k++) {
#pragma HLS UNROLL
                const uint8_t t = state[8 * b + k];
                if (t < VTH_MAX_STATES && ((bits >> k) & 1u)) {
                    count[t]++;
                }
            }
        }
        for (int t = 0; t < VTH_MAX_STATES; t++) {
#pragma HLS PIPELINE II = 1
            hist[t][s] += count[t];
        }
    }
}
