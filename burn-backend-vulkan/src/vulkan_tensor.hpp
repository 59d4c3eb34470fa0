// The Vulkan backend's tensor: a strided view (shape, strides in elements, offset) over a pool slice.
// permute, expand, slice and flip make views; kernels read any view through its layout and write
// contiguous results.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "burn/gpu/views.hpp"
#include "burn/tensor/backend.hpp"
#include "runtime/context.hpp"

namespace burn::vulkan {

class VulkanTensor final : public Primitive {
 public:
  VulkanTensor(Shape shape, DType dtype, AllocationPtr alloc, std::vector<int64_t> strides, int64_t offset);

  const AllocationPtr& alloc() const { return alloc_; }
  Allocation& allocation() const { return *alloc_; }
  const std::vector<int64_t>& strides() const { return strides_; }
  int64_t offset() const { return offset_; }
  bool is_contiguous() const { return contiguous_; }
  // The device address of element 0 of the view.
  VkDeviceAddress address() const { return alloc_->address() + static_cast<uint64_t>(offset_) * dtype_size(dtype()); }
  Context& context() const { return alloc_->context(); }

 private:
  AllocationPtr alloc_;
  std::vector<int64_t> strides_;
  int64_t offset_;
  bool contiguous_;
};
using VkPtr = std::shared_ptr<VulkanTensor>;

// The VulkanTensor behind a primitive; DeviceError naming `op` when it belongs to another backend or
// another Vulkan device.
VkPtr as_vk(const Prim& p, const char* op, const Context& ctx);
// A view with new shape, strides and offset over x's slice.
VkPtr make_view(const VkPtr& x, Shape shape, std::vector<int64_t> strides, int64_t offset);
// A view of geometry v over x's buffer (the layout ops' views, burn/gpu/views.hpp).
inline VkPtr make_view(const VkPtr& x, gpu::View v) {
  return make_view(x, std::move(v.shape), std::move(v.strides), v.offset);
}
// t's geometry.
inline gpu::View view_of(const VulkanTensor& t) { return {t.shape(), t.strides(), t.offset()}; }
// Whether `p` is the caller's only handle to a contiguous slice of this shape and dtype that nothing
// else views, so an elementwise op may write its result there.
bool reusable(const Prim& p, const Shape& shape, DType dtype);

}  // namespace burn::vulkan
