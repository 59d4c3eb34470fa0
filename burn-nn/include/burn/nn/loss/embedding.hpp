// Embedding and ranking losses: cosine embedding, hinge embedding, margin ranking, triplet margin
// (PyTorch's). `forward` reduces (Mean by default) to [1]; `forward_no_reduction` keeps one value
// per pair, element or triplet.
#pragma once

#include "burn/nn/loss/reduction.hpp"

namespace burn::nn::loss {

namespace detail {
BURN_NN_API TensorHandle cosine_embedding(const TensorHandle& x1, const TensorHandle& x2, const TensorHandle& target,
                                          double margin, Red r);
BURN_NN_API TensorHandle hinge_embedding(const TensorHandle& x, const TensorHandle& target, double margin, Red r);
BURN_NN_API TensorHandle margin_ranking(const TensorHandle& x1, const TensorHandle& x2, const TensorHandle& target,
                                        double margin, Red r);
BURN_NN_API TensorHandle triplet_margin(const TensorHandle& anchor, const TensorHandle& positive,
                                        const TensorHandle& negative, double margin, double p, double eps, bool swap,
                                        Red r);
}  // namespace detail

// Rows x1, x2 of [batch, dim] with labels [batch] of 1 (similar: 1 - cos) or -1 (dissimilar:
// max(0, cos - margin)).
struct BURN_NN_API CosineEmbeddingLoss {
  double margin = 0.0;
  Tensor<1> forward(const Tensor<2>& x1, const Tensor<2>& x2, const Tensor<1, Int>& target,
                    Reduction r = Reduction::Mean) const {
    return Tensor<1>(detail::cosine_embedding(x1.handle(), x2.handle(), target.handle(), margin, r));
  }
  Tensor<1> forward_no_reduction(const Tensor<2>& x1, const Tensor<2>& x2, const Tensor<1, Int>& target) const {
    return Tensor<1>(detail::cosine_embedding(x1.handle(), x2.handle(), target.handle(), margin, std::nullopt));
  }
};

struct BURN_NN_API CosineEmbeddingLossConfig {
  double margin = 0.0;  // in [-1, 1]
  CosineEmbeddingLoss init() const;
  BURN_CONFIG(CosineEmbeddingLossConfig)
};

// Elementwise on labels of 1 (the input itself, a distance) or -1 (max(0, margin - x)).
struct BURN_NN_API HingeEmbeddingLoss {
  double margin = 1.0;
  template <size_t D>
  Tensor<1> forward(const Tensor<D>& input, const Tensor<D>& target, Reduction r = Reduction::Mean) const {
    return Tensor<1>(detail::hinge_embedding(input.handle(), target.handle(), margin, r));
  }
  template <size_t D>
  Tensor<D> forward_no_reduction(const Tensor<D>& input, const Tensor<D>& target) const {
    return Tensor<D>(detail::hinge_embedding(input.handle(), target.handle(), margin, std::nullopt));
  }
};

struct BURN_NN_API HingeEmbeddingLossConfig {
  double margin = 1.0;
  HingeEmbeddingLoss init() const;
  BURN_CONFIG(HingeEmbeddingLossConfig)
};

// max(0, -y (x1 - x2) + margin) elementwise: y = 1 ranks x1 above x2, -1 below.
struct BURN_NN_API MarginRankingLoss {
  double margin = 0.0;
  template <size_t D>
  Tensor<1> forward(const Tensor<D>& x1, const Tensor<D>& x2, const Tensor<D>& target,
                    Reduction r = Reduction::Mean) const {
    return Tensor<1>(detail::margin_ranking(x1.handle(), x2.handle(), target.handle(), margin, r));
  }
  template <size_t D>
  Tensor<D> forward_no_reduction(const Tensor<D>& x1, const Tensor<D>& x2, const Tensor<D>& target) const {
    return Tensor<D>(detail::margin_ranking(x1.handle(), x2.handle(), target.handle(), margin, std::nullopt));
  }
};

struct BURN_NN_API MarginRankingLossConfig {
  double margin = 0.0;
  MarginRankingLoss init() const;
  BURN_CONFIG(MarginRankingLossConfig)
};

// max(d(a, p) - d(a, n) + margin, 0) over rows of [batch, dim], d the p-norm of the difference plus
// eps (torch's pairwise_distance); swap uses min(d(a, n), d(p, n)) as the negative distance.
struct BURN_NN_API TripletMarginLoss {
  double margin = 1.0;
  double p = 2.0;
  double eps = 1e-6;
  bool swap = false;
  Tensor<1> forward(const Tensor<2>& anchor, const Tensor<2>& positive, const Tensor<2>& negative,
                    Reduction r = Reduction::Mean) const {
    return Tensor<1>(
        detail::triplet_margin(anchor.handle(), positive.handle(), negative.handle(), margin, p, eps, swap, r));
  }
  Tensor<1> forward_no_reduction(const Tensor<2>& anchor, const Tensor<2>& positive, const Tensor<2>& negative) const {
    return Tensor<1>(detail::triplet_margin(anchor.handle(), positive.handle(), negative.handle(), margin, p, eps, swap,
                                            std::nullopt));
  }
};

struct BURN_NN_API TripletMarginLossConfig {
  double margin = 1.0;
  double p = 2.0;  // > 0
  double eps = 1e-6;
  bool swap = false;
  TripletMarginLoss init() const;
  BURN_CONFIG(TripletMarginLossConfig)
};

}  // namespace burn::nn::loss
