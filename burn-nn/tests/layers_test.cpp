// Layers against PyTorch (fixtures/layers.json from gen_fixtures_layers.py): forward on cpu, forward
// and backward on autodiff<cpu>.
#include <gtest/gtest.h>

#include <cmath>

#include "burn/nn.hpp"
#include "burn/nn/sequential.hpp"
#include "burn/nn/transformer.hpp"
#include "fixture.hpp"

using namespace burn;
using burn::test::ad;
using burn::test::cpu;
using burn::test::expect_close;
using burn::test::fixture_tensor;

namespace {

const nlohmann::json& layers() { return burn::test::fixture("layers.json"); }

nn::Linear linear_from(const nlohmann::json& c, const Device& d) {
  nn::Linear l;
  l.weight = nn::Param<Tensor<2>>(fixture_tensor<2>(c["weight"], d));
  if (c.contains("bias")) l.bias = nn::Param<Tensor<1>>(fixture_tensor<1>(c["bias"], d));
  return l;
}

template <size_t D>
void check_linear(const char* name) {
  const nlohmann::json& c = layers()[name];
  // forward on the plain device
  expect_close(linear_from(c, cpu()).forward(fixture_tensor<D>(c["x"], cpu())).into_data(), c["y"], 1e-5, 1e-4, name);
  // backward through autodiff: d(sum(y * g))
  nn::Linear l = linear_from(c, ad());
  const Tensor<D> x = fixture_tensor<D>(c["x"], ad()).require_grad();
  const Tensor<D> y = l.forward(x);
  expect_close(y.into_data(), c["y"], 1e-5, 1e-4, name);
  Gradients grads = (y * fixture_tensor<D>(c["grad_out"], ad())).sum().backward();
  expect_close(x.grad(grads)->into_data(), c["grad_x"], 1e-5, 1e-4, std::string(name) + " grad_x");
  expect_close(l.weight.val().grad(grads)->into_data(), c["grad_weight"], 1e-5, 1e-4, std::string(name) + " grad_w");
  if (l.bias) expect_close(l.bias->val().grad(grads)->into_data(), c["grad_bias"], 1e-5, 1e-4, name);
}

}  // namespace

TEST(Linear, MatchesPyTorch2d) { check_linear<2>("linear_2d"); }
TEST(Linear, MatchesPyTorch3d) { check_linear<3>("linear_3d"); }
TEST(Linear, MatchesPyTorch1dWithoutBias) { check_linear<1>("linear_1d_nobias"); }

TEST(Linear, WrongInputWidthIsAShapeError) {
  nn::Linear l = nn::LinearConfig{4, 2}.init(cpu());
  try {
    l.forward(Tensor<2>::zeros({3, 5}, cpu()));
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("[3, 5]"), std::string::npos) << e.what();
  }
}

// PyTorch's default: weight and bias ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)): bounds and variance b^2/3.
TEST(Linear, DefaultInitIsPyTorchsInDistribution) {
  cpu().seed(1);
  nn::Linear l = nn::LinearConfig{256, 512}.init(cpu());
  const double bound = 1.0 / std::sqrt(256.0);
  const std::vector<float> w = l.weight.val().to_vec<float>();
  double sum = 0, sq = 0, lo = 1, hi = -1;
  for (float v : w) {
    sum += v;
    sq += double(v) * v;
    lo = std::min(lo, double(v));
    hi = std::max(hi, double(v));
  }
  const double n = w.size(), mean = sum / n, var = sq / n - mean * mean;
  EXPECT_GE(lo, -bound);
  EXPECT_LE(hi, bound);
  EXPECT_GT(hi, bound * 0.99);  // the whole range is used
  EXPECT_NEAR(mean, 0.0, 4 * std::sqrt(bound * bound / 3 / n));
  EXPECT_NEAR(var, bound * bound / 3, 0.02 * bound * bound / 3);
  const std::vector<float> b = l.bias->val().to_vec<float>();
  for (float v : b) EXPECT_LE(std::abs(v), bound);
}

TEST(Embedding, MatchesPyTorch) {
  const nlohmann::json& c = layers()["embedding"];
  nn::Embedding e;
  e.weight = nn::Param<Tensor<2>>(fixture_tensor<2>(c["weight"], ad()));
  const Tensor<2, Int> idx = fixture_tensor<2, Int>(c["indices"], ad());
  const Tensor<3> y = e.forward(idx);
  expect_close(y.into_data(), c["y"]);
  Gradients grads = (y * fixture_tensor<3>(c["grad_out"], ad())).sum().backward();
  expect_close(e.weight.val().grad(grads)->into_data(), c["grad_weight"]);
  EXPECT_EQ((nn::EmbeddingConfig{10, 4}.init(cpu()).extra_repr()), "n_embedding=10, d_model=4");
}

// Each initializer's moments against its formula, on a shape large enough for tight bounds.
TEST(Initializer, MomentsMatchTheirFormulas) {
  cpu().seed(3);
  const Shape s{128, 64, 3, 3};  // fan_in 64 * 9 = 576, fan_out 128 * 9 = 1152
  auto moments = [&](const nn::Initializer& init) {
    const std::vector<float> v = init.init<4>(s, cpu()).to_vec<float>();
    double sum = 0, sq = 0;
    for (float x : v) sum += x, sq += double(x) * x;
    const double mean = sum / v.size();
    return std::pair{mean, sq / v.size() - mean * mean};
  };
  auto expect_var = [&](const nn::Initializer& init, double var) {
    auto [m, v] = moments(init);
    EXPECT_NEAR(m, 0.0, 0.01 * std::sqrt(var) + 1e-3) << nn::initializer_name(init.kind);
    EXPECT_NEAR(v, var, 0.03 * var) << nn::initializer_name(init.kind);
  };
  expect_var(nn::Initializer::kaiming_uniform(std::sqrt(2.0)), 2.0 / 576);
  expect_var(nn::Initializer::kaiming_normal(std::sqrt(2.0)), 2.0 / 576);
  expect_var(nn::Initializer::kaiming_normal(1.0, true), 1.0 / 1152);
  expect_var(nn::Initializer::xavier_uniform(), 2.0 / (576 + 1152));
  expect_var(nn::Initializer::xavier_normal(3.0), 9.0 * 2.0 / (576 + 1152));
  expect_var(nn::Initializer::normal(0.0, 0.5), 0.25);
  EXPECT_EQ(nn::Initializer::constant(2.5).init<1>({3}, cpu()).to_vec<float>(), std::vector<float>(3, 2.5f));
  EXPECT_THROW(nn::Initializer::kaiming_uniform(1.0).init<1>({3}, cpu()), ValueError);  // no fan for 1-D
}

TEST(Initializer, OrthogonalRowsAreOrthonormal) {
  for (const Shape& s : {Shape{6, 4}, Shape{4, 6}, Shape{3, 2, 2}}) {
    const Tensor<2> w = nn::Initializer::orthogonal(2.0).init<2>(Shape{s[0], s.num_elements() / s[0]}, cpu());
    const bool wide = w.dim(0) <= w.dim(1);
    const Tensor<2> gram = wide ? w.matmul(w.transpose()) : w.transpose().matmul(w);
    const int64_t k = std::min(w.dim(0), w.dim(1));
    const std::vector<float> g = gram.to_vec<float>();
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < k; ++j) EXPECT_NEAR(g[i * k + j], i == j ? 4.0 : 0.0, 1e-4) << s.to_string();
  }
}

TEST(PositionWiseFeedForward, MatchesPyTorch) {
  const nlohmann::json& c = layers()["feed_forward"];
  nn::PositionWiseFeedForward ff = nn::PositionWiseFeedForwardConfig{.d_model = 6, .d_ff = 10}.init(ad());
  record::Record rec;
  for (const auto& [path, t] : c["params"].items()) rec.set(path, burn::test::fixture_data(t));
  ASSERT_TRUE(ff.load_record(rec).ok());
  const Tensor<3> x = fixture_tensor<3>(c["x"], ad()).require_grad();
  nn::PositionWiseFeedForward eval = ff;
  eval.dropout.prob = 0.0;  // PyTorch's values are without dropout
  const Tensor<3> y = eval.forward(x);
  expect_close(y.into_data(), c["y"]);
  Gradients grads = (y * fixture_tensor<3>(c["grad_out"], ad())).sum().backward();
  expect_close(x.grad(grads)->into_data(), c["grad_x"]);
}

TEST(Sequential, AppliesLayersInOrderWithPyTorchPaths) {
  cpu().seed(11);
  nn::Sequential<nn::Linear, nn::Identity, nn::Linear> seq(nn::LinearConfig{3, 5}.init(cpu()), nn::Identity{},
                                                           nn::LinearConfig{5, 2, false}.init(cpu()));
  std::vector<std::string> paths;
  for (const auto& p : nn::named_params(seq)) paths.push_back(p.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"0.weight", "0.bias", "2.weight"}));
  const Tensor<2> x = Tensor<2>::random({4, 3}, Distribution::normal(0, 1), cpu());
  EXPECT_EQ(seq.forward(x).to_vec<float>(), seq.at<2>().forward(seq.at<0>().forward(x)).to_vec<float>());
  EXPECT_EQ(seq.num_params(), 3 * 5 + 5 + 5 * 2);
  EXPECT_NE(seq.display().find("(1): Identity()"), std::string::npos) << seq.display();
  auto on_ad = seq.to_device(ad());
  EXPECT_TRUE(api::is_require_grad(on_ad.at<0>().weight.handle()));
}
