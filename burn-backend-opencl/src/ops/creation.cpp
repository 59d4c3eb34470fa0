// Creation and data movement: allocation, fill, host <-> device copies and casts (the copy kernel).
#include "burn/gpu/exprs.hpp"
#include "burn/tensor/error.hpp"
#include "launch.hpp"
#include "opencl_backend.hpp"

namespace burn::opencl {

Prim OpenClBackend::empty(const Shape& shape, DType dtype) { return alloc(shape, dtype, "empty"); }

Prim OpenClBackend::full(const Shape& shape, Scalar value, DType dtype) {
  ClPtr out = alloc(shape, dtype, "full");
  const int64_t n = shape.num_elements();
  if (n == 0) return out;
  Launch(*ctx_, "fill", "full")
      .tensor("Y", *out, true)
      .i64(n)
      .u64(gpu::scalar_bits(value, dtype))
      .define("SCALAR(bits)", gpu::scalar_decoder(dtype))
      .run_1d(n);
  return out;
}

Prim OpenClBackend::from_data(const TensorData& data) {
  ClPtr out = alloc(data.shape(), data.dtype(), "from_data");
  ctx_->write(out->allocation(), 0, data.raw(), data.bytes().size(), "from_data");
  return out;
}

TensorData OpenClBackend::into_data(const Prim& x) {
  const ClPtr t = contiguous(cl(x, "into_data"), "into_data");
  TensorData data = TensorData::uninitialized(t->shape(), t->dtype());
  ctx_->read(t->allocation(), static_cast<size_t>(t->offset()) * dtype_size(t->dtype()), data.raw(),
             data.bytes().size(), "into_data");
  return data;
}

Prim OpenClBackend::cast(Prim x, DType dtype) {
  const ClPtr t = cl(x, "cast");
  if (t->dtype() == dtype) return x;
  ClPtr out = alloc(t->shape(), dtype, "cast");
  copy_into(*t, *out, "cast");
  return out;
}

}  // namespace burn::opencl
