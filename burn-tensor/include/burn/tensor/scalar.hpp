// Scalar: a number handed to an op (fill value, clamp bound), kept exact for ints.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

namespace burn {

struct Scalar {
  enum class Kind : uint8_t { Float, Int, Bool } kind = Kind::Float;
  double f = 0.0;
  int64_t i = 0;

  Scalar() = default;
  template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T v) : kind(Kind::Float), f(static_cast<double>(v)), i(static_cast<int64_t>(v)) {}
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : kind(Kind::Int), f(static_cast<double>(v)), i(static_cast<int64_t>(v)) {}
  Scalar(bool v) : kind(Kind::Bool), f(v ? 1.0 : 0.0), i(v ? 1 : 0) {}

  double as_double() const { return kind == Kind::Float ? f : static_cast<double>(i); }
  int64_t as_int() const { return kind == Kind::Float ? static_cast<int64_t>(f) : i; }
  bool as_bool() const { return kind == Kind::Float ? f != 0.0 : i != 0; }
  std::string to_string() const {
    return kind == Kind::Float ? std::to_string(f) : kind == Kind::Int ? std::to_string(i) : (i ? "true" : "false");
  }
};

}  // namespace burn
