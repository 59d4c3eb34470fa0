// Bitwise ops of the cpu backend on i64, i32, i8 and u8 tensors: and, or, xor, not and the shifts, with
// NumPy broadcasting (one dtype on both sides). The shift-count rules are burn::detail's (torch 1.13 on
// x86-64: the count modulo the promoted width); these loops vectorise (AVX2 has per-lane shifts).
#include <cstdint>

#include "burn/tensor/detail/bitwise.hpp"
#include "cpu_backend.hpp"
#include "cpu_tensor.hpp"
#include "elementwise.hpp"
#include "ops/math_util.hpp"

namespace burn::cpu {

Prim CpuBackend::bitwise_and(Prim lhs, Prim rhs) {
  return zip_map<Dtypes::Int>(std::move(lhs), std::move(rhs), "bitwise_and", [](auto a, auto b) { return a & b; });
}

Prim CpuBackend::bitwise_or(Prim lhs, Prim rhs) {
  return zip_map<Dtypes::Int>(std::move(lhs), std::move(rhs), "bitwise_or", [](auto a, auto b) { return a | b; });
}

Prim CpuBackend::bitwise_xor(Prim lhs, Prim rhs) {
  return zip_map<Dtypes::Int>(std::move(lhs), std::move(rhs), "bitwise_xor", [](auto a, auto b) { return a ^ b; });
}

Prim CpuBackend::bitwise_not(Prim x) {
  return unary_map<Dtypes::Int>(std::move(x), "bitwise_not", [](auto a) { return ~a; });
}

Prim CpuBackend::bitwise_left_shift(Prim lhs, Prim rhs) {
  return zip_map<Dtypes::Int>(std::move(lhs), std::move(rhs), "bitwise_left_shift",
                              [](auto a, auto b) { return detail::shift_left(a, b); });
}

Prim CpuBackend::bitwise_right_shift(Prim lhs, Prim rhs) {
  return zip_map<Dtypes::Int>(std::move(lhs), std::move(rhs), "bitwise_right_shift",
                              [](auto a, auto b) { return detail::shift_right(a, b); });
}

}  // namespace burn::cpu
