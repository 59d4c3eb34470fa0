// BatchNorm, LayerNorm, GroupNorm, InstanceNorm, RmsNorm and LocalResponseNorm; running statistics as buffers.
#include "burn/nn/norm.hpp"

#include "burn/tensor/autodiff.hpp"
#include "burn/tensor/module.hpp"
#include "layer_common.hpp"

namespace burn::nn {

BURN_CONFIG_JSON(BatchNormConfig, num_features, epsilon, momentum)
BURN_CONFIG_JSON(LayerNormConfig, d_model, epsilon, bias)
BURN_CONFIG_JSON(GroupNormConfig, num_groups, num_channels, epsilon, affine)
BURN_CONFIG_JSON(InstanceNormConfig, num_channels, epsilon, affine)
BURN_CONFIG_JSON(RmsNormConfig, d_model, epsilon)
BURN_CONFIG_JSON(LocalResponseNormConfig, size, alpha, beta, k)

namespace {

Shape shape_of(const TensorHandle& x) { return x.prim ? x.prim->shape() : Shape{}; }

// ShapeError naming `layer` unless x is [batch, channels, ...] with `channels` channels.
void check_channels(const char* layer, const TensorHandle& x, int64_t channels) {
  const Shape s = shape_of(x);
  if (s.rank() < 2 || s[1] != channels)
    throw ShapeError(layer, "expected an input [batch, " + std::to_string(channels) + ", ...], got " + s.to_string());
}

void check_last_dim(const char* layer, const TensorHandle& x, int64_t d_model) {
  const Shape s = shape_of(x);
  if (s.rank() == 0 || s[s.rank() - 1] != d_model)
    throw ShapeError(layer, "input " + s.to_string() + " has no last dim of d_model " + std::to_string(d_model));
}

void check_epsilon(const char* op, double eps) {
  if (!(eps > 0.0)) throw ValueError(op, "epsilon must be positive, got " + detail::num_string(eps));
}

api::OptH opt(const std::optional<Param<Tensor<1>>>& p) { return p ? api::OptH(p->handle()) : std::nullopt; }

}  // namespace

namespace detail {

TensorHandle batch_norm(const BatchNorm& m, const TensorHandle& x) {
  check_channels("BatchNorm", x, m.gamma.shape()[0]);
  // Burn's rule: a module trains on an autodiff device with grad enabled.
  const bool training = autodiff_of(x.device) != nullptr && grad_enabled();
  api::Hs r = api::batch_norm(x, m.gamma.handle(), m.beta.handle(), m.running_mean.handle(), m.running_var.handle(),
                              training, m.momentum, m.epsilon);
  if (training) {
    // The statistics are values, not part of any graph: detached, they keep no history across steps.
    m.running_mean.set_handle(api::detach(r.at(1)));
    m.running_var.set_handle(api::detach(r.at(2)));
  }
  return std::move(r.at(0));
}

TensorHandle layer_norm(const LayerNorm& m, const TensorHandle& x) {
  check_last_dim("LayerNorm", x, m.gamma.shape()[0]);
  return api::layer_norm(x, m.gamma.handle(), opt(m.beta), 1, m.epsilon);
}

TensorHandle group_norm(const char* layer, const std::optional<Param<Tensor<1>>>& gamma,
                        const std::optional<Param<Tensor<1>>>& beta, int64_t num_groups, int64_t num_channels,
                        double epsilon, const TensorHandle& x) {
  check_channels(layer, x, num_channels);
  return api::group_norm(x, opt(gamma), opt(beta), num_groups, epsilon);
}

TensorHandle rms_norm(const RmsNorm& m, const TensorHandle& x) {
  check_last_dim("RmsNorm", x, m.gamma.shape()[0]);
  return api::rms_norm(x, m.gamma.handle(), 1, m.epsilon);
}

TensorHandle local_response_norm(const LocalResponseNorm& m, const TensorHandle& x) {
  const Shape s = shape_of(x);
  if (s.rank() < 3)
    throw ShapeError("LocalResponseNorm", "expected an input [batch, channels, spatial...], got " + s.to_string());
  // The sum over neighbouring channels as PyTorch computes it: an average pool over the channel dim
  // of x^2 seen as [N, 1, C, rest], zero-padded by size / 2 before and (size - 1) / 2 after.
  const Tensor<4> sq = Tensor<4>(api::reshape(x, {s[0], 1, s[1], -1})).square();
  PoolOptions o{{m.size, 1}, {1, 1}, {m.size / 2, 0}, {(m.size - 1) / 2, 0}, {}, false, true};
  const Tensor<4> avg = module::avg_pool<4>(sq, o);
  const TensorHandle div = api::reshape(((avg * m.alpha) + m.k).powf_scalar(m.beta).handle(), s.dims());
  return api::div(x, div);
}

}  // namespace detail

std::string BatchNorm::extra_repr() const {
  return "num_features=" + std::to_string(gamma.shape()[0]) + ", momentum=" + detail::num_string(momentum) +
         ", epsilon=" + detail::num_string(epsilon);
}
std::string LayerNorm::extra_repr() const {
  return "d_model=" + std::to_string(gamma.shape()[0]) + ", epsilon=" + detail::num_string(epsilon) +
         ", bias=" + (beta ? "true" : "false");
}
std::string GroupNorm::extra_repr() const {
  return "num_groups=" + std::to_string(num_groups) + ", num_channels=" + std::to_string(num_channels) +
         ", epsilon=" + detail::num_string(epsilon) + ", affine=" + (gamma ? "true" : "false");
}
std::string InstanceNorm::extra_repr() const {
  return "num_channels=" + std::to_string(num_channels) + ", epsilon=" + detail::num_string(epsilon) +
         ", affine=" + (gamma ? "true" : "false");
}
std::string RmsNorm::extra_repr() const {
  return "d_model=" + std::to_string(gamma.shape()[0]) + ", epsilon=" + detail::num_string(epsilon);
}
std::string LocalResponseNorm::extra_repr() const {
  return "size=" + std::to_string(size) + ", alpha=" + detail::num_string(alpha) +
         ", beta=" + detail::num_string(beta) + ", k=" + detail::num_string(k);
}

namespace {
Param<Tensor<1>> filled(int64_t n, double v, const Device& device) {
  return Param<Tensor<1>>(Tensor<1>::full({n}, v, device));
}
}  // namespace

BatchNorm BatchNormConfig::init(const Device& device) const {
  static constexpr const char* op = "BatchNormConfig::init";
  detail::check_positive(op, "num_features", {num_features});
  check_epsilon(op, epsilon);
  if (!(momentum >= 0.0 && momentum <= 1.0))
    throw ValueError(op, "momentum must be in [0, 1], got " + detail::num_string(momentum));
  BatchNorm b;
  b.gamma = filled(num_features, 1.0, device);
  b.beta = filled(num_features, 0.0, device);
  b.running_mean = buffer(Tensor<1>::zeros({num_features}, device));
  b.running_var = buffer(Tensor<1>::ones({num_features}, device));
  b.momentum = momentum;
  b.epsilon = epsilon;
  return b;
}

LayerNorm LayerNormConfig::init(const Device& device) const {
  static constexpr const char* op = "LayerNormConfig::init";
  detail::check_positive(op, "d_model", {d_model});
  check_epsilon(op, epsilon);
  LayerNorm l;
  l.gamma = filled(d_model, 1.0, device);
  if (bias) l.beta = filled(d_model, 0.0, device);
  l.epsilon = epsilon;
  return l;
}

GroupNorm GroupNormConfig::init(const Device& device) const {
  static constexpr const char* op = "GroupNormConfig::init";
  detail::check_positive(op, "num_groups and num_channels", {num_groups, num_channels});
  check_epsilon(op, epsilon);
  if (num_channels % num_groups != 0)
    throw ValueError(op, "num_channels " + std::to_string(num_channels) + " is not divisible by num_groups " +
                             std::to_string(num_groups));
  GroupNorm g;
  if (affine) {
    g.gamma = filled(num_channels, 1.0, device);
    g.beta = filled(num_channels, 0.0, device);
  }
  g.num_groups = num_groups;
  g.num_channels = num_channels;
  g.epsilon = epsilon;
  return g;
}

InstanceNorm InstanceNormConfig::init(const Device& device) const {
  static constexpr const char* op = "InstanceNormConfig::init";
  detail::check_positive(op, "num_channels", {num_channels});
  check_epsilon(op, epsilon);
  InstanceNorm n;
  if (affine) {
    n.gamma = filled(num_channels, 1.0, device);
    n.beta = filled(num_channels, 0.0, device);
  }
  n.num_channels = num_channels;
  n.epsilon = epsilon;
  return n;
}

RmsNorm RmsNormConfig::init(const Device& device) const {
  static constexpr const char* op = "RmsNormConfig::init";
  detail::check_positive(op, "d_model", {d_model});
  check_epsilon(op, epsilon);
  RmsNorm r;
  r.gamma = filled(d_model, 1.0, device);
  r.epsilon = epsilon;
  return r;
}

LocalResponseNorm LocalResponseNormConfig::init() const {
  static constexpr const char* op = "LocalResponseNormConfig::init";
  detail::check_positive(op, "size", {size});
  if (!(k > 0.0)) throw ValueError(op, "k must be positive, got " + detail::num_string(k));
  return LocalResponseNorm{size, alpha, beta, k};
}

}  // namespace burn::nn
