// Tensor API, activation group: the activations with parameters, softmax and its relatives.
#include "checks.hpp"

namespace burn::api {
using namespace detail;

H leaky_relu(H h, double slope) { return with(h, float_unary(h, "leaky_relu").leaky_relu(std::move(h.prim), slope)); }

H softplus(H h, double beta, double threshold) {
  Backend& b = float_unary(h, "softplus");
  if (beta == 0) throw ValueError("softplus", "beta must be non-zero");
  return with(h, b.softplus(std::move(h.prim), beta, threshold));
}

H hard_sigmoid(H h, double alpha, double beta) {
  return with(h, float_unary(h, "hard_sigmoid").hard_sigmoid(std::move(h.prim), alpha, beta));
}

H elu(H h, double alpha) { return with(h, float_unary(h, "elu").elu(std::move(h.prim), alpha)); }

H softmax(H h, int64_t dim) {
  Backend& b = float_unary(h, "softmax");
  size_t d = normalize_dim(dim, rank(h), "softmax");
  return with(h, b.softmax(std::move(h.prim), d));
}

H log_softmax(H h, int64_t dim) {
  Backend& b = float_unary(h, "log_softmax");
  size_t d = normalize_dim(dim, rank(h), "log_softmax");
  return with(h, b.log_softmax(std::move(h.prim), d));
}

H softmin(H h, int64_t dim) {
  Backend& b = float_unary(h, "softmin");
  size_t d = normalize_dim(dim, rank(h), "softmin");
  return with(h, b.softmax(b.neg(std::move(h.prim)), d));
}

}  // namespace burn::api
