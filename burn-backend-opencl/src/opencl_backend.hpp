// The OpenCL backend: the ops it runs with its own kernels, one source file per op group
// (src/ops/<group>.cpp); DEFAULT ops missing from the list run burn-tensor's composites over these, on the
// device; nothing falls back to the host.
#pragma once

#include <memory>
#include <string>

#include "burn/tensor/backend.hpp"
#include "fused/executor.hpp"
#include "opencl_tensor.hpp"
#include "runtime/context.hpp"

// clang-format off
#define BURN_OPENCL_OPS(OP) \
  /* creation (src/ops/creation.cpp) */ \
  OP(empty) OP(full) OP(from_data) OP(into_data) OP(cast) OP(arange) OP(random) \
  /* layout (src/ops/layout.cpp) */ \
  OP(reshape) OP(permute) OP(expand) OP(flip) OP(slice) OP(slice_assign) \
  /* indexing (src/ops/indexing.cpp) */ \
  OP(gather) OP(scatter_add) OP(select) OP(select_add) OP(mask_where) OP(mask_fill) OP(argwhere) \
  /* bitwise (src/ops/bitwise.cpp) */ \
  OP(bitwise_and) OP(bitwise_or) OP(bitwise_xor) OP(bitwise_not) OP(bitwise_left_shift) OP(bitwise_right_shift) \
  /* numeric (src/ops/numeric.cpp; matmul: src/ops/matmul.cpp) */ \
  OP(add) OP(sub) OP(mul) OP(div) OP(remainder) OP(powf) OP(abs) OP(matmul) \
  OP(add_scalar) OP(sub_scalar) OP(mul_scalar) OP(div_scalar) OP(remainder_scalar) OP(powf_scalar) \
  OP(fmod) OP(fmod_scalar) OP(maximum) OP(minimum) OP(neg) OP(sign) OP(clamp) OP(clamp_min) OP(clamp_max) \
  /* compare (src/ops/compare.cpp) */ \
  OP(equal) OP(greater) OP(greater_equal) OP(not_equal) OP(lower) OP(lower_equal) \
  OP(equal_elem) OP(not_equal_elem) OP(greater_elem) OP(greater_equal_elem) OP(lower_elem) OP(lower_equal_elem) \
  /* boolean (src/ops/boolean.cpp) */ \
  OP(bool_not) OP(bool_and) OP(bool_or) OP(bool_xor) \
  /* reduce (src/ops/reduce.cpp; sort, argsort, topk: src/ops/sort.cpp) */ \
  OP(sum) OP(mean) OP(prod) OP(max) OP(min) OP(any) OP(all) \
  OP(sum_dim) OP(mean_dim) OP(prod_dim) OP(max_dim) OP(min_dim) OP(any_dim) OP(all_dim) \
  OP(argmax) OP(argmin) OP(max_dim_with_indices) OP(min_dim_with_indices) \
  OP(cumsum) OP(cumprod) OP(cummax) OP(cummin) OP(sort) OP(argsort) OP(topk) \
  /* pool (src/ops/pool.cpp) */ \
  OP(max_pool) OP(max_pool_with_indices) OP(max_pool_backward) OP(avg_pool) OP(avg_pool_backward) \
  OP(adaptive_avg_pool) OP(adaptive_avg_pool_backward) OP(adaptive_max_pool) OP(adaptive_max_pool_backward) \
  /* conv (src/ops/conv.cpp) */ \
  OP(conv) OP(conv_backward) OP(conv_transpose) OP(conv_transpose_backward) \
  /* norm (src/ops/norm.cpp) */ \
  OP(layer_norm) OP(layer_norm_backward) OP(rms_norm) OP(rms_norm_backward) OP(group_norm) OP(group_norm_backward) \
  OP(batch_norm) OP(batch_norm_backward) \
  /* resample (src/ops/resample.cpp) */ \
  OP(interpolate) OP(interpolate_backward) \
  /* attention (src/ops/attention.cpp) */ \
  OP(attention) \
  /* float_math (src/ops/float_math.cpp) */ \
  OP(exp) OP(log) OP(log1p) OP(sqrt) OP(sin) OP(cos) OP(tan) OP(sinh) OP(cosh) OP(tanh) OP(asin) OP(acos) \
  OP(atan) OP(erf) OP(round) OP(floor) OP(ceil) OP(trunc) OP(atan2) OP(recip) OP(square) \
  OP(is_nan) OP(is_inf) OP(is_finite) \
  /* activation (src/ops/activation.cpp) */ \
  OP(softmax) OP(log_softmax) OP(relu) OP(leaky_relu) OP(gelu) OP(gelu_tanh) OP(sigmoid) OP(log_sigmoid) OP(silu) OP(mish) OP(softplus) \
  OP(hard_sigmoid) OP(elu) OP(selu)
// clang-format on

namespace burn::opencl {

// The context of a device, shared by every backend object that names it ("opencl", "opencl:0").
std::shared_ptr<Context> context_for(const DeviceProfile& profile);

class OpenClBackend final : public Backend {
 public:
  // The backend of one device (see Platforms::choose); `spec` is its name ("opencl", "opencl:1").
  OpenClBackend(std::shared_ptr<Context> ctx, std::string spec);
  ~OpenClBackend() override;

  std::string name() const override { return spec_; }
  // supports.cpp: the elementwise table and the device's dtypes; false for the pending ops.
  bool supports(OpId op, DType dtype) const override;
  // kDeviceSelectorInterface: a DeviceSelector for `opencl:<n>`; kOpenClStatsInterface: the device's
  // OpenClStats (live counters); kFusedElementwiseInterface: the fused executor (src/fused/).
  void* query_interface(std::string_view name) override;
  void sync() override;

  BURN_DECLARE_OPS(BURN_OPENCL_OPS)

  Context& context() const { return *ctx_; }
  // The OpenClTensor behind `p`, checked to be of this device.
  ClPtr cl(const Prim& p, const char* op) const { return as_cl(p, op, *ctx_); }
  // A new contiguous tensor; OutOfMemory naming the op and bytes when the device cannot give it.
  ClPtr alloc(const Shape& shape, DType dtype, const char* op) const;
  // `x` when contiguous, else a contiguous copy (same dtype).
  ClPtr contiguous(const ClPtr& x, const char* op) const;
  // Copies any view `src` into the view `dst` of the same shape, converting the dtype.
  void copy_into(const OpenClTensor& src, const OpenClTensor& dst, const char* op) const;

 private:
  std::shared_ptr<Context> ctx_;
  std::string spec_;
  OpenClFusedExecutor fused_{*this};
};

// Why CLBlast's GEMM is not used for `dtype` on this device (its self-test at first use, run now if not
// yet), or empty when it is (src/ops/matmul.cpp; the tests ask).
std::string clblast_refusal(OpenClBackend& be, DType dtype);
// Whether CLBlast's GEMM runs this dtype's matmuls here (f32 and f64, BURN_OPENCL_BLAS not off, the self-test
// passed; run now if not yet). Where it does, the fused executor refuses a matmul anchor.
bool clblast_runs(OpenClBackend& be, DType dtype);

}  // namespace burn::opencl
