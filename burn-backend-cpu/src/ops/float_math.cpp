// Float math of the cpu backend (f32 and f64 only; int input is a DTypeError): exp/log/trig/erf,
// rounding, atan2, recip, square and the is_nan/is_inf/is_finite predicates (Bool results).
#include <cmath>
#include <limits>

#include "cpu_backend.hpp"
#include "cpu_tensor.hpp"
#include "elementwise.hpp"
#include "ops/math_util.hpp"

namespace burn::cpu {
namespace {

// The f32 loops, compiled for x86-64-v3 (AVX2 + FMA) and for the baseline and picked at load time.
BURN_CPU_SIMD_CLONES void exp_f32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = vexp(x[i]);
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

}  // namespace

Prim CpuBackend::exp(Prim x) {
  const DType dt = x->dtype();
  if (dt == DType::F32) return map_flat<float>(std::move(x), "exp", exp_f32);
  return BURN_CPU_DISPATCH_FLOAT(dt, "exp", [&] {
    return unary_op<T, T>(std::move(x), dt, "exp", [](T v) { return std::exp(v); });
  });
}

BURN_CPU_FLOAT_UNARY_F32(log, log_f32, std::log(v))
BURN_CPU_FLOAT_UNARY(log1p, std::log1p(v))
BURN_CPU_FLOAT_UNARY(sqrt, std::sqrt(v))
BURN_CPU_FLOAT_UNARY(sin, std::sin(v))
BURN_CPU_FLOAT_UNARY(cos, std::cos(v))
BURN_CPU_FLOAT_UNARY(tan, std::tan(v))
BURN_CPU_FLOAT_UNARY(sinh, std::sinh(v))
BURN_CPU_FLOAT_UNARY(cosh, std::cosh(v))
BURN_CPU_FLOAT_UNARY_F32(tanh, tanh_f32, std::tanh(v))
BURN_CPU_FLOAT_UNARY(asin, std::asin(v))
BURN_CPU_FLOAT_UNARY(acos, std::acos(v))
BURN_CPU_FLOAT_UNARY(atan, std::atan(v))
BURN_CPU_FLOAT_UNARY_F32(erf, erf_f32, std::erf(v))
// Half-way cases round to even, as torch.round.
BURN_CPU_FLOAT_UNARY(round, std::nearbyint(v))
BURN_CPU_FLOAT_UNARY(floor, std::floor(v))
BURN_CPU_FLOAT_UNARY(ceil, std::ceil(v))
BURN_CPU_FLOAT_UNARY(trunc, std::trunc(v))
BURN_CPU_FLOAT_UNARY(recip, T(1) / v)
BURN_CPU_FLOAT_UNARY(square, v * v)

Prim CpuBackend::atan2(Prim lhs, Prim rhs) {
  const DType dt = lhs->dtype();
  return BURN_CPU_DISPATCH_FLOAT(dt, "atan2", [&] {
    return binary_op<T, T>(std::move(lhs), std::move(rhs), dt, "atan2", [](T a, T b) { return std::atan2(a, b); });
  });
}

#define BURN_CPU_FLOAT_PREDICATE(NAME, EXPR)                                                           \
  Prim CpuBackend::NAME(Prim x) {                                                                      \
    const DType dt = x->dtype();                                                                       \
    return BURN_CPU_DISPATCH_FLOAT(dt, #NAME, [&] {                                                    \
      return unary_op<T, uint8_t>(std::move(x), DType::Bool, #NAME, [](T v) { return static_cast<uint8_t>(EXPR); }); \
    });                                                                                                \
  }

BURN_CPU_FLOAT_PREDICATE(is_nan, v != v)
BURN_CPU_FLOAT_PREDICATE(is_inf, v == std::numeric_limits<T>::infinity() || v == -std::numeric_limits<T>::infinity())
BURN_CPU_FLOAT_PREDICATE(is_finite, v - v == T(0))

#undef BURN_CPU_FLOAT_PREDICATE

}  // namespace burn::cpu
