// The autodiff API on autodiff<cpu>: require_grad, backward, accumulation, detach, the no-grad scope,
// inner/from_inner, Int/Bool pass-through, graph freeing and its errors, the gradient-ready hook.
// Expected values are the closed-form derivatives of each expression.
#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "burn/autodiff/autodiff.hpp"
#include "burn/tensor/grad_ready.hpp"

namespace burn {
namespace {

Device ad() { return Device::get("autodiff<cpu>"); }

std::vector<float> vec(const Tensor<2>& t) { return t.to_vec<float>(); }
std::vector<float> vec(const Tensor<1>& t) { return t.to_vec<float>(); }

void expect_near(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-5f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

TEST(AutodiffApi, SquareSumGradientIsTwiceTheInput) {
  auto x = Tensor<2>::from_vector(std::vector<float>{1, -2, 3, 0.5f}, Shape{2, 2}, ad()).require_grad();
  auto loss = (x * x).sum();
  Gradients grads = loss.backward();
  auto g = x.grad(grads);
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->device(), Device::get("cpu"));  // gradients live on the inner device, as in Burn
  expect_near(vec(*g), {2, -4, 6, 1});
}

TEST(AutodiffApi, GradientsAccumulateOverUses) {
  auto x = Tensor<1>::from_vector(std::vector<float>{1, 2, 3}, Shape{3}, ad()).require_grad();
  // y = x*3 + exp(x) + x  ->  dy/dx = 4 + exp(x)
  auto y = (x * 3.0f + x.exp() + x).sum();
  auto g = x.grad(y.backward());
  ASSERT_TRUE(g);
  expect_near(vec(*g), {4 + std::exp(1.f), 4 + std::exp(2.f), 4 + std::exp(3.f)}, 1e-4f);
}

TEST(AutodiffApi, BroadcastGradientsAreReducedToTheInputShape) {
  auto a = Tensor<2>::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, Shape{2, 3}, ad()).require_grad();
  auto b = Tensor<2>::from_vector(std::vector<float>{10, 20, 30}, Shape{1, 3}, ad()).require_grad();
  auto grads = (a * b).sum().backward();
  expect_near(vec(*a.grad(grads)), {10, 20, 30, 10, 20, 30});
  expect_near(vec(*b.grad(grads)), {5, 7, 9});
}

TEST(AutodiffApi, MatmulGradients) {
  auto a = Tensor<2>::from_vector(std::vector<float>{1, 2, 3, 4}, Shape{2, 2}, ad()).require_grad();
  auto b = Tensor<2>::from_vector(std::vector<float>{5, 6, 7, 8}, Shape{2, 2}, ad()).require_grad();
  auto grads = a.matmul(b).sum().backward();
  // d/da sum(a@b) = ones @ b^T: row sums of b; d/db = a^T @ ones: column sums of a, repeated.
  expect_near(vec(*a.grad(grads)), {11, 15, 11, 15});
  expect_near(vec(*b.grad(grads)), {4, 4, 6, 6});
}

// torch.relu(x).backward(ones) for x = [nan, -1, 0, 2] gives [1, 0, 0, 1]: zero only where the output
// is <= 0, so a NaN passes its gradient (threshold_backward).
TEST(AutodiffApi, ReluGradientFollowsPyTorchAtZeroAndNaN) {
  auto x = Tensor<1>::from_vector(std::vector<float>{NAN, -1, 0, 2}, Shape{4}, ad()).require_grad();
  auto g = x.grad((x.relu() * 3.0f).sum().backward());
  ASSERT_TRUE(g);
  expect_near(vec(*g), {3, 0, 0, 3});
}

TEST(AutodiffApi, UntrackedInputsGetNoGradient) {
  auto x = Tensor<1>::from_vector(std::vector<float>{1, 2}, Shape{2}, ad()).require_grad();
  auto c = Tensor<1>::from_vector(std::vector<float>{3, 4}, Shape{2}, ad());
  auto grads = (x * c).sum().backward();
  EXPECT_FALSE(c.grad(grads).has_value());
  EXPECT_FALSE(c.is_require_grad());
  EXPECT_TRUE(x.is_require_grad());
  EXPECT_TRUE((x * c).is_require_grad());
}

TEST(AutodiffApi, DetachCutsTheGraph) {
  auto x = Tensor<1>::from_vector(std::vector<float>{1, 2}, Shape{2}, ad()).require_grad();
  auto y = x * x.detach();  // d/dx = x (the detached factor is a constant)
  expect_near(vec(*x.grad(y.sum().backward())), {1, 2});
  EXPECT_FALSE(x.detach().is_require_grad());
}

TEST(AutodiffApi, NoGradScopeRecordsNothing) {
  auto x = Tensor<1>::from_vector(std::vector<float>{1, 2}, Shape{2}, ad()).require_grad();
  Tensor<1> y;
  {
    NoGradGuard guard;
    EXPECT_FALSE(grad_enabled());
    y = (x * 2.0f).exp();
  }
  EXPECT_TRUE(grad_enabled());
  EXPECT_FALSE(y.is_require_grad());
  EXPECT_THROW(y.sum().backward(), ValueError);
}

TEST(AutodiffApi, IntAndBoolPassThroughUntracked) {
  auto x = Tensor<2>::from_vector(std::vector<float>{1, 5, 3, 2}, Shape{2, 2}, ad()).require_grad();
  Tensor<2, Int> idx = x.argmax(1);
  EXPECT_EQ(idx.to_vec<int64_t>(), (std::vector<int64_t>{1, 0}));
  Tensor<2, Bool> m = x.greater_elem(2.0);
  EXPECT_FALSE(m.is_require_grad());
  // Zero gradient almost everywhere, tracked as in PyTorch: backward gives no gradient (zeros).
  EXPECT_TRUE(x.floor().is_require_grad());
  EXPECT_FALSE(x.grad(x.floor().sum().backward()).has_value());
}

TEST(AutodiffApi, InnerAndFromInnerRoundTrip) {
  auto x = Tensor<1>::from_vector(std::vector<float>{1, 2}, Shape{2}, ad()).require_grad();
  Tensor<1> inner = x.inner();
  EXPECT_EQ(inner.device(), Device::get("cpu"));
  auto back = Tensor<1>::from_inner(inner, ad());
  EXPECT_EQ(back.device(), ad());
  EXPECT_FALSE(back.is_require_grad());
  expect_near(vec(back), {1, 2});
  EXPECT_THROW(Tensor<1>::from_inner(inner, Device::get("cpu")), DeviceError);
  EXPECT_THROW(Tensor<1>::from_inner(x, ad()), DeviceError);  // x is already on the autodiff device
}

TEST(AutodiffApi, GradRemoveAndReplace) {
  auto x = Tensor<1>::from_vector(std::vector<float>{1, 2}, Shape{2}, ad()).require_grad();
  Gradients grads = (x * 3.0f).sum().backward();
  auto inner_dev = Device::get("cpu");
  x.grad_replace(grads, Tensor<1>::from_vector(std::vector<float>{7, 8}, Shape{2}, inner_dev));
  expect_near(vec(*x.grad(grads)), {7, 8});
  auto removed = x.grad_remove(grads);
  ASSERT_TRUE(removed);
  EXPECT_FALSE(x.grad(grads).has_value());
  EXPECT_THROW(x.grad_replace(grads, Tensor<1>::zeros(Shape{3}, inner_dev)), ShapeError);
}

TEST(AutodiffApi, BackwardFreesTheGraphUnlessRetained) {
  auto x = Tensor<1>::from_vector(std::vector<float>{1, 2}, Shape{2}, ad()).require_grad();
  auto y = (x.exp() * 2.0f).sum();
  y.backward(BackwardOptions{.retain_graph = true});
  auto g2 = x.grad(y.backward());  // the retained graph runs again
  expect_near(vec(*g2), {2 * std::exp(1.f), 2 * std::exp(2.f)}, 1e-4f);
  try {
    y.backward();
    FAIL() << "backward on a freed graph must throw";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("retain_graph"), std::string::npos) << e.what();
  }
  // The leaf survives: a new graph over the same parameter works.
  expect_near(vec(*x.grad((x * x).sum().backward())), {2, 4});
}

TEST(AutodiffApi, ErrorsOnDevicesWithoutAutodiff) {
  auto cpu = Device::get("cpu");
  auto x = Tensor<1>::from_vector(std::vector<float>{1, 2}, Shape{2}, cpu);
  try {
    x.require_grad();
    FAIL() << "require_grad on cpu must throw";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("autodiff<cpu>"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(x.is_require_grad());
  EXPECT_THROW(x.sum().backward(), Unsupported);
  EXPECT_THROW(x.inner(), Unsupported);
  EXPECT_FALSE(x.set_require_grad(false).is_require_grad());
}

TEST(AutodiffApi, NonLeafRequireGradKeepsItsGradient) {
  auto x = Tensor<1>::from_vector(std::vector<float>{1, 2}, Shape{2}, ad()).require_grad();
  auto h = (x * 2.0f).require_grad();  // PyTorch's retain_grad
  auto grads = (h * h).sum().backward();
  expect_near(vec(*h.grad(grads)), {4, 8});
  expect_near(vec(*x.grad(grads)), {8, 16});
}

TEST(AutodiffApi, SecondOrderOfACube) {
  auto x = Tensor<1>::from_vector(std::vector<float>{1, 2, -1}, Shape{3}, ad()).require_grad();
  auto y = (x * x * x).sum();
  Gradients g1 = y.backward(BackwardOptions{.create_graph = true});
  auto dx = x.grad(g1);
  ASSERT_TRUE(dx);
  EXPECT_EQ(dx->device(), ad());
  expect_near(vec(*dx), {3, 12, 3});  // 3x^2
  auto d2 = x.grad(dx->sum().backward());
  ASSERT_TRUE(d2);
  expect_near(vec(*d2), {6, 12, -6});  // 6x
}

TEST(AutodiffApi, TwoThreadsBuildSeparateGraphs) {
  auto w = Tensor<1>::from_vector(std::vector<float>{0.5f, -1.5f, 2}, Shape{3}, ad()).require_grad();
  std::vector<float> r1, r2;
  auto run = [&](float k, std::vector<float>& out) {
    for (int i = 0; i < 200; ++i) {
      auto x = Tensor<1>::full(Shape{3}, k, ad());
      auto loss = ((w * x).exp() * k).sum();
      out = vec(*w.grad(loss.backward()));
    }
  };
  std::thread t1(run, 1.0f, std::ref(r1)), t2(run, 2.0f, std::ref(r2));
  t1.join();
  t2.join();
  // d/dw sum(k exp(w k)) = k^2 exp(w k)
  expect_near(r1, {std::exp(0.5f), std::exp(-1.5f), std::exp(2.f)}, 1e-4f);
  expect_near(r2, {4 * std::exp(1.f), 4 * std::exp(-3.f), 4 * std::exp(4.f)}, 1e-3f);
}

TEST(AutodiffApi, DeepChainsDoNotOverflowTheStack) {
  auto x = Tensor<1>::from_vector(std::vector<float>{1}, Shape{1}, ad()).require_grad();
  auto y = x;
  for (int i = 0; i < 100000; ++i) y = y + 0.0f;
  expect_near(vec(*x.grad(y.sum().backward())), {1});
  // Dropping an unfreed deep graph must not recurse either.
  auto z = x;
  for (int i = 0; i < 100000; ++i) z = z * 1.0f;
}

}  // namespace
// The autodiff hook: each parameter's gradient once, final (equal to what backward returns), the
// last layer's first.
TEST(AutodiffApi, GradReadyHookTellsEachGradientOnceWhenFinal) {
  const auto w1 = Tensor<2>::from_vector<float>({1, 2, 3, 4}, Shape{2, 2}, ad()).require_grad();
  const auto w2 = Tensor<2>::from_vector<float>({0.5f, -1}, Shape{2, 1}, ad()).require_grad();
  const auto x = Tensor<2>::from_vector<float>({1, -1, 2, 0.5f}, Shape{2, 2}, ad());
  std::vector<std::pair<uint64_t, TensorData>> told;
  Gradients g;
  {
    GradReadyScope scope([&](uint64_t key, const TensorHandle& grad) { told.emplace_back(key, api::into_data(grad)); });
    // w1 is read twice: its gradient is final only after both uses have contributed.
    const auto h = x.matmul(w1) + x.matmul(w1);
    g = h.matmul(w2).sum().backward();
  }
  ASSERT_EQ(told.size(), 2u);
  EXPECT_EQ(told[0].second, w2.grad(g)->into_data()) << "the last layer's gradient first";
  EXPECT_EQ(told[1].second, w1.grad(g)->into_data());
  EXPECT_EQ(api::into_data(*g.get(told[0].first)), told[0].second) << "the key is the gradient's in Gradients";
  // Outside the scope nothing is told.
  x.matmul(w1).sum().backward();
  EXPECT_EQ(told.size(), 2u);
}

}  // namespace burn
