// Float math of the cpu backend (f32 and f64 only; int input is a DTypeError): exp/log/trig/erf, the
// inverse hyperbolics, rounding, atan2, hypot, recip, square and the is_nan/is_inf/is_finite predicates
// (Bool results).
#include <algorithm>
#include <cmath>
#include <limits>

#include "cpu_backend.hpp"
#include "cpu_tensor.hpp"
#include "elementwise.hpp"
#include "ops/elementwise_fns.hpp"
#include "ops/math_util.hpp"
#include "ops/simd_avx2.hpp"
#include "ops/simd_avx512.hpp"

// GCC 12 warns that the AVX-512 intrinsics' own _mm512_undefined_* placeholders may be used uninitialised
// (they are masked out); nothing of this file's is.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace burn::cpu {
// The f32 loops, compiled for x86-64-v3 (AVX2 + FMA) and for the baseline and picked at load time (exp: its
// AVX-512 form first); shared with the fused executor (ops/elementwise_fns.hpp).
namespace {
// Two vectors a step: exp8's dependency chain is long enough that one at a time leaves the FMA units
// idle (1.2x here).
BURN_AVX2_FMA void exp_f32_avx2(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 a = exp8(_mm256_loadu_ps(x + i)), b = exp8(_mm256_loadu_ps(x + i + 8));
    _mm256_storeu_ps(y + i, a);
    _mm256_storeu_ps(y + i + 8, b);
  }
  // The tail through exp8 as well, masked: every element then gets exp8's bits, which the fused
  // executor's register chains rely on.
  for (; i < n; i += 8) {
    const __m256i m = tail_mask8(n - i);
    _mm256_maskstore_ps(y + i, m, exp8(_mm256_maskload_ps(x + i, m)));
  }
}
// exp_f32_avx2 on 16 lanes a vector (exp16: exp8's bits), the tail masked alike.
BURN_AVX512_FMA void exp_f32_avx512(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 a = exp16(_mm512_loadu_ps(x + i)), b = exp16(_mm512_loadu_ps(x + i + 16));
    _mm512_storeu_ps(y + i, a);
    _mm512_storeu_ps(y + i + 16, b);
  }
  for (; i < n; i += 16) {
    const __mmask16 m = _cvtu32_mask16(0xffffu >> (16 - std::min<int64_t>(16, n - i)));
    _mm512_mask_storeu_ps(y + i, m, exp16(_mm512_maskz_loadu_ps(m, x + i)));
  }
}
void exp_f32_baseline(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = vexp_table(x[i]);
}
}  // namespace

void exp_f32(const float* x, float* y, int64_t n) {
  if (cpu_has_avx512f())
    exp_f32_avx512(x, y, n);
  else if (cpu_has_avx2_fma())
    exp_f32_avx2(x, y, n);
  else
    exp_f32_baseline(x, y, n);
}

BURN_CPU_SIMD_CLONES void log_f32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = vlog(x[i]);
}
BURN_CPU_SIMD_CLONES void tanh_f32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = vtanh(x[i]);
}
BURN_CPU_SIMD_CLONES void erf_f32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = verf(x[i]);
}

Prim CpuBackend::exp(Prim x) {
  return float_map(std::move(x), "exp", exp_f32, [](auto v) { return std::exp(v); });
}
Prim CpuBackend::log(Prim x) {
  return float_map(std::move(x), "log", log_f32, [](auto v) { return std::log(v); });
}
Prim CpuBackend::log1p(Prim x) {
  return float_map(std::move(x), "log1p", [](auto v) { return std::log1p(v); });
}
Prim CpuBackend::sqrt(Prim x) {
  return float_map(std::move(x), "sqrt", [](auto v) { return std::sqrt(v); });
}
Prim CpuBackend::sin(Prim x) {
  return float_map(std::move(x), "sin", [](auto v) { return std::sin(v); });
}
Prim CpuBackend::cos(Prim x) {
  return float_map(std::move(x), "cos", [](auto v) { return std::cos(v); });
}
Prim CpuBackend::tan(Prim x) {
  return float_map(std::move(x), "tan", [](auto v) { return std::tan(v); });
}
Prim CpuBackend::sinh(Prim x) {
  return float_map(std::move(x), "sinh", [](auto v) { return std::sinh(v); });
}
Prim CpuBackend::cosh(Prim x) {
  return float_map(std::move(x), "cosh", [](auto v) { return std::cosh(v); });
}
Prim CpuBackend::tanh(Prim x) {
  return float_map(std::move(x), "tanh", tanh_f32, [](auto v) { return std::tanh(v); });
}
Prim CpuBackend::asin(Prim x) {
  return float_map(std::move(x), "asin", [](auto v) { return std::asin(v); });
}
Prim CpuBackend::acos(Prim x) {
  return float_map(std::move(x), "acos", [](auto v) { return std::acos(v); });
}
Prim CpuBackend::atan(Prim x) {
  return float_map(std::move(x), "atan", [](auto v) { return std::atan(v); });
}
Prim CpuBackend::asinh(Prim x) {
  return float_map(std::move(x), "asinh", [](auto v) { return std::asinh(v); });
}
Prim CpuBackend::acosh(Prim x) {
  return float_map(std::move(x), "acosh", [](auto v) { return std::acosh(v); });
}
Prim CpuBackend::atanh(Prim x) {
  return float_map(std::move(x), "atanh", [](auto v) { return std::atanh(v); });
}
Prim CpuBackend::erf(Prim x) {
  return float_map(std::move(x), "erf", erf_f32, [](auto v) { return std::erf(v); });
}
// Half-way cases round to even, as torch.round.
Prim CpuBackend::round(Prim x) {
  return float_map(std::move(x), "round", [](auto v) { return std::nearbyint(v); });
}
Prim CpuBackend::floor(Prim x) {
  return float_map(std::move(x), "floor", [](auto v) { return std::floor(v); });
}
Prim CpuBackend::ceil(Prim x) {
  return float_map(std::move(x), "ceil", [](auto v) { return std::ceil(v); });
}
Prim CpuBackend::trunc(Prim x) {
  return float_map(std::move(x), "trunc", [](auto v) { return std::trunc(v); });
}
Prim CpuBackend::recip(Prim x) {
  return float_map(std::move(x), "recip", [](auto v) { return decltype(v)(1) / v; });
}
Prim CpuBackend::square(Prim x) {
  return float_map(std::move(x), "square", [](auto v) { return v * v; });
}

Prim CpuBackend::atan2(Prim lhs, Prim rhs) {
  return zip_map<Dtypes::Float>(std::move(lhs), std::move(rhs), "atan2",
                                [](auto a, auto b) { return std::atan2(a, b); });
}

// std::hypot: no overflow or underflow, and inf beside a NaN is inf.
Prim CpuBackend::hypot(Prim lhs, Prim rhs) {
  return zip_map<Dtypes::Float>(std::move(lhs), std::move(rhs), "hypot",
                                [](auto a, auto b) { return std::hypot(a, b); });
}

namespace {

// A float predicate pred(v) with a Bool result.
template <typename Fn>
Prim float_predicate(Prim x, const char* op, Fn pred) {
  const DType dt = x->dtype();
  return dispatch<Dtypes::Float>(dt, op, [&]<typename T>() {
    return unary_op<T, uint8_t>(std::move(x), DType::Bool, op, [pred](T v) { return static_cast<uint8_t>(pred(v)); });
  });
}

}  // namespace

Prim CpuBackend::is_nan(Prim x) {
  return float_predicate(std::move(x), "is_nan", [](auto v) { return v != v; });
}
Prim CpuBackend::is_inf(Prim x) {
  return float_predicate(std::move(x), "is_inf", [](auto v) {
    return v == std::numeric_limits<decltype(v)>::infinity() || v == -std::numeric_limits<decltype(v)>::infinity();
  });
}
Prim CpuBackend::is_finite(Prim x) {
  return float_predicate(std::move(x), "is_finite", [](auto v) { return v - v == decltype(v)(0); });
}

}  // namespace burn::cpu
