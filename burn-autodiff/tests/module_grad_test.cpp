// Backward of the module ops (conv, pools, resampling, embedding, norms, attention) against central
// differences in f64 with the shared checker (see grad_check.hpp): every float input that is not
// untracked() gets its gradient checked, on the plain device and under balanced checkpointing. Sizes
// are small so that the numeric side stays fast; inputs are random (no ties in max pools, offsets off
// the integer grid for deform_conv2d).
#include "grad_check.hpp"

#include "burn/tensor/module.hpp"

namespace burn::gradcheck {
namespace {

// Module inputs lie in [-1, 1) unless a test needs another range.
TensorData rnd(const Shape& s, uint64_t seed, double lo = -1, double hi = 1) { return values(s, seed, lo, hi); }

api::OptH opt(const Hs& xs, size_t i) { return i < xs.size() ? api::OptH(xs[i]) : std::nullopt; }

// ---------------------------------------------------------------------------------------- conv

struct ConvCase {
  const char* name;
  Shape x, w;
  bool bias;
  ConvOptions o;
};

// gtest describes a test by the case's name rather than by the struct's bytes.
void PrintTo(const ConvCase& c, std::ostream* os) { *os << c.name; }

class ConvGrad : public testing::TestWithParam<ConvCase> {};

TEST_P(ConvGrad, MatchesCentralDifferences) {
  const ConvCase& c = GetParam();
  std::vector<Input> ins{rnd(c.x, 1), rnd(c.w, 2)};
  if (c.bias) ins.push_back(rnd(Shape{c.w[0]}, 3));
  gradcheck([&](const Hs& xs) { return api::conv(xs[0], xs[1], opt(xs, 2), c.o); }, ins);
}

INSTANTIATE_TEST_SUITE_P(
    Module, ConvGrad,
    testing::Values(
        ConvCase{"conv1d_stride_pad_groups",
                 Shape{2, 4, 7},
                 Shape{6, 2, 3},
                 true,
                 {.stride = {2}, .padding = {1}, .padding_end = {2}, .groups = 2}},
        ConvCase{"conv2d_dilation",
                 Shape{1, 3, 5, 6},
                 Shape{4, 3, 3, 2},
                 true,
                 {.stride = {1, 2}, .padding = {1, 0}, .dilation = {2, 1}}},
        ConvCase{"conv2d_depthwise_nobias_asym_pad",
                 Shape{2, 3, 4, 4},
                 Shape{3, 1, 2, 2},
                 false,
                 {.padding = {1}, .padding_end = {0}, .groups = 3}},
        ConvCase{"conv3d", Shape{1, 2, 3, 4, 3}, Shape{2, 2, 2, 2, 2}, true, {.stride = {1, 2, 1}, .padding = {1}}}),
    [](const testing::TestParamInfo<ConvCase>& i) { return std::string(i.param.name); });

struct ConvTCase {
  const char* name;
  Shape x, w;
  bool bias;
  ConvTransposeOptions o;
};

void PrintTo(const ConvTCase& c, std::ostream* os) { *os << c.name; }

class ConvTransposeGrad : public testing::TestWithParam<ConvTCase> {};

TEST_P(ConvTransposeGrad, MatchesCentralDifferences) {
  const ConvTCase& c = GetParam();
  const int64_t cout = c.w[1] * c.o.groups;
  std::vector<Input> ins{rnd(c.x, 4), rnd(c.w, 5)};
  if (c.bias) ins.push_back(rnd(Shape{cout}, 6));
  gradcheck([&](const Hs& xs) { return api::conv_transpose(xs[0], xs[1], opt(xs, 2), c.o); }, ins);
}

INSTANTIATE_TEST_SUITE_P(
    Module, ConvTransposeGrad,
    testing::Values(
        ConvTCase{"conv_transpose1d_stride_padout",
                  Shape{2, 4, 5},
                  Shape{4, 3, 3},
                  true,
                  {.stride = {2}, .padding = {1}, .padding_out = {1}}},
        ConvTCase{"conv_transpose2d_groups_dilation",
                  Shape{1, 4, 3, 3},
                  Shape{4, 2, 3, 2},
                  true,
                  {.stride = {2, 1}, .padding = {1, 1}, .padding_out = {1, 0}, .dilation = {1, 2}, .groups = 2}},
        ConvTCase{"conv_transpose2d_nobias", Shape{2, 2, 3, 2}, Shape{2, 3, 2, 2}, false, {}},
        ConvTCase{"conv_transpose3d", Shape{1, 2, 2, 3, 2}, Shape{2, 1, 2, 2, 2}, true, {.stride = {2, 1, 1}}}),
    [](const testing::TestParamInfo<ConvTCase>& i) { return std::string(i.param.name); });

// Each of x, weight and bias alone requiring grad (the bias-only path keeps no inputs).
TEST(ModuleGrad, ConvWithOneTrackedInput) {
  const ConvOptions o{.stride = {2}, .padding = {1}};
  for (int only = 0; only < 3; ++only) {
    SCOPED_TRACE(only);
    std::vector<Input> ins{rnd(Shape{2, 2, 5, 4}, 7), rnd(Shape{3, 2, 3, 3}, 8), rnd(Shape{3}, 9)};
    for (int i = 0; i < 3; ++i) ins[i].grad = i == only;
    gradcheck([&](const Hs& xs) { return api::conv(xs[0], xs[1], xs[2], o); }, ins);
    const ConvTransposeOptions t{.stride = {2}, .padding = {1}};
    std::vector<Input> tins{rnd(Shape{1, 2, 3, 3}, 10), rnd(Shape{2, 3, 2, 3}, 11), rnd(Shape{3}, 12)};
    for (int i = 0; i < 3; ++i) tins[i].grad = i == only;
    gradcheck([&](const Hs& xs) { return api::conv_transpose(xs[0], xs[1], xs[2], t); }, tins);
  }
}

// x untracked (a network's first conv, over its data), weight and bias tracked: the backward kernels are
// asked for no input gradient, and the weight's and bias's match central differences.
TEST(ModuleGrad, ConvWithUntrackedInputAndTrackedWeightAndBias) {
  const ConvOptions o{.stride = {2}, .padding = {1}};
  gradcheck([&](const Hs& xs) { return api::conv(xs[0], xs[1], xs[2], o); },
            {untracked(rnd(Shape{2, 2, 5, 4}, 113)), rnd(Shape{3, 2, 3, 3}, 114), rnd(Shape{3}, 115)});
  const ConvTransposeOptions t{.stride = {2}, .padding = {1}};
  gradcheck([&](const Hs& xs) { return api::conv_transpose(xs[0], xs[1], xs[2], t); },
            {untracked(rnd(Shape{1, 2, 3, 3}, 116)), rnd(Shape{2, 3, 2, 3}, 117), rnd(Shape{3}, 118)});
}

// The same in f32 on the blocked kernels' shapes (a 3x3 32 -> 32 conv block): the weight and bias gradients
// with x untracked are bitwise those with x tracked, and x gets none.
TEST(ModuleGrad, ConvBlockWithUntrackedInputGivesTheSameWeightGradients) {
  const ConvOptions same{.padding = {1}};
  const auto f32 = [](const TensorData& d) { return api::cast(on(plain(), d), DType::F32); };
  const H x = f32(rnd(Shape{2, 32, 12, 12}, 119));
  const H w1 = api::set_require_grad(f32(rnd(Shape{32, 32, 3, 3}, 120, -0.1, 0.1)), true);
  const H w2 = api::set_require_grad(f32(rnd(Shape{32, 32, 3, 3}, 121, -0.1, 0.1)), true);
  const H b1 = api::set_require_grad(f32(rnd(Shape{32}, 122)), true);
  const H b2 = api::set_require_grad(f32(rnd(Shape{32}, 123)), true);
  const H seed = f32(rnd(Shape{2, 32, 12, 12}, 124));
  const auto step = [&](const H& in) {
    const H h = api::unary(OpId::relu, api::conv(in, w1, b1, same));
    return api::backward(api::reduce_all(OpId::sum, api::mul(api::conv(h, w2, b2, same), seed)), {});
  };
  const H xt = api::set_require_grad(x, true);
  Gradients with_x = step(xt), without_x = step(x);
  ASSERT_TRUE(api::grad(xt, with_x).has_value());
  EXPECT_FALSE(api::grad(x, without_x).has_value());
  for (const H* p : {&w1, &w2, &b1, &b2}) {
    const std::optional<H> a = api::grad(*p, with_x), b = api::grad(*p, without_x);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(api::into_data(*a).to_vec<float>(), api::into_data(*b).to_vec<float>());
  }
}

// Composite fallback: the default body (bilinear gathers, masks, grouped matmul) recorded op by op.
TEST(ModuleGrad, DeformConv2d) {
  // offset_groups 1, weight_groups 2, with mask and bias.
  DeformConvOptions o{.weight_groups = 2};
  gradcheck([&](const Hs& xs) { return api::deform_conv2d(xs[0], xs[1], xs[2], xs[3], xs[4], o); },
            {rnd(Shape{1, 2, 4, 4}, 13), rnd(Shape{1, 8, 3, 3}, 14, -1.4, 1.4), rnd(Shape{2, 1, 2, 2}, 15),
             rnd(Shape{1, 4, 3, 3}, 16, 0, 1), rnd(Shape{2}, 17)});
  // offset_groups 2, stride, padding and dilation, no mask and no bias; samples fall outside the input.
  DeformConvOptions o2{.stride = {2}, .padding = {1}, .dilation = {1, 2}, .offset_groups = 2};
  gradcheck([&](const Hs& xs) { return api::deform_conv2d(xs[0], xs[1], xs[2], std::nullopt, std::nullopt, o2); },
            {rnd(Shape{2, 2, 4, 5}, 18), rnd(Shape{2, 16, 3, 3}, 19, -2.3, 2.3), rnd(Shape{2, 2, 2, 2}, 20)});
}

TEST(ModuleGrad, UnfoldAndFold) {
  const UnfoldOptions o{.kernel = {2, 3}, .stride = {1, 2}, .padding = {1, 0}, .dilation = {2, 1}};
  gradcheck([&](const Hs& xs) { return api::unfold(xs[0], o); }, {rnd(Shape{2, 3, 5, 6}, 21)});
  // [N, C * kh * kw, L] for output 5 x 6 with these options: L = 5 * 2 blocks.
  gradcheck([&](const Hs& xs) { return api::fold(xs[0], {5, 6}, o); }, {rnd(Shape{2, 12, 10}, 22)});
  const UnfoldOptions o2{.kernel = {2}, .stride = {3}};  // blocks leave a gap: those elements get zeros
  gradcheck([&](const Hs& xs) { return api::unfold(xs[0], o2); }, {rnd(Shape{1, 2, 6, 7}, 23)});
  gradcheck([&](const Hs& xs) { return api::fold(xs[0], {6, 7}, o2); }, {rnd(Shape{1, 8, 4}, 24)});
}

// ---------------------------------------------------------------------------------------- pools

TEST(ModuleGrad, MaxPool) {
  gradcheck(
      [](const Hs& xs) {
        return api::max_pool(xs[0], {.kernel = {3}, .stride = {2}, .padding = {1}, .ceil_mode = true});
      },
      {rnd(Shape{2, 2, 5, 6}, 25)});
  gradcheck(
      [](const Hs& xs) {
        return api::max_pool(xs[0],
                             {.kernel = {2}, .stride = {1}, .padding = {1}, .padding_end = {0}, .dilation = {2}});
      },
      {rnd(Shape{2, 3, 7}, 26)});
  gradcheck([](const Hs& xs) { return api::max_pool(xs[0], {.kernel = {2, 2, 1}}); }, {rnd(Shape{1, 2, 4, 3, 2}, 27)});
}

TEST(ModuleGrad, MaxPoolWithIndices) {
  gradcheck(
      [](const Hs& xs) {
        return api::max_pool_with_indices(xs[0], {.kernel = {2, 3}, .stride = {2, 1}, .padding = {1, 1}}).first;
      },
      {rnd(Shape{1, 2, 5, 5}, 28)});
}

TEST(ModuleGrad, AvgPool) {
  gradcheck(
      [](const Hs& xs) {
        return api::avg_pool(
            xs[0], {.kernel = {3}, .stride = {2}, .padding = {1}, .ceil_mode = true, .count_include_pad = false});
      },
      {rnd(Shape{2, 2, 5, 6}, 29)});
  gradcheck(
      [](const Hs& xs) {
        return api::avg_pool(xs[0], {.kernel = {3}, .stride = {2}, .padding = {1}, .count_include_pad = true});
      },
      {rnd(Shape{2, 3, 8}, 30)});
  gradcheck(
      [](const Hs& xs) {
        return api::avg_pool(xs[0], {.kernel = {2, 1, 2}, .stride = {1}});
      },
      {rnd(Shape{1, 2, 3, 2, 4}, 31)});
}

TEST(ModuleGrad, AdaptivePools) {
  gradcheck([](const Hs& xs) { return api::adaptive_avg_pool(xs[0], {3, 4}); }, {rnd(Shape{2, 2, 5, 7}, 32)});
  gradcheck([](const Hs& xs) { return api::adaptive_avg_pool(xs[0], {4}); }, {rnd(Shape{1, 3, 9}, 33)});
  gradcheck([](const Hs& xs) { return api::adaptive_avg_pool(xs[0], {2, 3, 2}); }, {rnd(Shape{1, 1, 3, 4, 5}, 34)});
  gradcheck([](const Hs& xs) { return api::adaptive_max_pool(xs[0], {3, 2}).first; }, {rnd(Shape{2, 2, 5, 7}, 35)});
  gradcheck([](const Hs& xs) { return api::adaptive_max_pool(xs[0], {4}).first; }, {rnd(Shape{1, 2, 6}, 36)});
}

// ---------------------------------------------------------------------------------------- resampling

TEST(ModuleGrad, Interpolate) {
  using M = InterpolateMode;
  struct C {
    Shape x;
    std::vector<int64_t> out;
    InterpolateOptions o;
  };
  for (const C& c :
       {C{Shape{1, 2, 3, 4}, {5, 7}, {M::Nearest}}, C{Shape{1, 2, 5, 4}, {3, 2}, {M::Nearest}},
        C{Shape{2, 1, 5}, {8}, {M::Linear, false}}, C{Shape{2, 1, 5}, {3}, {M::Linear, true}},
        C{Shape{1, 2, 3, 4}, {5, 3}, {M::Linear, false}}, C{Shape{1, 2, 3, 4}, {5, 6}, {M::Linear, true}},
        C{Shape{1, 1, 2, 3, 2}, {3, 4, 3}, {M::Linear, false}}, C{Shape{1, 2, 4, 4}, {6, 3}, {M::Cubic, false}},
        C{Shape{1, 1, 4, 5}, {7, 6}, {M::Cubic, true}}, C{Shape{1, 2, 6}, {4}, {M::Cubic, false}}}) {
    SCOPED_TRACE(c.x.to_string() + " -> " + Shape(c.out).to_string() + " mode " + std::to_string(int(c.o.mode)) +
                 (c.o.align_corners ? " align_corners" : ""));
    gradcheck([&](const Hs& xs) { return api::interpolate(xs[0], c.out, c.o); }, {rnd(c.x, 37)});
  }
}

TEST(ModuleGrad, PixelShuffleAndUnshuffle) {
  gradcheck([](const Hs& xs) { return api::pixel_shuffle(xs[0], 2); }, {rnd(Shape{2, 8, 2, 3}, 38)});
  gradcheck([](const Hs& xs) { return api::pixel_shuffle(xs[0], 2); }, {rnd(Shape{2, 1, 4, 2, 2}, 39)});
  gradcheck([](const Hs& xs) { return api::pixel_unshuffle(xs[0], 2); }, {rnd(Shape{1, 2, 4, 6}, 40)});
  gradcheck([](const Hs& xs) { return api::pixel_unshuffle(xs[0], 3); }, {rnd(Shape{2, 1, 1, 3, 6}, 41)});
}

// ---------------------------------------------------------------------------------------- embedding

TEST(ModuleGrad, EmbeddingWithRepeatedIndices) {
  const Fn embed = [](const Hs& xs) { return api::embedding(xs[0], xs[1]); };
  gradcheck(embed, {rnd(Shape{5, 3}, 42), ints({0, 2, 2, 4, 0, 1}, Shape{2, 3})});
  gradcheck(embed, {rnd(Shape{4, 2}, 43), ints({3, 3, 3, 1}, Shape{4})});
}

// ---------------------------------------------------------------------------------------- norms

TEST(ModuleGrad, LayerNorm) {
  gradcheck([](const Hs& xs) { return api::layer_norm(xs[0], xs[1], xs[2], 1, 1e-5); },
            {rnd(Shape{2, 3, 4}, 44), rnd(Shape{4}, 45), rnd(Shape{4}, 46)});
  gradcheck([](const Hs& xs) { return api::layer_norm(xs[0], xs[1], xs[2], 2, 1e-3); },
            {rnd(Shape{2, 3, 4}, 47), rnd(Shape{3, 4}, 48), rnd(Shape{3, 4}, 49)});
  gradcheck([](const Hs& xs) { return api::layer_norm(xs[0], std::nullopt, std::nullopt, 1, 1e-5); },
            {rnd(Shape{3, 5}, 50)});
  // weight but no bias; and bias alone tracked
  gradcheck([](const Hs& xs) { return api::layer_norm(xs[0], xs[1], std::nullopt, 1, 1e-5); },
            {rnd(Shape{2, 2, 3}, 51), rnd(Shape{3}, 52)});
  gradcheck([](const Hs& xs) { return api::layer_norm(xs[0], xs[1], xs[2], 1, 1e-5); },
            {untracked(rnd(Shape{2, 3, 4}, 53)), untracked(rnd(Shape{4}, 54)), rnd(Shape{4}, 55)});
}

TEST(ModuleGrad, GroupNorm) {
  gradcheck([](const Hs& xs) { return api::group_norm(xs[0], xs[1], xs[2], 2, 1e-5); },
            {rnd(Shape{2, 4, 3, 2}, 56), rnd(Shape{4}, 57), rnd(Shape{4}, 58)});
  gradcheck([](const Hs& xs) { return api::group_norm(xs[0], std::nullopt, std::nullopt, 4, 1e-5); },
            {rnd(Shape{2, 4, 3}, 59)});
  gradcheck([](const Hs& xs) { return api::group_norm(xs[0], xs[1], xs[2], 3, 1e-5); },
            {rnd(Shape{3, 6}, 60), rnd(Shape{6}, 61), rnd(Shape{6}, 62)});
  gradcheck([](const Hs& xs) { return api::group_norm(xs[0], xs[1], xs[2], 1, 1e-5); },
            {untracked(rnd(Shape{2, 2, 3}, 63)), rnd(Shape{2}, 64), rnd(Shape{2}, 65)});
}

// Output 0 of batch_norm; the new running statistics are checked to be untracked.
H bn_out(const Hs& xs, api::OptH w, api::OptH b, api::OptH rm, api::OptH rv, bool training) {
  api::Hs r = api::batch_norm(xs[0], w, b, rm, rv, training, 0.1, 1e-5);
  for (size_t k = 1; k < r.size(); ++k)
    if (r[k].prim && api::is_require_grad(r[k])) ADD_FAILURE() << "running statistic " << k << " is tracked";
  return r[0];
}

TEST(ModuleGrad, BatchNormTraining) {
  // with running statistics (their new values are untracked outputs)
  gradcheck([](const Hs& xs) { return bn_out(xs, xs[1], xs[2], xs[3], xs[4], true); },
            {rnd(Shape{3, 2, 4}, 66), rnd(Shape{2}, 67), rnd(Shape{2}, 68), untracked(rnd(Shape{2}, 69)),
             untracked(rnd(Shape{2}, 70, 0.5, 2))});
  // without running statistics, weight or bias; rank 2 and rank 4 inputs
  gradcheck([](const Hs& xs) { return bn_out(xs, std::nullopt, std::nullopt, std::nullopt, std::nullopt, true); },
            {rnd(Shape{4, 3}, 71)});
  gradcheck([](const Hs& xs) { return bn_out(xs, xs[1], std::nullopt, std::nullopt, std::nullopt, true); },
            {rnd(Shape{2, 2, 2, 3}, 72), rnd(Shape{2}, 73)});
}

TEST(ModuleGrad, BatchNormInference) {
  // x, weight, bias, and the running statistics themselves
  gradcheck(
      [](const Hs& xs) { return bn_out(xs, xs[1], xs[2], xs[3], xs[4], false); },
      {rnd(Shape{3, 2, 4}, 74), rnd(Shape{2}, 75), rnd(Shape{2}, 76), rnd(Shape{2}, 77), rnd(Shape{2}, 78, 0.5, 2)});
  gradcheck([](const Hs& xs) { return bn_out(xs, std::nullopt, std::nullopt, xs[1], xs[2], false); },
            {rnd(Shape{2, 3}, 79), untracked(rnd(Shape{3}, 80)), rnd(Shape{3}, 81, 0.5, 2)});
  gradcheck([](const Hs& xs) { return bn_out(xs, xs[1], xs[2], xs[3], xs[4], false); },
            {untracked(rnd(Shape{2, 2, 3}, 82)), untracked(rnd(Shape{2}, 83)), rnd(Shape{2}, 84),
             untracked(rnd(Shape{2}, 85)), untracked(rnd(Shape{2}, 86, 0.5, 2))});
}

TEST(ModuleGrad, RmsNorm) {
  gradcheck([](const Hs& xs) { return api::rms_norm(xs[0], xs[1], 1, 1e-5); },
            {rnd(Shape{2, 3, 4}, 87), rnd(Shape{4}, 88)});
  gradcheck([](const Hs& xs) { return api::rms_norm(xs[0], std::nullopt, 2, 1e-3); }, {rnd(Shape{2, 3, 4}, 89)});
  gradcheck([](const Hs& xs) { return api::rms_norm(xs[0], xs[1], 2, 1e-5); },
            {untracked(rnd(Shape{2, 2, 3}, 90)), rnd(Shape{2, 3}, 91)});
}

// ---------------------------------------------------------------------------------------- attention

TEST(ModuleGrad, Attention) {
  const TensorData q = rnd(Shape{1, 2, 3, 4}, 92), k = rnd(Shape{1, 2, 5, 4}, 93), v = rnd(Shape{1, 2, 5, 3}, 94);
  gradcheck([](const Hs& xs) { return api::attention(xs[0], xs[1], xs[2], std::nullopt, {}); }, {q, k, v});
  gradcheck(
      [](const Hs& xs) { return api::attention(xs[0], xs[1], xs[2], std::nullopt, {.causal = true, .scale = 0.7}); },
      {q, k, v});
  // a broadcast mask (true = masked out) leaving every query row at least one key
  const TensorData mask = bools({false, true, false, true, true,   //
                                 true, false, false, false, true,  //
                                 false, false, true, true, false},
                                Shape{1, 3, 5});
  gradcheck([](const Hs& xs) { return api::attention(xs[0], xs[1], xs[2], xs[3], {.causal = true}); }, {q, k, v, mask});
  gradcheck(
      [](const Hs& xs) { return api::attention(xs[0], xs[1], xs[2], xs[3], {}); },
      {untracked(rnd(Shape{2, 1, 3, 2}, 95)), rnd(Shape{2, 1, 5, 2}, 96), untracked(rnd(Shape{2, 1, 5, 2}, 97)), mask});
}

// ---------------------------------------------------------------------------------------- behaviour

// Under balanced checkpointing the memory-bound ops' outputs are recomputed; gradcheck requires the
// same gradients as on the plain device, here through chains of recomputed ops.
TEST(ModuleGrad, BalancedCheckpointingGivesTheSameGradients) {
  gradcheck(
      [](const Hs& xs) {
        H y = api::unary(OpId::relu, api::conv(xs[0], xs[1], xs[2], {.padding = {1}}));
        y = api::max_pool(api::unary(OpId::tanh, y), {.kernel = {2}});
        y = api::layer_norm(api::unary(OpId::exp, y), xs[3], xs[4], 2, 1e-5);
        return api::interpolate(api::avg_pool(api::unary(OpId::sin, y), {.kernel = {1}}), {3, 3},
                                {InterpolateMode::Linear});
      },
      {rnd(Shape{1, 2, 4, 4}, 98), rnd(Shape{2, 2, 3, 3}, 99), rnd(Shape{2}, 100), rnd(Shape{2, 2}, 101),
       rnd(Shape{2, 2}, 102)});
  gradcheck(
      [](const Hs& xs) {
        return api::batch_norm(api::unary(OpId::sigmoid, xs[0]), xs[1], xs[2], std::nullopt, std::nullopt, true, 0.1,
                               1e-5)[0];
      },
      {rnd(Shape{3, 2, 2}, 103), rnd(Shape{2}, 104), rnd(Shape{2}, 105)});
}

// Norms without weight or bias, each read back by the op after it (sin keeps its input), so their
// outputs are recomputed from inputs that include absent (null) ones.
TEST(ModuleGrad, BalancedCheckpointingRecomputesOpsWithAbsentInputs) {
  gradcheck(
      [](const Hs& xs) {
        H y = api::unary(OpId::sin, api::layer_norm(xs[0], std::nullopt, std::nullopt, 1, 1e-5));
        y = api::unary(OpId::sin, api::group_norm(y, std::nullopt, xs[1], 2, 1e-5));
        y = api::unary(OpId::sin, api::rms_norm(y, std::nullopt, 2, 1e-5));
        return api::unary(
            OpId::sin, api::batch_norm(y, std::nullopt, std::nullopt, std::nullopt, std::nullopt, true, 0.1, 1e-5)[0]);
      },
      {rnd(Shape{2, 4, 3}, 106), rnd(Shape{4}, 107)});
}

TEST(ModuleGrad, UntrackedInputsStayUntracked) {
  const H x = on(plain(), rnd(Shape{1, 1, 4, 4}, 108));
  const H w = on(plain(), rnd(Shape{1, 1, 2, 2}, 109));
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
  const TensorData xd = rnd(Shape{1, 4, 4, 4}, 110);
  const std::vector<double> xv = xd.to_vec<double>();
  // c per element, as fold(unfold(ones)) (1 for the shuffles)
  const TensorData ones = TensorData::from_vector(std::vector<double>(64, 1.0), Shape{1, 4, 4, 4});
  const std::vector<double> c = host(api::fold(api::unfold(on(Device::get("cpu"), ones), o), {4, 4}, o));
  const std::vector<std::function<H(const H&)>> ops{[](const H& x) { return api::pixel_shuffle(x, 2); },
                                                    [](const H& x) { return api::pixel_unshuffle(x, 2); },
                                                    [&](const H& x) { return api::unfold(x, o); }};
  for (size_t k = 0; k < ops.size(); ++k) {
    SCOPED_TRACE(k);
    const H x = api::set_require_grad(on(plain(), xd), true);
    const H y = ops[k](x);
    Gradients g1 = api::backward(api::reduce_all(OpId::sum, api::mul(y, y)), {.create_graph = true});
    const H gx = *api::grad(x, g1);
    ASSERT_TRUE(api::is_require_grad(gx));
    const std::vector<double> first = host(gx),
                              second = host(*api::grad(x, api::backward(api::reduce_all(OpId::sum, gx), {})));
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
  const H x = on(plain(), rnd(Shape{1, 1, 4, 4}, 111));
  const H w = api::set_require_grad(on(plain(), rnd(Shape{1, 1, 2, 2}, 112)), true);
  const H loss = api::reduce_all(OpId::sum, api::conv(x, w, std::nullopt, {}));
  EXPECT_THROW(api::backward(loss, {.create_graph = true}), Unsupported);
}

}  // namespace
}  // namespace burn::gradcheck
