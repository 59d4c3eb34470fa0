// Inference-time folding of a batch norm into the convolution before it (what ONNX Runtime and
// torch.nn.utils.fusion.fuse_conv_bn_eval do): conv then batch norm with its running statistics equals
// one conv with per-output-channel scaled weights and a bias, which saves the batch norm's pass.
#pragma once

#include "burn/nn/conv.hpp"
#include "burn/nn/norm.hpp"

namespace burn::nn {

// A conv computing bn(conv(x)) with bn's running statistics: weight * s per output channel and bias
// (bias - running_mean) * s + beta, s = gamma / sqrt(running_var + epsilon); the other settings are
// conv's. The result is on conv's device and dtype, its parameters new (new ids) and detached.
// ShapeError when bn's features are not conv's output channels; ValueError when their devices or
// dtypes differ, or when bn would train (an autodiff device with grad enabled: fold after valid() or
// under no_grad, as the folded conv would not update the running statistics).
BURN_NN_API Conv1d fold_batch_norm(const Conv1d& conv, const BatchNorm& bn);
BURN_NN_API Conv2d fold_batch_norm(const Conv2d& conv, const BatchNorm& bn);
BURN_NN_API Conv3d fold_batch_norm(const Conv3d& conv, const BatchNorm& bn);

}  // namespace burn::nn
