// CosineSimilarity and PairwiseDistance (torch.nn's): a distance between two inputs, reducing one dim.
#pragma once

#include "burn/nn/config.hpp"
#include "burn/nn/module.hpp"

namespace burn::nn {

namespace detail {
BURN_NN_API TensorHandle cosine_similarity(const TensorHandle& x1, const TensorHandle& x2, int64_t dim, double eps);
BURN_NN_API TensorHandle pairwise_distance(const TensorHandle& x1, const TensorHandle& x2, double p, double eps);
}  // namespace detail

// x1 . x2 / max(|x1| |x2|, eps) over dim, which the result drops.
struct BURN_NN_API CosineSimilarity {
  int64_t dim = 1;
  double eps = 1e-8;
  BURN_MODULE()
  template <size_t D>
  requires(D >= 2) Tensor<D - 1> forward(const Tensor<D>& x1, const Tensor<D>& x2)
  const { return Tensor<D - 1>(detail::cosine_similarity(x1.handle(), x2.handle(), dim, eps)); }
  std::string extra_repr() const;
};

struct BURN_NN_API CosineSimilarityConfig {
  int64_t dim = 1;
  double eps = 1e-8;
  CosineSimilarity init() const;
  BURN_CONFIG(CosineSimilarityConfig)
};

// ||x1 - x2 + eps||_p over the last dim, which the result drops.
struct BURN_NN_API PairwiseDistance {
  double p = 2.0;
  double eps = 1e-6;
  BURN_MODULE()
  template <size_t D>
  requires(D >= 2) Tensor<D - 1> forward(const Tensor<D>& x1, const Tensor<D>& x2)
  const { return Tensor<D - 1>(detail::pairwise_distance(x1.handle(), x2.handle(), p, eps)); }
  std::string extra_repr() const;
};

struct BURN_NN_API PairwiseDistanceConfig {
  double p = 2.0;
  double eps = 1e-6;
  PairwiseDistance init() const;
  BURN_CONFIG(PairwiseDistanceConfig)
};

}  // namespace burn::nn
