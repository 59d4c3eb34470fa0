// The CPU backend: the ops it implements with its own kernels, one source file per op group
// (src/ops/<group>.cpp). DEFAULT ops it does not list run burn-tensor's composite bodies.
#pragma once

#include "burn/tensor/backend.hpp"
#include "burn/tensor/fused.hpp"

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

class CpuBackend final : public Backend {
 public:
  std::string name() const override { return "cpu"; }
  bool supports(OpId op, DType dtype) const override;
  // "memory": the MemoryStats of every Storage of the process (see cpu_tensor.hpp);
  // kFusedElementwiseInterface: the fused executor that burn-fusion hands elementwise chains.
  void* query_interface(std::string_view name) override;

  // creation (src/ops/creation.cpp)
  Prim empty(const Shape& shape, DType dtype) override;
  Prim full(const Shape& shape, Scalar value, DType dtype) override;
  Prim from_data(const TensorData& data) override;
  TensorData into_data(const Prim& x) override;
  Prim cast(Prim x, DType dtype) override;
  Prim arange(int64_t start, int64_t end, int64_t step, DType dtype) override;
  // layout (src/ops/layout.cpp)
  Prim reshape(Prim x, const Shape& shape) override;
  Prim permute(Prim x, const Axes& axes) override;
  Prim expand(Prim x, const Shape& shape) override;
  Prim flip(Prim x, const Axes& axes) override;
  Prim slice(Prim x, const Slices& ranges) override;
  Prim slice_assign(Prim x, const Slices& ranges, Prim value) override;
  Prim cat(const Prims& xs, size_t dim) override;
  Prim repeat_dim(Prim x, size_t dim, int64_t times) override;
  // indexing (src/ops/indexing.cpp)
  Prim gather(Prim x, size_t dim, Prim indices) override;
  Prim scatter_add(Prim x, size_t dim, Prim indices, Prim values) override;
  Prim select(Prim x, size_t dim, Prim indices) override;
  Prim select_add(Prim x, size_t dim, Prim indices, Prim values) override;
  Prim mask_where(Prim x, Prim mask, Prim value) override;
  Prim mask_fill(Prim x, Prim mask, Scalar value) override;
  Prim argwhere(Prim x) override;
  // numeric (src/ops/numeric.cpp, matmul.cpp)
  Prim add(Prim lhs, Prim rhs) override;
  Prim sub(Prim lhs, Prim rhs) override;
  Prim mul(Prim lhs, Prim rhs) override;
  Prim div(Prim lhs, Prim rhs) override;
  Prim remainder(Prim lhs, Prim rhs) override;
  Prim powf(Prim lhs, Prim rhs) override;
  Prim add_scalar(Prim lhs, Scalar rhs) override;
  Prim sub_scalar(Prim lhs, Scalar rhs) override;
  Prim mul_scalar(Prim lhs, Scalar rhs) override;
  Prim div_scalar(Prim lhs, Scalar rhs) override;
  Prim remainder_scalar(Prim lhs, Scalar rhs) override;
  Prim fmod(Prim lhs, Prim rhs) override;
  Prim fmod_scalar(Prim lhs, Scalar rhs) override;
  Prim powf_scalar(Prim lhs, Scalar rhs) override;
  Prim maximum(Prim lhs, Prim rhs) override;
  Prim minimum(Prim lhs, Prim rhs) override;
  Prim neg(Prim x) override;
  Prim abs(Prim x) override;
  Prim sign(Prim x) override;
  Prim clamp(Prim x, Scalar min, Scalar max) override;
  Prim clamp_min(Prim x, Scalar min) override;
  Prim clamp_max(Prim x, Scalar max) override;
  Prim matmul(Prim lhs, Prim rhs) override;
  // compare (src/ops/compare.cpp)
  Prim equal(Prim lhs, Prim rhs) override;
  Prim greater(Prim lhs, Prim rhs) override;
  Prim greater_equal(Prim lhs, Prim rhs) override;
  Prim not_equal(Prim lhs, Prim rhs) override;
  Prim lower(Prim lhs, Prim rhs) override;
  Prim lower_equal(Prim lhs, Prim rhs) override;
  Prim equal_elem(Prim lhs, Scalar rhs) override;
  Prim not_equal_elem(Prim lhs, Scalar rhs) override;
  Prim greater_elem(Prim lhs, Scalar rhs) override;
  Prim greater_equal_elem(Prim lhs, Scalar rhs) override;
  Prim lower_elem(Prim lhs, Scalar rhs) override;
  Prim lower_equal_elem(Prim lhs, Scalar rhs) override;
  // boolean (src/ops/boolean.cpp)
  Prim bool_not(Prim x) override;
  Prim bool_and(Prim lhs, Prim rhs) override;
  Prim bool_or(Prim lhs, Prim rhs) override;
  Prim bool_xor(Prim lhs, Prim rhs) override;
  // bitwise (src/ops/bitwise.cpp)
  Prim bitwise_and(Prim lhs, Prim rhs) override;
  Prim bitwise_or(Prim lhs, Prim rhs) override;
  Prim bitwise_xor(Prim lhs, Prim rhs) override;
  Prim bitwise_not(Prim x) override;
  Prim bitwise_left_shift(Prim lhs, Prim rhs) override;
  Prim bitwise_right_shift(Prim lhs, Prim rhs) override;
  // reduce (src/ops/reduce.cpp)
  Prim sum(Prim x) override;
  Prim sum_dim(Prim x, size_t dim) override;
  Prim mean(Prim x) override;
  Prim mean_dim(Prim x, size_t dim) override;
  Prim prod(Prim x) override;
  Prim prod_dim(Prim x, size_t dim) override;
  Prim max(Prim x) override;
  Prim max_dim(Prim x, size_t dim) override;
  PrimPair max_dim_with_indices(Prim x, size_t dim) override;
  Prim min(Prim x) override;
  Prim min_dim(Prim x, size_t dim) override;
  PrimPair min_dim_with_indices(Prim x, size_t dim) override;
  Prim argmax(Prim x, size_t dim) override;
  Prim argmin(Prim x, size_t dim) override;
  Prim any(Prim x) override;
  Prim any_dim(Prim x, size_t dim) override;
  Prim all(Prim x) override;
  Prim all_dim(Prim x, size_t dim) override;
  Prim var(Prim x, size_t dim, int64_t correction) override;
  Prim cumsum(Prim x, size_t dim) override;
  Prim cumprod(Prim x, size_t dim) override;
  Prim cummax(Prim x, size_t dim) override;
  Prim cummin(Prim x, size_t dim) override;
  PrimPair sort(Prim x, size_t dim, bool descending, bool stable) override;
  Prim argsort(Prim x, size_t dim, bool descending, bool stable) override;
  PrimPair topk(Prim x, int64_t k, size_t dim, bool largest) override;
  // float_math (src/ops/float_math.cpp)
  Prim exp(Prim x) override;
  Prim log(Prim x) override;
  Prim log1p(Prim x) override;
  Prim sqrt(Prim x) override;
  Prim sin(Prim x) override;
  Prim cos(Prim x) override;
  Prim tan(Prim x) override;
  Prim sinh(Prim x) override;
  Prim cosh(Prim x) override;
  Prim tanh(Prim x) override;
  Prim asin(Prim x) override;
  Prim acos(Prim x) override;
  Prim atan(Prim x) override;
  Prim erf(Prim x) override;
  Prim round(Prim x) override;
  Prim floor(Prim x) override;
  Prim ceil(Prim x) override;
  Prim trunc(Prim x) override;
  Prim atan2(Prim lhs, Prim rhs) override;
  Prim hypot(Prim lhs, Prim rhs) override;
  Prim asinh(Prim x) override;
  Prim acosh(Prim x) override;
  Prim atanh(Prim x) override;
  Prim recip(Prim x) override;
  Prim square(Prim x) override;
  Prim is_nan(Prim x) override;
  Prim is_inf(Prim x) override;
  Prim is_finite(Prim x) override;
  // activation (src/ops/activation.cpp)
  Prim relu(Prim x) override;
  Prim leaky_relu(Prim x, double negative_slope) override;
  Prim gelu(Prim x) override;
  Prim gelu_tanh(Prim x) override;
  Prim sigmoid(Prim x) override;
  Prim log_sigmoid(Prim x) override;
  Prim silu(Prim x) override;
  Prim mish(Prim x) override;
  Prim softplus(Prim x, double beta, double threshold) override;
  Prim hard_sigmoid(Prim x, double alpha, double beta) override;
  Prim elu(Prim x, double alpha) override;
  Prim selu(Prim x) override;
  Prim softmax(Prim x, size_t dim) override;
  Prim log_softmax(Prim x, size_t dim) override;
  // conv (src/ops/conv.cpp)
  Prim conv(Prim x, Prim weight, Prim bias, const ConvOptions& options) override;
  Prims conv_backward(Prim x, Prim weight, Prim grad_out, const ConvOptions& options, bool bias_grad) override;
  Prim conv_transpose(Prim x, Prim weight, Prim bias, const ConvTransposeOptions& options) override;
  Prims conv_transpose_backward(Prim x, Prim weight, Prim grad_out, const ConvTransposeOptions& options,
                                bool bias_grad) override;
  Prim deform_conv2d(Prim x, Prim offset, Prim weight, Prim mask, Prim bias, const DeformConvOptions& options) override;
  Prim unfold(Prim x, const UnfoldOptions& options) override;
  Prim fold(Prim cols, const Shape& output_size, const UnfoldOptions& options) override;
  // pool (src/ops/pool.cpp)
  Prim max_pool(Prim x, const PoolOptions& options) override;
  PrimPair max_pool_with_indices(Prim x, const PoolOptions& options) override;
  Prim max_pool_backward(Prim x, Prim grad_out, Prim indices, const PoolOptions& options) override;
  Prim avg_pool(Prim x, const PoolOptions& options) override;
  Prim avg_pool_backward(Prim x, Prim grad_out, const PoolOptions& options) override;
  Prim adaptive_avg_pool(Prim x, const Shape& output_size) override;
  Prim adaptive_avg_pool_backward(Prim x, Prim grad_out) override;
  PrimPair adaptive_max_pool(Prim x, const Shape& output_size) override;
  Prim adaptive_max_pool_backward(Prim x, Prim grad_out, Prim indices) override;
  // resample (src/ops/resample.cpp)
  Prim interpolate(Prim x, const Shape& output_size, const InterpolateOptions& options) override;
  Prim interpolate_backward(Prim x, Prim grad_out, const Shape& output_size,
                            const InterpolateOptions& options) override;
  Prim pixel_shuffle(Prim x, int64_t factor) override;
  Prim pixel_unshuffle(Prim x, int64_t factor) override;
  // embedding (src/ops/embedding.cpp)
  Prim embedding(Prim weight, Prim indices) override;
  Prim embedding_backward(Prim weight, Prim grad_out, Prim indices) override;
  // norm (src/ops/norm.cpp)
  Prim layer_norm(Prim x, Prim weight, Prim bias, size_t normalized_dims, double eps) override;
  Prims layer_norm_backward(Prim x, Prim weight, Prim grad_out, size_t normalized_dims, double eps) override;
  Prim group_norm(Prim x, Prim weight, Prim bias, int64_t num_groups, double eps) override;
  Prims group_norm_backward(Prim x, Prim weight, Prim grad_out, int64_t num_groups, double eps) override;
  Prims batch_norm(Prim x, Prim weight, Prim bias, Prim running_mean, Prim running_var, bool training, double momentum,
                   double eps) override;
  Prims batch_norm_backward(Prim x, Prim weight, Prim running_mean, Prim running_var, Prim grad_out, bool training,
                            double eps) override;
  Prim rms_norm(Prim x, Prim weight, size_t normalized_dims, double eps) override;
  Prims rms_norm_backward(Prim x, Prim weight, Prim grad_out, size_t normalized_dims, double eps) override;
  // attention (src/ops/attention.cpp)
  Prim attention(Prim query, Prim key, Prim value, Prim mask, const AttentionOptions& options) override;
};

}  // namespace burn::cpu
