// Activations: one dispatch each, their expressions (exprs.cpp) run by the elementwise launcher; the
// double parameters travel as the expression's scalars.
#include "ops/elementwise.hpp"

namespace burn::vulkan {

#define BURN_VK_UNARY(name) \
  Prim VulkanBackend::name(Prim x) { return elementwise(*this, OpId::name, {std::move(x)}); }

BURN_VK_UNARY(relu)
BURN_VK_UNARY(gelu)
BURN_VK_UNARY(gelu_tanh)
BURN_VK_UNARY(sigmoid)
BURN_VK_UNARY(log_sigmoid)
BURN_VK_UNARY(silu)
BURN_VK_UNARY(mish)
BURN_VK_UNARY(selu)

Prim VulkanBackend::leaky_relu(Prim x, double negative_slope) {
  return elementwise(*this, OpId::leaky_relu, {std::move(x)}, Scalar(negative_slope));
}
Prim VulkanBackend::softplus(Prim x, double beta, double threshold) {
  return elementwise(*this, OpId::softplus, {std::move(x)}, Scalar(beta), Scalar(threshold));
}
Prim VulkanBackend::hard_sigmoid(Prim x, double alpha, double beta) {
  return elementwise(*this, OpId::hard_sigmoid, {std::move(x)}, Scalar(alpha), Scalar(beta));
}
Prim VulkanBackend::elu(Prim x, double alpha) { return elementwise(*this, OpId::elu, {std::move(x)}, Scalar(alpha)); }

}  // namespace burn::vulkan
