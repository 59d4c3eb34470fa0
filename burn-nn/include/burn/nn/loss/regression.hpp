// Regression and distribution losses: MSE, L1, Huber, SmoothL1, KL divergence, Poisson and Gaussian
// negative log-likelihoods. Elementwise on an input and a target of one shape; `forward` reduces
// (Mean by default) to [1], `forward_no_reduction` keeps the input's shape.
#pragma once

#include "burn/nn/loss/reduction.hpp"

namespace burn::nn::loss {

namespace detail {
BURN_NN_API TensorHandle mse(const TensorHandle& x, const TensorHandle& y, Red r);
BURN_NN_API TensorHandle l1(const TensorHandle& x, const TensorHandle& y, Red r);
// smooth_l1: SmoothL1, Huber divided by beta (beta 0: L1), so named in errors.
BURN_NN_API TensorHandle huber(const TensorHandle& x, const TensorHandle& y, double delta, bool smooth_l1, Red r);
BURN_NN_API TensorHandle kl_div(const TensorHandle& x, const TensorHandle& y, bool log_target, Red r);
BURN_NN_API TensorHandle poisson_nll(const TensorHandle& x, const TensorHandle& y, bool log_input, bool full,
                                     double eps, Red r);
BURN_NN_API TensorHandle gaussian_nll(const TensorHandle& x, const TensorHandle& y, const TensorHandle& var, bool full,
                                      double eps, Red r);
}  // namespace detail

// forward / forward_no_reduction of an elementwise loss whose `run(x, y, reduction)` computes it.
#define BURN_POINTWISE_LOSS_FORWARDS                                                                         \
  template <size_t D>                                                                                        \
  Tensor<1> forward(const Tensor<D>& input, const Tensor<D>& targets, Reduction r = Reduction::Mean) const { \
    return Tensor<1>(run(input.handle(), targets.handle(), r));                                              \
  }                                                                                                          \
  template <size_t D>                                                                                        \
  Tensor<D> forward_no_reduction(const Tensor<D>& input, const Tensor<D>& targets) const {                   \
    return Tensor<D>(run(input.handle(), targets.handle(), std::nullopt));                                   \
  }

// (x - y)^2.
struct BURN_NN_API MseLoss {
  BURN_POINTWISE_LOSS_FORWARDS
  TensorHandle run(const TensorHandle& x, const TensorHandle& y, detail::Red r) const { return detail::mse(x, y, r); }
};

// |x - y|.
struct BURN_NN_API L1Loss {
  BURN_POINTWISE_LOSS_FORWARDS
  TensorHandle run(const TensorHandle& x, const TensorHandle& y, detail::Red r) const { return detail::l1(x, y, r); }
};

// 0.5 d^2 where |d| < delta, else delta (|d| - delta / 2), for d = x - y.
struct BURN_NN_API HuberLoss {
  double delta = 1.0;
  BURN_POINTWISE_LOSS_FORWARDS
  TensorHandle run(const TensorHandle& x, const TensorHandle& y, detail::Red r) const {
    return detail::huber(x, y, delta, false, r);
  }
};

struct BURN_NN_API HuberLossConfig {
  double delta = 1.0;  // > 0
  HuberLoss init() const;
  BURN_CONFIG(HuberLossConfig)
};

// Huber divided by beta: 0.5 d^2 / beta where |d| < beta, else |d| - beta / 2; beta 0 is L1.
struct BURN_NN_API SmoothL1Loss {
  double beta = 1.0;
  BURN_POINTWISE_LOSS_FORWARDS
  TensorHandle run(const TensorHandle& x, const TensorHandle& y, detail::Red r) const {
    return detail::huber(x, y, beta, true, r);
  }
};

struct BURN_NN_API SmoothL1LossConfig {
  double beta = 1.0;  // >= 0
  SmoothL1Loss init() const;
  BURN_CONFIG(SmoothL1LossConfig)
};

// KL(target || input) with the input as log-probabilities (torch's kl_div): target (log target -
// input), 0 where target is 0; log_target: exp(t) (t - input). Reduction::BatchMean divides the
// sum by the batch size (dim 0), the mathematically right KL; Mean averages every element.
struct BURN_NN_API KlDivLoss {
  bool log_target = false;
  BURN_POINTWISE_LOSS_FORWARDS
  TensorHandle run(const TensorHandle& x, const TensorHandle& y, detail::Red r) const {
    return detail::kl_div(x, y, log_target, r);
  }
};

struct BURN_NN_API KlDivLossConfig {
  bool log_target = false;
  KlDivLoss init() const;
  BURN_CONFIG(KlDivLossConfig)
};

// Poisson negative log-likelihood of targets given rates (torch's PoissonNLLLoss): log_input:
// exp(x) - y x; else x - y log(x + eps). full adds Stirling's y log y - y + log(2 pi y) / 2 where y > 1.
struct BURN_NN_API PoissonNllLoss {
  bool log_input = true;
  bool full = false;
  double eps = 1e-8;
  BURN_POINTWISE_LOSS_FORWARDS
  TensorHandle run(const TensorHandle& x, const TensorHandle& y, detail::Red r) const {
    return detail::poisson_nll(x, y, log_input, full, eps, r);
  }
};

struct BURN_NN_API PoissonNllLossConfig {
  bool log_input = true;
  bool full = false;
  double eps = 1e-8;  // > 0
  PoissonNllLoss init() const;
  BURN_CONFIG(PoissonNllLossConfig)
};

// Gaussian negative log-likelihood (torch's GaussianNLLLoss): (log var + (x - y)^2 / var) / 2, plus
// log(2 pi) / 2 when full. var has the input's shape, or it without the last dim, or a last dim of
// 1 (one variance per row); it is clamped at eps for the value, its gradient passes as torch's.
struct BURN_NN_API GaussianNllLoss {
  bool full = false;
  double eps = 1e-6;

  template <size_t D, size_t DV>
  Tensor<1> forward(const Tensor<D>& input, const Tensor<D>& targets, const Tensor<DV>& var,
                    Reduction r = Reduction::Mean) const {
    return Tensor<1>(detail::gaussian_nll(input.handle(), targets.handle(), var.handle(), full, eps, r));
  }
  template <size_t D, size_t DV>
  Tensor<D> forward_no_reduction(const Tensor<D>& input, const Tensor<D>& targets, const Tensor<DV>& var) const {
    return Tensor<D>(detail::gaussian_nll(input.handle(), targets.handle(), var.handle(), full, eps, std::nullopt));
  }
};

struct BURN_NN_API GaussianNllLossConfig {
  bool full = false;
  double eps = 1e-6;  // > 0
  GaussianNllLoss init() const;
  BURN_CONFIG(GaussianNllLossConfig)
};

#undef BURN_POINTWISE_LOSS_FORWARDS

}  // namespace burn::nn::loss
