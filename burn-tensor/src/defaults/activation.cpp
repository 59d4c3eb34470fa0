// The DEFAULT ops of the activation (every activation and softmax) group: composite bodies built from other
// ops of the table, so a backend that implements only the core ops gets them all.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "helpers.hpp"

namespace burn {
using namespace detail;

// ---- activations -----------------------------------------------------------------------------

// Only x < 0 is replaced, so NaN and -0.0 pass through as in torch.relu.
Prim Backend::relu(Prim x) {
  Prim negative = lower_elem(x, Scalar(int64_t{0}));
  return mask_fill(std::move(x), std::move(negative), Scalar(int64_t{0}));
}

Prim Backend::leaky_relu(Prim x, double negative_slope) {
  require_float(x, "leaky_relu");
  Prim negative = lower_elem(x, Scalar(int64_t{0}));
  Prim scaled = mul_scalar(x, Scalar(negative_slope));
  return mask_where(std::move(x), std::move(negative), std::move(scaled));
}

// x * 0.5 * (1 + erf(x / sqrt(2))), torch's exact GELU.
Prim Backend::gelu(Prim x) {
  require_float(x, "gelu");
  Prim cdf = add_scalar(erf(mul_scalar(x, Scalar(std::numbers::sqrt2 / 2.0))), Scalar(1.0));
  return mul(mul_scalar(std::move(x), Scalar(0.5)), std::move(cdf));
}

// 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))), torch's approximate = "tanh".
Prim Backend::gelu_tanh(Prim x) {
  require_float(x, "gelu_tanh");
  // 0.5 * (1 + tanh(z)) == sigmoid(2z); the stable sigmoid keeps large negative x at -0 where
  // 1 + tanh(z) would cancel to a few ulps of tanh's error.
  const double k_beta = std::numbers::sqrt2 * (2.0 / std::sqrt(std::numbers::pi)) * 0.5;  // sqrt(2/pi)
  Prim cube = mul(square(x), x);
  Prim inner = mul_scalar(add(x, mul_scalar(std::move(cube), Scalar(0.044715))), Scalar(2.0 * k_beta));
  return mul(std::move(x), sigmoid(std::move(inner)));
}

// Stable: with e = exp(-|x|) and s = 1 / (1 + e), sigmoid is s for x >= 0 and e * s for x < 0,
// so exp never overflows and tiny results for large negative x keep their precision.
Prim Backend::sigmoid(Prim x) {
  require_float(x, "sigmoid");
  Prim e = exp(neg(abs(x)));
  Prim s = recip(add_scalar(e, Scalar(1.0)));
  Prim small = mul(std::move(e), s);
  Prim negative = lower_elem(std::move(x), Scalar(int64_t{0}));
  return mask_where(std::move(s), std::move(negative), std::move(small));
}

// min(x, 0) - log1p(exp(-|x|)): no overflow for either sign.
Prim Backend::log_sigmoid(Prim x) {
  require_float(x, "log_sigmoid");
  Prim tail = log1p(exp(neg(abs(x))));
  return sub(clamp_max(std::move(x), Scalar(0.0)), std::move(tail));
}

Prim Backend::silu(Prim x) {
  require_float(x, "silu");
  Prim s = sigmoid(x);
  return mul(std::move(x), std::move(s));
}

// x * tanh(softplus(x)) with torch's softplus defaults (beta 1, threshold 20).
Prim Backend::mish(Prim x) {
  require_float(x, "mish");
  Prim t = tanh(softplus(x, 1.0, 20.0));
  return mul(std::move(x), std::move(t));
}

// torch: x where beta * x > threshold (linear regime), else log1p(exp(beta * x)) / beta.
Prim Backend::softplus(Prim x, double beta, double threshold) {
  require_float(x, "softplus");
  Prim bx = mul_scalar(x, Scalar(beta));
  Prim linear = greater_elem(bx, Scalar(threshold));
  Prim soft = div_scalar(log1p(exp(std::move(bx))), Scalar(beta));
  return mask_where(std::move(soft), std::move(linear), std::move(x));
}

Prim Backend::hard_sigmoid(Prim x, double alpha, double beta) {
  require_float(x, "hard_sigmoid");
  return clamp(add_scalar(mul_scalar(std::move(x), Scalar(alpha)), Scalar(beta)), Scalar(0.0), Scalar(1.0));
}

// torch: x for x > 0, else alpha * (exp(x) - 1); NaN takes the second branch and stays NaN.
Prim Backend::elu(Prim x, double alpha) {
  require_float(x, "elu");
  Prim positive = greater_elem(x, Scalar(int64_t{0}));
  Prim negative = mul_scalar(sub_scalar(exp(x), Scalar(1.0)), Scalar(alpha));
  return mask_where(std::move(negative), std::move(positive), std::move(x));
}

// torch's constants (Klambauer et al.).
Prim Backend::selu(Prim x) {
  require_float(x, "selu");
  constexpr double kAlpha = 1.6732632423543772848170429916717;
  constexpr double kScale = 1.0507009873554804934193349852946;
  return mul_scalar(elu(std::move(x), kAlpha), Scalar(kScale));
}

// Subtracting the max first keeps exp in range; a row of all -inf gives NaN, as in torch.
Prim Backend::softmax(Prim x, size_t dim) {
  shape_rules::check_dim(x->shape(), dim, "softmax");
  require_float(x, "softmax");
  Prim m = max_dim(x, dim);
  Prim e = exp(sub(std::move(x), std::move(m)));
  Prim total = sum_dim(e, dim);
  return div(std::move(e), std::move(total));
}

Prim Backend::log_softmax(Prim x, size_t dim) {
  shape_rules::check_dim(x->shape(), dim, "log_softmax");
  require_float(x, "log_softmax");
  Prim m = max_dim(x, dim);
  Prim shifted = sub(std::move(x), std::move(m));
  Prim lse = log(sum_dim(exp(shifted), dim));
  return sub(std::move(shifted), std::move(lse));
}

}  // namespace burn
