// Creation and data movement: allocation, fill, host <-> device copies and casts (the copy kernel).
#include <cstring>

#include "burn/tensor/error.hpp"
#include "dispatch.hpp"
#include "exprs.hpp"
#include "vulkan_backend.hpp"

namespace burn::vulkan {

Prim VulkanBackend::empty(const Shape& shape, DType dtype) { return alloc(shape, dtype); }

Prim VulkanBackend::full(const Shape& shape, Scalar value, DType dtype) {
  VkPtr out = alloc(shape, dtype);
  const int64_t n = shape.num_elements();
  if (n == 0) return out;
  Dispatch(*ctx_, "fill", "full")
      .tensor("Y", *out, true)
      .push_i64(n)
      .push_u64(scalar_bits(value, dtype))
      .define("SCALAR(bits)", scalar_decoder(dtype))
      .run_1d(n);
  return out;
}

Prim VulkanBackend::from_data(const TensorData& data) {
  VkPtr out = alloc(data.shape(), data.dtype());
  ctx_->write(out->allocation(), 0, data.raw(), data.bytes().size());
  return out;
}

TensorData VulkanBackend::into_data(const Prim& x) {
  const VkPtr t = contiguous(vk(x, "into_data"), "into_data");
  TensorData data = TensorData::uninitialized(t->shape(), t->dtype());
  ctx_->read(t->allocation(), static_cast<uint64_t>(t->offset()) * dtype_size(t->dtype()), data.raw(),
             data.bytes().size());
  return data;
}

Prim VulkanBackend::cast(Prim x, DType dtype) {
  const VkPtr t = vk(x, "cast");
  if (t->dtype() == dtype) return x;
  VkPtr out = alloc(t->shape(), dtype);
  copy_into(*t, *out, "cast");
  return out;
}

}  // namespace burn::vulkan
