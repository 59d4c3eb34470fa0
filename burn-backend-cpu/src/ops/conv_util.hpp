// Private helpers of the cpu conv kernels: 1-3-D geometry, im2col/col2im of one channel.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "cpu_tensor.hpp"  // TaskClaims

namespace burn::cpu::conv_detail {

// A convolution's geometry seen from its input side, right-aligned into 3 spatial dims
// (a 1-D conv is [1, 1, W]). `out` is given, not derived: transposed convs fix it from their input.
struct Geo3 {
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, p[3] = {0, 0, 0}, d[3] = {1, 1, 1};
  int64_t in_size = 1, out_size = 1, ksize = 1;
  bool pointwise = false;  // 1x1 kernel, stride 1, no padding: the columns are the input itself

  Geo3(const std::vector<int64_t>& in_, const std::vector<int64_t>& out_, const std::vector<int64_t>& k_,
       const std::vector<int64_t>& s_, const std::vector<int64_t>& p_, const std::vector<int64_t>& d_) {
    const size_t r = in_.size(), off = 3 - r;
    for (size_t i = 0; i < r; ++i) {
      in[off + i] = in_[i], out[off + i] = out_[i], k[off + i] = k_[i];
      s[off + i] = s_[i], p[off + i] = p_[i], d[off + i] = d_[i];
    }
    pointwise = true;
    for (int i = 0; i < 3; ++i) {
      in_size *= in[i], out_size *= out[i], ksize *= k[i];
      pointwise = pointwise && k[i] == 1 && s[i] == 1 && p[i] == 0 && in[i] == out[i];
    }
  }
};

// The sizes of one grouped conv seen as GEMMs: per group, weight [Mo, Kc] x columns [Kc, L].
struct Dims {
  int64_t n, c, cout, groups, cg, mo, kc;
  Dims(int64_t n_, int64_t c_, int64_t cout_, int64_t groups_, const Geo3& g)
      : n(n_), c(c_), cout(cout_), groups(groups_), cg(c_ / groups_), mo(cout_ / groups_), kc(c_ / groups_ * g.ksize) {}
};

// Sizes in blocks and padded to blocks (positive b and m; the sizes are those of tensors that exist).
inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int64_t round_up(int64_t v, int64_t m) { return ceil_div(v, m) * m; }

// Per-thread scratch that keeps its largest size, so repeated convs neither allocate nor fault pages in.
// Slots 0-4: the blocked kernels (conv_blocked_*.cpp); 5-7: the Winograd forward (conv_winograd.cpp).
inline float* conv_scratch(int slot, int64_t n) {
  thread_local std::vector<float> bufs[8];
  std::vector<float>& b = bufs[slot];
  if (static_cast<int64_t>(b.size()) < n) b.resize(static_cast<size_t>(n));
  return b.data();
}

// The output positions [lo, hi) of one row whose input index ix0 + o*s lies in [0, n). Written so
// that a stride or padding near INT64_MAX does not overflow (-ix0 + s - 1 would).
inline void valid_span(int64_t ix0, int64_t s, int64_t n, int64_t out, int64_t& lo, int64_t& hi) {
  lo = ix0 >= 0 ? 0 : (-ix0 - 1) / s + 1;
  hi = ix0 >= n ? 0 : (n - 1 - ix0) / s + 1;
  lo = std::min(lo, out);
  hi = std::clamp(hi, lo, out);
}

// One kernel tap (t = flat (kz, ky, kx)) of one input channel plane [in...] -> one row of L columns.
template <typename T>
void im2col_tap(const T* x, T* row, const Geo3& g, int64_t t) {
  const int64_t kx = t % g.k[2], ky = (t / g.k[2]) % g.k[1], kz = t / (g.k[2] * g.k[1]);
  const int64_t ow = g.out[2];
  const int64_t ix0 = kx * g.d[2] - g.p[2];
  int64_t lo, hi;
  valid_span(ix0, g.s[2], g.in[2], ow, lo, hi);
  for (int64_t oz = 0; oz < g.out[0]; ++oz) {
    const int64_t iz = oz * g.s[0] - g.p[0] + kz * g.d[0];
    for (int64_t oy = 0; oy < g.out[1]; ++oy) {
      const int64_t iy = oy * g.s[1] - g.p[1] + ky * g.d[1];
      T* dst = row + (oz * g.out[1] + oy) * ow;
      if (iz < 0 || iz >= g.in[0] || iy < 0 || iy >= g.in[1]) {
        std::fill(dst, dst + ow, T(0));
        continue;
      }
      // Indexed from the row start: ix0 alone may lie far outside it (a huge padding).
      const T* src = x + (iz * g.in[1] + iy) * g.in[2];
      std::fill(dst, dst + lo, T(0));
      if (g.s[2] == 1) {
        if (hi > lo) std::memcpy(dst + lo, src + (ix0 + lo), static_cast<size_t>(hi - lo) * sizeof(T));
      } else if (g.s[2] == 2) {
        for (int64_t o = lo; o < hi; ++o) dst[o] = src[ix0 + 2 * o];
      } else {
        const int64_t s = g.s[2];
        for (int64_t o = lo; o < hi; ++o) dst[o] = src[ix0 + o * s];
      }
      std::fill(dst + hi, dst + ow, T(0));
    }
  }
}

// One input channel plane [in...] -> its K rows of L columns.
template <typename T>
void im2col_channel(const T* x, T* col, const Geo3& g) {
  for (int64_t t = 0; t < g.ksize; ++t) im2col_tap(x, col + t * g.out_size, g, t);
}

// K rows of L columns -> one channel plane [in...], summing overlapping taps (x is overwritten).
template <typename T>
void col2im_channel(const T* col, T* x, const Geo3& g) {
  std::fill(x, x + g.in_size, T(0));
  const int64_t L = g.out_size, ow = g.out[2];
  for (int64_t kz = 0; kz < g.k[0]; ++kz)
    for (int64_t ky = 0; ky < g.k[1]; ++ky)
      for (int64_t kx = 0; kx < g.k[2]; ++kx) {
        const T* row = col + ((kz * g.k[1] + ky) * g.k[2] + kx) * L;
        const int64_t ix0 = kx * g.d[2] - g.p[2];
        int64_t lo, hi;
        valid_span(ix0, g.s[2], g.in[2], ow, lo, hi);
        if (hi <= lo) continue;
        for (int64_t oz = 0; oz < g.out[0]; ++oz) {
          const int64_t iz = oz * g.s[0] - g.p[0] + kz * g.d[0];
          if (iz < 0 || iz >= g.in[0]) continue;
          for (int64_t oy = 0; oy < g.out[1]; ++oy) {
            const int64_t iy = oy * g.s[1] - g.p[1] + ky * g.d[1];
            if (iy < 0 || iy >= g.in[1]) continue;
            const T* src = row + (oz * g.out[1] + oy) * ow;
            T* dst = x + (iz * g.in[1] + iy) * g.in[2];  // the row start, as in im2col_tap
            if (g.s[2] == 1) {
              for (int64_t o = lo; o < hi; ++o) dst[ix0 + o] += src[o];
            } else {
              const int64_t s = g.s[2];
              for (int64_t o = lo; o < hi; ++o) dst[ix0 + o * s] += src[o];
            }
          }
        }
      }
}

}  // namespace burn::cpu::conv_detail
