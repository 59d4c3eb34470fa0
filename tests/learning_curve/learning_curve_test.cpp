// Is the gap between burn-cpp's and PyTorch's Fashion-MNIST accuracy after one epoch seed noise or a
// real difference? The epoch benchmark's MLP and CNN (bench/nn_models.hpp) start from the weights
// gen_fixture.py gives PyTorch (a formula, no file) and train on the same first batches of the
// training set with Adam; the loss of every step must match PyTorch's, and so must the test
// predictions after the steps.
#include <gtest/gtest.h>

#include <burn/data/mnist.hpp>
#include <burn/data/rng.hpp>
#include <burn/nn/loss.hpp>
#include <burn/optim.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "train_step.hpp"

namespace {

using namespace burn;

constexpr float kMean = 0.2860f, kStd = 0.3530f;

// gen_fixture.py's formula: element k of parameter `number` in PyTorch's row-major layout.
float formula(uint64_t number, uint64_t k, int64_t fan_in) {
  const double u = static_cast<double>(data::splitmix64((number << 32) | k) >> 11) * 0x1p-53;
  return static_cast<float>((2.0 * u - 1.0) / std::sqrt(static_cast<double>(fan_in)));
}

// Sets every weight and bias in module order (layer i: weight 2i, bias 2i + 1). A Linear weight is
// [in, out] here and [out, in] in PyTorch; a conv weight has PyTorch's layout.
template <class M>
void set_formula_weights(M& model, const Device& d) {
  uint64_t layer = 0;
  int64_t fan_in = 0;
  for (const nn::NamedParam& np : nn::named_params(model)) {
    const Shape s = np.param->shape();
    std::vector<float> v(static_cast<size_t>(s.num_elements()));
    const bool weight = np.path.ends_with(".weight");
    ASSERT_TRUE(weight || np.path.ends_with(".bias")) << np.path;
    if (weight && s.rank() == 2) {  // Linear [in, out]
      fan_in = s[0];
      for (int64_t i = 0; i < s[0]; ++i)
        for (int64_t o = 0; o < s[1]; ++o)
          v[static_cast<size_t>(i * s[1] + o)] = formula(2 * layer, static_cast<uint64_t>(o * s[0] + i), fan_in);
    } else if (weight) {  // Conv [out, in, kh, kw]
      fan_in = s.num_elements() / s[0];
      for (int64_t k = 0; k < s.num_elements(); ++k) v[static_cast<size_t>(k)] = formula(2 * layer, k, fan_in);
    } else {
      for (int64_t k = 0; k < s.num_elements(); ++k) v[static_cast<size_t>(k)] = formula(2 * layer + 1, k, fan_in);
      ++layer;
    }
    np.param->set_handle(api::from_data(d, TensorData::from_vector(v, s), Kind::Float));
  }
}

using bench::as_input;

data::MnistBatch first_items(const data::MnistDataset& set, size_t begin, size_t count, const Device& d) {
  std::vector<data::MnistItem> items;
  for (size_t i = begin; i < begin + count; ++i) items.push_back(*set.get(i));
  return data::MnistBatcher(d, kMean, kStd).batch(std::move(items));
}

bool have_fashion_mnist() {
  return std::filesystem::exists(data::MnistDataset::fashion_mnist_dir() + "/train-labels-idx1-ubyte.gz");
}

class LearningCurve : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_fashion_mnist())
      GTEST_SKIP() << "dataset-fashion-mnist not installed (" << data::MnistDataset::fashion_mnist_dir() << ")";
    std::ifstream f(BURN_LEARNING_CURVE_FIXTURE);
    fixture_ = nlohmann::json::parse(f);
  }

  // Trains `model` as gen_fixture.py trains PyTorch's and compares each step's loss and the test
  // predictions: within `rtol` for the first `close_steps` steps, within `later_rtol` after them.
  template <class M>
  void check(M model, const std::string& kind, size_t close_steps, double rtol, double later_rtol) {
    const nlohmann::json& c = fixture_[kind];
    const Device ad = Device::get("autodiff<cpu>");
    set_formula_weights(model, ad);
    const size_t batch = fixture_["batch_size"].get<size_t>();
    const auto train = data::MnistDataset::train();
    optim::Optimizer opt = optim::AdamConfig{.epsilon = fixture_["epsilon"].get<double>()}.init();
    const nn::loss::CrossEntropyLoss loss = nn::loss::CrossEntropyLossConfig{}.init(ad);
    const std::vector<double> expected = c["losses"].get<std::vector<double>>();
    double worst = 0;
    for (size_t s = 0; s < expected.size(); ++s) {
      const data::MnistBatch b = first_items(train, s * batch, batch, ad);
      // The benchmark's f32 step: its loss is the one before the update, as PyTorch's fixture records it.
      const double got =
          bench::train_step(model, b.images, b.targets, opt, loss, fixture_["lr"].get<double>(), std::nullopt, nullptr)
              .loss.template item<double>();
      const double rel = std::abs(got - expected[s]) / std::abs(expected[s]);
      worst = std::max(worst, rel);
      EXPECT_LE(rel, s < close_steps ? rtol : later_rtol)
          << kind << " step " << s << ": burn " << got << ", PyTorch " << expected[s];
    }
    const M eval = nn::valid(model);
    const Device cpu = Device::get("cpu");
    const data::MnistBatch t = first_items(data::MnistDataset::test(), 0, fixture_["test_items"].get<size_t>(), cpu);
    const auto pred =
        eval.forward(as_input(eval, t.images)).argmax(1).template squeeze<1>(1).template to_vec<int64_t>();
    const auto truth = t.targets.to_vec<int64_t>();
    int64_t right = 0;
    for (size_t i = 0; i < pred.size(); ++i) right += pred[i] == truth[i];
    // A prediction whose two best logits are closer than the float noise may flip; one in a thousand.
    EXPECT_NEAR(right, c["test_right"].get<int64_t>(), 1) << kind;
    std::printf("%s: %zu steps, largest relative loss difference %.3g; %lld of %zu test items right (PyTorch %lld)\n",
                kind.c_str(), expected.size(), worst, static_cast<long long>(right), pred.size(),
                static_cast<long long>(c["test_right"].get<int64_t>()));
  }

  nlohmann::json fixture_;
};

TEST_F(LearningCurve, MlpLossMatchesPyTorchAtEveryStep) {
  check(bench::make_mlp(Device::get("autodiff<cpu>")), "mlp", 60, 1e-5, 1e-5);
}

TEST_F(LearningCurve, CnnLossMatchesPyTorchAtEveryStep) {
  // Float noise (1e-7) until about step 14; then Adam, which steps every parameter by about lr
  // whatever its gradient's size, turns the rounding noise of a near-zero gradient into lr-sized moves
  // and the curves drift apart (1e-4 at step 15, 1e-3 at step 26 in the measured run).
  check(bench::make_small_cnn(Device::get("autodiff<cpu>")), "cnn", 12, 1e-5, 1e-2);
}

// The epoch benchmark's step under --autocast (bench/train_step.hpp) on the CNN, 24 steps of 32 images
// from the same weights and batches as an f32 run: the model's output is bf16 (f16) at every step, so
// the convolutions and linear layers ran in it; the parameters stay f32; the loss is finite and falls as
// the f32 run's does.
std::vector<double> cnn_curve(std::optional<DType> autocast) {
  constexpr size_t kSteps = 24, kBatch = 32;
  const Device ad = Device::get("autodiff<cpu>");
  ad.seed(1);
  bench::SmallCnn model = bench::make_small_cnn(ad);
  const auto train = data::MnistDataset::train();
  optim::Optimizer opt = optim::AdamConfig{.epsilon = 1e-8}.init();
  const nn::loss::CrossEntropyLoss loss = nn::loss::CrossEntropyLossConfig{}.init(ad);
  std::optional<optim::GradScaler> scaler;
  if (autocast == DType::F16) scaler.emplace();
  std::vector<double> losses;
  for (size_t s = 0; s < kSteps; ++s) {
    const data::MnistBatch b = first_items(train, s * kBatch, kBatch, ad);
    const bench::StepResult r =
        bench::train_step(model, b.images, b.targets, opt, loss, 1e-3, autocast, scaler ? &*scaler : nullptr);
    EXPECT_EQ(r.logits_dtype, autocast.value_or(DType::F32)) << "step " << s;
    EXPECT_EQ(r.loss.dtype(), DType::F32) << "step " << s;
    losses.push_back(r.loss.item<double>());
    EXPECT_TRUE(std::isfinite(losses.back())) << "step " << s;
  }
  for (const nn::NamedParam& np : nn::named_params(model)) EXPECT_EQ(np.param->dtype(), DType::F32) << np.path;
  // f16: the initial 2^16 overflowed one step's f16 gradients in the measured run (as it may under torch's
  // scaler) and the scale backed off once; more than two skipped steps would be a scaler or gradient fault.
  if (scaler) EXPECT_GE(scaler->get_scale(), 65536.0 / 4);
  return losses;
}

double mean(const std::vector<double>& v, size_t begin, size_t end) {
  return std::accumulate(v.begin() + static_cast<ptrdiff_t>(begin), v.begin() + static_cast<ptrdiff_t>(end), 0.0) /
         static_cast<double>(end - begin);
}

TEST(AutocastStep, CnnTrainsInBf16AndF16LikeF32) {
  if (!have_fashion_mnist())
    GTEST_SKIP() << "dataset-fashion-mnist not installed (" << data::MnistDataset::fashion_mnist_dir() << ")";
  const std::vector<double> f32 = cnn_curve(std::nullopt);
  for (const DType dtype : {DType::BF16, DType::F16}) {
    const std::vector<double> amp = cnn_curve(dtype);
    const double first = mean(amp, 0, 4), last = mean(amp, amp.size() - 4, amp.size());
    const double f32_last = mean(f32, f32.size() - 4, f32.size());
    std::printf("%s: loss %.4f over the first 4 steps, %.4f over the last 4 (f32 %.4f, %.4f)\n",
                std::string(dtype_name(dtype)).c_str(), first, last, mean(f32, 0, 4), f32_last);
    EXPECT_NEAR(amp[0], f32[0], 0.02 * f32[0]) << dtype_name(dtype);  // the same weights and batch
    EXPECT_LT(last, 0.6 * first) << dtype_name(dtype);
    EXPECT_NEAR(last, f32_last, 0.1 * f32_last) << dtype_name(dtype);
  }
}

}  // namespace
