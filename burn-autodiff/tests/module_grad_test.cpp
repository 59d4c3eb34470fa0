// Backward of the module ops (conv, pools, resampling, embedding, norms, attention) on autodiff<cpu>,
// checked against central differences in f64: for L = sum(F(xs) * seed) with a random seed, every
// element of every input that requires grad gets (L(x + eps) - L(x - eps)) / 2eps, computed under a
// NoGradGuard. Sizes are small so that the numeric side stays fast; inputs are random (no ties in max
// pools, offsets off the integer grid for deform_conv2d).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <sstream>

#include "burn/autodiff/autodiff.hpp"
#include "burn/tensor/module.hpp"

namespace burn {
namespace {

using H = TensorHandle;
using Fn = std::function<H(const std::vector<H>&)>;

constexpr double kEps = 1e-6, kRtol = 1e-6, kAtol = 1e-8;

Device ad() { return Device::get("autodiff<cpu>"); }
Device ad_balanced() { return Device::get("autodiff-balanced<cpu>"); }

// One input of F: its values, and whether it requires grad (is checked).
struct In {
  Shape shape;
  std::vector<double> values;
  bool grad = true;
};

std::mt19937_64& rng() {
  static std::mt19937_64 g(20240611);
  return g;
}

std::vector<double> uniform(int64_t n, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = u(rng());
  return v;
}

In rnd(Shape s, double lo = -1, double hi = 1, bool grad = true) {
  const int64_t n = s.num_elements();
  return {std::move(s), uniform(n, lo, hi), grad};
}
In constant(Shape s, double lo = -1, double hi = 1) { return rnd(std::move(s), lo, hi, false); }

H make(const Device& d, const Shape& s, const std::vector<double>& v) {
  return api::from_data(d, TensorData::from_vector(v, s), Kind::Float);
}

H int_tensor(const Device& d, const Shape& s, const std::vector<int64_t>& v) {
  return api::from_data(d, TensorData::from_vector(v, s), Kind::Int);
}

H bool_tensor(const Device& d, const Shape& s, const std::vector<bool>& v) {
  return api::from_data(d, TensorData::from_vector(v, s), Kind::Bool);
}

double loss_of(const Fn& f, const std::vector<H>& xs, const H& seed) {
  return api::into_data(api::reduce_all(OpId::sum, api::mul(f(xs), seed))).value_f64(0);
}

std::vector<double> values(const H& h) { return api::into_data(h).to_f64_vec(); }

// Backward of sum(F(xs) * seed) against central differences, for every input with grad = true.
void gradcheck(const Fn& f, const std::vector<In>& ins, const Device& dev = ad()) {
  std::vector<H> xs;
  for (const In& in : ins) {
    H h = make(dev, in.shape, in.values);
    xs.push_back(in.grad ? api::set_require_grad(h, true) : h);
  }
  const H out = f(xs);
  ASSERT_EQ(out.prim->dtype(), DType::F64);
  ASSERT_TRUE(api::is_require_grad(out)) << "the output is not tracked";
  const H seed = make(dev, out.prim->shape(), uniform(out.prim->shape().num_elements(), -1, 1));
  Gradients grads = api::backward(api::reduce_all(OpId::sum, api::mul(out, seed)), {});

  NoGradGuard no_grad;
  for (size_t i = 0; i < ins.size(); ++i) {
    if (!ins[i].grad) continue;
    const std::optional<H> g = api::grad(xs[i], grads);
    ASSERT_TRUE(g.has_value()) << "input " << i << " got no gradient";
    ASSERT_EQ(g->prim->shape(), ins[i].shape) << "input " << i;
    ASSERT_EQ(g->prim->dtype(), DType::F64) << "input " << i;
    const std::vector<double> analytic = values(*g);
    int failures = 0;
    for (size_t e = 0; e < analytic.size(); ++e) {
      std::vector<H> ys = xs;
      std::vector<double> v = ins[i].values;
      v[e] = ins[i].values[e] + kEps;
      ys[i] = make(dev, ins[i].shape, v);
      const double lp = loss_of(f, ys, seed);
      v[e] = ins[i].values[e] - kEps;
      ys[i] = make(dev, ins[i].shape, v);
      const double lm = loss_of(f, ys, seed);
      const double numeric = (lp - lm) / (2 * kEps);
      if (std::abs(analytic[e] - numeric) > kRtol * std::abs(numeric) + kAtol && ++failures <= 5)
        ADD_FAILURE() << "input " << i << " " << ins[i].shape.to_string() << " element " << e << ": analytic "
                      << analytic[e] << ", central difference " << numeric << " (diff "
                      << analytic[e] - numeric << ")";
    }
    EXPECT_EQ(failures, 0) << "input " << i << ": " << failures << " of " << analytic.size() << " elements differ";
  }
}

api::OptH opt(const std::vector<H>& xs, size_t i) { return i < xs.size() ? api::OptH(xs[i]) : std::nullopt; }

// ---------------------------------------------------------------------------------------- conv

struct ConvCase {
  const char* name;
  Shape x, w;
  bool bias;
  ConvOptions o;
};

class ConvGrad : public testing::TestWithParam<ConvCase> {};

TEST_P(ConvGrad, MatchesCentralDifferences) {
  const ConvCase& c = GetParam();
  std::vector<In> ins{rnd(c.x), rnd(c.w)};
  if (c.bias) ins.push_back(rnd(Shape{c.w[0]}));
  gradcheck([&](const std::vector<H>& xs) { return api::conv(xs[0], xs[1], opt(xs, 2), c.o); }, ins);
}

INSTANTIATE_TEST_SUITE_P(
    Module, ConvGrad,
    testing::Values(
        ConvCase{"conv1d_stride_pad_groups", Shape{2, 4, 7}, Shape{6, 2, 3}, true,
                 {.stride = {2}, .padding = {1}, .padding_end = {2}, .groups = 2}},
        ConvCase{"conv2d_dilation", Shape{1, 3, 5, 6}, Shape{4, 3, 3, 2}, true,
                 {.stride = {1, 2}, .padding = {1, 0}, .dilation = {2, 1}}},
        ConvCase{"conv2d_depthwise_nobias_asym_pad", Shape{2, 3, 4, 4}, Shape{3, 1, 2, 2}, false,
                 {.padding = {1}, .padding_end = {0}, .groups = 3}},
        ConvCase{"conv3d", Shape{1, 2, 3, 4, 3}, Shape{2, 2, 2, 2, 2}, true, {.stride = {1, 2, 1}, .padding = {1}}}),
    [](const testing::TestParamInfo<ConvCase>& i) { return std::string(i.param.name); });

struct ConvTCase {
  const char* name;
  Shape x, w;
  bool bias;
  ConvTransposeOptions o;
};

class ConvTransposeGrad : public testing::TestWithParam<ConvTCase> {};

TEST_P(ConvTransposeGrad, MatchesCentralDifferences) {
  const ConvTCase& c = GetParam();
  const int64_t cout = c.w[1] * c.o.groups;
  std::vector<In> ins{rnd(c.x), rnd(c.w)};
  if (c.bias) ins.push_back(rnd(Shape{cout}));
  gradcheck([&](const std::vector<H>& xs) { return api::conv_transpose(xs[0], xs[1], opt(xs, 2), c.o); }, ins);
}

INSTANTIATE_TEST_SUITE_P(
    Module, ConvTransposeGrad,
    testing::Values(
        ConvTCase{"conv_transpose1d_stride_padout", Shape{2, 4, 5}, Shape{4, 3, 3}, true,
                  {.stride = {2}, .padding = {1}, .padding_out = {1}}},
        ConvTCase{"conv_transpose2d_groups_dilation", Shape{1, 4, 3, 3}, Shape{4, 2, 3, 2}, true,
                  {.stride = {2, 1}, .padding = {1, 1}, .padding_out = {1, 0}, .dilation = {1, 2}, .groups = 2}},
        ConvTCase{"conv_transpose2d_nobias", Shape{2, 2, 3, 2}, Shape{2, 3, 2, 2}, false, {}},
        ConvTCase{"conv_transpose3d", Shape{1, 2, 2, 3, 2}, Shape{2, 1, 2, 2, 2}, true, {.stride = {2, 1, 1}}}),
    [](const testing::TestParamInfo<ConvTCase>& i) { return std::string(i.param.name); });

// Each of x, weight and bias alone requiring grad (the bias-only path keeps no inputs).
TEST(ModuleGrad, ConvWithOneTrackedInput) {
  const ConvOptions o{.stride = {2}, .padding = {1}};
  for (int only = 0; only < 3; ++only) {
    SCOPED_TRACE(only);
    std::vector<In> ins{rnd(Shape{2, 2, 5, 4}), rnd(Shape{3, 2, 3, 3}), rnd(Shape{3})};
    for (int i = 0; i < 3; ++i) ins[i].grad = i == only;
    gradcheck([&](const std::vector<H>& xs) { return api::conv(xs[0], xs[1], xs[2], o); }, ins);
    const ConvTransposeOptions t{.stride = {2}, .padding = {1}};
    std::vector<In> tins{rnd(Shape{1, 2, 3, 3}), rnd(Shape{2, 3, 2, 3}), rnd(Shape{3})};
    for (int i = 0; i < 3; ++i) tins[i].grad = i == only;
    gradcheck([&](const std::vector<H>& xs) { return api::conv_transpose(xs[0], xs[1], xs[2], t); }, tins);
  }
}

// Composite fallback: the default body (bilinear gathers, masks, grouped matmul) recorded op by op.
TEST(ModuleGrad, DeformConv2d) {
  // offset_groups 1, weight_groups 2, with mask and bias.
  DeformConvOptions o{.weight_groups = 2};
  gradcheck(
      [&](const std::vector<H>& xs) { return api::deform_conv2d(xs[0], xs[1], xs[2], xs[3], xs[4], o); },
      {rnd(Shape{1, 2, 4, 4}), rnd(Shape{1, 8, 3, 3}, -1.4, 1.4), rnd(Shape{2, 1, 2, 2}), rnd(Shape{1, 4, 3, 3}, 0, 1),
       rnd(Shape{2})});
  // offset_groups 2, stride, padding and dilation, no mask and no bias; samples fall outside the input.
  DeformConvOptions o2{.stride = {2}, .padding = {1}, .dilation = {1, 2}, .offset_groups = 2};
  gradcheck([&](const std::vector<H>& xs) {
    return api::deform_conv2d(xs[0], xs[1], xs[2], std::nullopt, std::nullopt, o2);
  },
            {rnd(Shape{2, 2, 4, 5}), rnd(Shape{2, 16, 3, 3}, -2.3, 2.3), rnd(Shape{2, 2, 2, 2})});
}

TEST(ModuleGrad, UnfoldAndFold) {
  const UnfoldOptions o{.kernel = {2, 3}, .stride = {1, 2}, .padding = {1, 0}, .dilation = {2, 1}};
  gradcheck([&](const std::vector<H>& xs) { return api::unfold(xs[0], o); }, {rnd(Shape{2, 3, 5, 6})});
  // [N, C * kh * kw, L] for output 5 x 6 with these options: L = 5 * 2 blocks.
  gradcheck([&](const std::vector<H>& xs) { return api::fold(xs[0], {5, 6}, o); }, {rnd(Shape{2, 12, 10})});
  const UnfoldOptions o2{.kernel = {2}, .stride = {3}};  // blocks leave a gap: those elements get zeros
  gradcheck([&](const std::vector<H>& xs) { return api::unfold(xs[0], o2); }, {rnd(Shape{1, 2, 6, 7})});
  gradcheck([&](const std::vector<H>& xs) { return api::fold(xs[0], {6, 7}, o2); }, {rnd(Shape{1, 8, 4})});
}

// ---------------------------------------------------------------------------------------- pools

TEST(ModuleGrad, MaxPool) {
  gradcheck([](const std::vector<H>& xs) {
    return api::max_pool(xs[0], {.kernel = {3}, .stride = {2}, .padding = {1}, .ceil_mode = true});
  }, {rnd(Shape{2, 2, 5, 6})});
  gradcheck([](const std::vector<H>& xs) {
    return api::max_pool(xs[0], {.kernel = {2}, .stride = {1}, .padding = {1}, .padding_end = {0}, .dilation = {2}});
  }, {rnd(Shape{2, 3, 7})});
  gradcheck([](const std::vector<H>& xs) { return api::max_pool(xs[0], {.kernel = {2, 2, 1}}); },
            {rnd(Shape{1, 2, 4, 3, 2})});
}

TEST(ModuleGrad, MaxPoolWithIndices) {
  gradcheck([](const std::vector<H>& xs) {
    return api::max_pool_with_indices(xs[0], {.kernel = {2, 3}, .stride = {2, 1}, .padding = {1, 1}}).first;
  }, {rnd(Shape{1, 2, 5, 5})});
}

TEST(ModuleGrad, AvgPool) {
  gradcheck([](const std::vector<H>& xs) {
    return api::avg_pool(xs[0], {.kernel = {3}, .stride = {2}, .padding = {1}, .ceil_mode = true,
                                 .count_include_pad = false});
  }, {rnd(Shape{2, 2, 5, 6})});
  gradcheck([](const std::vector<H>& xs) {
    return api::avg_pool(xs[0], {.kernel = {3}, .stride = {2}, .padding = {1}, .count_include_pad = true});
  }, {rnd(Shape{2, 3, 8})});
  gradcheck([](const std::vector<H>& xs) { return api::avg_pool(xs[0], {.kernel = {2, 1, 2}, .stride = {1}}); },
            {rnd(Shape{1, 2, 3, 2, 4})});
}

TEST(ModuleGrad, AdaptivePools) {
  gradcheck([](const std::vector<H>& xs) { return api::adaptive_avg_pool(xs[0], {3, 4}); }, {rnd(Shape{2, 2, 5, 7})});
  gradcheck([](const std::vector<H>& xs) { return api::adaptive_avg_pool(xs[0], {4}); }, {rnd(Shape{1, 3, 9})});
  gradcheck([](const std::vector<H>& xs) { return api::adaptive_avg_pool(xs[0], {2, 3, 2}); },
            {rnd(Shape{1, 1, 3, 4, 5})});
  gradcheck([](const std::vector<H>& xs) { return api::adaptive_max_pool(xs[0], {3, 2}).first; },
            {rnd(Shape{2, 2, 5, 7})});
  gradcheck([](const std::vector<H>& xs) { return api::adaptive_max_pool(xs[0], {4}).first; }, {rnd(Shape{1, 2, 6})});
}

// ---------------------------------------------------------------------------------------- resampling

TEST(ModuleGrad, Interpolate) {
  using M = InterpolateMode;
  struct C {
    Shape x;
    std::vector<int64_t> out;
    InterpolateOptions o;
  };
  for (const C& c : {C{Shape{1, 2, 3, 4}, {5, 7}, {M::Nearest}}, C{Shape{1, 2, 5, 4}, {3, 2}, {M::Nearest}},
                     C{Shape{2, 1, 5}, {8}, {M::Linear, false}}, C{Shape{2, 1, 5}, {3}, {M::Linear, true}},
                     C{Shape{1, 2, 3, 4}, {5, 3}, {M::Linear, false}}, C{Shape{1, 2, 3, 4}, {5, 6}, {M::Linear, true}},
                     C{Shape{1, 1, 2, 3, 2}, {3, 4, 3}, {M::Linear, false}},
                     C{Shape{1, 2, 4, 4}, {6, 3}, {M::Cubic, false}}, C{Shape{1, 1, 4, 5}, {7, 6}, {M::Cubic, true}},
                     C{Shape{1, 2, 6}, {4}, {M::Cubic, false}}}) {
    SCOPED_TRACE(c.x.to_string() + " -> " + Shape(c.out).to_string() + " mode " + std::to_string(int(c.o.mode)) +
                 (c.o.align_corners ? " align_corners" : ""));
    gradcheck([&](const std::vector<H>& xs) { return api::interpolate(xs[0], c.out, c.o); }, {rnd(c.x)});
  }
}

TEST(ModuleGrad, PixelShuffleAndUnshuffle) {
  gradcheck([](const std::vector<H>& xs) { return api::pixel_shuffle(xs[0], 2); }, {rnd(Shape{2, 8, 2, 3})});
  gradcheck([](const std::vector<H>& xs) { return api::pixel_shuffle(xs[0], 2); }, {rnd(Shape{2, 1, 4, 2, 2})});
  gradcheck([](const std::vector<H>& xs) { return api::pixel_unshuffle(xs[0], 2); }, {rnd(Shape{1, 2, 4, 6})});
  gradcheck([](const std::vector<H>& xs) { return api::pixel_unshuffle(xs[0], 3); }, {rnd(Shape{2, 1, 1, 3, 6})});
}

// ---------------------------------------------------------------------------------------- embedding

TEST(ModuleGrad, EmbeddingWithRepeatedIndices) {
  const H idx = int_tensor(ad(), Shape{2, 3}, {0, 2, 2, 4, 0, 1});
  gradcheck([&](const std::vector<H>& xs) { return api::embedding(xs[0], idx); }, {rnd(Shape{5, 3})});
  const H idx1 = int_tensor(ad(), Shape{4}, {3, 3, 3, 1});
  gradcheck([&](const std::vector<H>& xs) { return api::embedding(xs[0], idx1); }, {rnd(Shape{4, 2})});
}

// ---------------------------------------------------------------------------------------- norms

TEST(ModuleGrad, LayerNorm) {
  gradcheck([](const std::vector<H>& xs) { return api::layer_norm(xs[0], xs[1], xs[2], 1, 1e-5); },
            {rnd(Shape{2, 3, 4}), rnd(Shape{4}), rnd(Shape{4})});
  gradcheck([](const std::vector<H>& xs) { return api::layer_norm(xs[0], xs[1], xs[2], 2, 1e-3); },
            {rnd(Shape{2, 3, 4}), rnd(Shape{3, 4}), rnd(Shape{3, 4})});
  gradcheck([](const std::vector<H>& xs) { return api::layer_norm(xs[0], std::nullopt, std::nullopt, 1, 1e-5); },
            {rnd(Shape{3, 5})});
  // weight but no bias; and bias alone tracked
  gradcheck([](const std::vector<H>& xs) { return api::layer_norm(xs[0], xs[1], std::nullopt, 1, 1e-5); },
            {rnd(Shape{2, 2, 3}), rnd(Shape{3})});
  gradcheck([](const std::vector<H>& xs) { return api::layer_norm(xs[0], xs[1], xs[2], 1, 1e-5); },
            {constant(Shape{2, 3, 4}), constant(Shape{4}), rnd(Shape{4})});
}

TEST(ModuleGrad, GroupNorm) {
  gradcheck([](const std::vector<H>& xs) { return api::group_norm(xs[0], xs[1], xs[2], 2, 1e-5); },
            {rnd(Shape{2, 4, 3, 2}), rnd(Shape{4}), rnd(Shape{4})});
  gradcheck([](const std::vector<H>& xs) { return api::group_norm(xs[0], std::nullopt, std::nullopt, 4, 1e-5); },
            {rnd(Shape{2, 4, 3})});
  gradcheck([](const std::vector<H>& xs) { return api::group_norm(xs[0], xs[1], xs[2], 3, 1e-5); },
            {rnd(Shape{3, 6}), rnd(Shape{6}), rnd(Shape{6})});
  gradcheck([](const std::vector<H>& xs) { return api::group_norm(xs[0], xs[1], xs[2], 1, 1e-5); },
            {constant(Shape{2, 2, 3}), rnd(Shape{2}), rnd(Shape{2})});
}

// Output 0 of batch_norm; the new running statistics are checked to be untracked.
H bn_out(const std::vector<H>& xs, api::OptH w, api::OptH b, api::OptH rm, api::OptH rv, bool training) {
  api::Hs r = api::batch_norm(xs[0], w, b, rm, rv, training, 0.1, 1e-5);
  for (size_t k = 1; k < r.size(); ++k)
    if (r[k].prim && api::is_require_grad(r[k])) ADD_FAILURE() << "running statistic " << k << " is tracked";
  return r[0];
}

TEST(ModuleGrad, BatchNormTraining) {
  // with running statistics (their new values are untracked outputs)
  gradcheck([](const std::vector<H>& xs) { return bn_out(xs, xs[1], xs[2], xs[3], xs[4], true); },
            {rnd(Shape{3, 2, 4}), rnd(Shape{2}), rnd(Shape{2}), constant(Shape{2}), constant(Shape{2}, 0.5, 2)});
  // without running statistics, weight or bias; rank 2 and rank 4 inputs
  gradcheck([](const std::vector<H>& xs) {
    return bn_out(xs, std::nullopt, std::nullopt, std::nullopt, std::nullopt, true);
  },
            {rnd(Shape{4, 3})});
  gradcheck([](const std::vector<H>& xs) { return bn_out(xs, xs[1], std::nullopt, std::nullopt, std::nullopt, true); },
            {rnd(Shape{2, 2, 2, 3}), rnd(Shape{2})});
}

TEST(ModuleGrad, BatchNormInference) {
  // x, weight, bias, and the running statistics themselves
  gradcheck([](const std::vector<H>& xs) { return bn_out(xs, xs[1], xs[2], xs[3], xs[4], false); },
            {rnd(Shape{3, 2, 4}), rnd(Shape{2}), rnd(Shape{2}), rnd(Shape{2}), rnd(Shape{2}, 0.5, 2)});
  gradcheck([](const std::vector<H>& xs) { return bn_out(xs, std::nullopt, std::nullopt, xs[1], xs[2], false); },
            {rnd(Shape{2, 3}), constant(Shape{3}), rnd(Shape{3}, 0.5, 2)});
  gradcheck([](const std::vector<H>& xs) { return bn_out(xs, xs[1], xs[2], xs[3], xs[4], false); },
            {constant(Shape{2, 2, 3}), constant(Shape{2}), rnd(Shape{2}), constant(Shape{2}),
             constant(Shape{2}, 0.5, 2)});
}

TEST(ModuleGrad, RmsNorm) {
  gradcheck([](const std::vector<H>& xs) { return api::rms_norm(xs[0], xs[1], 1, 1e-5); },
            {rnd(Shape{2, 3, 4}), rnd(Shape{4})});
  gradcheck([](const std::vector<H>& xs) { return api::rms_norm(xs[0], std::nullopt, 2, 1e-3); },
            {rnd(Shape{2, 3, 4})});
  gradcheck([](const std::vector<H>& xs) { return api::rms_norm(xs[0], xs[1], 2, 1e-5); },
            {constant(Shape{2, 2, 3}), rnd(Shape{2, 3})});
}

// ---------------------------------------------------------------------------------------- attention

TEST(ModuleGrad, Attention) {
  const std::vector<In> qkv{rnd(Shape{1, 2, 3, 4}), rnd(Shape{1, 2, 5, 4}), rnd(Shape{1, 2, 5, 3})};
  gradcheck([](const std::vector<H>& xs) { return api::attention(xs[0], xs[1], xs[2], std::nullopt, {}); }, qkv);
  gradcheck([](const std::vector<H>& xs) {
    return api::attention(xs[0], xs[1], xs[2], std::nullopt, {.causal = true, .scale = 0.7});
  }, qkv);
  // a broadcast mask (true = masked out) leaving every query row at least one key
  const H mask = bool_tensor(ad(), Shape{1, 3, 5}, {false, true, false, true, true,  //
                                                    true, false, false, false, true,  //
                                                    false, false, true, true, false});
  gradcheck([&](const std::vector<H>& xs) { return api::attention(xs[0], xs[1], xs[2], mask, {.causal = true}); },
            qkv);
  gradcheck([&](const std::vector<H>& xs) { return api::attention(xs[0], xs[1], xs[2], mask, {}); },
            {constant(Shape{2, 1, 3, 2}), rnd(Shape{2, 1, 5, 2}), constant(Shape{2, 1, 5, 2})});
}

// ---------------------------------------------------------------------------------------- behaviour

// Under balanced checkpointing the memory-bound ops' outputs are recomputed: same gradients.
TEST(ModuleGrad, BalancedCheckpointingGivesTheSameGradients) {
  gradcheck([](const std::vector<H>& xs) {
    H y = api::unary(OpId::relu, api::conv(xs[0], xs[1], xs[2], {.padding = {1}}));
    y = api::max_pool(api::unary(OpId::tanh, y), {.kernel = {2}});
    y = api::layer_norm(api::unary(OpId::exp, y), xs[3], xs[4], 2, 1e-5);
    return api::interpolate(api::avg_pool(api::unary(OpId::sin, y), {.kernel = {1}}), {3, 3},
                            {InterpolateMode::Linear});
  }, {rnd(Shape{1, 2, 4, 4}), rnd(Shape{2, 2, 3, 3}), rnd(Shape{2}), rnd(Shape{2, 2}), rnd(Shape{2, 2})},
     ad_balanced());
  gradcheck([](const std::vector<H>& xs) {
    return api::batch_norm(api::unary(OpId::sigmoid, xs[0]), xs[1], xs[2], std::nullopt, std::nullopt, true, 0.1,
                           1e-5)[0];
  }, {rnd(Shape{3, 2, 2}), rnd(Shape{2}), rnd(Shape{2})}, ad_balanced());
}

// Norms without weight or bias, each read back by the op after it (sin keeps its input), so their
// outputs are recomputed from inputs that include absent (null) ones.
TEST(ModuleGrad, BalancedCheckpointingRecomputesOpsWithAbsentInputs) {
  gradcheck([](const std::vector<H>& xs) {
    H y = api::unary(OpId::sin, api::layer_norm(xs[0], std::nullopt, std::nullopt, 1, 1e-5));
    y = api::unary(OpId::sin, api::group_norm(y, std::nullopt, xs[1], 2, 1e-5));
    y = api::unary(OpId::sin, api::rms_norm(y, std::nullopt, 2, 1e-5));
    return api::unary(OpId::sin, api::batch_norm(y, std::nullopt, std::nullopt, std::nullopt, std::nullopt, true,
                                                 0.1, 1e-5)[0]);
  }, {rnd(Shape{2, 4, 3}), rnd(Shape{4})}, ad_balanced());
}

TEST(ModuleGrad, UntrackedInputsStayUntracked) {
  const H x = make(ad(), Shape{1, 1, 4, 4}, uniform(16, -1, 1));
  const H w = make(ad(), Shape{1, 1, 2, 2}, uniform(4, -1, 1));
  EXPECT_FALSE(api::is_require_grad(api::conv(x, w, std::nullopt, {})));
  EXPECT_FALSE(api::is_require_grad(api::max_pool(x, {.kernel = {2}})));
  auto [y, idx] = api::adaptive_max_pool(x, {2, 2});
  EXPECT_FALSE(api::is_require_grad(y));
  EXPECT_FALSE(api::is_require_grad(api::layer_norm(x, std::nullopt, std::nullopt, 1, 1e-5)));
  // indices of a tracked max pool are never tracked
  auto [y2, idx2] = api::max_pool_with_indices(api::set_require_grad(x, true), {.kernel = {2}});
  EXPECT_TRUE(api::is_require_grad(y2));
  EXPECT_FALSE(api::is_require_grad(idx2));
}

// pixel (un)shuffle and unfold/fold write their backward with public ops, so a graph of the gradients
// can be built through them: for L = sum(op(x)^2), dL/dx = 2 x * c (c: how many outputs read each
// element), and d(sum dL/dx)/dx = 2 c.
TEST(ModuleGrad, SecondOrderThroughShuffleAndUnfold) {
  const UnfoldOptions o{.kernel = {2}, .stride = {1}, .padding = {1}};
  const std::vector<double> xv = uniform(4 * 4 * 4, -1, 1);
  const auto count = [&](const H& ones) {  // c per element, as fold(unfold(ones)) (1 for the shuffles)
    return values(api::fold(api::unfold(ones, o), {4, 4}, o));
  };
  const std::vector<double> c = count(make(Device::get("cpu"), Shape{1, 4, 4, 4}, std::vector<double>(64, 1.0)));
  const std::vector<std::function<H(const H&)>> ops{[](const H& x) { return api::pixel_shuffle(x, 2); },
                                                    [](const H& x) { return api::pixel_unshuffle(x, 2); },
                                                    [&](const H& x) { return api::unfold(x, o); }};
  for (size_t k = 0; k < ops.size(); ++k) {
    SCOPED_TRACE(k);
    const H x = api::set_require_grad(make(ad(), Shape{1, 4, 4, 4}, xv), true);
    const H y = ops[k](x);
    Gradients g1 = api::backward(api::reduce_all(OpId::sum, api::mul(y, y)), {.create_graph = true});
    const H gx = *api::grad(x, g1);
    ASSERT_TRUE(api::is_require_grad(gx));
    const std::vector<double> first = values(gx), second = values(*api::grad(x, api::backward(
                                                                  api::reduce_all(OpId::sum, gx), {})));
    for (size_t e = 0; e < xv.size(); ++e) {
      const double ce = k == 2 ? c[e] : 1.0;
      EXPECT_NEAR(first[e], 2 * xv[e] * ce, 1e-12) << "element " << e;
      EXPECT_NEAR(second[e], 2 * ce, 1e-12) << "element " << e;
    }
  }
}

// The backward kernels of the module ops are not differentiable themselves: asking for a graph of
// the gradients through them is refused, never answered with a wrong (detached) gradient.
TEST(ModuleGrad, SecondOrderThroughConvIsRefused) {
  const H x = make(ad(), Shape{1, 1, 4, 4}, uniform(16, -1, 1));
  const H w = api::set_require_grad(make(ad(), Shape{1, 1, 2, 2}, uniform(4, -1, 1)), true);
  const H loss = api::reduce_all(OpId::sum, api::conv(x, w, std::nullopt, {}));
  EXPECT_THROW(api::backward(loss, {.create_graph = true}), Unsupported);
}

}  // namespace
}  // namespace burn
