// Bool ops on bytes 0/1: their expressions (exprs.cpp) run by the elementwise launcher.
#include "ops/elementwise.hpp"

namespace burn::vulkan {

Prim VulkanBackend::bool_not(Prim x) { return elementwise(*this, OpId::bool_not, {std::move(x)}); }
Prim VulkanBackend::bool_and(Prim lhs, Prim rhs) {
  return elementwise(*this, OpId::bool_and, {std::move(lhs), std::move(rhs)});
}
Prim VulkanBackend::bool_or(Prim lhs, Prim rhs) {
  return elementwise(*this, OpId::bool_or, {std::move(lhs), std::move(rhs)});
}
Prim VulkanBackend::bool_xor(Prim lhs, Prim rhs) {
  return elementwise(*this, OpId::bool_xor, {std::move(lhs), std::move(rhs)});
}

}  // namespace burn::vulkan
