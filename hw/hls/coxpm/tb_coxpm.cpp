// C-simulation testbench of coxpm: sub-page codewords from stdin, results to stdout.
//
// Input: a line "n_patterns max_passes", n_patterns lines with a pattern in
// hex, then one line per frame: the codeword as read (1152 bytes: payload then
// parity) in hex, a space, the sub-page's 1024 randomisation bytes in hex.
// Output, one line per frame: "outcome match passes data" (match in decimal, data =
// the 1024 bytes the kernel streams out, in hex). Each frame is a page of its own.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "coxpm.h"

namespace {

int nibble(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    std::fprintf(stderr, "tb_coxpm: bad hex digit '%c'\n", c);
    std::exit(2);
}

void hex_bytes(const std::string &hex, std::size_t want, uint8_t *out) {
    if (hex.size() != 2 * want) {
        std::fprintf(stderr, "tb_coxpm: %zu hex digits, want %zu\n", hex.size(), 2 * want);
        std::exit(2);
    }
    for (std::size_t i = 0; i < want; i++) {
        out[i] = static_cast<uint8_t>(nibble(hex[2 * i]) << 4 | nibble(hex[2 * i + 1]));
    }
}

}  // namespace

int main() {
    uint32_t n_patterns = 0;
    uint32_t max_passes = 0;
    if (!(std::cin >> n_patterns >> max_passes) || n_patterns > COXPM_MAX_PATTERNS) {
        std::fprintf(stderr, "tb_coxpm: bad header line\n");
        return 2;
    }
    uint8_t patterns[COXPM_MAX_PATTERNS][COXPM_MAX_PATTERN_BYTES] = {};
    uint8_t pattern_len[COXPM_MAX_PATTERNS] = {};
    for (uint32_t p = 0; p < n_patterns; p++) {
        std::string hex;
        std::cin >> hex;
        if (hex.size() % 2 || hex.size() / 2 > COXPM_MAX_PATTERN_BYTES) {
            std::fprintf(stderr, "tb_coxpm: pattern %u is not 1..32 hex bytes\n", p);
            return 2;
        }
        pattern_len[p] = static_cast<uint8_t>(hex.size() / 2);
        hex_bytes(hex, pattern_len[p], patterns[p]);
    }
    std::string word_hex, key_hex;
    static uint8_t word[COXPM_N / 8];
    static uint8_t keys[COXPM_PAYLOAD_BYTES];
    while (std::cin >> word_hex >> key_hex) {
        hex_bytes(word_hex, sizeof word, word);
        hex_bytes(key_hex, sizeof keys, keys);
        hls::stream<uint8_t> rd, key, data;
        for (uint8_t v : word) rd.write(v);
        for (uint8_t v : keys) key.write(v);
        uint32_t outcome = 99, match = 99, passes = 99;
        uint8_t window[COXPM_MAX_PATTERN_BYTES] = {};
        uint32_t seen = 0;  // every frame starts a page
        coxpm(rd, key, patterns, pattern_len, n_patterns, max_passes, window, seen, data,
              outcome, match, passes);
        if (!rd.empty() || !key.empty() || data.size() != COXPM_PAYLOAD_BYTES) {
            std::fprintf(stderr, "tb_coxpm: kernel left %zu / %zu input bytes, wrote %zu\n",
                         rd.size(), key.size(), data.size());
            return 1;
        }
        std::printf("%u %u %u ", outcome, match, passes);
        while (!data.empty()) std::printf("%02x", data.read());
        std::printf("\n");
    }
    return 0;
}
