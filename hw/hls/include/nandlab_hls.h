// nandlab_hls.h: the few Vitis HLS types the kernels use.
//
// Under Vitis HLS (__SYNTHESIS__ defined, or NANDLAB_USE_VITIS_HEADERS for a
// C simulation inside Vitis) this pulls in the real hls_stream.h. Everywhere
// else it provides a minimal hls::stream stand-in (a FIFO with the same
// read / write / empty / size calls), so the C-simulation testbenches build
// with plain g++. The kernels use only <cstdint> types, which Vitis maps to
// the same widths, so they need no ap_int.
#ifndef NANDLAB_HLS_H
#define NANDLAB_HLS_H

#include <cstdint>

#if defined(__SYNTHESIS__) || defined(NANDLAB_USE_VITIS_HEADERS)
#include <hls_stream.h>
#else
#include <cstdio>
#include <cstdlib>
#include <deque>

namespace hls {

template <typename T>
class stream {
  public:
    stream() = default;
    explicit stream(const char *) {}
    stream(const stream &) = delete;
    stream &operator=(const stream &) = delete;

    void write(const T &v) { q_.push_back(v); }
    T read() {
        if (q_.empty()) {
            // a kernel reading more than the testbench wrote: a real design would hang
            std::fprintf(stderr, "hls::stream stand-in: read from an empty stream\n");
            std::abort();
        }
        T v = q_.front();
        q_.pop_front();
        return v;
    }
    bool empty() const { return q_.empty(); }
    std::size_t size() const { return q_.size(); }

  private:
    std::deque<T> q_;
};

}  // namespace hls
#endif

#endif  // NANDLAB_HLS_H
