// DeformConv2d (Burn's; torchvision.ops.DeformConv2d): a 2-D convolution whose taps are moved by
// learned offsets (and optionally scaled by a mask), both given to forward.
#pragma once

#include <array>

#include "burn/nn/config.hpp"
#include "burn/nn/init.hpp"
#include "burn/nn/module.hpp"

namespace burn::nn {

class BURN_NN_API DeformConv2d {
 public:
  Param<Tensor<4>> weight;  // [C_out, C_in / weight_groups, kh, kw]
  std::optional<Param<Tensor<1>>> bias;
  std::array<int64_t, 2> stride{1, 1}, padding{0, 0}, dilation{1, 1};
  int64_t weight_groups = 1, offset_groups = 1;
  BURN_MODULE(weight, bias)

  // x [N, C_in, H, W]; offset [N, 2 offset_groups kh kw, Ho, Wo] ((dy, dx) per tap); mask
  // [N, offset_groups kh kw, Ho, Wo] -> [N, C_out, Ho, Wo]. ShapeError naming the layer otherwise.
  Tensor<4> forward(const Tensor<4>& x, const Tensor<4>& offset,
                    const std::optional<Tensor<4>>& mask = std::nullopt) const;
  std::string extra_repr() const;
};

struct BURN_NN_API DeformConv2dConfig {
  std::array<int64_t, 2> channels{0, 0};  // [in, out]
  std::array<int64_t, 2> kernel_size{0, 0};
  std::array<int64_t, 2> stride{1, 1};
  std::array<int64_t, 2> dilation{1, 1};
  std::array<int64_t, 2> padding{0, 0};  // zeros on both sides of each spatial dim, as torchvision
  int64_t weight_groups = 1;
  int64_t offset_groups = 1;
  bool bias = true;
  Initializer initializer = Initializer::pytorch_default();
  DeformConv2d init(const Device& device) const;
  BURN_CONFIG(DeformConv2dConfig)
};

}  // namespace burn::nn
