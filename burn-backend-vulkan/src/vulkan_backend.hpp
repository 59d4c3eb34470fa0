// The Vulkan backend: the ops it runs with its own kernels, one source file per op group
// (src/ops/<group>.cpp); DEFAULT ops missing from the list run burn-tensor's composites over these, on
// the device. Every op runs on the device: an op or dtype the device lacks is Unsupported, naming the op,
// the dtype and the device; nothing falls back to the host.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "burn/backend/vulkan/stats.hpp"
#include "burn/tensor/backend.hpp"
#include "fused/executor.hpp"
#include "runtime/context.hpp"
#include "vulkan_tensor.hpp"

// clang-format off
#define BURN_VULKAN_OPS(OP) \
  /* creation (src/ops/creation.cpp) */ \
  OP(empty) OP(full) OP(from_data) OP(into_data) OP(cast) OP(arange) OP(random) \
  /* layout (src/ops/layout.cpp) */ \
  OP(reshape) OP(permute) OP(expand) OP(flip) OP(slice) OP(slice_assign) OP(cat) OP(repeat_dim) \
  /* indexing (src/ops/indexing.cpp) */ \
  OP(gather) OP(scatter_add) OP(select) OP(select_add) OP(mask_where) OP(mask_fill) OP(argwhere) \
  /* embedding (src/ops/embedding.cpp) */ \
  OP(embedding) OP(embedding_backward) \
  /* bitwise (src/ops/bitwise.cpp) */ \
  OP(bitwise_and) OP(bitwise_or) OP(bitwise_xor) OP(bitwise_not) OP(bitwise_left_shift) OP(bitwise_right_shift) \
  /* numeric (src/ops/numeric.cpp, matmul.cpp) */ \
  OP(add) OP(sub) OP(mul) OP(div) OP(remainder) OP(powf) OP(abs) OP(matmul) \
  OP(add_scalar) OP(sub_scalar) OP(mul_scalar) OP(div_scalar) OP(remainder_scalar) OP(powf_scalar) \
  OP(fmod) OP(fmod_scalar) OP(maximum) OP(minimum) OP(neg) OP(sign) OP(clamp) OP(clamp_min) OP(clamp_max) \
  /* compare (src/ops/compare.cpp) */ \
  OP(equal) OP(greater) OP(greater_equal) OP(not_equal) OP(lower) OP(lower_equal) \
  OP(equal_elem) OP(not_equal_elem) OP(greater_elem) OP(greater_equal_elem) OP(lower_elem) OP(lower_equal_elem) \
  /* boolean (src/ops/boolean.cpp) */ \
  OP(bool_not) OP(bool_and) OP(bool_or) OP(bool_xor) \
  /* reduce (src/ops/reduce.cpp, scan.cpp, sort.cpp) */ \
  OP(sum_dim) OP(prod_dim) OP(max_dim) OP(min_dim) OP(argmax) OP(argmin) \
  OP(cumsum) OP(cumprod) OP(cummax) OP(cummin) OP(sort) \
  OP(sum) OP(mean) OP(prod) OP(max) OP(min) OP(mean_dim) OP(var) OP(any) OP(any_dim) OP(all) OP(all_dim) \
  OP(max_dim_with_indices) OP(min_dim_with_indices) OP(argsort) OP(topk) \
  /* float_math (src/ops/float_math.cpp) */ \
  OP(exp) OP(log) OP(log1p) OP(sqrt) OP(sin) OP(cos) OP(tan) OP(sinh) OP(cosh) OP(tanh) OP(asin) OP(acos) \
  OP(atan) OP(erf) OP(round) OP(floor) OP(ceil) OP(trunc) OP(atan2) OP(recip) OP(square) \
  OP(is_nan) OP(is_inf) OP(is_finite) \
  /* activation (src/ops/activation.cpp) */ \
  OP(relu) OP(leaky_relu) OP(gelu) OP(gelu_tanh) OP(sigmoid) OP(log_sigmoid) OP(silu) OP(mish) OP(softplus) \
  OP(hard_sigmoid) OP(elu) OP(selu) \
  /* module ops (src/ops/activation.cpp, conv.cpp, pool.cpp, norm.cpp, resample.cpp, attention.cpp) */ \
  OP(softmax) OP(log_softmax) OP(conv) OP(conv_backward) OP(conv_transpose) OP(conv_transpose_backward) \
  OP(layer_norm) OP(layer_norm_backward) OP(rms_norm) OP(rms_norm_backward) OP(group_norm) OP(group_norm_backward) \
  OP(batch_norm) OP(batch_norm_backward) \
  OP(max_pool) OP(max_pool_with_indices) OP(max_pool_backward) OP(avg_pool) OP(avg_pool_backward) \
  OP(adaptive_avg_pool) OP(adaptive_avg_pool_backward) OP(adaptive_max_pool) OP(adaptive_max_pool_backward) \
  OP(interpolate) OP(interpolate_backward) OP(attention)
// clang-format on

namespace burn::vulkan {

// The context of a device, shared by every backend object that names it ("vulkan", "vulkan:0").
std::shared_ptr<Context> context_for(const DeviceProfile& profile);

class VulkanBackend final : public Backend {
 public:
  // The backend of one device (see Instance::choose); `spec` is its name ("vulkan", "vulkan:1").
  VulkanBackend(std::shared_ptr<Context> ctx, std::string spec);
  ~VulkanBackend() override;

  std::string name() const override { return spec_; }
  // From the launchers' own dtype checks with the device's features (supports.cpp).
  bool supports(OpId op, DType dtype) const override;
  // "memory": MemoryStats of the device pool; kFusedElementwiseInterface: the fused executor (generated
  // kernels); "vulkan-stats": dispatch, submit and pipeline counters
  // (VulkanStats, burn/backend/vulkan/stats.hpp); "device-selector": a DeviceSelector for `vulkan:<n>`; "device-list".
  void* query_interface(std::string_view name) override;
  void sync() override;

  BURN_DECLARE_OPS(BURN_VULKAN_OPS)

  Context& context() const { return *ctx_; }
  // The VulkanTensor behind `p`, checked to be of this device.
  VkPtr vk(const Prim& p, const char* op) const { return as_vk(p, op, *ctx_); }
  // A new contiguous tensor; OutOfMemory naming the op and bytes when the device cannot give it.
  VkPtr alloc(const Shape& shape, DType dtype) const;
  // `x` when contiguous, else a contiguous copy (same dtype).
  VkPtr contiguous(const VkPtr& x, const char* op) const;
  // Copies any view `src` into the contiguous `dst` of the same shape, converting the dtype.
  void copy_into(const VulkanTensor& src, const VulkanTensor& dst, const char* op) const;

 private:
  std::shared_ptr<Context> ctx_;
  std::string spec_;
  VulkanFusedExecutor fused_{*this};
  mutable std::once_flag supports_once_;
  mutable std::vector<uint16_t> supports_;  // per op, bit d set when dtype d is supported
};

}  // namespace burn::vulkan
