// Activations of the cpu backend (f32 and f64): each one fused elementwise loop, and softmax /
// log_softmax fused per lane (max, sum of exp, write). The f32 kernels that call exp are compiled for
// x86-64-v3 (AVX2 + FMA) and for the baseline and picked at load time, so the plugin runs on any x86-64.
#include <immintrin.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "burn/tensor/shape_rules.hpp"
#include "cpu_backend.hpp"
#include "cpu_tensor.hpp"
#include "elementwise.hpp"
#include "ops/elementwise_fns.hpp"
#include "ops/math_util.hpp"
#include "ops/simd_avx2.hpp"
#include "ops/softmax_kernels.hpp"
#include "storage_pool.hpp"

namespace burn::cpu {
namespace {

// The max passes of softmax use SSE max instructions (4 floats or 2 doubles a step, in both clones):
// GCC keeps a float `a > b ? a : b` loop scalar under -ftrapping-math. maxps(a, v) returns v when
// either is NaN, so NaN is tracked in an OR-ed unordered-compare mask; a NaN anywhere in a lane then
// makes the whole lane NaN, as in PyTorch.
template <typename T>
struct Sse;
template <>
struct Sse<float> {
  using V = __m128;
  static constexpr int kW = 4;
  [[gnu::always_inline]] static V load(const float* p) { return _mm_loadu_ps(p); }
  [[gnu::always_inline]] static void store(float* p, V v) { _mm_storeu_ps(p, v); }
  [[gnu::always_inline]] static V splat(float v) { return _mm_set1_ps(v); }
  [[gnu::always_inline]] static V max(V a, V b) { return _mm_max_ps(a, b); }
  [[gnu::always_inline]] static V unord(V a) { return _mm_cmpunord_ps(a, a); }
  [[gnu::always_inline]] static V bor(V a, V b) { return _mm_or_ps(a, b); }
  [[gnu::always_inline]] static bool any(V a) { return _mm_movemask_ps(a) != 0; }
};
template <>
struct Sse<double> {
  using V = __m128d;
  static constexpr int kW = 2;
  [[gnu::always_inline]] static V load(const double* p) { return _mm_loadu_pd(p); }
  [[gnu::always_inline]] static void store(double* p, V v) { _mm_storeu_pd(p, v); }
  [[gnu::always_inline]] static V splat(double v) { return _mm_set1_pd(v); }
  [[gnu::always_inline]] static V max(V a, V b) { return _mm_max_pd(a, b); }
  [[gnu::always_inline]] static V unord(V a) { return _mm_cmpunord_pd(a, a); }
  [[gnu::always_inline]] static V bor(V a, V b) { return _mm_or_pd(a, b); }
  [[gnu::always_inline]] static bool any(V a) { return _mm_movemask_pd(a) != 0; }
};

template <typename T>
[[gnu::always_inline]] inline T scalar_max(T a, T v) {
  return v > a ? v : a;
}

// max of x[0, n), NaN when any element is NaN.
template <typename T>
[[gnu::always_inline]] inline T row_max(const T* x, int64_t n) {
  using S = Sse<T>;
  constexpr int W = S::kW;
  constexpr T kNegInf = -std::numeric_limits<T>::infinity();
  typename S::V m0 = S::splat(kNegInf), m1 = m0, m2 = m0, m3 = m0, u = S::splat(T(0));
  int64_t i = 0;
  for (; i + 4 * W <= n; i += 4 * W) {
    const auto v0 = S::load(x + i), v1 = S::load(x + i + W), v2 = S::load(x + i + 2 * W), v3 = S::load(x + i + 3 * W);
    m0 = S::max(m0, v0), m1 = S::max(m1, v1), m2 = S::max(m2, v2), m3 = S::max(m3, v3);
    u = S::bor(u, S::bor(S::bor(S::unord(v0), S::unord(v1)), S::bor(S::unord(v2), S::unord(v3))));
  }
  for (; i + W <= n; i += W) {
    const auto v = S::load(x + i);
    m0 = S::max(m0, v);
    u = S::bor(u, S::unord(v));
  }
  T lanes[W];
  S::store(lanes, S::max(S::max(m0, m1), S::max(m2, m3)));
  T m = lanes[0];
  for (int j = 1; j < W; ++j) m = scalar_max(m, lanes[j]);
  bool nan = S::any(u);
  for (; i < n; ++i) m = scalar_max(m, x[i]), nan |= x[i] != x[i];
  return nan ? std::numeric_limits<T>::quiet_NaN() : m;
}

// m[j] = max over k < n of x[k * inner + j] for j < w, NaN for a column holding a NaN; `u` is
// scratch of w elements.
template <typename T>
[[gnu::always_inline]] inline void cols_max(const T* x, int64_t n, int64_t inner, int64_t w, T* m, T* u) {
  using S = Sse<T>;
  constexpr int W = S::kW;
  for (int64_t j = 0; j < w; ++j) m[j] = -std::numeric_limits<T>::infinity(), u[j] = T(0);
  for (int64_t k = 0; k < n; ++k) {
    const T* r = x + k * inner;
    int64_t j = 0;
    for (; j + W <= w; j += W) {
      const auto v = S::load(r + j);
      S::store(m + j, S::max(S::load(m + j), v));
      S::store(u + j, S::bor(S::load(u + j), S::unord(v)));
    }
    for (; j < w; ++j) {
      m[j] = scalar_max(m[j], r[j]);
      if (r[j] != r[j]) u[j] = r[j];
    }
  }
  // u[j] has nonzero bits exactly when column j saw a NaN (all-ones mask or a NaN).
  using I = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
  for (int64_t j = 0; j < w; ++j)
    if (std::bit_cast<I>(u[j]) != 0) m[j] = std::numeric_limits<T>::quiet_NaN();
}

// tanh(softplus(x)) = n / (n + 2) with n = e^x (e^x + 2); past x = 20 it is 1 to working precision.
template <typename T>
[[gnu::always_inline]] inline T mish_of(T x) {
  const T e = exp_of(vselect(x > T(20), T(20), x));
  const T n = e * (e + T(2));
  return vselect(x > T(20), x, x * n / (n + T(2)));
}

}  // namespace

// The f32 activation loops, shared with the fused executor (ops/elementwise_fns.hpp).
BURN_CPU_SIMD_CLONES void sigmoid_f32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = 1.0f / (1.0f + vexp(-x[i]));
}
BURN_CPU_SIMD_CLONES void silu_f32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + vexp(-x[i]));
}
BURN_CPU_SIMD_CLONES void gelu_tanh_f32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = gelu_tanh_of(x[i]);
}
BURN_CPU_SIMD_CLONES void gelu_f32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = vgelu(x[i]);
}
BURN_CPU_SIMD_CLONES void mish_f32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = mish_of(x[i]);
}

namespace {

constexpr int kLanes = 16;
constexpr int64_t kCols = kSoftmaxCols;

// One contiguous softmax row: max, sum of exp (written out for softmax), then scale or shift.
template <typename T, bool kLog>
[[gnu::always_inline]] inline void softmax_row(const T* x, T* y, int64_t n) {
  const T m = row_max(x, n);
  T lane[kLanes];
  int64_t i = 0;
  for (int j = 0; j < kLanes; ++j) lane[j] = 0;
  for (i = 0; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) {
      const T e = exp_of(x[i + j] - m);
      if constexpr (!kLog) y[i + j] = e;
      lane[j] += e;
    }
  }
  for (; i < n; ++i) {
    const T e = exp_of(x[i] - m);
    if constexpr (!kLog) y[i] = e;
    lane[0] += e;
  }
  T s = 0;
  for (int j = 0; j < kLanes; ++j) s += lane[j];

  if constexpr (kLog) {
    // (x - m) - log(s), not x - (m + log(s)): for |x| ~ 1000 in f32 the sum m + log(s) rounds away 1e-5.
    const T ls = std::log(s);
    for (i = 0; i < n; ++i) y[i] = (x[i] - m) - ls;
  } else {
    const T inv = T(1) / s;
    for (i = 0; i < n; ++i) y[i] *= inv;
  }
}

// The f32 row max on 8 lanes, in 16-element steps so that a loop can interleave it with other work
// (softmax_finish_streamed); apart from the Sse template's row_max, whose members cannot carry the AVX2
// target and still inline.
struct RowMax {
  __m256 m0, m1, u;
};

BURN_AVX2_FMA [[gnu::always_inline]] inline RowMax row_max_start() {
  const __m256 lo = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
  return {lo, lo, _mm256_setzero_ps()};
}

// 16 elements of the max pass at x + i.
BURN_AVX2_FMA [[gnu::always_inline]] inline void row_max_step(RowMax& a, const float* x, int64_t i) {
  const __m256 v0 = _mm256_loadu_ps(x + i), v1 = _mm256_loadu_ps(x + i + 8);
  a.m0 = _mm256_max_ps(a.m0, v0), a.m1 = _mm256_max_ps(a.m1, v1);
  a.u = _mm256_or_ps(a.u, _mm256_cmp_ps(v0, v1, _CMP_UNORD_Q));
}

// The max of a row whose first i elements (a multiple of 16) went through row_max_step.
BURN_AVX2_FMA [[gnu::always_inline]] inline float row_max_finish(RowMax& a, const float* x, int64_t i, int64_t n) {
  for (; i + 16 <= n; i += 16) row_max_step(a, x, i);
  const __m256 m0 = a.m0, m1 = a.m1, u = a.u;
  float lanes[8];
  _mm256_storeu_ps(lanes, _mm256_max_ps(m0, m1));
  float m = lanes[0];
  for (int j = 1; j < 8; ++j) m = scalar_max(m, lanes[j]);
  bool nan = _mm256_movemask_ps(u) != 0;
  for (; i < n; ++i) m = scalar_max(m, x[i]), nan |= x[i] != x[i];
  return nan ? std::numeric_limits<float>::quiet_NaN() : m;
}

BURN_AVX2_FMA [[gnu::always_inline]] inline float row_max_avx2(const float* x, int64_t n) {
  RowMax a = row_max_start();
  return row_max_finish(a, x, 0, n);
}

// The exp pass of an f32 softmax row with exp8_nonpos: e = exp(x - m) into e_out (softmax only), and
// their sum. While it works on a row it prefetches the next one (`next`, or nullptr), a line per step:
// the next row's max pass then reads from cache instead of waiting on memory, and memory and the exp
// arithmetic overlap instead of taking turns.
template <bool kLog>
BURN_AVX2_FMA [[gnu::always_inline]] inline float row_exp_sum(const float* x, int64_t n, float m, const float* next,
                                                              float* e_out) {
  const __m256 mv = _mm256_set1_ps(m);
  __m256 s0 = _mm256_setzero_ps(), s1 = s0;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    if (next) _mm_prefetch(reinterpret_cast<const char*>(next + i), _MM_HINT_T0);
    const __m256 e0 = exp8_nonpos(_mm256_sub_ps(_mm256_loadu_ps(x + i), mv));
    const __m256 e1 = exp8_nonpos(_mm256_sub_ps(_mm256_loadu_ps(x + i + 8), mv));
    if constexpr (!kLog) _mm256_storeu_ps(e_out + i, e0), _mm256_storeu_ps(e_out + i + 8, e1);
    s0 = _mm256_add_ps(s0, e0), s1 = _mm256_add_ps(s1, e1);
  }
  // The tail (under 16) through masked loads, so that every element gets the same exp.
  for (; i < n; i += 8) {
    const __m256i mask = tail_mask8(n - i);
    const __m256 e =
        _mm256_and_ps(_mm256_castsi256_ps(mask), exp8_nonpos(_mm256_sub_ps(_mm256_maskload_ps(x + i, mask), mv)));
    if constexpr (!kLog) _mm256_maskstore_ps(e_out + i, mask, e);
    s0 = _mm256_add_ps(s0, e);
  }
  float lane[8];
  _mm256_storeu_ps(lane, _mm256_add_ps(s0, s1));
  float sum = 0;
  for (int j = 0; j < 8; ++j) sum += lane[j];
  return sum;
}

// A row between its exp pass and its last pass: y = (x - m) - c (log_softmax, c = log of the sum) or
// e * c (softmax, c = 1 / sum).
struct SoftmaxRow {
  const float* x;
  float* y;
  const float* e;
  float m, c;
};

template <bool kLog>
[[gnu::always_inline]] inline float softmax_out(const SoftmaxRow& r, int64_t k) {
  return kLog ? (r.x[k] - r.m) - r.c : r.e[k] * r.c;
}

template <bool kLog>
BURN_AVX2_FMA [[gnu::always_inline]] inline __m256 softmax_out8(const SoftmaxRow& r, int64_t k, __m256 mv, __m256 cv) {
  return kLog ? _mm256_sub_ps(_mm256_sub_ps(_mm256_loadu_ps(r.x + k), mv), cv)
              : _mm256_mul_ps(_mm256_loadu_ps(r.e + k), cv);
}

// The last pass of row `r`, in streaming stores from y's first 32-byte boundary; with `next_x`, the
// max pass of the next row runs in the same loop (16 elements of it per 16 results), so the stores
// drain while the loads come in, and the function returns that max (row_max_avx2's, bit for bit: the
// same 16-element steps in the same order).
template <bool kLog>
BURN_AVX2_FMA [[gnu::always_inline]] inline float softmax_finish_streamed(const SoftmaxRow& r, int64_t n,
                                                                          const float* next_x) {
  int64_t i = 0;
  for (; i < n && (reinterpret_cast<uintptr_t>(r.y + i) & 31) != 0; ++i) r.y[i] = softmax_out<kLog>(r, i);
  const __m256 cv = _mm256_set1_ps(r.c), mv = _mm256_set1_ps(r.m);
  RowMax a = row_max_start();
  int64_t j = 0;  // the next row's max pass; j <= i, so j + 16 <= n whenever i + 16 <= n
  if (next_x)
    for (; i + 16 <= n; i += 16, j += 16) {
      row_max_step(a, next_x, j);
      _mm256_stream_ps(r.y + i, softmax_out8<kLog>(r, i, mv, cv));
      _mm256_stream_ps(r.y + i + 8, softmax_out8<kLog>(r, i + 8, mv, cv));
    }
  for (; i + 8 <= n; i += 8) _mm256_stream_ps(r.y + i, softmax_out8<kLog>(r, i, mv, cv));
  for (; i < n; ++i) r.y[i] = softmax_out<kLog>(r, i);
  return next_x ? row_max_finish(a, next_x, j, n) : 0.0f;
}

// Rows whose result is written in place of their exps (no scratch): max, exp pass into y, last pass.
template <bool kLog>
BURN_AVX2_FMA [[gnu::always_inline]] inline void softmax_row_avx2(const float* x, float* y, int64_t n,
                                                                  const float* next) {
  const float m = row_max_avx2(x, n);
  const float sum = row_exp_sum<kLog>(x, n, m, next, y);
  const SoftmaxRow r{x, y, y, m, kLog ? std::log(sum) : 1.0f / sum};
  for (int64_t i = 0; i < n; ++i) y[i] = softmax_out<kLog>(r, i);
}

// With `stream` (x != y, a result too large to stay in cache), a row's exps go to a scratch row and its
// result leaves in streaming stores, so y's lines are never read (a third of the row's memory traffic);
// each row's last pass shares its loop with the next row's max pass.
template <bool kLog>
BURN_AVX2_FMA void softmax_rows_streamed(const float* x, float* y, int64_t rows, int64_t n, float* e) {
  float m = row_max_avx2(x, n);
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * n;
    const float* next = r + 1 < rows ? xr + n : nullptr;
    const float sum = row_exp_sum<kLog>(xr, n, m, next, e);
    const SoftmaxRow row{xr, y + r * n, e, m, kLog ? std::log(sum) : 1.0f / sum};
    m = softmax_finish_streamed<kLog>(row, n, next);
  }
  // Streaming stores are weakly ordered: they must be visible before the task reports done.
  _mm_sfence();
}

BURN_AVX2_FMA void softmax_rows_f32_avx2(const float* x, float* y, int64_t rows, int64_t n, bool log, bool stream) {
  if (stream && x != y && n <= (int64_t(1) << 16)) {
    thread_local std::vector<float> scratch;
    if (scratch.size() < static_cast<size_t>(n)) scratch.resize(static_cast<size_t>(n));
    if (log)
      softmax_rows_streamed<true>(x, y, rows, n, scratch.data());
    else
      softmax_rows_streamed<false>(x, y, rows, n, scratch.data());
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    const float* next = r + 1 < rows ? x + (r + 1) * n : nullptr;
    if (log)
      softmax_row_avx2<true>(x + r * n, y + r * n, n, next);
    else
      softmax_row_avx2<false>(x + r * n, y + r * n, n, next);
  }
}

// Softmax over `w` adjacent columns of a lane block (row stride `inner`), vectorised across columns.
template <typename T, bool kLog>
[[gnu::always_inline]] inline void softmax_cols(const T* x, T* y, int64_t n, int64_t inner, int64_t w) {
  T m[kCols], s[kCols];
  cols_max(x, n, inner, w, m, s);
  for (int64_t j = 0; j < w; ++j) s[j] = 0;
  for (int64_t k = 0; k < n; ++k)
    for (int64_t j = 0; j < w; ++j) {
      const T e = exp_of(x[k * inner + j] - m[j]);
      if constexpr (!kLog) y[k * inner + j] = e;
      s[j] += e;
    }
  if constexpr (kLog) {
    for (int64_t j = 0; j < w; ++j) s[j] = std::log(s[j]);
    for (int64_t k = 0; k < n; ++k)
      for (int64_t j = 0; j < w; ++j) y[k * inner + j] = (x[k * inner + j] - m[j]) - s[j];
  } else {
    for (int64_t j = 0; j < w; ++j) s[j] = T(1) / s[j];
    for (int64_t k = 0; k < n; ++k)
      for (int64_t j = 0; j < w; ++j) y[k * inner + j] *= s[j];
  }
}

// The per-task kernels: `rows` contiguous rows of length n, or one column block.
#define BURN_CPU_SOFTMAX_KERNELS(T, SUFFIX)                                                                          \
  BURN_CPU_SIMD_CLONES void softmax_rows_##SUFFIX(const T* x, T* y, int64_t rows, int64_t n, bool log) {             \
    for (int64_t r = 0; r < rows; ++r) {                                                                             \
      if (log)                                                                                                       \
        softmax_row<T, true>(x + r * n, y + r * n, n);                                                               \
      else                                                                                                           \
        softmax_row<T, false>(x + r * n, y + r * n, n);                                                              \
    }                                                                                                                \
  }                                                                                                                  \
  BURN_CPU_SIMD_CLONES void softmax_cols_##SUFFIX(const T* x, T* y, int64_t n, int64_t inner, int64_t w, bool log) { \
    if (log)                                                                                                         \
      softmax_cols<T, true>(x, y, n, inner, w);                                                                      \
    else                                                                                                             \
      softmax_cols<T, false>(x, y, n, inner, w);                                                                     \
  }
BURN_CPU_SOFTMAX_KERNELS(float, f32)
BURN_CPU_SOFTMAX_KERNELS(double, f64)
#undef BURN_CPU_SOFTMAX_KERNELS

}  // namespace

void softmax_rows(const float* x, float* y, int64_t rows, int64_t n, bool log, bool stream) {
  if (cpu_has_avx2_fma())
    softmax_rows_f32_avx2(x, y, rows, n, log, stream);
  else
    softmax_rows_f32(x, y, rows, n, log);
}
void softmax_rows(const double* x, double* y, int64_t rows, int64_t n, bool log) {
  softmax_rows_f64(x, y, rows, n, log);
}
void softmax_block(const float* x, float* y, int64_t n, int64_t inner, int64_t w, bool log) {
  softmax_cols_f32(x, y, n, inner, w, log);
}
void softmax_block(const double* x, double* y, int64_t n, int64_t inner, int64_t w, bool log) {
  softmax_cols_f64(x, y, n, inner, w, log);
}

namespace {

Prim softmax_impl(Prim xp, size_t dim, bool log) {
  const char* op = log ? "log_softmax" : "softmax";
  const DType dt = xp->dtype();
  require_float(dt, op);
  const Shape shape = shape_rules::along_dim(xp->shape(), dim, op);
  const Lanes l = lanes_of(shape, dim);
  // Every element is read before its lane is written, so a reusable input can take the result.
  CpuPtr out = output_for(xp, shape, dt);
  const CpuPtr x = out ? out : contiguous(as_cpu(xp, op));
  if (!out && x.get() != xp.get()) out = x;
  xp.reset();
  if (!out) out = alloc(shape, dt);
  if (shape.num_elements() == 0) return out;
  return dispatch<Dtypes::Float>(dt, op, [&]<typename T>() -> Prim {
    const T* px = x->data<T>();
    T* py = out->data<T>();
    if (l.inner == 1) {
      if constexpr (std::is_same_v<T, float>) {
        const bool stream = px != py && streaming_stores_pay(static_cast<size_t>(shape.num_elements()) * sizeof(T));
        parallel_for(l.outer, std::max<int64_t>(1, kGrain / std::max<int64_t>(1, l.n)),
                     [&](int64_t b, int64_t e) { softmax_rows(px + b * l.n, py + b * l.n, e - b, l.n, log, stream); });
      } else {
        parallel_for(l.outer, std::max<int64_t>(1, kGrain / std::max<int64_t>(1, l.n)),
                     [&](int64_t b, int64_t e) { softmax_rows(px + b * l.n, py + b * l.n, e - b, l.n, log); });
      }
    } else {
      const int64_t chunks = (l.inner + kCols - 1) / kCols;
      const int64_t width = std::min(l.inner, kCols);
      parallel_for(l.outer * chunks, std::max<int64_t>(1, kGrain / std::max<int64_t>(1, l.n * width)),
                   [&](int64_t b, int64_t e) {
                     for (int64_t t = b; t < e; ++t) {
                       const int64_t o = t / chunks, j0 = (t % chunks) * kCols;
                       const int64_t off = o * l.n * l.inner + j0;
                       softmax_block(px + off, py + off, l.n, l.inner, std::min(kCols, l.inner - j0), log);
                     }
                   });
    }
    return out;
  });
}

}  // namespace

// relu keeps NaN (torch.relu is clamp_min(0)).
Prim CpuBackend::relu(Prim x) {
  return float_map(std::move(x), "relu", [](auto v) { return relu_of(v); });
}
// Exact gelu: 0.5 x (1 + erf(x / sqrt 2)); f32 through vgelu (no libm call per element).
Prim CpuBackend::gelu(Prim x) {
  return float_map(std::move(x), "gelu", gelu_f32,
                   []<typename T>(T v) { return T(0.5) * v * (T(1) + std::erf(v * T(0.70710678118654752440))); });
}
Prim CpuBackend::gelu_tanh(Prim x) {
  return float_map(std::move(x), "gelu_tanh", gelu_tanh_f32, [](auto v) { return gelu_tanh_of(v); });
}
Prim CpuBackend::sigmoid(Prim x) {
  return float_map(std::move(x), "sigmoid", sigmoid_f32, []<typename T>(T v) { return T(1) / (T(1) + std::exp(-v)); });
}
Prim CpuBackend::silu(Prim x) {
  return float_map(std::move(x), "silu", silu_f32, []<typename T>(T v) { return v / (T(1) + std::exp(-v)); });
}
Prim CpuBackend::mish(Prim x) {
  return float_map(std::move(x), "mish", mish_f32, [](auto v) { return mish_of(v); });
}
// Stable: log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)).
Prim CpuBackend::log_sigmoid(Prim x) {
  return float_map(std::move(x), "log_sigmoid",
                   []<typename T>(T v) { return (v < T(0) ? v : T(0)) - std::log1p(std::exp(-std::fabs(v))); });
}
// torch.selu's constants.
Prim CpuBackend::selu(Prim x) {
  return float_map(std::move(x), "selu", []<typename T>(T v) {
    return T(1.0507009873554804934193349852946) * (v > T(0) ? v : T(1.6732632423543772848170429916717) * std::expm1(v));
  });
}

Prim CpuBackend::leaky_relu(Prim x, double negative_slope) {
  const DType dt = x->dtype();
  return dispatch<Dtypes::Float>(dt, "leaky_relu", [&]<typename T>() {
    const T s = static_cast<T>(negative_slope);
    return unary_op<T, T>(std::move(x), dt, "leaky_relu", [s](T v) { return leaky_relu_of(v, s); });
  });
}

// As torch: x where beta * x > threshold (linear regime), else log1p(exp(beta * x)) / beta.
Prim CpuBackend::softplus(Prim x, double beta, double threshold) {
  const DType dt = x->dtype();
  return dispatch<Dtypes::Float>(dt, "softplus", [&]<typename T>() {
    const T b = static_cast<T>(beta), th = static_cast<T>(threshold);
    return unary_op<T, T>(std::move(x), dt, "softplus",
                          [b, th](T v) { return v * b > th ? v : std::log1p(std::exp(v * b)) / b; });
  });
}

// clamp(alpha x + beta, 0, 1); torch.nn.Hardsigmoid is alpha = 1/6, beta = 0.5. NaN stays NaN.
Prim CpuBackend::hard_sigmoid(Prim x, double alpha, double beta) {
  const DType dt = x->dtype();
  return dispatch<Dtypes::Float>(dt, "hard_sigmoid", [&]<typename T>() {
    const T a = static_cast<T>(alpha), c = static_cast<T>(beta);
    return unary_op<T, T>(std::move(x), dt, "hard_sigmoid", [a, c](T v) {
      const T u = a * v + c;
      const T lo = u < T(0) ? T(0) : u;
      return lo > T(1) ? T(1) : lo;
    });
  });
}

Prim CpuBackend::elu(Prim x, double alpha) {
  const DType dt = x->dtype();
  return dispatch<Dtypes::Float>(dt, "elu", [&]<typename T>() {
    const T a = static_cast<T>(alpha);
    return unary_op<T, T>(std::move(x), dt, "elu", [a](T v) { return v > T(0) ? v : a * std::expm1(v); });
  });
}

Prim CpuBackend::softmax(Prim x, size_t dim) { return softmax_impl(std::move(x), dim, false); }
Prim CpuBackend::log_softmax(Prim x, size_t dim) { return softmax_impl(std::move(x), dim, true); }

}  // namespace burn::cpu
