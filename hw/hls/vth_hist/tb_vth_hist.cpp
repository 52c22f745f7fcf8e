// C-simulation testbench of vth_hist. Reads one sweep from stdin:
//   "cells steps below_bit", then cells state values (decimal, 255 = skip),
//   then steps lines of cells/4 hex digits (the page read at each step);
// runs the kernel twice on the same data (hist accumulates) and prints the
// first run's hist as one line per state "c_0 c_1 ... c_{steps-1}", then a
// line "accumulates ok" if the second run doubled every count.
#include <cstdio>
#include <vector>

#include "vth_hist.h"

static uint32_t hist[VTH_MAX_STATES][VTH_MAX_STEPS];
static uint8_t state[VTH_MAX_CELLS];

int main() {
    unsigned cells, steps, below_bit;
    if (std::scanf("%u %u %u", &cells, &steps, &below_bit) != 3 || cells % 8 ||
        cells > VTH_MAX_CELLS || steps < 1 || steps > VTH_MAX_STEPS) {
        std::fprintf(stderr, "tb_vth_hist: bad header\n");
        return 2;
    }
    for (unsigned j = 0; j < cells; j++) {
        unsigned v;
        if (std::scanf("%u", &v) != 1) return 2;
        state[j] = static_cast<uint8_t>(v);
    }
    std::vector<uint8_t> data(cells / 8 * steps);
    for (auto &byte : data) {
        unsigned v;
        if (std::scanf("%2x", &v) != 1) return 2;
        byte = static_cast<uint8_t>(v);
    }
    uint32_t first[VTH_MAX_STATES][VTH_MAX_STEPS];
    for (int run = 0; run < 2; run++) {
        hls::stream<uint8_t> pages;
        for (uint8_t byte : data) pages.write(byte);
        vth_hist(pages, state, cells, steps, below_bit, hist);
        if (!pages.empty()) {
            std::fprintf(stderr, "tb_vth_hist: %zu bytes left unread\n", pages.size());
            return 1;
        }
        if (run == 0) {
            for (int t = 0; t < VTH_MAX_STATES; t++)
                for (unsigned s = 0; s < steps; s++) first[t][s] = hist[t][s];
        }
    }
    bool doubled = true;
    for (int t = 0; t < VTH_MAX_STATES; t++) {
        for (unsigned s = 0; s < steps; s++) {
            std::printf("%u%c", first[t][s], s + 1 == steps ? '\n' : ' ');
            doubled = doubled && hist[t][s] == 2 * first[t][s];
        }
    }
    if (doubled) std::printf("accumulates ok\n");
    return 0;
}
