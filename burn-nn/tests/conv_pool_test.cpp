// Conv and pool layers against PyTorch (fixtures/conv_pool.json from gen_fixtures_conv_pool.py):
// forward on cpu, forward and backward (input and parameter gradients) on autodiff<cpu>, configs,
// default init, and the errors of wrong inputs and configs.
#include <gtest/gtest.h>

#include <cmath>

#include "layer_check.hpp"

using namespace burn;
using burn::test::ad;
using burn::test::cpu;
using burn::test::error_of;

namespace {

const nlohmann::json& cases() { return burn::test::fixture("conv_pool.json"); }

template <size_t DI, size_t DO = DI, class Cfg>
void check(const char* name, const Cfg& cfg) {
  burn::test::check_config<DI, DO>(cases()[name], name, cfg);
}

void expect_close_tensors(const Tensor<4>& a, const Tensor<4>& b) {
  const std::vector<float> va = a.to_vec<float>(), vb = b.to_vec<float>();
  ASSERT_EQ(va.size(), vb.size());
  for (size_t i = 0; i < va.size(); ++i) EXPECT_NEAR(va[i], vb[i], 1e-6) << i;
}

nn::PaddingConfig pad(std::vector<int64_t> start, std::vector<int64_t> end = {}) {
  return nn::PaddingConfig::explicit_padding(std::move(start), std::move(end));
}

}  // namespace

TEST(Conv, Conv1dMatchesPyTorch) {
  check<3>("conv1d",
           nn::Conv1dConfig{
               .channels_in = 4, .channels_out = 6, .kernel_size = 3, .stride = 2, .groups = 2, .padding = pad({1})});
  check<3>("conv1d_same", nn::Conv1dConfig{.channels_in = 3,
                                           .channels_out = 2,
                                           .kernel_size = 4,
                                           .dilation = 2,
                                           .padding = nn::PaddingConfig::same(),
                                           .bias = false});
}

TEST(Conv, Conv2dMatchesPyTorch) {
  check<4>(
      "conv2d",
      nn::Conv2dConfig{
          .channels = {3, 4}, .kernel_size = {3, 2}, .stride = {2, 1}, .dilation = {1, 2}, .padding = pad({1, 0})});
  check<4>("conv2d_same_stride2",
           nn::Conv2dConfig{
               .channels = {2, 3}, .kernel_size = {3, 3}, .stride = {2, 2}, .padding = nn::PaddingConfig::same()});
  check<4>(
      "conv2d_depthwise_same",
      nn::Conv2dConfig{.channels = {4, 8}, .kernel_size = {3, 3}, .groups = 4, .padding = nn::PaddingConfig::same()});
}

TEST(Conv, Conv3dMatchesPyTorch) {
  check<5>("conv3d", nn::Conv3dConfig{
                         .channels = {2, 4}, .kernel_size = {2, 3, 2}, .stride = {1, 2, 1}, .padding = pad({1, 1, 0})});
}

TEST(Conv, ConvTransposeMatchesPyTorch) {
  check<3>("conv_transpose1d",
           nn::ConvTranspose1dConfig{
               .channels = {4, 6}, .kernel_size = 3, .stride = 2, .groups = 2, .padding = 1, .padding_out = 1});
  check<4>("conv_transpose2d", nn::ConvTranspose2dConfig{.channels = {3, 4},
                                                         .kernel_size = {3, 2},
                                                         .stride = {2, 3},
                                                         .dilation = {1, 2},
                                                         .padding = {1, 0},
                                                         .padding_out = {1, 2}});
  check<5>("conv_transpose3d", nn::ConvTranspose3dConfig{.channels = {2, 2},
                                                         .kernel_size = {2, 2, 3},
                                                         .stride = {2, 2, 2},
                                                         .padding = {0, 1, 1},
                                                         .padding_out = {1, 0, 1},
                                                         .bias = false});
}

TEST(Conv, UnfoldFoldAndPixelShuffleMatchPyTorch) {
  check<4, 3>("unfold4d", nn::Unfold4dConfig{.kernel_size = {2, 3}, .stride = {2, 1}, .padding = {1, 0}});
  check<3, 4>("fold4d",
              nn::Fold4dConfig{.output_size = {6, 5}, .kernel_size = {2, 3}, .stride = {2, 1}, .padding = {1, 0}});
  check<4>("pixel_shuffle", nn::PixelShuffleConfig{2});
  check<4>("pixel_unshuffle", nn::PixelUnshuffleConfig{2});
}

TEST(Pool, MaxPoolMatchesPyTorch) {
  check<3>("max_pool1d",
           nn::MaxPool1dConfig{.kernel_size = 3, .stride = 2, .padding = pad({1}), .dilation = 2, .ceil_mode = true});
  check<4>("max_pool2d", nn::MaxPool2dConfig{.kernel_size = {3, 2}, .padding = pad({1, 1})});  // stride = kernel
  check<4>("max_pool2d_same",
           nn::MaxPool2dConfig{.kernel_size = {3, 3}, .strides = {1, 1}, .padding = nn::PaddingConfig::same()});
  check<5>("max_pool3d", nn::MaxPool3dConfig{.kernel_size = {2, 2, 2}, .strides = {2, 1, 2}, .ceil_mode = true});
}

TEST(Pool, AvgPoolMatchesPyTorch) {
  check<3>("avg_pool1d",
           nn::AvgPool1dConfig{
               .kernel_size = 3, .stride = 2, .padding = pad({1}), .count_include_pad = false, .ceil_mode = true});
  check<4>("avg_pool2d", nn::AvgPool2dConfig{.kernel_size = {3, 2}, .strides = {2, 2}, .padding = pad({1, 1})});
  check<4>("avg_pool2d_same_even",
           nn::AvgPool2dConfig{.kernel_size = {2, 2}, .strides = {1, 1}, .padding = nn::PaddingConfig::same()});
  check<5>("avg_pool3d",
           nn::AvgPool3dConfig{
               .kernel_size = {2, 3, 2}, .strides = {1, 1, 1}, .padding = pad({1, 1, 0}), .count_include_pad = false});
}

TEST(Pool, AdaptivePoolsMatchPyTorch) {
  check<3>("adaptive_avg_pool1d", nn::AdaptiveAvgPool1dConfig{4});
  check<4>("adaptive_avg_pool2d", nn::AdaptiveAvgPool2dConfig{{3, 4}});
  check<5>("adaptive_avg_pool3d", nn::AdaptiveAvgPool3dConfig{{2, 3, 4}});
  check<3>("adaptive_max_pool1d", nn::AdaptiveMaxPool1dConfig{3});
  check<4>("adaptive_max_pool2d", nn::AdaptiveMaxPool2dConfig{{2, 3}});
}

// PyTorch's default: U(-b, b), b = 1/sqrt(fan_in), fan_in = C_in / groups * prod(k) (transposed: C_out / groups).
TEST(Conv, DefaultInitIsPyTorchs) {
  cpu().seed(7);
  auto expect_uniform = [](const Tensor<1>& v, double bound, const char* what) {
    const std::vector<float> w = v.to_vec<float>();
    double lo = 1e9, hi = -1e9, sq = 0;
    for (float x : w) lo = std::min(lo, double(x)), hi = std::max(hi, double(x)), sq += double(x) * x;
    EXPECT_GE(lo, -bound) << what;
    EXPECT_LE(hi, bound) << what;
    if (w.size() < 1000) return;  // too few for the moments
    EXPECT_GT(hi, 0.99 * bound) << what;
    EXPECT_NEAR(sq / w.size(), bound * bound / 3, 0.05 * bound * bound / 3) << what;
  };
  nn::Conv2d c = nn::Conv2dConfig{.channels = {16, 64}, .kernel_size = {3, 3}, .groups = 2}.init(cpu());
  EXPECT_EQ(c.weight.shape(), (Shape{64, 8, 3, 3}));
  expect_uniform(c.weight.val().flatten<1>(0, 3), 1 / std::sqrt(8.0 * 9), "conv2d weight");
  expect_uniform(c.bias->val(), 1 / std::sqrt(8.0 * 9), "conv2d bias");
  nn::ConvTranspose1d t = nn::ConvTranspose1dConfig{.channels = {32, 48}, .kernel_size = 5, .groups = 4}.init(cpu());
  EXPECT_EQ(t.weight.shape(), (Shape{32, 12, 5}));
  expect_uniform(t.weight.val().flatten<1>(0, 2), 1 / std::sqrt(12.0 * 5), "conv_transpose1d weight");
  EXPECT_EQ(t.bias->shape(), (Shape{48}));
}

TEST(Conv, ConfigsRoundTripAsJson) {
  nn::Conv2dConfig c{.channels = {3, 8},
                     .kernel_size = {3, 5},
                     .stride = {2, 1},
                     .groups = 1,
                     .padding = pad({1, 2}, {0, 3}),
                     .bias = false};
  const nn::Conv2dConfig back = nn::Conv2dConfig::from_json(c.to_json());
  EXPECT_EQ(back.channels, c.channels);
  EXPECT_EQ(back.kernel_size, c.kernel_size);
  EXPECT_EQ(back.stride, c.stride);
  EXPECT_EQ(back.padding, c.padding);
  EXPECT_FALSE(back.bias);
  EXPECT_EQ(nn::MaxPool2dConfig::from_json(R"({"kernel_size": [2, 2], "padding": {"kind": "same"}})").padding,
            nn::PaddingConfig::same());
  EXPECT_THROW(nn::MaxPool2dConfig::from_json(R"({"kernel_size": [2, 2], "padding": {"kind": "full"}})"), ValueError);
  // Burn's default stride of a pool is its kernel.
  EXPECT_EQ((nn::MaxPool2dConfig{.kernel_size = {3, 2}}.init().stride), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(nn::AvgPool1dConfig{.kernel_size = 4}.init().stride, (std::vector<int64_t>{4}));
}

TEST(Conv, DisplayShowsTheSettings) {
  nn::Conv2d c =
      nn::Conv2dConfig{.channels = {3, 8}, .kernel_size = {3, 3}, .padding = nn::PaddingConfig::same()}.init(cpu());
  EXPECT_EQ(c.extra_repr(),
            "channels=[3, 8], kernel_size=[3, 3], stride=[1, 1], dilation=[1, 1], groups=1, padding=same, bias=true");
  EXPECT_EQ(nn::MaxPool1dConfig{.kernel_size = 2}.init().extra_repr(),
            "kernel_size=[2], stride=[2], padding=valid, ceil_mode=false, dilation=[1]");
}

TEST(Conv, WrongInputsAreShapeErrorsNamingTheLayer) {
  nn::Conv2d c = nn::Conv2dConfig{.channels = {3, 8}, .kernel_size = {3, 3}}.init(cpu());
  std::string m = error_of<ShapeError>([&] { c.forward(Tensor<4>::zeros({1, 4, 8, 8}, cpu())); });
  EXPECT_NE(m.find("Conv2d"), std::string::npos) << m;
  EXPECT_NE(m.find("[1, 4, 8, 8]"), std::string::npos) << m;
  EXPECT_NE(m.find("expected 3"), std::string::npos) << m;
  nn::ConvTranspose1d t = nn::ConvTranspose1dConfig{.channels = {2, 4}, .kernel_size = 3}.init(cpu());
  m = error_of<ShapeError>([&] { t.forward(Tensor<3>::zeros({1, 3, 5}, cpu())); });
  EXPECT_NE(m.find("ConvTranspose1d"), std::string::npos) << m;
  m = error_of<ShapeError>([&] { c.forward(Tensor<4>::zeros({1, 3, 2, 8}, cpu())); });
  EXPECT_NE(m.find("Conv2d"), std::string::npos) << m;
  EXPECT_NE(m.find("smaller than the kernel [3, 3]"), std::string::npos) << m;
  m = error_of<ShapeError>([] {
    nn::AvgPool1dConfig{.kernel_size = 4}.init().forward(Tensor<3>::zeros({1, 2, 3}, cpu()));
  });
  EXPECT_NE(m.find("AvgPool1d"), std::string::npos) << m;
  nn::MaxPool2d p = nn::MaxPool2dConfig{.kernel_size = {2, 2}, .padding = pad({1, 2, 3})}.init();
  m = error_of<ValueError>([&] { p.forward(Tensor<4>::zeros({1, 1, 4, 4}, cpu())); });
  EXPECT_NE(m.find("MaxPool2d"), std::string::npos) << m;
  EXPECT_NE(m.find("[1, 2, 3]"), std::string::npos) << m;
}

TEST(Conv, BadConfigsAreValueErrors) {
  std::string m = error_of<ValueError>([] {
    nn::Conv2dConfig{.channels = {3, 8}, .kernel_size = {3, 3}, .groups = 2}.init(cpu());
  });
  EXPECT_NE(m.find("Conv2dConfig::init"), std::string::npos) << m;
  EXPECT_NE(m.find("groups 2"), std::string::npos) << m;
  m = error_of<ValueError>([] { nn::Conv1dConfig{.channels_in = 1, .channels_out = 1, .kernel_size = 0}.init(cpu()); });
  EXPECT_NE(m.find("kernel_size"), std::string::npos) << m;
  m = error_of<ValueError>([] {
    nn::ConvTranspose2dConfig{.channels = {2, 2}, .kernel_size = {3, 3}, .stride = {2, 2}, .padding_out = {2, 0}}.init(
        cpu());
  });
  EXPECT_NE(m.find("padding_out"), std::string::npos) << m;
  EXPECT_THROW(nn::MaxPool1dConfig{.kernel_size = 0}.init(), ValueError);
  EXPECT_THROW(nn::PixelShuffleConfig{0}.init(), ValueError);
  EXPECT_THROW((nn::AdaptiveAvgPool2dConfig{{0, 2}}.init()), ValueError);
}

namespace {
// A small CNN of the new layers, as a user writes one.
struct SmallCnn {
  nn::Conv2d conv;
  nn::BatchNorm norm;
  nn::Relu act;
  nn::MaxPool2d pool;
  nn::AdaptiveAvgPool2d gap;
  BURN_MODULE(conv, norm, act, pool, gap)
  Tensor<4> forward(const Tensor<4>& x) const {
    return gap.forward(pool.forward(act.forward(norm.forward(conv.forward(x)))));
  }
};

SmallCnn small_cnn(const Device& d) {
  return SmallCnn{
      nn::Conv2dConfig{.channels = {3, 4}, .kernel_size = {3, 3}, .padding = nn::PaddingConfig::same()}.init(d),
      nn::BatchNormConfig{4}.init(d), nn::Relu{}, nn::MaxPool2dConfig{.kernel_size = {2, 2}}.init(),
      nn::AdaptiveAvgPool2dConfig{{1, 1}}.init()};
}
}  // namespace

// Parameter paths, counts, display, a training step that moves the running statistics, and a record
// round trip that keeps them (buffers are saved).
TEST(Layers, ComposeIntoAModuleThatSavesAndLoads) {
  ad().seed(11);
  SmallCnn m = small_cnn(ad());
  std::vector<std::string> paths;
  for (const nn::NamedParam& p : nn::named_params(m)) paths.push_back(p.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"conv.weight", "conv.bias", "norm.gamma", "norm.beta", "norm.running_mean",
                                             "norm.running_var"}));
  EXPECT_EQ(m.num_params(), 4 * 3 * 9 + 4 + 4 + 4);
  const std::string shown = m.display();
  EXPECT_NE(shown.find("channels=[3, 4], kernel_size=[3, 3]"), std::string::npos) << shown;
  EXPECT_NE(shown.find("MaxPool2d"), std::string::npos) << shown;
  const Tensor<4> x = Tensor<4>::random({2, 3, 6, 6}, Distribution::normal(1.0, 2.0), ad());
  const Tensor<4> y = m.forward(x);
  EXPECT_EQ(y.shape(), (Shape{2, 4, 1, 1}));
  const std::vector<float> moved = m.norm.running_mean.val().to_vec<float>();
  EXPECT_NE(moved, std::vector<float>(4, 0.0f));  // training moved the running mean
  const record::Record rec = m.into_record();
  SmallCnn other = small_cnn(cpu());
  EXPECT_TRUE(other.load_record(rec).ok());
  EXPECT_EQ(other.norm.running_mean.val().to_vec<float>(), moved);
  // Eval: the loaded model on cpu equals the trained one made valid().
  const Tensor<4> xe = Tensor<4>::random({1, 3, 6, 6}, Distribution::normal(0.0, 1.0), cpu());
  expect_close_tensors(other.forward(xe), m.valid().forward(xe));
}
