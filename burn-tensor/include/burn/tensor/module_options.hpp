// Options of the module ops (convolution, pooling, resampling, normalisation, attention): plain
// structs with PyTorch's defaults. Per-spatial-dim vectors may be empty (the default) or hold one
// value (used for every dim) or one value per spatial dim.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace burn {

struct ConvOptions {
  std::vector<int64_t> stride;       // default 1
  std::vector<int64_t> padding;      // zeros before each spatial dim; default 0
  std::vector<int64_t> padding_end;  // zeros after each spatial dim; default: same as padding
  std::vector<int64_t> dilation;     // default 1
  int64_t groups = 1;
};

struct ConvTransposeOptions {
  std::vector<int64_t> stride;
  std::vector<int64_t> padding;
  std::vector<int64_t> padding_out;  // PyTorch's output_padding; default 0
  std::vector<int64_t> dilation;
  int64_t groups = 1;
};

// Which gradients conv_backward and conv_transpose_backward compute, as PyTorch's convolution_backward
// output_mask: the entries of {grad_x, grad_weight, grad_bias} not asked for come back null (an input
// that nobody differentiates, such as a network's first conv's data, costs no input gradient).
struct ConvGradMask {
  bool x = true;
  bool weight = true;
  bool bias = true;
};

// torchvision.ops.deform_conv2d.
struct DeformConvOptions {
  std::vector<int64_t> stride;
  std::vector<int64_t> padding;
  std::vector<int64_t> dilation;
  int64_t weight_groups = 1;
  int64_t offset_groups = 1;
};

// im2col / col2im (torch.nn.functional.unfold / fold).
struct UnfoldOptions {
  std::vector<int64_t> kernel;
  std::vector<int64_t> stride;
  std::vector<int64_t> padding;
  std::vector<int64_t> dilation;
};

struct PoolOptions {
  std::vector<int64_t> kernel;
  std::vector<int64_t> stride;       // default: the kernel
  std::vector<int64_t> padding;      // before; max pools pad with -inf, avg pools with 0
  std::vector<int64_t> padding_end;  // after; default: same as padding
  std::vector<int64_t> dilation;     // max pools only
  bool ceil_mode = false;
  bool count_include_pad = true;  // avg pools only
};

enum class InterpolateMode : uint8_t { Nearest, Linear, Cubic };  // Linear/Cubic: bilinear/bicubic in 2-D

struct InterpolateOptions {
  InterpolateMode mode = InterpolateMode::Nearest;
  bool align_corners = false;  // ignored by Nearest, as in PyTorch
};

// torch.nn.functional.grid_sample on 4-D input: how a grid point samples the input plane, and what
// it reads outside it (Zeros: 0; Border: the nearest edge pixel; Reflection: mirrored at the edges).
enum class GridSampleMode : uint8_t { Bilinear, Nearest };
enum class GridSamplePadding : uint8_t { Zeros, Border, Reflection };

struct GridSampleOptions {
  GridSampleMode mode = GridSampleMode::Bilinear;
  GridSamplePadding padding = GridSamplePadding::Zeros;
  bool align_corners = false;  // -1 and 1 are the centres of the corner pixels instead of their outer edges
};

struct AttentionOptions {
  bool causal = false;          // mask keys after the query's position (upper triangle)
  std::optional<double> scale;  // default 1/sqrt(head_dim)
};

}  // namespace burn
