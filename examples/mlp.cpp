// An MLP classifier from configs, trained with Adam and a warm-up + cosine schedule on a synthetic
// task (the class of a point is the argmax of a fixed random linear map of it); saves, reloads and
// evaluates. Exits non-zero below 90% validation accuracy, so ctest runs it as a check.
#include "classifiers.hpp"
#include "common.hpp"

using namespace burn;

using models::Mlp;
using models::MlpConfig;

int main() {
  const Device dev = Device::get("autodiff<cpu>");
  dev.seed(1);
  const MlpConfig config;
  const Tensor<2> teacher = Tensor<2>::random({config.d_input, config.n_classes}, Distribution::normal(0, 1), dev);
  auto make = [&](int n) {
    std::vector<examples::Batch<Tensor<2>>> batches;
    for (int i = 0; i < n; ++i) {
      const Tensor<2> x = Tensor<2>::random({128, config.d_input}, Distribution::normal(0, 1), dev);
      batches.push_back({x, x.matmul(teacher).argmax(1).squeeze<1>(1)});
    }
    return batches;
  };
  const auto train = make(24), valid = make(4);
  Mlp model = examples::train_classifier(config.init(dev), train, 8, 3e-3);
  std::printf("%s", model.display().c_str());
  model.save("mlp-example.bpz");
  Mlp loaded = config.init(Device::get("cpu"));
  loaded.load("mlp-example.bpz");
  const double acc = examples::accuracy(loaded.to_device(dev), valid);
  std::printf("validation accuracy after reload: %.3f\n", acc);
  return acc >= 0.9 ? 0 : 1;
}
