// CosineSimilarity and PairwiseDistance as PyTorch computes them (eps, norms over one dim).
#include "burn/nn/distance.hpp"

#include <cmath>

#include "burn/tensor/linalg.hpp"
#include "layer_common.hpp"

namespace burn::nn {

BURN_CONFIG_JSON(CosineSimilarityConfig, dim, eps)
BURN_CONFIG_JSON(PairwiseDistanceConfig, p, eps)

namespace detail {

TensorHandle cosine_similarity(const TensorHandle& x1, const TensorHandle& x2, int64_t dim, double eps) {
  const int64_t rank = x1.prim ? static_cast<int64_t>(x1.prim->shape().rank()) : 0;
  if (dim < -rank || dim >= rank)
    throw IndexError("CosineSimilarity",
                     "dim " + std::to_string(dim) + " out of range for rank " + std::to_string(rank));
  return api::squeeze_dims(api::cosine_similarity(x1, x2, dim, eps), {dim < 0 ? dim + rank : dim});
}

TensorHandle pairwise_distance(const TensorHandle& x1, const TensorHandle& x2, double p, double eps) {
  const Shape a = x1.prim ? x1.prim->shape() : Shape{}, b = x2.prim ? x2.prim->shape() : Shape{};
  if (a != b) throw ShapeError("PairwiseDistance", "inputs " + a.to_string() + " and " + b.to_string() + " differ");
  const int64_t last = static_cast<int64_t>(a.rank()) - 1;
  return api::squeeze_dims(api::vector_norm(api::add_scalar(api::sub(x1, x2), eps), p, {last}), {last});
}

}  // namespace detail

std::string CosineSimilarity::extra_repr() const {
  return "dim=" + std::to_string(dim) + ", eps=" + detail::num_string(eps);
}
CosineSimilarity CosineSimilarityConfig::init() const {
  if (!(eps > 0.0))
    throw ValueError("CosineSimilarityConfig::init", "eps must be positive, got " + detail::num_string(eps));
  return {dim, eps};
}

std::string PairwiseDistance::extra_repr() const {
  return "p=" + detail::num_string(p) + ", eps=" + detail::num_string(eps);
}
PairwiseDistance PairwiseDistanceConfig::init() const {
  if (std::isnan(p)) throw ValueError("PairwiseDistanceConfig::init", "p must be a number, got nan");
  return {p, eps};
}

}  // namespace burn::nn
