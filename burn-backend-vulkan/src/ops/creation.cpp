// Creation and data movement: allocation, fill, host <-> device copies and casts (the copy kernel),
// arange and random on the device (burn-gpu/kernels/arange.kernel, random.kernel).
#include <cstring>
#include <mutex>

#include "burn/gpu/exprs.hpp"
#include "burn/gpu/random.hpp"
#include "burn/tensor/error.hpp"
#include "dispatch.hpp"
#include "ops/creation.hpp"
#include "vulkan_backend.hpp"

namespace burn::vulkan {

using gpu::elementwise_expr;
using gpu::Expr;
using gpu::scalar_bits;
using gpu::scalar_decoder;

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

Prim VulkanBackend::arange(int64_t start, int64_t end, int64_t step, DType dtype) {
  const int64_t n = arange_length(start, end, step, dtype, "arange");
  VkPtr out = alloc(Shape{n}, dtype);
  if (n == 0) return out;
  Dispatch dp(*ctx_, "arange", "arange");
  dp.use(arange_defines(dtype, ctx_->profile().features, ctx_->profile().name));
  dp.address(*out, true).push_i64(n).push_i64(start).push_i64(step);
  dp.run_1d(n);
  return out;
}

Defines arange_defines(DType dtype, const DeviceFeatures& features, const std::string& device) {
  Defines d;
  add_operand_defines(d, "Y", dtype, features, device, "arange");
  if (dtype == DType::Bool) d.emplace_back("TO_BOOL", "1");
  return d;
}

void check_random_dtype(DType dtype, const DeviceFeatures& features, const std::string& device) {
  if (dtype == DType::BF16)
    throw Unsupported("random", "dtype bf16 on Vulkan device " + device + ": bf16 is storage only (draw f32 and cast)");
  glsl_type(dtype, features, device, "random");
}

Defines random_defines(DType dtype, const char* kind, bool r64, const DeviceFeatures& features,
                       const std::string& device) {
  check_random_dtype(dtype, features, device);
  Defines d = gpu::random_defines(dtype, kind, r64);
  add_operand_defines(d, "Y", dtype, features, device, "random");
  return d;
}

// Values are drawn on the device from Philox4x32-10 keyed by a 64-bit draw of the backend's seeded
// generator (Backend::seed), one key per call: a seed gives the same tensors on every run and device (the
// opencl plugin's too: the plan is burn/gpu/random.hpp), but not the cpu backend's values (its mt19937_64
// stream is sequential). Semantics follow Backend::random (gpu::random_plan).
Prim VulkanBackend::random(const Shape& shape, const Distribution& dist, DType dtype) {
  // The default body on an empty shape checks the distribution against the dtype (its errors and messages
  // stay in one place) and draws nothing.
  Backend::random(Shape{0}, dist, dtype);
  check_random_dtype(dtype, ctx_->profile().features, ctx_->profile().name);
  VkPtr out = alloc(shape, dtype);
  const int64_t n = shape.num_elements();
  if (n == 0) return out;
  const gpu::RandomPlan r = gpu::random_plan(dist, dtype, ctx_->profile().features.float64);
  uint64_t key;
  {
    std::lock_guard lock(rng_mutex());
    key = rng()();
  }
  Dispatch dp(*ctx_, "random", "random");
  dp.address(*out, true).push_i64(n);
  dp.push_i32(static_cast<int32_t>(static_cast<uint32_t>(key))).push_i32(static_cast<int32_t>(key >> 32));
  dp.push_u64(r.a_bits).push_u64(r.b_bits).push_u64(r.top_bits);
  dp.push_i64(r.lo).push_u64(r.range).push_u64(r.threshold);
  dp.push_i64(r.sat_lo).push_i64(r.sat_hi);
  dp.use(random_defines(dtype, r.kind, r.r64, ctx_->profile().features, ctx_->profile().name));
  dp.run_1d(n);
  return out;
}

}  // namespace burn::vulkan
