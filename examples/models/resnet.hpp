// torchvision's ResNets from burn::nn layers: ResNet-18/34 (BasicBlock) and ResNet-50/101/152
// (Bottleneck, v1.5: the stride on the 3x3 conv). Parameter paths are torchvision's (conv1, bn1,
// layer1.0.conv1, layer2.0.downsample.0, fc), so a torchvision state dict maps onto them with the
// PyTorch adapter (BatchNorm weight/bias -> gamma/beta, fc transposed). Each has a folded inference form.
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

// torchvision's Bottleneck (expansion 4): 1x1 reduce, 3x3 (carries the stride), 1x1 expand.
struct Bottleneck {
  nn::Conv2d conv1;
  nn::BatchNorm bn1;
  nn::Conv2d conv2;
  nn::BatchNorm bn2;
  nn::Conv2d conv3;
  nn::BatchNorm bn3;
  std::optional<nn::Sequential<nn::Conv2d, nn::BatchNorm>> downsample;
  BURN_MODULE(conv1, bn1, conv2, bn2, conv3, bn3, downsample)

  Tensor<4> forward(const Tensor<4>& x) const {
    const Tensor<4> identity = downsample ? downsample->forward(x) : x;
    const Tensor<4> h = bn2.forward(conv2.forward(bn1.forward(conv1.forward(x)).relu())).relu();
    return (bn3.forward(conv3.forward(h)) + identity).relu();
  }
};

struct FoldedBottleneck {
  nn::Conv2d conv1, conv2, conv3;
  std::optional<nn::Conv2d> downsample;
  BURN_MODULE(conv1, conv2, conv3, downsample)

  Tensor<4> forward(const Tensor<4>& x) const {
    const Tensor<4> identity = downsample ? downsample->forward(x) : x;
    return (conv3.forward(conv2.forward(conv1.forward(x).relu()).relu()) + identity).relu();
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
  int64_t width = 64;  // the stem's channels and layer1's (torchvision: 64); the layers double it
  ResNet init(const Device& device) const;
};

// The Bottleneck network and its folded form: the same stem and head as ResNet.
struct FoldedBottleneckResNet {
  nn::Conv2d conv1;
  nn::MaxPool2d maxpool;
  std::vector<FoldedBottleneck> layer1, layer2, layer3, layer4;
  nn::AdaptiveAvgPool2d avgpool;
  nn::Linear fc;
  BURN_MODULE(conv1, maxpool, layer1, layer2, layer3, layer4, avgpool, fc)

  Tensor<2> forward(const Tensor<4>& x) const;
};

struct BottleneckResNet {
  nn::Conv2d conv1;
  nn::BatchNorm bn1;
  nn::MaxPool2d maxpool;
  std::vector<Bottleneck> layer1, layer2, layer3, layer4;
  nn::AdaptiveAvgPool2d avgpool;
  nn::Linear fc;
  BURN_MODULE(conv1, bn1, maxpool, layer1, layer2, layer3, layer4, avgpool, fc)

  Tensor<2> forward(const Tensor<4>& x) const;
  FoldedBottleneckResNet fold_batch_norms() const;
};

struct BottleneckResNetConfig {
  std::array<int64_t, 4> blocks{3, 4, 6, 3};  // ResNet-50; {3, 4, 23, 3} is ResNet-101, {3, 8, 36, 3} ResNet-152
  int64_t num_classes = 1000;
  // The stem's channels and layer1's bottleneck width (torchvision: 64); layer i's blocks are
  // width << i wide inside and 4 * (width << i) at their output. A smaller width keeps the block
  // structure (the tests' reduced ResNet-50 uses 8).
  int64_t width = 64;
  BottleneckResNet init(const Device& device) const;
};

}  // namespace burn::models
