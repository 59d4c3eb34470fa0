// Scalar: a number handed to an op (fill value, clamp bound), kept exact for ints.
#pragma once

#include <climits>
#include <cstdint>
#include <string>
#include <type_traits>

namespace burn {

struct Scalar {
  enum class Kind : uint8_t { Float, Int, Bool } kind = Kind::Float;
  double f = 0.0;
  int64_t i = 0;

  // Truncates toward zero and saturates (NaN -> 0): a plain cast of 1e300 or NaN is undefined.
  static constexpr int64_t saturate(double v) {
    if (!(v == v)) return 0;
    if (v >= 9223372036854775807.0) return INT64_MAX;
    if (v <= -9223372036854775808.0) return INT64_MIN;
    return static_cast<int64_t>(v);
  }

  Scalar() = default;
  template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T v) : kind(Kind::Float), f(static_cast<double>(v)), i(saturate(static_cast<double>(v))) {}
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : kind(Kind::Int), f(static_cast<double>(v)), i(static_cast<int64_t>(v)) {}
  Scalar(bool v) : kind(Kind::Bool), f(v ? 1.0 : 0.0), i(v ? 1 : 0) {}

  double as_double() const { return kind == Kind::Float ? f : static_cast<double>(i); }
  int64_t as_int() const { return kind == Kind::Float ? saturate(f) : i; }
  bool as_bool() const { return kind == Kind::Float ? f != 0.0 : i != 0; }
  std::string to_string() const {
    return kind == Kind::Float ? std::to_string(f) : kind == Kind::Int ? std::to_string(i) : (i ? "true" : "false");
  }
};

}  // namespace burn
