// err_count: DOUT_CMP's per-chunk bit error counter (see err_count.h).
//
// One byte per clock (II=1): the pattern generator and the two popcounts are
// combinational; the counters close a chunk by writing both words and
// restarting from zero, so the loop never stalls between chunks.
#include "err_count.h"

#include "nandlab_pattern.h"

void err_count(hls::stream<uint8_t> &rd, uint32_t n, uint32_t pattern, uint32_t seed,
               uint32_t chunk, hls::stream<uint32_t> &counts) {
#pragma HLS INTERFACE mode = axis port = rd
#pragma HLS INTERFACE mode = axis port = counts
#pragma HLS INTERFACE mode = s_axilite port = n
#pragma HLS INTERFACE mode = s_axilite port = pattern
#pragma HLS INTERFACE mode = s_axilite port = seed
#pragma HLS INTERFACE mode = s_axilite port = chunk
#pragma HLS INTERFACE mode = s_axilite port = return
    nandlab::PatternGen gen(pattern, seed);
    uint32_t rise = 0, fall = 0, in_chunk = 0;
bytes:
    for (uint32_t i = 0; i < n; i++) {
#pragma HLS PIPELINE II = 1
#pragma HLS LOOP_TRIPCOUNT min = 1 max = 18432
        const uint8_t got = rd.read();
        const uint8_t want = gen.next();
        rise += nandlab::popcount8(static_cast<uint8_t>(got & ~want));
        fall += nandlab::popcount8(static_cast<uint8_t>(~got & want));
        in_chunk++;
        if (in_chunk == chunk || i == n - 1) {
            counts.write(rise);
            counts.write(fall);
            rise = 0;
            fall = 0;
            in_chunk = 0;
        }
    }
}
