// Regression and distribution losses as composites of tensor ops, so autodiff differentiates them.
#include "burn/nn/loss/regression.hpp"

#include <cmath>
#include <numbers>

#include "../config_json.hpp"
#include "common.hpp"

namespace burn::nn::loss {

BURN_CONFIG_JSON(HuberLossConfig, delta)
BURN_CONFIG_JSON(SmoothL1LossConfig, beta)
BURN_CONFIG_JSON(KlDivLossConfig, log_target)
BURN_CONFIG_JSON(PoissonNllLossConfig, log_input, full, eps)
BURN_CONFIG_JSON(GaussianNllLossConfig, full, eps)

namespace detail {

namespace {
void check_pair(const H& x, const H& y, const char* op) {
  require_float(x, op, "input");
  require_float(y, op, "targets");
  require_same_shape(x, y, op, "input", "targets");
}
}  // namespace

H mse(const H& x, const H& y, Red r) {
  check_pair(x, y, "MseLoss");
  return reduce(api::unary(OpId::square, api::sub(x, y)), r, "MseLoss");
}

H l1(const H& x, const H& y, Red r) {
  check_pair(x, y, "L1Loss");
  return reduce(api::unary(OpId::abs, api::sub(x, y)), r, "L1Loss");
}

H huber(const H& x, const H& y, double delta, bool smooth_l1, Red r) {
  const char* op = smooth_l1 ? "SmoothL1Loss" : "HuberLoss";
  check_pair(x, y, op);
  if (smooth_l1 ? !(delta >= 0.0) : !(delta > 0.0))
    throw ValueError(op, std::string(smooth_l1 ? "beta must be >= 0" : "delta must be > 0") + ", got " + num(delta));
  const H a = api::unary(OpId::abs, api::sub(x, y));
  if (delta == 0.0) return reduce(a, r, op);  // SmoothL1 with beta 0 is L1
  // q = min(|d|, delta): 0.5 q^2 + delta (|d| - q) is 0.5 d^2 inside, delta (|d| - delta / 2) outside.
  const H q = api::clamp_max(a, delta);
  H loss = api::add(api::mul_scalar(api::unary(OpId::square, q), 0.5), api::mul_scalar(api::sub(a, q), delta));
  if (smooth_l1) loss = api::div_scalar(std::move(loss), delta);
  return reduce(std::move(loss), r, op);
}

H kl_div(const H& x, const H& y, bool log_target, Red r) {
  const char* op = "KlDivLoss";
  check_pair(x, y, op);
  H loss;
  if (log_target) {
    loss = api::mul(api::unary(OpId::exp, y), api::sub(y, x));
  } else {
    // y log y is 0 where y is 0 (torch's xlogy): log(1) stands in for those.
    const H y_log = api::unary(OpId::log, api::mask_fill(y, api::compare_elem(OpId::lower_equal_elem, y, 0.0), 1.0));
    loss = api::mul(y, api::sub(y_log, x));
  }
  if (r == Reduction::BatchMean) {
    const Shape& s = x.prim->shape();
    const double batch = s.rank() == 0 ? 1.0 : static_cast<double>(s[0]);
    return api::div_scalar(api::reduce_all(OpId::sum, loss), batch);
  }
  return reduce(std::move(loss), r, op);
}

H poisson_nll(const H& x, const H& y, bool log_input, bool full, double eps, Red r) {
  const char* op = "PoissonNllLoss";
  check_pair(x, y, op);
  if (!(eps > 0.0)) throw ValueError(op, "eps must be > 0, got " + num(eps));
  H loss = log_input ? api::sub(api::unary(OpId::exp, x), api::mul(y, x))
                     : api::sub(x, api::mul(y, api::unary(OpId::log, api::add_scalar(x, eps))));
  if (full) {
    // Stirling's approximation of log(y!), only where y > 1 (torch).
    const H small = api::compare_elem(OpId::lower_equal_elem, y, 1.0);
    const H ys = api::mask_fill(y, small, 2.0);
    H st = api::sub(api::mul(ys, api::unary(OpId::log, ys)), ys);
    st = api::add(st, api::mul_scalar(api::unary(OpId::log, api::mul_scalar(ys, 2.0 * std::numbers::pi)), 0.5));
    loss = api::add(loss, api::mask_fill(st, small, 0.0));
  }
  return reduce(std::move(loss), r, op);
}

H gaussian_nll(const H& x, const H& y, const H& var, bool full, double eps, Red r) {
  const char* op = "GaussianNllLoss";
  check_pair(x, y, op);
  require_float(var, op, "var");
  if (!(eps > 0.0)) throw ValueError(op, "eps must be > 0, got " + num(eps));
  const Shape& s = x.prim->shape();
  const Shape& vs = var.prim->shape();
  // torch: var of the input's shape, or without its last dim, or with a last dim of 1.
  std::vector<int64_t> lead = s.dims();
  lead.pop_back();
  H v = var;
  if (vs != s) {
    std::vector<int64_t> vlead = vs.dims();
    if (vlead == lead) {
      v = api::unsqueeze_dims(var, {static_cast<int64_t>(lead.size())});
    } else if (!(vs.rank() == s.rank() && vs[vs.rank() - 1] == 1 && (vlead.pop_back(), vlead == lead))) {
      throw ShapeError(op, "var " + vs.to_string() + " must have the input's shape " + s.to_string() +
                               ", or it without the last dim, or a last dim of 1");
    }
  }
  if (const double lo = min_max(var).first; lo < 0.0)
    throw ValueError(op, "var has a negative entry (min " + num(lo) + ")");
  // Clamped at eps for the value only: the gradient passes through the clamp as in torch (no_grad clamp_).
  v = api::add(v, api::detach(api::sub(api::clamp_min(v, eps), v)));
  H loss =
      api::mul_scalar(api::add(api::div(api::unary(OpId::square, api::sub(x, y)), v), api::unary(OpId::log, v)), 0.5);
  if (full) loss = api::add_scalar(std::move(loss), 0.5 * std::log(2.0 * std::numbers::pi));
  return reduce(std::move(loss), r, op);
}

}  // namespace detail

HuberLoss HuberLossConfig::init() const {
  if (!(delta > 0.0)) throw ValueError("HuberLossConfig::init", "delta must be > 0, got " + detail::num(delta));
  return HuberLoss{delta};
}

SmoothL1Loss SmoothL1LossConfig::init() const {
  if (!(beta >= 0.0)) throw ValueError("SmoothL1LossConfig::init", "beta must be >= 0, got " + detail::num(beta));
  return SmoothL1Loss{beta};
}

KlDivLoss KlDivLossConfig::init() const { return KlDivLoss{log_target}; }

PoissonNllLoss PoissonNllLossConfig::init() const {
  if (!(eps > 0.0)) throw ValueError("PoissonNllLossConfig::init", "eps must be > 0, got " + detail::num(eps));
  return PoissonNllLoss{log_input, full, eps};
}

GaussianNllLoss GaussianNllLossConfig::init() const {
  if (!(eps > 0.0)) throw ValueError("GaussianNllLossConfig::init", "eps must be > 0, got " + detail::num(eps));
  return GaussianNllLoss{full, eps};
}

}  // namespace burn::nn::loss
