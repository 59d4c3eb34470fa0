// Backward of the activations. The ones PyTorch differentiates natively get a formula here; the rest
// (log_sigmoid, mish, hard_sigmoid, selu) run their composite default body on this backend, so each
// of their steps is recorded and differentiated.
#include <cmath>
#include <numbers>

#include "op_helpers.hpp"

namespace burn::autodiff {

Prim AutodiffBackend::relu(Prim x) {
  return record_unary(*this, OpId::relu, std::move(x), &Backend::relu, false, true,
                      // PyTorch's threshold_backward: zero where the output is <= 0, so a NaN passes
                      // its gradient; one compare and one fill instead of compare, cast and mul.
                      [](Step& s, const H& g) -> Hs {
                        return {api::mask_fill(g, api::compare_elem(OpId::lower_equal_elem, s.output(), 0.0), 0.0)};
                      });
}

Prim AutodiffBackend::leaky_relu(Prim x, double slope) {
  return record1(
      {OpId::leaky_relu, in(0)}, {std::move(x)},
      [slope](Backend& b, Prims p) { return b.leaky_relu(std::move(p[0]), slope); },
      [slope](Step& s, const H& g) -> Hs {
        T pos = gt_mask(s.input(0), 0.0);
        return {T(g) * (pos + (1.0 - pos) * slope)};
      });
}

// d gelu(x) = Phi(x) + x * phi(x)
Prim AutodiffBackend::gelu(Prim x) {
  return record_unary(*this, OpId::gelu, std::move(x), &Backend::gelu, true, false, [](Step& s, const H& g) -> Hs {
    T x = s.input(0);
    T cdf = ((x * std::numbers::sqrt2 / 2.0).erf() + 1.0) * 0.5;
    T pdf = (x.square() * -0.5).exp() * (std::numbers::inv_sqrtpi / std::numbers::sqrt2);
    return {T(g) * (cdf + x * pdf)};
  });
}

// gelu_tanh(x) = x/2 (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3)
Prim AutodiffBackend::gelu_tanh(Prim x) {
  return record_unary(*this, OpId::gelu_tanh, std::move(x), &Backend::gelu_tanh, true, false,
                      [](Step& s, const H& g) -> Hs {
                        constexpr double k = std::numbers::sqrt2 * std::numbers::inv_sqrtpi, c = 0.044715;
                        T x = s.input(0);
                        T x2 = x.square();
                        T t = ((x + x * x2 * c) * k).tanh();
                        T du = (x2 * (3.0 * c) + 1.0) * k;
                        return {T(g) * ((t + 1.0) * 0.5 + x * 0.5 * (1.0 - t.square()) * du)};
                      });
}

Prim AutodiffBackend::sigmoid(Prim x) {
  return record_unary(*this, OpId::sigmoid, std::move(x), &Backend::sigmoid, false, true,
                      [](Step& s, const H& g) -> Hs {
                        T y = s.output();
                        return {T(g) * y * (1.0 - y)};
                      });
}

Prim AutodiffBackend::silu(Prim x) {
  return record_unary(*this, OpId::silu, std::move(x), &Backend::silu, true, false, [](Step& s, const H& g) -> Hs {
    T x = s.input(0);
    T sg = x.sigmoid();
    return {T(g) * sg * (x * (1.0 - sg) + 1.0)};
  });
}

// Linear above the threshold, so the gradient there is 1 (PyTorch).
Prim AutodiffBackend::softplus(Prim x, double beta, double threshold) {
  return record1(
      {OpId::softplus, in(0)}, {std::move(x)},
      [beta, threshold](Backend& b, Prims p) { return b.softplus(std::move(p[0]), beta, threshold); },
      [beta, threshold](Step& s, const H& g) -> Hs {
        T bx = T(s.input(0)) * beta;
        T linear = gt_mask(bx, threshold);
        return {T(g) * (linear + (1.0 - linear) * bx.sigmoid())};
      });
}

// x for x > 0, alpha (e^x - 1) otherwise: the negative side's slope is out + alpha.
Prim AutodiffBackend::elu(Prim x, double alpha) {
  return record1(
      {OpId::elu, in(0), true}, {std::move(x)}, [alpha](Backend& b, Prims p) { return b.elu(std::move(p[0]), alpha); },
      [alpha](Step& s, const H& g) -> Hs {
        T pos = gt_mask(s.input(0), 0.0);
        return {T(g) * (pos + (1.0 - pos) * (T(s.output()) + alpha))};
      });
}

Prim AutodiffBackend::softmax(Prim x, size_t dim) {
  return record1(
      {OpId::softmax, 0, true}, {std::move(x)}, [dim](Backend& b, Prims p) { return b.softmax(std::move(p[0]), dim); },
      [dim](Step& s, const H& g) -> Hs {
        T y = s.output();
        return {y * (T(g) - (T(g) * y).sum_dim(static_cast<int64_t>(dim)))};
      });
}

Prim AutodiffBackend::log_softmax(Prim x, size_t dim) {
  return record1(
      {OpId::log_softmax, 0, true}, {std::move(x)},
      [dim](Backend& b, Prims p) { return b.log_softmax(std::move(p[0]), dim); },
      [dim](Step& s, const H& g) -> Hs {
        return {T(g) - T(s.output()).exp() * T(g).sum_dim(static_cast<int64_t>(dim))};
      });
}

// ---- composites: differentiated through the ops their default bodies are made of ----

Prim AutodiffBackend::log_sigmoid(Prim x) {
  if (!any_tracked({&x})) return UnwrapBackend::log_sigmoid(std::move(x));
  return Backend::log_sigmoid(std::move(x));
}

Prim AutodiffBackend::mish(Prim x) {
  if (!any_tracked({&x})) return UnwrapBackend::mish(std::move(x));
  return Backend::mish(std::move(x));
}

Prim AutodiffBackend::hard_sigmoid(Prim x, double alpha, double beta) {
  if (!any_tracked({&x})) return UnwrapBackend::hard_sigmoid(std::move(x), alpha, beta);
  return Backend::hard_sigmoid(std::move(x), alpha, beta);
}

Prim AutodiffBackend::selu(Prim x) {
  if (!any_tracked({&x})) return UnwrapBackend::selu(std::move(x));
  return Backend::selu(std::move(x));
}

}  // namespace burn::autodiff
