// Tensor API, activation group: the activations with parameters, softmax and its relatives, and the
// composite activations (celu, glu, the shrinks, hard_swish, hardtanh, relu6, prelu, softsign,
// tanhshrink, threshold, quiet_softmax), each built from table ops so autodiff differentiates them.
#include "../defaults/helpers.hpp"
#include "autocast.hpp"
#include "burn/tensor/autodiff.hpp"
#include "checks.hpp"

namespace burn::api {
using namespace detail;

H leaky_relu(H h, double slope) { return with(h, float_unary(h, "leaky_relu").leaky_relu(std::move(h.prim), slope)); }

H softplus(H h, double beta, double threshold) {
  autocast(OpId::softplus, {&h});
  Backend& b = float_unary(h, "softplus");
  if (beta == 0) throw ValueError("softplus", "beta must be non-zero");
  return with(h, b.softplus(std::move(h.prim), beta, threshold));
}

H hard_sigmoid(H h, double alpha, double beta) {
  return with(h, float_unary(h, "hard_sigmoid").hard_sigmoid(std::move(h.prim), alpha, beta));
}

H elu(H h, double alpha) { return with(h, float_unary(h, "elu").elu(std::move(h.prim), alpha)); }

H softmax(H h, int64_t dim) {
  autocast(OpId::softmax, {&h});
  Backend& b = float_unary(h, "softmax");
  size_t d = normalize_dim(dim, rank(h), "softmax");
  return with(h, b.softmax(std::move(h.prim), d));
}

H log_softmax(H h, int64_t dim) {
  autocast(OpId::log_softmax, {&h});
  Backend& b = float_unary(h, "log_softmax");
  size_t d = normalize_dim(dim, rank(h), "log_softmax");
  return with(h, b.log_softmax(std::move(h.prim), d));
}

H softmin(H h, int64_t dim) {
  Backend& b = float_unary(h, "softmin");
  size_t d = normalize_dim(dim, rank(h), "softmin");
  return with(h, b.softmax(b.neg(std::move(h.prim)), d));
}

// ---- composites --------------------------------------------------------------------------------

// torch.celu: x for x > 0, alpha (exp(x / alpha) - 1) otherwise. exp sees min(x, 0) / alpha, so for
// alpha > 0 the unused branch never overflows (its inf would reach the gradient as 0 * inf).
H celu(H h, double alpha) {
  Backend& b = float_unary(h, "celu");
  if (alpha == 0.0) throw ValueError("celu", "alpha must be non-zero (x is divided by it)");
  Prim x = std::move(h.prim);
  Prim e = b.exp(b.div_scalar(b.clamp_max(x, Scalar(0.0)), Scalar(alpha)));
  Prim neg = b.mul_scalar(b.sub_scalar(std::move(e), Scalar(1.0)), Scalar(alpha));
  Prim pos = b.greater_elem(x, Scalar(0.0));
  return with(h, b.mask_where(std::move(neg), std::move(pos), std::move(x)));
}

// torch.nn.functional.glu: the first half of dim gated by the sigmoid of the second.
H glu(H h, int64_t dim) {
  Backend& b = float_unary(h, "glu");
  const size_t d = normalize_dim(dim, rank(h), "glu");
  const int64_t n = shape(h)[d];
  if (n % 2 != 0)
    throw ShapeError("glu", "dim " + std::to_string(d) + " of shape " + shape(h).to_string() +
                                " must have an even size to be halved, got " + std::to_string(n));
  H a = narrow(h, static_cast<int64_t>(d), 0, n / 2);
  H gate = narrow(std::move(h), static_cast<int64_t>(d), n / 2, n / 2);
  return with(a, b.mul(std::move(a.prim), b.sigmoid(std::move(gate.prim))));
}

// torch.hardshrink: 0 where -lambda <= x <= lambda, else x (NaN stays NaN).
H hard_shrink(H h, double lambda) {
  Backend& b = float_unary(h, "hard_shrink");
  Prim x = std::move(h.prim);
  Prim inside = b.lower_equal_elem(b.abs(x), Scalar(lambda));
  return with(h, b.mask_fill(std::move(x), std::move(inside), Scalar(0.0)));
}

// torch.softshrink: x - lambda above lambda, x + lambda below -lambda, else 0; NaN gives 0 as in torch
// (both of its comparisons are false).
H soft_shrink(H h, double lambda) {
  Backend& b = float_unary(h, "soft_shrink");
  if (!(lambda >= 0.0)) throw ValueError("soft_shrink", "lambda must be >= 0, got " + burn::detail::num(lambda));
  Prim x = std::move(h.prim);
  Prim r = b.full(x->shape(), Scalar(0.0), x->dtype());
  r = b.mask_where(std::move(r), b.greater_elem(x, Scalar(lambda)), b.sub_scalar(x, Scalar(lambda)));
  return with(h, b.mask_where(std::move(r), b.lower_elem(x, Scalar(-lambda)), b.add_scalar(x, Scalar(lambda))));
}

// torch.hardswish: x * relu6(x + 3) / 6 = x * hard_sigmoid(x) with torch's hard_sigmoid (1/6, 1/2).
H hard_swish(H h) {
  Backend& b = float_unary(h, "hard_swish");
  Prim x = std::move(h.prim);
  Prim gate = b.hard_sigmoid(x, 1.0 / 6.0, 0.5);
  return with(h, b.mul(std::move(x), std::move(gate)));
}

// torch.hardtanh: clamp(x, min, max), with clamp's rule that max wins when min > max.
H hardtanh(H h, double min, double max) {
  return with(h, float_unary(h, "hardtanh").clamp(std::move(h.prim), Scalar(min), Scalar(max)));
}

H relu6(H h) { return with(h, float_unary(h, "relu6").clamp(std::move(h.prim), Scalar(0.0), Scalar(6.0))); }

// torch.prelu: x for x > 0, weight * x otherwise; the weight is one value or one per channel (dim 1; a
// 1-D input has one channel).
H prelu(H h, const H& weight) {
  Backend& b = float_unary(h, "prelu");
  same_device(h, weight, "prelu");
  same_dtype(h, weight, "prelu");
  if (rank(weight) != 1)
    throw ShapeError("prelu", "weight must be 1-D ([1] or [channels]), got shape " + shape(weight).to_string());
  const int64_t channels = rank(h) >= 2 ? shape(h)[1] : 1;
  const int64_t nw = shape(weight)[0];
  if (nw != 1 && nw != channels)
    throw ShapeError("prelu", "weight has " + std::to_string(nw) + " values; expected 1 or the " +
                                  std::to_string(channels) + " channels (dim 1) of input " + shape(h).to_string());
  Prim w = weight.prim;
  if (rank(h) >= 2) {
    std::vector<int64_t> dims(rank(h), 1);
    dims[1] = nw;
    w = b.reshape(std::move(w), Shape(std::move(dims)));
  }
  Prim x = std::move(h.prim);
  Prim scaled = b.mul(x, std::move(w));
  Prim pos = b.greater_elem(x, Scalar(0.0));
  return with(h, b.mask_where(std::move(scaled), std::move(pos), std::move(x)));
}

H softsign(H h) {
  Backend& b = float_unary(h, "softsign");
  Prim x = std::move(h.prim);
  Prim den = b.add_scalar(b.abs(x), Scalar(1.0));
  return with(h, b.div(std::move(x), std::move(den)));
}

// x - tanh(x), as torch computes it (so with its cancellation near 0).
H tanhshrink(H h) {
  Backend& b = float_unary(h, "tanhshrink");
  Prim x = std::move(h.prim);
  Prim t = b.tanh(x);
  return with(h, b.sub(std::move(x), std::move(t)));
}

// torch.threshold: value where x <= threshold, else x (NaN stays NaN).
H threshold(H h, double threshold, double value) {
  Backend& b = float_unary(h, "threshold");
  Prim x = std::move(h.prim);
  Prim below = b.lower_equal_elem(x, Scalar(threshold));
  return with(h, b.mask_fill(std::move(x), std::move(below), Scalar(value)));
}

// Burn's quiet_softmax: exp(x - m) / (exp(-m) + sum exp(x - m)) along dim with m the max, which is
// exp(x) / (1 + sum exp(x)) for any m: a row can give less than 1 in total ("attend to nothing"). As in
// Burn, m is detached (the result does not depend on it; its gradient would be rounding noise).
H quiet_softmax(H h, int64_t dim) {
  Backend& b = float_unary(h, "quiet_softmax");
  const size_t d = normalize_dim(dim, rank(h), "quiet_softmax");
  if (shape(h).num_elements() == 0) return h;
  Prim m = detach(with(h, b.max_dim(h.prim, d))).prim;
  Prim e = b.exp(b.sub(std::move(h.prim), m));
  Prim den = b.add(b.sum_dim(e, d), b.exp(b.neg(std::move(m))));
  return with(h, b.div(std::move(e), std::move(den)));
}

}  // namespace burn::api
