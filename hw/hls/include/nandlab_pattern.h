// nandlab_pattern.h: the DIN_PAT / DOUT_CMP pattern byte stream (spec.yaml
// `pattern`), for HLS kernels. The constants are those of the generated C
// header firmware/include/nandlab_ops.h, which the build includes, so no value
// is typed here.
#ifndef NANDLAB_PATTERN_H
#define NANDLAB_PATTERN_H

#include <cstdint>

#include "nandlab_ops.h"

namespace nandlab {

// Byte generator of one pattern word + seed; `next()` returns the following byte.
class PatternGen {
  public:
    PatternGen(uint32_t pattern, uint32_t seed)
        : kind_((pattern >> NANDLAB_OPS_PATTERN_KIND_LSB) & 0xFFu),
          invert_(((pattern >> NANDLAB_OPS_PATTERN_INVERT_LSB) & 1u) ? 0xFFu : 0x00u),
          param_((pattern >> NANDLAB_OPS_PATTERN_PARAM_LSB) & 0xFFu),
          state_(seed ? seed : NANDLAB_OPS_PRBS_DEFAULT_SEED),
          idx_(4) {}

    uint8_t next() {
#pragma HLS INLINE
        uint8_t raw;
        if (kind_ == NANDLAB_PAT_PRBS) {
            if (idx_ == 4) {
                state_ = step(state_);
                idx_ = 0;
            }
            raw = static_cast<uint8_t>(state_ >> (8u * idx_));
            idx_++;
        } else if (kind_ == NANDLAB_PAT_CHECKER) {
            raw = (param_ & 1u) ? NANDLAB_OPS_CHECKER_BYTE_1 : NANDLAB_OPS_CHECKER_BYTE_0;
        } else {
            raw = static_cast<uint8_t>(param_);
        }
        return static_cast<uint8_t>(raw ^ invert_);
    }

  private:
    static uint32_t step(uint32_t x) {
        x ^= x << NANDLAB_OPS_PRBS_SHIFT_0;
        x ^= x >> NANDLAB_OPS_PRBS_SHIFT_1;
        x ^= x << NANDLAB_OPS_PRBS_SHIFT_2;
        return x;
    }

    uint32_t kind_;
    uint8_t invert_;
    uint32_t param_;
    uint32_t state_;
    uint32_t idx_;
};

inline uint32_t popcount8(uint8_t v) {
#pragma HLS INLINE
    uint32_t n = 0;
    for (int i = 0; i < 8; i++) {
#pragma HLS UNROLL
        n += (v >> i) & 1u;
    }
    return n;
}

}  // namespace nandlab

#endif  // NANDLAB_PATTERN_H
