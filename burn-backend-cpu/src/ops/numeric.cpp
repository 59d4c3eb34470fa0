// Numeric ops of the cpu backend (f32, f64, i64, i32): arithmetic with NumPy broadcasting, scalar
// variants, maximum/minimum, neg/abs/sign and clamps. matmul lives in matmul.cpp.
// Int div truncates and int division by zero throws; remainder takes the divisor's sign (PyTorch).
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "cpu_backend.hpp"
#include "cpu_tensor.hpp"
#include "elementwise.hpp"
#include "ops/math_util.hpp"

namespace burn::cpu {
namespace {

template <typename T>
constexpr bool nan_of(T v) {
  if constexpr (std::is_floating_point_v<T>) return v != v;
  else return false;
}

// Truncating division; b == -1 is a negation so that INT_MIN / -1 wraps rather than traps.
template <typename T>
inline T div_of(T a, T b) {
  if constexpr (std::is_integral_v<T>) return b == T(-1) ? wrap_sub(T(0), a) : static_cast<T>(a / b);
  else return a / b;
}

// PyTorch's remainder: the result has the sign of the divisor.
template <typename T>
inline T rem_of(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if (b == T(-1)) return T(0);
    T r = static_cast<T>(a % b);
    return (r != 0 && ((r < 0) != (b < 0))) ? static_cast<T>(r + b) : r;
  } else {
    T r = std::fmod(a, b);
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
  }
}

// Integer power by squaring; negative exponents follow PyTorch (1, -1 keep their magnitude, else 0).
template <typename T>
inline T pow_of(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if (b < 0) return a == 1 ? T(1) : a == -1 ? ((-(b + 1)) % 2 == 0 ? T(-1) : T(1)) : T(0);
    using U = std::make_unsigned_t<T>;
    U base = static_cast<U>(a), r = 1;
    for (auto e = static_cast<uint64_t>(b); e; e >>= 1) {
      if (e & 1) r *= base;
      base *= base;
    }
    return static_cast<T>(r);
  } else {
    return std::pow(a, b);
  }
}

template <typename T>
inline T max_of(T a, T b) { return (a > b || nan_of(a)) ? a : b; }
template <typename T>
inline T min_of(T a, T b) { return (a < b || nan_of(a)) ? a : b; }

// Int div/remainder by zero is an error, found before the kernel runs (kernels never throw).
void check_no_int_zero(const char* op, const Prim& rhs) {
  const DType dt = rhs->dtype();
  if (dt != DType::I64 && dt != DType::I32) return;
  const CpuPtr r = contiguous(as_cpu(rhs, op));
  const int64_t n = r->shape().num_elements();
  const bool zero = dt == DType::I64 ? std::find(r->data<int64_t>(), r->data<int64_t>() + n, 0) != r->data<int64_t>() + n
                                     : std::find(r->data<int32_t>(), r->data<int32_t>() + n, 0) != r->data<int32_t>() + n;
  if (zero) throw ValueError(op, "integer division by zero (rhs " + r->shape().to_string() + " holds a 0)");
}

template <typename T>
T scalar_checked(const char* op, const Scalar& s, bool nonzero_int) {
  const T v = scalar_as<T>(s);
  if (nonzero_int && std::is_integral_v<T> && v == T(0)) throw ValueError(op, "integer division by zero (scalar 0)");
  return v;
}

}  // namespace

#define BURN_CPU_BINARY(NAME, EXPR)                                                               \
  Prim CpuBackend::NAME(Prim lhs, Prim rhs) {                                                     \
    const DType dt = lhs->dtype();                                                                \
    return BURN_CPU_NUMERIC(dt, #NAME, [&] {                                                      \
      return binary_op<T, T>(std::move(lhs), std::move(rhs), dt, #NAME, [](T a, T b) { return static_cast<T>(EXPR); }); \
    });                                                                                           \
  }

#define BURN_CPU_SCALAR(NAME, EXPR, NONZERO)                                                      \
  Prim CpuBackend::NAME(Prim lhs, Scalar rhs) {                                                   \
    const DType dt = lhs->dtype();                                                                \
    return BURN_CPU_NUMERIC(dt, #NAME, [&] {                                                      \
      const T b = scalar_checked<T>(#NAME, rhs, NONZERO);                                         \
      return unary_op<T, T>(std::move(lhs), dt, #NAME, [b](T a) { return static_cast<T>(EXPR); }); \
    });                                                                                           \
  }

#define BURN_CPU_UNARY(NAME, EXPR)                                                                \
  Prim CpuBackend::NAME(Prim x) {                                                                 \
    const DType dt = x->dtype();                                                                  \
    return BURN_CPU_NUMERIC(dt, #NAME, [&] {                                                      \
      return unary_op<T, T>(std::move(x), dt, #NAME, [](T a) { return static_cast<T>(EXPR); });   \
    });                                                                                           \
  }

BURN_CPU_BINARY(add, wrap_add(a, b))
BURN_CPU_BINARY(sub, wrap_sub(a, b))
BURN_CPU_BINARY(mul, wrap_mul(a, b))
BURN_CPU_BINARY(powf, pow_of(a, b))
BURN_CPU_BINARY(maximum, max_of(a, b))
BURN_CPU_BINARY(minimum, min_of(a, b))

Prim CpuBackend::div(Prim lhs, Prim rhs) {
  const DType dt = lhs->dtype();
  return BURN_CPU_NUMERIC(dt, "div", [&] {
    if (lhs->dtype() == rhs->dtype()) check_no_int_zero("div", rhs);
    return binary_op<T, T>(std::move(lhs), std::move(rhs), dt, "div", [](T a, T b) { return div_of(a, b); });
  });
}

Prim CpuBackend::remainder(Prim lhs, Prim rhs) {
  const DType dt = lhs->dtype();
  return BURN_CPU_NUMERIC(dt, "remainder", [&] {
    if (lhs->dtype() == rhs->dtype()) check_no_int_zero("remainder", rhs);
    return binary_op<T, T>(std::move(lhs), std::move(rhs), dt, "remainder", [](T a, T b) { return rem_of(a, b); });
  });
}

BURN_CPU_SCALAR(add_scalar, wrap_add(a, b), false)
BURN_CPU_SCALAR(sub_scalar, wrap_sub(a, b), false)
BURN_CPU_SCALAR(mul_scalar, wrap_mul(a, b), false)
BURN_CPU_SCALAR(div_scalar, div_of(a, b), true)
BURN_CPU_SCALAR(remainder_scalar, rem_of(a, b), true)

// Common exponents get exact, vectorisable forms instead of pow.
Prim CpuBackend::powf_scalar(Prim lhs, Scalar rhs) {
  const DType dt = lhs->dtype();
  return BURN_CPU_NUMERIC(dt, "powf_scalar", [&]() -> Prim {
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

BURN_CPU_UNARY(neg, wrap_sub(T(0), a))
BURN_CPU_UNARY(abs, a < T(0) ? wrap_sub(T(0), a) : a)
// sign(NaN) is 0 in PyTorch.
BURN_CPU_UNARY(sign, (T(0) < a) - (a < T(0)))

Prim CpuBackend::clamp(Prim x, Scalar min, Scalar max) {
  const DType dt = x->dtype();
  return BURN_CPU_NUMERIC(dt, "clamp", [&] {
    const T lo = scalar_as<T>(min), hi = scalar_as<T>(max);
    // min(max(a, lo), hi) as PyTorch (hi wins when lo > hi); NaN stays NaN as comparisons with it are false.
    return unary_op<T, T>(std::move(x), dt, "clamp", [lo, hi](T a) {
      const T v = a < lo ? lo : a;
      return v > hi ? hi : v;
    });
  });
}
Prim CpuBackend::clamp_min(Prim x, Scalar min) {
  const DType dt = x->dtype();
  return BURN_CPU_NUMERIC(dt, "clamp_min", [&] {
    const T lo = scalar_as<T>(min);
    return unary_op<T, T>(std::move(x), dt, "clamp_min", [lo](T a) { return a < lo ? lo : a; });
  });
}
Prim CpuBackend::clamp_max(Prim x, Scalar max) {
  const DType dt = x->dtype();
  return BURN_CPU_NUMERIC(dt, "clamp_max", [&] {
    const T hi = scalar_as<T>(max);
    return unary_op<T, T>(std::move(x), dt, "clamp_max", [hi](T a) { return a > hi ? hi : a; });
  });
}

#undef BURN_CPU_BINARY
#undef BURN_CPU_SCALAR
#undef BURN_CPU_UNARY

}  // namespace burn::cpu
