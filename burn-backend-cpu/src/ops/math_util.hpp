// Helpers shared by the cpu backend's numeric, float-math, activation, bitwise and reduce kernels: the
// elementwise op shapes over dispatch<Dtypes> (unary_map, zip_map, float_map), the branch-free f32
// math, and the (outer, n, inner) lane view of a dim. Builds on elementwise.hpp.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "cpu_tensor.hpp"
#include "elementwise.hpp"

namespace burn::cpu {

// Elements per parallel task: big enough to hide the pool's hand-off, small enough to balance.
inline constexpr int64_t kGrain = 32768;

// Int arithmetic wraps on overflow (as PyTorch) instead of being undefined.
template <typename T>
inline T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) + static_cast<std::make_unsigned_t<T>>(b));
  else
    return a + b;
}
template <typename T>
inline T wrap_sub(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) - static_cast<std::make_unsigned_t<T>>(b));
  else
    return a - b;
}
template <typename T>
inline T wrap_mul(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) * static_cast<std::make_unsigned_t<T>>(b));
  else
    return a * b;
}

template <Dtypes S>
inline void require_dtypes(const char* op, DType d) {
  if (!accepts<S>(d)) throw_dtype(op, dtypes_name(S), d);
}
inline void require_numeric(const char* op, DType d) { require_dtypes<Dtypes::Numeric>(op, d); }

// The attribute of the loops over the f32 polynomial kernels below: one clone for x86-64-v4 (AVX-512:
// 16 lanes a step), one for x86-64-v3 (AVX2 with FMA, so each multiply-add is one fused instruction and
// the latency-bound chains get shorter: gelu 1.6x, exp 1.4x) and one for the baseline, picked by the
// loader (GCC's ifunc resolver checks the CPU's ISA level), so the plugin still runs on any x86-64. The
// clones run the same operations per element, so they give the same bits.
#define BURN_CPU_SIMD_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))

// exp for f32 written without branches or libm calls, so loops over it vectorise (about 1 ulp; NaN
// and +-inf behave as std::exp, results below FLT_MIN come out denormal or 0).
// c ? a : b through bit masks: GCC (with -ftrapping-math) will not if-convert a float ?: that feeds
// more float math, which keeps such loops scalar.
template <typename T>
[[gnu::always_inline]] inline T vselect(bool c, T a, T b) {
  using I = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
  const I m = -static_cast<I>(c);
  return std::bit_cast<T>((std::bit_cast<I>(a) & m) | (std::bit_cast<I>(b) & ~m));
}

// vexp's constants (its clamps and shift also serve exp8 and vexp_table).
namespace exp_const {
inline constexpr float kHi = 89.0f, kLo = -104.0f;  // clamps: past them the result is inf or 0 anyway
inline constexpr float kShift = 12582912.0f;        // 1.5 * 2^23: adding it rounds to an integer held in the low bits
inline constexpr float kLog2e = 1.44269504088896341f;
inline constexpr float kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;  // ln 2 = kLn2Hi + kLn2Lo, in two parts
inline constexpr float kP0 = 1.9875691500e-4f, kP1 = 1.3981999507e-3f, kP2 = 8.3334519073e-3f, kP3 = 4.1665795894e-2f,
                       kP4 = 1.6666665459e-1f, kP5 = 5.0000001201e-1f;
}  // namespace exp_const

[[gnu::always_inline]] inline float vexp(float x) {
  using namespace exp_const;
  x = vselect(x > kHi, kHi, x);
  x = vselect(x < kLo, kLo, x);
  const float t = x * kLog2e + kShift;
  const float nf = t - kShift;
  const int32_t ni = std::bit_cast<int32_t>(t) - std::bit_cast<int32_t>(kShift);
  float r = x - nf * kLn2Hi;
  r = r - nf * kLn2Lo;
  // The degree-5 polynomial in Estrin's form (pairs, then r^2 and r^4): these loops are bound by the
  // latency of their dependency chains, which Horner's form makes twice as long.
  const float r2 = r * r;
  const float p01 = kP0 * r + kP1;
  const float p23 = kP2 * r + kP3;
  const float p45 = kP4 * r + kP5;
  const float p = p01 * (r2 * r2) + (p23 * r2 + p45);
  const float y = (p * r2 + r) + 1.0f;
  // 2^n in two factors so that n down to -150 (denormals) and up to 128 (overflow to inf) both work.
  const int32_t n1 = ni >> 1, n2 = ni - n1;
  return y * std::bit_cast<float>((n1 + 127) << 23) * std::bit_cast<float>((n2 + 127) << 23);
}

// The table exp's constants (exp8 in simd_avx2.hpp and vexp_table below): 8/ln2, ln2/8 in two parts
// (the first with 12 significant bits), 2^(j/8) rounded to f32, and Taylor's 1/6 and 1/24.
namespace exp_table {
inline constexpr float kEightOverLn2 = 11.541560173034668f;
inline constexpr float kLn2Over8Hi = 0.086639404296875f, kLn2Over8Lo = 3.993272912339307e-06f;
inline constexpr float kPow2Eighths[8] = {1.0f,
                                          1.0905077457427979f,
                                          1.1892070770263672f,
                                          1.2968395948410034f,
                                          1.4142135381698608f,
                                          1.5422108173370361f,
                                          1.6817928552627563f,
                                          1.8340080976486206f};
inline constexpr float kC3 = 1.0f / 6.0f, kC4 = 1.0f / 24.0f;
// The bits of 2^(j/8) less j << 20 (exp8_nonpos adds k << 20 to them, k = 8 floor(k/8) + j).
inline constexpr int32_t kPow2EighthsLessIndex[8] = {
    std::bit_cast<int32_t>(kPow2Eighths[0]) - (0 << 20), std::bit_cast<int32_t>(kPow2Eighths[1]) - (1 << 20),
    std::bit_cast<int32_t>(kPow2Eighths[2]) - (2 << 20), std::bit_cast<int32_t>(kPow2Eighths[3]) - (3 << 20),
    std::bit_cast<int32_t>(kPow2Eighths[4]) - (4 << 20), std::bit_cast<int32_t>(kPow2Eighths[5]) - (5 << 20),
    std::bit_cast<int32_t>(kPow2Eighths[6]) - (6 << 20), std::bit_cast<int32_t>(kPow2Eighths[7]) - (7 << 20)};
}  // namespace exp_table

// The exp op's f32 exp one lane at a time: exp8's arithmetic (simd_avx2.hpp), operation for operation,
// std::fma where exp8 fuses, so the same bits; for CPUs without AVX2, where every exp of the exp op
// (eager and fused) comes here. Not for loops GCC should vectorise: its table read would become a gather
// (sigmoid, tanh and the other composites keep vexp).
inline float vexp_table(float x) {
  using namespace exp_table;
  const float xc = vselect(x < exp_const::kLo, exp_const::kLo, vselect(x > exp_const::kHi, exp_const::kHi, x));
  const float t = std::fma(xc, kEightOverLn2, exp_const::kShift);
  const float kf = t - exp_const::kShift;
  float r = std::fma(-kf, kLn2Over8Hi, xc);
  r = std::fma(-kf, kLn2Over8Lo, r);
  const float tab = kPow2Eighths[std::bit_cast<uint32_t>(t) & 7u];
  const float r2 = r * r;
  const float q = std::fma(r2, kC4, std::fma(r, kC3, 0.5f));
  const float y = std::fma(tab, std::fma(r2, q, r), tab);
  // k from t's low bits (t is 1.5 * 2^23 + k); for NaN it is garbage, and x itself is returned.
  const int32_t e = static_cast<int32_t>(std::bit_cast<uint32_t>(t) - std::bit_cast<uint32_t>(exp_const::kShift)) >> 3;
  const int32_t e1 = e >> 1, e2 = e - e1;
  const float a = std::bit_cast<float>(std::bit_cast<uint32_t>(y) + (static_cast<uint32_t>(e1) << 23));
  return x != x ? x : a * std::bit_cast<float>(static_cast<uint32_t>(e2 + 127) << 23);
}

// erfc(z) for z >= 0 (or NaN) without libm: t e^(P(t) - z^2), t = 1 / (1 + z/2), with P a degree-9
// least-squares fit of log(erfc(z) / t) + z^2 over z in [0, 10] (fit error 5e-8; relative error of
// the f32 result about 2e-7 for z < 4, growing to 2e-5 near z = 10 from rounding z^2); 0 past z = 10.
[[gnu::always_inline]] inline float verfc_nonneg(float z) {
  const float zc = vselect(z > 10.0f, 10.0f, z);
  const float t = 1.0f / (1.0f + 0.5f * zc);
  const float u = t - 0.5f;
  // P in Estrin's form, as in vexp: 16 FMA latencies deep instead of Horner's 36.
  const float u2 = u * u, u4 = u2 * u2;
  const float p98 = 0.14493021369f * u - 0.028641216457f;
  const float p76 = -0.26220303774f * u + 0.10829325020f;
  const float p54 = 0.27935129404f * u - 0.15762411058f;
  const float p32 = -0.37506440282f * u + 0.18936555088f;
  const float p10 = 1.3452855349f * u - 0.67179405689f;
  const float p = p98 * (u4 * u4) + ((p76 * u2 + p54) * u4 + (p32 * u2 + p10));
  return vselect(z > 10.0f, 0.0f, t * vexp(p - zc * zc));
}

// erf for f32 without libm (absolute error about 1e-7; relative 1e-7 near 0): x Q(x^2) for |x| < 1
// (Q a degree-6 fit of erf(x)/x, relative fit error 2e-9), else +-(1 - erfc(|x|)).
[[gnu::always_inline]] inline float verf(float x) {
  const float a = std::fabs(x);
  const float x2 = x * x;
  float q = 7.9334216124e-05f;
  q = q * x2 - 8.0348234596e-04f;
  q = q * x2 + 5.1912155268e-03f;
  q = q * x2 - 2.6855397781e-02f;
  q = q * x2 + 1.1283625678e-01f;
  q = q * x2 - 3.7612629872e-01f;
  q = q * x2 + 1.1283791666f;
  const float big = 1.0f - verfc_nonneg(a);
  return vselect(a < 1.0f, x * q, vselect(x < 0.0f, -big, big));
}

// Exact gelu for f32: x/2 erfc(-x / sqrt 2), with erfc(-z) = 2 - erfc(z) for z >= 0, so the negative
// tail keeps its relative precision (no 1 + erf(x) cancellation).
[[gnu::always_inline]] inline float vgelu(float x) {
  const float e = verfc_nonneg(std::fabs(x) * 0.70710678118654752f);
  return 0.5f * x * vselect(x >= 0.0f, 2.0f - e, e);
}

// tanh for f32 without libm (about 2 ulp): x + x^3 R(x^2) for |x| < 0.625 (R a degree-4 fit, relative
// error 2e-8), else +-(1 - 2 / (e^(2|x|) + 1)). Past |x| = 9.0109 = atanh(1 - 2^-25) tanh rounds to +-1
// in f32, and +-1 is returned exactly as std::tanh does: the formula alone gives 1 - 2^-24 up to
// |x| ~ 9.4, and 1 + tanh(x) = 6e-8 instead of 0 broke callers that cancel against 1 (gelu_tanh).
[[gnu::always_inline]] inline float vtanh(float x) {
  const float a = std::fabs(x);
  const float x2 = x * x;
  float r = -6.1543315761e-03f;
  r = r * x2 + 2.1044939749e-02f;
  r = r * x2 - 5.3863704519e-02f;
  r = r * x2 + 1.3332888447e-01f;
  r = r * x2 - 3.3333331348e-01f;
  const float small = x + x * x2 * r;
  const float e = vexp(2.0f * vselect(a > 10.0f, 10.0f, a));
  const float big = vselect(a > 9.01091335f, 1.0f, 1.0f - 2.0f / (e + 1.0f));
  return vselect(a < 0.625f, small, vselect(x < 0.0f, -big, big));
}

// log for f32 without libm (about 1 ulp): x = 2^e m with m in [sqrt(1/2), sqrt 2), log m = 2 atanh(s),
// s = (m - 1) / (m + 1), by its series to s^11; denormals are scaled up first. log(0) = -inf,
// log(negative) = NaN, log(inf) = inf, as std::log.
[[gnu::always_inline]] inline float vlog(float x) {
  const bool sub = x < 1.17549435e-38f;
  const float xs = vselect(sub, x * 8388608.0f, x);  // 2^23
  const int32_t bits = std::bit_cast<int32_t>(xs);
  float m = std::bit_cast<float>((bits & 0x007fffff) | 0x3f800000);
  const bool hi = m > 1.41421356f;
  m = vselect(hi, 0.5f * m, m);
  const int32_t e = ((bits >> 23) & 0xff) - 127 + static_cast<int32_t>(hi) - (sub ? 23 : 0);
  const float s = (m - 1.0f) / (m + 1.0f);
  const float s2 = s * s;
  float p = 1.0f / 11.0f;
  p = p * s2 + 1.0f / 9.0f;
  p = p * s2 + 1.0f / 7.0f;
  p = p * s2 + 1.0f / 5.0f;
  p = p * s2 + 1.0f / 3.0f;
  const float ef = static_cast<float>(e);
  const float r = ef * 0.693359375f + (2.0f * s + (2.0f * s * s2 * p + ef * -2.12194440e-4f));
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const float special = vselect(x == 0.0f, -kInf, vselect(x == kInf, kInf, std::numeric_limits<float>::quiet_NaN()));
  return vselect((x > 0.0f) & (x < kInf), r, special);
}

// Runs kernel(in, out, count) over x's elements in parallel chunks. Writes into x's buffer when it
// is reusable, or into the contiguous copy made of a strided x; else into a new buffer.
template <typename T, typename K>
Prim map_flat(Prim x, const char* op, K kernel) {
  const Shape shape = x->shape();
  const DType dt = x->dtype();
  CpuPtr out = output_for(x, shape, dt);
  CpuPtr src = out;
  if (!src) {
    src = contiguous(as_cpu(x, op));
    if (src.get() != x.get()) out = src;
  }
  x.reset();
  if (!out) out = alloc(shape, dt);
  const T* in = src->template data<T>();
  T* o = out->template data<T>();
  parallel_for(shape.num_elements(), kGrain, [&](int64_t s, int64_t e) { kernel(in + s, o + s, e - s); });
  return out;
}

// An elementwise op fn(v) (a generic lambda) over the dtype set S through unary_op's loops, and a binary
// op fn(a, b) with broadcasting.
template <Dtypes S = Dtypes::Numeric, typename Fn>
Prim unary_map(Prim x, const char* op, Fn fn) {
  const DType dt = x->dtype();
  return dispatch<S>(dt, op, [&]<typename T>() {
    return unary_op<T, T>(std::move(x), dt, op, [fn](T v) { return static_cast<T>(fn(v)); });
  });
}
template <Dtypes S = Dtypes::Numeric, typename Fn>
Prim zip_map(Prim lhs, Prim rhs, const char* op, Fn fn) {
  const DType dt = lhs->dtype();
  return dispatch<S>(dt, op, [&]<typename T>() {
    return binary_op<T, T>(std::move(lhs), std::move(rhs), dt, op, [fn](T a, T b) { return static_cast<T>(fn(a, b)); });
  });
}

// A float (f32, f64) elementwise op fn(v); with a vectorised f32 loop kernel(in, out, n) (no libm call
// per element) in the second form, f64 then takes fn.
template <typename Fn>
Prim float_map(Prim x, const char* op, Fn fn) {
  return unary_map<Dtypes::Float>(std::move(x), op, fn);
}
template <typename K, typename Fn>
Prim float_map(Prim x, const char* op, K f32_kernel, Fn fn) {
  if (x->dtype() == DType::F32) return map_flat<float>(std::move(x), op, f32_kernel);
  return unary_map<Dtypes::Float>(std::move(x), op, fn);
}

// A tensor seen along `dim` as outer x n x inner (row-major): lane (o, j) is x[o, :, j].
struct Lanes {
  int64_t outer = 1, n = 1, inner = 1;
};
inline Lanes lanes_of(const Shape& s, size_t dim) {
  Lanes l;
  for (size_t d = 0; d < s.rank(); ++d) {
    if (d < dim)
      l.outer *= s[d];
    else if (d == dim)
      l.n = s[d];
    else
      l.inner *= s[d];
  }
  return l;
}

}  // namespace burn::cpu
