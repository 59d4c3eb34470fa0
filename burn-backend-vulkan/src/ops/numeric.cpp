// Numeric elementwise ops: every one is its expression (exprs.cpp) run by the elementwise launcher.
#include "ops/elementwise.hpp"

namespace burn::vulkan {

#define BURN_VK_BINARY(name)                                                 \
  Prim VulkanBackend::name(Prim lhs, Prim rhs) {                             \
    return elementwise(*this, OpId::name, {std::move(lhs), std::move(rhs)}); \
  }
#define BURN_VK_SCALAR(name) \
  Prim VulkanBackend::name(Prim lhs, Scalar rhs) { return elementwise(*this, OpId::name, {std::move(lhs)}, rhs); }
#define BURN_VK_UNARY(name) \
  Prim VulkanBackend::name(Prim x) { return elementwise(*this, OpId::name, {std::move(x)}); }

BURN_VK_BINARY(add)
BURN_VK_BINARY(sub)
BURN_VK_BINARY(mul)
BURN_VK_BINARY(div)
BURN_VK_BINARY(remainder)
BURN_VK_BINARY(fmod)
BURN_VK_BINARY(powf)
BURN_VK_BINARY(maximum)
BURN_VK_BINARY(minimum)
BURN_VK_SCALAR(add_scalar)
BURN_VK_SCALAR(sub_scalar)
BURN_VK_SCALAR(mul_scalar)
BURN_VK_SCALAR(div_scalar)
BURN_VK_SCALAR(remainder_scalar)
BURN_VK_SCALAR(fmod_scalar)
BURN_VK_SCALAR(powf_scalar)
BURN_VK_SCALAR(clamp_min)
BURN_VK_SCALAR(clamp_max)
BURN_VK_UNARY(neg)
BURN_VK_UNARY(abs)
BURN_VK_UNARY(sign)

Prim VulkanBackend::clamp(Prim x, Scalar min, Scalar max) {
  return elementwise(*this, OpId::clamp, {std::move(x)}, min, max);
}

}  // namespace burn::vulkan
