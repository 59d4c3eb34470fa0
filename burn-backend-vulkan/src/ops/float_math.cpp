// Float math: each op is its expression (exprs.cpp, kernels/math.glsl) run by the elementwise launcher.
#include "ops/elementwise.hpp"

namespace burn::vulkan {

#define BURN_VK_UNARY(name) \
  Prim VulkanBackend::name(Prim x) { return elementwise(*this, OpId::name, {std::move(x)}); }

BURN_VK_UNARY(exp)
BURN_VK_UNARY(log)
BURN_VK_UNARY(log1p)
BURN_VK_UNARY(sqrt)
BURN_VK_UNARY(sin)
BURN_VK_UNARY(cos)
BURN_VK_UNARY(tan)
BURN_VK_UNARY(sinh)
BURN_VK_UNARY(cosh)
BURN_VK_UNARY(tanh)
BURN_VK_UNARY(asin)
BURN_VK_UNARY(acos)
BURN_VK_UNARY(atan)
BURN_VK_UNARY(erf)
BURN_VK_UNARY(round)
BURN_VK_UNARY(floor)
BURN_VK_UNARY(ceil)
BURN_VK_UNARY(trunc)
BURN_VK_UNARY(recip)
BURN_VK_UNARY(square)
BURN_VK_UNARY(is_nan)
BURN_VK_UNARY(is_inf)
BURN_VK_UNARY(is_finite)

Prim VulkanBackend::atan2(Prim lhs, Prim rhs) {
  return elementwise(*this, OpId::atan2, {std::move(lhs), std::move(rhs)});
}

}  // namespace burn::vulkan
