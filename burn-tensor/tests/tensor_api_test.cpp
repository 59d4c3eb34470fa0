// The typed Tensor<D, K> API on the cpu device: real values (from PyTorch, expression in the
// comment) and the zero-copy / buffer-reuse properties docs/architecture.md §6 promises.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "burn/tensor.hpp"
#include "test_device.hpp"

using namespace burn;

namespace {

using burn::testing::test_device;

template <typename T, size_t D, typename K>
void expect_values(const Tensor<D, K>& t, const std::vector<T>& want, double tol = 1e-6) {
  auto got = t.template to_vec<T>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(want[i])) {
        EXPECT_TRUE(std::isnan(got[i])) << "element " << i;
      } else {
        EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
      }
    } else {
      EXPECT_EQ(got[i], want[i]) << "element " << i;
    }
  }
}

}  // namespace

TEST(TensorApi, ArithmeticChainMatchesTorch) {
  // torch.exp(torch.relu(torch.tensor([[-1.,0.5],[2.,-3.]])*2+1))
  auto x = Tensor<2>::from_vector(std::vector<float>{-1, 0.5f, 2, -3}, {2, 2}, test_device());
  auto y = (x * 2.0f + 1.0f).relu().exp();
  expect_values<float>(y, {1.0f, 7.389056f, 148.41316f, 1.0f}, 1e-4);
}

TEST(TensorApi, ReshapeInfersAndPermuteIsAView) {
  auto x = Tensor<1, Int>::arange(0, 24, test_device());
  auto y = x.reshape({2, -1, 4});
  EXPECT_EQ(y.shape(), (Shape{2, 3, 4}));
  auto p = y.permute({2, 0, 1});
  EXPECT_EQ(p.shape(), (Shape{4, 2, 3}));
  // torch.arange(24).reshape(2,3,4).permute(2,0,1)[1] -> [[1,5,9],[13,17,21]]
  expect_values<int64_t>(p.slice({Slice::at(1)}), {1, 5, 9, 13, 17, 21});
}

TEST(TensorApi, SliceNegativeIndicesAndSteps) {
  auto x = Tensor<1, Int>::arange(0, 10, test_device());
  expect_values<int64_t>(x.slice({{-3, std::nullopt}}), {7, 8, 9});
  expect_values<int64_t>(x.slice({Slice::range(1, 8, 3)}), {1, 4, 7});
  // Negative steps walk [start, end) backwards from end - 1: numpy x[0:4][::-1][::2] = [3, 1].
  expect_values<int64_t>(x.slice({Slice::range(0, 4, -2)}), {3, 1});
  expect_values<int64_t>(x.slice({Slice::all()}).flip({0}).slice({Slice::to(3)}), {9, 8, 7});
}

TEST(TensorApi, SliceAssignAndFill) {
  auto x = Tensor<2>::zeros({2, 3}, test_device());
  auto v = Tensor<2>::ones({2, 1}, test_device());
  auto y = x.slice_assign({Slice::all(), Slice::at(1)}, v).slice_fill({Slice::at(0), Slice::at(2)}, 5.0);
  expect_values<float>(y, {0, 1, 5, 0, 1, 0});
  expect_values<float>(x, {0, 0, 0, 0, 0, 0});  // the original is untouched
}

TEST(TensorApi, ReductionsKeepDims) {
  auto x = Tensor<2>::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3}, test_device());
  EXPECT_EQ(x.sum_dim(1).shape(), (Shape{2, 1}));
  expect_values<float>(x.sum_dim(1), {6, 15});
  expect_values<float>(x.mean_dim(0), {2.5f, 3.5f, 4.5f});
  expect_values<float>(x.sum(), {21});
  expect_values<int64_t>(x.argmax(1), {2, 2});
  // torch.var(torch.tensor([[1.,2,3],[4,5,6]]), dim=1, keepdim=True) -> [[1.],[1.]]
  expect_values<float>(x.var(1), {1, 1});
}

TEST(TensorApi, MatmulBroadcastsBatch) {
  auto a = Tensor<3>::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2}, test_device());
  auto b = Tensor<3>::from_vector(std::vector<float>{1, 0, 0, 1}, {1, 2, 2}, test_device());
  expect_values<float>(a.matmul(b), {1, 2, 3, 4, 5, 6, 7, 8});
}

TEST(TensorApi, CatStackChunk) {
  auto a = Tensor<1>::from_list({1.0f, 2.0f}, test_device());
  auto b = Tensor<1>::from_list({3.0f}, test_device());
  expect_values<float>(Tensor<1>::cat({a, b}, 0), {1, 2, 3});
  auto s = Tensor<1>::stack<2>({a, a}, 1);
  EXPECT_EQ(s.shape(), (Shape{2, 2}));
  expect_values<float>(s, {1, 1, 2, 2});
  auto parts = Tensor<1, Int>::arange(0, 5, test_device()).chunk(2, 0);
  ASSERT_EQ(parts.size(), 2u);
  expect_values<int64_t>(parts[1], {3, 4});
}

TEST(TensorApi, PadModesMatchTorch) {
  auto x = Tensor<1>::from_list({1.0f, 2.0f, 3.0f}, test_device());
  // F.pad(x[None], (2, 1), mode=...) along the last dim
  expect_values<float>(x.pad({2, 1}, PadMode::Constant, -1.0), {-1, -1, 1, 2, 3, -1});
  expect_values<float>(x.pad({2, 1}, PadMode::Reflect), {3, 2, 1, 2, 3, 2});
  expect_values<float>(x.pad({2, 1}, PadMode::Replicate), {1, 1, 1, 2, 3, 3});
}

TEST(TensorApi, TrilTriuOneHotEye) {
  auto x = Tensor<2>::ones({3, 3}, test_device());
  expect_values<float>(x.tril(), {1, 0, 0, 1, 1, 0, 1, 1, 1});
  expect_values<float>(x.triu(1), {0, 1, 1, 0, 0, 1, 0, 0, 0});
  auto labels = Tensor<1, Int>::from_list({2, 0}, test_device());
  expect_values<int64_t>(labels.one_hot(3), {0, 0, 1, 1, 0, 0});
  expect_values<float>(Tensor<2>::eye(2, test_device()), {1, 0, 0, 1});
}

TEST(TensorApi, RandomIsSeededAndReproducible) {
  Device dev = test_device();
  dev.seed(7);
  auto a = Tensor<1>::random({16}, Distribution::uniform(-1, 1), dev).to_vec<float>();
  dev.seed(7);
  auto b = Tensor<1>::random({16}, Distribution::uniform(-1, 1), dev).to_vec<float>();
  EXPECT_EQ(a, b);
  for (float v : a) EXPECT_TRUE(v >= -1 && v < 1);
}

// The composite ops through the typed API (values from PyTorch; the fixtures cover the rest).
TEST(TensorApi, EinsumAndProducts) {
  auto a = Tensor<2>::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3}, test_device());
  auto b = Tensor<1>::from_list({1.0f, 0.0f, -1.0f}, test_device());
  // torch.einsum('ij,j->i', a, b) -> [-2, -2]; torch.einsum('ij->', a) -> 21
  expect_values<float>(einsum<1>("ij,j->i", a, b), {-2, -2});
  expect_values<float>(einsum<1>("ij->", a), {21});
  expect_values<float>(einsum<2>("ij->ji", a), {1, 4, 2, 5, 3, 6});
  expect_values<float>(b.dot(b), {2});
  auto e0 = Tensor<1>::from_list({1.0f, 0.0f, 0.0f}, test_device());
  auto e1 = Tensor<1>::from_list({0.0f, 1.0f, 0.0f}, test_device());
  expect_values<float>(e0.cross(e1), {0, 0, 1});
}

TEST(TensorApi, GridsAndWindows) {
  auto grid = Tensor<2, Int>::cartesian_grid({2, 2}, test_device());
  EXPECT_EQ(grid.shape(), (Shape{2, 2, 2}));
  expect_values<int64_t>(grid, {0, 0, 0, 1, 1, 0, 1, 1});
  auto x = Tensor<1, Int>::arange(0, 2, test_device());
  auto y = Tensor<1, Int>::arange(0, 3, test_device());
  auto [gx, gy] = Tensor<1, Int>::meshgrid<2>({x, y}, GridIndexing::Cartesian);
  EXPECT_EQ(gx.shape(), (Shape{3, 2}));
  expect_values<int64_t>(gy, {0, 0, 1, 1, 2, 2});
  // torch.arange(5).unfold(0, 2, 1)
  auto w = Tensor<1, Int>::arange(0, 5, test_device()).unfold(0, 2, 1);
  EXPECT_EQ(w.shape(), (Shape{4, 2}));
  expect_values<int64_t>(w, {0, 1, 1, 2, 2, 3, 3, 4});
  auto m = Tensor<3>::zeros({2, 3, 4}, test_device()).movedim(0, -1);
  EXPECT_EQ(m.shape(), (Shape{3, 4, 2}));
  auto rows = Tensor<1, Int>::arange(0, 6, test_device()).reshape<2>({2, 3}).iter_dim(0);
  ASSERT_EQ(rows.size(), 2u);
  expect_values<int64_t>(rows[1], {3, 4, 5});
}

TEST(TensorApi, IndexingByTuplesAndMasks) {
  auto x = Tensor<1, Int>::arange(0, 6, test_device()).reshape<2>({2, 3});
  auto flat = Tensor<2, Int>::from_vector(std::vector<int64_t>{-1, 0, 4, 2}, {2, 2}, test_device());
  expect_values<int64_t>(x.take(flat), {5, 0, 4, 2});
  auto tuples = Tensor<2, Int>::from_vector(std::vector<int64_t>{1, 2, 0, -1}, {2, 2}, test_device());
  expect_values<int64_t>(x.gather_nd<1>(tuples), {5, 2});
  auto rows = Tensor<2, Int>::from_vector(std::vector<int64_t>{1}, {1, 1}, test_device());
  auto upd = Tensor<2, Int>::full({1, 3}, 9, test_device());
  expect_values<int64_t>(x.scatter_nd(rows, upd), {0, 1, 2, 9, 9, 9});
  expect_values<int64_t>(x.scatter_nd(rows, upd, ScatterReduction::Add), {0, 1, 2, 12, 13, 14});
  auto mask = Tensor<1, Bool>::from_list({true, false, true}, test_device());
  expect_values<int64_t>(x.mask_select(mask), {0, 2, 3, 5});
}

TEST(TensorApi, MedianAndCov) {
  auto x = Tensor<2>::from_vector(std::vector<float>{3, 1, 2, 4, 6, 5}, {2, 3}, test_device());
  expect_values<float>(x.median(), {3});  // the lower median of six values
  auto [v, i] = x.median_dim_with_indices(1);
  expect_values<float>(v, {2, 5});
  expect_values<int64_t>(i, {2, 2});
  // torch.cov(x) -> [[1, -1], [-1, 1]]; with fweights [1, 2, 1] -> 0.9167 = 11/12
  expect_values<float>(x.cov(), {1, -1, -1, 1});
  auto fw = Tensor<1, Int>::from_list({1, 2, 1}, test_device());
  expect_values<float>(x.cov(1, fw), {11.0f / 12, -11.0f / 12, -11.0f / 12, 11.0f / 12}, 1e-5);
  // torch.cov(torch.tensor([1., 2., 4.])) -> 2.3333; ints give floats
  expect_values<float>(Tensor<1>::from_list({1.0f, 2.0f, 4.0f}, test_device()).cov(), {7.0f / 3}, 1e-5);
  expect_values<float>(Tensor<1, Int>::from_list({1, 2, 4}, test_device()).cov(0), {14.0f / 9}, 1e-5);
}

// Draws come from the device's generator: a seed repeats them; zero weights are never drawn and a
// draw without replacement never repeats a class.
TEST(TensorApi, CategoricalIsSeededAndExact) {
  Device dev = test_device();
  auto w = Tensor<2>::from_vector(std::vector<float>{0, 1, 2, 0, 3, 5, 0, 0, 1, 1}, {2, 5}, dev);
  dev.seed(3);
  auto a = w.categorical(3).to_vec<int64_t>();
  dev.seed(3);
  EXPECT_EQ(w.categorical(3).to_vec<int64_t>(), a);
  for (int row = 0; row < 2; ++row) {
    std::vector<int64_t> r(a.begin() + 3 * row, a.begin() + 3 * row + 3);
    std::sort(r.begin(), r.end());
    EXPECT_EQ(r, row == 0 ? (std::vector<int64_t>{1, 2, 4}) : (std::vector<int64_t>{0, 3, 4}));
  }
  auto many = w.categorical(500, true).to_vec<int64_t>();
  for (size_t k = 0; k < many.size(); ++k) {
    const bool zero_weight = k < 500 ? (many[k] == 0 || many[k] == 3) : (many[k] == 1 || many[k] == 2);
    EXPECT_FALSE(zero_weight) << "draw " << k << " is class " << many[k];
  }
  auto zero = Tensor<1>::from_list({0.0f, 0.0f}, dev);
  EXPECT_THROW(zero.categorical(1, true), ValueError);
}

TEST(TensorApi, PrintingSummarisesLargeTensors) {
  auto small = Tensor<1, Int>::arange(0, 3, test_device());
  EXPECT_NE(small.to_string().find("[0, 1, 2]"), std::string::npos);
  auto big = Tensor<1, Int>::arange(0, 5000, test_device());
  std::string s = big.to_string();
  EXPECT_NE(s.find("[0, 1, 2, ..., 4997, 4998, 4999]"), std::string::npos) << s;
}

TEST(TensorApi, TraceDecoratorCountsForwardedOps) {
  Device dev = Device::get("trace<cpu>");
  auto* counters = static_cast<TraceCounters*>(dev->query_interface("trace"));
  ASSERT_NE(counters, nullptr);
  counters->reset();
  auto x = Tensor<1>::from_list({1.0f, -2.0f}, dev);
  auto y = x.abs().exp();
  EXPECT_EQ(counters->count(OpId::abs), 1u);
  EXPECT_EQ(counters->count(OpId::exp), 1u);
  expect_values<float>(y, {2.7182817f, 7.389056f}, 1e-5);
  EXPECT_EQ(dev.name(), "trace<cpu>");
}

// Every Tensor method added for the composite elementwise ops, once each, so the thin forwards are
// instantiated and checked end to end on the cpu device (values printed by PyTorch 1.13).
TEST(TensorApi, ElementwiseExtensionMethodsMatchTorch) {
  auto x = Tensor<2>::from_vector(std::vector<float>{-2.5f, 0.5f, 3.0f, -0.25f}, {2, 2}, test_device());
  auto y = Tensor<2>::from_vector(std::vector<float>{1.0f, 2.0f, 4.0f, 0.0f}, {2, 2}, test_device());
  expect_values<float>(x.hypot(y), {2.6925824f, 2.0615528f, 5.0f, 0.25f});  // torch.hypot(x, y)
  expect_values<float>(x.fmod_scalar(2.0), {-0.5f, 0.5f, 1.0f, -0.25f});    // torch.fmod(x, 2)
  expect_values<float>(x.fmod(x.full_like(2.0)), {-0.5f, 0.5f, 1.0f, -0.25f});
  expect_values<float>(x.asinh(), {-1.6472312f, 0.48121184f, 1.8184465f, -0.24746647f});  // torch.asinh(x)
  expect_values<float>((x / 4.0f).atanh(), {-0.73316854f, 0.12565722f, 0.9729551f, -0.062581576f});
  expect_values<float>((x.abs() + 1.0f).acosh(), {1.9248474f, 0.96242368f, 2.063437f, 0.69314718f});
  expect_values<float>(x.deg2rad(), {-0.04363323f, 0.0087266462f, 0.052359879f, -0.0043633231f});
  expect_values<float>(x.rad2deg(), {-143.23946f, 28.64789f, 171.88734f, -14.323945f}, 1e-4);
  expect_values<float>(x.max_abs(), {3.0f});  // x.abs().max()
  expect_values<float>(x.max_abs_dim(1), {2.5f, 3.0f});
  expect_values<float>(x.celu(2.0), {-1.4269904f, 0.5f, 3.0f, -0.23500621f});  // F.celu(x, 2)
  expect_values<float>(x.glu(1), {-1.5561484f, 1.3134705f});                   // F.glu(x, 1)
  expect_values<float>(x.hard_shrink(), {-2.5f, 0.0f, 3.0f, 0.0f});
  expect_values<float>(x.soft_shrink(), {-2.0f, 0.0f, 2.5f, 0.0f});
  expect_values<float>(x.hard_swish(), {-0.20833333f, 0.29166666f, 3.0f, -0.11458334f});
  expect_values<float>(x.hardtanh(), {-1.0f, 0.5f, 1.0f, -0.25f});
  expect_values<float>((x * 3.0f).relu6(), {0.0f, 1.5f, 6.0f, 0.0f});
  expect_values<float>(x.prelu(Tensor<1>::from_list({0.1f, 0.2f}, test_device())), {-0.25f, 0.5f, 3.0f, -0.05f});
  expect_values<float>(x.softsign(), {-0.71428573f, 0.33333334f, 0.75f, -0.2f});
  expect_values<float>(x.tanhshrink(), {-1.5133858f, 0.037882835f, 2.0049453f, -0.0050813407f});
  expect_values<float>(x.threshold(0.5, 9.0), {9.0f, 9.0f, 3.0f, 9.0f});  // F.threshold(x, .5, 9)
  // exp(x - m) / (exp(-m) + sum exp(x - m)) along dim 1, m the row max
  expect_values<float>(x.quiet_softmax(1), {0.030058887f, 0.60374892f, 0.91864371f, 0.035619684f});
  auto n = Tensor<1>::from_list({1.0f, 2.0f, NAN}, test_device());
  auto m = Tensor<1>::from_list({1.0f + 1e-7f, 2.1f, NAN}, test_device());
  expect_values<bool>(n.is_close(m, 1e-5, 1e-8, true), {true, false, true});
  EXPECT_FALSE(n.all_close(m, 1e-5, 1e-8, true));
  EXPECT_TRUE(n.slice({Slice::to(1)}).all_close(m.slice({Slice::to(1)})));
  // Int tensors: sign, fmod, bitwise
  auto a = Tensor<1, Int>::from_list<int64_t>({12, -3, 255, 1}, test_device());
  auto b = Tensor<1, Int>::from_list<int64_t>({10, 5, 1, 65}, test_device());
  expect_values<int64_t>(a.bitwise_and(b), {8, 5, 1, 1});
  expect_values<int64_t>(a.bitwise_or(b), {14, -3, 255, 65});
  expect_values<int64_t>(a.bitwise_xor(b), {6, -8, 254, 64});
  expect_values<int64_t>(a.bitwise_not(), {-13, 2, -256, -2});
  expect_values<int64_t>(a.bitwise_left_shift(b), {12288, -96, 510, 2});  // 65 shifts by 65 % 64 = 1
  expect_values<int64_t>(a.bitwise_right_shift(b), {0, -1, 127, 0});
  expect_values<int64_t>(a.bitwise_and_scalar(6), {4, 4, 6, 0});
  expect_values<int64_t>(a.bitwise_or_scalar(1), {13, -3, 255, 1});
  expect_values<int64_t>(a.bitwise_xor_scalar(-1), {-13, 2, -256, -2});
  expect_values<int64_t>(a.bitwise_left_shift_scalar(2), {48, -12, 1020, 4});
  expect_values<int64_t>(a.bitwise_right_shift_scalar(1), {6, -2, 127, 0});
  expect_values<int64_t>(Tensor<1, Int>::from_list<int64_t>({-7, 7}, test_device())
                             .fmod(Tensor<1, Int>::from_list<int64_t>({2, -2}, test_device())),
                         {-1, 1});
  expect_values<int32_t>(Tensor<1, Int>::from_list<int32_t>({-9, 0, 4}, test_device()).sign(), {-1, 0, 1});
  expect_values<int64_t>(a.max_abs(), {255});
  EXPECT_TRUE(a.is_close(a).all().item<bool>());
}
