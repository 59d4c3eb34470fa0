// CPU kernels of the pool module ops (max, average and adaptive pooling, and their backward).
// Inputs are NC<spatial> planes seen as (D, H, W). The forward kernels work one output row per task:
// a vertical pass combines the window's input rows into a padded scratch row (contiguous, vectorised)
// and a horizontal pass reduces each output's taps from it. Options arrive normalised by the api.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "burn/tensor/detail/sampling_taps.hpp"
#include "burn/tensor/shape_rules.hpp"
#include "convert.hpp"
#include "cpu_backend.hpp"
#include "ops/index_util.hpp"
#include "ops/math_util.hpp"
#include "ops/simd_avx2.hpp"
#include "pool_util.hpp"

namespace burn::cpu {

using namespace pool_detail;

namespace {

constexpr int64_t kRowGrain = 4096;  // output elements per task, roughly

// The input rows (offsets within a plane) a (od, oh) output row's window covers; only the taps
// inside the input are visited, so a kernel far larger than the input costs nothing here.
int64_t window_rows(const Geometry& g, const Pool3& q, int64_t od, int64_t oh, int64_t* rows) {
  int64_t n = 0, d0, d1, h0, h1;
  const int64_t sd = od * q.s[0] - q.pb[0], sh = oh * q.s[1] - q.pb[1];
  taps_inside(sd, q.d[0], q.k[0], g.in[0], d0, d1);
  taps_inside(sh, q.d[1], q.k[1], g.in[1], h0, h1);
  for (int64_t kd = d0; kd < d1; ++kd)
    for (int64_t kh = h0; kh < h1; ++kh) rows[n++] = ((sd + kd * q.d[0]) * g.in[1] + sh + kh * q.d[1]) * g.in[2];
  return n;
}

// Room for window_rows: at most min(k, in) taps per dim lie inside the input.
int64_t max_window_rows(const Geometry& g, const Pool3& q) {
  return std::min(q.k[0], g.in[0]) * std::min(q.k[1], g.in[1]);
}

// Horizontal pass of a max pool: y[o] = max_j t[o * S + j * dil]; fixed (K, S) for the common cases.
template <typename T, int K, int S>
void hmax_fixed(const T* t, T* y, int64_t n) {
  for (int64_t o = 0; o < n; ++o) {
    T m = t[o * S];
    for (int j = 1; j < K; ++j) {
      const T v = t[o * S + j];
      m = takes_max(v, m) ? v : m;
    }
    y[o] = m;
  }
}
template <typename T>
void hmax(const T* t, T* y, int64_t n, int64_t k, int64_t s, int64_t dil) {
  if (dil == 1 && k == 2 && s == 2) return hmax_fixed<T, 2, 2>(t, y, n);
  if (dil == 1 && k == 3 && s == 2) return hmax_fixed<T, 3, 2>(t, y, n);
  if (dil == 1 && k == 3 && s == 1) return hmax_fixed<T, 3, 1>(t, y, n);
  for (int64_t o = 0; o < n; ++o) {
    T m = t[o * s];
    for (int64_t j = 1; j < k; ++j) {
      const T v = t[o * s + j * dil];
      m = takes_max(v, m) ? v : m;
    }
    y[o] = m;
  }
}

template <typename T, int K, int S>
void hsum_fixed(const T* t, T* y, const T* inv, int64_t n, T scale) {
  for (int64_t o = 0; o < n; ++o) {
    T acc = t[o * S];
    for (int j = 1; j < K; ++j) acc += t[o * S + j];
    y[o] = acc * (inv[o] * scale);
  }
}
template <typename T>
void hsum(const T* t, T* y, const T* inv, int64_t n, int64_t k, int64_t s, T scale) {
  if (k == 2 && s == 2) return hsum_fixed<T, 2, 2>(t, y, inv, n, scale);
  if (k == 3 && s == 2) return hsum_fixed<T, 3, 2>(t, y, inv, n, scale);
  if (k == 3 && s == 1) return hsum_fixed<T, 3, 1>(t, y, inv, n, scale);
  for (int64_t o = 0; o < n; ++o) {
    T acc = 0;
    for (int64_t j = 0; j < k; ++j) acc += t[o * s + j];
    y[o] = acc * (inv[o] * scale);
  }
}

// Scratch row length: the padded width, or more when ceil_mode's last window runs past it.
int64_t scratch_len(const Geometry& g, const Pool3& q) {
  return std::max(q.pb[2] + g.in[2] + q.pe[2], (g.out[2] - 1) * q.s[2] + q.d[2] * (q.k[2] - 1) + 1);
}

// max_pool_values' row for f32 on AVX2: the vertical pass 8 floats a step, and for a 3-wide window at
// stride 2 (ResNet's stem pool) the horizontal one too, where GCC leaves the strided taps scalar (the
// stem pool took 2.8x ONNX Runtime's time). maxps(v, m) is `v > m ? v : m`, takes_max's select but for
// NaN, so the vertical pass notes whether a NaN went by and the row is redone by the scalar kernel if
// so: the bits are always the scalar kernel's.
BURN_AVX2_FMA bool max_rows_into_avx2(const float* plane, const int64_t* wr, int64_t nr, int64_t W, float* t) {
  __m256 nan = _mm256_setzero_ps();
  int64_t w = 0;
  for (; w + 8 <= W; w += 8) {
    __m256 m = _mm256_loadu_ps(plane + wr[0] + w);
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(m, m, _CMP_UNORD_Q));
    for (int64_t i = 1; i < nr; ++i) {
      const __m256 v = _mm256_loadu_ps(plane + wr[i] + w);
      nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
      m = _mm256_max_ps(v, m);
    }
    _mm256_storeu_ps(t + w, m);
  }
  bool tail_nan = false;
  for (; w < W; ++w) {
    float m = plane[wr[0] + w];
    for (int64_t i = 1; i < nr; ++i) m = takes_max(plane[wr[i] + w], m) ? plane[wr[i] + w] : m;
    t[w] = m;
    tail_nan |= m != m;
  }
  return _mm256_movemask_ps(nan) == 0 && !tail_nan;
}

// The horizontal pass for a 3-wide window at stride 2 over a NaN-free scratch row t of len floats.
BURN_AVX2_FMA void hmax_3s2_avx2(const float* t, int64_t len, float* y, int64_t n) {
  int64_t o = 0;
  // The last load of a block reads one float past its taps.
  for (; o + 8 <= n && 2 * o + 18 <= len; o += 8) {
    const float* p = t + 2 * o;
    const __m256 a = _mm256_loadu_ps(p), b = _mm256_loadu_ps(p + 8);
    const __m256 c = _mm256_loadu_ps(p + 2), d = _mm256_loadu_ps(p + 10);
    // Taps 0, 1, 2 of outputs o..o+7, each in the lane order 0 1 4 5 2 3 6 7 (shuffle_ps works per 128 bits).
    const __m256 t0 = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
    const __m256 t1 = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
    const __m256 t2 = _mm256_shuffle_ps(c, d, _MM_SHUFFLE(2, 0, 2, 0));
    const __m256 m = _mm256_max_ps(t2, _mm256_max_ps(t1, t0));
    _mm256_storeu_ps(y + o, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(m), _MM_SHUFFLE(3, 1, 2, 0))));
  }
  hmax_fixed<float, 3, 2>(t + 2 * o, y + o, n - o);
}

// t[w] = max over the nr rows plane + wr[i] of their element w. Returns whether the AVX2 pass ran and
// saw no NaN, which the AVX2 horizontal pass needs (after a NaN, t holds the scalar pass's result).
template <typename T>
bool max_rows_into(const T* plane, const int64_t* wr, int64_t nr, int64_t W, T* t, bool avx2) {
  if constexpr (std::is_same_v<T, float>)
    if (avx2 && max_rows_into_avx2(plane, wr, nr, W, t)) return true;
  std::memcpy(t, plane + wr[0], W * sizeof(T));
  for (int64_t i = 1; i < nr; ++i) {
    const T* src = plane + wr[i];
    for (int64_t w = 0; w < W; ++w) t[w] = takes_max(src[w], t[w]) ? src[w] : t[w];
  }
  return false;
}

template <typename T>
void max_pool_values(const T* x, T* y, const Geometry& g, const Pool3& q) {
  const int64_t rows = g.planes * g.out[0] * g.out[1];
  const int64_t len = scratch_len(g, q), W = g.in[2];
  const T ninf = -std::numeric_limits<T>::infinity();
  bool avx2 = false, h3s2 = false;
  if constexpr (std::is_same_v<T, float>) {
    avx2 = cpu_has_avx2_fma();
    h3s2 = avx2 && q.k[2] == 3 && q.s[2] == 2 && q.d[2] == 1;
  }
  parallel_for(rows, std::max<int64_t>(1, kRowGrain / window_work(g.out[2], q)), [&](int64_t r0, int64_t r1) {
    std::vector<T> tmp = workspace<T>(len, ninf);
    std::vector<int64_t> wr = workspace<int64_t>(max_window_rows(g, q));
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t p = r / (g.out[0] * g.out[1]), od = (r / g.out[1]) % g.out[0], oh = r % g.out[1];
      const int64_t nr = window_rows(g, q, od, oh, wr.data());
      const T* plane = x + p * g.in_len();
      T* t = tmp.data() + q.pb[2];
      bool vertical_avx2_clean = true;  // an all -inf row is fine for the AVX2 horizontal pass
      if (nr == 0)
        std::fill(t, t + W, ninf);
      else
        vertical_avx2_clean = max_rows_into(plane, wr.data(), nr, W, t, avx2);
      if constexpr (std::is_same_v<T, float>) {
        if (h3s2 && vertical_avx2_clean) {
          hmax_3s2_avx2(tmp.data(), len, y + r * g.out[2], g.out[2]);
          continue;
        }
      }
      hmax(tmp.data(), y + r * g.out[2], g.out[2], q.k[2], q.s[2], q.d[2]);
    }
  });
}

// One output row of a KxK window with stride S: every output's taps straight from the input rows, best
// value and tap kept by selects, not branches, so the loop vectorises (with branches, random data
// mispredicted about one tap in two: 8 ns per output, 11% of a small CNN's training step).
template <typename T, int K, int S>
__attribute__((always_inline)) inline void max_indices_row(const T* top, int64_t W, int64_t OW, T* m, int64_t* mi,
                                                           int64_t base) {
  for (int64_t ow = 0; ow < OW; ++ow) {
    const T* p = top + ow * S;
    T best = p[0];
    int64_t tap = 0;
    for (int a = 0; a < K; ++a)
      for (int b = 0; b < K; ++b) {
        if (a == 0 && b == 0) continue;
        const T v = p[a * W + b];
        const bool take = takes_max(v, best);
        best = take ? v : best;
        tap = take ? a * W + b : tap;
      }
    m[ow] = best;
    mi[ow] = base + ow * S + tap;
  }
}

// The even and odd columns of the first `count` of 16 floats at p (the others read as 0), each in order.
BURN_AVX2_FMA [[gnu::always_inline]] inline void split_even_odd(const float* p, int64_t count, __m256& even,
                                                                __m256& odd) {
  const __m256 a = count >= 8 ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, tail_mask8(count));
  const __m256 b = count >= 16 ? _mm256_loadu_ps(p + 8) : _mm256_maskload_ps(p + 8, tail_mask8(count - 8));
  even = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, 0x88)), 0xD8));
  odd = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, 0xDD)), 0xD8));
}

// 8 outputs of a 2x2 stride-2 window over rows t and bottom (the first `count` of 16 floats each, so
// count / 2 outputs are real): values to mv, and to iv the indices first + 2 j + the winning tap (0, 1, W,
// W + 1), taken in the window's row-major order by the rule of takes_max (greater or NaN).
BURN_AVX2_FMA [[gnu::always_inline]] inline void max_2x2_step(const float* t, const float* bottom, int64_t count,
                                                              int64_t W, int64_t first, float* mv, int64_t* iv) {
  __m256 e0, o0, e1, o1;
  split_even_odd(t, count, e0, o0);
  split_even_odd(bottom, count, e1, o1);
  __m256 best = e0;
  __m256i tap = _mm256_setzero_si256();
  const __m256 cand[3] = {o0, e1, o1};
  const int32_t taps[3] = {1, static_cast<int32_t>(W), static_cast<int32_t>(W + 1)};
  for (int c = 0; c < 3; ++c) {
    const __m256 v = cand[c];
    const __m256 take = _mm256_or_ps(_mm256_cmp_ps(v, best, _CMP_GT_OQ), _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    best = _mm256_blendv_ps(best, v, take);
    tap = _mm256_castps_si256(
        _mm256_blendv_ps(_mm256_castsi256_ps(tap), _mm256_castsi256_ps(_mm256_set1_epi32(taps[c])), take));
  }
  _mm256_storeu_ps(mv, best);
  const __m256i at = _mm256_add_epi64(_mm256_set1_epi64x(first), _mm256_setr_epi64x(0, 2, 4, 6));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(iv),
                      _mm256_add_epi64(at, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(tap))));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(iv + 4),
                      _mm256_add_epi64(_mm256_add_epi64(at, _mm256_set1_epi64x(8)),
                                       _mm256_cvtepi32_epi64(_mm256_extracti128_si256(tap, 1))));
}

// max_indices_row<float, 2, 2> in AVX2, 8 outputs a step (W < 2^30: taps in int32), for rows of fewer than 32
// outputs. The compiler's clones of the generic row leave rows shorter than their vector scalar (7-15 ns an
// output on the small CNN's rows of 14 and 7 outputs; 1.2-1.5 ns here); on long rows their AVX-512 clone is
// faster (1 thread, 512-wide planes: 4.0 against 5.5 ms).
BURN_AVX2_FMA void max_indices_row_2_2_avx2(const float* top, int64_t W, int64_t OW, float* m, int64_t* mi,
                                            int64_t base) {
  int64_t ow = 0;
  for (; ow + 8 <= OW; ow += 8) max_2x2_step(top + 2 * ow, top + W + 2 * ow, 16, W, base + 2 * ow, m + ow, mi + ow);
  if (ow == OW) return;
  // The last outputs: masked loads of their 2 (OW - ow) columns (the rows may end right after them), the results
  // copied out of a buffer (masked stores are slow on AMD).
  const int64_t n = OW - ow;
  alignas(32) float mv[8];
  alignas(32) int64_t iv[8];
  max_2x2_step(top + 2 * ow, top + W + 2 * ow, 2 * n, W, base + 2 * ow, mv, iv);
  for (int64_t j = 0; j < n; ++j) m[ow + j] = mv[j], mi[ow + j] = iv[j];
}

#define BURN_MAX_INDICES_ROW(T, K, S)                                                                         \
  BURN_CPU_SIMD_CLONES void max_indices_row_##K##_##S(const T* top, int64_t W, int64_t OW, T* m, int64_t* mi, \
                                                      int64_t base) {                                         \
    max_indices_row<T, K, S>(top, W, OW, m, mi, base);                                                        \
  }
BURN_MAX_INDICES_ROW(float, 2, 2)
BURN_MAX_INDICES_ROW(float, 3, 2)
BURN_MAX_INDICES_ROW(float, 3, 1)
BURN_MAX_INDICES_ROW(double, 2, 2)
BURN_MAX_INDICES_ROW(double, 3, 2)
BURN_MAX_INDICES_ROW(double, 3, 1)
#undef BURN_MAX_INDICES_ROW

// The common 2-D windows (KxK, stride S, no padding or dilation, every window inside the input), a row
// kernel per output row. The general walk below pays a window-row list, two fills and a first-tap test
// per row.
template <typename T>
void max_pool_indices_fixed(const T* x, T* y, int64_t* yi, const Geometry& g, int k, int s,
                            void (*row)(const T*, int64_t, int64_t, T*, int64_t*, int64_t)) {
  const int64_t H = g.in[1], W = g.in[2], OH = g.out[1], OW = g.out[2];
  parallel_for(g.planes * OH, std::max<int64_t>(1, kRowGrain / (OW * k)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t p = r / OH, oh = r % OH;
      const int64_t top = oh * s * W;
      row(x + p * H * W + top, W, OW, y + r * OW, yi + r * OW, top);
    }
  });
}

// Whether max_pool_indices_fixed<K, S> covers this pool.
bool fixed_2d_window(const Geometry& g, const Pool3& q, int64_t k, int64_t s) {
  for (int d = 0; d < 3; ++d)
    if (q.pb[d] != 0 || q.pe[d] != 0 || q.d[d] != 1) return false;
  return g.in[0] == 1 && q.k[0] == 1 && q.k[1] == k && q.k[2] == k && q.s[1] == s && q.s[2] == s &&
         (g.out[1] - 1) * s + k <= g.in[1] && (g.out[2] - 1) * s + k <= g.in[2] && g.out[1] > 0 && g.out[2] > 0;
}

// Whether max_pool_indices_padded covers this pool: a 2-D KxK window, stride S, no dilation, padded.
bool padded_2d_window(const Geometry& g, const Pool3& q, int64_t k, int64_t s) {
  for (int d = 0; d < 3; ++d)
    if (q.d[d] != 1) return false;
  return g.in[0] == 1 && q.k[0] == 1 && q.pb[0] == 0 && q.pe[0] == 0 && q.k[1] == k && q.k[2] == k && q.s[1] == s &&
         q.s[2] == s && g.out[1] > 0 && g.out[2] > 0;
}

// The outputs [lo, hi) of one dim whose windows lie inside the input (window o starts at o * s - pad).
void inside_outputs(int64_t in, int64_t out, int64_t k, int64_t s, int64_t pad, int64_t& lo, int64_t& hi) {
  lo = std::min(out, (pad + s - 1) / s);
  hi = in + pad >= k ? std::min(out, (in + pad - k) / s + 1) : 0;
  hi = std::max(lo, hi);
}

// Padded KxK windows (ResNet's 3x3 s2 p1 stem pool): the outputs whose windows lie inside the input take the
// row kernel of the unpadded case; the border ring is walked tap by tap in the same order (the first tap inside
// the input starts, the first strict maximum or NaN wins).
template <typename T>
void max_pool_indices_padded(const T* x, T* y, int64_t* yi, const Geometry& g, const Pool3& q,
                             void (*row)(const T*, int64_t, int64_t, T*, int64_t*, int64_t)) {
  const int64_t H = g.in[1], W = g.in[2], OH = g.out[1], OW = g.out[2], K = q.k[1], S = q.s[1];
  const int64_t ph = q.pb[1], pw = q.pb[2];
  int64_t oh_lo, oh_hi, ow_lo, ow_hi;
  inside_outputs(H, OH, K, S, ph, oh_lo, oh_hi);
  inside_outputs(W, OW, K, S, pw, ow_lo, ow_hi);
  auto border = [&](const T* plane, int64_t oh, int64_t ow, T* m, int64_t* mi) {
    T best = -std::numeric_limits<T>::infinity();
    int64_t at = -1;
    for (int64_t a = 0; a < K; ++a) {
      const int64_t ih = oh * S - ph + a;
      if (ih < 0 || ih >= H) continue;
      for (int64_t b = 0; b < K; ++b) {
        const int64_t iw = ow * S - pw + b;
        if (iw < 0 || iw >= W) continue;
        const T v = plane[ih * W + iw];
        if (at < 0 || takes_max(v, best)) best = v, at = ih * W + iw;
      }
    }
    *m = best;
    *mi = std::max<int64_t>(at, 0);
  };
  parallel_for(g.planes * OH, std::max<int64_t>(1, kRowGrain / (OW * K)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t p = r / OH, oh = r % OH;
      const T* plane = x + p * H * W;
      T* m = y + r * OW;
      int64_t* mi = yi + r * OW;
      const bool inside_row = oh >= oh_lo && oh < oh_hi;
      const int64_t lo = inside_row ? ow_lo : OW, hi = inside_row ? ow_hi : OW;
      for (int64_t ow = 0; ow < lo; ++ow) border(plane, oh, ow, m + ow, mi + ow);
      if (hi > lo) {
        const int64_t top = (oh * S - ph) * W + lo * S - pw;
        row(plane + top, W, hi - lo, m + lo, mi + lo, top);
      }
      for (int64_t ow = std::max(lo, hi); ow < OW; ++ow) border(plane, oh, ow, m + ow, mi + ow);
    }
  });
}

// Window walk in PyTorch's order (taps in row-major window order; the first strict maximum wins, NaN
// wins), one tap at a time across the whole output row so the inner loop runs over contiguous outputs.
template <typename T>
void max_pool_indices(const T* x, T* y, int64_t* yi, const Geometry& g, const Pool3& q) {
  using Row = void (*)(const T*, int64_t, int64_t, T*, int64_t*, int64_t);
  Row row_2_2 = max_indices_row_2_2;
  if constexpr (std::is_same_v<T, float>)
    if (cpu_has_avx2_fma() && g.out[2] < 32 && g.in[2] < (int64_t{1} << 30)) row_2_2 = max_indices_row_2_2_avx2;
  if (fixed_2d_window(g, q, 2, 2)) return max_pool_indices_fixed<T>(x, y, yi, g, 2, 2, row_2_2);
  if (fixed_2d_window(g, q, 3, 2)) return max_pool_indices_fixed<T>(x, y, yi, g, 3, 2, Row{max_indices_row_3_2});
  if (fixed_2d_window(g, q, 3, 1)) return max_pool_indices_fixed<T>(x, y, yi, g, 3, 1, Row{max_indices_row_3_1});
  if (padded_2d_window(g, q, 3, 2)) return max_pool_indices_padded<T>(x, y, yi, g, q, Row{max_indices_row_3_2});
  if (padded_2d_window(g, q, 3, 1)) return max_pool_indices_padded<T>(x, y, yi, g, q, Row{max_indices_row_3_1});
  if (padded_2d_window(g, q, 2, 2)) return max_pool_indices_padded<T>(x, y, yi, g, q, row_2_2);
  const int64_t rows = g.planes * g.out[0] * g.out[1];
  const int64_t W = g.in[2], OW = g.out[2], S = q.s[2];
  // Only the horizontal taps that some output of the row sees inside the input: (OW - 1) * S is at
  // most the input width (padding is at most half the kernel), so this is O(W), not O(kernel).
  int64_t kw0, kw1;
  taps_inside((OW - 1) * S - q.pb[2], q.d[2], q.k[2], W + (OW - 1) * S, kw0, kw1);
  parallel_for(rows, std::max<int64_t>(1, kRowGrain / window_work(OW, q)), [&](int64_t r0, int64_t r1) {
    std::vector<int64_t> wr = workspace<int64_t>(max_window_rows(g, q));
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t p = r / (g.out[0] * g.out[1]), od = (r / g.out[1]) % g.out[0], oh = r % g.out[1];
      const int64_t nr = window_rows(g, q, od, oh, wr.data());
      const T* plane = x + p * g.in_len();
      T* m = y + r * OW;
      int64_t* mi = yi + r * OW;
      std::fill(m, m + OW, -std::numeric_limits<T>::infinity());
      std::fill(mi, mi + OW, int64_t{-1});
      for (int64_t i = 0; i < nr; ++i) {
        const T* src = plane + wr[i];
        for (int64_t kw = kw0; kw < kw1; ++kw) {
          const int64_t off = kw * q.d[2] - q.pb[2];  // iw = ow * S + off
          int64_t lo, hi;
          taps_inside(off, S, OW, W, lo, hi);  // the outputs whose tap kw lies inside the row
          const int64_t base = wr[i] + off;
          for (int64_t ow = lo; ow < hi; ++ow) {
            const T v = src[ow * S + off];
            const bool take = takes_max(v, m[ow]) || mi[ow] < 0;
            m[ow] = take ? v : m[ow];
            mi[ow] = take ? base + ow * S : mi[ow];
          }
        }
      }
      for (int64_t ow = 0; ow < OW; ++ow) mi[ow] = std::max<int64_t>(mi[ow], 0);
    }
  });
}

// 1 / PyTorch's avg-pool divisor factor along one dim (the divisor is the product over dims).
template <typename T>
std::vector<T> inv_divisors(int64_t in, int64_t out, int64_t k, int64_t s, int64_t pb, int64_t pe, bool cip) {
  std::vector<T> v(out);
  for (int64_t o = 0; o < out; ++o) {
    const int64_t start = o * s - pb;
    const int64_t cap = std::min(start + k, in + pe);
    const int64_t lo = std::max<int64_t>(start, 0), hi = std::min(start + k, in);
    v[o] = T(1) / static_cast<T>(cip ? cap - start : hi - lo);
  }
  return v;
}

template <typename T>
void avg_pool_fwd(const T* x, T* y, const Geometry& g, const Pool3& q, bool cip) {
  const int64_t rows = g.planes * g.out[0] * g.out[1];
  const int64_t len = scratch_len(g, q), W = g.in[2];
  std::vector<T> inv[3];
  for (int i = 0; i < 3; ++i) inv[i] = inv_divisors<T>(g.in[i], g.out[i], q.k[i], q.s[i], q.pb[i], q.pe[i], cip);
  parallel_for(rows, std::max<int64_t>(1, kRowGrain / window_work(g.out[2], q)), [&](int64_t r0, int64_t r1) {
    std::vector<T> tmp = workspace<T>(len, T(0));
    std::vector<int64_t> wr = workspace<int64_t>(max_window_rows(g, q));
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t p = r / (g.out[0] * g.out[1]), od = (r / g.out[1]) % g.out[0], oh = r % g.out[1];
      const int64_t nr = window_rows(g, q, od, oh, wr.data());
      const T* plane = x + p * g.in_len();
      T* t = tmp.data() + q.pb[2];
      if (nr == 0) {
        std::fill(t, t + W, T(0));
      } else {
        std::memcpy(t, plane + wr[0], W * sizeof(T));
        for (int64_t i = 1; i < nr; ++i) {
          const T* src = plane + wr[i];
          for (int64_t w = 0; w < W; ++w) t[w] += src[w];
        }
      }
      hsum(tmp.data(), y + r * g.out[2], inv[2].data(), g.out[2], q.k[2], q.s[2], inv[0][od] * inv[1][oh]);
    }
  });
}

template <typename T>
void avg_pool_bwd(const T* go, T* gi, const Geometry& g, const Pool3& q, bool cip) {
  const int64_t len = scratch_len(g, q), W = g.in[2];
  std::vector<T> inv[3];
  for (int i = 0; i < 3; ++i) inv[i] = inv_divisors<T>(g.in[i], g.out[i], q.k[i], q.s[i], q.pb[i], q.pe[i], cip);
  parallel_for(g.planes, 1, [&](int64_t p0, int64_t p1) {
    std::vector<T> tmp = workspace<T>(len);
    std::vector<int64_t> wr = workspace<int64_t>(max_window_rows(g, q));
    for (int64_t p = p0; p < p1; ++p) {
      T* plane = gi + p * g.in_len();
      std::fill(plane, plane + g.in_len(), T(0));
      for (int64_t od = 0; od < g.out[0]; ++od)
        for (int64_t oh = 0; oh < g.out[1]; ++oh) {
          const T* grow = go + ((p * g.out[0] + od) * g.out[1] + oh) * g.out[2];
          const T scale = inv[0][od] * inv[1][oh];
          std::fill(tmp.begin(), tmp.end(), T(0));
          for (int64_t ow = 0; ow < g.out[2]; ++ow) {
            const T v = grow[ow] * inv[2][ow] * scale;
            for (int64_t kw = 0; kw < q.k[2]; ++kw) tmp[ow * q.s[2] + kw] += v;
          }
          const int64_t nr = window_rows(g, q, od, oh, wr.data());
          const T* t = tmp.data() + q.pb[2];
          for (int64_t i = 0; i < nr; ++i) {
            T* dst = plane + wr[i];
            for (int64_t w = 0; w < W; ++w) dst[w] += t[w];
          }
        }
    }
  });
}

// grad_in[plane][idx[o]] += grad_out[o], one plane per task.
template <typename T>
void scatter_planes(const T* go, std::span<const int64_t> idx, T* gi, int64_t planes, int64_t in_len, int64_t out_len) {
  parallel_for(planes, 1, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      T* plane = gi + p * in_len;
      std::fill(plane, plane + in_len, T(0));
      for (int64_t o = 0; o < out_len; ++o) {
        plane[idx[p * out_len + o]] += go[p * out_len + o];
      }
    }
  });
}

Prim scatter_by_indices(Prim x, Prim grad_out, Prim indices, const char* op) {
  const CpuPtr xc = as_cpu(x, op);
  const CpuPtr gc = contiguous(as_cpu(grad_out, op));
  const IndexSpan loaded = load_indices(indices, op);
  const std::span<const int64_t> idx = loaded.span;
  const Shape& s = xc->shape();
  CpuPtr out = alloc(s, xc->dtype());
  const int64_t planes = s[0] * s[1];
  const int64_t in_len = planes ? s.num_elements() / planes : 0;
  const int64_t o_len = planes ? gc->shape().num_elements() / planes : 0;
  for (int64_t i : idx)
    if (i < 0 || i >= in_len)
      throw IndexError(op, "index " + std::to_string(i) + " is outside a plane of " + std::to_string(in_len));
  if (xc->dtype() == DType::F32)
    scatter_planes(gc->data<float>(), idx, out->data<float>(), planes, in_len, o_len);
  else
    scatter_planes(gc->data<double>(), idx, out->data<double>(), planes, in_len, o_len);
  return out;
}

// Adaptive windows along one dim: [floor(o*in/out), ceil((o+1)*in/out)).
inline int64_t a_lo(int64_t o, int64_t in, int64_t out) { return (o * in) / out; }
inline int64_t a_hi(int64_t o, int64_t in, int64_t out) { return ((o + 1) * in + out - 1) / out; }

template <typename T>
void adaptive_fwd(const T* x, T* y, int64_t* yi, const Geometry& g, bool is_max) {
  const int64_t rows = g.planes * g.out[0] * g.out[1];
  parallel_for(rows, std::max<int64_t>(1, kRowGrain / std::max<int64_t>(1, g.out[2])), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t p = r / (g.out[0] * g.out[1]), od = (r / g.out[1]) % g.out[0], oh = r % g.out[1];
      const T* plane = x + p * g.in_len();
      const int64_t d0 = a_lo(od, g.in[0], g.out[0]), d1 = a_hi(od, g.in[0], g.out[0]);
      const int64_t h0 = a_lo(oh, g.in[1], g.out[1]), h1 = a_hi(oh, g.in[1], g.out[1]);
      for (int64_t ow = 0; ow < g.out[2]; ++ow) {
        const int64_t w0 = a_lo(ow, g.in[2], g.out[2]), w1 = a_hi(ow, g.in[2], g.out[2]);
        T acc = is_max ? -std::numeric_limits<T>::infinity() : T(0);
        int64_t mi = (d0 * g.in[1] + h0) * g.in[2] + w0;
        for (int64_t id = d0; id < d1; ++id)
          for (int64_t ih = h0; ih < h1; ++ih) {
            const int64_t base = (id * g.in[1] + ih) * g.in[2];
            for (int64_t iw = w0; iw < w1; ++iw) {
              const T v = plane[base + iw];
              if (!is_max) {
                acc += v;
              } else if (takes_max(v, acc)) {
                acc = v;
                mi = base + iw;
              }
            }
          }
        const int64_t o = r * g.out[2] + ow;
        if (is_max) {
          y[o] = acc;
          yi[o] = mi;
        } else {
          y[o] = acc / static_cast<T>((d1 - d0) * (h1 - h0) * (w1 - w0));
        }
      }
    }
  });
}

template <typename T>
void adaptive_avg_bwd(const T* go, T* gi, const Geometry& g) {
  parallel_for(g.planes, 1, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      T* plane = gi + p * g.in_len();
      std::fill(plane, plane + g.in_len(), T(0));
      for (int64_t od = 0; od < g.out[0]; ++od) {
        const int64_t d0 = a_lo(od, g.in[0], g.out[0]), d1 = a_hi(od, g.in[0], g.out[0]);
        for (int64_t oh = 0; oh < g.out[1]; ++oh) {
          const int64_t h0 = a_lo(oh, g.in[1], g.out[1]), h1 = a_hi(oh, g.in[1], g.out[1]);
          for (int64_t ow = 0; ow < g.out[2]; ++ow) {
            const int64_t w0 = a_lo(ow, g.in[2], g.out[2]), w1 = a_hi(ow, g.in[2], g.out[2]);
            const T v = go[((p * g.out[0] + od) * g.out[1] + oh) * g.out[2] + ow] /
                        static_cast<T>((d1 - d0) * (h1 - h0) * (w1 - w0));
            for (int64_t id = d0; id < d1; ++id)
              for (int64_t ih = h0; ih < h1; ++ih) {
                T* dst = plane + (id * g.in[1] + ih) * g.in[2];
                for (int64_t iw = w0; iw < w1; ++iw) dst[iw] += v;
              }
          }
        }
      }
    }
  });
}

}  // namespace

Prim CpuBackend::max_pool(Prim x, const PoolOptions& options) {
  if (!accepts<Dtypes::Float>(x->dtype())) return Backend::max_pool(std::move(x), options);
  const CpuPtr xc = contiguous(as_cpu(x, "max_pool"));
  PoolOptions o = options;
  const Shape os = shape_rules::pool(xc->shape(), o, true, "max_pool");
  const Geometry g = geometry(xc->shape(), os);
  const Pool3 q = pool3(o);
  CpuPtr out = alloc(os, xc->dtype());
  if (xc->dtype() == DType::F32)
    max_pool_values(xc->data<float>(), out->data<float>(), g, q);
  else
    max_pool_values(xc->data<double>(), out->data<double>(), g, q);
  return out;
}

PrimPair CpuBackend::max_pool_with_indices(Prim x, const PoolOptions& options) {
  if (!accepts<Dtypes::Float>(x->dtype())) return Backend::max_pool_with_indices(std::move(x), options);
  const CpuPtr xc = contiguous(as_cpu(x, "max_pool_with_indices"));
  PoolOptions o = options;
  const Shape os = shape_rules::pool(xc->shape(), o, true, "max_pool_with_indices");
  const Geometry g = geometry(xc->shape(), os);
  const Pool3 q = pool3(o);
  CpuPtr out = alloc(os, xc->dtype());
  CpuPtr idx = alloc(os, DType::I64);
  if (xc->dtype() == DType::F32)
    max_pool_indices(xc->data<float>(), out->data<float>(), idx->data<int64_t>(), g, q);
  else
    max_pool_indices(xc->data<double>(), out->data<double>(), idx->data<int64_t>(), g, q);
  return {out, idx};
}

Prim CpuBackend::max_pool_backward(Prim x, Prim grad_out, Prim indices, const PoolOptions& options) {
  if (!accepts<Dtypes::Float>(x->dtype()))
    return Backend::max_pool_backward(std::move(x), std::move(grad_out), std::move(indices), options);
  return scatter_by_indices(std::move(x), std::move(grad_out), std::move(indices), "max_pool_backward");
}

Prim CpuBackend::avg_pool(Prim x, const PoolOptions& options) {
  if (!accepts<Dtypes::Float>(x->dtype())) return Backend::avg_pool(std::move(x), options);
  const CpuPtr xc = contiguous(as_cpu(x, "avg_pool"));
  PoolOptions o = options;
  const Shape os = shape_rules::pool(xc->shape(), o, false, "avg_pool");
  const Geometry g = geometry(xc->shape(), os);
  const Pool3 q = pool3(o);
  CpuPtr out = alloc(os, xc->dtype());
  if (xc->dtype() == DType::F32)
    avg_pool_fwd(xc->data<float>(), out->data<float>(), g, q, options.count_include_pad);
  else
    avg_pool_fwd(xc->data<double>(), out->data<double>(), g, q, options.count_include_pad);
  return out;
}

Prim CpuBackend::avg_pool_backward(Prim x, Prim grad_out, const PoolOptions& options) {
  if (!accepts<Dtypes::Float>(x->dtype()))
    return Backend::avg_pool_backward(std::move(x), std::move(grad_out), options);
  const CpuPtr xc = as_cpu(x, "avg_pool_backward");
  const CpuPtr gc = contiguous(as_cpu(grad_out, "avg_pool_backward"));
  PoolOptions o = options;
  const Geometry g = geometry(xc->shape(), shape_rules::pool(xc->shape(), o, false, "avg_pool_backward"));
  const Pool3 q = pool3(o);
  CpuPtr out = alloc(xc->shape(), xc->dtype());
  if (xc->dtype() == DType::F32)
    avg_pool_bwd(gc->data<float>(), out->data<float>(), g, q, options.count_include_pad);
  else
    avg_pool_bwd(gc->data<double>(), out->data<double>(), g, q, options.count_include_pad);
  return out;
}

Prim CpuBackend::adaptive_avg_pool(Prim x, const Shape& output_size) {
  if (!accepts<Dtypes::Float>(x->dtype())) return Backend::adaptive_avg_pool(std::move(x), output_size);
  const CpuPtr xc = contiguous(as_cpu(x, "adaptive_avg_pool"));
  const Shape os = shape_rules::adaptive_pool(xc->shape(), output_size.dims(), "adaptive_avg_pool");
  const Geometry g = geometry(xc->shape(), os);
  CpuPtr out = alloc(os, xc->dtype());
  if (xc->dtype() == DType::F32)
    adaptive_fwd<float>(xc->data<float>(), out->data<float>(), nullptr, g, false);
  else
    adaptive_fwd<double>(xc->data<double>(), out->data<double>(), nullptr, g, false);
  return out;
}

Prim CpuBackend::adaptive_avg_pool_backward(Prim x, Prim grad_out) {
  if (!accepts<Dtypes::Float>(x->dtype()))
    return Backend::adaptive_avg_pool_backward(std::move(x), std::move(grad_out));
  const CpuPtr xc = as_cpu(x, "adaptive_avg_pool_backward");
  const CpuPtr gc = contiguous(as_cpu(grad_out, "adaptive_avg_pool_backward"));
  const Geometry g = geometry(xc->shape(), gc->shape());
  CpuPtr out = alloc(xc->shape(), xc->dtype());
  if (xc->dtype() == DType::F32)
    adaptive_avg_bwd(gc->data<float>(), out->data<float>(), g);
  else
    adaptive_avg_bwd(gc->data<double>(), out->data<double>(), g);
  return out;
}

PrimPair CpuBackend::adaptive_max_pool(Prim x, const Shape& output_size) {
  if (!accepts<Dtypes::Float>(x->dtype())) return Backend::adaptive_max_pool(std::move(x), output_size);
  const CpuPtr xc = contiguous(as_cpu(x, "adaptive_max_pool"));
  const Shape os = shape_rules::adaptive_pool(xc->shape(), output_size.dims(), "adaptive_max_pool");
  const Geometry g = geometry(xc->shape(), os);
  CpuPtr out = alloc(os, xc->dtype());
  CpuPtr idx = alloc(os, DType::I64);
  if (xc->dtype() == DType::F32)
    adaptive_fwd<float>(xc->data<float>(), out->data<float>(), idx->data<int64_t>(), g, true);
  else
    adaptive_fwd<double>(xc->data<double>(), out->data<double>(), idx->data<int64_t>(), g, true);
  return {out, idx};
}

Prim CpuBackend::adaptive_max_pool_backward(Prim x, Prim grad_out, Prim indices) {
  if (!accepts<Dtypes::Float>(x->dtype()))
    return Backend::adaptive_max_pool_backward(std::move(x), std::move(grad_out), std::move(indices));
  return scatter_by_indices(std::move(x), std::move(grad_out), std::move(indices), "adaptive_max_pool_backward");
}

}  // namespace burn::cpu
