// Activations as modules (Burn's, with PyTorch's others): each forwards to the tensor op of the same
// name; those with settings have a Config, PRelu and SwiGlu have parameters.
#pragma once

#include "burn/nn/config.hpp"
#include "burn/nn/linear.hpp"
#include "burn/nn/module.hpp"

namespace burn::nn {

// Activations without settings.
#define BURN_NN_ACTIVATION(Name, expr)            \
  struct Name {                                   \
    BURN_MODULE()                                 \
    template <size_t D>                           \
    Tensor<D> forward(const Tensor<D>& x) const { \
      return expr;                                \
    }                                             \
  };
BURN_NN_ACTIVATION(Relu, x.relu())
BURN_NN_ACTIVATION(Relu6, x.relu6())
BURN_NN_ACTIVATION(Sigmoid, x.sigmoid())
BURN_NN_ACTIVATION(Tanh, x.tanh())
BURN_NN_ACTIVATION(Silu, x.silu())
BURN_NN_ACTIVATION(Mish, x.mish())
BURN_NN_ACTIVATION(Selu, x.selu())
BURN_NN_ACTIVATION(Softsign, x.softsign())
BURN_NN_ACTIVATION(HardSwish, x.hard_swish())
BURN_NN_ACTIVATION(Tanhshrink, x.tanhshrink())
BURN_NN_ACTIVATION(LogSigmoid, x.log_sigmoid())
BURN_NN_ACTIVATION(GeluApproximate, x.gelu_tanh())  // Burn's module for PyTorch's gelu(approximate="tanh")
#undef BURN_NN_ACTIVATION
using Swish = Silu;  // x * sigmoid(x)

// Activations with settings: the module holds them, its Config makes it (and is saved as JSON).
#define BURN_NN_SETTING_ACTIVATION(Name, fields, expr) \
  struct BURN_NN_API Name {                            \
    fields;                                            \
    BURN_MODULE()                                      \
    template <size_t D>                                \
    Tensor<D> forward(const Tensor<D>& x) const {      \
      return expr;                                     \
    }                                                  \
    std::string extra_repr() const;                    \
  };                                                   \
  struct BURN_NN_API Name##Config {                    \
    fields;                                            \
    Name init() const;                                 \
    BURN_CONFIG(Name##Config)                          \
  };
#define BURN_NN_FIELDS(...) __VA_ARGS__

// max(0, x) + negative_slope * min(0, x)
BURN_NN_SETTING_ACTIVATION(LeakyRelu, double negative_slope = 0.01, x.leaky_relu(negative_slope))
// x * Phi(x); approximate: PyTorch's approximate="tanh"
BURN_NN_SETTING_ACTIVATION(Gelu, bool approximate = false, approximate ? x.gelu_tanh() : x.gelu())
// x for x > 0, alpha * (exp(x) - 1) otherwise
BURN_NN_SETTING_ACTIVATION(Elu, double alpha = 1.0, x.elu(alpha))
// max(0, x) + min(0, alpha * (exp(x / alpha) - 1))
BURN_NN_SETTING_ACTIVATION(Celu, double alpha = 1.0, x.celu(alpha))
// log(1 + exp(beta * x)) / beta, linear where beta * x > threshold
BURN_NN_SETTING_ACTIVATION(Softplus, BURN_NN_FIELDS(double beta = 1.0; double threshold = 20.0),
                           x.softplus(beta, threshold))
// clamp(alpha * x + beta, 0, 1); Burn's defaults are ONNX's (0.2, 0.5), PyTorch's Hardsigmoid is (1/6, 0.5)
BURN_NN_SETTING_ACTIVATION(HardSigmoid, BURN_NN_FIELDS(double alpha = 0.2; double beta = 0.5),
                           x.hard_sigmoid(alpha, beta))
// clamp(x, min_val, max_val)
BURN_NN_SETTING_ACTIVATION(Hardtanh, BURN_NN_FIELDS(double min_val = -1.0; double max_val = 1.0),
                           x.hardtanh(min_val, max_val))
// x where x > alpha, 0 elsewhere (ONNX's ThresholdedRelu)
BURN_NN_SETTING_ACTIVATION(ThresholdedRelu, double alpha = 1.0, x.threshold(alpha, 0.0))
// x where x > threshold, value elsewhere
BURN_NN_SETTING_ACTIVATION(Threshold, BURN_NN_FIELDS(double threshold = 0.0; double value = 0.0),
                           x.threshold(threshold, value))
// x where |x| > lambda, 0 elsewhere
BURN_NN_SETTING_ACTIVATION(HardShrink, double lambda = 0.5, x.hard_shrink(lambda))
// x - sign(x) * lambda where |x| > lambda, 0 elsewhere
BURN_NN_SETTING_ACTIVATION(SoftShrink, double lambda = 0.5, x.soft_shrink(lambda))
// exp(x) / sum(exp(x)) over dim (negative dims count from the end)
BURN_NN_SETTING_ACTIVATION(Softmax, int64_t dim = -1, x.softmax(dim))
BURN_NN_SETTING_ACTIVATION(LogSoftmax, int64_t dim = -1, x.log_softmax(dim))
// a * sigmoid(b) for the halves a, b of dim: halves that dim's size
BURN_NN_SETTING_ACTIVATION(Glu, int64_t dim = -1, x.glu(dim))
#undef BURN_NN_SETTING_ACTIVATION
#undef BURN_NN_FIELDS

class PRelu;
namespace detail {
BURN_NN_API TensorHandle prelu(const PRelu& m, const TensorHandle& x);
}

// max(0, x) + alpha * min(0, x), alpha learned: one value, or one per channel (dim 1).
class BURN_NN_API PRelu {
 public:
  Param<Tensor<1>> alpha;
  double alpha_value = 0.25;  // the initial value, for display (Burn's)
  BURN_MODULE(alpha)
  template <size_t D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return Tensor<D>(detail::prelu(*this, x.handle()));
  }
  std::string extra_repr() const;
};

struct BURN_NN_API PReluConfig {
  int64_t num_parameters = 1;
  double alpha = 0.25;  // the initial value (PyTorch's init)
  PRelu init(const Device& device) const;
  BURN_CONFIG(PReluConfig)
};

// silu(linear_inner(x)) * linear_outer(x), both Linear [d_input, d_output] (Burn's SwiGlu).
class BURN_NN_API SwiGlu {
 public:
  Linear linear_inner, linear_outer;
  BURN_MODULE(linear_inner, linear_outer)
  template <size_t D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return linear_inner.forward(x).silu() * linear_outer.forward(x);
  }
};

struct BURN_NN_API SwiGluConfig {
  int64_t d_input = 0;
  int64_t d_output = 0;
  bool bias = false;
  Initializer initializer = Initializer::pytorch_default();
  SwiGlu init(const Device& device) const;
  BURN_CONFIG(SwiGluConfig)
};

}  // namespace burn::nn
