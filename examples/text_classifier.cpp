// A transformer text classifier from configs: token embeddings, sinusoidal positions, a
// TransformerEncoder with a padding mask, mean pooling over the real tokens and a linear head;
// trained with Adam and a warm-up + cosine schedule on synthetic sentences of 4-16 tokens whose
// class says whether token 1 occurs more often than token 2. Exits non-zero below 90% accuracy.
#include <cstdlib>

#include "classifiers.hpp"
#include "common.hpp"

using namespace burn;

using models::TextClassifier;
using models::TextClassifierConfig;
constexpr int64_t kPad = TextClassifier::kPad, kVocab = TextClassifier::kVocab, kLen = TextClassifier::kLen;

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
