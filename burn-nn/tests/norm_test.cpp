// Norm layers against PyTorch (fixtures/norm_act.json from gen_fixtures_norm_act.py): forward on cpu,
// forward and backward on autodiff<cpu>; batch norm's training step, running statistics after three
// steps and eval output; configs and errors.
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

template <size_t D, class Cfg>
void check(const char* name, const Cfg& cfg) {
  burn::test::check_config<D>(cases()[name], name, cfg);
}

// Training (autodiff<cpu>, grad enabled): the first step's output and gradients, then the running
// statistics after three steps; eval (valid(), on cpu) normalises with them.
template <size_t D>
void check_batch_norm(const char* name, double momentum, double epsilon) {
  SCOPED_TRACE(name);
  const nlohmann::json& c = cases()[name];
  nn::BatchNorm bn = nn::BatchNormConfig{c["params"]["gamma"]["shape"][0].get<int64_t>(), epsilon, momentum}.init(ad());
  burn::test::load_params(bn, c, ad());
  const Tensor<D> x = fixture_tensor<D>(c["steps"][0], ad()).require_grad();
  const Tensor<D> y = bn.forward(x);
  expect_close(y.into_data(), c["y"]);
  Gradients grads = (y * fixture_tensor<D>(c["grad_out"], ad())).sum().backward();
  expect_close(x.grad(grads)->into_data(), c["grad_x"], 1e-5, 1e-4, "grad_x");
  expect_close(bn.gamma.val().grad(grads)->into_data(), c["grads"]["gamma"], 1e-5, 1e-4, "grad gamma");
  expect_close(bn.beta.val().grad(grads)->into_data(), c["grads"]["beta"], 1e-5, 1e-4, "grad beta");
  // The buffers get no gradient and stay untracked.
  EXPECT_FALSE(bn.running_mean.val().grad(grads).has_value());
  EXPECT_FALSE(bn.running_mean.val().is_require_grad());
  for (int step = 1; step < 3; ++step) bn.forward(fixture_tensor<D>(c["steps"][step], ad()));
  expect_close(bn.running_mean.val().into_data(), c["running_mean"], 1e-5, 1e-4, "running_mean");
  expect_close(bn.running_var.val().into_data(), c["running_var"], 1e-5, 1e-4, "running_var");
  const nn::BatchNorm eval = bn.valid();
  expect_close(eval.forward(fixture_tensor<D>(c["x_eval"], cpu())).into_data(), c["y_eval"], 1e-5, 1e-4, "eval");
  // Eval leaves the running statistics alone.
  expect_close(eval.running_var.val().into_data(), c["running_var"], 1e-5, 1e-4, "running_var after eval");
}

}  // namespace

TEST(BatchNorm, TrainingStepRunningStatsAndEvalMatchPyTorch) {
  check_batch_norm<2>("batch_norm_0d", 0.1, 1e-5);
  check_batch_norm<3>("batch_norm_1d", 0.3, 1e-3);
  check_batch_norm<4>("batch_norm_2d", 0.1, 1e-5);
  check_batch_norm<5>("batch_norm_3d", 0.1, 1e-5);
}

// With grad disabled an autodiff device evaluates too: the running statistics do not move.
TEST(BatchNorm, NoGradForwardDoesNotUpdateRunningStats) {
  nn::BatchNorm bn = nn::BatchNormConfig{3}.init(ad());
  {
    NoGradGuard guard;
    bn.forward(Tensor<4>::ones({2, 3, 2, 2}, ad()) * 5.0);
  }
  EXPECT_EQ(bn.running_mean.val().to_vec<float>(), std::vector<float>(3, 0.0f));
  bn.forward(Tensor<4>::ones({2, 3, 2, 2}, ad()) * 5.0);  // training: mean 5, momentum 0.1
  for (float v : bn.running_mean.val().to_vec<float>()) EXPECT_NEAR(v, 0.5f, 1e-6);
}

TEST(BatchNorm, BuffersAreSavedButNotCounted) {
  nn::BatchNorm bn = nn::BatchNormConfig{4}.init(cpu());
  EXPECT_EQ(bn.num_params(), 8);  // gamma and beta
  std::vector<std::string> paths;
  for (const nn::NamedParam& p : nn::named_params(bn)) paths.push_back(p.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"gamma", "beta", "running_mean", "running_var"}));
  EXPECT_TRUE(nn::named_params(bn)[2].param->is_buffer());
  EXPECT_EQ(bn.extra_repr(), "num_features=4, momentum=0.1, epsilon=1e-05");
}

TEST(Norm, LayerNormMatchesPyTorch) {
  check<3>("layer_norm", nn::LayerNormConfig{6});
  check<2>("layer_norm_nobias", nn::LayerNormConfig{.d_model = 5, .epsilon = 1e-3, .bias = false});
}

TEST(Norm, GroupAndInstanceNormMatchPyTorch) {
  check<4>("group_norm", nn::GroupNormConfig{3, 6});
  check<3>("group_norm_noaffine", nn::GroupNormConfig{.num_groups = 2, .num_channels = 4, .affine = false});
  check<4>("instance_norm", nn::InstanceNormConfig{3});
  check<3>("instance_norm_noaffine", nn::InstanceNormConfig{.num_channels = 3, .affine = false});
}

TEST(Norm, RmsNormMatchesPyTorch) { check<3>("rms_norm", nn::RmsNormConfig{8}); }

TEST(Norm, LocalResponseNormMatchesPyTorch) {
  check<4>("local_response_norm", nn::LocalResponseNormConfig{.size = 3, .alpha = 1e-2, .beta = 0.75, .k = 2.0});
  check<3>("local_response_norm_1d_even", nn::LocalResponseNormConfig{.size = 4, .alpha = 0.5, .beta = 0.6, .k = 1.0});
}

TEST(Norm, WrongInputsAreShapeErrorsNamingTheLayer) {
  std::string m = error_of<ShapeError>([] {
    nn::BatchNormConfig{3}.init(cpu()).forward(Tensor<4>::zeros({2, 4, 2, 2}, cpu()));
  });
  EXPECT_NE(m.find("BatchNorm"), std::string::npos) << m;
  EXPECT_NE(m.find("[2, 4, 2, 2]"), std::string::npos) << m;
  m = error_of<ShapeError>([] { nn::LayerNormConfig{6}.init(cpu()).forward(Tensor<2>::zeros({2, 5}, cpu())); });
  EXPECT_NE(m.find("LayerNorm"), std::string::npos) << m;
  EXPECT_NE(m.find("d_model 6"), std::string::npos) << m;
  m = error_of<ShapeError>([] { nn::InstanceNormConfig{3}.init(cpu()).forward(Tensor<3>::zeros({2, 4, 5}, cpu())); });
  EXPECT_NE(m.find("InstanceNorm"), std::string::npos) << m;
  m = error_of<ShapeError>([] { nn::RmsNormConfig{3}.init(cpu()).forward(Tensor<1>::zeros({4}, cpu())); });
  EXPECT_NE(m.find("RmsNorm"), std::string::npos) << m;
  m = error_of<ShapeError>([] { nn::LocalResponseNormConfig{2}.init().forward(Tensor<2>::zeros({2, 4}, cpu())); });
  EXPECT_NE(m.find("LocalResponseNorm"), std::string::npos) << m;
}

TEST(Norm, BadConfigsAreValueErrors) {
  std::string m = error_of<ValueError>([] { nn::GroupNormConfig{4, 6}.init(cpu()); });
  EXPECT_NE(m.find("GroupNormConfig::init"), std::string::npos) << m;
  EXPECT_NE(m.find("num_channels 6"), std::string::npos) << m;
  EXPECT_THROW(nn::BatchNormConfig{0}.init(cpu()), ValueError);
  EXPECT_THROW((nn::BatchNormConfig{.num_features = 2, .momentum = 1.5}.init(cpu())), ValueError);
  EXPECT_THROW((nn::LayerNormConfig{.d_model = 2, .epsilon = 0}.init(cpu())), ValueError);
  EXPECT_THROW(nn::LocalResponseNormConfig{0}.init(), ValueError);
  const nn::BatchNormConfig back = nn::BatchNormConfig::from_json(R"({"num_features": 5, "momentum": 0.2})");
  EXPECT_EQ(back.num_features, 5);
  EXPECT_EQ(back.momentum, 0.2);
  EXPECT_EQ(back.epsilon, 1e-5);
}

// fold_batch_norm (burn/nn/fold.hpp): torch.nn.utils.fusion.fuse_conv_bn_eval's formula, evaluated in
// double here, and the unfolded bn(conv(x)) on cpu; a grouped Conv2d with a bias and a Conv1d without.
TEST(FoldBatchNorm, MatchesTheFormulaAndTheUnfoldedLayers) {
  const auto stats = [](nn::BatchNorm& bn, int64_t c) {
    std::vector<float> g(c), b(c), m(c), v(c);
    for (int64_t i = 0; i < c; ++i) {
      g[i] = 0.5f + 0.25f * static_cast<float>(i);
      b[i] = 0.1f * static_cast<float>(i) - 0.2f;
      m[i] = 0.3f * std::sin(static_cast<float>(i));
      v[i] = 0.4f + 0.3f * static_cast<float>(i % 3);
    }
    bn.gamma.set(Tensor<1>::from_vector(g, {c}, cpu()));
    bn.beta.set(Tensor<1>::from_vector(b, {c}, cpu()));
    bn.running_mean.set(Tensor<1>::from_vector(m, {c}, cpu()));
    bn.running_var.set(Tensor<1>::from_vector(v, {c}, cpu()));
  };
  nn::Conv2d conv =
      nn::Conv2dConfig{
          .channels = {4, 6}, .kernel_size = {3, 3}, .groups = 2, .padding = nn::PaddingConfig::explicit_padding({1})}
          .init(cpu());
  nn::BatchNorm bn = nn::BatchNormConfig{.num_features = 6, .epsilon = 1e-3}.init(cpu());
  stats(bn, 6);
  const nn::Conv2d f = nn::fold_batch_norm(conv, bn);
  EXPECT_EQ(f.groups, 2);
  EXPECT_EQ(f.padding, conv.padding);
  EXPECT_NE(f.weight.id(), conv.weight.id());
  const auto w = conv.weight.val().to_vec<float>(), fw = f.weight.val().to_vec<float>();
  const auto b = conv.bias->val().to_vec<float>(), fb = f.bias->val().to_vec<float>();
  const auto g = bn.gamma.val().to_vec<float>(), be = bn.beta.val().to_vec<float>();
  const auto m = bn.running_mean.val().to_vec<float>(), v = bn.running_var.val().to_vec<float>();
  for (int64_t co = 0; co < 6; ++co) {
    const double s = g[co] / std::sqrt(static_cast<double>(v[co]) + 1e-3);
    EXPECT_NEAR(fb[co], (b[co] - m[co]) * s + be[co], 1e-6) << co;
    for (int64_t k = 0; k < 2 * 9; ++k) EXPECT_NEAR(fw[co * 18 + k], w[co * 18 + k] * s, 1e-6) << co;
  }
  const Tensor<4> x = Tensor<4>::random({2, 4, 7, 5}, Distribution::normal(0, 1), cpu());
  const auto same = [](const std::vector<float>& got, const std::vector<float>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5 + 1e-5 * std::abs(want[i])) << i;
  };
  same(f.forward(x).to_vec<float>(), bn.forward(conv.forward(x)).to_vec<float>());

  nn::Conv1d c1 = nn::Conv1dConfig{.channels_in = 3, .channels_out = 5, .kernel_size = 2, .bias = false}.init(cpu());
  nn::BatchNorm bn1 = nn::BatchNormConfig{.num_features = 5}.init(cpu());
  stats(bn1, 5);
  const nn::Conv1d f1 = nn::fold_batch_norm(c1, bn1);
  ASSERT_TRUE(f1.bias.has_value());
  const Tensor<3> x1 = Tensor<3>::random({2, 3, 9}, Distribution::normal(0, 1), cpu());
  same(f1.forward(x1).to_vec<float>(), bn1.forward(c1.forward(x1)).to_vec<float>());
}

TEST(FoldBatchNorm, Errors) {
  const nn::Conv2d conv = nn::Conv2dConfig{.channels = {2, 3}, .kernel_size = {1, 1}}.init(cpu());
  std::string m = error_of<ShapeError>([&] { nn::fold_batch_norm(conv, nn::BatchNormConfig{4}.init(cpu())); });
  EXPECT_NE(m.find("4 features, the conv 3 output channels"), std::string::npos) << m;
  // On an autodiff device with grad enabled the batch norm trains: folding it would drop that.
  const nn::Conv2d conv_ad = nn::Conv2dConfig{.channels = {2, 3}, .kernel_size = {1, 1}}.init(ad());
  const nn::BatchNorm bn_ad = nn::BatchNormConfig{3}.init(ad());
  m = error_of<ValueError>([&] { nn::fold_batch_norm(conv_ad, bn_ad); });
  EXPECT_NE(m.find("valid()"), std::string::npos) << m;
  {
    NoGradGuard guard;
    EXPECT_NO_THROW(nn::fold_batch_norm(conv_ad, bn_ad));
  }
  m = error_of<ValueError>([&] { nn::fold_batch_norm(conv, nn::BatchNormConfig{3}.init(ad())); });
  EXPECT_NE(m.find("the conv on cpu"), std::string::npos) << m;
}
