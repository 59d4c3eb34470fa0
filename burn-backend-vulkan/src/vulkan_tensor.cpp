// VulkanTensor: views and ownership checks.
#include "vulkan_tensor.hpp"

#include "burn/gpu/layout.hpp"
#include "burn/tensor/error.hpp"

namespace burn::vulkan {

VulkanTensor::VulkanTensor(Shape shape, DType dtype, AllocationPtr alloc, std::vector<int64_t> strides, int64_t offset)
    : Primitive(std::move(shape), dtype), alloc_(std::move(alloc)), strides_(std::move(strides)), offset_(offset) {
  contiguous_ = gpu::is_row_major(this->shape(), strides_);
}

VkPtr as_vk(const Prim& p, const char* op, const Context& ctx) {
  if (!p) throw ValueError(op, "a tensor argument is missing");
  auto t = std::dynamic_pointer_cast<VulkanTensor>(p);
  if (!t) throw DeviceError(op, "the tensor does not belong to the vulkan backend");
  if (&t->context() != &ctx)
    throw DeviceError(op, "the tensor belongs to another Vulkan device (" + t->context().profile().name + ")");
  return t;
}

VkPtr make_view(const VkPtr& x, Shape shape, std::vector<int64_t> strides, int64_t offset) {
  return std::make_shared<VulkanTensor>(std::move(shape), x->dtype(), x->alloc(), std::move(strides), offset);
}

bool reusable(const Prim& p, const Shape& shape, DType dtype) {
  if (!p || p.use_count() != 1 || p->dtype() != dtype || p->shape() != shape) return false;
  const auto* t = dynamic_cast<const VulkanTensor*>(p.get());
  return t && t->is_contiguous() && t->alloc().use_count() == 1;
}

}  // namespace burn::vulkan
