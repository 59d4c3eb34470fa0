// The demo's classifier for 28x28 grey images (Fashion-MNIST): two conv blocks with batch norm, then
// two linear layers with dropout; about 420k parameters. The benchmarks train the same network.
#pragma once

#include <burn/nn.hpp>

namespace examples {

struct ConvBnBlock {
  burn::nn::Conv2d conv;
  burn::nn::BatchNorm norm;
  burn::nn::MaxPool2d pool;
  BURN_MODULE(conv, norm, pool)
  burn::Tensor<4> forward(const burn::Tensor<4>& x) const { return pool.forward(norm.forward(conv.forward(x)).relu()); }
};

struct FashionCnn {
  ConvBnBlock block1, block2;
  burn::nn::Linear fc1, fc2;
  burn::nn::Dropout dropout;
  BURN_MODULE(block1, block2, fc1, fc2, dropout)
  // images [B, 28, 28] -> logits [B, classes]
  burn::Tensor<2> forward(const burn::Tensor<3>& images) const {
    const auto b = images.dim(0);
    const burn::Tensor<4> h = block2.forward(block1.forward(images.reshape<4>({b, 1, 28, 28})));
    return fc2.forward(dropout.forward(fc1.forward(h.flatten<2>(1, 3)).relu()));
  }
};

struct FashionCnnConfig {
  int64_t channels1 = 32, channels2 = 64, hidden = 128, classes = 10;
  double dropout = 0.25;
  ConvBnBlock block(int64_t in, int64_t out, const burn::Device& d) const {
    namespace nn = burn::nn;
    return {
        nn::Conv2dConfig{.channels = {in, out}, .kernel_size = {3, 3}, .padding = nn::PaddingConfig::same()}.init(d),
        nn::BatchNormConfig{.num_features = out}.init(d), nn::MaxPool2dConfig{.kernel_size = {2, 2}}.init()};
  }
  FashionCnn init(const burn::Device& d) const {
    namespace nn = burn::nn;
    return {block(1, channels1, d), block(channels1, channels2, d), nn::LinearConfig{channels2 * 7 * 7, hidden}.init(d),
            nn::LinearConfig{hidden, classes}.init(d), nn::DropoutConfig{dropout}.init()};
  }
};

}  // namespace examples
