// burn's ResNet-18 against torchvision's: the same deterministic parameters (gen_fixture_resnet.py
// states the formula) and inputs give torchvision's logits.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "resnet.hpp"

using namespace burn;

namespace {

// Parameter k, element j of PyTorch's layout; `shape` is PyTorch's.
std::vector<float> formula(const std::string& path, int64_t k, int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  const bool var = path.ends_with("running_var"), scale = path.ends_with("gamma");
  for (int64_t j = 0; j < n; ++j) {
    const double s = std::sin(0.013 * j + 0.7 * k);
    v[j] = static_cast<float>(var ? 1 + 0.5 * s * s : scale ? 1 + 0.5 * s : 0.05 * s);
  }
  return v;
}

}  // namespace

TEST(ResNet18, MatchesTorchvision) {
  std::ifstream in(std::string(BURN_EXAMPLES_DIR) + "/models/fixture_resnet18.json");
  const nlohmann::json fx = nlohmann::json::parse(in);
  const Device cpu = Device::get("cpu");
  models::ResNet net = models::ResNetConfig{.num_classes = 10}.init(cpu);
  auto params = nn::named_params(net);
  ASSERT_EQ(static_cast<int64_t>(params.size()), fx["params"].get<int64_t>());  // torchvision's count
  for (size_t k = 0; k < params.size(); ++k) {
    nn::ParamBase& p = *params[k].param;
    const Shape s = p.shape();
    const std::vector<float> v = formula(params[k].path, static_cast<int64_t>(k), s.num_elements());
    if (params[k].path == "fc.weight") {  // PyTorch's [out, in] is burn's [in, out] transposed
      p.set_handle(Tensor<2>::from_vector(v, Shape{s[1], s[0]}, cpu).transpose().handle());
    } else {
      p.set_handle(api::from_data(cpu, TensorData::from_vector(v, s), Kind::Float));
    }
  }
  const int64_t n = 2 * 3 * 64 * 64;
  std::vector<float> x(n);
  for (int64_t j = 0; j < n; ++j) x[j] = static_cast<float>(std::sin(0.01 * j) + 0.5 * std::cos(0.37 * j));
  const std::vector<float> got = net.forward(Tensor<4>::from_vector(x, {2, 3, 64, 64}, cpu)).to_vec<float>();
  const std::vector<double> want = fx["logits"]["values"].get<std::vector<double>>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 2e-4 * std::abs(want[i]) + 1e-3) << i;
  EXPECT_EQ(net.num_params(), 11181642);  // torchvision's resnet18(num_classes=10)
}

// Folded for inference: torchvision's logits still, and the unfolded model's to float rounding.
TEST(ResNet18, FoldedBatchNormsMatchTheUnfoldedModel) {
  std::ifstream in(std::string(BURN_EXAMPLES_DIR) + "/models/fixture_resnet18.json");
  const nlohmann::json fx = nlohmann::json::parse(in);
  const Device cpu = Device::get("cpu");
  models::ResNet net = models::ResNetConfig{.num_classes = 10}.init(cpu);
  auto params = nn::named_params(net);
  for (size_t k = 0; k < params.size(); ++k) {
    nn::ParamBase& p = *params[k].param;
    const Shape s = p.shape();
    const std::vector<float> v = formula(params[k].path, static_cast<int64_t>(k), s.num_elements());
    if (params[k].path == "fc.weight")
      p.set_handle(Tensor<2>::from_vector(v, Shape{s[1], s[0]}, cpu).transpose().handle());
    else
      p.set_handle(api::from_data(cpu, TensorData::from_vector(v, s), Kind::Float));
  }
  const models::FoldedResNet folded = net.fold_batch_norms();
  EXPECT_EQ(folded.num_params(), 11181642 - 4800);  // 4800 batch norm features: gamma and beta gone, a conv bias each
  const int64_t n = 2 * 3 * 64 * 64;
  std::vector<float> x(n);
  for (int64_t j = 0; j < n; ++j) x[j] = static_cast<float>(std::sin(0.01 * j) + 0.5 * std::cos(0.37 * j));
  const Tensor<4> xt = Tensor<4>::from_vector(x, {2, 3, 64, 64}, cpu);
  const std::vector<float> got = folded.forward(xt).to_vec<float>();
  const std::vector<float> plain = net.forward(xt).to_vec<float>();
  const std::vector<double> want = fx["logits"]["values"].get<std::vector<double>>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], 2e-4 * std::abs(want[i]) + 1e-3) << i;
    EXPECT_NEAR(got[i], plain[i], 1e-4 * std::abs(plain[i]) + 1e-5) << i;
  }
}
