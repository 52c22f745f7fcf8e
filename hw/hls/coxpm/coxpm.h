// coxpm: the CoX-PM die's sub-page logic: bit-flipping decode, de-randomise, match.
#ifndef NANDLAB_COXPM_H
#define NANDLAB_COXPM_H

#include <cstdint>

#include "coxpm_base.h"
#include "nandlab_hls.h"

constexpr int COXPM_N = COXPM_NB * COXPM_Z;          // 9216 codeword bits
constexpr int COXPM_M = COXPM_MB * COXPM_Z;          // 1024 parity checks
constexpr int COXPM_PAYLOAD_BYTES = (COXPM_N - COXPM_M) / 8;  // 1024 (onfi_spec.coxpm.SUBPAGE_BYTES)
constexpr int COXPM_PARITY_BYTES = COXPM_M / 8;       // 128
constexpr int COXPM_MAX_PATTERNS = 8;                 // onfi_spec.coxpm.MAX_PATTERNS
constexpr int COXPM_MAX_PATTERN_BYTES = 32;           // onfi_spec.coxpm.MAX_PATTERN_BYTES

// Outcomes, as status bits 4-3 (onfi_spec.coxpm.Outcome).
constexpr uint32_t COXPM_NOT_MATCHED = 0;
constexpr uint32_t COXPM_MATCHED = 1;
constexpr uint32_t COXPM_DECODING_FAILURE = 2;

// One sub-page codeword as sensed: `rd` carries the 1024 payload bytes then the
// 128 parity bytes (codeword bit b = bit 7 - b % 8 of byte b / 8, numpy's
// unpackbits order). `key` carries the sub-page's 1024 randomisation bytes
// (onfi_spec.coxpm.page_stream, the generator stays outside the kernel).
//
// The decoder is nandlab.codes.bitflip_decode with its default drops (keep 0/1/2,
// back 1/2/3) and at most `max_passes` passes (the die uses 17). `data` gets the
// decoder's final payload XOR key (1024 bytes, also on a failure). Pattern p
// (p < n_patterns, 1..32 bytes, `pattern_len[p]`, bytes in `patterns[p]`) sets
// bit p of `match` when it occurs in that data; `outcome` is DECODING_FAILURE
// (match = 0) when the syndrome is not zero after the passes, else MATCHED when
// any bit of `match` is set, else NOT_MATCHED. `passes` gets the passes run (0..max_passes).
//
// The matcher reads a page as one stream (the paper's PM takes the decoder's bytes one
// per cycle), so a pattern may straddle two sub-pages: `window` and `seen` carry its
// state from one sub-page to the next. window[j] is the data byte j places back,
// `seen` the page's bytes matched so far (saturating at 32); give seen = 0 for a
// page's first sub-page. A pattern ending in this sub-page but starting in an earlier
// one sets its bit here.
void coxpm(hls::stream<uint8_t> &rd, hls::stream<uint8_t> &key,
           const uint8_t patterns[COXPM_MAX_PATTERNS][COXPM_MAX_PATTERN_BYTES],
           const uint8_t pattern_len[COXPM_MAX_PATTERNS], uint32_t n_patterns,
           uint32_t max_passes, uint8_t window[COXPM_MAX_PATTERN_BYTES], uint32_t &seen,
           hls::stream<uint8_t> &data, uint32_t &outcome, uint32_t &match, uint32_t &passes);

#endif
