// burn's ResNet-18 and a reduced-width ResNet-50 against torchvision's: the same deterministic
// parameters (gen_fixture_resnet.py states the formulas) and inputs give torchvision's logits, plain
// and with the batch norms folded. The full-size ResNet-50's names and shapes are load_test.cpp's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "resnet.hpp"
#include "resnet_fixture.hpp"

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

namespace {

nlohmann::json resnet50_fixture() {
  std::ifstream in(std::string(BURN_EXAMPLES_DIR) + "/models/fixture_resnet50.json");
  return nlohmann::json::parse(in);
}

// The fixture's reduced ResNet-50 (width 8, 10 classes) with its formula's parameters, in f32.
models::BottleneckResNet reduced_resnet50(const Device& cpu) {
  using models::fixture::ParamKind;
  models::BottleneckResNet net = models::BottleneckResNetConfig{.num_classes = 10, .width = 8}.init(cpu);
  auto params = nn::named_params(net);
  for (size_t k = 0; k < params.size(); ++k) {
    nn::ParamBase& p = *params[k].param;
    const std::string& path = params[k].path;
    const Shape s = p.shape();
    const bool fc = path == "fc.weight";  // burn's [in, out] is PyTorch's [out, in] transposed
    const ParamKind kind = s.rank() >= 2                   ? ParamKind::Weight
                           : path.ends_with("gamma")       ? ParamKind::NormScale
                           : path.ends_with("running_var") ? ParamKind::RunningVar
                                                           : ParamKind::Other;
    const int64_t fan_in = fc ? s[0] : s.rank() == 4 ? s[1] * s[2] * s[3] : 1;
    const std::vector<double> v =
        models::fixture::resnet50_param(kind, static_cast<int64_t>(k), s.num_elements(), fan_in);
    const std::vector<float> f(v.begin(), v.end());
    if (fc)
      p.set_handle(Tensor<2>::from_vector(f, Shape{s[1], s[0]}, cpu).transpose().handle());
    else
      p.set_handle(api::from_data(cpu, TensorData::from_vector(f, s), Kind::Float));
  }
  return net;
}

Tensor<4> resnet50_images(const Device& cpu) {
  const std::vector<double> x = models::fixture::resnet50_images();
  return Tensor<4>::from_vector(std::vector<float>(x.begin(), x.end()), {2, 3, 64, 64}, cpu);
}

}  // namespace

// torchvision's Bottleneck network (ResNet-50's blocks 3, 4, 6, 3 at a width of 8): its eval-mode
// logits (about 5 in size) within 1e-4 in f32.
TEST(ResNet50, MatchesTorchvision) {
  const nlohmann::json fx = resnet50_fixture();
  const Device cpu = Device::get("cpu");
  models::BottleneckResNet net = reduced_resnet50(cpu);
  EXPECT_EQ(static_cast<int64_t>(nn::named_params(net).size()), fx["params"].get<int64_t>());
  EXPECT_EQ(net.num_params(), fx["num_params"].get<int64_t>());  // running statistics are not counted
  const std::vector<float> got = net.forward(resnet50_images(cpu)).to_vec<float>();
  const std::vector<double> want = fx["logits"]["values"].get<std::vector<double>>();
  ASSERT_EQ(got.size(), want.size());
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], 1e-4) << i;
    worst = std::max(worst, std::abs(got[i] - want[i]));
  }
  std::printf("reduced ResNet-50, f32: max |logit - torchvision's| = %.3g\n", worst);
}

TEST(ResNet50, FoldedBatchNormsMatchTorchvision) {
  const nlohmann::json fx = resnet50_fixture();
  const Device cpu = Device::get("cpu");
  models::BottleneckResNet net = reduced_resnet50(cpu);
  const models::FoldedBottleneckResNet folded = net.fold_batch_norms();
  // 53 batch norms: gamma and beta gone, a conv bias each (2 * features - features).
  int64_t norm_features = 0;
  for (const auto& p : nn::named_params(net))
    if (p.path.ends_with("gamma")) norm_features += p.param->shape().num_elements();
  EXPECT_EQ(folded.num_params(), net.num_params() - norm_features);
  const Tensor<4> x = resnet50_images(cpu);
  const std::vector<float> got = folded.forward(x).to_vec<float>();
  const std::vector<float> plain = net.forward(x).to_vec<float>();
  const std::vector<double> want = fx["logits"]["values"].get<std::vector<double>>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], 1e-4) << i;
    EXPECT_NEAR(got[i], plain[i], 1e-4) << i;
  }
}

// The full-size network: torchvision resnet50()'s 25,557,032 parameters in 161 tensors plus 106
// running statistics (load_test.cpp loads torchvision's names and shapes into it, strictly).
TEST(ResNet50, FullSizeHasTorchvisionsParameterCount) {
  models::BottleneckResNet net = models::BottleneckResNetConfig{}.init(Device::get("cpu"));
  EXPECT_EQ(net.num_params(), 25557032);
  EXPECT_EQ(nn::named_params(net).size(), 267u);  // 320 state dict entries less 53 num_batches_tracked
  EXPECT_EQ(net.layer4.back().conv3.weight.shape(), (Shape{2048, 512, 1, 1}));
  EXPECT_EQ(net.layer2.front().conv2.stride[0], 2);  // v1.5: the 3x3 conv carries the stride
}
