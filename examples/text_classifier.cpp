// A transformer text classifier from configs: token embeddings, sinusoidal positions, a
// TransformerEncoder with a padding mask, mean pooling over the real tokens and a linear head;
// trained with Adam and a warm-up + cosine schedule on synthetic sentences of 4-16 tokens whose
// class says whether token 1 occurs more often than token 2. Exits non-zero below 90% accuracy.
#include <cstdlib>

#include "common.hpp"

using namespace burn;

constexpr int64_t kPad = 0, kVocab = 12, kLen = 16;

struct TextClassifier {
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
    return {nn::EmbeddingConfig{kVocab, transformer.d_model}.init(d),
            nn::PositionalEncodingConfig{.d_model = transformer.d_model}.init(), transformer.init_encoder(d),
            nn::LinearConfig{transformer.d_model, n_classes}.init(d)};
  }
};

int main() {
  const Device dev = Device::get("autodiff<cpu>");
  dev.seed(3);
  std::srand(3);
  auto make = [&](int n) {
    std::vector<examples::Batch<Tensor<2, Int>>> batches;
    for (int i = 0; i < n; ++i) {
      std::vector<int64_t> tokens(32 * kLen, kPad), labels(32);
      for (int b = 0; b < 32; ++b) {
        int ones = 0, twos = 0;
        for (int t = 0, len = 4 + std::rand() % (kLen - 3); t < len; ++t) {
          const int64_t tok = 1 + std::rand() % (kVocab - 1);
          tokens[b * kLen + t] = tok;
          ones += tok == 1, twos += tok == 2;
        }
        labels[b] = ones > twos;
      }
      batches.push_back(
          {Tensor<2, Int>::from_vector(tokens, {32, kLen}, dev), Tensor<1, Int>::from_vector(labels, {32}, dev)});
    }
    return batches;
  };
  const auto train = make(40), valid = make(8);
  const TextClassifier model = examples::train_classifier(TextClassifierConfig{}.init(dev), train, 8, 3e-3);
  const double acc = examples::accuracy(model, valid);
  std::printf("%s\nvalidation accuracy: %.3f\n", model.display().c_str(), acc);
  return acc >= 0.9 ? 0 : 1;
}
