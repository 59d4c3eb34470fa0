// Connectionist temporal classification (CTC) loss, PyTorch's ctc_loss: the negative log-likelihood
// of each target sequence summed over its alignments, by the alpha recursion in log space composed
// from tensor ops, so its gradient comes from autodiff.
#pragma once

#include "burn/nn/loss/reduction.hpp"

namespace burn::nn::loss {

namespace detail {
BURN_NN_API TensorHandle ctc(const TensorHandle& log_probs, const TensorHandle& targets,
                             const TensorHandle& input_lengths, const TensorHandle& target_lengths, int64_t blank,
                             bool zero_infinity, Red r);
}

// log_probs [time, batch, classes] (log_softmax output), targets [batch, max_target_len] (Int,
// padded), input_lengths and target_lengths [batch] (Int). Mean divides each sequence's loss by its
// target length (at least 1), then averages over the batch, as PyTorch; zero_infinity replaces the
// infinite losses of impossible alignments (and their gradients) by 0. The gradient w.r.t.
// log_probs is the true one; PyTorch's assumes a log_softmax in front and adds exp(log_probs), so
// the two agree on the gradient w.r.t. the logits.
struct BURN_NN_API CtcLoss {
  int64_t blank = 0;
  bool zero_infinity = false;

  Tensor<1> forward(const Tensor<3>& log_probs, const Tensor<2, Int>& targets, const Tensor<1, Int>& input_lengths,
                    const Tensor<1, Int>& target_lengths, Reduction r = Reduction::Mean) const {
    return Tensor<1>(detail::ctc(log_probs.handle(), targets.handle(), input_lengths.handle(), target_lengths.handle(),
                                 blank, zero_infinity, r));
  }
  // [batch]
  Tensor<1> forward_no_reduction(const Tensor<3>& log_probs, const Tensor<2, Int>& targets,
                                 const Tensor<1, Int>& input_lengths, const Tensor<1, Int>& target_lengths) const {
    return Tensor<1>(detail::ctc(log_probs.handle(), targets.handle(), input_lengths.handle(), target_lengths.handle(),
                                 blank, zero_infinity, std::nullopt));
  }
};

struct BURN_NN_API CtcLossConfig {
  int64_t blank = 0;
  bool zero_infinity = false;
  CtcLoss init() const;
  BURN_CONFIG(CtcLossConfig)
};

}  // namespace burn::nn::loss
