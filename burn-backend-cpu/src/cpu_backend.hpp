// The CPU backend: the ops it implements with its own kernels, one source file per op group
// (src/ops/<group>.cpp). DEFAULT ops it does not list run burn-tensor's composite bodies.
#pragma once

#include "burn/tensor/backend.hpp"
#include "burn/tensor/fused.hpp"

// The ops with cpu kernels, by group (src/ops/<group>.cpp); a DEFAULT op missing here runs burn-tensor's
// composite body over these.
// clang-format off
#define BURN_CPU_OPS(OP) \
  /* creation (src/ops/creation.cpp) */ \
  OP(empty) OP(full) OP(from_data) OP(into_data) OP(cast) OP(arange) \
  /* layout (src/ops/layout.cpp) */ \
  OP(reshape) OP(permute) OP(expand) OP(flip) OP(slice) OP(slice_assign) OP(cat) OP(repeat_dim) \
  /* indexing (src/ops/indexing.cpp) */ \
  OP(gather) OP(scatter_add) OP(select) OP(select_add) OP(mask_where) OP(mask_fill) OP(argwhere) \
  /* numeric (src/ops/numeric.cpp, matmul.cpp) */ \
  OP(add) OP(sub) OP(mul) OP(div) OP(remainder) OP(powf) OP(add_scalar) OP(sub_scalar) OP(mul_scalar) \
  OP(div_scalar) OP(remainder_scalar) OP(fmod) OP(fmod_scalar) OP(powf_scalar) OP(maximum) OP(minimum) \
  OP(neg) OP(abs) OP(sign) OP(clamp) OP(clamp_min) OP(clamp_max) OP(matmul) \
  /* compare (src/ops/compare.cpp) */ \
  OP(equal) OP(greater) OP(greater_equal) OP(not_equal) OP(lower) OP(lower_equal) OP(equal_elem) \
  OP(not_equal_elem) OP(greater_elem) OP(greater_equal_elem) OP(lower_elem) OP(lower_equal_elem) \
  /* boolean (src/ops/boolean.cpp) */ \
  OP(bool_not) OP(bool_and) OP(bool_or) OP(bool_xor) \
  /* bitwise (src/ops/bitwise.cpp) */ \
  OP(bitwise_and) OP(bitwise_or) OP(bitwise_xor) OP(bitwise_not) OP(bitwise_left_shift) \
  OP(bitwise_right_shift) \
  /* reduce (src/ops/reduce.cpp) */ \
  OP(sum) OP(sum_dim) OP(mean) OP(mean_dim) OP(prod) OP(prod_dim) OP(max) OP(max_dim) \
  OP(max_dim_with_indices) OP(min) OP(min_dim) OP(min_dim_with_indices) OP(argmax) OP(argmin) OP(any) \
  OP(any_dim) OP(all) OP(all_dim) OP(var) OP(cumsum) OP(cumprod) OP(cummax) OP(cummin) OP(sort) OP(argsort) \
  OP(topk) \
  /* float_math (src/ops/float_math.cpp) */ \
  OP(exp) OP(log) OP(log1p) OP(sqrt) OP(sin) OP(cos) OP(tan) OP(sinh) OP(cosh) OP(tanh) OP(asin) OP(acos) \
  OP(atan) OP(erf) OP(round) OP(floor) OP(ceil) OP(trunc) OP(atan2) OP(hypot) OP(asinh) OP(acosh) OP(atanh) \
  OP(recip) OP(square) OP(is_nan) OP(is_inf) OP(is_finite) \
  /* activation (src/ops/activation.cpp) */ \
  OP(relu) OP(leaky_relu) OP(gelu) OP(gelu_tanh) OP(sigmoid) OP(log_sigmoid) OP(silu) OP(mish) OP(softplus) \
  OP(hard_sigmoid) OP(elu) OP(selu) OP(softmax) OP(log_softmax) \
  /* conv (src/ops/conv.cpp) */ \
  OP(conv) OP(conv_backward) OP(conv_transpose) OP(conv_transpose_backward) OP(deform_conv2d) OP(unfold) \
  OP(fold) \
  /* pool (src/ops/pool.cpp) */ \
  OP(max_pool) OP(max_pool_with_indices) OP(max_pool_backward) OP(avg_pool) OP(avg_pool_backward) \
  OP(adaptive_avg_pool) OP(adaptive_avg_pool_backward) OP(adaptive_max_pool) OP(adaptive_max_pool_backward) \
  /* resample (src/ops/resample.cpp) */ \
  OP(interpolate) OP(interpolate_backward) OP(pixel_shuffle) OP(pixel_unshuffle) \
  /* embedding (src/ops/embedding.cpp) */ \
  OP(embedding) OP(embedding_backward) \
  /* norm (src/ops/norm.cpp) */ \
  OP(layer_norm) OP(layer_norm_backward) OP(group_norm) OP(group_norm_backward) OP(batch_norm) \
  OP(batch_norm_backward) OP(rms_norm) OP(rms_norm_backward) \
  /* attention (src/ops/attention.cpp) */ \
  OP(attention) \
  /* quant (src/ops/quant.cpp, over gemm_int8) */ \
  OP(quantized_linear) OP(matmul_integer)
// clang-format on

namespace burn::cpu {

// The fused-elementwise executor (fused_executor.cpp), one per process.
FusedExecutor& fused_executor();

// conv(x, weight, bias), then + residual (of the result's shape; or null), then relu when `relu`, all in
// the blocked f32 kernel, each tile while it is in L2 (src/ops/conv.cpp); the bits of the three separate
// ops, without their two passes over memory. Null when that
// kernel does not take the conv (not f32, no AVX2, its shape) or the residual is not a contiguous f32
// tensor of the result's shape: the caller then runs the ops one by one.
Prim conv_with_epilogue(const Prim& x, const Prim& weight, const Prim& bias, const ConvOptions& options,
                        const Prim& residual, bool relu);

// The f32 result of reduction `op` (sum, mean, prod, max, min and their _dim forms, argmax, argmin; `dim` for
// the _dim ones and the arg ones) over an f16/bf16 tensor, as the f32 op gives it on the widened tensor, bit
// for bit: the same kernel reads spans widened into a small buffer, so the input crosses memory once in its
// 16-bit form (src/ops/reduce.cpp). Null for any other op: the half decorator then promotes.
Prim reduce_widened(OpId op, const Prim& x, size_t dim);

// The plugin's backend: a CpuBackend inside the decorator that computes f16 and bf16 through the f32
// kernels (src/half_backend.cpp). CpuBackend alone refuses them, as storage-only.
std::unique_ptr<Backend> make_cpu_backend();

class CpuBackend final : public Backend {
 public:
  std::string name() const override { return "cpu"; }
  bool supports(OpId op, DType dtype) const override;
  // "memory": the MemoryStats of every Storage of the process (see cpu_tensor.hpp);
  // kFusedElementwiseInterface: the fused executor that burn-fusion hands elementwise chains.
  void* query_interface(std::string_view name) override;

  BURN_DECLARE_OPS(BURN_CPU_OPS)
};

}  // namespace burn::cpu
