// Indexing ops: selecting by a bool mask is elementwise (exprs.cpp); gather, scatter and argwhere have
// kernels of their own.
#include "ops/elementwise.hpp"

namespace burn::vulkan {

Prim VulkanBackend::mask_where(Prim x, Prim mask, Prim value) {
  return elementwise(*this, OpId::mask_where, {std::move(x), std::move(mask), std::move(value)});
}

Prim VulkanBackend::mask_fill(Prim x, Prim mask, Scalar value) {
  return elementwise(*this, OpId::mask_fill, {std::move(x), std::move(mask)}, value);
}

}  // namespace burn::vulkan
