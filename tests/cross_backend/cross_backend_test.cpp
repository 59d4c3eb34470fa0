// Training agrees across backends: a small MLP (SGD with momentum) and a small conv net (Adam) start from
// the same weights and take the same steps on the same batch on autodiff<cpu>, autodiff<vulkan> and
// autodiff<opencl>; the parameters after the steps must match cpu's within kAtol + kRtol * |cpu| per
// element. A backend without a usable device is skipped with the plugin's reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <burn/nn.hpp>
#include <burn/nn/loss.hpp>
#include <burn/optim.hpp>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace burn;

// The backends sum convolutions, matmuls and reductions in other orders: f32 rounding noise, grown a little by
// the steps (measured worst parameter difference: lavapipe 1.5e-8 MLP, 1.4e-7 conv net; PoCL 3e-8, 1.9e-7).
constexpr double kAtol = 1e-6;
constexpr double kRtol = 1e-5;
constexpr int kSteps = 5;

// 16-32-32-4, ReLU.
struct Mlp {
  nn::Linear fc1, fc2, fc3;
  BURN_MODULE(fc1, fc2, fc3)
  Tensor<2> forward(const Tensor<2>& x) const { return fc3.forward(fc2.forward(fc1.forward(x).relu()).relu()); }
};

// conv 3x3 2->4, max pool 2, conv 3x3 4->8 (both padded), 128-3 on 8x8 inputs.
struct ConvNet {
  nn::Conv2d conv1, conv2;
  nn::MaxPool2d pool;
  nn::Linear fc;
  BURN_MODULE(conv1, conv2, pool, fc)
  Tensor<2> forward(const Tensor<4>& x) const {
    const Tensor<4> h = conv2.forward(pool.forward(conv1.forward(x).relu())).relu();
    return fc.forward(h.flatten<2>(1, 3));
  }
};

Mlp make_mlp(const Device& d) {
  return {nn::LinearConfig{16, 32}.init(d), nn::LinearConfig{32, 32}.init(d), nn::LinearConfig{32, 4}.init(d)};
}

ConvNet make_conv_net(const Device& d) {
  auto conv = [&](int64_t in, int64_t out) {
    return nn::Conv2dConfig{.channels = {in, out}, .kernel_size = {3, 3}, .padding = nn::PaddingConfig::same()}.init(d);
  };
  return {conv(2, 4), conv(4, 8), nn::MaxPool2dConfig{.kernel_size = {2, 2}}.init(), nn::LinearConfig{128, 3}.init(d)};
}

std::vector<float> uniform(size_t n, float bound, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-bound, bound);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// Every parameter from a seeded host generator (uniform in +-1/sqrt(fan in)), the same on every device.
template <class M>
void set_seeded_weights(M& model, const Device& d) {
  uint64_t seed = 1;
  int64_t fan_in = 1;  // a bias takes its layer's, the weight before it
  for (const nn::NamedParam& np : nn::named_params(model)) {
    const Shape s = np.param->shape();
    if (s.rank() == 2) fan_in = s[0];                    // Linear [in, out]
    if (s.rank() > 2) fan_in = s.num_elements() / s[0];  // conv [out, in, kh, kw]
    const auto v = uniform(static_cast<size_t>(s.num_elements()), 1.0f / std::sqrt(static_cast<float>(fan_in)), seed++);
    np.param->set_handle(api::from_data(d, TensorData::from_vector(v, s), Kind::Float));
  }
}

// The parameters by path, as f64 values read back from the device.
template <class M>
std::map<std::string, std::vector<double>> params_of(M& model) {
  std::map<std::string, std::vector<double>> out;
  for (const nn::NamedParam& np : nn::named_params(model))
    out[np.path] = api::into_data(np.param->handle()).convert(DType::F64).template to_vec<double>();
  return out;
}

struct Batch {
  TensorData x;
  std::vector<int64_t> y;
};

// One batch of `batch` inputs of shape `item` and class labels below `classes`, taken at every step (the
// loss must fall as the model fits it).
Batch batch_of(int64_t batch, std::vector<int64_t> item, int64_t classes, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> label(0, classes - 1);
  item.insert(item.begin(), batch);
  const Shape shape(item);
  Batch b{TensorData::from_vector(uniform(static_cast<size_t>(shape.num_elements()), 1.0f, rng()), shape), {}};
  for (int64_t i = 0; i < batch; ++i) b.y.push_back(label(rng));
  return b;
}

struct Trained {
  std::map<std::string, std::vector<double>> params;
  std::vector<double> losses;
};

// kSteps steps of `opt` with cross-entropy on `d`, from the seeded weights.
template <class M, size_t D>
Trained train(M model, const Device& d, const Batch& b, optim::Optimizer opt, double lr) {
  set_seeded_weights(model, d);
  const nn::loss::CrossEntropyLoss loss = nn::loss::CrossEntropyLossConfig{}.init(d);
  Trained t;
  for (int s = 0; s < kSteps; ++s) {
    const auto x = Tensor<D>::from_data(b.x, d);
    const auto y = Tensor<1, Int>::from_vector(b.y, Shape{static_cast<int64_t>(b.y.size())}, d);
    const Tensor<1> l = loss.forward(model.forward(x), y);
    t.losses.push_back(l.template item<double>());
    Gradients grads = l.backward();
    model = opt.step(lr, model, optim::GradientsParams::from_grads(grads, model));
  }
  for (const nn::NamedParam& np : nn::named_params(model))
    EXPECT_EQ(np.param->handle().device, d) << np.path << " was not trained on " << d.name();
  t.params = params_of(model);
  return t;
}

// The device of `spec`, or the reason it cannot run here.
std::optional<Device> device_or(const std::string& spec, std::string& why) {
  try {
    return Device::get(spec);
  } catch (const std::exception& e) {
    why = e.what();
    return std::nullopt;
  }
}

const Batch& mlp_data() {
  static const Batch b = batch_of(8, {16}, 4, 21);
  return b;
}
const Batch& conv_data() {
  static const Batch b = batch_of(4, {2, 8, 8}, 3, 22);
  return b;
}

Trained train_mlp(const Device& d) {
  return train<Mlp, 2>(make_mlp(d), d, mlp_data(), optim::SgdConfig{.momentum = 0.9}.init(), 0.05);
}
Trained train_conv_net(const Device& d) {
  return train<ConvNet, 4>(make_conv_net(d), d, conv_data(), optim::AdamConfig{}.init(), 1e-2);
}

// The gpu run against cpu's, parameter by parameter; cpu's must have moved (a step that did nothing would
// agree everywhere).
void expect_same_training(const Trained& gpu, const Trained& cpu,
                          const std::map<std::string, std::vector<double>>& init, const std::string& spec) {
  ASSERT_EQ(gpu.params.size(), cpu.params.size());
  double worst = 0, moved = 0;
  for (const auto& [path, want] : cpu.params) {
    const std::vector<double>& got = gpu.params.at(path);
    ASSERT_EQ(got.size(), want.size()) << path;
    size_t bad = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      const double e = std::abs(got[i] - want[i]);
      worst = std::max(worst, e);
      moved = std::max(moved, std::abs(want[i] - init.at(path)[i]));
      if (!(e <= kAtol + kRtol * std::abs(want[i]))) {
        if (++bad <= 3)
          ADD_FAILURE() << path << "[" << i << "]: " << spec << " " << got[i] << ", cpu " << want[i] << " (|diff| " << e
                        << " over " << kAtol << " + " << kRtol << " * |cpu|)";
      }
    }
    EXPECT_EQ(bad, 0u) << path << ": " << bad << " of " << want.size() << " elements differ";
  }
  for (size_t s = 0; s < cpu.losses.size(); ++s)
    EXPECT_NEAR(gpu.losses[s], cpu.losses[s], kAtol + kRtol * std::abs(cpu.losses[s])) << "loss at step " << s;
  EXPECT_GT(moved, 1e-3) << "the steps did not move the parameters";
  EXPECT_LT(cpu.losses.back(), cpu.losses.front()) << "the loss did not fall";
  std::printf("%s: %d steps, largest |%s - cpu| parameter difference %.3g (largest move from the start %.3g)\n",
              spec.c_str(), kSteps, spec.c_str(), worst, moved);
}

template <class M>
std::map<std::string, std::vector<double>> initial(M model) {
  set_seeded_weights(model, Device::get("cpu"));
  return params_of(model);
}

class TrainingAcrossBackends : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string why;
    device_ = device_or(GetParam(), why);
    if (!device_) GTEST_SKIP() << GetParam() << " cannot run here: " << why;
  }
  std::optional<Device> device_;
};

TEST_P(TrainingAcrossBackends, MlpWithSgdEndsWithTheParametersOfCpu) {
  static const Trained cpu = train_mlp(Device::get("autodiff<cpu>"));
  expect_same_training(train_mlp(*device_), cpu, initial(make_mlp(Device::get("cpu"))), GetParam());
}

TEST_P(TrainingAcrossBackends, ConvNetWithAdamEndsWithTheParametersOfCpu) {
  static const Trained cpu = train_conv_net(Device::get("autodiff<cpu>"));
  expect_same_training(train_conv_net(*device_), cpu, initial(make_conv_net(Device::get("cpu"))), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Backends, TrainingAcrossBackends, testing::Values("autodiff<vulkan>", "autodiff<opencl>"),
                         [](const testing::TestParamInfo<std::string>& p) {
                           return p.param.substr(9, p.param.size() - 10);  // autodiff<X> -> X
                         });

}  // namespace
