// Normalisation layers (Burn's BatchNorm, LayerNorm, GroupNorm, InstanceNorm, RmsNorm, and PyTorch's
// LocalResponseNorm). Affine parameters are Burn's gamma (ones) and beta (zeros).
#pragma once

#include "burn/nn/config.hpp"
#include "burn/nn/module.hpp"

namespace burn::nn {

class BatchNorm;
class LayerNorm;
class GroupNorm;
class RmsNorm;
class LocalResponseNorm;
namespace detail {
BURN_NN_API TensorHandle batch_norm(const BatchNorm& m, const TensorHandle& x);
BURN_NN_API TensorHandle layer_norm(const LayerNorm& m, const TensorHandle& x);
BURN_NN_API TensorHandle group_norm(const char* layer, const std::optional<Param<Tensor<1>>>& gamma,
                                    const std::optional<Param<Tensor<1>>>& beta, int64_t num_groups,
                                    int64_t num_channels, double epsilon, const TensorHandle& x);
BURN_NN_API TensorHandle rms_norm(const RmsNorm& m, const TensorHandle& x);
BURN_NN_API TensorHandle local_response_norm(const LocalResponseNorm& m, const TensorHandle& x);
}  // namespace detail

// Over the channels (dim 1) of [batch, channels, ...] (PyTorch's BatchNorm1d/2d/3d in one class, as
// Burn's). Training (an autodiff device with grad enabled) normalises with the batch statistics and
// moves the running ones: running = (1 - momentum) * running + momentum * batch (unbiased variance);
// elsewhere (valid(), a plain device) it normalises with the running statistics.
class BURN_NN_API BatchNorm {
 public:
  Param<Tensor<1>> gamma, beta;
  // Buffers that a training forward replaces (Burn's RunningState): mutable so forward stays const.
  mutable Param<Tensor<1>> running_mean, running_var;
  double momentum = 0.1;
  double epsilon = 1e-5;
  BURN_MODULE(gamma, beta, running_mean, running_var)

  template <size_t D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return Tensor<D>(detail::batch_norm(*this, x.handle()));
  }
  std::string extra_repr() const;
};

struct BURN_NN_API BatchNormConfig {
  int64_t num_features = 0;
  double epsilon = 1e-5;
  double momentum = 0.1;
  BatchNorm init(const Device& device) const;
  BURN_CONFIG(BatchNormConfig)
};

// Over the last dim, of size d_model.
class BURN_NN_API LayerNorm {
 public:
  Param<Tensor<1>> gamma;
  std::optional<Param<Tensor<1>>> beta;
  double epsilon = 1e-5;
  BURN_MODULE(gamma, beta)

  template <size_t D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return Tensor<D>(detail::layer_norm(*this, x.handle()));
  }
  std::string extra_repr() const;
};

struct BURN_NN_API LayerNormConfig {
  int64_t d_model = 0;
  double epsilon = 1e-5;
  bool bias = true;  // whether beta exists
  LayerNorm init(const Device& device) const;
  BURN_CONFIG(LayerNormConfig)
};

// Over groups of channels of [batch, channels, ...], with per-channel gamma and beta when affine.
class BURN_NN_API GroupNorm {
 public:
  std::optional<Param<Tensor<1>>> gamma, beta;
  int64_t num_groups = 1;
  int64_t num_channels = 0;
  double epsilon = 1e-5;
  BURN_MODULE(gamma, beta)

  template <size_t D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return Tensor<D>(detail::group_norm("GroupNorm", gamma, beta, num_groups, num_channels, epsilon, x.handle()));
  }
  std::string extra_repr() const;
};

struct BURN_NN_API GroupNormConfig {
  int64_t num_groups = 0;
  int64_t num_channels = 0;
  double epsilon = 1e-5;
  bool affine = true;
  GroupNorm init(const Device& device) const;
  BURN_CONFIG(GroupNormConfig)
};

// Each channel of each sample on its own: a group norm with one channel per group (Burn's; affine
// by default, unlike PyTorch's InstanceNorm).
class BURN_NN_API InstanceNorm {
 public:
  std::optional<Param<Tensor<1>>> gamma, beta;
  int64_t num_channels = 0;
  double epsilon = 1e-5;
  BURN_MODULE(gamma, beta)
  template <size_t D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return Tensor<D>(detail::group_norm("InstanceNorm", gamma, beta, num_channels, num_channels, epsilon, x.handle()));
  }
  std::string extra_repr() const;
};

struct BURN_NN_API InstanceNormConfig {
  int64_t num_channels = 0;
  double epsilon = 1e-5;
  bool affine = true;
  InstanceNorm init(const Device& device) const;
  BURN_CONFIG(InstanceNormConfig)
};

// x / sqrt(mean(x^2) + epsilon) * gamma over the last dim (Burn's RmsNorm).
class BURN_NN_API RmsNorm {
 public:
  Param<Tensor<1>> gamma;
  double epsilon = 1e-5;
  BURN_MODULE(gamma)

  template <size_t D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return Tensor<D>(detail::rms_norm(*this, x.handle()));
  }
  std::string extra_repr() const;
};

struct BURN_NN_API RmsNormConfig {
  int64_t d_model = 0;
  double epsilon = 1e-5;
  RmsNorm init(const Device& device) const;
  BURN_CONFIG(RmsNormConfig)
};

// x / (k + alpha / size * sum over `size` neighbouring channels of x^2)^beta (torch.nn.LocalResponseNorm),
// on [batch, channels, ...]. The window of channel c is [c - size / 2, c + (size - 1) / 2] as in PyTorch
// (for an even size Burn's, ONNX's, leans the other way: [c - (size - 1) / 2, c + size / 2]).
class BURN_NN_API LocalResponseNorm {
 public:
  int64_t size = 0;
  double alpha = 1e-4;
  double beta = 0.75;
  double k = 1.0;
  BURN_MODULE()

  template <size_t D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return Tensor<D>(detail::local_response_norm(*this, x.handle()));
  }
  std::string extra_repr() const;
};

struct BURN_NN_API LocalResponseNormConfig {
  int64_t size = 0;
  double alpha = 1e-4;
  double beta = 0.75;
  double k = 1.0;
  LocalResponseNorm init() const;
  BURN_CONFIG(LocalResponseNormConfig)
};

}  // namespace burn::nn
