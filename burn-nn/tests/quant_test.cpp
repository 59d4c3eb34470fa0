// quantize_dynamic (burn/nn/quant.hpp) on a small MLP against torch.ao.quantization.quantize_dynamic
// (gen_fixtures_quant.py): PyTorch's documentation gives no numeric bound for dynamic quantization, so the bound
// is the error PyTorch's own quantized model shows against the float model: burn-cpp's quantized model must be
// within twice that of the float output, and of PyTorch's quantized output. Also: the path filter, schemes
// without an integer path (run by dequantizing), and a quantized model on the autodiff device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "burn/nn.hpp"
#include "fixture.hpp"

namespace burn {
namespace {

using test::cpu;
using test::fixture;
using test::fixture_tensor;

struct Mlp {
  nn::Linear fc1, fc2;
  BURN_MODULE(fc1, fc2)
  Tensor<2> forward(const Tensor<2>& x) const { return fc2.forward(fc1.forward(x).relu()); }
};

const nlohmann::json& quant() { return fixture("quant.json"); }

nn::Linear linear_from(const nlohmann::json& c, const Device& d) {
  nn::Linear l;
  l.weight = nn::Param<Tensor<2>>(fixture_tensor<2>(c["weight"], d));
  l.bias = nn::Param<Tensor<1>>(fixture_tensor<1>(c["bias"], d));
  return l;
}

Mlp mlp(const Device& d) { return Mlp{linear_from(quant()["fc1"], d), linear_from(quant()["fc2"], d)}; }

double max_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

std::vector<double> values(const nlohmann::json& j) { return j.at("values").get<std::vector<double>>(); }
std::vector<double> values(const Tensor<2>& t) { return t.to_vec<double>(); }

void expect_like_pytorch(const Mlp& q, const char* torch_key) {
  const Tensor<2> x = fixture_tensor<2>(quant()["x"], cpu());
  const std::vector<double> ours = values(q.forward(x)), f = values(quant()["y_float"]),
                            theirs = values(quant()[torch_key]);
  const double torch_err = max_diff(theirs, f);
  ASSERT_GT(torch_err, 0.0) << "PyTorch's quantized model equals its float model: the fixture tests nothing";
  EXPECT_LE(max_diff(ours, f), 2 * torch_err) << "float model vs burn-cpp's quantized model";
  EXPECT_LE(max_diff(ours, theirs), 2 * torch_err) << "PyTorch's quantized model vs burn-cpp's";
  EXPECT_GT(max_diff(ours, f), 0.0) << "the quantized model gave the float model's output: was it quantized?";
}

TEST(QuantizeDynamic, MlpPerTensorIsAsCloseAsPyTorchs) {
  const Mlp q = nn::quantize_dynamic(mlp(cpu()), QuantScheme::per_tensor());
  ASSERT_TRUE(q.fc1.quantized_weight && q.fc2.quantized_weight);
  expect_like_pytorch(q, "y_dynamic_per_tensor");
}

TEST(QuantizeDynamic, MlpPerChannelIsAsCloseAsPyTorchs) {
  const Mlp q = nn::quantize_dynamic(mlp(cpu()));
  EXPECT_EQ(q.fc1.quantized_weight->scheme(), QuantScheme::per_channel(1));
  expect_like_pytorch(q, "y_dynamic_per_channel");
}

TEST(QuantizeDynamic, PathFilterChoosesTheLayers) {
  const Mlp m = mlp(cpu());
  const Mlp q = nn::quantize_dynamic(m, QuantScheme::per_tensor(), [](std::string_view p) { return p == "fc2"; });
  EXPECT_FALSE(q.fc1.quantized_weight.has_value());
  EXPECT_TRUE(q.fc2.quantized_weight.has_value());
  EXPECT_FALSE(m.fc2.quantized_weight.has_value()) << "the original module is unchanged";
  EXPECT_NE(q.fc2.extra_repr().find("quantized=q8 symmetric per-tensor"), std::string::npos) << q.fc2.extra_repr();
}

// Schemes without an integer path run the dequantized weight through matmul: close to the float model.
TEST(QuantizeDynamic, SchemesWithoutAnIntegerPathDequantize) {
  const Tensor<2> x = fixture_tensor<2>(quant()["x"], cpu());
  const std::vector<double> f = values(quant()["y_float"]);
  for (const QuantScheme& s :
       {QuantScheme::per_block(8), QuantScheme::per_channel(1, QuantValue::Q4, QuantMode::Affine)}) {
    SCOPED_TRACE(s.to_string());
    const Mlp q = nn::quantize_dynamic(mlp(cpu()), s);
    const double err = max_diff(values(q.forward(x)), f);
    EXPECT_GT(err, 0.0);
    EXPECT_LT(err, s.value == QuantValue::Q4 ? 1.5 : 0.1);
  }
}

// A model on the autodiff device quantizes its weights on the inner device and runs there and on autodiff alike.
TEST(QuantizeDynamic, AutodiffModelGivesThePlainDevicesResult) {
  const Device ad = test::ad();
  const Mlp q_ad = nn::quantize_dynamic(mlp(ad), QuantScheme::per_tensor());
  const Mlp q_cpu = nn::quantize_dynamic(mlp(cpu()), QuantScheme::per_tensor());
  EXPECT_EQ(q_ad.fc1.quantized_weight->device(), cpu());
  const Tensor<2> x = fixture_tensor<2>(quant()["x"], cpu());
  EXPECT_EQ(values(q_ad.forward(fixture_tensor<2>(quant()["x"], ad))), values(q_cpu.forward(x)));
  EXPECT_EQ(values(nn::valid(q_ad).forward(x)), values(q_cpu.forward(x)));
}

}  // namespace
}  // namespace burn
