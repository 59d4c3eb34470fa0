// Tests the default (composite) bodies of the DEFAULT-tier ops on a backend that implements only
// the CORE ops: the defaults decorator forwards core ops to the cpu plugin and runs Backend's own
// default body for every DEFAULT op. Expected values come from PyTorch (the expression is in a comment).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "burn/tensor/backend.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/plugin.hpp"

namespace {

using namespace burn;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

class Defaults : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cpu_ = plugins::create_backend("cpu");
    core_ = make_defaults_backend(cpu_);
  }
  static void TearDownTestSuite() {
    core_.reset();
    cpu_.reset();
  }

  static Backend& b() { return *core_; }

  static Prim f32(const std::vector<float>& v, Shape s) { return b().from_data(TensorData::from_vector(v, s)); }
  static Prim f32(const std::vector<float>& v) { return f32(v, Shape{static_cast<int64_t>(v.size())}); }
  static Prim i64(const std::vector<int64_t>& v, Shape s) { return b().from_data(TensorData::from_vector(v, s)); }
  static Prim i64(const std::vector<int64_t>& v) { return i64(v, Shape{static_cast<int64_t>(v.size())}); }
  static Prim boolean(const std::vector<bool>& v) {
    return b().from_data(TensorData::from_vector(v, Shape{static_cast<int64_t>(v.size())}));
  }

  static std::vector<double> values(const Prim& p) { return b().into_data(p).to_f64_vec(); }

  // Shape, dtype and every value (NaN equals NaN; signed zeros are not distinguished).
  static void expect_values(const Prim& p, const std::vector<double>& expected, const Shape& shape, DType dtype,
                            double rtol = 1e-5, double atol = 1e-6) {
    ASSERT_TRUE(p);
    EXPECT_EQ(p->shape(), shape);
    EXPECT_EQ(p->dtype(), dtype) << dtype_name(p->dtype());
    TensorData d = b().into_data(p);
    EXPECT_EQ(d.shape(), shape);
    std::vector<double> got = d.to_f64_vec();
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
      if (std::isnan(expected[i])) {
        EXPECT_TRUE(std::isnan(got[i])) << "element " << i << ": got " << got[i] << ", expected NaN";
      } else if (std::isinf(expected[i])) {
        EXPECT_EQ(got[i], expected[i]) << "element " << i;
      } else {
        EXPECT_NEAR(got[i], expected[i], atol + rtol * std::abs(expected[i])) << "element " << i;
      }
    }
  }
  static void expect_f32(const Prim& p, const std::vector<double>& e, double rtol = 1e-5, double atol = 1e-6) {
    expect_values(p, e, Shape{static_cast<int64_t>(e.size())}, DType::F32, rtol, atol);
  }
  static void expect_bool(const Prim& p, const std::vector<double>& e) {
    expect_values(p, e, Shape{static_cast<int64_t>(e.size())}, DType::Bool);
  }

  static inline BackendPtr cpu_;
  static inline BackendPtr core_;
};

// Runs `fn`, expecting an exception of type E whose message contains every one of `parts`.
template <typename E, typename Fn>
void expect_error(Fn&& fn, std::initializer_list<std::string> parts) {
  try {
    fn();
    ADD_FAILURE() << "no exception";
  } catch (const E& e) {
    std::string msg = e.what();
    for (const auto& part : parts) EXPECT_NE(msg.find(part), std::string::npos) << msg << " lacks " << part;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
  }
}

// ---- creation ------------------------------------------------------------------------------

TEST_F(Defaults, RandomIsReproducibleForASeed) {
  for (DType d : {DType::F32, DType::F64, DType::I64}) {
    Distribution dist = is_float(d) ? Distribution::normal(0, 1) : Distribution::uniform(-5, 5);
    b().seed(1234);
    auto first = values(b().random(Shape{4, 5}, dist, d));
    auto second = values(b().random(Shape{4, 5}, dist, d));
    b().seed(1234);
    auto again = values(b().random(Shape{4, 5}, dist, d));
    EXPECT_EQ(first, again) << dtype_name(d);
    EXPECT_NE(first, second) << dtype_name(d);
  }
}

TEST_F(Defaults, RandomNormalMoments) {
  b().seed(7);
  for (auto [mean, std] : {std::pair{0.0, 1.0}, std::pair{2.0, 0.5}}) {
    Prim p = b().random(Shape{100000}, Distribution::normal(mean, std), DType::F32);
    EXPECT_EQ(p->dtype(), DType::F32);
    auto v = values(p);
    double s = 0, ss = 0;
    for (double x : v) s += x;
    const double m = s / static_cast<double>(v.size());
    for (double x : v) ss += (x - m) * (x - m);
    const double sd = std::sqrt(ss / static_cast<double>(v.size() - 1));
    EXPECT_NEAR(m, mean, 0.02);
    EXPECT_NEAR(sd, std, 0.02);
  }
}

TEST_F(Defaults, RandomUniformAndDefault) {
  b().seed(99);
  auto v = values(b().random(Shape{100000}, Distribution::uniform(-2.0, 3.0), DType::F32));
  double s = 0;
  for (double x : v) {
    ASSERT_GE(x, -2.0);
    ASSERT_LT(x, 3.0);
    s += x;
  }
  EXPECT_NEAR(s / 100000.0, 0.5, 0.02);
  // A one-ulp interval: [1, nextafter(1)) in f32 holds only 1.
  const double top = std::nextafter(1.0f, 2.0f);
  for (double x : values(b().random(Shape{1000}, Distribution::uniform(1.0, top), DType::F32))) ASSERT_EQ(x, 1.0);
  // Default is Uniform(0, 1) for floats.
  for (double x : values(b().random(Shape{1000}, Distribution{}, DType::F64))) {
    ASSERT_GE(x, 0.0);
    ASSERT_LT(x, 1.0);
  }
}

TEST_F(Defaults, RandomIntegersAndBernoulli) {
  b().seed(5);
  std::set<double> seen;
  for (double x : values(b().random(Shape{2000}, Distribution::uniform(-3, 4), DType::I32))) seen.insert(x);
  EXPECT_EQ(seen, (std::set<double>{-3, -2, -1, 0, 1, 2, 3}));

  Prim bern = b().random(Shape{100000}, Distribution::bernoulli(0.3), DType::F32);
  double s = 0;
  for (double x : values(bern)) {
    ASSERT_TRUE(x == 0.0 || x == 1.0);
    s += x;
  }
  EXPECT_NEAR(s / 100000.0, 0.3, 0.01);
  Prim all = b().random(Shape{100}, Distribution::bernoulli(1.0), DType::Bool);
  EXPECT_EQ(all->dtype(), DType::Bool);
  for (double x : values(all)) ASSERT_EQ(x, 1.0);
}

TEST_F(Defaults, RandomRejectsBadParameters) {
  expect_error<ValueError>([] { b().random(Shape{2}, Distribution::bernoulli(1.5), DType::F32); }, {"random", "1.5"});
  expect_error<ValueError>([] { b().random(Shape{2}, Distribution::uniform(2.0, 2.0), DType::F32); }, {"random", "2"});
  expect_error<ValueError>([] { b().random(Shape{2}, Distribution::normal(0.0, -1.0), DType::F32); }, {"random", "-1"});
  expect_error<ValueError>([] { b().random(Shape{2}, Distribution::uniform(0, 1000), DType::U8); }, {"random", "u8"});
  expect_error<ValueError>([] { b().random(Shape{2}, Distribution{}, DType::I64); },
                           {"random", "Default", "i64", "uniform(low, high)"});
}

TEST_F(Defaults, Arange) {
  // torch.arange(5, -4, -3) -> [5, 2, -1]; torch.arange(0, 10, 4) -> [0, 4, 8]
  expect_values(b().arange(5, -4, -3, DType::I64), {5, 2, -1}, Shape{3}, DType::I64);
  expect_values(b().arange(0, 10, 4, DType::F32), {0, 4, 8}, Shape{3}, DType::F32);
  expect_values(b().arange(3, 3, 1, DType::I32), {}, Shape{0}, DType::I32);
  expect_error<ValueError>([] { b().arange(0, 5, 0, DType::I64); }, {"arange", "step"});
}

// ---- layout --------------------------------------------------------------------------------

TEST_F(Defaults, Cat) {
  Prim a = f32({1, 2, 3, 4}, Shape{2, 2});
  Prim c = f32({5, 6}, Shape{2, 1});
  // torch.cat([a, c], 1)
  expect_values(b().cat({a, c}, 1), {1, 2, 5, 3, 4, 6}, Shape{2, 3}, DType::F32);
  // torch.cat([a, a], 0)
  expect_values(b().cat({a, a}, 0), {1, 2, 3, 4, 1, 2, 3, 4}, Shape{4, 2}, DType::F32);
  expect_error<ShapeError>([&] { b().cat({a, c}, 0); }, {"cat", "tensor 1", "[2, 1]", "[2, 2]"});
  expect_error<DTypeError>([&] { b().cat({a, i64({1, 2}, Shape{2, 1})}, 1); }, {"cat", "input 1"});
}

TEST_F(Defaults, RepeatDim) {
  Prim x = i64({1, 2, 3, 4}, Shape{2, 2});
  // torch.tensor([[1,2],[3,4]]).repeat(1,3)
  expect_values(b().repeat_dim(x, 1, 3), {1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4}, Shape{2, 6}, DType::I64);
  // torch.tensor([[1,2],[3,4]]).repeat(2,1)
  expect_values(b().repeat_dim(x, 0, 2), {1, 2, 3, 4, 1, 2, 3, 4}, Shape{4, 2}, DType::I64);
}

// ---- indexing ------------------------------------------------------------------------------

TEST_F(Defaults, SelectAndSelectAdd) {
  Prim a = f32({3, 1, 4, 1, 5, 9, 2, 6}, Shape{2, 4});
  // torch.index_select(a, 1, torch.tensor([3, 0, 0]))
  expect_values(b().select(a, 1, i64({3, 0, 0})), {1, 3, 3, 6, 5, 5}, Shape{2, 3}, DType::F32);
  // torch.zeros(3, 2).index_add(0, torch.tensor([0, 2, 0]), torch.tensor([[1.,2.],[3.,4.],[5.,6.]]))
  Prim z = b().full(Shape{3, 2}, Scalar(0.0), DType::F32);
  expect_values(b().select_add(z, 0, i64({0, 2, 0}), f32({1, 2, 3, 4, 5, 6}, Shape{3, 2})), {6, 8, 0, 0, 3, 4},
                Shape{3, 2}, DType::F32);
  expect_error<ShapeError>([&] { b().select(a, 0, i64({0, 1}, Shape{1, 2})); }, {"select", "[1, 2]"});
}

TEST_F(Defaults, MaskFill) {
  Prim x = f32({1, 2, 3, 4}, Shape{2, 2});
  Prim m = b().from_data(TensorData::from_vector(std::vector<bool>{true, false}, Shape{1, 2}));
  // torch.tensor([[1.,2.],[3.,4.]]).masked_fill(torch.tensor([[True, False]]), -1.0)
  expect_values(b().mask_fill(x, m, Scalar(-1.0)), {-1, 2, -1, 4}, Shape{2, 2}, DType::F32);
}

// ---- numeric -------------------------------------------------------------------------------

TEST_F(Defaults, ScalarOps) {
  expect_f32(b().add_scalar(f32({1, 2}), Scalar(0.5)), {1.5, 2.5});
  expect_f32(b().sub_scalar(f32({1, 2}), Scalar(0.5)), {0.5, 1.5});
  expect_f32(b().mul_scalar(f32({1, 2}), Scalar(3)), {3, 6});
  expect_f32(b().div_scalar(f32({1, 2}), Scalar(4)), {0.25, 0.5});
  expect_f32(b().powf_scalar(f32({2, 3}), Scalar(2.0)), {4, 9});
  // torch.remainder(torch.tensor([-7,7,-3,5]), 3) -> [2, 1, 0, 2]
  expect_values(b().remainder_scalar(i64({-7, 7, -3, 5}), Scalar(3)), {2, 1, 0, 2}, Shape{4}, DType::I64);
  // torch.remainder(torch.tensor([-7.5, 7.5]), -2.0) -> [-1.5, -0.5]
  expect_f32(b().remainder_scalar(f32({-7.5, 7.5}), Scalar(-2.0)), {-1.5, -0.5});
  // Int tensor, float scalar: truncated to 2 (documented choice; the dtype stays i64).
  expect_values(b().add_scalar(i64({1, 2}), Scalar(2.7)), {3, 4}, Shape{2}, DType::I64);
  // Int division truncates toward zero.
  expect_values(b().div_scalar(i64({7, -7}), Scalar(2)), {3, -3}, Shape{2}, DType::I64);
}

TEST_F(Defaults, MaximumMinimumClampPropagateNaN) {
  Prim n = f32({1, NAN, 3, INFINITY, -INFINITY, -2});
  Prim two = f32({2}, Shape{1});
  // torch.maximum(n, torch.tensor(2.0)) -> [2, nan, 3, inf, 2, 2]
  expect_f32(b().maximum(n, two), {2, kNaN, 3, kInf, 2, 2});
  // torch.minimum(n, torch.tensor(2.0)) -> [1, nan, 2, 2, -inf, -2]
  expect_f32(b().minimum(n, two), {1, kNaN, 2, 2, -kInf, -2});
  // NaN on the right-hand side, broadcast on the left: torch.maximum(torch.tensor([1.]), torch.tensor([nan, 0.]))
  expect_f32(b().maximum(f32({1}), f32({NAN, 0})), {kNaN, 1});
  // torch.clamp(n, -1.0, 2.0) -> [1, nan, 2, 2, -1, -1]
  expect_f32(b().clamp(n, Scalar(-1.0), Scalar(2.0)), {1, kNaN, 2, 2, -1, -1});
  // torch.clamp(n, 3.0, 1.0) -> min > max gives max: [1, nan, 1, 1, 1, 1]
  expect_f32(b().clamp(n, Scalar(3.0), Scalar(1.0)), {1, kNaN, 1, 1, 1, 1});
  expect_error<DTypeError>([&] { b().maximum(n, i64({1})); }, {"maximum", "f32", "i64"});
}

TEST_F(Defaults, NegAndSign) {
  // torch.neg(torch.tensor([0.0, -0.0, 1.5])) -> [-0.0, 0.0, -1.5]
  Prim ng = b().neg(f32({0.0f, -0.0f, 1.5f}));
  auto v = values(ng);
  EXPECT_TRUE(std::signbit(v[0]));
  EXPECT_FALSE(std::signbit(v[1]));
  EXPECT_EQ(v[2], -1.5);
  // torch.neg(torch.tensor([1, 0, -7], dtype=torch.int32)) -> [-1, 0, 7]
  Prim i32 = b().from_data(TensorData::from_vector(std::vector<int32_t>{1, 0, -7}, Shape{3}));
  expect_values(b().neg(i32), {-1, 0, 7}, Shape{3}, DType::I32);
  // torch.sign(torch.tensor([1., nan, 3., inf, -inf, -2.])) -> [1, 0, 1, 1, -1, -1]
  expect_f32(b().sign(f32({1, NAN, 3, INFINITY, -INFINITY, -2})), {1, 0, 1, 1, -1, -1});
  expect_values(b().sign(i64({-5, 0, 7})), {-1, 0, 1}, Shape{3}, DType::I64);
}

// ---- compare and bool ----------------------------------------------------------------------

TEST_F(Defaults, Comparisons) {
  Prim a = f32({1, NAN, 3});
  Prim c = f32({1, 2, 4});
  // a != c, a < c, a <= c with torch's NaN rules
  expect_bool(b().not_equal(a, c), {0, 1, 1});
  expect_bool(b().lower(a, c), {0, 0, 1});
  expect_bool(b().lower_equal(a, c), {1, 0, 1});
  expect_bool(b().greater_equal_elem(c, Scalar(2.0)), {0, 1, 1});
  expect_bool(b().lower_equal_elem(c, Scalar(2.0)), {1, 1, 0});
  expect_bool(b().not_equal_elem(a, Scalar(1.0)), {0, 1, 1});
  // torch.tensor([1,2,3]) > 2.5 -> [F, F, T]; == 2.0 -> [F, T, F]; == 2.5 -> all F
  expect_bool(b().greater_elem(i64({1, 2, 3}), Scalar(2.5)), {0, 0, 1});
  expect_bool(b().equal_elem(i64({1, 2, 3}), Scalar(2.0)), {0, 1, 0});
  expect_bool(b().equal_elem(i64({1, 2, 3}), Scalar(2.5)), {0, 0, 0});
  expect_bool(b().lower_elem(i64({1, 2, 3}), Scalar(2)), {1, 0, 0});
  // torch.tensor([True, True, False, False]) ^ torch.tensor([True, False, True, False])
  expect_bool(b().bool_xor(boolean({true, true, false, false}), boolean({true, false, true, false})), {0, 1, 1, 0});
}

// ---- reduce --------------------------------------------------------------------------------

TEST_F(Defaults, FullReductions) {
  Prim m = f32({1, 2, 3, -1, 0, 1000}, Shape{2, 3});
  expect_values(b().sum(m), {1005}, Shape{1}, DType::F32);
  // m.mean() -> 167.5
  expect_values(b().mean(m), {167.5}, Shape{1}, DType::F32);
  // m.prod() -> -0.0
  expect_values(b().prod(m), {0}, Shape{1}, DType::F32);
  expect_values(b().max(m), {1000}, Shape{1}, DType::F32);
  expect_values(b().min(m), {-1}, Shape{1}, DType::F32);
  expect_values(b().sum(i64({1, 2, 3}, Shape{3, 1})), {6}, Shape{1}, DType::I64);
}

TEST_F(Defaults, MeanDimAndVar) {
  Prim m = f32({1, 2, 3, -1, 0, 1000}, Shape{2, 3});
  // m.mean(1, keepdim=True) -> [[2], [333]]
  expect_values(b().mean_dim(m, 1), {2, 333}, Shape{2, 1}, DType::F32);
  // Int mean divides the integer sum: (7 + 8) / 2 = 7.
  expect_values(b().mean_dim(i64({7, 8}, Shape{1, 2}), 1), {7}, Shape{1, 1}, DType::I64);
  // torch.var(m, 1, correction=1, keepdim=True) -> [[1], [333667]]
  expect_values(b().var(m, 1, 1), {1, 333667}, Shape{2, 1}, DType::F32);
  // torch.var(m, 0, correction=0, keepdim=True) -> [[1, 1, 248502.25]]
  expect_values(b().var(m, 0, 0), {1, 1, 248502.25}, Shape{1, 3}, DType::F32);
  expect_error<DTypeError>([&] { b().var(i64({1, 2}), 0, 1); }, {"var", "i64"});
}

TEST_F(Defaults, MaxMinWithIndices) {
  // torch.max(torch.tensor([[1., 3., 3.], [nan, 0., 5.]]), 1, keepdim=True) -> ([[3], [nan]], [[1], [0]])
  Prim x = f32({1, 3, 3, NAN, 0, 5}, Shape{2, 3});
  auto [v, i] = b().max_dim_with_indices(x, 1);
  expect_values(v, {3, kNaN}, Shape{2, 1}, DType::F32);
  expect_values(i, {1, 0}, Shape{2, 1}, DType::I64);
  auto [mv, mi] = b().min_dim_with_indices(f32({4, 2, 2, 9}, Shape{2, 2}), 0);
  expect_values(mv, {2, 2}, Shape{1, 2}, DType::F32);
  expect_values(mi, {1, 0}, Shape{1, 2}, DType::I64);
}

TEST_F(Defaults, AnyAll) {
  // torch.tensor([0.0, nan]).any() -> True
  expect_values(b().any(f32({0, NAN})), {1}, Shape{1}, DType::Bool);
  expect_values(b().all(f32({0, NAN})), {0}, Shape{1}, DType::Bool);
  // torch.tensor([[0,1],[0,0]]).any(1) -> [T, F]; torch.tensor([[2,1],[0,3]]).all(1) -> [T, F]
  expect_values(b().any_dim(i64({0, 1, 0, 0}, Shape{2, 2}), 1), {1, 0}, Shape{2, 1}, DType::Bool);
  expect_values(b().all_dim(i64({2, 1, 0, 3}, Shape{2, 2}), 1), {1, 0}, Shape{2, 1}, DType::Bool);
  expect_values(b().all(boolean({true, true})), {1}, Shape{1}, DType::Bool);
}

TEST_F(Defaults, ArgsortAndTopk) {
  Prim a = f32({3, 1, 4, 1, 5, 9, 2, 6}, Shape{2, 4});
  // torch.topk(a, 2, 1) -> values [[4, 3], [9, 6]], indices [[2, 0], [1, 3]]
  auto [tv, ti] = b().topk(a, 2, 1, true);
  expect_values(tv, {4, 3, 9, 6}, Shape{2, 2}, DType::F32);
  expect_values(ti, {2, 0, 1, 3}, Shape{2, 2}, DType::I64);
  // torch.topk(a, 3, 1, largest=False) -> values [[1, 1, 3], [2, 5, 6]], indices [[1, 3, 0], [2, 0, 3]]
  auto [lv, li] = b().topk(a, 3, 1, false);
  expect_values(lv, {1, 1, 3, 2, 5, 6}, Shape{2, 3}, DType::F32);
  expect_values(li, {1, 3, 0, 2, 0, 3}, Shape{2, 3}, DType::I64);
  // torch.argsort(a, 1, stable=True) -> [[1, 3, 0, 2], [2, 0, 3, 1]]
  expect_values(b().argsort(a, 1, false, true), {1, 3, 0, 2, 2, 0, 3, 1}, Shape{2, 4}, DType::I64);
  expect_error<IndexError>([&] { b().topk(a, 5, 1, true); }, {"topk", "5", "4"});
}

// ---- float math ----------------------------------------------------------------------------

TEST_F(Defaults, FloatMath) {
  Prim n = f32({1, NAN, 3, INFINITY, -INFINITY, -2});
  // torch.isnan / isinf / isfinite of n
  expect_bool(b().is_nan(n), {0, 1, 0, 0, 0, 0});
  expect_bool(b().is_inf(n), {0, 0, 0, 1, 1, 0});
  expect_bool(b().is_finite(n), {1, 0, 1, 0, 0, 1});
  expect_bool(b().is_finite(i64({1, 2})), {1, 1});
  expect_f32(b().recip(f32({2, -4, 0})), {0.5, -0.25, kInf});
  expect_f32(b().square(f32({-3, 0.5})), {9, 0.25});
}

// ---- activations ---------------------------------------------------------------------------

// x = torch.tensor([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 30.0])
const std::vector<float> kX = {-3.0f, -1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 2.0f, 30.0f};

TEST_F(Defaults, Activations) {
  Prim x = f32(kX);
  // torch.relu(x)
  expect_f32(b().relu(x), {0, 0, 0, 0, 0.5, 1, 2, 30});
  expect_f32(b().relu(f32({NAN, -0.0f})), {kNaN, 0});
  // F.leaky_relu(x, 0.1)
  expect_f32(b().leaky_relu(x, 0.1),
             {-0.30000001192092896, -0.10000000149011612, -0.05000000074505806, 0, 0.5, 1, 2, 30});
  // F.gelu(x)
  expect_f32(b().gelu(x), {-0.004049867391586304, -0.1586552858352661, -0.1542687863111496, 0.0, 0.3457311987876892,
                           0.8413447141647339, 1.9544999599456787, 30.0});
  // F.gelu(x, approximate='tanh')
  expect_f32(b().gelu_tanh(x), {-0.0036374330520629883, -0.15880799293518066, -0.1542859971523285, 0.0,
                                0.3457140028476715, 0.8411920070648193, 1.9545977115631104, 30.0});
  // torch.sigmoid(x)
  expect_f32(b().sigmoid(x), {0.04742587357759476, 0.2689414322376251, 0.3775406777858734, 0.5, 0.622459352016449,
                              0.7310585975646973, 0.8807970285415649, 1.0});
  // torch.sigmoid(torch.tensor([-100.0, -30.0, 100.0])): no overflow, tiny values kept
  expect_f32(b().sigmoid(f32({-100, -30, 100})), {0.0, 9.357623589846195e-14, 1.0}, 1e-5, 1e-30);
  // F.logsigmoid(torch.tensor([-100.0, -3.0, 0.0, 3.0, 100.0]))
  expect_f32(b().log_sigmoid(f32({-100, -3, 0, 3, 100})),
             {-100.0, -3.0485873222351074, -0.6931471824645996, -0.04858735203742981, -3.923635700109488e-44});
  // F.silu(x)
  expect_f32(b().silu(x), {-0.14227761328220367, -0.2689414322376251, -0.1887703388929367, 0.0, 0.3112296760082245,
                           0.7310585975646973, 1.7615940570831299, 30.0});
  // F.mish(x)
  expect_f32(b().mish(x), {-0.14564746618270874, -0.3034014403820038, -0.22074376046657562, 0.0, 0.37524524331092834,
                           0.8650983572006226, 1.9439589977264404, 30.0});
  // F.softplus(x, beta=2.0, threshold=5.0)
  expect_f32(b().softplus(x, 2.0, 5.0),
             {0.0012378426035866141, 0.06346400082111359, 0.15663084387779236, 0.3465735912322998, 0.65663081407547,
              1.0634640455245972, 2.0090749263763428, 30.0});
  // torch.clamp(x * 0.2 + 0.5, 0, 1)
  expect_f32(b().hard_sigmoid(x, 0.2, 0.5), {0.0, 0.30000001192092896, 0.4000000059604645, 0.5, 0.6000000238418579,
                                             0.699999988079071, 0.8999999761581421, 1.0});
  // F.elu(x, 0.7)
  expect_f32(b().elu(x, 0.7),
             {-0.6651490330696106, -0.44248437881469727, -0.27542853355407715, 0.0, 0.5, 1.0, 2.0, 30.0});
  // F.selu(x)
  expect_f32(b().selu(x), {-1.6705687046051025, -1.1113307476043701, -0.6917581558227539, 0.0, 0.5253505110740662,
                           1.0507010221481323, 2.1014020442962646, 31.52103042602539});
  expect_error<DTypeError>([] { b().sigmoid(i64({1})); }, {"sigmoid", "i64"});
}

TEST_F(Defaults, Softmax) {
  Prim m = f32({1, 2, 3, -1, 0, 1000}, Shape{2, 3});
  // torch.softmax(m, 1)
  expect_values(b().softmax(m, 1), {0.09003057330846786, 0.2447284758090973, 0.6652409434318542, 0.0, 0.0, 1.0},
                Shape{2, 3}, DType::F32);
  // torch.log_softmax(m, 1)
  expect_values(b().log_softmax(m, 1),
                {-2.4076058864593506, -1.4076058864593506, -0.40760594606399536, -1001.0, -1000.0, 0.0}, Shape{2, 3},
                DType::F32);
}

TEST_F(Defaults, EmptyAndEdgeCases) {
  Prim x = f32({1, 2, 3, 4}, Shape{2, 2});
  Prim none = b().full(Shape{2, 0}, Scalar(0.0), DType::F32);
  // torch.cat([x, torch.zeros(2, 0)], 1) == x; x.repeat(1, 0) has shape [2, 0]
  expect_values(b().cat({none, x, none}, 1), {1, 2, 3, 4}, Shape{2, 2}, DType::F32);
  expect_values(b().repeat_dim(x, 1, 0), {}, Shape{2, 0}, DType::F32);
  // torch.zeros(0).sum() -> 0; .any() -> False; .all() -> True
  Prim empty = b().full(Shape{0}, Scalar(0.0), DType::F32);
  expect_values(b().sum(empty), {0}, Shape{1}, DType::F32);
  expect_values(b().any(empty), {0}, Shape{1}, DType::Bool);
  expect_values(b().all(empty), {1}, Shape{1}, DType::Bool);
  // torch.topk(x, 0, 1) -> empty [2, 0]
  auto [v, i] = b().topk(x, 0, 1, true);
  expect_values(v, {}, Shape{2, 0}, DType::F32);
  expect_values(i, {}, Shape{2, 0}, DType::I64);
  // torch.var of one element with correction 1 -> nan (divisor 0)
  expect_values(b().var(f32({5}, Shape{1, 1}), 1, 1), {kNaN}, Shape{1, 1}, DType::F32);
  expect_error<IndexError>([&] { b().mean_dim(x, 2); }, {"mean_dim", "2"});
  expect_error<ValueError>([&] { b().repeat_dim(x, 0, -1); }, {"repeat_dim", "-1"});
}

// Half types reduce in f32: torch.full((70000,), 2.0, dtype=torch.float16).mean() -> 2.0
TEST_F(Defaults, HalfMeanAccumulatesInF32) {
  Prim h = b().full(Shape{70000}, Scalar(2.0), DType::F16);
  expect_values(b().mean(h), {2.0}, Shape{1}, DType::F16);
}

// The default bodies agree with the cpu backend's own (overriding) kernels on random data.
TEST_F(Defaults, AgreesWithCpuOverrides) {
  b().seed(3);
  TensorData data = b().into_data(b().random(Shape{4, 6}, Distribution::normal(0, 2), DType::F32));
  Backend& cpu = *cpu_;
  Prim xc = cpu.from_data(data);
  Prim xd = b().from_data(data);
  auto same = [&](const char* what, const Prim& got, const Prim& want) {
    SCOPED_TRACE(what);
    TensorData g = b().into_data(got), w = cpu.into_data(want);
    EXPECT_EQ(g.shape(), w.shape());
    EXPECT_EQ(g.dtype(), w.dtype());
    ApproxReport r = g.compare_approx(w, 1e-5, 1e-6);
    EXPECT_TRUE(r.ok) << r.message;
  };
#define BURN_SAME_UNARY(op) same(#op, b().op(xd), cpu.op(xc))
  BURN_SAME_UNARY(relu);
  BURN_SAME_UNARY(gelu);
  BURN_SAME_UNARY(gelu_tanh);
  BURN_SAME_UNARY(sigmoid);
  BURN_SAME_UNARY(log_sigmoid);
  BURN_SAME_UNARY(silu);
  BURN_SAME_UNARY(mish);
  BURN_SAME_UNARY(selu);
  BURN_SAME_UNARY(neg);
  BURN_SAME_UNARY(sign);
  BURN_SAME_UNARY(square);
  BURN_SAME_UNARY(sum);
  BURN_SAME_UNARY(mean);
  BURN_SAME_UNARY(max);
  BURN_SAME_UNARY(min);
  BURN_SAME_UNARY(any);
  BURN_SAME_UNARY(all);
#undef BURN_SAME_UNARY
  for (size_t dim : {0, 1}) {
    same("softmax", b().softmax(xd, dim), cpu.softmax(xc, dim));
    same("log_softmax", b().log_softmax(xd, dim), cpu.log_softmax(xc, dim));
    same("mean_dim", b().mean_dim(xd, dim), cpu.mean_dim(xc, dim));
    same("var", b().var(xd, dim, 1), cpu.var(xc, dim, 1));
    same("repeat_dim", b().repeat_dim(xd, dim, 2), cpu.repeat_dim(xc, dim, 2));
    auto [dv, di] = b().topk(xd, 3, dim, true);
    auto [cv, ci] = cpu.topk(xc, 3, dim, true);
    same("topk values", dv, cv);
    same("topk indices", di, ci);
  }
  same("leaky_relu", b().leaky_relu(xd, 0.2), cpu.leaky_relu(xc, 0.2));
  same("softplus", b().softplus(xd, 1.5, 2.0), cpu.softplus(xc, 1.5, 2.0));
  same("elu", b().elu(xd, 1.3), cpu.elu(xc, 1.3));
  same("hard_sigmoid", b().hard_sigmoid(xd, 0.25, 0.5), cpu.hard_sigmoid(xc, 0.25, 0.5));
  same("clamp", b().clamp(xd, Scalar(-1.0), Scalar(0.5)), cpu.clamp(xc, Scalar(-1.0), Scalar(0.5)));
  same("greater_elem", b().greater_elem(xd, Scalar(0.3)), cpu.greater_elem(xc, Scalar(0.3)));
  same("cat", b().cat({xd, xd}, 1), cpu.cat({xc, xc}, 1));
}

}  // namespace
