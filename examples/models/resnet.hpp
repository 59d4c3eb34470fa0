// ResNet-18/34 (torchvision's BasicBlock variant) from burn::nn layers. Parameter paths are
// torchvision's (conv1, bn1, layer1.0.conv1, layer2.0.downsample.0, fc), so a torchvision state dict
// maps onto it with the PyTorch adapter (BatchNorm weight/bias -> gamma/beta, fc transposed).
#pragma once

#include <burn/nn.hpp>

namespace burn::models {

struct BasicBlock {
  nn::Conv2d conv1;
  nn::BatchNorm bn1;
  nn::Conv2d conv2;
  nn::BatchNorm bn2;
  std::optional<nn::Sequential<nn::Conv2d, nn::BatchNorm>> downsample;
  BURN_MODULE(conv1, bn1, conv2, bn2, downsample)

  Tensor<4> forward(const Tensor<4>& x) const {
    const Tensor<4> identity = downsample ? downsample->forward(x) : x;
    const Tensor<4> out = bn2.forward(conv2.forward(bn1.forward(conv1.forward(x)).relu()));
    return (out + identity).relu();
  }
};

// The inference form of a BasicBlock: each batch norm folded into its conv (nn::fold_batch_norm).
struct FoldedBasicBlock {
  nn::Conv2d conv1, conv2;
  std::optional<nn::Conv2d> downsample;
  BURN_MODULE(conv1, conv2, downsample)

  Tensor<4> forward(const Tensor<4>& x) const {
    const Tensor<4> identity = downsample ? downsample->forward(x) : x;
    return (conv2.forward(conv1.forward(x).relu()) + identity).relu();
  }
};

// ResNet::fold_batch_norms(): the same logits (to float rounding) without the batch norm passes, as
// ONNX Runtime runs it; for evaluation only (nothing left to train the running statistics).
struct FoldedResNet {
  nn::Conv2d conv1;
  nn::MaxPool2d maxpool;
  std::vector<FoldedBasicBlock> layer1, layer2, layer3, layer4;
  nn::AdaptiveAvgPool2d avgpool;
  nn::Linear fc;
  BURN_MODULE(conv1, maxpool, layer1, layer2, layer3, layer4, avgpool, fc)

  Tensor<2> forward(const Tensor<4>& x) const;
};

struct ResNet {
  nn::Conv2d conv1;
  nn::BatchNorm bn1;
  nn::MaxPool2d maxpool;
  std::vector<BasicBlock> layer1, layer2, layer3, layer4;
  nn::AdaptiveAvgPool2d avgpool;
  nn::Linear fc;
  BURN_MODULE(conv1, bn1, maxpool, layer1, layer2, layer3, layer4, avgpool, fc)

  // [N, 3, H, W] -> [N, num_classes] logits
  Tensor<2> forward(const Tensor<4>& x) const;
  // Every batch norm folded into the conv before it (see FoldedResNet); on a plain device, or valid().
  FoldedResNet fold_batch_norms() const;
};

struct ResNetConfig {
  std::array<int64_t, 4> blocks{2, 2, 2, 2};  // ResNet-18; {3, 4, 6, 3} is ResNet-34
  int64_t num_classes = 1000;
  ResNet init(const Device& device) const;
};

}  // namespace burn::models
