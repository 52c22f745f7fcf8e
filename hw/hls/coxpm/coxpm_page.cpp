// coxpm_page: the controller side of the coxpm kernel for one page, as a C function.
//
// What the FPGA does with a page read from an ordinary chip (the paper's OpenSSD
// emulation of CoX-PM): the page (data area, then spare) lands in a buffer, each
// 1 KiB sub-page and its 128 parity bytes from the spare go through the kernel in
// turn, the matcher's window carried from one sub-page to the next. Built natively
// as a shared library (host/nandlab/transport/fpga_coxpm.py loads it with ctypes),
// so rtl:// runs the same source that C simulation checks and synthesis would take.
#include <cstdint>

#include "coxpm.h"

extern "C" {

// page: page_bytes of data then the spare (parity of sub-page i at page_bytes + 128 i);
// key: the page's page_bytes randomisation bytes; patterns: 8 x 32 bytes, row p the
// bytes of pattern p (pattern_len[p] of them). Writes the decoded, de-randomised
// data area to `plain` (page_bytes), the passes of sub-page i to passes[i] and the
// pattern bitmap of the page (0 on a decoding failure) to *match. Returns the page's
// outcome: DECODING_FAILURE when any sub-page fails, else MATCHED when any pattern
// occurs in the data area, else NOT_MATCHED; 99 when page_bytes is no whole number
// of sub-pages.
uint32_t coxpm_page(const uint8_t *page, uint32_t page_bytes, const uint8_t *key,
                    const uint8_t *patterns, const uint8_t *pattern_len, uint32_t n_patterns,
                    uint32_t max_passes, uint8_t *plain, uint32_t *passes, uint32_t *match) {
    if (page_bytes == 0 || page_bytes % COXPM_PAYLOAD_BYTES) {
        return 99;
    }
    uint8_t pats[COXPM_MAX_PATTERNS][COXPM_MAX_PATTERN_BYTES];
    uint8_t lens[COXPM_MAX_PATTERNS];
    for (int p = 0; p < COXPM_MAX_PATTERNS; p++) {
        lens[p] = pattern_len[p];
        for (int q = 0; q < COXPM_MAX_PATTERN_BYTES; q++) {
            pats[p][q] = patterns[p * COXPM_MAX_PATTERN_BYTES + q];
        }
    }
    uint8_t window[COXPM_MAX_PATTERN_BYTES] = {};
    uint32_t seen = 0;
    uint32_t found = 0;
    bool failed = false;
    const uint32_t subpages = page_bytes / COXPM_PAYLOAD_BYTES;
    for (uint32_t s = 0; s < subpages; s++) {
        hls::stream<uint8_t> rd, k, data;
        const uint32_t at = s * COXPM_PAYLOAD_BYTES;
        for (int b = 0; b < COXPM_PAYLOAD_BYTES; b++) {
            rd.write(page[at + b]);
            k.write(key[at + b]);
        }
        for (int b = 0; b < COXPM_PARITY_BYTES; b++) {
            rd.write(page[page_bytes + s * COXPM_PARITY_BYTES + b]);
        }
        uint32_t outcome = 0, bits = 0;
        coxpm(rd, k, pats, lens, n_patterns, max_passes, window, seen, data, outcome, bits,
              passes[s]);
        for (int b = 0; b < COXPM_PAYLOAD_BYTES; b++) {
            plain[at + b] = data.read();
        }
        failed = failed || outcome == COXPM_DECODING_FAILURE;
        found |= bits;
    }
    *match = failed ? 0 : found;
    if (failed) {
        return COXPM_DECODING_FAILURE;
    }
    return found ? COXPM_MATCHED : COXPM_NOT_MATCHED;
}

}  // extern "C"
