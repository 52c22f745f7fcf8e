// coxpm: bit-flipping decode, de-randomise and multi-pattern match of one
// sub-page codeword (see coxpm.h).
//
// Decoder: column-layered like nandlab.codes.bitflip_decode, so decisions are
// bit for bit the same. The Z bits of a block column share no check, so the
// hardware handles a block column per clock (inner loop UNROLLed, bits and
// syndrome partitioned by circulant position); a pass is COXPM_NB clocks.
// Matcher: a 32-byte shift register of the decoded data and, per byte, all
// 8 x 32 comparisons at once (II=1), the same answer as bytes.find.
#include "coxpm.h"

namespace {

// Check of bit i (0..Z-1) of a block column in block row r with shift s:
// H[r*Z + j][c*Z + (j + s) % Z] = 1, so j = (i - s) mod Z.
inline int check_of(int r, int s, int i) { return r * COXPM_Z + (i - s + COXPM_Z) % COXPM_Z; }

}  // namespace

void coxpm(hls::stream<uint8_t> &rd, hls::stream<uint8_t> &key,
           const uint8_t patterns[COXPM_MAX_PATTERNS][COXPM_MAX_PATTERN_BYTES],
           const uint8_t pattern_len[COXPM_MAX_PATTERNS], uint32_t n_patterns,
           uint32_t max_passes, uint8_t window[COXPM_MAX_PATTERN_BYTES], uint32_t &seen,
           hls::stream<uint8_t> &data, uint32_t &outcome, uint32_t &match, uint32_t &passes) {
#pragma HLS INTERFACE mode = axis port = rd
#pragma HLS INTERFACE mode = axis port = key
#pragma HLS INTERFACE mode = axis port = data
#pragma HLS INTERFACE mode = s_axilite port = patterns
#pragma HLS INTERFACE mode = s_axilite port = pattern_len
#pragma HLS INTERFACE mode = s_axilite port = n_patterns
#pragma HLS INTERFACE mode = s_axilite port = max_passes
#pragma HLS INTERFACE mode = s_axilite port = outcome
#pragma HLS INTERFACE mode = s_axilite port = match
#pragma HLS INTERFACE mode = s_axilite port = window
#pragma HLS INTERFACE mode = s_axilite port = seen
#pragma HLS INTERFACE mode = s_axilite port = passes
#pragma HLS INTERFACE mode = s_axilite port = return
    uint8_t y[COXPM_N];  // bits as read
    uint8_t x[COXPM_N];  // current decision
    uint8_t syn[COXPM_M];
#pragma HLS ARRAY_PARTITION variable = y type = cyclic factor = 128
#pragma HLS ARRAY_PARTITION variable = x type = cyclic factor = 128
    // a block column's bits touch 5 checks each, one per nonzero block row, at
    // rotated positions: registers, so all 640 accesses of a clock can land
#pragma HLS ARRAY_PARTITION variable = syn type = complete

read_bytes:
    for (int b = 0; b < COXPM_N / 8; b++) {
#pragma HLS PIPELINE II = 1
        const uint8_t v = rd.read();
        for (int k = 0; k < 8; k++) {
#pragma HLS UNROLL
            y[8 * b + k] = (v >> (7 - k)) & 1u;
            x[8 * b + k] = y[8 * b + k];
        }
    }

    // Initial syndrome, built block column by block column: every 1 toggles its checks.
clear_syndrome:
    for (int c = 0; c < COXPM_M; c++) {
#pragma HLS UNROLL factor = 128
        syn[c] = 0;
    }
syndrome_columns:
    for (int blk = 0; blk < COXPM_NB; blk++) {
#pragma HLS PIPELINE II = 1
        for (int i = 0; i < COXPM_Z; i++) {
            for (int r = 0; r < COXPM_MB; r++) {
                const int s = COXPM_SHIFT[r][blk];
                if (s >= 0) {
                    syn[check_of(r, s, i)] ^= x[blk * COXPM_Z + i];
                }
            }
        }
    }
    int unsat = 0;
count_unsat:
    for (int c = 0; c < COXPM_M; c++) {
#pragma HLS UNROLL factor = 128
        unsat += syn[c];
    }

    // Flip rule of bitflip_decode: u unsatisfied of dv checks, flip when
    // u >= dv - drop, drop = level while the bit equals the read bit, level + 1
    // once flipped back; level 0..2, +1 after a pass without flips, 0 after one with.
    uint32_t pass = 0;
    int level = 0;
passes:
    while (unsat > 0 && pass < max_passes) {
#pragma HLS LOOP_TRIPCOUNT min = 1 max = 17
        int flips = 0;
    block_columns:
        for (int blk = 0; blk < COXPM_NB; blk++) {
#pragma HLS PIPELINE II = 1
        bits:
            for (int i = 0; i < COXPM_Z; i++) {
#pragma HLS UNROLL
                const int b = blk * COXPM_Z + i;
                int u = 0;
                int dv = 0;
                for (int r = 0; r < COXPM_MB; r++) {
                    const int s = COXPM_SHIFT[r][blk];
                    if (s >= 0) {
                        dv++;
                        u += syn[check_of(r, s, i)];
                    }
                }
                const int drop = x[b] == y[b] ? level : level + 1;
                if (u >= dv - drop) {
                    flips++;
                    x[b] ^= 1u;
                    for (int r = 0; r < COXPM_MB; r++) {
                        const int s = COXPM_SHIFT[r][blk];
                        if (s >= 0) {
                            const int c = check_of(r, s, i);
                            unsat += 1 - 2 * syn[c];
                            syn[c] ^= 1u;
                        }
                    }
                }
            }
        }
        level = flips == 0 ? (level < 2 ? level + 1 : 2) : 0;
        pass++;
    }
    const bool ok = unsat == 0;

    // De-randomise and match, one byte per clock, the window carried over from the
    // page's earlier sub-pages (registers: all 8 x 32 compares read it each clock).
    uint8_t win[COXPM_MAX_PATTERN_BYTES];  // win[j]: the byte j places back
#pragma HLS ARRAY_PARTITION variable = win type = complete
    for (int j = 0; j < COXPM_MAX_PATTERN_BYTES; j++) {
#pragma HLS UNROLL
        win[j] = window[j];
    }
    const uint32_t before = seen < COXPM_MAX_PATTERN_BYTES ? seen : COXPM_MAX_PATTERN_BYTES;
    uint32_t found = 0;
match_bytes:
    for (int b = 0; b < COXPM_PAYLOAD_BYTES; b++) {
#pragma HLS PIPELINE II = 1
        uint8_t v = 0;
        for (int k = 0; k < 8; k++) {
#pragma HLS UNROLL
            v = static_cast<uint8_t>(v | (x[8 * b + k] << (7 - k)));
        }
        v ^= key.read();
        data.write(v);
        for (int j = COXPM_MAX_PATTERN_BYTES - 1; j > 0; j--) {
#pragma HLS UNROLL
            win[j] = win[j - 1];
        }
        win[0] = v;
        for (int p = 0; p < COXPM_MAX_PATTERNS; p++) {
#pragma HLS UNROLL
            // an out-of-range length counts as no pattern (set_pattern refuses those)
            const int len = pattern_len[p] <= COXPM_MAX_PATTERN_BYTES ? pattern_len[p] : 0;
            // a pattern ending at byte b: its byte q is win[len - 1 - q], and the page
            // has had len bytes by then (this sub-page's b + 1 and the `before` carried)
            bool hit = static_cast<uint32_t>(p) < n_patterns && len >= 1 &&
                       before + static_cast<uint32_t>(b) + 1 >= static_cast<uint32_t>(len);
            for (int q = 0; q < COXPM_MAX_PATTERN_BYTES; q++) {
#pragma HLS UNROLL
                if (q < len && patterns[p][q] != win[len - 1 - q]) {
                    hit = false;
                }
            }
            if (hit) {
                found |= 1u << p;
            }
        }
    }
    for (int j = 0; j < COXPM_MAX_PATTERN_BYTES; j++) {
#pragma HLS UNROLL
        window[j] = win[j];
    }
    seen = before + COXPM_PAYLOAD_BYTES < COXPM_MAX_PATTERN_BYTES ? before + COXPM_PAYLOAD_BYTES
                                                                   : COXPM_MAX_PATTERN_BYTES;
    passes = pass;
    match = ok ? found : 0;
    outcome = !ok ? COXPM_DECODING_FAILURE : (found ? COXPM_MATCHED : COXPM_NOT_MATCHED);
}
