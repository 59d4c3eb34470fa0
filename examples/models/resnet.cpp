// The ResNets of resnet.hpp: one stem, stage layout, head and folding for both block kinds (templates
// over the network type here, so that the public header keeps plain types).
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

nn::BatchNorm make_batch_norm(int64_t c, const Device& d) { return nn::BatchNormConfig{.num_features = c}.init(d); }

// The projection of the identity when a block changes the shape (torchvision's downsample).
std::optional<nn::Sequential<nn::Conv2d, nn::BatchNorm>> downsample(int64_t in, int64_t out, int64_t stride,
                                                                    const Device& d) {
  if (stride == 1 && in == out) return std::nullopt;
  return nn::Sequential<nn::Conv2d, nn::BatchNorm>(conv(in, out, 1, stride, 0, d), make_batch_norm(out, d));
}

// Block kinds: how wide a block's output is for `planes`, how one is built and how it folds.
int64_t expansion(const BasicBlock*) { return 1; }
int64_t expansion(const Bottleneck*) { return 4; }

BasicBlock make_block(const BasicBlock*, int64_t in, int64_t planes, int64_t stride, const Device& d) {
  return {conv(in, planes, 3, stride, 1, d), make_batch_norm(planes, d), conv(planes, planes, 3, 1, 1, d),
          make_batch_norm(planes, d), downsample(in, planes, stride, d)};
}

// torchvision v1.5: the stride is on the 3x3 conv, not the first 1x1.
Bottleneck make_block(const Bottleneck*, int64_t in, int64_t planes, int64_t stride, const Device& d) {
  const int64_t out = 4 * planes;
  return {conv(in, planes, 1, 1, 0, d),  make_batch_norm(planes, d),    conv(planes, planes, 3, stride, 1, d),
          make_batch_norm(planes, d),    conv(planes, out, 1, 1, 0, d), make_batch_norm(out, d),
          downsample(in, out, stride, d)};
}

std::optional<nn::Conv2d> fold_downsample(const std::optional<nn::Sequential<nn::Conv2d, nn::BatchNorm>>& ds) {
  if (!ds) return std::nullopt;
  return nn::fold_batch_norm(ds->at<0>(), ds->at<1>());
}

FoldedBasicBlock fold(const BasicBlock& b) {
  return {nn::fold_batch_norm(b.conv1, b.bn1), nn::fold_batch_norm(b.conv2, b.bn2), fold_downsample(b.downsample)};
}

FoldedBottleneck fold(const Bottleneck& b) {
  return {nn::fold_batch_norm(b.conv1, b.bn1), nn::fold_batch_norm(b.conv2, b.bn2), nn::fold_batch_norm(b.conv3, b.bn3),
          fold_downsample(b.downsample)};
}

// torchvision's stem, four stages (layer i: `blocks[i]` blocks of width << i planes, the first with
// stride 2 from layer2 on) and head.
template <class Net>
Net init_resnet(const std::array<int64_t, 4>& blocks, int64_t width, int64_t num_classes, const Device& d) {
  using Block = typename decltype(Net::layer1)::value_type;
  const auto kind = static_cast<const Block*>(nullptr);
  nn::Conv2d stem = conv(3, width, 7, 2, 3, d);  // created first: the random init's order as before
  nn::BatchNorm stem_norm = make_batch_norm(width, d);
  int64_t in = width;
  const auto stage = [&](int64_t i) {
    std::vector<Block> s;
    const int64_t planes = width << i;
    for (int64_t b = 0; b < blocks[i]; ++b) {
      s.push_back(make_block(kind, in, planes, b == 0 && i > 0 ? 2 : 1, d));
      in = planes * expansion(kind);
    }
    return s;
  };
  auto l1 = stage(0), l2 = stage(1), l3 = stage(2), l4 = stage(3);
  return Net{std::move(stem),
             std::move(stem_norm),
             nn::MaxPool2dConfig{
                 .kernel_size = {3, 3}, .strides = {2, 2}, .padding = nn::PaddingConfig::explicit_padding({1, 1})}
                 .init(),
             std::move(l1),
             std::move(l2),
             std::move(l3),
             std::move(l4),
             nn::AdaptiveAvgPool2dConfig{.output_size = {1, 1}}.init(),
             nn::LinearConfig{in, num_classes}.init(d)};
}

// The four stages and the head, after the stem (plain and folded networks alike).
template <class Net>
Tensor<2> stages_and_head(const Net& net, Tensor<4> h) {
  for (const auto* layer : {&net.layer1, &net.layer2, &net.layer3, &net.layer4})
    for (const auto& b : *layer) h = b.forward(h);
  return net.fc.forward(net.avgpool.forward(h).template flatten<2>(1, 3));
}

template <class Net>
Tensor<2> forward_resnet(const Net& net, const Tensor<4>& x) {
  return stages_and_head(net, net.maxpool.forward(net.bn1.forward(net.conv1.forward(x)).relu()));
}

template <class Folded>
Tensor<2> forward_folded(const Folded& net, const Tensor<4>& x) {
  // The stem's ReLU after the max pool: max and ReLU commute (both monotonic; the pool's padding takes
  // no tap), and the pooled map is a quarter of the conv's (at batch 8 a 25.7 MB pass becomes 6.4 MB).
  return stages_and_head(net, net.maxpool.forward(net.conv1.forward(x)).relu());
}

template <class Folded, class Net>
Folded fold_resnet(const Net& net) {
  const auto fold_stage = [](const auto& s) {
    std::vector<decltype(fold(s.front()))> out;
    for (const auto& b : s) out.push_back(fold(b));
    return out;
  };
  return Folded{nn::fold_batch_norm(net.conv1, net.bn1),
                net.maxpool,
                fold_stage(net.layer1),
                fold_stage(net.layer2),
                fold_stage(net.layer3),
                fold_stage(net.layer4),
                net.avgpool,
                net.fc};
}

}  // namespace

Tensor<2> ResNet::forward(const Tensor<4>& x) const { return forward_resnet(*this, x); }
Tensor<2> FoldedResNet::forward(const Tensor<4>& x) const { return forward_folded(*this, x); }
FoldedResNet ResNet::fold_batch_norms() const { return fold_resnet<FoldedResNet>(*this); }
ResNet ResNetConfig::init(const Device& d) const { return init_resnet<ResNet>(blocks, width, num_classes, d); }

Tensor<2> BottleneckResNet::forward(const Tensor<4>& x) const { return forward_resnet(*this, x); }
Tensor<2> FoldedBottleneckResNet::forward(const Tensor<4>& x) const { return forward_folded(*this, x); }
FoldedBottleneckResNet BottleneckResNet::fold_batch_norms() const { return fold_resnet<FoldedBottleneckResNet>(*this); }
BottleneckResNet BottleneckResNetConfig::init(const Device& d) const {
  return init_resnet<BottleneckResNet>(blocks, width, num_classes, d);
}

}  // namespace burn::models
