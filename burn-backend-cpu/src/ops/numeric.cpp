// Numeric ops of the cpu backend (f32, f64, i64, i32): arithmetic with NumPy broadcasting, scalar
// variants, maximum/minimum, neg/abs/sign and clamps. matmul lives in matmul.cpp.
// Int div truncates and int division by zero throws; remainder takes the divisor's sign (PyTorch),
// fmod the dividend's (C).
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "cpu_backend.hpp"
#include "cpu_tensor.hpp"
#include "elementwise.hpp"
#include "ops/elementwise_fns.hpp"
#include "ops/math_util.hpp"

namespace burn::cpu {
namespace {

// Int div/remainder by zero is an error, found before the kernel runs (kernels never throw).
void check_no_int_zero(const char* op, const Prim& rhs) {
  const DType dt = rhs->dtype();
  if (dt != DType::I64 && dt != DType::I32) return;
  const CpuPtr r = contiguous(as_cpu(rhs, op));
  const int64_t n = r->shape().num_elements();
  const bool zero = dt == DType::I64
                        ? std::find(r->data<int64_t>(), r->data<int64_t>() + n, 0) != r->data<int64_t>() + n
                        : std::find(r->data<int32_t>(), r->data<int32_t>() + n, 0) != r->data<int32_t>() + n;
  if (zero) throw ValueError(op, "integer division by zero (rhs " + r->shape().to_string() + " holds a 0)");
}

template <typename T>
T scalar_checked(const char* op, const Scalar& s, bool nonzero_int) {
  const T v = scalar_as<T>(s);
  if (nonzero_int && std::is_integral_v<T> && v == T(0)) throw ValueError(op, "integer division by zero (scalar 0)");
  return v;
}

// An op with a scalar operand: fn(a, b) with b the scalar as T (nonzero_int: an int 0 is an error).
template <typename Fn>
Prim scalar_map(Prim lhs, const Scalar& rhs, const char* op, bool nonzero_int, Fn fn) {
  const DType dt = lhs->dtype();
  return dispatch<Dtypes::Numeric>(dt, op, [&]<typename T>() {
    const T b = scalar_checked<T>(op, rhs, nonzero_int);
    return unary_op<T, T>(std::move(lhs), dt, op, [b, fn](T a) { return static_cast<T>(fn(a, b)); });
  });
}

}  // namespace

Prim CpuBackend::add(Prim lhs, Prim rhs) {
  return zip_map(std::move(lhs), std::move(rhs), "add", [](auto a, auto b) { return wrap_add(a, b); });
}
Prim CpuBackend::sub(Prim lhs, Prim rhs) {
  return zip_map(std::move(lhs), std::move(rhs), "sub", [](auto a, auto b) { return wrap_sub(a, b); });
}
Prim CpuBackend::mul(Prim lhs, Prim rhs) {
  return zip_map(std::move(lhs), std::move(rhs), "mul", [](auto a, auto b) { return wrap_mul(a, b); });
}
Prim CpuBackend::powf(Prim lhs, Prim rhs) {
  return zip_map(std::move(lhs), std::move(rhs), "powf", [](auto a, auto b) { return pow_of(a, b); });
}
Prim CpuBackend::maximum(Prim lhs, Prim rhs) {
  return zip_map(std::move(lhs), std::move(rhs), "maximum", [](auto a, auto b) { return max_of(a, b); });
}
Prim CpuBackend::minimum(Prim lhs, Prim rhs) {
  return zip_map(std::move(lhs), std::move(rhs), "minimum", [](auto a, auto b) { return min_of(a, b); });
}

Prim CpuBackend::div(Prim lhs, Prim rhs) {
  const DType dt = lhs->dtype();
  return dispatch<Dtypes::Numeric>(dt, "div", [&]<typename T>() {
    if (lhs->dtype() == rhs->dtype()) check_no_int_zero("div", rhs);
    return binary_op<T, T>(std::move(lhs), std::move(rhs), dt, "div", [](T a, T b) { return div_of(a, b); });
  });
}

Prim CpuBackend::remainder(Prim lhs, Prim rhs) {
  const DType dt = lhs->dtype();
  return dispatch<Dtypes::Numeric>(dt, "remainder", [&]<typename T>() {
    if (lhs->dtype() == rhs->dtype()) check_no_int_zero("remainder", rhs);
    return binary_op<T, T>(std::move(lhs), std::move(rhs), dt, "remainder", [](T a, T b) { return rem_of(a, b); });
  });
}

Prim CpuBackend::fmod(Prim lhs, Prim rhs) {
  const DType dt = lhs->dtype();
  return dispatch<Dtypes::Numeric>(dt, "fmod", [&]<typename T>() {
    if (lhs->dtype() == rhs->dtype()) check_no_int_zero("fmod", rhs);
    return binary_op<T, T>(std::move(lhs), std::move(rhs), dt, "fmod", [](T a, T b) { return fmod_of(a, b); });
  });
}

Prim CpuBackend::add_scalar(Prim lhs, Scalar rhs) {
  return scalar_map(std::move(lhs), rhs, "add_scalar", false, [](auto a, auto b) { return wrap_add(a, b); });
}
Prim CpuBackend::sub_scalar(Prim lhs, Scalar rhs) {
  return scalar_map(std::move(lhs), rhs, "sub_scalar", false, [](auto a, auto b) { return wrap_sub(a, b); });
}
Prim CpuBackend::mul_scalar(Prim lhs, Scalar rhs) {
  return scalar_map(std::move(lhs), rhs, "mul_scalar", false, [](auto a, auto b) { return wrap_mul(a, b); });
}
Prim CpuBackend::div_scalar(Prim lhs, Scalar rhs) {
  return scalar_map(std::move(lhs), rhs, "div_scalar", true, [](auto a, auto b) { return div_of(a, b); });
}
Prim CpuBackend::remainder_scalar(Prim lhs, Scalar rhs) {
  return scalar_map(std::move(lhs), rhs, "remainder_scalar", true, [](auto a, auto b) { return rem_of(a, b); });
}

Prim CpuBackend::fmod_scalar(Prim lhs, Scalar rhs) {
  return scalar_map(std::move(lhs), rhs, "fmod_scalar", true, [](auto a, auto b) { return fmod_of(a, b); });
}

// Common exponents get exact, vectorisable forms instead of pow.
Prim CpuBackend::powf_scalar(Prim lhs, Scalar rhs) {
  const DType dt = lhs->dtype();
  return dispatch<Dtypes::Numeric>(dt, "powf_scalar", [&]<typename T>() -> Prim {
    const T e = scalar_as<T>(rhs);
    if constexpr (std::is_floating_point_v<T>) {
      if (e == T(1)) return unary_op<T, T>(std::move(lhs), dt, "powf_scalar", [](T a) { return a; });
      if (e == T(2)) return unary_op<T, T>(std::move(lhs), dt, "powf_scalar", [](T a) { return a * a; });
      if (e == T(3)) return unary_op<T, T>(std::move(lhs), dt, "powf_scalar", [](T a) { return a * a * a; });
      if (e == T(-1)) return unary_op<T, T>(std::move(lhs), dt, "powf_scalar", [](T a) { return T(1) / a; });
      if (e == T(0.5)) return unary_op<T, T>(std::move(lhs), dt, "powf_scalar", [](T a) { return std::sqrt(a); });
      if (e == T(0)) return unary_op<T, T>(std::move(lhs), dt, "powf_scalar", [](T) { return T(1); });
    }
    return unary_op<T, T>(std::move(lhs), dt, "powf_scalar", [e](T a) { return pow_of(a, e); });
  });
}

Prim CpuBackend::neg(Prim x) {
  return unary_map(std::move(x), "neg", [](auto a) { return wrap_sub(decltype(a)(0), a); });
}
Prim CpuBackend::abs(Prim x) {
  return unary_map(std::move(x), "abs", [](auto a) { return abs_of(a); });
}
// sign(NaN) is 0 in PyTorch.
Prim CpuBackend::sign(Prim x) {
  return unary_map(std::move(x), "sign", [](auto a) { return (decltype(a)(0) < a) - (a < decltype(a)(0)); });
}

Prim CpuBackend::clamp(Prim x, Scalar min, Scalar max) {
  const DType dt = x->dtype();
  return dispatch<Dtypes::Numeric>(dt, "clamp", [&]<typename T>() {
    const T lo = scalar_as<T>(min), hi = scalar_as<T>(max);
    // min(max(a, lo), hi) as PyTorch (hi wins when lo > hi); NaN stays NaN as comparisons with it are false.
    return unary_op<T, T>(std::move(x), dt, "clamp", [lo, hi](T a) { return clamp_of(a, lo, hi); });
  });
}
Prim CpuBackend::clamp_min(Prim x, Scalar min) {
  const DType dt = x->dtype();
  return dispatch<Dtypes::Numeric>(dt, "clamp_min", [&]<typename T>() {
    const T lo = scalar_as<T>(min);
    return unary_op<T, T>(std::move(x), dt, "clamp_min", [lo](T a) { return clamp_min_of(a, lo); });
  });
}
Prim CpuBackend::clamp_max(Prim x, Scalar max) {
  const DType dt = x->dtype();
  return dispatch<Dtypes::Numeric>(dt, "clamp_max", [&]<typename T>() {
    const T hi = scalar_as<T>(max);
    return unary_op<T, T>(std::move(x), dt, "clamp_max", [hi](T a) { return clamp_max_of(a, hi); });
  });
}

}  // namespace burn::cpu
