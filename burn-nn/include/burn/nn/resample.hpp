// Interpolate1d/2d (Burn's): resize the spatial dims of [batch, channels, spatial...] to output_size,
// or to floor(size * scale_factor); exactly one of the two is given. align_corners defaults to true
// as in Burn (PyTorch's default is false).
#pragma once

#include "burn/nn/config.hpp"
#include "burn/nn/module.hpp"
#include "burn/tensor/module_options.hpp"

namespace burn::nn {

namespace detail {
BURN_NN_API TensorHandle interpolate(const char* layer, const TensorHandle& x, const std::vector<int64_t>& output_size,
                                     const std::vector<double>& scale_factor, InterpolateMode mode, bool align_corners);
}

#define BURN_NN_INTERPOLATE_LAYER(Name, D)                                                                      \
  class BURN_NN_API Name {                                                                                      \
   public:                                                                                                      \
    std::vector<int64_t> output_size; /* empty: from scale_factor */                                            \
    std::vector<double> scale_factor;                                                                           \
    InterpolateMode mode = InterpolateMode::Nearest;                                                            \
    bool align_corners = true; /* linear and cubic */                                                           \
    BURN_MODULE()                                                                                               \
    Tensor<D> forward(const Tensor<D>& x) const {                                                               \
      return Tensor<D>(detail::interpolate(#Name, x.handle(), output_size, scale_factor, mode, align_corners)); \
    }                                                                                                           \
    std::string extra_repr() const;                                                                             \
  };
BURN_NN_INTERPOLATE_LAYER(Interpolate1d, 3)
BURN_NN_INTERPOLATE_LAYER(Interpolate2d, 4)
#undef BURN_NN_INTERPOLATE_LAYER

// output_size and scale_factor: empty (none) or one value per spatial dim (or one for all).
struct BURN_NN_API Interpolate1dConfig {
  std::vector<int64_t> output_size;
  std::vector<double> scale_factor;
  InterpolateMode mode = InterpolateMode::Nearest;
  bool align_corners = true;
  Interpolate1d init() const;
  BURN_CONFIG(Interpolate1dConfig)
};

struct BURN_NN_API Interpolate2dConfig {
  std::vector<int64_t> output_size;
  std::vector<double> scale_factor;
  InterpolateMode mode = InterpolateMode::Nearest;
  bool align_corners = true;
  Interpolate2d init() const;
  BURN_CONFIG(Interpolate2dConfig)
};

}  // namespace burn::nn
