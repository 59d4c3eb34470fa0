// Activation, resample and distance layers against PyTorch (fixtures/norm_act.json from
// gen_fixtures_norm_act.py): forward on cpu, forward and backward on autodiff<cpu>; configs, errors.
#include <gtest/gtest.h>

#include "layer_check.hpp"

using namespace burn;
using burn::test::ad;
using burn::test::cpu;
using burn::test::error_of;
using burn::test::expect_close;
using burn::test::fixture_tensor;

namespace {

const nlohmann::json& cases() { return burn::test::fixture("norm_act.json"); }

template <size_t D = 3, class Cfg>
void check(const char* name, const Cfg& cfg) {
  burn::test::check_config<D>(cases()[name], name, cfg);
}

// A layer without a config, as it is.
template <size_t D = 3, class M>
void check_module(const char* name, const M& m) {
  burn::test::check_layer<D, D, M>(
      cases()[name], name, [m](const Device&) { return m; },
      [](const M& l, const Tensor<D>& x) { return l.forward(x); });
}

// Two-input layers: forward, and the gradients of both inputs.
template <size_t D, class M>
void check_pair(const char* name, const M& m) {
  SCOPED_TRACE(name);
  const nlohmann::json& c = cases()[name];
  expect_close(m.forward(fixture_tensor<D>(c["x"], cpu()), fixture_tensor<D>(c["x2"], cpu())).into_data(), c["y"]);
  const Tensor<D> x1 = fixture_tensor<D>(c["x"], ad()).require_grad(),
                  x2 = fixture_tensor<D>(c["x2"], ad()).require_grad();
  const Tensor<D - 1> y = m.forward(x1, x2);
  Gradients grads = (y * fixture_tensor<D - 1>(c["grad_out"], ad())).sum().backward();
  expect_close(x1.grad(grads)->into_data(), c["grad_x"], 1e-5, 1e-4, "grad x1");
  expect_close(x2.grad(grads)->into_data(), c["grad_x2"], 1e-5, 1e-4, "grad x2");
}

}  // namespace

TEST(Activation, PlainActivationsMatchPyTorch) {
  check_module("relu", nn::Relu{});
  check_module("sigmoid", nn::Sigmoid{});
  check_module("tanh", nn::Tanh{});
  check_module("silu", nn::Swish{});
  check_module("mish", nn::Mish{});
  check_module("selu", nn::Selu{});
  check_module("softsign", nn::Softsign{});
  check_module("hard_swish", nn::HardSwish{});
  check_module("tanhshrink", nn::Tanhshrink{});
  check_module("log_sigmoid", nn::LogSigmoid{});
  check_module("gelu_tanh", nn::GeluApproximate{});
  // relu6 on 2x, to reach the upper kink
  const nlohmann::json& c = cases()["relu6"];
  burn::test::check_layer<3, 3, nn::Relu6>(
      c, "relu6", [](const Device&) { return nn::Relu6{}; },
      [](const nn::Relu6& m, const Tensor<3>& x) { return m.forward(x * 2.0); });
}

TEST(Activation, ActivationsWithSettingsMatchPyTorch) {
  check("leaky_relu", nn::LeakyReluConfig{0.2});
  check("gelu", nn::GeluConfig{});
  check("gelu_tanh", nn::GeluConfig{true});
  check("elu", nn::EluConfig{1.5});
  check("celu", nn::CeluConfig{0.7});
  check("softplus", nn::SoftplusConfig{2.0, 3.0});
  check("hard_sigmoid_pytorch", nn::HardSigmoidConfig{1.0 / 6.0, 0.5});
  check("hard_sigmoid_burn", nn::HardSigmoidConfig{});
  check("hardtanh", nn::HardtanhConfig{-0.5, 1.5});
  check("threshold", nn::ThresholdConfig{0.1, -2.0});
  check("thresholded_relu", nn::ThresholdedReluConfig{});
  check("hard_shrink", nn::HardShrinkConfig{0.7});
  check("soft_shrink", nn::SoftShrinkConfig{0.4});
  check("softmax", nn::SoftmaxConfig{1});
  check("log_softmax", nn::LogSoftmaxConfig{});
  burn::test::check_layer<3, 3, nn::Glu>(
      cases()["glu"], "glu", [](const Device&) { return nn::GluConfig{1}.init(); },
      [](const nn::Glu& m, const Tensor<3>& x) { return m.forward(x); });
}

TEST(Activation, PReluMatchesPyTorch) {
  check("prelu_channels", nn::PReluConfig{4});
  check<4>("prelu_single", nn::PReluConfig{});
  // PyTorch's init: 0.25 everywhere, trainable.
  const nn::PRelu p = nn::PReluConfig{3}.init(cpu());
  EXPECT_EQ(p.alpha.val().to_vec<float>(), std::vector<float>(3, 0.25f));
  EXPECT_EQ(p.num_params(), 3);
  EXPECT_EQ(p.extra_repr(), "num_parameters=3, alpha_value=0.25");
  const std::string m = error_of<ShapeError>([&] { p.forward(Tensor<3>::zeros({2, 4, 5}, cpu())); });
  EXPECT_NE(m.find("PRelu"), std::string::npos) << m;
  EXPECT_NE(m.find("num_parameters 3"), std::string::npos) << m;
}

TEST(Activation, SwiGluMatchesPyTorch) {
  check("swiglu", nn::SwiGluConfig{6, 4});
  const nn::SwiGlu s = nn::SwiGluConfig{6, 4}.init(cpu());
  EXPECT_FALSE(s.linear_inner.bias.has_value());  // Burn's default: no bias
  EXPECT_EQ(s.num_params(), 48);
}

TEST(Activation, ConfigsRoundTripAndCheckTheirValues) {
  EXPECT_EQ(nn::SoftplusConfig::from_json(nn::SoftplusConfig{2.5, 7.0}.to_json()).threshold, 7.0);
  EXPECT_EQ(nn::HardSigmoidConfig{}.init().alpha, 0.2);  // Burn's default, not PyTorch's 1/6
  EXPECT_EQ(nn::LeakyReluConfig{}.init().negative_slope, 0.01);
  EXPECT_THROW(nn::HardtanhConfig({2.0, 1.0}).init(), ValueError);
  EXPECT_THROW(nn::SoftplusConfig{0.0}.init(), ValueError);
  EXPECT_THROW(nn::CeluConfig{0.0}.init(), ValueError);
  EXPECT_THROW(nn::PReluConfig{0}.init(cpu()), ValueError);
  EXPECT_THROW(nn::SoftShrinkConfig{-1.0}.init(), ValueError);
  EXPECT_EQ(nn::GeluConfig{true}.init().extra_repr(), "approximate=tanh");
  // Softmax over a dim the input lacks is the tensor op's IndexError.
  EXPECT_THROW(nn::SoftmaxConfig{3}.init().forward(Tensor<2>::zeros({2, 2}, cpu())), IndexError);
}

TEST(Resample, InterpolateMatchesPyTorch) {
  check("interpolate1d_nearest", nn::Interpolate1dConfig{.output_size = {7}});
  check("interpolate1d_linear_scale",
        nn::Interpolate1dConfig{
            .scale_factor = {1.5}, .mode = InterpolateMode::Linear, .align_corners = false});  // floor(5 * 1.5) = 7
  check<4>("interpolate2d_nearest", nn::Interpolate2dConfig{.output_size = {5, 7}});
  check<4>("interpolate2d_bilinear_scale",
           nn::Interpolate2dConfig{
               .scale_factor = {1.5, 0.6}, .mode = InterpolateMode::Linear, .align_corners = false});  // -> [6, 3]
  check<4>("interpolate2d_bicubic_corners",
           nn::Interpolate2dConfig{.output_size = {7, 6}, .mode = InterpolateMode::Cubic, .align_corners = true});
}

TEST(Resample, BadInterpolateConfigsAndInputs) {
  std::string m = error_of<ValueError>([] { nn::Interpolate2dConfig{}.init(); });
  EXPECT_NE(m.find("output_size or scale_factor"), std::string::npos) << m;
  EXPECT_THROW((nn::Interpolate2dConfig{.output_size = {2, 3, 4}}.init()), ValueError);
  m = error_of<ValueError>([] { nn::Interpolate2dConfig{.output_size = {2, 3}, .scale_factor = {2.0}}.init(); });
  EXPECT_NE(m.find("not both"), std::string::npos) << m;
  EXPECT_TRUE(nn::Interpolate2dConfig{}.align_corners);  // Burn's default
  EXPECT_THROW((nn::Interpolate1dConfig{.scale_factor = {-1.0}}.init()), ValueError);
  m = error_of<ValueError>([] {
    nn::Interpolate1dConfig{.scale_factor = {0.1}}.init().forward(Tensor<3>::zeros({1, 1, 5}, cpu()));
  });
  EXPECT_NE(m.find("Interpolate1d"), std::string::npos) << m;
  const nn::Interpolate2dConfig back =
      nn::Interpolate2dConfig::from_json(R"({"output_size": [3, 4], "mode": "cubic"})");
  EXPECT_EQ(back.mode, InterpolateMode::Cubic);
  EXPECT_THROW(nn::Interpolate2dConfig::from_json(R"({"mode": "area"})"), ValueError);
}

TEST(Distance, CosineSimilarityAndPairwiseDistanceMatchPyTorch) {
  check_pair<3>("cosine_similarity", nn::CosineSimilarityConfig{}.init());
  check_pair<2>("pairwise_distance", nn::PairwiseDistanceConfig{}.init());
  check_pair<3>("pairwise_distance_p1", nn::PairwiseDistanceConfig{1.0}.init());
  const std::string m = error_of<ShapeError>([] {
    nn::PairwiseDistanceConfig{}.init().forward(Tensor<2>::zeros({2, 3}, cpu()), Tensor<2>::zeros({2, 4}, cpu()));
  });
  EXPECT_NE(m.find("PairwiseDistance"), std::string::npos) << m;
  EXPECT_THROW(nn::CosineSimilarityConfig{.dim = 2}.init().forward(Tensor<2>::zeros({2, 3}, cpu()),
                                                                   Tensor<2>::zeros({2, 3}, cpu())),
               IndexError);
}
