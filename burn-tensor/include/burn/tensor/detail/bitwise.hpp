// The element semantics of the bitwise shifts, written once for burn-tensor's host fallback and for the
// backends' kernels, so every path agrees on the edge cases.
//
// They are torch 1.13's on x86-64, where its kernel is C's `a << b` / `a >> b` and the CPU takes the
// count modulo the operand width: the operand is promoted to 64 bits for i64 and to 32 bits for i32,
// i8 and u8 (C's integer promotion); the count is taken modulo that width (its low 6 or 5 bits, so a
// count of 64 on i64 shifts by 0 and -1 shifts by 63); the result is truncated back to the dtype. Left
// shifts wrap; right shifts keep the sign of signed dtypes and zero-fill u8 (PyTorch 2.x instead gives 0
// or the sign fill for counts outside [0, width); burn follows the reference its fixtures come from).
#pragma once

#include <cstdint>
#include <type_traits>

namespace burn::detail {

template <typename T>
using ShiftPromoted = std::conditional_t<sizeof(T) == 8, int64_t, int32_t>;

template <typename T>
constexpr unsigned shift_count(T b) {
  using P = ShiftPromoted<T>;
  using U = std::make_unsigned_t<P>;
  return static_cast<unsigned>(static_cast<U>(static_cast<P>(b)) & (sizeof(P) * 8 - 1));
}

template <typename T>
constexpr T shift_left(T a, T b) {
  using U = std::make_unsigned_t<ShiftPromoted<T>>;
  return static_cast<T>(static_cast<U>(static_cast<ShiftPromoted<T>>(a)) << shift_count(b));
}

template <typename T>
constexpr T shift_right(T a, T b) {
  return static_cast<T>(static_cast<ShiftPromoted<T>>(a) >> shift_count(b));
}

}  // namespace burn::detail
