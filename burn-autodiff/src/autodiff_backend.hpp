// The Autodiff decorator: forwards every op to the inner backend on unwrapped primitives and, for the
// differentiable ops (declared below, defined in src/ops/<group>.cpp), records a graph node whose
// backward is written with public tensor ops, so it runs on any inner backend.
#pragma once

#include <memory>
#include <string>

#include "burn/tensor/autodiff.hpp"
#include "graph.hpp"

// The differentiable ops with a rule of their own, by group (src/ops/<group>.cpp). A differentiable DEFAULT
// op without one (attention, deform_conv2d) runs its composite body on this backend when an input is
// tracked (see UnwrapBackend), so its gradient comes from the recorded ops.
// clang-format off
#define BURN_AUTODIFF_RULES(OP) \
  /* creation */ \
  OP(cast) \
  /* layout */ \
  OP(reshape) OP(permute) OP(expand) OP(flip) OP(slice) OP(slice_assign) OP(cat) OP(repeat_dim) \
  /* indexing */ \
  OP(gather) OP(scatter_add) OP(select) OP(select_add) OP(mask_where) OP(mask_fill) \
  /* numeric */ \
  OP(add) OP(sub) OP(mul) OP(div) OP(remainder) OP(powf) OP(add_scalar) OP(sub_scalar) OP(mul_scalar) \
  OP(div_scalar) OP(remainder_scalar) OP(powf_scalar) OP(maximum) OP(minimum) OP(neg) OP(abs) OP(clamp) \
  OP(clamp_min) OP(clamp_max) OP(matmul) OP(sign) \
  /* reduce */ \
  OP(sum) OP(sum_dim) OP(mean) OP(mean_dim) OP(prod) OP(prod_dim) OP(max) OP(max_dim) \
  OP(max_dim_with_indices) OP(min) OP(min_dim) OP(min_dim_with_indices) OP(var) OP(cumsum) OP(cumprod) \
  OP(cummax) OP(cummin) OP(sort) OP(topk) \
  /* float_math */ \
  /* round, floor, ceil, trunc (and sign, in numeric) are tracked with a zero gradient, as in PyTorch. */ \
  OP(round) OP(floor) OP(ceil) OP(trunc) OP(exp) OP(log) OP(log1p) OP(sqrt) OP(sin) OP(cos) OP(tan) OP(sinh) \
  OP(cosh) OP(tanh) OP(asin) OP(acos) OP(atan) OP(erf) OP(atan2) OP(recip) OP(square) \
  /* activation */ \
  OP(relu) OP(leaky_relu) OP(gelu) OP(gelu_tanh) OP(sigmoid) OP(log_sigmoid) OP(silu) OP(mish) OP(softplus) \
  OP(hard_sigmoid) OP(elu) OP(selu) OP(softmax) OP(log_softmax) \
  /* conv */ \
  OP(conv) OP(conv_transpose) OP(unfold) OP(fold) \
  /* pool */ \
  OP(max_pool) OP(max_pool_with_indices) OP(avg_pool) OP(adaptive_avg_pool) OP(adaptive_max_pool) \
  /* resample */ \
  OP(interpolate) OP(pixel_shuffle) OP(pixel_unshuffle) \
  /* embedding */ \
  OP(embedding) \
  /* norm */ \
  OP(layer_norm) OP(group_norm) OP(batch_norm) OP(rms_norm)
// clang-format on

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

  // The differentiable ops with a rule of their own (BURN_AUTODIFF_RULES, above).
  BURN_DECLARE_OPS(BURN_AUTODIFF_RULES)

 protected:
  std::string decorator_name() const override;

 private:
  // A reference to an input for backward (read_by_backward) or for recomputing this op.
  SavedRef save(const Prim& ad_input, bool read_by_backward) const;
  Checkpointing checkpointing_;
};

}  // namespace burn::autodiff
