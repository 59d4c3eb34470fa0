// A ConvNet with batch norm from configs, trained with Adam and a warm-up + cosine schedule on
// synthetic 16x16 images (the class is the quadrant holding a bright blob, over noise). Batch norm
// trains its running statistics on the autodiff device; evaluation (valid()) uses them. Exits
// non-zero below 90% validation accuracy.
#include <cstdlib>

#include "classifiers.hpp"
#include "common.hpp"

using namespace burn;

using models::ConvNet;
using models::ConvNetConfig;

int main() {
  const Device dev = Device::get("autodiff<cpu>");
  dev.seed(2);
  std::srand(2);
  auto make = [&](int n) {
    std::vector<examples::Batch<Tensor<4>>> batches;
    for (int i = 0; i < n; ++i) {
      std::vector<int64_t> ls(64);
      for (int64_t& l : ls) l = std::rand() % 4;
      std::vector<float> img(64 * 256, 0.0f);
      for (int b = 0; b < 64; ++b)  // a 4x4 blob in the quadrant of the label
        for (int y = 0; y < 4; ++y)
          for (int x = 0; x < 4; ++x) img[b * 256 + (2 + y + 8 * (ls[b] / 2)) * 16 + 2 + x + 8 * (ls[b] % 2)] = 1.0f;
      const Tensor<4> noise = Tensor<4>::random({64, 1, 16, 16}, Distribution::normal(0, 0.3), dev);
      batches.push_back(
          {Tensor<4>::from_vector(img, {64, 1, 16, 16}, dev) + noise, Tensor<1, Int>::from_vector(ls, {64}, dev)});
    }
    return batches;
  };
  const auto train = make(16), valid = make(4);
  const ConvNet model = examples::train_classifier(ConvNetConfig{}.init(dev), train, 6, 1e-2);
  std::printf("%s", model.display().c_str());
  const double acc = examples::accuracy(model, valid);
  std::printf("validation accuracy: %.3f\n", acc);
  return acc >= 0.9 ? 0 : 1;
}
