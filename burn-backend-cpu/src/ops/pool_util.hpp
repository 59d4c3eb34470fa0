// Private helpers of the cpu pool and resample kernels: NC<spatial> inputs seen as planes of
// (D, H, W) with unit leading dims for 1-D and 2-D, and per-thread scratch rows.
#pragma once

#include <algorithm>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include "cpu_tensor.hpp"

namespace burn::cpu::pool_detail {

// Spatial extents padded to three dims (D, H, W); planes = N * C.
struct Geometry {
  int64_t planes = 1;
  int64_t in[3] = {1, 1, 1};
  int64_t out[3] = {1, 1, 1};
  int64_t in_len() const { return in[0] * in[1] * in[2]; }
  int64_t out_len() const { return out[0] * out[1] * out[2]; }
};

// The geometry of an op from `in` to `out` (its rule's NC<spatial> shape).
inline Geometry geometry(const Shape& in, const Shape& out) {
  Geometry g;
  g.planes = in[0] * in[1];
  const size_t n = in.rank() - 2, lead = 3 - n;
  for (size_t i = 0; i < n; ++i) {
    g.in[lead + i] = in[i + 2];
    g.out[lead + i] = out[i + 2];
  }
  return g;
}

// Per-dim pool parameters padded to three dims (unit kernel on the missing leading dims).
struct Pool3 {
  int64_t k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, pb[3] = {0, 0, 0}, pe[3] = {0, 0, 0}, d[3] = {1, 1, 1};
};

inline Pool3 pool3(const PoolOptions& p) {
  Pool3 q;
  const size_t n = p.kernel.size(), lead = 3 - n;
  for (size_t i = 0; i < n; ++i) {
    q.k[lead + i] = p.kernel[i];
    q.s[lead + i] = p.stride[i];
    q.pb[lead + i] = p.padding[i];
    q.pe[lead + i] = p.padding_end[i];
    q.d[lead + i] = p.dilation[i];
  }
  return q;
}

// A host workspace of n elements: OutOfMemory naming the running op past max_alloc_bytes() or when
// the system refuses it, never std::bad_alloc (a huge kernel makes the padded scratch row huge).
template <typename T>
std::vector<T> workspace(int64_t n, T fill = T()) {
  const size_t bytes = checked_bytes(Shape{n}, sizeof(T), alloc_op());
  try {
    return std::vector<T>(static_cast<size_t>(n), fill);
  } catch (const std::bad_alloc&) {
    throw OutOfMemory(alloc_op(), "the system refused " + std::to_string(bytes) + " bytes of workspace");
  }
}

// The taps [lo, hi) of a window starting at `start` with dilation `d` whose positions lie in [0, n):
// loops over a huge kernel visit only the taps that touch the input.
inline void taps_inside(int64_t start, int64_t d, int64_t k, int64_t n, int64_t& lo, int64_t& hi) {
  lo = start >= 0 ? 0 : (-start - 1) / d + 1;
  hi = start >= n ? 0 : (n - 1 - start) / d + 1;
  lo = std::min(lo, k);
  hi = std::clamp(hi, lo, k);
}

// Output elements times window taps, saturated at INT64_MAX: a work estimate for task grains.
inline int64_t window_work(int64_t outputs, const Pool3& q) {
  int64_t w = std::max<int64_t>(outputs, 1);
  for (int i = 0; i < 3; ++i)
    if (__builtin_mul_overflow(w, q.k[i], &w)) return INT64_MAX;
  return w;
}

// PyTorch's max rule: a NaN wins and stays.
template <typename T>
inline bool takes_max(T v, T m) {
  return v > m || v != v;
}

}  // namespace burn::cpu::pool_detail
