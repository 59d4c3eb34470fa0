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
