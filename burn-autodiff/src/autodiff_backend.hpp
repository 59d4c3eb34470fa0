// The Autodiff decorator: forwards every op to the inner backend on unwrapped primitives and, for the
// differentiable ops (declared below, defined in src/ops/<group>.cpp), records a graph node whose
// backward is written with public tensor ops, so it runs on any inner backend.
#pragma once

#include <memory>
#include <string>

#include "burn/tensor/autodiff.hpp"
#include "graph.hpp"

namespace burn::autodiff {

// Every op of the table on unwrapped primitives, results wrapped untracked. An op that no subclass
// override differentiates refuses tracked inputs (Unsupported) unless it is non-differentiable
// (comparisons, argmax, rounding...): a gradient is never dropped silently.
class UnwrapBackend : public ForwardingBackend {
 public:
  using ForwardingBackend::ForwardingBackend;

#define BURN_AD_DECL(group, name, tier, grad, bound, ret, ...) ret name BURN_OP_PARAMS(__VA_ARGS__) override;
  BURN_OP_TABLE(BURN_AD_DECL)
#undef BURN_AD_DECL
};

class AutodiffBackend;

// What one backward step sees: the saved tensors and constants, on the device the step runs on
// (the inner device, or the autodiff device itself when backward builds a graph).
class Step {
 public:
  Step(AutodiffBackend& ad, const NodePtr& node, const Device& device, bool graph)
      : ad_(ad), node_(node), device_(device), graph_(graph) {}
  const Device& device() const { return device_; }
  bool graph() const { return graph_; }
  // Input i as saved at forward time (recomputed under checkpointing when it was let go).
  H input(size_t i);
  // The op's (first) output.
  H output();
  // Output k >= 1 of a multi-output op (indices), untracked.
  H extra_output(size_t k);
  // An untracked inner primitive (indices, masks) on this step's device.
  H constant(const Prim& inner) const;
  // Whether input i receives a gradient (it is tracked).
  bool needs(size_t i) const { return i < node_->parents.size() && node_->parents[i] != nullptr; }
  const Shape& input_shape(size_t i) const { return node_->parents[i]->shape; }
  DType input_dtype(size_t i) const { return node_->parents[i]->dtype; }

 private:
  AutodiffBackend& ad_;
  const NodePtr& node_;
  const Device& device_;
  bool graph_;
};

// How a tracked op is recorded: which of its inputs and outputs backward reads.
struct Record {
  OpId op;
  uint32_t save_inputs = 0;  // bit i: backward reads input(i)
  bool save_output = false;
};
inline constexpr uint32_t in(size_t i) { return uint32_t(1) << i; }

class AutodiffBackend final : public UnwrapBackend,
                              public AutodiffInterface,
                              public std::enable_shared_from_this<AutodiffBackend> {
 public:
  AutodiffBackend(BackendPtr inner, Checkpointing checkpointing);

  void* query_interface(std::string_view name) override;

  // AutodiffInterface
  Device inner_device() override;
  Checkpointing checkpointing() const override { return checkpointing_; }
  Prim set_require_grad(const Prim& x, bool require) override;
  bool is_require_grad(const Prim& x) const override;
  Prim detach(const Prim& x) override;
  Prim to_inner(const Prim& x) override;
  Prim from_inner(Prim inner) override;
  std::optional<uint64_t> grad_key(const Prim& x) const override;
  Gradients backward(const Prim& root, const BackwardOptions& options) override;

  // Runs `forward` on the inner backend with the inputs' inner primitives. When a float input is
  // tracked (and grad is enabled), the first output gets a node with `backward`; other outputs
  // (indices) stay untracked. Null inputs (an absent bias) are allowed.
  Prims record(const Record& r, Prims inputs, std::function<Prims(Backend& inner, Prims inputs)> forward,
               BackwardFn backward);
  // The one-output form.
  Prim record1(const Record& r, Prims inputs, std::function<Prim(Backend& inner, Prims inputs)> forward,
               BackwardFn backward);
  // True when an op on these inputs records a node.
  static bool any_tracked(std::initializer_list<const Prim*> inputs);

  // The inner primitive of a saved tensor, recomputing it when checkpointing dropped it.
  Prim resolve(const SavedRef& ref);
  Prim recompute(Node& node);
  Device self_device();

  // ---- the differentiable ops with a rule of their own, by group (ops/<group>.cpp) ----
  // A differentiable DEFAULT op without one (attention, deform_conv2d) runs its composite body on this
  // backend when an input is tracked (see UnwrapBackend), so its gradient comes from the recorded ops.
  // creation
  Prim cast(Prim x, DType dtype) override;
  // layout
  Prim reshape(Prim x, const Shape& shape) override;
  Prim permute(Prim x, const Axes& axes) override;
  Prim expand(Prim x, const Shape& shape) override;
  Prim flip(Prim x, const Axes& axes) override;
  Prim slice(Prim x, const Slices& ranges) override;
  Prim slice_assign(Prim x, const Slices& ranges, Prim value) override;
  Prim cat(const Prims& xs, size_t dim) override;
  Prim repeat_dim(Prim x, size_t dim, int64_t times) override;
  // indexing
  Prim gather(Prim x, size_t dim, Prim indices) override;
  Prim scatter_add(Prim x, size_t dim, Prim indices, Prim values) override;
  Prim select(Prim x, size_t dim, Prim indices) override;
  Prim select_add(Prim x, size_t dim, Prim indices, Prim values) override;
  Prim mask_where(Prim x, Prim mask, Prim value) override;
  Prim mask_fill(Prim x, Prim mask, Scalar value) override;
  // numeric
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
  Prim powf_scalar(Prim lhs, Scalar rhs) override;
  Prim maximum(Prim lhs, Prim rhs) override;
  Prim minimum(Prim lhs, Prim rhs) override;
  Prim neg(Prim x) override;
  Prim abs(Prim x) override;
  Prim clamp(Prim x, Scalar min, Scalar max) override;
  Prim clamp_min(Prim x, Scalar min) override;
  Prim clamp_max(Prim x, Scalar max) override;
  Prim matmul(Prim lhs, Prim rhs) override;
  Prim sign(Prim x) override;
  // reduce
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
  Prim var(Prim x, size_t dim, int64_t correction) override;
  Prim cumsum(Prim x, size_t dim) override;
  Prim cumprod(Prim x, size_t dim) override;
  Prim cummax(Prim x, size_t dim) override;
  Prim cummin(Prim x, size_t dim) override;
  PrimPair sort(Prim x, size_t dim, bool descending, bool stable) override;
  PrimPair topk(Prim x, int64_t k, size_t dim, bool largest) override;
  // float_math
  // round, floor, ceil, trunc (and sign, in numeric) are tracked with a zero gradient, as in PyTorch.
  Prim round(Prim x) override;
  Prim floor(Prim x) override;
  Prim ceil(Prim x) override;
  Prim trunc(Prim x) override;
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
  Prim atan2(Prim lhs, Prim rhs) override;
  Prim recip(Prim x) override;
  Prim square(Prim x) override;
  // activation
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
  // conv
  Prim conv(Prim x, Prim weight, Prim bias, const ConvOptions& options) override;
  Prim conv_transpose(Prim x, Prim weight, Prim bias, const ConvTransposeOptions& options) override;
  Prim unfold(Prim x, const UnfoldOptions& options) override;
  Prim fold(Prim cols, const Shape& output_size, const UnfoldOptions& options) override;
  // pool
  Prim max_pool(Prim x, const PoolOptions& options) override;
  PrimPair max_pool_with_indices(Prim x, const PoolOptions& options) override;
  Prim avg_pool(Prim x, const PoolOptions& options) override;
  Prim adaptive_avg_pool(Prim x, const Shape& output_size) override;
  PrimPair adaptive_max_pool(Prim x, const Shape& output_size) override;
  // resample
  Prim interpolate(Prim x, const Shape& output_size, const InterpolateOptions& options) override;
  Prim pixel_shuffle(Prim x, int64_t factor) override;
  Prim pixel_unshuffle(Prim x, int64_t factor) override;
  // embedding
  Prim embedding(Prim weight, Prim indices) override;
  // norm
  Prim layer_norm(Prim x, Prim weight, Prim bias, size_t normalized_dims, double eps) override;
  Prim group_norm(Prim x, Prim weight, Prim bias, int64_t num_groups, double eps) override;
  Prims batch_norm(Prim x, Prim weight, Prim bias, Prim running_mean, Prim running_var, bool training, double momentum,
                   double eps) override;
  Prim rms_norm(Prim x, Prim weight, size_t normalized_dims, double eps) override;

 protected:
  std::string decorator_name() const override;

 private:
  // A reference to an input for backward (read_by_backward) or for recomputing this op.
  SavedRef save(const Prim& ad_input, bool read_by_backward) const;
  Checkpointing checkpointing_;
};

}  // namespace burn::autodiff
