// Winograd forward of 3x3 stride-1 convs (see conv_winograd.hpp), F(2x2, 3x3) and, on request, F(4x4, 3x3). With
// d an (m + 2)-square input patch and g a 3x3 filter, an m x m output block is A^T [(G g G^T) . (B^T d B)] A; summed
// over input channels, the (m + 2)^2 products of each block are as many GEMMs U_k [Cout x C] x V_k [C x blocks].
// A task takes 24 consecutive output blocks (one AVX2 4 x 24 micro-kernel panel wide; 32 blocks for the AVX-512
// 8 x 32 one where conv_isa() is Avx512) and a panel of output channels: it transforms the blocks' input patches
// into V (in L2), runs the GEMMs into M (in L2) and transforms M into the outputs with the bias and the epilogue,
// so V and M never reach memory. Every function that runs AVX2/FMA code carries the target attribute and has
// internal linkage.
#include "ops/conv_winograd.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "cpu_tensor.hpp"
#include "ops/pack_cache.hpp"
#include "ops/simd_avx2.hpp"

namespace burn::cpu::conv_detail {
namespace {

// Output blocks per task: the micro-kernel's panel width, 24 (AVX2) or 32 (AVX-512).
constexpr int64_t kBlocksAvx2 = 24, kBlocksAvx512 = 32;
// Floats a V row holds past its blocks: room for a run's last 8-block store to overhang (into the next
// run's blocks, written after it, or into columns the GEMM does not read), so no store is masked (masked
// stores are slow on AMD: they were a third of the input transform's time).
constexpr int64_t kVRowSlack = 8;
// Input channels per GEMM pass: V (16 x kCc rows of 32 or 40 floats, 256 or 320 KiB) stays in L2 beside M.
constexpr int64_t kCc = 128;
// Output channels per task at most: M (16 x kCop x 24 or 32 floats, 192 or 256 KiB) stays in L2 beside V.
constexpr int64_t kCop = 128;

// The planes (16 or 36) of V, M and U lie this many floats more than their size apart: planes of a multiple of 4 KiB
// (32 blocks x 128 channels is 16 KiB) would put the streams of the transforms in one L1 set.
constexpr int64_t kPlaneSkew = 16;

// The planes of the transformed weights u (Cout x C filters each) lie this many floats apart.
int64_t winograd_plane_stride(int64_t cout, int64_t c) { return cout * c + kPlaneSkew; }

// The filter transform's three operations on one value or on 8 lanes, the same per lane, so the vector
// and the scalar filters of one conv round alike.
float half_of(float a) { return 0.5f * a; }
float add_of(float a, float b) { return a + b; }
float sub_of(float a, float b) { return a - b; }
BURN_AVX2_FMA [[gnu::always_inline]] inline __m256 half_of(__m256 a) { return _mm256_mul_ps(_mm256_set1_ps(0.5f), a); }
BURN_AVX2_FMA [[gnu::always_inline]] inline __m256 add_of(__m256 a, __m256 b) { return _mm256_add_ps(a, b); }
BURN_AVX2_FMA [[gnu::always_inline]] inline __m256 sub_of(__m256 a, __m256 b) { return _mm256_sub_ps(a, b); }

// out[4 i + j] = (G g G^T)_ij of the filters g given as 9 taps each (floats or lanes).
template <typename T>
BURN_AVX2_FMA [[gnu::always_inline]] inline void filter_transform(const T (&f)[9], T (&out)[16]) {
  T gg[4][3];  // G g: rows 0 and 3 are the filter's first and last rows
  for (int j = 0; j < 3; ++j) {
    gg[0][j] = f[j];
    gg[1][j] = half_of(add_of(add_of(f[j], f[3 + j]), f[6 + j]));
    gg[2][j] = half_of(add_of(sub_of(f[j], f[3 + j]), f[6 + j]));
    gg[3][j] = f[6 + j];
  }
  for (int i = 0; i < 4; ++i) {
    out[i * 4 + 0] = gg[i][0];
    out[i * 4 + 1] = half_of(add_of(add_of(gg[i][0], gg[i][1]), gg[i][2]));
    out[i * 4 + 2] = half_of(add_of(sub_of(gg[i][0], gg[i][1]), gg[i][2]));
    out[i * 4 + 3] = gg[i][2];
  }
}

// The filters (co, ci) for ci in [0, c) of one output channel co into u [16][Cout][C], 8 input channels a
// vector (their 9 taps gathered from w's 9-float rows), the rest one by one.
BURN_AVX2_FMA void transform_filters(const float* w, float* u, int64_t cout, int64_t c, int64_t co) {
  const float* wc = w + co * c * 9;
  float* uc = u + co * c;
  const int64_t kstride = winograd_plane_stride(cout, c);
  int64_t ci = 0;
  const __m256i nine = _mm256_setr_epi32(0, 9, 18, 27, 36, 45, 54, 63);
  for (; ci + 8 <= c; ci += 8) {
    __m256 f[9], out[16];
    for (int t = 0; t < 9; ++t) f[t] = _mm256_i32gather_ps(wc + ci * 9 + t, nine, 4);
    filter_transform(f, out);
    for (int k = 0; k < 16; ++k) _mm256_storeu_ps(uc + k * kstride + ci, out[k]);
  }
  for (; ci < c; ++ci) {
    float f[9], out[16];
    std::memcpy(f, wc + ci * 9, sizeof f);
    filter_transform(f, out);
    for (int k = 0; k < 16; ++k) uc[k * kstride + ci] = out[k];
  }
}

// Lanes 0, 2, 4.. of the 16 floats a, b (even) or lanes 1, 3, 5.. (odd), in order.
BURN_AVX2_FMA [[gnu::always_inline]] inline __m256 even_lanes(__m256 a, __m256 b) {
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0))),
                                                _MM_SHUFFLE(3, 1, 2, 0)));
}
BURN_AVX2_FMA [[gnu::always_inline]] inline __m256 odd_lanes(__m256 a, __m256 b) {
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1))),
                                                _MM_SHUFFLE(3, 1, 2, 0)));
}

// Floats [col, col + 8) of a row of w floats, zero outside it.
BURN_AVX2_FMA [[gnu::always_inline]] inline __m256 row_cols(const float* row, int64_t col, int64_t w) {
  if (col >= 0 && col + 8 <= w) return _mm256_loadu_ps(row + col);
  if (col + 8 <= 0 || col >= w) return _mm256_setzero_ps();
  const __m256i c =
      _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(col)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  const __m256i in = _mm256_andnot_si256(_mm256_cmpgt_epi32(_mm256_setzero_si256(), c),
                                         _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(w)), c));
  return _mm256_maskload_ps(row + col, in);  // the lanes outside the row are not read
}

// One input channel's share of V for a run of `len` output blocks side by side in one block row: the
// patch of block u starts at input row iy0 and column ix0 + 2u (zero outside the plane);
// v[k * kstride + u] = (B^T d B)_k. Stores whole vectors: up to 7 floats past the run in each V row.
BURN_AVX2_FMA void input_transform(const float* plane, int64_t h, int64_t w, int64_t iy0, int64_t ix0, int64_t len,
                                   float* v, int64_t kstride) {
  const float* row[4];
  for (int i = 0; i < 4; ++i) row[i] = iy0 + i >= 0 && iy0 + i < h ? plane + (iy0 + i) * w : nullptr;
  const bool rows_inside = row[0] && row[3];
  for (int64_t u = 0; u < len; u += 8) {
    __m256 t[4][4];  // d B: per patch row, its 4 columns transformed
    const int64_t col = ix0 + 2 * u;
    const bool inside = rows_inside && col >= 0 && col + 18 <= w;  // the common case: plain loads only
    for (int i = 0; i < 4; ++i) {
      __m256 a, b, c, d;
      if (inside) {
        a = _mm256_loadu_ps(row[i] + col), b = _mm256_loadu_ps(row[i] + col + 8);
        c = _mm256_loadu_ps(row[i] + col + 2), d = _mm256_loadu_ps(row[i] + col + 10);
      } else if (row[i]) {
        a = row_cols(row[i], col, w), b = row_cols(row[i], col + 8, w);
        c = row_cols(row[i], col + 2, w), d = row_cols(row[i], col + 10, w);
      } else {
        a = b = c = d = _mm256_setzero_ps();
      }
      const __m256 d0 = even_lanes(a, b), d1 = odd_lanes(a, b), d2 = even_lanes(c, d), d3 = odd_lanes(c, d);
      t[i][0] = _mm256_sub_ps(d0, d2);
      t[i][1] = _mm256_add_ps(d1, d2);
      t[i][2] = _mm256_sub_ps(d2, d1);
      t[i][3] = _mm256_sub_ps(d1, d3);
    }
    for (int j = 0; j < 4; ++j) {
      const __m256 col4[4] = {_mm256_sub_ps(t[0][j], t[2][j]), _mm256_add_ps(t[1][j], t[2][j]),
                              _mm256_sub_ps(t[2][j], t[1][j]), _mm256_sub_ps(t[1][j], t[3][j])};
      for (int i = 0; i < 4; ++i) _mm256_storeu_ps(v + (i * 4 + j) * kstride + u, col4[i]);
    }
  }
}

// A^T M A for a run of `len` blocks of one output channel: m[k * kstride + u] holds block u's 16 sums;
// out0 and out1 (2 * len rounded up to 16 floats each) receive the blocks' two output rows. Reads up to
// 7 floats past the run in each M row.
BURN_AVX2_FMA void output_transform(const float* m, int64_t kstride, int64_t len, float* out0, float* out1) {
  for (int64_t u = 0; u < len; u += 8) {
    __m256 s[2][4];  // A^T M: its two rows, per column of M
    for (int j = 0; j < 4; ++j) {
      const __m256 m0 = _mm256_loadu_ps(m + j * kstride + u), m1 = _mm256_loadu_ps(m + (4 + j) * kstride + u);
      const __m256 m2 = _mm256_loadu_ps(m + (8 + j) * kstride + u), m3 = _mm256_loadu_ps(m + (12 + j) * kstride + u);
      s[0][j] = _mm256_add_ps(_mm256_add_ps(m0, m1), m2);
      s[1][j] = _mm256_sub_ps(_mm256_sub_ps(m1, m2), m3);
    }
    for (int r = 0; r < 2; ++r) {
      const __m256 left = _mm256_add_ps(_mm256_add_ps(s[r][0], s[r][1]), s[r][2]);
      const __m256 right = _mm256_sub_ps(_mm256_sub_ps(s[r][1], s[r][2]), s[r][3]);
      const __m256 lo = _mm256_unpacklo_ps(left, right), hi = _mm256_unpackhi_ps(left, right);
      float* out = (r == 0 ? out0 : out1) + 2 * u;
      _mm256_storeu_ps(out, _mm256_permute2f128_ps(lo, hi, 0x20));
      _mm256_storeu_ps(out + 8, _mm256_permute2f128_ps(lo, hi, 0x31));
    }
  }
}

// F(4x4, 3x3) (points 0, +-1, +-2 and infinity): a 6x6 patch d gives a 4x4 output block
// A^T [(G g G^T) . (B^T d B)] A with 36 products a channel pair where the direct conv takes 144 (4x fewer; F(2x2, 3x3):
// 2.25x), at the price of transforms with larger coefficients (results about 10x further from the exact sums than
// F(2x2, 3x3)'s, still within f32's error for a few thousand products).

// out[6 i + j] = (G g G^T)_ij of one filter g (9 taps), G = [1/4 0 0; -1/6 -1/6 -1/6; -1/6 1/6 -1/6;
// 1/24 1/12 1/6; 1/24 -1/12 1/6; 0 0 1]. Scalar: cached for inference, and c x Cout filters are few.
void filter_transform43(const float* f, float* out) {
  const auto g6 = [](float a, float b, float c, float* r, int64_t stride) {
    r[0] = a * 0.25f;
    r[stride] = (a + b + c) * (-1.0f / 6.0f);
    r[2 * stride] = (a - b + c) * (-1.0f / 6.0f);
    r[3 * stride] = a * (1.0f / 24.0f) + b * (1.0f / 12.0f) + c * (1.0f / 6.0f);
    r[4 * stride] = a * (1.0f / 24.0f) - b * (1.0f / 12.0f) + c * (1.0f / 6.0f);
    r[5 * stride] = c;
  };
  float gg[6][3];  // G g
  for (int j = 0; j < 3; ++j) g6(f[j], f[3 + j], f[6 + j], &gg[0][j], 3);
  for (int i = 0; i < 6; ++i) g6(gg[i][0], gg[i][1], gg[i][2], out + 6 * i, 1);
}

// The filters (co, ci) for ci in [0, c) of one output channel co into u [36][Cout][C] (planes kstride apart).
void transform_filters43(const float* w, float* u, int64_t cout, int64_t c, int64_t co) {
  const int64_t kstride = winograd_plane_stride(cout, c);
  for (int64_t ci = 0; ci < c; ++ci) {
    float out[36];
    filter_transform43(w + (co * c + ci) * 9, out);
    for (int k = 0; k < 36; ++k) u[k * kstride + co * c + ci] = out[k];
  }
}

// B^T d for 6 values d0..d5 (lanes of 8 blocks): B^T = [4 0 -5 0 1 0; 0 -4 -4 1 1 0; 0 4 -4 -1 1 0;
// 0 -2 -1 2 1 0; 0 2 -1 -2 1 0; 0 4 0 -5 0 1].
BURN_AVX2_FMA [[gnu::always_inline]] inline void input_1d43(const __m256 (&d)[6], __m256 (&w)[6]) {
  const __m256 four = _mm256_set1_ps(4.0f), five = _mm256_set1_ps(5.0f), two = _mm256_set1_ps(2.0f);
  w[0] = _mm256_fmadd_ps(four, d[0], _mm256_fnmadd_ps(five, d[2], d[4]));
  const __m256 t1 = _mm256_fnmadd_ps(four, d[2], d[4]), t2 = _mm256_fnmadd_ps(four, d[1], d[3]);
  w[1] = _mm256_add_ps(t1, t2);
  w[2] = _mm256_sub_ps(t1, t2);
  const __m256 t3 = _mm256_sub_ps(d[4], d[2]), t4 = _mm256_mul_ps(two, _mm256_sub_ps(d[3], d[1]));
  w[3] = _mm256_add_ps(t3, t4);
  w[4] = _mm256_sub_ps(t3, t4);
  w[5] = _mm256_fmadd_ps(four, d[1], _mm256_fnmadd_ps(five, d[3], d[5]));
}

// c[j] = p[4 u + j] for the 8 blocks u = 0..7 and j = 0..3 (reads p[0, 32)): a 4x4 transpose per 128-bit lane.
BURN_AVX2_FMA [[gnu::always_inline]] inline void every_fourth(const float* p, __m256 (&c)[4]) {
  const __m256 a0 = _mm256_loadu_ps(p), a1 = _mm256_loadu_ps(p + 8), a2 = _mm256_loadu_ps(p + 16),
               a3 = _mm256_loadu_ps(p + 24);
  const __m256 b0 = _mm256_permute2f128_ps(a0, a2, 0x20), b1 = _mm256_permute2f128_ps(a0, a2, 0x31);
  const __m256 b2 = _mm256_permute2f128_ps(a1, a3, 0x20), b3 = _mm256_permute2f128_ps(a1, a3, 0x31);
  const __m256 t0 = _mm256_unpacklo_ps(b0, b1), t1 = _mm256_unpackhi_ps(b0, b1);
  const __m256 t2 = _mm256_unpacklo_ps(b2, b3), t3 = _mm256_unpackhi_ps(b2, b3);
  c[0] = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
  c[1] = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
  c[2] = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
  c[3] = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
}

// One input channel's share of V for a run of `len` 4x4 output blocks side by side in one block row: the 6x6
// patch of block u starts at input row iy0 and column ix0 + 4u (zero outside the plane); v[k * kstride + u] =
// (B^T d B)_k. Stores whole vectors: up to 7 floats past the run in each V row.
BURN_AVX2_FMA void input_transform43(const float* plane, int64_t h, int64_t w, int64_t iy0, int64_t ix0, int64_t len,
                                     float* v, int64_t kstride) {
  const float* row[6];
  bool rows_inside = true;
  for (int i = 0; i < 6; ++i) {
    row[i] = iy0 + i >= 0 && iy0 + i < h ? plane + (iy0 + i) * w : nullptr;
    rows_inside = rows_inside && row[i];
  }
  alignas(32) float edge[6][40];  // a patch row of 8 blocks (36 floats + 4 read past them), zero outside the plane
  for (int64_t u = 0; u < len; u += 8) {
    const int64_t col = ix0 + 4 * u;
    const bool inside = rows_inside && col >= 0 && col + 36 <= w;
    __m256 t[6][6];  // per patch row i: (d B)_ij, j = 0..5
    for (int i = 0; i < 6; ++i) {
      // The next channel's plane follows this one: its rows are fetched while this channel's are transformed
      // (a plane apart, too far for the hardware prefetcher).
      if (row[i]) {
        const float* next = row[i] + h * w + std::max<int64_t>(col, 0);
        _mm_prefetch(reinterpret_cast<const char*>(next), _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char*>(next + 16), _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char*>(next + 32), _MM_HINT_T0);
      }
      const float* src = inside ? row[i] + col : edge[i];
      if (!inside) {
        // The part inside the plane copied, zeros around it (the first and last groups of a row at padding 1).
        const int64_t lo = row[i] ? std::clamp<int64_t>(-col, 0, 40) : 40, hi = std::clamp<int64_t>(w - col, lo, 40);
        std::fill(edge[i], edge[i] + lo, 0.0f);
        if (hi > lo) std::memcpy(edge[i] + lo, row[i] + col + lo, static_cast<size_t>(hi - lo) * sizeof(float));
        std::fill(edge[i] + hi, edge[i] + 40, 0.0f);
      }
      __m256 lo[4], hi[4], d[6];
      every_fourth(src, lo);
      every_fourth(src + 4, hi);
      for (int j = 0; j < 4; ++j) d[j] = lo[j];
      d[4] = hi[0], d[5] = hi[1];
      input_1d43(d, t[i]);
    }
    for (int j = 0; j < 6; ++j) {
      const __m256 col6[6] = {t[0][j], t[1][j], t[2][j], t[3][j], t[4][j], t[5][j]};
      __m256 out[6];
      input_1d43(col6, out);
      for (int i = 0; i < 6; ++i) _mm256_storeu_ps(v + (i * 6 + j) * kstride + u, out[i]);
    }
  }
}

// A^T m for 6 values (lanes of 8 blocks): A^T = [1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1].
BURN_AVX2_FMA [[gnu::always_inline]] inline void output_1d43(const __m256 (&m)[6], __m256 (&y)[4]) {
  const __m256 a = _mm256_add_ps(m[1], m[2]), b = _mm256_sub_ps(m[1], m[2]);
  const __m256 c = _mm256_add_ps(m[3], m[4]), d = _mm256_sub_ps(m[3], m[4]);
  y[0] = _mm256_add_ps(_mm256_add_ps(m[0], a), c);
  y[1] = _mm256_fmadd_ps(_mm256_set1_ps(2.0f), d, b);
  y[2] = _mm256_fmadd_ps(_mm256_set1_ps(4.0f), c, a);
  y[3] = _mm256_add_ps(_mm256_fmadd_ps(_mm256_set1_ps(8.0f), d, b), m[5]);
}

// A^T M A for a run of `len` 4x4 blocks of one output channel: m[k * kstride + u] holds block u's 36 sums;
// out[r] (4 len rounded up to 32 floats) receives the blocks' output row r. Reads up to 7 floats past the run.
BURN_AVX2_FMA void output_transform43(const float* m, int64_t kstride, int64_t len, float* const* out) {
  for (int64_t u = 0; u < len; u += 8) {
    __m256 s[4][6];  // A^T M: its four rows, per column of M
    for (int j = 0; j < 6; ++j) {
      __m256 mj[6], yj[4];
      for (int i = 0; i < 6; ++i) mj[i] = _mm256_loadu_ps(m + (i * 6 + j) * kstride + u);
      output_1d43(mj, yj);
      for (int r = 0; r < 4; ++r) s[r][j] = yj[r];
    }
    for (int r = 0; r < 4; ++r) {
      __m256 c[4];
      output_1d43(s[r], c);  // c[q]: column q of output row r, over the 8 blocks
      // Interleave into the 32 floats of 8 blocks x 4 columns: a 4x4 transpose per 128-bit lane.
      const __m256 t0 = _mm256_unpacklo_ps(c[0], c[1]), t1 = _mm256_unpackhi_ps(c[0], c[1]);
      const __m256 t2 = _mm256_unpacklo_ps(c[2], c[3]), t3 = _mm256_unpackhi_ps(c[2], c[3]);
      const __m256 r0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));  // blocks 0 | 4
      const __m256 r1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));  // blocks 1 | 5
      const __m256 r2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));  // blocks 2 | 6
      const __m256 r3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));  // blocks 3 | 7
      float* o = out[r] + 4 * u;
      _mm256_storeu_ps(o, _mm256_permute2f128_ps(r0, r1, 0x20));
      _mm256_storeu_ps(o + 8, _mm256_permute2f128_ps(r2, r3, 0x20));
      _mm256_storeu_ps(o + 16, _mm256_permute2f128_ps(r0, r1, 0x31));
      _mm256_storeu_ps(o + 24, _mm256_permute2f128_ps(r2, r3, 0x31));
    }
  }
}

// y row segment = src + bias (bias 0: the bare sums), then the epilogue.
BURN_AVX2_FMA void store_row(const float* src, const float* bias, float* y, int64_t off, int64_t out_size, int64_t len,
                             const ConvEpilogue& ep) {
  float* dst = y + off;
  if (bias) {
    const __m256 b = _mm256_broadcast_ss(bias);
    int64_t j = 0;
    for (; j + 8 <= len; j += 8) _mm256_storeu_ps(dst + j, _mm256_add_ps(_mm256_loadu_ps(src + j), b));
    for (; j < len; ++j) dst[j] = src[j] + *bias;
  } else {
    std::memcpy(dst, src, static_cast<size_t>(len) * sizeof(float));
  }
  apply_conv_epilogue(y, off, out_size, 1, len, ep);
}

// A run of output blocks side by side in one block row: image n, block row by, blocks bx.. bx + len,
// V/M columns from `col`.
struct Run {
  int64_t n, by, bx, len, col;
};

// One of the two tilings: F(2x2, 3x3) on 4x4 patches or F(4x4, 3x3) on 6x6 ones, with their transforms and
// the channel counts of a GEMM pass (V and M of 16 or 36 planes stay in L2 together).
struct Tiling {
  int64_t out;     // outputs a block side: 2 or 4
  int64_t planes;  // (out + 2)^2 products a block
  int64_t cc, cop;
  int64_t cc_narrow;  // input channels a pass when all output channels fit half of cop (M half the size)
  void (*filters)(const float* w, float* u, int64_t cout, int64_t c, int64_t co);
  void (*input)(const float* plane, int64_t h, int64_t w, int64_t iy0, int64_t ix0, int64_t len, float* v,
                int64_t kstride);
  void (*output)(const float* m, int64_t kstride, int64_t len, float* const* out);
};

void output_transform23(const float* m, int64_t kstride, int64_t len, float* const* out) {
  output_transform(m, kstride, len, out[0], out[1]);
}

constexpr Tiling kF23{2, 16, kCc, kCop, kCc, transform_filters, input_transform, output_transform23};
// 36 planes: M (36 x 128 x 24 or 32 floats, 432 or 576 KiB) beside V of 32 input channels (144 or 180 KiB), or M
// of at most 64 output channels beside V of 64. On Zen 5 (journal 2026-12-02) 128 -> 128 at 28x28 took 0.85x the
// time with 32 x 128 than with 64 x 64 at b1 (V was transformed twice, once per channel panel), 64 -> 64 at 56x56
// b8 1.07x with 32 x 64 than with 64 x 64.
constexpr Tiling kF43{4, 36, 32, 128, 64, transform_filters43, input_transform43, output_transform43};

// u [planes][Cout][C] = the transformed filters of w [Cout, C, 3, 3].
void transform_weights(const Tiling& t, const float* w, float* u, int64_t cout, int64_t c) {
  parallel_for(cout, std::max<int64_t>(1, (1 << 15) / std::max<int64_t>(c * t.planes, 1)), [&](int64_t s, int64_t e) {
    for (int64_t co = s; co < e; ++co) t.filters(w, u, cout, c, co);
  });
}

// The transformed weights of one conv's weight tensor [cout, c, 3, 3] for one tiling, kept for inference.
struct WinogradWeights {
  std::vector<float> u;  // [planes][cout][c], planes winograd_plane_stride apart
  int64_t cout, c;
  size_t bytes() const { return u.size() * sizeof(float); }
};

// Kept from the second call that finds a weight unwritten (inference; a trained weight changes every step); one
// cache per tiling, as the batch size can change which one a weight's conv takes.
PackCache<WinogradWeights>& winograd_weights_cache(const Tiling& t) {
  static PackCache<WinogradWeights> f23(PackWhen::SecondCall, pack_cache_budget());
  static PackCache<WinogradWeights> f43(PackWhen::SecondCall, pack_cache_budget());
  return t.out == 2 ? f23 : f43;
}

// The cached transform of `weight` for a conv of cout x c filters; nullptr when the cache keeps none (yet).
std::shared_ptr<const WinogradWeights> winograd_weights(const Tiling& t, const CpuPtr& weight, int64_t cout,
                                                        int64_t c) {
  const auto make = [&](const CpuPtr& wt) {
    WinogradWeights p{std::vector<float>(static_cast<size_t>(t.planes * winograd_plane_stride(cout, c))), cout, c};
    transform_weights(t, wt->data<float>(), p.u.data(), cout, c);
    return p;
  };
  auto cached = winograd_weights_cache(t).get(weight, make, [](const WinogradWeights& p) { return p.bytes(); });
  // The same view read as filters of another shape (a transposed conv's weight) is not the same transform.
  return cached && cached->cout == cout && cached->c == c ? cached : nullptr;
}

// The tiling of a conv: F(2x2, 3x3), or F(4x4, 3x3) when BURN_CPU_CONV is winograd4. Not the default: on Zen 5
// (2 threads, ResNet-18's layers, two alternated rounds, F(4x4) / F(2x2) time) 128 -> 128 at 28x28 took 0.85x at
// b1 and 0.92-0.97x at b8, 64 -> 64 at 56x56 0.80-0.84x at b8 but 1.10-1.19x at b1 (7 block panels for 2 threads),
// 256 -> 256 at 14x14 1.3-1.7x (every block panel streams U, 4x the weights, from L3); its input transform is a
// third of its time. Chosen for those layers alone it left ResNet-18 and ResNet-50 (b1, b8) unchanged within this
// machine's noise, for more rounding error, so it waits for a cheaper input transform.
const Tiling& tiling_for() {
  const char* env = std::getenv("BURN_CPU_CONV");
  return env && std::strcmp(env, "winograd4") == 0 ? kF43 : kF23;
}

}  // namespace

bool winograd_conv_fits(const Dims& m, const Geo3& g) {
  // Below 64 input channels the 16 GEMMs are too short in K: 16 -> 64 at 28x28 b8 ran 1.2x slower than
  // direct, 32 -> 64 0.9x there but 1.1-1.2x at 14x14 b64 (min of 20 alternated calls, 2 threads).
  if (m.groups != 1 || m.c < 64 || m.cout < 16 || m.n <= 0) return false;
  if (g.in[0] != 1 || g.out[0] != 1 || g.k[0] != 1 || g.k[1] != 3 || g.k[2] != 3) return false;
  if (g.s[1] != 1 || g.s[2] != 1 || g.d[1] != 1 || g.d[2] != 1 || g.p[1] > 2 || g.p[2] > 2) return false;
  if (g.out[1] <= 0 || g.out[2] <= 0) return false;
  if (g.in[2] >= (int64_t{1} << 30) || g.out[2] >= (int64_t{1} << 30)) return false;  // row_cols' lanes are int32
  const char* env = std::getenv("BURN_CPU_CONV");
  if (env && std::strcmp(env, "direct") == 0) return false;
  const int64_t blocks = m.n * ceil_div(g.out[1], 2) * ceil_div(g.out[2], 2);
  // Enough blocks to fill the tasks' panels and, for a transform made per call (training), to pay for it. With
  // the transform cached (inference), ResNet-18's layers on Zen 5 (2 threads, AVX-512, medians of 2 alternated
  // rounds): 256 -> 256 at 14x14 b1 (49 blocks) 0.47 against 0.75-0.80 ms direct, 512 -> 512 at 7x7 b8 (128)
  // 4.5-4.9 against 5.8-6.6 ms, but at b1 (16 blocks, half a 32-block panel) 0.90-1.16 against 0.84-0.85 ms.
  // Made per call, the transform (16/9 of the weights written) takes back about what those gain.
  return blocks >= std::max<int64_t>(m.c >= 256 ? 40 : 160, m.c * m.cout / 2048);
}

void winograd_conv_forward(const float* x, const float* w, const float* bias, float* y, const Dims& m, const Geo3& g,
                           const ConvEpilogue& ep, const CpuPtr& weight) {
  const bool wide = conv_isa() == ConvIsa::Avx512;
  const int64_t kb = wide ? kBlocksAvx512 : kBlocksAvx2, vrow = kb + kVRowSlack;
  const Tiling& t = tiling_for();
  const int64_t h = g.in[1], wd = g.in[2], ho = g.out[1], wo = g.out[2], np = t.planes, bo = t.out;
  const int64_t bh = ceil_div(ho, bo), bwid = ceil_div(wo, bo), per_image = bh * bwid, blocks = m.n * per_image;
  const int64_t cout = m.cout, c = m.c, panels = ceil_div(blocks, kb);
  // Output channels in equal panels of at most t.cop (tasks are (block panel, channel panel)).
  const int64_t splits = ceil_div(cout, t.cop), cop = ceil_div(cout, splits);
  const int64_t cc_step = 2 * cout <= t.cop ? t.cc_narrow : t.cc, cc_max = std::min(c, cc_step);
  const int64_t ustride = winograd_plane_stride(cout, c);
  const std::shared_ptr<const WinogradWeights> cached = weight ? winograd_weights(t, weight, cout, c) : nullptr;
  CpuPtr ut;
  const float* u = cached ? cached->u.data() : nullptr;
  if (!u) {
    // From the buffer cache, not a thread's scratch: the transformed weights are 16/9 or 4 times the weights' size
    // and would otherwise stay allocated after the largest conv a thread ever ran.
    ut = alloc(Shape{np, ustride}, DType::F32);
    transform_weights(t, w, ut->data<float>(), cout, c);
    u = ut->data<float>();
  }
  // A row of output blocks' results: bo rows of bo kb floats, rounded up to whole 8-block stores.
  const int64_t out_row = bo * round_up(kb, 8) + 16;
  const int64_t total = panels * splits;
  TaskClaims claims(total);
  parallel_for(std::min<int64_t>(total, static_cast<int64_t>(num_threads())), 1, [&](int64_t chunk, int64_t) {
    float* v = conv_scratch(5, np * (cc_max * vrow + kPlaneSkew));
    float* mm = conv_scratch(6, np * (cop * kb + kPlaneSkew) + 8);  // + output_transform's overreach
    float* outbuf = conv_scratch(7, bo * out_row);
    float* outs[4];
    for (int64_t r = 0; r < bo; ++r) outs[r] = outbuf + r * out_row;
    Run runs[kBlocksAvx512];
    for (int64_t task; (task = claims.next(chunk > 0)) >= 0;) {
      const int64_t co0 = task % splits * cop, nco = std::min(cop, cout - co0);
      const int64_t b0 = task / splits * kb, nb = std::min(kb, blocks - b0);
      int nrun = 0;
      for (int64_t b = b0; b < b0 + nb;) {
        const int64_t n = b / per_image, r = b % per_image, by = r / bwid, bx = r % bwid;
        const int64_t len = std::min(bwid - bx, b0 + nb - b);
        runs[nrun++] = Run{n, by, bx, len, b - b0};
        b += len;
      }
      const int64_t mstride = nco * kb + kPlaneSkew;
      for (int64_t c0 = 0; c0 < c; c0 += cc_step) {
        const int64_t cc = std::min(cc_step, c - c0), vstride = cc * vrow + kPlaneSkew;
        if (nb < kb) std::fill(v, v + np * vstride, 0.0f);  // the last panel's absent blocks
        for (int i = 0; i < nrun; ++i) {
          const Run& run = runs[i];
          const float* xn = x + (run.n * c + c0) * g.in_size;
          for (int64_t ci = 0; ci < cc; ++ci)
            t.input(xn + ci * g.in_size, h, wd, bo * run.by - g.p[1], bo * run.bx - g.p[2], run.len,
                    v + ci * vrow + run.col, vstride);
        }
        for (int k = 0; k < np; ++k) {
          const float* uk = u + k * ustride + co0 * c + c0;
          if (wide)
            gemm_rows_x32(cc, uk, c, nco, v + k * vstride, vrow, mm + k * mstride, kb, c0 > 0);
          else
            gemm_rows_x24(cc, uk, c, nco, v + k * vstride, vrow, mm + k * mstride, kb, c0 > 0);
        }
      }
      for (int i = 0; i < nrun; ++i) {
        const Run& run = runs[i];
        const int64_t ox = bo * run.bx, oy = bo * run.by, len = std::min(bo * run.len, wo - ox);
        for (int64_t co = 0; co < nco; ++co) {
          t.output(mm + co * kb + run.col, mstride, run.len, outs);
          const int64_t plane = (run.n * cout + co0 + co) * g.out_size;
          const float* b = bias ? bias + co0 + co : nullptr;
          for (int64_t r = 0; r < bo && oy + r < ho; ++r)
            store_row(outs[r], b, y, plane + (oy + r) * wo + ox, g.out_size, len, ep);
        }
      }
    }
  });
}

uint64_t winograd_weight_transforms() {
  return winograd_weights_cache(kF23).packs() + winograd_weights_cache(kF43).packs();
}

}  // namespace burn::cpu::conv_detail
