// A ConvNet with batch norm from configs, trained with Adam and a warm-up + cosine schedule on
// synthetic 16x16 images (the class is the quadrant holding a bright blob, over noise). Batch norm
// trains its running statistics on the autodiff device; evaluation (valid()) uses them. Exits
// non-zero below 90% validation accuracy.
#include <cstdlib>

#include "common.hpp"

using namespace burn;

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
