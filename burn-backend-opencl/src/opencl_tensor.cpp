// OpenClTensor: views and ownership checks.
#include "opencl_tensor.hpp"

#include "burn/gpu/layout.hpp"
#include "burn/tensor/error.hpp"

namespace burn::opencl {

OpenClTensor::OpenClTensor(Shape shape, DType dtype, AllocationPtr alloc, std::vector<int64_t> strides, int64_t offset)
    : Primitive(std::move(shape), dtype), alloc_(std::move(alloc)), strides_(std::move(strides)), offset_(offset) {
  contiguous_ = gpu::is_row_major(this->shape(), strides_);
}

ClPtr as_cl(const Prim& p, const char* op, const Context& ctx) {
  if (!p) throw ValueError(op, "a tensor argument is missing");
  auto t = std::dynamic_pointer_cast<OpenClTensor>(p);
  if (!t) throw DeviceError(op, "the tensor does not belong to the opencl backend");
  if (&t->context() != &ctx)
    throw DeviceError(op, "the tensor belongs to another OpenCL device (" + t->context().profile().describe() + ")");
  return t;
}

ClPtr make_view(const ClPtr& x, Shape shape, std::vector<int64_t> strides, int64_t offset) {
  return std::make_shared<OpenClTensor>(std::move(shape), x->dtype(), x->alloc(), std::move(strides), offset);
}

bool reusable(const Prim& p, const Shape& shape, DType dtype) {
  if (!p || p.use_count() != 1 || p->dtype() != dtype || p->shape() != shape) return false;
  const auto* t = dynamic_cast<const OpenClTensor*>(p.get());
  return t && t->is_contiguous() && t->alloc().use_count() == 1;
}

}  // namespace burn::opencl
