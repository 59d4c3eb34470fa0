// The rules of the optimizers, each PyTorch's update written on the inner device.
#include "burn/optim/optimizers.hpp"

#include <cmath>

#include "../nn/config_json.hpp"

namespace burn::optim {

BURN_CONFIG_JSON(SgdConfig, momentum, dampening, nesterov, weight_decay, grad_clip_norm, grad_clip_value)
BURN_CONFIG_JSON(AdamConfig, beta_1, beta_2, epsilon, amsgrad, weight_decay, grad_clip_norm, grad_clip_value)
BURN_CONFIG_JSON(AdamWConfig, beta_1, beta_2, epsilon, amsgrad, weight_decay, grad_clip_norm, grad_clip_value)
BURN_CONFIG_JSON(AdaGradConfig, lr_decay, epsilon, initial_accumulator_value, weight_decay, grad_clip_norm,
                 grad_clip_value)
BURN_CONFIG_JSON(RmsPropConfig, alpha, epsilon, centered, momentum, weight_decay, grad_clip_norm, grad_clip_value)
BURN_CONFIG_JSON(MuonConfig, momentum, nesterov, ns_steps, weight_decay, grad_clip_norm, grad_clip_value)
BURN_CONFIG_JSON(AdanConfig, beta_1, beta_2, beta_3, epsilon, weight_decay, grad_clip_norm, grad_clip_value)

namespace {

// A rank-free tensor with arithmetic, so the rules read like their equations.
struct T {
  TensorHandle h;
};
T operator+(const T& a, const T& b) { return {api::add(a.h, b.h)}; }
T operator-(const T& a, const T& b) { return {api::sub(a.h, b.h)}; }
T operator*(const T& a, const T& b) { return {api::mul(a.h, b.h)}; }
T operator/(const T& a, const T& b) { return {api::div(a.h, b.h)}; }
T operator*(const T& a, double s) { return {api::mul_scalar(a.h, s)}; }
T operator/(const T& a, double s) { return {api::div_scalar(a.h, s)}; }
T operator+(const T& a, double s) { return {api::add_scalar(a.h, s)}; }
T sqrt(const T& a) { return {api::unary(OpId::sqrt, a.h)}; }
T maximum(const T& a, const T& b) { return {api::maximum(a.h, b.h)}; }
T zeros_like(const T& a) { return {api::full(a.h.device, a.h.prim->shape(), 0.0, a.h.prim->dtype())}; }
T full_like(const T& a, double v) { return {api::full(a.h.device, a.h.prim->shape(), v, a.h.prim->dtype())}; }

T get(const ParamState& s, const std::string& name, const char* rule) { return {s.at(name, rule)}; }
void put(ParamState& s, const std::string& name, const T& t) { s.tensors[name] = t.h; }

void check_range(const char* cfg, const char* field, double v, double lo, double hi, bool hi_open = true) {
  if (!(v >= lo && (hi_open ? v < hi : v <= hi)))
    throw ValueError(cfg, std::string(field) + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                              (hi_open ? ")" : "]") + ", got " + std::to_string(v));
}

std::optional<GradientClipping> clipping(const char* cfg, double norm, double value) {
  check_range(cfg, "grad_clip_norm", norm, 0, INFINITY);
  check_range(cfg, "grad_clip_value", value, 0, INFINITY);
  if (norm > 0 && value > 0) throw ValueError(cfg, "set grad_clip_norm or grad_clip_value, not both");
  if (norm > 0) return GradientClipping::norm(norm);
  if (value > 0) return GradientClipping::value(value);
  return std::nullopt;
}

class Sgd : public Rule {
 public:
  explicit Sgd(const SgdConfig& c) : c_(c) {}
  std::string name() const override { return "sgd"; }
  RuleStep step(double lr, const TensorHandle& tensor, const TensorHandle& grad, ParamState s) const override {
    T d{grad};
    if (c_.momentum != 0) {
      // The first step starts the buffer at the gradient (no dampening), as PyTorch.
      T buf = s.has("momentum") ? get(s, "momentum", "sgd") * c_.momentum + d * (1.0 - c_.dampening) : d;
      put(s, "momentum", buf);
      d = c_.nesterov ? d + buf * c_.momentum : buf;
    }
    return {(T{tensor} - d * lr).h, std::move(s)};
  }

 private:
  SgdConfig c_;
};

class Adam : public Rule {
 public:
  Adam(double b1, double b2, double eps, bool amsgrad, const char* name)
      : b1_(b1), b2_(b2), eps_(eps), amsgrad_(amsgrad), name_(name) {}
  std::string name() const override { return name_; }
  RuleStep step(double lr, const TensorHandle& tensor, const TensorHandle& grad, ParamState s) const override {
    const T g{grad};
    const bool first = !s.has("moment_1");
    const T m = first ? g * (1.0 - b1_) : get(s, "moment_1", name_) * b1_ + g * (1.0 - b1_);
    const T v = first ? g * g * (1.0 - b2_) : get(s, "moment_2", name_) * b2_ + g * g * (1.0 - b2_);
    put(s, "moment_1", m);
    put(s, "moment_2", v);
    T vhat = v;
    if (amsgrad_) {
      vhat = s.has("max_moment_2") ? maximum(get(s, "max_moment_2", name_), v) : v;
      put(s, "max_moment_2", vhat);
    }
    const double t = static_cast<double>(s.step);
    const double bc1 = 1.0 - std::pow(b1_, t), bc2 = 1.0 - std::pow(b2_, t);
    const T denom = sqrt(vhat) / std::sqrt(bc2) + eps_;
    return {(T{tensor} - (m / denom) * (lr / bc1)).h, std::move(s)};
  }

 private:
  double b1_, b2_, eps_;
  bool amsgrad_;
  const char* name_;
};

class AdaGrad : public Rule {
 public:
  explicit AdaGrad(const AdaGradConfig& c) : c_(c) {}
  std::string name() const override { return "adagrad"; }
  RuleStep step(double lr, const TensorHandle& tensor, const TensorHandle& grad, ParamState s) const override {
    const T g{grad};
    const T prev = s.has("sum") ? get(s, "sum", "adagrad") : full_like(g, c_.initial_accumulator_value);
    const T sum = prev + g * g;
    put(s, "sum", sum);
    const double clr = lr / (1.0 + static_cast<double>(s.step - 1) * c_.lr_decay);
    return {(T{tensor} - (g / (sqrt(sum) + c_.epsilon)) * clr).h, std::move(s)};
  }

 private:
  AdaGradConfig c_;
};

class RmsProp : public Rule {
 public:
  explicit RmsProp(const RmsPropConfig& c) : c_(c) {}
  std::string name() const override { return "rmsprop"; }
  RuleStep step(double lr, const TensorHandle& tensor, const TensorHandle& grad, ParamState s) const override {
    const T g{grad};
    const double a = c_.alpha;
    const T sq = (s.has("square_avg") ? get(s, "square_avg", "rmsprop") * a : zeros_like(g)) + g * g * (1.0 - a);
    put(s, "square_avg", sq);
    T avg = sq;
    if (c_.centered) {
      const T ga = (s.has("grad_avg") ? get(s, "grad_avg", "rmsprop") * a : zeros_like(g)) + g * (1.0 - a);
      put(s, "grad_avg", ga);
      avg = sq - ga * ga;
    }
    const T denom = sqrt(avg) + c_.epsilon;
    T update = g / denom;
    if (c_.momentum > 0) {
      update = (s.has("momentum") ? get(s, "momentum", "rmsprop") * c_.momentum : zeros_like(g)) + update;
      put(s, "momentum", update);
    }
    return {(T{tensor} - update * lr).h, std::move(s)};
  }

 private:
  RmsPropConfig c_;
};

// The official Adan code (sail-sg/Adan, no_prox): the gradient difference starts at 0 on step 1.
class Adan : public Rule {
 public:
  explicit Adan(const AdanConfig& c) : c_(c) {}
  std::string name() const override { return "adan"; }
  RuleStep step(double lr, const TensorHandle& tensor, const TensorHandle& grad, ParamState s) const override {
    const T g{grad};
    const bool first = !s.has("exp_avg");
    const T diff = first ? zeros_like(g) : g - get(s, "prev_grad", "adan");
    const double b1 = c_.beta_1, b2 = c_.beta_2, b3 = c_.beta_3;
    const T m = (first ? zeros_like(g) : get(s, "exp_avg", "adan") * b1) + g * (1.0 - b1);
    const T v = (first ? zeros_like(g) : get(s, "exp_avg_diff", "adan") * b2) + diff * (1.0 - b2);
    const T u = g + diff * b2;
    const T n = (first ? zeros_like(g) : get(s, "exp_avg_sq", "adan") * b3) + u * u * (1.0 - b3);
    put(s, "exp_avg", m);
    put(s, "exp_avg_diff", v);
    put(s, "exp_avg_sq", n);
    put(s, "prev_grad", g);
    const double t = static_cast<double>(s.step);
    const double bc1 = 1.0 - std::pow(b1, t), bc2 = 1.0 - std::pow(b2, t), bc3 = 1.0 - std::pow(b3, t);
    const T denom = sqrt(n) / std::sqrt(bc3) + c_.epsilon;
    const T update = (m / bc1 + v * (b2 / bc2)) / denom;
    return {(T{tensor} - update * lr).h, std::move(s)};
  }

 private:
  AdanConfig c_;
};

class Muon : public Rule {
 public:
  explicit Muon(const MuonConfig& c) : c_(c) {}
  std::string name() const override { return "muon"; }
  RuleStep step(double lr, const TensorHandle& tensor, const TensorHandle& grad, ParamState s) const override {
    const Shape& shape = tensor.prim->shape();
    if (shape.rank() < 2)
      throw ValueError("Muon", "orthogonalises matrices; a " + shape.to_string() +
                                   " tensor needs another rule (a ParamGroup with AdamW's)");
    const T g{grad};
    const double beta = c_.momentum;
    // m.lerp_(g, 1 - beta); update = g.lerp(m, beta) (Nesterov) or m.
    const T m = (s.has("momentum") ? get(s, "momentum", "muon") * beta : zeros_like(g)) + g * (1.0 - beta);
    put(s, "momentum", m);
    const T u = c_.nesterov ? g * (1.0 - beta) + m * beta : m;
    const int64_t rows = shape[0], cols = shape.num_elements() / rows;
    TensorHandle x = api::reshape(u.h, {rows, cols});
    const bool tall = rows > cols;  // iterate on the wide side: X X^T is the smaller product
    if (tall) x = api::swap_dims(x, 0, 1);
    const TensorHandle norm = api::reshape(api::unary(OpId::sqrt, api::reduce_all(OpId::sum, api::mul(x, x))), {1, 1});
    x = api::div(x, api::add_scalar(norm, 1e-7));
    const double a = 3.4445, b = -4.7750, c = 2.0315;
    for (int64_t i = 0; i < c_.ns_steps; ++i) {
      const TensorHandle A = api::matmul(x, api::swap_dims(x, 0, 1));
      const TensorHandle B = api::add(api::mul_scalar(A, b), api::mul_scalar(api::matmul(A, A), c));
      x = api::add(api::mul_scalar(x, a), api::matmul(B, x));
    }
    if (tall) x = api::swap_dims(x, 0, 1);
    // The reference's max(1, out / in) of PyTorch's [out, in, ...] weights: a Burn Linear weight is
    // [d_input, d_output] (so cols / rows), a conv weight [out, in, k...] as PyTorch's (rows / cols).
    const double fan_out = static_cast<double>(shape.rank() == 2 ? cols : rows);
    const double fan_in = static_cast<double>(shape.rank() == 2 ? rows : cols);
    const double scale = std::sqrt(std::max(1.0, fan_out / fan_in));
    return {(T{tensor} - T{api::reshape(x, shape.dims())} * (lr * scale)).h, std::move(s)};
  }

 private:
  MuonConfig c_;
};

void check_adam(const char* cfg, double b1, double b2, double eps, double wd) {
  check_range(cfg, "beta_1", b1, 0, 1);
  check_range(cfg, "beta_2", b2, 0, 1);
  check_range(cfg, "epsilon", eps, 0, INFINITY);
  check_range(cfg, "weight_decay", wd, 0, INFINITY);
}

}  // namespace

std::shared_ptr<const Rule> SgdConfig::rule() const {
  check_range("SgdConfig", "momentum", momentum, 0, INFINITY);
  check_range("SgdConfig", "dampening", dampening, 0, 1, false);
  check_range("SgdConfig", "weight_decay", weight_decay, 0, INFINITY);
  if (nesterov && (momentum <= 0 || dampening != 0))
    throw ValueError("SgdConfig", "Nesterov momentum needs momentum > 0 and dampening 0, got momentum " +
                                      std::to_string(momentum) + ", dampening " + std::to_string(dampening));
  return std::make_shared<Sgd>(*this);
}
Optimizer SgdConfig::init() const {
  return Optimizer(rule(), {weight_decay, false}, clipping("SgdConfig", grad_clip_norm, grad_clip_value));
}

std::shared_ptr<const Rule> AdamConfig::rule() const {
  check_adam("AdamConfig", beta_1, beta_2, epsilon, weight_decay);
  return std::make_shared<Adam>(beta_1, beta_2, epsilon, amsgrad, "adam");
}
Optimizer AdamConfig::init() const {
  return Optimizer(rule(), {weight_decay, false}, clipping("AdamConfig", grad_clip_norm, grad_clip_value));
}

std::shared_ptr<const Rule> AdamWConfig::rule() const {
  check_adam("AdamWConfig", beta_1, beta_2, epsilon, weight_decay);
  return std::make_shared<Adam>(beta_1, beta_2, epsilon, amsgrad, "adamw");
}
Optimizer AdamWConfig::init() const {
  return Optimizer(rule(), {weight_decay, true}, clipping("AdamWConfig", grad_clip_norm, grad_clip_value));
}

std::shared_ptr<const Rule> AdaGradConfig::rule() const {
  check_range("AdaGradConfig", "lr_decay", lr_decay, 0, INFINITY);
  check_range("AdaGradConfig", "epsilon", epsilon, 0, INFINITY);
  check_range("AdaGradConfig", "initial_accumulator_value", initial_accumulator_value, 0, INFINITY);
  check_range("AdaGradConfig", "weight_decay", weight_decay, 0, INFINITY);
  return std::make_shared<AdaGrad>(*this);
}
Optimizer AdaGradConfig::init() const {
  return Optimizer(rule(), {weight_decay, false}, clipping("AdaGradConfig", grad_clip_norm, grad_clip_value));
}

std::shared_ptr<const Rule> RmsPropConfig::rule() const {
  check_range("RmsPropConfig", "alpha", alpha, 0, 1, false);
  check_range("RmsPropConfig", "epsilon", epsilon, 0, INFINITY);
  check_range("RmsPropConfig", "momentum", momentum, 0, INFINITY);
  check_range("RmsPropConfig", "weight_decay", weight_decay, 0, INFINITY);
  return std::make_shared<RmsProp>(*this);
}
Optimizer RmsPropConfig::init() const {
  return Optimizer(rule(), {weight_decay, false}, clipping("RmsPropConfig", grad_clip_norm, grad_clip_value));
}

std::shared_ptr<const Rule> MuonConfig::rule() const {
  check_range("MuonConfig", "momentum", momentum, 0, 1);
  check_range("MuonConfig", "weight_decay", weight_decay, 0, INFINITY);
  if (ns_steps < 1) throw ValueError("MuonConfig", "ns_steps must be >= 1, got " + std::to_string(ns_steps));
  return std::make_shared<Muon>(*this);
}
Optimizer MuonConfig::init() const {
  return Optimizer(rule(), {weight_decay, true}, clipping("MuonConfig", grad_clip_norm, grad_clip_value));
}

std::shared_ptr<const Rule> AdanConfig::rule() const {
  check_range("AdanConfig", "beta_1", beta_1, 0, 1);
  check_range("AdanConfig", "beta_2", beta_2, 0, 1);
  check_range("AdanConfig", "beta_3", beta_3, 0, 1);
  check_range("AdanConfig", "epsilon", epsilon, 0, INFINITY);
  check_range("AdanConfig", "weight_decay", weight_decay, 0, INFINITY);
  return std::make_shared<Adan>(*this);
}
Optimizer AdanConfig::init() const {
  return Optimizer(rule(), {weight_decay, true}, clipping("AdanConfig", grad_clip_norm, grad_clip_value));
}

}  // namespace burn::optim
