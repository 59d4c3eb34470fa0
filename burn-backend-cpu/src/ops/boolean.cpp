// CPU bool ops: not, and, or, xor over Bool (u8 0/1) tensors, with broadcasting.
#include <string>

#include "cpu_backend.hpp"
#include "cpu_tensor.hpp"
#include "elementwise.hpp"

namespace burn::cpu {

namespace {

void require_bool(const Prim& p, const char* op) {
  const DType d = as_cpu(p, op)->dtype();
  if (d != DType::Bool) throw DTypeError(op, "expected a bool tensor, got " + std::string(dtype_name(d)));
}

template <typename F>
Prim bool_binary(Prim lhs, Prim rhs, const char* op, F f) {
  require_bool(lhs, op);
  require_bool(rhs, op);
  return binary_op<uint8_t, uint8_t>(std::move(lhs), std::move(rhs), DType::Bool, op, f);
}

}  // namespace

Prim CpuBackend::bool_not(Prim x) {
  require_bool(x, "bool_not");
  return unary_op<uint8_t, uint8_t>(std::move(x), DType::Bool, "bool_not",
                                    [](uint8_t v) { return static_cast<uint8_t>(v == 0); });
}

Prim CpuBackend::bool_and(Prim lhs, Prim rhs) {
  return bool_binary(std::move(lhs), std::move(rhs), "bool_and",
                     [](uint8_t a, uint8_t b) { return static_cast<uint8_t>((a != 0) & (b != 0)); });
}

Prim CpuBackend::bool_or(Prim lhs, Prim rhs) {
  return bool_binary(std::move(lhs), std::move(rhs), "bool_or",
                     [](uint8_t a, uint8_t b) { return static_cast<uint8_t>((a != 0) | (b != 0)); });
}

Prim CpuBackend::bool_xor(Prim lhs, Prim rhs) {
  return bool_binary(std::move(lhs), std::move(rhs), "bool_xor",
                     [](uint8_t a, uint8_t b) { return static_cast<uint8_t>((a != 0) != (b != 0)); });
}

}  // namespace burn::cpu
