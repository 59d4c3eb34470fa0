// Pooling layers (Burn's MaxPool1d/2d, AvgPool1d/2d, AdaptiveAvgPool1d/2d, with the 3-D ones and
// AdaptiveMaxPool1d/2d as PyTorch has them). Input [batch, channels, spatial...]. Max pools pad with
// -inf, avg pools with zeros (counted in the mean unless count_include_pad is false).
#pragma once

#include "burn/nn/conv.hpp"

namespace burn::nn {

#define BURN_NN_POOL_LAYER(Name, D, Extra)                                         \
  class BURN_NN_API Name {                                                         \
   public:                                                                         \
    std::vector<int64_t> kernel_size, stride; /* one per spatial dim */            \
    PaddingConfig padding;                                                         \
    bool ceil_mode = false;                                                        \
    Extra;                                                                         \
    BURN_MODULE()                                                                  \
    /* ShapeError naming the layer when x is not [batch, channels, spatial...]. */ \
    Tensor<D> forward(const Tensor<D>& x) const;                                   \
    std::string extra_repr() const;                                                \
  };
BURN_NN_POOL_LAYER(MaxPool1d, 3, std::vector<int64_t> dilation)
BURN_NN_POOL_LAYER(MaxPool2d, 4, std::vector<int64_t> dilation)
BURN_NN_POOL_LAYER(MaxPool3d, 5, std::vector<int64_t> dilation)
BURN_NN_POOL_LAYER(AvgPool1d, 3, bool count_include_pad = true)
BURN_NN_POOL_LAYER(AvgPool2d, 4, bool count_include_pad = true)
BURN_NN_POOL_LAYER(AvgPool3d, 5, bool count_include_pad = true)
#undef BURN_NN_POOL_LAYER

// A stride of 0 (the default) is the kernel size, Burn's default.
struct BURN_NN_API MaxPool1dConfig {
  int64_t kernel_size = 0;
  int64_t stride = 0;
  PaddingConfig1d padding = PaddingConfig::valid();
  int64_t dilation = 1;
  bool ceil_mode = false;
  MaxPool1d init() const;
  BURN_CONFIG(MaxPool1dConfig)
};

struct BURN_NN_API MaxPool2dConfig {
  std::array<int64_t, 2> kernel_size{0, 0};
  std::array<int64_t, 2> strides{0, 0};
  PaddingConfig2d padding = PaddingConfig::valid();
  std::array<int64_t, 2> dilation{1, 1};
  bool ceil_mode = false;
  MaxPool2d init() const;
  BURN_CONFIG(MaxPool2dConfig)
};

struct BURN_NN_API MaxPool3dConfig {
  std::array<int64_t, 3> kernel_size{0, 0, 0};
  std::array<int64_t, 3> strides{0, 0, 0};
  PaddingConfig3d padding = PaddingConfig::valid();
  std::array<int64_t, 3> dilation{1, 1, 1};
  bool ceil_mode = false;
  MaxPool3d init() const;
  BURN_CONFIG(MaxPool3dConfig)
};

struct BURN_NN_API AvgPool1dConfig {
  int64_t kernel_size = 0;
  int64_t stride = 0;
  PaddingConfig1d padding = PaddingConfig::valid();
  bool count_include_pad = true;
  bool ceil_mode = false;
  AvgPool1d init() const;
  BURN_CONFIG(AvgPool1dConfig)
};

struct BURN_NN_API AvgPool2dConfig {
  std::array<int64_t, 2> kernel_size{0, 0};
  std::array<int64_t, 2> strides{0, 0};
  PaddingConfig2d padding = PaddingConfig::valid();
  bool count_include_pad = true;
  bool ceil_mode = false;
  AvgPool2d init() const;
  BURN_CONFIG(AvgPool2dConfig)
};

struct BURN_NN_API AvgPool3dConfig {
  std::array<int64_t, 3> kernel_size{0, 0, 0};
  std::array<int64_t, 3> strides{0, 0, 0};
  PaddingConfig3d padding = PaddingConfig::valid();
  bool count_include_pad = true;
  bool ceil_mode = false;
  AvgPool3d init() const;
  BURN_CONFIG(AvgPool3dConfig)
};

// Adaptive pools split each spatial dim into output_size windows [floor(i * in / out), ceil((i + 1) * in / out)).
#define BURN_NN_ADAPTIVE_POOL_LAYER(Name, D)     \
  class BURN_NN_API Name {                       \
   public:                                       \
    std::vector<int64_t> output_size;            \
    BURN_MODULE()                                \
    Tensor<D> forward(const Tensor<D>& x) const; \
    std::string extra_repr() const;              \
  };
BURN_NN_ADAPTIVE_POOL_LAYER(AdaptiveAvgPool1d, 3)
BURN_NN_ADAPTIVE_POOL_LAYER(AdaptiveAvgPool2d, 4)
BURN_NN_ADAPTIVE_POOL_LAYER(AdaptiveAvgPool3d, 5)
BURN_NN_ADAPTIVE_POOL_LAYER(AdaptiveMaxPool1d, 3)
BURN_NN_ADAPTIVE_POOL_LAYER(AdaptiveMaxPool2d, 4)
#undef BURN_NN_ADAPTIVE_POOL_LAYER

struct BURN_NN_API AdaptiveAvgPool1dConfig {
  int64_t output_size = 0;
  AdaptiveAvgPool1d init() const;
  BURN_CONFIG(AdaptiveAvgPool1dConfig)
};
struct BURN_NN_API AdaptiveAvgPool2dConfig {
  std::array<int64_t, 2> output_size{0, 0};
  AdaptiveAvgPool2d init() const;
  BURN_CONFIG(AdaptiveAvgPool2dConfig)
};
struct BURN_NN_API AdaptiveAvgPool3dConfig {
  std::array<int64_t, 3> output_size{0, 0, 0};
  AdaptiveAvgPool3d init() const;
  BURN_CONFIG(AdaptiveAvgPool3dConfig)
};
struct BURN_NN_API AdaptiveMaxPool1dConfig {
  int64_t output_size = 0;
  AdaptiveMaxPool1d init() const;
  BURN_CONFIG(AdaptiveMaxPool1dConfig)
};
struct BURN_NN_API AdaptiveMaxPool2dConfig {
  std::array<int64_t, 2> output_size{0, 0};
  AdaptiveMaxPool2d init() const;
  BURN_CONFIG(AdaptiveMaxPool2dConfig)
};

}  // namespace burn::nn
