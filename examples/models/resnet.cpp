#include "resnet.hpp"

namespace burn::models {

namespace {

// torchvision's init: convs kaiming_normal(fan_out, relu), batch norm weight 1 and bias 0.
nn::Conv2d conv(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t pad, const Device& d) {
  return nn::Conv2dConfig{.channels = {in, out},
                          .kernel_size = {k, k},
                          .stride = {stride, stride},
                          .padding = nn::PaddingConfig::explicit_padding({pad, pad}),
                          .bias = false,
                          .initializer = nn::Initializer::kaiming_normal(std::sqrt(2.0), true)}
      .init(d);
}

nn::BatchNorm norm(int64_t c, const Device& d) { return nn::BatchNormConfig{.num_features = c}.init(d); }

std::vector<BasicBlock> stage(int64_t in, int64_t out, int64_t blocks, int64_t stride, const Device& d) {
  std::vector<BasicBlock> s;
  for (int64_t i = 0; i < blocks; ++i) {
    const int64_t cin = i == 0 ? in : out, st = i == 0 ? stride : 1;
    BasicBlock b{conv(cin, out, 3, st, 1, d), norm(out, d), conv(out, out, 3, 1, 1, d), norm(out, d), std::nullopt};
    if (st != 1 || cin != out) b.downsample.emplace(conv(cin, out, 1, st, 0, d), norm(out, d));
    s.push_back(std::move(b));
  }
  return s;
}

}  // namespace

Tensor<2> ResNet::forward(const Tensor<4>& x) const {
  Tensor<4> h = maxpool.forward(bn1.forward(conv1.forward(x)).relu());
  for (const auto* layer : {&layer1, &layer2, &layer3, &layer4})
    for (const BasicBlock& b : *layer) h = b.forward(h);
  return fc.forward(avgpool.forward(h).flatten<2>(1, 3));
}

Tensor<2> FoldedResNet::forward(const Tensor<4>& x) const {
  // The stem's ReLU after the max pool: max and ReLU commute (both monotonic; the pool's padding takes
  // no tap), and the pooled map is a quarter of the conv's (at batch 8 a 25.7 MB pass becomes 6.4 MB).
  Tensor<4> h = maxpool.forward(conv1.forward(x)).relu();
  for (const auto* layer : {&layer1, &layer2, &layer3, &layer4})
    for (const FoldedBasicBlock& b : *layer) h = b.forward(h);
  return fc.forward(avgpool.forward(h).flatten<2>(1, 3));
}

FoldedResNet ResNet::fold_batch_norms() const {
  const auto fold_stage = [](const std::vector<BasicBlock>& s) {
    std::vector<FoldedBasicBlock> out;
    for (const BasicBlock& b : s) {
      FoldedBasicBlock f{nn::fold_batch_norm(b.conv1, b.bn1), nn::fold_batch_norm(b.conv2, b.bn2), std::nullopt};
      if (b.downsample) f.downsample = nn::fold_batch_norm(b.downsample->at<0>(), b.downsample->at<1>());
      out.push_back(std::move(f));
    }
    return out;
  };
  return FoldedResNet{nn::fold_batch_norm(conv1, bn1),
                      maxpool,
                      fold_stage(layer1),
                      fold_stage(layer2),
                      fold_stage(layer3),
                      fold_stage(layer4),
                      avgpool,
                      fc};
}

ResNet ResNetConfig::init(const Device& d) const {
  return ResNet{conv(3, 64, 7, 2, 3, d),
                norm(64, d),
                nn::MaxPool2dConfig{
                    .kernel_size = {3, 3}, .strides = {2, 2}, .padding = nn::PaddingConfig::explicit_padding({1, 1})}
                    .init(),
                stage(64, 64, blocks[0], 1, d),
                stage(64, 128, blocks[1], 2, d),
                stage(128, 256, blocks[2], 2, d),
                stage(256, 512, blocks[3], 2, d),
                nn::AdaptiveAvgPool2dConfig{.output_size = {1, 1}}.init(),
                nn::LinearConfig{512, num_classes}.init(d)};
}

}  // namespace burn::models
