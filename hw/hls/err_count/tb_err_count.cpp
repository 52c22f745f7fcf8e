// C-simulation testbench of err_count. Reads test cases from stdin, one per
// line: "n pattern seed chunk <2n hex digits of the bytes read>", and prints
// per case one line "c0to1,c1to0 c0to1,c1to0 ..." for the pytest to compare
// with the Python reference (nandlab.transport.sim.error_counts).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "err_count.h"

int main() {
    unsigned long n, pattern, seed, chunk;
    while (std::scanf("%lu %lx %lx %lu", &n, &pattern, &seed, &chunk) == 4) {
        hls::stream<uint8_t> rd;
        hls::stream<uint32_t> counts;
        for (unsigned long i = 0; i < n; i++) {
            unsigned byte;
            if (std::scanf("%2x", &byte) != 1) {
                std::fprintf(stderr, "tb_err_count: short data line\n");
                return 2;
            }
            rd.write(static_cast<uint8_t>(byte));
        }
        err_count(rd, static_cast<uint32_t>(n), static_cast<uint32_t>(pattern),
                  static_cast<uint32_t>(seed), static_cast<uint32_t>(chunk), counts);
        if (!rd.empty()) {
            std::fprintf(stderr, "tb_err_count: kernel left %zu bytes unread\n", rd.size());
            return 1;
        }
        std::string line;
        while (!counts.empty()) {
            const uint32_t rise = counts.read();
            const uint32_t fall = counts.read();
            line += std::to_string(rise) + "," + std::to_string(fall) + " ";
        }
        std::printf("%s\n", line.c_str());
    }
    return 0;
}
