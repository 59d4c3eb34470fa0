// Creation and data movement: allocation, fill, host <-> device copies and casts (the copy kernel), arange
// and random (burn-gpu/kernels/arange.kernel, random.kernel).
#include <mutex>

#include "burn/gpu/exprs.hpp"
#include "burn/gpu/random.hpp"
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

Prim OpenClBackend::arange(int64_t start, int64_t end, int64_t step, DType dtype) {
  const int64_t n = arange_length(start, end, step, dtype, "arange");
  ClPtr out = alloc(Shape{n}, dtype, "arange");
  if (n == 0) return out;
  Launch lc(*ctx_, "arange", "arange");
  if (dtype == DType::Bool) lc.define("TO_BOOL");
  if (n >= kIndex32) lc.define("INDEX64");
  lc.tensor("Y", *out, true).i64(n).i64(start).i64(step).run_1d(n);
  return out;
}

// Drawn on the device from Philox4x32-10 keyed by a 64-bit draw of the backend's seeded generator
// (Backend::seed), one key per call: the vulkan plugin's values for the same seed (the same kernel and plan,
// burn/gpu/random.hpp; normals up to the two math libraries' last bits), not the cpu backend's (its
// mt19937_64 stream is sequential). Semantics as Backend::random (gpu::random_plan).
Prim OpenClBackend::random(const Shape& shape, const Distribution& dist, DType dtype) {
  // The default body on an empty shape checks the distribution against the dtype and draws nothing.
  Backend::random(Shape{0}, dist, dtype);
  ClPtr out = alloc(shape, dtype, "random");
  const int64_t n = shape.num_elements();
  if (n == 0) return out;
  const gpu::RandomPlan r = gpu::random_plan(dist, dtype, ctx_->profile().fp64);
  uint64_t key;
  {
    std::lock_guard lock(rng_mutex());
    key = rng()();
  }
  Launch lc(*ctx_, "random", "random");
  lc.use(gpu::random_defines(dtype, r.kind, r.r64));
  if (n >= kIndex32) lc.define("INDEX64");
  lc.tensor("Y", *out, true).i64(n).u32(static_cast<uint32_t>(key)).u32(static_cast<uint32_t>(key >> 32));
  lc.u64(r.a_bits).u64(r.b_bits).u64(r.top_bits).i64(r.lo).u64(r.range).u64(r.threshold);
  lc.i64(r.sat_lo).i64(r.sat_hi).run_1d(n);
  return out;
}

}  // namespace burn::opencl
