// err_count: DOUT_CMP's per-chunk bit error counter as an HLS kernel.
#ifndef NANDLAB_ERR_COUNT_H
#define NANDLAB_ERR_COUNT_H

#include <cstdint>

#include "nandlab_hls.h"

// Compares `n` bytes read from the chip (`rd`) with the pattern stream of
// `pattern` / `seed` (spec.yaml `pattern`) and writes, per chunk of `chunk`
// bytes (the last one may be short), two words to `counts`: bits expected 0
// and read 1, then bits expected 1 and read 0. n >= 1, chunk >= 1.
void err_count(hls::stream<uint8_t> &rd, uint32_t n, uint32_t pattern, uint32_t seed,
               uint32_t chunk, hls::stream<uint32_t> &counts);

#endif
