// The per-element functions of the cpu backend's elementwise kernels, shared by the eager kernels
// (ops/*.cpp) and the fused executor (fused_executor.cpp), so that a fused chain computes exactly what
// the same ops computed one at a time. Private to the plugin.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "elementwise.hpp"
#include "ops/math_util.hpp"

namespace burn::cpu {

// The f32 loops over a flat array (float_math.cpp, activation.cpp), one clone per ISA level.
void exp_f32(const float* x, float* y, int64_t n);
void log_f32(const float* x, float* y, int64_t n);
void tanh_f32(const float* x, float* y, int64_t n);
void erf_f32(const float* x, float* y, int64_t n);
void sigmoid_f32(const float* x, float* y, int64_t n);
void silu_f32(const float* x, float* y, int64_t n);
void gelu_tanh_f32(const float* x, float* y, int64_t n);
void gelu_f32(const float* x, float* y, int64_t n);
void mish_f32(const float* x, float* y, int64_t n);

template <typename T>
constexpr bool nan_of(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return v != v;
  else
    return false;
}

// Truncating division; b == -1 is a negation so that INT_MIN / -1 wraps rather than traps.
template <typename T>
inline T div_of(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return b == T(-1) ? wrap_sub(T(0), a) : static_cast<T>(a / b);
  else
    return a / b;
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

// C's fmod: the sign of the dividend. Ints truncate; b == -1 gives 0 (INT_MIN % -1 traps).
template <typename T>
inline T fmod_of(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return b == T(-1) ? T(0) : static_cast<T>(a % b);
  else
    return std::fmod(a, b);
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
inline T max_of(T a, T b) {
  return (a > b || nan_of(a)) ? a : b;
}
template <typename T>
inline T min_of(T a, T b) {
  return (a < b || nan_of(a)) ? a : b;
}

template <typename T>
[[gnu::always_inline]] inline T exp_of(T v) {
  if constexpr (std::is_same_v<T, float>)
    return vexp(v);
  else
    return std::exp(v);
}

// gelu with the tanh approximation: 0.5 x (1 + tanh(u)) = x * sigmoid(2u), which stays accurate
// where 1 + tanh(u) cancels.
template <typename T>
[[gnu::always_inline]] inline T gelu_tanh_of(T x) {
  constexpr T kC = T(0.79788456080286535588);  // sqrt(2 / pi)
  const T u = kC * (x + T(0.044715) * x * x * x);
  return x / (T(1) + exp_of(T(-2) * u));
}

template <typename T>
inline T abs_of(T a) {
  return a < T(0) ? wrap_sub(T(0), a) : a;
}
// min(max(a, lo), hi) as PyTorch (hi wins when lo > hi); NaN stays NaN as comparisons with it are false.
template <typename T>
inline T clamp_of(T a, T lo, T hi) {
  const T v = a < lo ? lo : a;
  return v > hi ? hi : v;
}
template <typename T>
inline T clamp_min_of(T a, T lo) {
  return a < lo ? lo : a;
}
template <typename T>
inline T clamp_max_of(T a, T hi) {
  return a > hi ? hi : a;
}
// relu keeps NaN (torch.relu is clamp_min(0)).
template <typename T>
inline T relu_of(T v) {
  return v < T(0) ? T(0) : v;
}
template <typename T>
inline T leaky_relu_of(T v, T slope) {
  return v > T(0) ? v : v * slope;
}

// Calls body(pred) with pred(T v) -> uint8_t comparing v with the scalar as the *_elem comparisons do:
// an int tensor against a float scalar compares as double (2 > 1.5); against an int, exactly.
template <typename T, typename Cmp, typename Body>
decltype(auto) with_elem_predicate(const Scalar& s, Cmp cmp, Body&& body) {
  if constexpr (std::is_integral_v<T>) {
    if (s.kind == Scalar::Kind::Float) {
      const double c = s.f;
      return body([c, cmp](T v) { return static_cast<uint8_t>(cmp(static_cast<double>(v), c)); });
    }
    const int64_t c = s.i;
    return body([c, cmp](T v) { return static_cast<uint8_t>(cmp(static_cast<int64_t>(v), c)); });
  } else {
    const T c = scalar_as<T>(s);
    return body([c, cmp](T v) { return static_cast<uint8_t>(cmp(v, c)); });
  }
}

}  // namespace burn::cpu
