// Convolutions (Burn's Conv1d/2d/3d, ConvTranspose1d/2d/3d, Unfold4d) and the sliding-window
// reshapes Fold4d, PixelShuffle and PixelUnshuffle. Weights are [C_out, C_in / groups, k...] (transposed:
// [C_in, C_out / groups, k...]) as in Burn and PyTorch; the default initializer is PyTorch's
// U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in = C_in / groups * prod(k) (transposed: C_out / groups * prod(k)).
#pragma once

#include <array>

#include "burn/nn/config.hpp"
#include "burn/nn/init.hpp"
#include "burn/nn/module.hpp"
#include "burn/tensor/quant.hpp"

namespace burn::nn {

// Burn's PaddingConfig1d/2d/3d. Same pads so that the output has ceil(size / stride) elements
// (TensorFlow's SAME; PyTorch's padding="same" at stride 1), the odd one at the end. Explicit holds
// the zeros before each spatial dim (one value for all dims, or one per dim) and after it (empty:
// as before).
struct PaddingConfig {
  enum class Kind : uint8_t { Valid, Same, Explicit };
  Kind kind = Kind::Valid;
  std::vector<int64_t> start;
  std::vector<int64_t> end;
  static PaddingConfig valid() { return {}; }
  static PaddingConfig same() { return {Kind::Same, {}, {}}; }
  static PaddingConfig explicit_padding(std::vector<int64_t> start, std::vector<int64_t> end = {}) {
    return {Kind::Explicit, std::move(start), std::move(end)};
  }
  bool operator==(const PaddingConfig&) const = default;
};
using PaddingConfig1d = PaddingConfig;
using PaddingConfig2d = PaddingConfig;
using PaddingConfig3d = PaddingConfig;

namespace detail {
// The zeros {before, after} each of the last kernel.size() dims of `input` (ValueError naming `layer`).
BURN_NN_API std::pair<std::vector<int64_t>, std::vector<int64_t>> resolve_padding(const PaddingConfig& padding,
                                                                                  const char* layer, const Shape& input,
                                                                                  const std::vector<int64_t>& kernel,
                                                                                  const std::vector<int64_t>& stride,
                                                                                  const std::vector<int64_t>& dilation);
}  // namespace detail

// One class per rank, as Burn; the shared work is in conv.cpp.
#define BURN_NN_CONV_LAYER(Name, D)                                                                      \
  class BURN_NN_API Name {                                                                               \
   public:                                                                                               \
    Param<Tensor<D>> weight;                                                                             \
    std::optional<Param<Tensor<1>>> bias;                                                                \
    std::vector<int64_t> stride, dilation; /* one per spatial dim */                                     \
    int64_t groups = 1;                                                                                  \
    PaddingConfig padding;                                                                               \
    /* Set by quantize_weights / quantize_dynamic (burn/nn/quant.hpp): forward convolves with its */     \
    /* dequantized weight (no int8 conv op yet); records save it in the weight's place. */               \
    std::optional<QTensor> quantized_weight;                                                             \
    BURN_MODULE(weight, bias)                                                                            \
    /* [N, C_in, spatial...] -> [N, C_out, spatial...]; ShapeError naming the layer on a wrong input. */ \
    Tensor<D> forward(const Tensor<D>& x) const;                                                         \
    std::string extra_repr() const;                                                                      \
  };
BURN_NN_CONV_LAYER(Conv1d, 3)
BURN_NN_CONV_LAYER(Conv2d, 4)
BURN_NN_CONV_LAYER(Conv3d, 5)
#undef BURN_NN_CONV_LAYER

struct BURN_NN_API Conv1dConfig {
  int64_t channels_in = 0;
  int64_t channels_out = 0;
  int64_t kernel_size = 0;
  int64_t stride = 1;
  int64_t dilation = 1;
  int64_t groups = 1;
  PaddingConfig1d padding = PaddingConfig::valid();
  bool bias = true;
  Initializer initializer = Initializer::pytorch_default();
  Conv1d init(const Device& device) const;
  BURN_CONFIG(Conv1dConfig)
};

struct BURN_NN_API Conv2dConfig {
  std::array<int64_t, 2> channels{0, 0};  // [in, out]
  std::array<int64_t, 2> kernel_size{0, 0};
  std::array<int64_t, 2> stride{1, 1};
  std::array<int64_t, 2> dilation{1, 1};
  int64_t groups = 1;
  PaddingConfig2d padding = PaddingConfig::valid();
  bool bias = true;
  Initializer initializer = Initializer::pytorch_default();
  Conv2d init(const Device& device) const;
  BURN_CONFIG(Conv2dConfig)
};

struct BURN_NN_API Conv3dConfig {
  std::array<int64_t, 2> channels{0, 0};
  std::array<int64_t, 3> kernel_size{0, 0, 0};
  std::array<int64_t, 3> stride{1, 1, 1};
  std::array<int64_t, 3> dilation{1, 1, 1};
  int64_t groups = 1;
  PaddingConfig3d padding = PaddingConfig::valid();
  bool bias = true;
  Initializer initializer = Initializer::pytorch_default();
  Conv3d init(const Device& device) const;
  BURN_CONFIG(Conv3dConfig)
};

#define BURN_NN_CONV_TRANSPOSE_LAYER(Name, D)                              \
  class BURN_NN_API Name {                                                 \
   public:                                                                 \
    Param<Tensor<D>> weight;                                               \
    std::optional<Param<Tensor<1>>> bias;                                  \
    std::vector<int64_t> stride, dilation, padding, padding_out;           \
    int64_t groups = 1;                                                    \
    BURN_MODULE(weight, bias)                                              \
    /* [N, C_in, spatial...] -> [N, C_out, (in - 1) * stride - 2 * padding \
       + dilation * (k - 1) + padding_out + 1 ...] */                      \
    Tensor<D> forward(const Tensor<D>& x) const;                           \
    std::string extra_repr() const;                                        \
  };
BURN_NN_CONV_TRANSPOSE_LAYER(ConvTranspose1d, 3)
BURN_NN_CONV_TRANSPOSE_LAYER(ConvTranspose2d, 4)
BURN_NN_CONV_TRANSPOSE_LAYER(ConvTranspose3d, 5)
#undef BURN_NN_CONV_TRANSPOSE_LAYER

struct BURN_NN_API ConvTranspose1dConfig {
  std::array<int64_t, 2> channels{0, 0};
  int64_t kernel_size = 0;
  int64_t stride = 1;
  int64_t dilation = 1;
  int64_t groups = 1;
  int64_t padding = 0;
  int64_t padding_out = 0;  // PyTorch's output_padding
  bool bias = true;
  Initializer initializer = Initializer::pytorch_default();
  ConvTranspose1d init(const Device& device) const;
  BURN_CONFIG(ConvTranspose1dConfig)
};

struct BURN_NN_API ConvTranspose2dConfig {
  std::array<int64_t, 2> channels{0, 0};
  std::array<int64_t, 2> kernel_size{0, 0};
  std::array<int64_t, 2> stride{1, 1};
  std::array<int64_t, 2> dilation{1, 1};
  int64_t groups = 1;
  std::array<int64_t, 2> padding{0, 0};
  std::array<int64_t, 2> padding_out{0, 0};
  bool bias = true;
  Initializer initializer = Initializer::pytorch_default();
  ConvTranspose2d init(const Device& device) const;
  BURN_CONFIG(ConvTranspose2dConfig)
};

struct BURN_NN_API ConvTranspose3dConfig {
  std::array<int64_t, 2> channels{0, 0};
  std::array<int64_t, 3> kernel_size{0, 0, 0};
  std::array<int64_t, 3> stride{1, 1, 1};
  std::array<int64_t, 3> dilation{1, 1, 1};
  int64_t groups = 1;
  std::array<int64_t, 3> padding{0, 0, 0};
  std::array<int64_t, 3> padding_out{0, 0, 0};
  bool bias = true;
  Initializer initializer = Initializer::pytorch_default();
  ConvTranspose3d init(const Device& device) const;
  BURN_CONFIG(ConvTranspose3dConfig)
};

// im2col: [N, C, H, W] -> [N, C * kh * kw, L] (Burn's Unfold4d, torch.nn.Unfold).
class BURN_NN_API Unfold4d {
 public:
  std::vector<int64_t> kernel_size, stride, dilation, padding;
  BURN_MODULE()
  Tensor<3> forward(const Tensor<4>& x) const;
  std::string extra_repr() const;
};

struct BURN_NN_API Unfold4dConfig {
  std::array<int64_t, 2> kernel_size{0, 0};
  std::array<int64_t, 2> stride{1, 1};
  std::array<int64_t, 2> dilation{1, 1};
  std::array<int64_t, 2> padding{0, 0};
  Unfold4d init() const;
  BURN_CONFIG(Unfold4dConfig)
};

// col2im, Unfold4d's adjoint: [N, C * kh * kw, L] -> [N, C, output_size] summing overlaps (torch.nn.Fold).
class BURN_NN_API Fold4d {
 public:
  std::vector<int64_t> output_size, kernel_size, stride, dilation, padding;
  BURN_MODULE()
  Tensor<4> forward(const Tensor<3>& cols) const;
  std::string extra_repr() const;
};

struct BURN_NN_API Fold4dConfig {
  std::array<int64_t, 2> output_size{0, 0};
  std::array<int64_t, 2> kernel_size{0, 0};
  std::array<int64_t, 2> stride{1, 1};
  std::array<int64_t, 2> dilation{1, 1};
  std::array<int64_t, 2> padding{0, 0};
  Fold4d init() const;
  BURN_CONFIG(Fold4dConfig)
};

// [N, C * r^2, H, W] -> [N, C, H * r, W * r] (torch.nn.PixelShuffle).
class BURN_NN_API PixelShuffle {
 public:
  int64_t upscale_factor = 1;
  BURN_MODULE()
  Tensor<4> forward(const Tensor<4>& x) const;
  std::string extra_repr() const;
};

struct BURN_NN_API PixelShuffleConfig {
  int64_t upscale_factor = 1;
  PixelShuffle init() const;
  BURN_CONFIG(PixelShuffleConfig)
};

// PixelShuffle's inverse: [N, C, H * r, W * r] -> [N, C * r^2, H, W].
class BURN_NN_API PixelUnshuffle {
 public:
  int64_t downscale_factor = 1;
  BURN_MODULE()
  Tensor<4> forward(const Tensor<4>& x) const;
  std::string extra_repr() const;
};

struct BURN_NN_API PixelUnshuffleConfig {
  int64_t downscale_factor = 1;
  PixelUnshuffle init() const;
  BURN_CONFIG(PixelUnshuffleConfig)
};

}  // namespace burn::nn
