// Classification losses: cross-entropy, binary cross-entropy, multi-margin, soft margin. Each is a
// Burn-style config with `init(device)` and a loss whose `forward` takes a Reduction (Mean by
// default) and returns [1]; `forward_no_reduction` keeps the per-sample (or per-element) values.
#pragma once

#include <vector>

#include "burn/nn/loss/reduction.hpp"

namespace burn::nn::loss {

namespace detail {
BURN_NN_API TensorHandle cross_entropy(const TensorHandle& input, const TensorHandle& targets,
                                       const std::vector<int64_t>& pad_tokens, const TensorHandle* weights,
                                       double smoothing, bool logits, Red r);
BURN_NN_API TensorHandle binary_cross_entropy(const TensorHandle& input, const TensorHandle& targets,
                                              const TensorHandle* weights, const TensorHandle* pos_weight,
                                              double smoothing, bool logits, Red r);
BURN_NN_API TensorHandle multi_margin(const TensorHandle& input, const TensorHandle& targets, int p, double margin,
                                      const TensorHandle* weights, Red r);
BURN_NN_API TensorHandle soft_margin(const TensorHandle& input, const TensorHandle& targets, Red r);
inline const TensorHandle* opt_handle(const std::optional<Tensor<1>>& t) { return t ? &t->handle() : nullptr; }
}  // namespace detail

// Cross-entropy of [batch, classes] inputs against class indices [batch] (Int). `logits` true: the
// input is logits (log_softmax inside, stable); false: probabilities (their log). Class weights,
// label smoothing (torch's label_smoothing) and padding targets (torch's ignore_index, several
// allowed as Burn's pad_tokens) follow PyTorch; the weighted mean divides by the targets' weights.
class BURN_NN_API CrossEntropyLoss {
 public:
  std::vector<int64_t> pad_tokens;
  std::optional<Tensor<1>> weights;  // [classes]
  double smoothing = 0.0;
  bool logits = true;

  Tensor<1> forward(const Tensor<2>& input, const Tensor<1, Int>& targets, Reduction r = Reduction::Mean) const {
    return Tensor<1>(detail::cross_entropy(input.handle(), targets.handle(), pad_tokens, detail::opt_handle(weights),
                                           smoothing, logits, r));
  }
  // [batch]; padding targets give 0.
  Tensor<1> forward_no_reduction(const Tensor<2>& input, const Tensor<1, Int>& targets) const {
    return Tensor<1>(detail::cross_entropy(input.handle(), targets.handle(), pad_tokens, detail::opt_handle(weights),
                                           smoothing, logits, std::nullopt));
  }
};

struct BURN_NN_API CrossEntropyLossConfig {
  std::vector<int64_t> pad_tokens;  // targets ignored (Burn's Option<Vec>: empty is none)
  std::vector<double> weights;      // one per class; empty: all 1
  double smoothing = 0.0;           // in [0, 1]; 0 is none
  bool logits = true;
  CrossEntropyLoss init(const Device& device) const;
  BURN_CONFIG(CrossEntropyLossConfig)
};

// Binary cross-entropy, elementwise on targets in [0, 1] of the input's shape. `logits` true: the
// input is logits (log-sigmoid form, stable as torch's BCEWithLogits) and `pos_weight` may weigh
// the positive term; false: probabilities, their logs clamped at -100 as PyTorch. Weights and
// pos_weight are per class, broadcast along the last dim; smoothing maps y to y (1 - s) + s / 2.
class BURN_NN_API BinaryCrossEntropyLoss {
 public:
  std::optional<Tensor<1>> weights, pos_weight;
  double smoothing = 0.0;
  bool logits = false;

  template <size_t D>
  Tensor<1> forward(const Tensor<D>& input, const Tensor<D>& targets, Reduction r = Reduction::Mean) const {
    return Tensor<1>(run(input.handle(), targets.handle(), r));
  }
  template <size_t D>
  Tensor<1> forward(const Tensor<D>& input, const Tensor<D, Int>& targets, Reduction r = Reduction::Mean) const {
    return forward(input, targets.to_float(input.dtype()), r);
  }
  template <size_t D>
  Tensor<D> forward_no_reduction(const Tensor<D>& input, const Tensor<D>& targets) const {
    return Tensor<D>(run(input.handle(), targets.handle(), std::nullopt));
  }

 private:
  TensorHandle run(const TensorHandle& x, const TensorHandle& y, detail::Red r) const {
    return detail::binary_cross_entropy(x, y, detail::opt_handle(weights), detail::opt_handle(pos_weight), smoothing,
                                        logits, r);
  }
};

struct BURN_NN_API BinaryCrossEntropyLossConfig {
  std::vector<double> weights;     // per class (last dim); empty: none
  std::vector<double> pos_weight;  // per class, logits only; empty: none
  double smoothing = 0.0;
  bool logits = false;  // Burn's default: the input is probabilities
  BinaryCrossEntropyLoss init(const Device& device) const;
  BURN_CONFIG(BinaryCrossEntropyLossConfig)
};

// Multi-class hinge loss (torch's MultiMarginLoss) of [batch, classes] scores and class indices:
// sum over j != y of max(0, margin - x[y] + x[j])^p, times weights[y], divided by the classes.
class BURN_NN_API MultiMarginLoss {
 public:
  int p = 1;  // 1 or 2
  double margin = 1.0;
  std::optional<Tensor<1>> weights;

  Tensor<1> forward(const Tensor<2>& input, const Tensor<1, Int>& targets, Reduction r = Reduction::Mean) const {
    return Tensor<1>(detail::multi_margin(input.handle(), targets.handle(), p, margin, detail::opt_handle(weights), r));
  }
  Tensor<1> forward_no_reduction(const Tensor<2>& input, const Tensor<1, Int>& targets) const {
    return Tensor<1>(
        detail::multi_margin(input.handle(), targets.handle(), p, margin, detail::opt_handle(weights), std::nullopt));
  }
};

struct BURN_NN_API MultiMarginLossConfig {
  int p = 1;
  double margin = 1.0;
  std::vector<double> weights;  // per class; empty: none
  MultiMarginLoss init(const Device& device) const;
  BURN_CONFIG(MultiMarginLossConfig)
};

// Two-class logistic loss log(1 + exp(-y x)) for targets y of +1/-1 (torch's SoftMarginLoss),
// computed as softplus(-y x).
struct BURN_NN_API SoftMarginLoss {
  template <size_t D>
  Tensor<1> forward(const Tensor<D>& input, const Tensor<D>& targets, Reduction r = Reduction::Mean) const {
    return Tensor<1>(detail::soft_margin(input.handle(), targets.handle(), r));
  }
  template <size_t D>
  Tensor<D> forward_no_reduction(const Tensor<D>& input, const Tensor<D>& targets) const {
    return Tensor<D>(detail::soft_margin(input.handle(), targets.handle(), std::nullopt));
  }
};

}  // namespace burn::nn::loss
