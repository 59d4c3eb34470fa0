// The MLP, the small CNN and the transformer layer of the nn benchmarks, shared by bench_nn.cpp (one
// train step), fusion_pairs.cpp and train_epoch.cpp (one Fashion-MNIST epoch); bench/torch/ builds the
// same networks with torch.nn.
#pragma once

#include <burn/nn.hpp>

namespace burn::bench {

struct Mlp {
  nn::Linear fc1, fc2, fc3;
  BURN_MODULE(fc1, fc2, fc3)
  Tensor<2> forward(const Tensor<2>& x) const { return fc3.forward(fc2.forward(fc1.forward(x).relu()).relu()); }
};

// 784-512-512-10.
inline Mlp make_mlp(const Device& d) {
  return {nn::LinearConfig{784, 512}.init(d), nn::LinearConfig{512, 512}.init(d), nn::LinearConfig{512, 10}.init(d)};
}

struct SmallCnn {
  nn::Conv2d conv1, conv2;
  nn::MaxPool2d pool;
  nn::Linear fc1, fc2;
  BURN_MODULE(conv1, conv2, pool, fc1, fc2)
  Tensor<2> forward(const Tensor<4>& x) const {
    const Tensor<4> h = pool.forward(conv2.forward(pool.forward(conv1.forward(x).relu())).relu());
    return fc2.forward(fc1.forward(h.flatten<2>(1, 3)).relu());
  }
};

// conv 3x3 1->32, pool, conv 3x3 32->64, pool, 3136-128-10 (28x28 inputs).
inline SmallCnn make_small_cnn(const Device& d) {
  auto conv = [&](int64_t in, int64_t out) {
    return nn::Conv2dConfig{.channels = {in, out}, .kernel_size = {3, 3}, .padding = nn::PaddingConfig::same()}.init(d);
  };
  return {conv(1, 32), conv(32, 64), nn::MaxPool2dConfig{.kernel_size = {2, 2}}.init(),
          nn::LinearConfig{64 * 7 * 7, 128}.init(d), nn::LinearConfig{128, 10}.init(d)};
}

// One transformer encoder layer: d 256, 4 heads, ReLU feed-forward 1024, no dropout (PyTorch's
// nn.TransformerEncoderLayer as bench/torch/ builds it).
inline nn::TransformerEncoder make_transformer_layer(const Device& d) {
  return nn::TransformerConfig{.d_model = 256,
                               .d_ff = 1024,
                               .n_heads = 4,
                               .n_layers = 1,
                               .dropout = 0.0,
                               .activation = nn::FeedForwardActivation::Relu}
      .init_encoder(d);
}

}  // namespace burn::bench
