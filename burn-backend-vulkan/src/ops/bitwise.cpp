// Bitwise ops on i64, i32, i8 and u8 tensors: elementwise expressions (exprs.cpp) with the cpu backend's
// shift rules; float and bool tensors are a DTypeError, as there.
#include <string>

#include "burn/tensor/error.hpp"
#include "ops/elementwise.hpp"

namespace burn::vulkan {

namespace {

Prim int_elementwise(const VulkanBackend& be, OpId op, std::initializer_list<Prim> inputs) {
  for (const Prim& p : inputs) {
    if (!p) throw ValueError(op_info(op).name, "a tensor argument is missing");
    const DType d = p->dtype();
    if (d != DType::I64 && d != DType::I32 && d != DType::I8 && d != DType::U8)
      throw DTypeError(op_info(op).name,
                       "expected an integer tensor (i64, i32, i8 or u8), got " + std::string(dtype_name(d)));
  }
  return elementwise(be, op, inputs);
}

}  // namespace

Prim VulkanBackend::bitwise_and(Prim lhs, Prim rhs) {
  return int_elementwise(*this, OpId::bitwise_and, {std::move(lhs), std::move(rhs)});
}

Prim VulkanBackend::bitwise_or(Prim lhs, Prim rhs) {
  return int_elementwise(*this, OpId::bitwise_or, {std::move(lhs), std::move(rhs)});
}

Prim VulkanBackend::bitwise_xor(Prim lhs, Prim rhs) {
  return int_elementwise(*this, OpId::bitwise_xor, {std::move(lhs), std::move(rhs)});
}

Prim VulkanBackend::bitwise_not(Prim x) { return int_elementwise(*this, OpId::bitwise_not, {std::move(x)}); }

Prim VulkanBackend::bitwise_left_shift(Prim lhs, Prim rhs) {
  return int_elementwise(*this, OpId::bitwise_left_shift, {std::move(lhs), std::move(rhs)});
}

Prim VulkanBackend::bitwise_right_shift(Prim lhs, Prim rhs) {
  return int_elementwise(*this, OpId::bitwise_right_shift, {std::move(lhs), std::move(rhs)});
}

}  // namespace burn::vulkan
