// Creation and data movement: allocation, fill, host <-> device copies and casts (the copy kernel),
// arange and random on the device (kernels/arange.comp, kernels/random.comp).
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>

#include "burn/gpu/exprs.hpp"
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

namespace {

// The largest value of float dtype d below b (b finite): where a uniform draw that rounds up to b goes.
double below_in(DType d, double b) {
  if (d == DType::F64) return std::nextafter(b, -INFINITY);
  if (d == DType::F32) {
    const float f = static_cast<float>(b);
    return f < b ? f : std::nextafter(f, -INFINITY);
  }
  const uint16_t h = f32_to_f16(static_cast<float>(b));  // f16
  if (f16_to_f32(h) < b) return f16_to_f32(h);
  const uint16_t down = (h & 0x7fff) == 0 ? 0x8001
                        : (h & 0x8000)    ? static_cast<uint16_t>(h + 1)
                                          : static_cast<uint16_t>(h - 1);
  return f16_to_f32(down);
}

}  // namespace

void check_random_dtype(DType dtype, const DeviceFeatures& features, const std::string& device) {
  if (dtype == DType::BF16)
    throw Unsupported("random", "dtype bf16 on Vulkan device " + device + ": bf16 is storage only (draw f32 and cast)");
  glsl_type(dtype, features, device, "random");
}

Defines random_defines(DType dtype, const char* kind, bool r64, const DeviceFeatures& features,
                       const std::string& device) {
  check_random_dtype(dtype, features, device);
  const bool fl = dtype == DType::F32 || dtype == DType::F64 || dtype == DType::F16;
  Defines d{{"KIND", kind}};
  add_operand_defines(d, "Y", dtype, features, device, "random");
  if (r64) {
    d.emplace_back("R_F64", "1");
    d.emplace_back("HAS_F64", "1");
  }
  if (dtype == DType::Bool)
    d.emplace_back("TO_BOOL", "1");
  else if (!fl && std::string_view(kind) != "KIND_UNIFORM_INT")
    d.emplace_back("TO_INT", "1");
  return d;
}

// Values are drawn on the device from Philox4x32-10 keyed by a 64-bit draw of the backend's seeded
// generator (Backend::seed), one key per call: a seed gives the same tensors on every run and device, but
// not the cpu backend's values (its mt19937_64 stream is sequential). Semantics follow Backend::random:
// float Default = Uniform(a, b) half-open in the target dtype; integer Uniform draws [ceil(a), ceil(b));
// Normal on integers truncates toward zero (saturating); bool Default is a fair coin; Bernoulli 0/1.
Prim VulkanBackend::random(const Shape& shape, const Distribution& dist, DType dtype) {
  using K = Distribution::Kind;
  // The default body on an empty shape checks the distribution against the dtype (its errors and messages
  // stay in one place) and draws nothing.
  Backend::random(Shape{0}, dist, dtype);
  check_random_dtype(dtype, ctx_->profile().features, ctx_->profile().name);
  VkPtr out = alloc(shape, dtype);
  const int64_t n = shape.num_elements();
  if (n == 0) return out;
  const bool fl = dtype == DType::F32 || dtype == DType::F64 || dtype == DType::F16;
  K kind = dist.kind;
  if (kind == K::Default) kind = dtype == DType::Bool ? K::Bernoulli : K::Uniform;
  const double p = dist.kind == K::Default ? 0.5 : dist.a;
  const bool int_uniform = kind == K::Uniform && !fl;
  // Draws are computed in double for f64 and, where the device has it, for integer and bool targets.
  const bool r64 = dtype == DType::F64 || (!fl && ctx_->profile().features.float64);
  auto bits = [&](double v) -> uint64_t {
    return r64 ? std::bit_cast<uint64_t>(v) : std::bit_cast<uint32_t>(static_cast<float>(v));
  };
  uint64_t key;
  {
    std::lock_guard lock(rng_mutex());
    key = rng()();
  }
  Dispatch dp(*ctx_, "random", "random");
  dp.address(*out, true).push_i64(n);
  dp.push_i32(static_cast<int32_t>(static_cast<uint32_t>(key))).push_i32(static_cast<int32_t>(key >> 32));
  dp.push_u64(bits(dist.a)).push_u64(bits(dist.b)).push_u64(int_uniform || !fl ? 0 : bits(below_in(dtype, dist.b)));
  int64_t lo = 0;
  uint64_t range = 0, threshold = 0;
  const char* k = "KIND_UNIFORM_FLOAT";
  if (int_uniform) {
    k = "KIND_UNIFORM_INT";
    lo = static_cast<int64_t>(std::ceil(dist.a));
    range = static_cast<uint64_t>(static_cast<int64_t>(std::ceil(dist.b))) - static_cast<uint64_t>(lo);
    threshold = (0 - range) % range;  // 2^64 mod range: draws below it are rejected
  } else if (kind == K::Normal) {
    k = "KIND_NORMAL";
  } else if (kind == K::Bernoulli) {
    k = "KIND_BERNOULLI";
    threshold = static_cast<uint64_t>(std::ceil(p * 0x1.0p53));  // u53 < p * 2^53
  }
  dp.push_i64(lo).push_u64(range).push_u64(threshold);
  int64_t sat_lo = 0, sat_hi = 0;
  switch (dtype) {
    case DType::I64:
      sat_lo = std::numeric_limits<int64_t>::min();
      sat_hi = std::numeric_limits<int64_t>::max();
      break;
    case DType::I32:
      sat_lo = std::numeric_limits<int32_t>::min();
      sat_hi = std::numeric_limits<int32_t>::max();
      break;
    case DType::I8:
      sat_lo = -128;
      sat_hi = 127;
      break;
    case DType::U8: sat_hi = 255; break;
    default: break;
  }
  dp.push_i64(sat_lo).push_i64(sat_hi);
  dp.use(random_defines(dtype, k, r64, ctx_->profile().features, ctx_->profile().name));
  dp.run_1d(n);
  return out;
}

}  // namespace burn::vulkan
