// The nn examples' classifiers (examples/mlp.cpp, convnet.cpp, text_classifier.cpp), in a header so
// that the ONNX export tests trace the very models the examples train.
#pragma once

#include <burn/nn.hpp>

namespace burn::models {

struct Mlp {
  nn::Linear input, hidden, output;
  nn::Dropout dropout;
  BURN_MODULE(input, hidden, output, dropout)

  Tensor<2> forward(const Tensor<2>& x) const {
    const Tensor<2> h = dropout.forward(input.forward(x).relu());
    return output.forward(dropout.forward(hidden.forward(h).relu()));
  }
};

struct MlpConfig {
  int64_t d_input = 32, d_hidden = 128, n_classes = 4;
  double dropout = 0.1;
  Mlp init(const Device& d) const {
    return {nn::LinearConfig{d_input, d_hidden}.init(d), nn::LinearConfig{d_hidden, d_hidden}.init(d),
            nn::LinearConfig{d_hidden, n_classes}.init(d), nn::DropoutConfig{dropout}.init()};
  }
};

struct ConvBlock {
  nn::Conv2d conv;
  nn::BatchNorm norm;
  nn::MaxPool2d pool;
  BURN_MODULE(conv, norm, pool)
  Tensor<4> forward(const Tensor<4>& x) const { return pool.forward(norm.forward(conv.forward(x)).relu()); }
};

struct ConvNet {
  ConvBlock block1, block2;
  nn::AdaptiveAvgPool2d pool;
  nn::Linear head;
  BURN_MODULE(block1, block2, pool, head)
  Tensor<2> forward(const Tensor<4>& x) const {
    return head.forward(pool.forward(block2.forward(block1.forward(x))).flatten<2>(1, 3));
  }
};

struct ConvNetConfig {
  int64_t channels = 16, n_classes = 4;
  ConvBlock block(int64_t in, int64_t out, const Device& d) const {
    return {
        nn::Conv2dConfig{.channels = {in, out}, .kernel_size = {3, 3}, .padding = nn::PaddingConfig::same()}.init(d),
        nn::BatchNormConfig{.num_features = out}.init(d), nn::MaxPool2dConfig{.kernel_size = {2, 2}}.init()};
  }
  ConvNet init(const Device& d) const {
    return {block(1, channels / 2, d), block(channels / 2, channels, d),
            nn::AdaptiveAvgPool2dConfig{.output_size = {1, 1}}.init(), nn::LinearConfig{channels, n_classes}.init(d)};
  }
};

// Token embeddings, sinusoidal positions, a TransformerEncoder with a padding mask, mean pooling over
// the real tokens (kPad marks padding) and a linear head.
struct TextClassifier {
  static constexpr int64_t kPad = 0, kVocab = 12, kLen = 16;
  nn::Embedding embedding;
  nn::PositionalEncoding positions;
  nn::TransformerEncoder encoder;
  nn::Linear head;
  BURN_MODULE(embedding, positions, encoder, head)

  Tensor<2> forward(const Tensor<2, Int>& tokens) const {
    const Tensor<2, Bool> pad = tokens.equal_elem(kPad);
    const Tensor<3> h = encoder.forward({positions.forward(embedding.forward(tokens)), pad, std::nullopt});
    const Tensor<3> keep = pad.bool_not().to_float().unsqueeze_dim<3>(2);
    return head.forward((h * keep).sum_dim(1).squeeze<2>(1) / keep.sum_dim(1).squeeze<2>(1));
  }
};

struct TextClassifierConfig {
  nn::TransformerConfig transformer{.d_model = 32, .d_ff = 64, .n_heads = 4, .n_layers = 2, .dropout = 0.0};
  int64_t n_classes = 2;
  TextClassifier init(const Device& d) const {
    return {nn::EmbeddingConfig{TextClassifier::kVocab, transformer.d_model}.init(d),
            nn::PositionalEncodingConfig{.d_model = transformer.d_model}.init(), transformer.init_encoder(d),
            nn::LinearConfig{transformer.d_model, n_classes}.init(d)};
  }
};

}  // namespace burn::models
