// Unit tests of the cpu backend's numeric, matmul, float-math, activation and reduce kernels, driven
// through CpuBackend directly. Expected values are hand-computed or printed by PyTorch 1.13
// (/usr/bin/python3); the torch expression is named next to each.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "cpu_backend.hpp"
#include "cpu_tensor.hpp"
#include "cpu_test_fixture.hpp"
#include "ops/blas.hpp"
#include "ops/elementwise_fns.hpp"
#include "ops/simd_avx2.hpp"
#include "ops/simd_avx512.hpp"
#include "ops/softmax_kernels.hpp"
#include "storage_pool.hpp"

namespace burn::cpu {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

class CpuMath : public CpuBackendTest {
 protected:
  static void near(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-6f) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      if (std::isnan(want[i]))
        EXPECT_TRUE(std::isnan(got[i])) << "at " << i;
      else
        EXPECT_NEAR(got[i], want[i], tol * std::max(1.0f, std::fabs(want[i]))) << "at " << i;
    }
  }
  // Plain triple loop over contiguous row-major operands, for checking GEMM results.
  static std::vector<float> ref_matmul(const std::vector<float>& a, const std::vector<float>& c, int64_t m, int64_t k,
                                       int64_t n) {
    std::vector<float> out(static_cast<size_t>(m * n), 0.0f);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t p = 0; p < k; ++p)
        for (int64_t j = 0; j < n; ++j) out[i * n + j] += a[i * k + p] * c[p * n + j];
    return out;
  }
};

template <typename E, typename F>
void expect_error(F f, const std::string& fragment) {
  try {
    f();
    ADD_FAILURE() << "expected an exception containing: " << fragment;
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

// ---- numeric ------------------------------------------------------------------------------------

TEST_F(CpuMath, AddBroadcastsAndChecksDtypes) {
  // torch.tensor([[1., 2., 3.], [4., 5., 6.]]) + torch.tensor([10., 20., 30.])
  EXPECT_EQ(vals<float>(b.add(iota({2, 3}, 1), f32({10, 20, 30}, {3}))), (std::vector<float>{11, 22, 33, 14, 25, 36}));
  EXPECT_EQ(vals<int64_t>(b.sub(i64({5, 7}, {2, 1}), i64({1, 2, 3}, {1, 3}))),
            (std::vector<int64_t>{4, 3, 2, 6, 5, 4}));
  expect_error<DTypeError>([&] { b.add(iota({2}), i64({1, 2}, {2})); }, "[add]");
  expect_error<DTypeError>([&] { b.mul(boolean({true}, {1}), boolean({true}, {1})); }, "got bool");
  expect_error<ShapeError>([&] { b.add(iota({2, 3}), iota({2})); }, "[add]");
}

TEST_F(CpuMath, IntDivTruncatesAndRemainderFollowsDivisor) {
  // torch.div(a, b, rounding_mode="trunc"), torch.remainder(a, b) with a = [-7, 7, -7, 7], b = [3, -3, -3, 3]
  const auto a = [&] { return i64({-7, 7, -7, 7}, {4}); };
  const auto d = [&] { return i64({3, -3, -3, 3}, {4}); };
  EXPECT_EQ(vals<int64_t>(b.div(a(), d())), (std::vector<int64_t>{-2, -2, 2, 2}));
  EXPECT_EQ(vals<int64_t>(b.remainder(a(), d())), (std::vector<int64_t>{2, -2, -1, 1}));
  EXPECT_EQ(vals<int32_t>(b.remainder(i32({-7, 7}, {2}), i32({3, -3}, {2}))), (std::vector<int32_t>{2, -2}));
  EXPECT_EQ(vals<int64_t>(b.remainder_scalar(i64({-7, 7}, {2}), Scalar(int64_t{3}))), (std::vector<int64_t>{2, 1}));
  // torch.remainder(torch.tensor([-7.5, 7.5]), torch.tensor([3., -3.])) -> [1.5, -1.5]
  EXPECT_EQ(vals<float>(b.remainder(f32({-7.5f, 7.5f}, {2}), f32({3, -3}, {2}))), (std::vector<float>{1.5f, -1.5f}));
  EXPECT_EQ(vals<int64_t>(b.div(i64({std::numeric_limits<int64_t>::min()}, {1}), i64({-1}, {1}))),
            (std::vector<int64_t>{std::numeric_limits<int64_t>::min()}));
  expect_error<ValueError>([&] { b.div(i64({1, 2}, {2}), i64({1, 0}, {2})); }, "[div] integer division by zero");
  expect_error<ValueError>([&] { b.div_scalar(i32({1}, {1}), Scalar(int64_t{0})); }, "[div_scalar]");
  expect_error<ValueError>([&] { b.remainder(i64({1}, {1}), i64({0}, {1})); }, "[remainder]");
}

TEST_F(CpuMath, PowClampSignMaximum) {
  // torch.pow(torch.tensor([2, -1, 1, 3, 0]), torch.tensor([-1, -3, -2, 3, 0])) -> [0, -1, 1, 27, 1]
  EXPECT_EQ(vals<int64_t>(b.powf(i64({2, -1, 1, 3, 0}, {5}), i64({-1, -3, -2, 3, 0}, {5}))),
            (std::vector<int64_t>{0, -1, 1, 27, 1}));
  near(vals<float>(b.powf_scalar(f32({4, 9}, {2}), Scalar(0.5))), {2, 3});
  near(vals<float>(b.powf_scalar(f32({2, 3}, {2}), Scalar(2.5))), {5.656854f, 15.588457f});
  // torch.clamp(torch.tensor([nan, 5., -5., 0.5]), 0, 1) -> [nan, 1, 0, 0.5]
  near(vals<float>(b.clamp(f32({kNaN, 5, -5, 0.5f}, {4}), Scalar(0.0), Scalar(1.0))), {kNaN, 1, 0, 0.5f});
  // torch.sign(torch.tensor([nan, -0., 2., -3.])) -> [0, 0, 1, -1]
  EXPECT_EQ(vals<float>(b.sign(f32({kNaN, -0.0f, 2, -3}, {4}))), (std::vector<float>{0, 0, 1, -1}));
  EXPECT_EQ(vals<int32_t>(b.abs(i32({-3, 4}, {2}))), (std::vector<int32_t>{3, 4}));
  // torch.maximum(torch.tensor([1., nan]), torch.tensor([nan, 1.])) -> [nan, nan]
  near(vals<float>(b.maximum(f32({1, kNaN, 3}, {3}), f32({kNaN, 1, 2}, {3}))), {kNaN, kNaN, 3});
  near(vals<float>(b.minimum(f32({1, kNaN, 3}, {3}), f32({kNaN, 1, 2}, {3}))), {kNaN, kNaN, 2});
}

TEST_F(CpuMath, UnaryReusesAnOnlyHandle) {
  Prim x = iota({64});
  const void* buf = as_cpu(x, "test")->storage()->data;
  Prim y = b.neg(std::move(x));
  EXPECT_EQ(as_cpu(y, "test")->storage()->data, buf);
  Prim z = b.exp(std::move(y));
  EXPECT_EQ(as_cpu(z, "test")->storage()->data, buf);
  Prim kept = iota({64});
  Prim w = b.neg(kept);
  EXPECT_NE(as_cpu(w, "test")->storage()->data, as_cpu(kept, "test")->storage()->data);
  EXPECT_EQ(vals<float>(kept)[3], 3.0f);
}

// ---- matmul -------------------------------------------------------------------------------------

TEST_F(CpuMath, MatmulPlainAndInt) {
  // [[1, 2], [3, 4]] @ [[5, 6], [7, 8]] = [[19, 22], [43, 50]]
  EXPECT_EQ(vals<float>(b.matmul(f32({1, 2, 3, 4}, {2, 2}), f32({5, 6, 7, 8}, {2, 2}))),
            (std::vector<float>{19, 22, 43, 50}));
  EXPECT_EQ(vals<double>(b.matmul(f64({1, 2, 3, 4}, {2, 2}), f64({5, 6, 7, 8}, {2, 2}))),
            (std::vector<double>{19, 22, 43, 50}));
  EXPECT_EQ(vals<int64_t>(b.matmul(i64({1, 2, 3, 4}, {2, 2}), i64({5, 6, 7, 8}, {2, 2}))),
            (std::vector<int64_t>{19, 22, 43, 50}));
  EXPECT_EQ(vals<int32_t>(b.matmul(i32({1, 2, 3, 4, 5, 6}, {2, 3}), i32({1, 0, 0, 1, 1, 1}, {3, 2}))),
            (std::vector<int32_t>{4, 5, 10, 11}));
}

TEST_F(CpuMath, MatmulBroadcastsBatchDims) {
  // torch.matmul(torch.arange(24.).reshape(2, 3, 4), torch.arange(20.).reshape(1, 4, 5)): first row
  // [70, 76, 82, 88, 94], total 13860.
  const Prim out = b.matmul(iota({2, 3, 4}), iota({1, 4, 5}));
  EXPECT_EQ(out->shape(), (Shape{2, 3, 5}));
  const auto v = vals<float>(out);
  EXPECT_EQ(std::vector<float>(v.begin(), v.begin() + 5), (std::vector<float>{70, 76, 82, 88, 94}));
  EXPECT_EQ(std::accumulate(v.begin(), v.end(), 0.0), 13860.0);
  // [1, 2, 2] x [3, 2, 2]: lhs broadcast over rhs's batch.
  const Prim c = b.matmul(f32({1, 0, 0, 1}, {1, 2, 2}), iota({3, 2, 2}));
  EXPECT_EQ(c->shape(), (Shape{3, 2, 2}));
  EXPECT_EQ(vals<float>(c), vals<float>(iota({3, 2, 2})));
  // [2, 1, 2, 3] x [1, 3, 3, 2] -> [2, 3, 2, 2]: both sides broadcast.
  const Prim d = b.matmul(iota({2, 1, 2, 3}), iota({1, 3, 3, 2}));
  EXPECT_EQ(d->shape(), (Shape{2, 3, 2, 2}));
  const auto dv = vals<float>(d);
  const auto av = vals<float>(iota({2, 1, 2, 3})), bv = vals<float>(iota({1, 3, 3, 2}));
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j) {
      const auto r = ref_matmul(std::vector<float>(av.begin() + i * 6, av.begin() + i * 6 + 6),
                                std::vector<float>(bv.begin() + j * 6, bv.begin() + j * 6 + 6), 2, 3, 2);
      EXPECT_EQ(std::vector<float>(dv.begin() + (i * 3 + j) * 4, dv.begin() + (i * 3 + j) * 4 + 4), r);
    }
}

TEST_F(CpuMath, MatmulReadsTransposedAndStridedViews) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> av(37 * 23), bv(23 * 19);
  for (auto& v : av) v = u(gen);
  for (auto& v : bv) v = u(gen);
  const auto want = ref_matmul(av, bv, 37, 23, 19);
  // Transposed views: lhs^T^T and rhs as permute of a [19, 23] buffer.
  std::vector<float> at(av.size()), bt(bv.size());
  for (int i = 0; i < 37; ++i)
    for (int p = 0; p < 23; ++p) at[p * 37 + i] = av[i * 23 + p];
  for (int p = 0; p < 23; ++p)
    for (int j = 0; j < 19; ++j) bt[j * 23 + p] = bv[p * 19 + j];
  const Prim lhs_t = b.permute(f32(at, {23, 37}), {1, 0});
  const Prim rhs_t = b.permute(f32(bt, {19, 23}), {1, 0});
  near(vals<float>(b.matmul(lhs_t, rhs_t)), want, 1e-5f);
  near(vals<float>(b.matmul(f32(av, {37, 23}), rhs_t)), want, 1e-5f);
  // A sliced view (row stride larger than its width) and a flipped one that needs a copy.
  const Prim wide = f32(std::vector<float>(37 * 30, 0.0f), {37, 30});
  const Prim sliced = b.slice_assign(wide, {{0, 37, 1}, {0, 23, 1}}, f32(av, {37, 23}));
  near(vals<float>(b.matmul(b.slice(sliced, {{0, 37, 1}, {0, 23, 1}}), f32(bv, {23, 19}))), want, 1e-5f);
  // Flipping both sides along the inner dim reverses the sum's order only; GEMM needs copies here.
  near(vals<float>(b.matmul(b.flip(f32(av, {37, 23}), {1}), b.flip(f32(bv, {23, 19}), {0}))), want, 1e-5f);
  // Batched with an expanded (stride 0) rhs.
  const Prim batched =
      b.matmul(b.expand(f32(av, {1, 37, 23}), {4, 37, 23}), b.expand(f32(bv, {1, 23, 19}), {4, 23, 19}));
  const auto bvals = vals<float>(batched);
  near(std::vector<float>(bvals.end() - 37 * 19, bvals.end()), want, 1e-5f);
}

// Single products between OpenBLAS's threading threshold (m n k = 2^18) and 2^22 run as blocks of columns
// (m < n) or rows over the pool: a ResNet classifier shape, and a tall one read through transposed views.
TEST_F(CpuMath, MatmulSplitsMidSizedProductsOverThePool) {
  const size_t threads = num_threads();
  set_num_threads(2);
  std::mt19937 gen(11);
  std::uniform_real_distribution<float> u(-1, 1);
  const auto rand = [&](size_t n) {
    std::vector<float> v(n);
    for (auto& x : v) x = u(gen);
    return v;
  };
  const std::vector<float> a1 = rand(512), b1 = rand(512 * 1000);
  near(vals<float>(b.matmul(f32(a1, {1, 512}), f32(b1, {512, 1000}))), ref_matmul(a1, b1, 1, 512, 1000), 1e-4f);
  const std::vector<float> a2 = rand(700 * 300), b2 = rand(300 * 3);
  std::vector<float> a2t(a2.size()), b2t(b2.size());
  for (int i = 0; i < 700; ++i)
    for (int p = 0; p < 300; ++p) a2t[p * 700 + i] = a2[i * 300 + p];
  for (int p = 0; p < 300; ++p)
    for (int j = 0; j < 3; ++j) b2t[j * 300 + p] = b2[p * 3 + j];
  const Prim lhs = b.permute(f32(a2t, {300, 700}), {1, 0}), rhs = b.permute(f32(b2t, {3, 300}), {1, 0});
  near(vals<float>(b.matmul(lhs, rhs)), ref_matmul(a2, b2, 700, 300, 3), 1e-4f);
  // Columns of a transposed rhs ([1000, 512] buffer seen as [512, 1000]), in f64.
  std::vector<double> a3(a1.begin(), a1.end()), b3t(b1.size());
  for (int p = 0; p < 512; ++p)
    for (int j = 0; j < 1000; ++j) b3t[j * 512 + p] = b1[p * 1000 + j];
  const auto want = ref_matmul(a1, b1, 1, 512, 1000);
  const auto got = vals<double>(b.matmul(f64(a3, {1, 512}), b.permute(f64(b3t, {1000, 512}), {1, 0})));
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-4) << i;
  set_num_threads(threads);
}

// The pool's split of one GEMM (ops/blas.cpp) against a naive product: row and column blocks, every
// transpose, alpha, beta over an existing C and leading dims wider than the matrices; one-row and
// one-column products (taken as matrix-vector products), and beta 0 over a C of NaN, which must not leak.
TEST(CpuBlas, SplitGemmMatchesANaiveProduct) {
  const size_t threads = num_threads();
  set_num_threads(2);
  std::mt19937 gen(5);
  std::uniform_real_distribution<float> u(-1, 1);
  struct Case {
    int64_t m, n, k;
  };
  for (const Case cs : {Case{300, 40, 70}, Case{24, 900, 50}, Case{64, 128, 3136}, Case{1, 1000, 512}, Case{1, 7, 5},
                        Case{700, 1, 400}, Case{9, 1, 6}, Case{1, 1, 33}})
    for (const bool ta : {false, true})
      for (const bool tb : {false, true})
        for (const float beta : {2.0f, 0.0f}) {
          const int64_t m = cs.m, n = cs.n, k = cs.k, pad = 3;
          const int64_t lda = (ta ? m : k) + pad, ldb = (tb ? k : n) + pad, ldc = n + pad;
          std::vector<float> a((ta ? k : m) * lda), bm((tb ? n : k) * ldb), c(m * ldc);
          for (auto* v : {&a, &bm, &c})
            for (auto& x : *v) x = u(gen);
          if (beta == 0.0f)
            for (int64_t i = 0; i < m; ++i)
              for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = std::numeric_limits<float>::quiet_NaN();
          const std::vector<float> c0 = c;
          blas_gemm(ta, tb, m, n, k, 0.5f, a.data(), lda, bm.data(), ldb, beta, c.data(), ldc);
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < ldc; ++j) {
              if (j >= n) {
                ASSERT_EQ(c[i * ldc + j], c0[i * ldc + j]) << "padding written at " << i << "," << j;
                continue;
              }
              double acc = 0;
              for (int64_t p = 0; p < k; ++p)
                acc += double(ta ? a[p * lda + i] : a[i * lda + p]) * double(tb ? bm[j * ldb + p] : bm[p * ldb + j]);
              const double want = 0.5 * acc + (beta == 0.0f ? 0.0 : beta * c0[i * ldc + j]);
              ASSERT_NEAR(c[i * ldc + j], want, 2e-4) << m << "x" << n << "x" << k << " ta " << ta << " tb " << tb
                                                      << " beta " << beta << " at " << i << "," << j;
            }
        }
  set_num_threads(threads);
}

TEST_F(CpuMath, MatmulErrors) {
  expect_error<ShapeError>(
      [&] {
        b.matmul(iota({3, 4}), iota({5, 6}));
      },
      "[matmul] lhs [3, 4] and rhs [5, 6]: inner dimensions differ");
  expect_error<ShapeError>(
      [&] {
        b.matmul(iota({2, 3, 4}), iota({3, 4, 5}));
      },
      "batch dimensions are not broadcastable");
  expect_error<DTypeError>([&] { b.matmul(iota({2, 2}), i64({1, 2, 3, 4}, {2, 2})); }, "[matmul]");
}

// ---- reductions ---------------------------------------------------------------------------------

TEST_F(CpuMath, SumDimFirstAndLast) {
  const Prim x = iota({2, 3});  // [[0, 1, 2], [3, 4, 5]]
  const Prim s0 = b.sum_dim(x, 0);
  EXPECT_EQ(s0->shape(), (Shape{1, 3}));
  EXPECT_EQ(vals<float>(s0), (std::vector<float>{3, 5, 7}));
  const Prim s1 = b.sum_dim(x, 1);
  EXPECT_EQ(s1->shape(), (Shape{2, 1}));
  EXPECT_EQ(vals<float>(s1), (std::vector<float>{3, 12}));
  EXPECT_EQ(vals<float>(b.sum_dim(b.permute(x, {1, 0}), 1)), (std::vector<float>{3, 5, 7}));
  const Prim full = b.sum(x);
  EXPECT_EQ(full->shape(), (Shape{1}));
  EXPECT_EQ(vals<float>(full), (std::vector<float>{15}));
  // Large enough to run on the pool and to split the reduced dim: sum of 0..n-1 in f64.
  const int64_t n = 1 << 20;
  std::vector<double> big(static_cast<size_t>(n));
  std::iota(big.begin(), big.end(), 0.0);
  EXPECT_EQ(vals<double>(b.sum(f64(big, {n})))[0], double(n) * double(n - 1) / 2);
  const auto cols = vals<double>(b.sum_dim(f64(big, {n / 512, 512}), 0));
  for (int64_t j = 0; j < 512; ++j) {
    const double rows = n / 512;
    ASSERT_EQ(cols[j], 512.0 * rows * (rows - 1) / 2 + rows * j);
  }
  EXPECT_EQ(vals<int32_t>(b.sum_dim(i32({1, 2, 3, 4}, {2, 2}), 1)), (std::vector<int32_t>{3, 7}));
}

TEST_F(CpuMath, MeanProdAnyAll) {
  EXPECT_EQ(vals<float>(b.mean_dim(iota({2, 3}), 1)), (std::vector<float>{1, 4}));
  // Int mean truncates the sum's division (Burn): (1 + 2 + 4) / 3 = 2, (-1 - 2 - 4) / 3 = -2.
  EXPECT_EQ(vals<int64_t>(b.mean_dim(i64({1, 2, 4, -1, -2, -4}, {2, 3}), 1)), (std::vector<int64_t>{2, -2}));
  EXPECT_EQ(vals<float>(b.prod(f32({1, 2, 3, 4}, {4}))), (std::vector<float>{24}));
  EXPECT_EQ(vals<int64_t>(b.prod_dim(i64({1, 2, 3, 4, 5, 6}, {2, 3}), 0)), (std::vector<int64_t>{4, 10, 18}));
  EXPECT_EQ(vals<bool>(b.any_dim(boolean({false, false, true, false}, {2, 2}), 1)), (std::vector<bool>{false, true}));
  EXPECT_EQ(vals<bool>(b.all(f32({1, 2, 0}, {3}))), (std::vector<bool>{false}));
  EXPECT_EQ(vals<bool>(b.any(f32({0, kNaN}, {2}))), (std::vector<bool>{true}));
}

TEST_F(CpuMath, MaxMinPropagateNaNAndArgmaxTakesTheFirst) {
  // torch.tensor([[1., nan, 3.], [4., 5., 5.]]).max(dim=1) -> values [nan, 5], indices [1, 1]
  const auto x = [&] { return f32({1, kNaN, 3, 4, 5, 5}, {2, 3}); };
  near(vals<float>(b.max(x())), {kNaN});
  near(vals<float>(b.max_dim(x(), 1)), {kNaN, 5});
  near(vals<float>(b.min_dim(x(), 1)), {kNaN, 4});
  const auto [mv, mi] = b.max_dim_with_indices(x(), 1);
  near(vals<float>(mv), {kNaN, 5});
  EXPECT_EQ(vals<int64_t>(mi), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(vals<int64_t>(b.argmax(x(), 1)), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(vals<int64_t>(b.argmin(x(), 1)), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(vals<int64_t>(b.argmax(x(), 0)), (std::vector<int64_t>{1, 0, 1}));
  EXPECT_EQ(vals<int64_t>(b.argmax(i64({3, 7, 7, 1}, {4}), 0)), (std::vector<int64_t>{1}));
  EXPECT_EQ(vals<float>(b.max(f32({-3, -1, -2}, {3}))), (std::vector<float>{-1}));
  EXPECT_EQ(vals<int32_t>(b.min(i32({3, -1, 2}, {3}))), (std::vector<int32_t>{-1}));
  expect_error<ValueError>([&] { b.max(f32({}, {0})); }, "[max]");
  expect_error<IndexError>([&] { b.sum_dim(iota({2, 3}), 2); }, "[sum_dim] dim 2 is out of range");
}

// Long rows (the block path: 256-element blocks skipped unless they beat the best so far or hold a NaN or an
// infinity) against a naive first-wins walk: the extreme in the first, a middle and the tail block, ties of the
// extreme across blocks, a NaN after the extreme (the first NaN wins), infinities, a constant row, f32 and i32.
TEST_F(CpuMath, ArgmaxArgminOfLongRowsTakeTheFirstExtreme) {
  const int64_t n = 1000;  // three whole blocks and a tail
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-100.0f, 100.0f);
  std::vector<std::vector<float>> rows;
  for (int64_t at : {int64_t{3}, int64_t{600}, int64_t{990}}) {
    std::vector<float> r(n);
    for (float& v : r) v = u(rng);
    r[static_cast<size_t>(at)] = 500.0f;
    r[static_cast<size_t>(at / 2)] = -500.0f;
    rows.push_back(r);
  }
  std::vector<float> ties(n);
  for (int64_t i = 0; i < n; ++i) ties[static_cast<size_t>(i)] = static_cast<float>(i % 300 == 7 ? 9 : i % 5);
  rows.push_back(ties);
  std::vector<float> nan_row = rows[0];
  nan_row[700] = kNaN, nan_row[800] = kNaN;
  rows.push_back(nan_row);
  std::vector<float> inf_row = rows[1];
  inf_row[300] = std::numeric_limits<float>::infinity(), inf_row[310] = -std::numeric_limits<float>::infinity();
  rows.push_back(inf_row);
  rows.push_back(std::vector<float>(n, 2.5f));
  auto naive = [](const std::vector<float>& r, bool max) {
    int64_t best = 0;
    for (size_t i = 1; i < r.size(); ++i) {
      const float v = r[i], m = r[static_cast<size_t>(best)];
      if ((max ? v > m : v < m) || (std::isnan(v) && !std::isnan(m))) best = static_cast<int64_t>(i);
    }
    return best;
  };
  std::vector<float> all;
  std::vector<int64_t> want_max, want_min;
  for (const auto& r : rows) {
    all.insert(all.end(), r.begin(), r.end());
    want_max.push_back(naive(r, true));
    want_min.push_back(naive(r, false));
  }
  const Shape shape{static_cast<int64_t>(rows.size()), n};
  EXPECT_EQ(vals<int64_t>(b.argmax(f32(all, shape), 1)), want_max);
  EXPECT_EQ(vals<int64_t>(b.argmin(f32(all, shape), 1)), want_min);
  const auto [mv, mi] = b.max_dim_with_indices(f32(all, shape), 1);
  EXPECT_EQ(vals<int64_t>(mi), want_max);
  // Integers: the rows without NaN, rounded.
  std::vector<int32_t> ints;
  std::vector<int64_t> want_imax, want_imin;
  for (size_t r = 0; r < rows.size(); ++r) {
    if (r == 4 || r == 5) continue;  // the NaN and infinity rows
    std::vector<float> rounded(rows[r].size());
    for (size_t i = 0; i < rounded.size(); ++i) rounded[i] = std::round(rows[r][i]);
    for (float v : rounded) ints.push_back(static_cast<int32_t>(v));
    want_imax.push_back(naive(rounded, true));
    want_imin.push_back(naive(rounded, false));
  }
  const Shape ishape{static_cast<int64_t>(want_imax.size()), n};
  EXPECT_EQ(vals<int64_t>(b.argmax(i32(ints, ishape), 1)), want_imax);
  EXPECT_EQ(vals<int64_t>(b.argmin(i32(ints, ishape), 1)), want_imin);
}

TEST_F(CpuMath, VarWithCorrection) {
  // torch.var(torch.tensor([[1., 2., 3.], [4., 6., 9.]]), 0, correction=1) -> [4.5, 8, 18]
  const auto x = [&] { return f32({1, 2, 3, 4, 6, 9}, {2, 3}); };
  near(vals<float>(b.var(x(), 0, 1)), {4.5f, 8.0f, 18.0f});
  // torch.var(..., 1, unbiased=False) -> [0.6666667, 4.2222223]
  near(vals<float>(b.var(x(), 1, 0)), {0.6666667f, 4.2222223f});
  expect_error<DTypeError>([&] { b.var(i64({1, 2}, {2}), 0, 1); }, "[var] expected a float tensor");
}

TEST_F(CpuMath, CumulativeOps) {
  // torch.cumsum(torch.tensor([[1, 2, 3], [4, 5, 6]]), 0) -> [[1, 2, 3], [5, 7, 9]]
  EXPECT_EQ(vals<int64_t>(b.cumsum(i64({1, 2, 3, 4, 5, 6}, {2, 3}), 0)), (std::vector<int64_t>{1, 2, 3, 5, 7, 9}));
  EXPECT_EQ(vals<float>(b.cumsum(iota({2, 3}), 1)), (std::vector<float>{0, 1, 3, 3, 7, 12}));
  EXPECT_EQ(vals<float>(b.cumprod(f32({1, 2, 3, 4}, {4}), 0)), (std::vector<float>{1, 2, 6, 24}));
  // torch.cummax(torch.tensor([1., 3., nan, 2.]), 0).values -> [1, 3, nan, nan]
  near(vals<float>(b.cummax(f32({1, 3, kNaN, 2}, {4}), 0)), {1, 3, kNaN, kNaN});
  EXPECT_EQ(vals<int32_t>(b.cummin(i32({3, 1, 2, 0}, {4}), 0)), (std::vector<int32_t>{3, 1, 1, 0}));
}

TEST_F(CpuMath, SortIsStableWithTiesAndNaNLargest) {
  // torch.sort(torch.tensor([2., 1., nan, 1., 2.]), stable=True) -> [1, 1, 2, 2, nan], [1, 3, 0, 4, 2]
  const auto x = [&] { return f32({2, 1, kNaN, 1, 2}, {5}); };
  auto [v, i] = b.sort(x(), 0, false, true);
  near(vals<float>(v), {1, 1, 2, 2, kNaN});
  EXPECT_EQ(vals<int64_t>(i), (std::vector<int64_t>{1, 3, 0, 4, 2}));
  // descending=True, stable=True -> [nan, 2, 2, 1, 1], [2, 0, 4, 1, 3]
  auto [dv, di] = b.sort(x(), 0, true, true);
  near(vals<float>(dv), {kNaN, 2, 2, 1, 1});
  EXPECT_EQ(vals<int64_t>(di), (std::vector<int64_t>{2, 0, 4, 1, 3}));
  // Along dim 0 of a [3, 2].
  auto [cv, ci] = b.sort(i64({3, 1, 1, 2, 2, 0}, {3, 2}), 0, false, true);
  EXPECT_EQ(vals<int64_t>(cv), (std::vector<int64_t>{1, 0, 2, 1, 3, 2}));
  EXPECT_EQ(vals<int64_t>(ci), (std::vector<int64_t>{1, 2, 2, 0, 0, 1}));
  EXPECT_EQ(vals<int64_t>(b.argsort(x(), 0, true, true)), (std::vector<int64_t>{2, 0, 4, 1, 3}));
}

TEST_F(CpuMath, TopK) {
  // torch.topk(torch.tensor([3., 1., 4., 1., 5., 9., 2., 6.]), 3) -> [9, 6, 5], [5, 7, 4]
  auto [v, i] = b.topk(f32({3, 1, 4, 1, 5, 9, 2, 6}, {8}), 3, 0, true);
  EXPECT_EQ(v->shape(), (Shape{3}));
  EXPECT_EQ(vals<float>(v), (std::vector<float>{9, 6, 5}));
  EXPECT_EQ(vals<int64_t>(i), (std::vector<int64_t>{5, 7, 4}));
  auto [sv, si] = b.topk(f32({3, 1, 4, 1, 5, 9, 2, 6}, {2, 4}), 2, 1, false);
  EXPECT_EQ(vals<float>(sv), (std::vector<float>{1, 1, 2, 5}));
  EXPECT_EQ(vals<int64_t>(si), (std::vector<int64_t>{1, 3, 2, 0}));
  expect_error<IndexError>([&] { b.topk(iota({4}), 5, 0, true); }, "[topk]");
}

// ---- float math and activations ------------------------------------------------------------------

TEST_F(CpuMath, FloatMathRejectsInts) {
  expect_error<DTypeError>([&] { b.exp(i64({1}, {1})); }, "[exp] expected a float tensor");
  expect_error<DTypeError>([&] { b.sigmoid(i32({1}, {1})); }, "[sigmoid]");
  expect_error<DTypeError>([&] { b.softmax(i64({1}, {1}), 0); }, "[softmax]");
}

TEST_F(CpuMath, ExpMatchesLibm) {
  // The special values both first (inside the 16-wide AVX2 body) and last (in the scalar tail).
  const std::vector<float> special = {
      kNaN, std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(), -100.0f, 88.5f, -0.0f};
  std::vector<float> xs = special;
  for (float v = -110.0f; v < 95.0f; v += 0.37f) xs.push_back(v);
  xs.insert(xs.end(), special.begin(), special.end());
  const auto got = vals<float>(b.exp(f32(xs, {static_cast<int64_t>(xs.size())})));
  for (size_t i = 0; i < xs.size(); ++i) {
    const float want = std::exp(xs[i]);
    if (std::isnan(want))
      EXPECT_TRUE(std::isnan(got[i]));
    else if (std::isinf(want))
      EXPECT_EQ(got[i], want) << xs[i];
    else
      EXPECT_NEAR(got[i], want, 2e-7f * want + 1e-37f) << xs[i];
  }
  near(vals<float>(b.log(f32({1, std::exp(2.0f)}, {2}))), {0, 2});
  EXPECT_EQ(vals<float>(b.round(f32({0.5f, 1.5f, 2.5f, -0.5f}, {4}))), (std::vector<float>{0, 2, 2, -0.0f}));
  EXPECT_EQ(vals<bool>(b.is_nan(f32({kNaN, 1}, {2}))), (std::vector<bool>{true, false}));
  EXPECT_EQ(vals<bool>(b.is_finite(f32({kNaN, 1, std::numeric_limits<float>::infinity()}, {3}))),
            (std::vector<bool>{false, true, false}));
}

// exp scales by 2^n through the exponent bits while every lane's result is normal and by two factors
// otherwise (simd_avx2.hpp, exp8): inputs around both edges, shuffled so that vectors mix the two
// kinds, each within 2 ulp of the double exp (and the denormals within 2 denormal steps).
TEST_F(CpuMath, ExpAcrossTheNormalRangeEdgesMatchesLibm) {
  std::vector<float> xs;
  for (float v = -104.5f; v < -85.0f; v += 1.0e-3f) xs.push_back(v);
  for (float v = 87.0f; v < 89.5f; v += 1.0e-4f) xs.push_back(v);
  for (float v = -2.0f; v < 2.0f; v += 1.0e-3f) xs.push_back(v);
  xs.push_back(kNaN);
  std::shuffle(xs.begin(), xs.end(), std::mt19937(7));
  const auto got = vals<float>(b.exp(f32(xs, {static_cast<int64_t>(xs.size())})));
  const float denorm = std::numeric_limits<float>::denorm_min();
  for (size_t i = 0; i < xs.size(); ++i) {
    const double want = std::exp(static_cast<double>(xs[i]));
    if (std::isnan(xs[i])) {
      EXPECT_TRUE(std::isnan(got[i]));
    } else if (want > std::numeric_limits<float>::max()) {
      EXPECT_EQ(got[i], std::numeric_limits<float>::infinity()) << xs[i];
    } else if (want >= std::numeric_limits<float>::min()) {
      EXPECT_NEAR(got[i], want, 2.4e-7 * want) << xs[i];
    } else {
      EXPECT_NEAR(got[i], want, 2.0 * denorm) << xs[i];
    }
  }
}

TEST_F(CpuMath, ActivationsMatchTorch) {
  const std::vector<float> v{-3.0f, -1.0f, -0.1f, 0.0f, 0.5f, 2.0f, 10.0f};
  const auto x = [&] { return f32(v, {7}); };
  // Each torch.nn.functional.<name>(torch.tensor(v), ...) printed with %.8g.
  near(vals<float>(b.gelu(x())), {-0.0040498674f, -0.15865529f, -0.046017211f, 0.0f, 0.3457312f, 1.9545f, 10.0f},
       1e-6f);
  near(vals<float>(b.gelu_tanh(x())), {-0.0036374331f, -0.15880799f, -0.046017248f, 0.0f, 0.345714f, 1.9545977f, 10.0f},
       1e-6f);
  near(vals<float>(b.sigmoid(x())),
       {0.047425874f, 0.26894143f, 0.4750208f, 0.5f, 0.62245935f, 0.88079703f, 0.99995458f});
  near(vals<float>(b.log_sigmoid(x())),
       {-3.0485873f, -1.3132617f, -0.74439669f, -0.69314718f, -0.47407699f, -0.12692802f, -4.5398901e-05f});
  near(vals<float>(b.silu(x())),
       {-0.14227761f, -0.26894143f, -0.047502082f, 0.0f, 0.31122968f, 1.7615941f, 9.9995461f});
  near(vals<float>(b.mish(x())), {-0.14564747f, -0.30340144f, -0.056788571f, 0.0f, 0.37524524f, 1.943959f, 10.0f});
  // F.softplus(x, beta=2.0, threshold=5.0)
  near(vals<float>(b.softplus(x(), 2.0, 5.0)),
       {0.0012378426f, 0.063464001f, 0.29906943f, 0.34657359f, 0.65663081f, 2.0090749f, 10.0f});
  // F.hardsigmoid(x) == hard_sigmoid(alpha=1/6, beta=0.5)
  near(vals<float>(b.hard_sigmoid(x(), 1.0 / 6.0, 0.5)),
       {0.0f, 0.33333334f, 0.48333335f, 0.5f, 0.58333331f, 0.83333331f, 1.0f});
  near(vals<float>(b.elu(x(), 0.7)), {-0.66514903f, -0.44248438f, -0.066613801f, 0.0f, 0.5f, 2.0f, 10.0f});
  near(vals<float>(b.selu(x())), {-1.6705687f, -1.1113307f, -0.16730525f, 0.0f, 0.52535051f, 2.101402f, 10.50701f});
  near(vals<float>(b.leaky_relu(x(), 0.1)), {-0.30000001f, -0.1f, -0.010000001f, 0.0f, 0.5f, 2.0f, 10.0f});
  near(vals<float>(b.relu(f32({-1, kNaN, 2}, {3}))), {0, kNaN, 2});
  // f64 takes the scalar paths.
  EXPECT_NEAR(vals<double>(b.sigmoid(f64({-3.0}, {1})))[0], 0.04742587317756678, 1e-15);
}

TEST_F(CpuMath, SoftmaxRowsSumToOneAndMatchTorch) {
  const auto x = [&] { return f32({1, 2, 3, -1, 0.5f, 4}, {2, 3}); };
  // torch.softmax(x, 1), torch.softmax(x, 0), torch.log_softmax(x, 1)
  near(vals<float>(b.softmax(x(), 1)),
       {0.09003057f, 0.24472848f, 0.66524094f, 0.0064979433f, 0.029121762f, 0.96438032f});
  near(vals<float>(b.softmax(x(), 0)), {0.88079703f, 0.81757444f, 0.26894143f, 0.11920292f, 0.18242551f, 0.7310586f});
  near(vals<float>(b.log_softmax(x(), 1)),
       {-2.4076059f, -1.4076059f, -0.40760595f, -5.0362697f, -3.5362697f, -0.03626956f});
  // Long rows through the vectorised path.
  std::vector<float> big(7 * 1000);
  for (size_t i = 0; i < big.size(); ++i) big[i] = std::sin(0.1f * static_cast<float>(i)) * 20.0f;
  const auto s = vals<float>(b.softmax(f32(big, {7, 1000}), 1));
  for (int r = 0; r < 7; ++r)
    EXPECT_NEAR(std::accumulate(s.begin() + r * 1000, s.begin() + (r + 1) * 1000, 0.0), 1.0, 1e-5);
  const auto c = vals<float>(b.softmax(f32(big, {7, 1000}), 0));
  for (int j = 0; j < 1000; j += 37) {
    double sum = 0;
    for (int r = 0; r < 7; ++r) sum += c[r * 1000 + j];
    EXPECT_NEAR(sum, 1.0, 1e-5);
  }
  near(vals<float>(b.softmax(f32({1, kNaN, 2, 0, 0, 0}, {2, 3}), 1)), {kNaN, kNaN, kNaN, 1 / 3.0f, 1 / 3.0f, 1 / 3.0f});
}

// ---- vectorised f32 math (math_util.hpp) against libm over dense grids ----------------------------

// Every float in [lo, hi) stepping by `step`, plus the special values.
std::vector<float> grid(float lo, float hi, float step) {
  std::vector<float> xs;
  for (double v = lo; v < hi; v += step) xs.push_back(static_cast<float>(v));
  for (float v : {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-40f, std::numeric_limits<float>::infinity(),
                  -std::numeric_limits<float>::infinity(), kNaN})
    xs.push_back(v);
  return xs;
}

TEST_F(CpuMath, VectorisedErfMatchesLibm) {
  const auto xs = grid(-12.0f, 12.0f, 1.3e-4f);
  const auto got = vals<float>(b.erf(f32(xs, {static_cast<int64_t>(xs.size())})));
  double worst = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double want = std::erf(static_cast<double>(xs[i]));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got[i])) << xs[i];
      continue;
    }
    // 1e-7 absolute, and relative near 0 where erf(x) ~ 1.13 x.
    const double err = std::fabs(got[i] - want);
    worst = std::max(worst, err);
    ASSERT_LE(err, 1.5e-7 * std::min(1.0, std::fabs(want) * 8) + 1e-45) << "erf(" << xs[i] << ")";
  }
  EXPECT_LE(worst, 1.5e-7);
}

TEST_F(CpuMath, VectorisedGeluMatchesLibm) {
  const auto xs = grid(-15.0f, 15.0f, 1.1e-4f);
  const auto got = vals<float>(b.gelu(f32(xs, {static_cast<int64_t>(xs.size())})));
  for (size_t i = 0; i < xs.size(); ++i) {
    const double x = xs[i];
    const double want = 0.5 * x * std::erfc(-x / std::sqrt(2.0));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got[i])) << xs[i];
      continue;
    }
    if (std::isinf(want)) {
      EXPECT_EQ(got[i], want);
      continue;
    }
    // Absolute 2e-7 x (the erf part), and relative 1e-5 in the far negative tail.
    ASSERT_LE(std::fabs(got[i] - want), std::max(2.5e-7 * std::max(1.0, std::fabs(x)), 1e-5 * std::fabs(want)) + 1e-37)
        << "gelu(" << xs[i] << ")";
  }
}

TEST_F(CpuMath, VectorisedTanhMatchesLibm) {
  const auto xs = grid(-12.0f, 12.0f, 1.3e-4f);
  const auto got = vals<float>(b.tanh(f32(xs, {static_cast<int64_t>(xs.size())})));
  for (size_t i = 0; i < xs.size(); ++i) {
    const double want = std::tanh(static_cast<double>(xs[i]));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got[i])) << xs[i];
      continue;
    }
    ASSERT_LE(std::fabs(got[i] - want), 2.5e-7 * std::fabs(want) + 1e-45) << "tanh(" << xs[i] << ")";
  }
}

// Where tanh rounds to +-1 in f32 the vectorised kernel returns exactly what std::tanh does: every f32
// from 8 up to 12 (both signs), then wider steps to FLT_MAX. It used to return -0.99999994 up to |x| ~ 9.4,
// so 1 + tanh(x) was 6e-8 instead of 0.
TEST_F(CpuMath, VectorisedTanhSaturatesLikeLibm) {
  std::vector<float> xs;
  for (float v = 8.0f; v < 12.0f; v = std::nextafter(v, 13.0f)) xs.push_back(v), xs.push_back(-v);
  for (float v = 12.0f; v < 3e38f; v *= 1.7f) xs.push_back(v), xs.push_back(-v);
  xs.push_back(std::numeric_limits<float>::max());
  const auto got = vals<float>(b.tanh(f32(xs, {static_cast<int64_t>(xs.size())})));
  int64_t off_by_one_ulp = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const float want = std::tanh(xs[i]);
    if (std::fabs(want) == 1.0f) {
      ASSERT_EQ(got[i], want) << "tanh(" << xs[i] << ") must saturate exactly";
    } else {
      // Below the threshold, within one ulp of libm (the formula and libm may round differently there).
      ASSERT_LE(std::fabs(got[i] - want), 6e-8f) << "tanh(" << xs[i] << ")";
      off_by_one_ulp += got[i] != want;
    }
  }
  EXPECT_EQ(got[0], std::tanh(8.0f));
  EXPECT_EQ(vals<float>(b.tanh(f32({-9.5f, -20.0f, 9.5f}, {3}))), (std::vector<float>{-1.0f, -1.0f, 1.0f}));
  EXPECT_LT(off_by_one_ulp, 50) << "the kernel should agree with libm nearly everywhere below saturation";
}

TEST_F(CpuMath, VectorisedLogMatchesLibm) {
  std::vector<float> xs = grid(1e-3f, 20.0f, 7e-5f);
  for (float v = 1e-44f; v < 3e38f; v *= 1.37f) xs.push_back(v);  // denormals up to near FLT_MAX
  for (float v : {-1.0f, -1e-30f, 1.0f, 2.0f, 0.5f, std::numeric_limits<float>::max()}) xs.push_back(v);
  const auto got = vals<float>(b.log(f32(xs, {static_cast<int64_t>(xs.size())})));
  for (size_t i = 0; i < xs.size(); ++i) {
    const double want = std::log(static_cast<double>(xs[i]));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got[i])) << xs[i];
      continue;
    }
    if (std::isinf(want)) {
      EXPECT_EQ(got[i], static_cast<float>(want)) << xs[i];
      continue;
    }
    ASSERT_LE(std::fabs(got[i] - want), 2.5e-7 * std::fabs(want) + 1e-7) << "log(" << xs[i] << ")";
  }
}

TEST_F(CpuMath, SoftmaxNaNAnywhereInALaneMakesItNaN) {
  // Rows of 37 (vector body plus tail) with a NaN at each position in turn; columns likewise.
  for (int64_t pos = 0; pos < 37; ++pos) {
    std::vector<float> v(2 * 37);
    for (size_t i = 0; i < v.size(); ++i) v[i] = std::cos(static_cast<float>(i));
    v[static_cast<size_t>(pos)] = kNaN;
    for (bool log : {false, true}) {
      const auto r = vals<float>(log ? b.log_softmax(f32(v, {2, 37}), 1) : b.softmax(f32(v, {2, 37}), 1));
      for (int64_t j = 0; j < 37; ++j) EXPECT_TRUE(std::isnan(r[j])) << pos << " " << j;
      for (int64_t j = 37; j < 74; ++j) EXPECT_FALSE(std::isnan(r[j])) << pos << " " << j;
      // The same data as 37 rows x 2 columns, reduced over dim 0: column pos % 2 is NaN.
      const auto c = vals<float>(log ? b.log_softmax(f32(v, {37, 2}), 0) : b.softmax(f32(v, {37, 2}), 0));
      for (int64_t k = 0; k < 37; ++k) {
        EXPECT_TRUE(std::isnan(c[k * 2 + pos % 2])) << pos << " " << k;
        EXPECT_FALSE(std::isnan(c[k * 2 + 1 - pos % 2])) << pos << " " << k;
      }
    }
  }
  // -inf and +inf are not NaN: [-inf, 0] -> [0, 1]; a lane with +inf has NaN (inf - inf), as torch.
  near(vals<float>(b.softmax(f32({-std::numeric_limits<float>::infinity(), 0}, {1, 2}), 1)), {0, 1});
  // f64 rows take the same max pass.
  const auto d =
      vals<double>(b.softmax(f64({1, 2, std::numeric_limits<double>::quiet_NaN(), 0, 1, 2, 3, 4, 5}, {1, 9}), 1));
  for (double v : d) EXPECT_TRUE(std::isnan(v));
}

// The streamed f32 rows (exps in scratch, the result written with streaming stores from the first
// 32-byte boundary) give the bits of the plain rows: every row length from 1 to 70, outputs starting
// off the boundary, NaN and infinities, softmax and log_softmax.
TEST_F(CpuMath, SoftmaxRowsStreamedEqualPlainRows) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> val(-30.0f, 30.0f);
  for (int64_t n = 1; n <= 70; ++n)
    for (int64_t shift : {0, 1, 3})
      for (bool log : {false, true}) {
        const int64_t rows = 3;
        std::vector<float> x(static_cast<size_t>(rows * n));
        for (float& v : x) v = val(rng);
        if (n > 5) x[5] = n % 2 ? kNaN : std::numeric_limits<float>::infinity();
        // Rows after the first get their max from the previous row's last pass when streamed: a NaN or
        // -inf in row 1, and row 2 all signed zeros (maxps ties, whose result depends on the order).
        if (n > 5) x[static_cast<size_t>(n + 5)] = n % 3 ? kNaN : -std::numeric_limits<float>::infinity();
        if (n % 4 == 0)
          for (int64_t j = 0; j < n; ++j) x[static_cast<size_t>(2 * n + j)] = j % 3 ? 0.0f : -0.0f;
        std::vector<float> plain(static_cast<size_t>(rows * n + 8)), streamed(plain.size());
        softmax_rows(x.data(), plain.data() + shift, rows, n, log, false);
        softmax_rows(x.data(), streamed.data() + shift, rows, n, log, true);
        ASSERT_EQ(0, std::memcmp(plain.data(), streamed.data(), plain.size() * sizeof(float)))
            << "n " << n << " shift " << shift << (log ? " log_softmax" : " softmax");
      }
}

// exp8_nonpos (softmax's exp) against double exp over a sweep of the negative floats (every 61st bit
// pattern, NaNs and -inf included): within 0.9 ulp where it keeps the result, 0 only below 2^-125,
// NaN kept. (Over every negative float, a throwaway run found 0.88 ulp at most.)
BURN_AVX2_FMA void exp8_nonpos_sweep(double& max_ulp, uint64_t& bad) {
  alignas(32) float in[8], out[8];
  for (uint64_t u = 0x80000000u; u <= 0xffffffffu - 8 * 61; u += 8 * 61) {
    for (int j = 0; j < 8; ++j) in[j] = std::bit_cast<float>(static_cast<uint32_t>(u + j * 61));
    _mm256_store_ps(out, exp8_nonpos(_mm256_load_ps(in)));
    for (int j = 0; j < 8; ++j) {
      const double want = std::exp(static_cast<double>(in[j]));
      if (std::isnan(in[j])) {
        bad += !std::isnan(out[j]);
      } else if (out[j] == 0.0f) {
        bad += want >= std::ldexp(1.0, -125);
      } else {
        const double ulp = std::ldexp(1.0, std::ilogb(static_cast<float>(want)) - 23);
        max_ulp = std::max(max_ulp, std::fabs(out[j] - want) / ulp);
      }
    }
  }
}

TEST(CpuExp, SoftmaxExpWithinOneUlpOverNegativeFloats) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "exp8_nonpos needs AVX2 and FMA";
  double max_ulp = 0;
  uint64_t bad = 0;
  exp8_nonpos_sweep(max_ulp, bad);
  EXPECT_EQ(bad, 0u);
  EXPECT_LE(max_ulp, 0.9);
}

// exp8 (the exp op's exp) against double exp over a sweep of all floats (every 61st bit pattern):
// within 0.9 ulp where the result is normal, within one spacing where it is denormal, +inf past
// FLT_MAX, NaN kept. (Over every float, a throwaway run found 0.883 ulp and 0.93 spacings at most.)
BURN_AVX2_FMA void exp8_sweep(double& max_ulp, double& max_denormal_steps, uint64_t& bad) {
  alignas(32) float in[8], out[8];
  const double denorm = std::numeric_limits<float>::denorm_min(), fmin = std::numeric_limits<float>::min();
  for (uint64_t u = 0; u <= 0xffffffffu - 8 * 61; u += 8 * 61) {
    for (int j = 0; j < 8; ++j) in[j] = std::bit_cast<float>(static_cast<uint32_t>(u + j * 61));
    _mm256_store_ps(out, exp8(_mm256_load_ps(in)));
    for (int j = 0; j < 8; ++j) {
      const double want = std::exp(static_cast<double>(in[j]));
      if (std::isnan(in[j])) {
        bad += !std::isnan(out[j]);
      } else if (want > std::numeric_limits<float>::max()) {
        bad += !std::isinf(out[j]) && out[j] != std::numeric_limits<float>::max();
      } else if (want < fmin) {
        max_denormal_steps = std::max(max_denormal_steps, std::fabs(out[j] - want) / denorm);
      } else {
        const double ulp = std::ldexp(1.0, std::ilogb(static_cast<float>(want)) - 23);
        max_ulp = std::max(max_ulp, std::fabs(out[j] - want) / ulp);
      }
    }
  }
}

TEST(CpuExp, ExpWithinOneUlpOverAllFloats) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "exp8 needs AVX2 and FMA";
  double max_ulp = 0, max_steps = 0;
  uint64_t bad = 0;
  exp8_sweep(max_ulp, max_steps, bad);
  EXPECT_EQ(bad, 0u);
  EXPECT_LE(max_ulp, 0.9);
  EXPECT_LE(max_steps, 1.0);
}

// vexp_table, the exp op's exp on CPUs without AVX2, gives exp8's bits (every 997th bit pattern, and
// the edges); and exp8_nonpos, softmax's, gives them too wherever it does not flush (below 2^-125).
BURN_AVX2_FMA void exp8_twins(uint64_t& scalar_diff, uint64_t& nonpos_diff) {
  std::vector<float> xs = {0.0f,
                           -0.0f,
                           1.0f,
                           -1.0f,
                           88.72283f,
                           88.72284f,
                           89.0f,
                           89.5f,
                           -87.33654f,
                           -103.97208f,
                           -104.0f,
                           -104.5f,
                           std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(),
                           std::numeric_limits<float>::quiet_NaN()};
  for (uint64_t u = 0; u <= 0xffffffffu; u += 997) xs.push_back(std::bit_cast<float>(static_cast<uint32_t>(u)));
  while (xs.size() % 8) xs.push_back(0.5f);
  alignas(32) float out[8], flushed[8];
  for (size_t i = 0; i < xs.size(); i += 8) {
    const __m256 x = _mm256_loadu_ps(xs.data() + i);
    _mm256_store_ps(out, exp8(x));
    _mm256_store_ps(flushed, exp8_nonpos(x));
    for (int j = 0; j < 8; ++j) {
      const float x1 = xs[i + j], s = vexp_table(x1);
      scalar_diff += std::bit_cast<uint32_t>(s) != std::bit_cast<uint32_t>(out[j]) && !(s != s && out[j] != out[j]);
      if (x1 <= 0.0f && out[j] >= std::ldexp(1.0f, -125))
        nonpos_diff += std::bit_cast<uint32_t>(flushed[j]) != std::bit_cast<uint32_t>(out[j]);
    }
  }
}

TEST(CpuExp, ScalarAndSoftmaxFormsGiveExp8sBits) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "exp8 needs AVX2 and FMA";
  uint64_t scalar_diff = 0, nonpos_diff = 0;
  exp8_twins(scalar_diff, nonpos_diff);
  EXPECT_EQ(scalar_diff, 0u);
  EXPECT_EQ(nonpos_diff, 0u);
}

// exp16, the f32 exp loop's and the bf16 exp's on AVX-512 CPUs, gives exp8's bits: every 997th bit pattern and
// the edges, each placed once among lanes that take exp16_normal and once beside one that takes the full range.
BURN_AVX512_FMA void exp16_twin(uint64_t& diff) {
  std::vector<float> xs = {0.0f,
                           -0.0f,
                           1.0f,
                           -1.0f,
                           87.0f,
                           -87.0f,
                           87.5f,
                           88.72283f,
                           88.72284f,
                           89.5f,
                           -87.33654f,
                           -103.97208f,
                           -104.5f,
                           std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(),
                           std::numeric_limits<float>::quiet_NaN()};
  for (uint64_t u = 0; u <= 0xffffffffu; u += 997) xs.push_back(std::bit_cast<float>(static_cast<uint32_t>(u)));
  alignas(64) float in[16], wide[16];
  alignas(32) float narrow[8];
  for (const float other : {0.5f, 100.0f}) {
    for (size_t i = 0; i < xs.size(); i += 8) {
      for (size_t j = 0; j < 16; ++j) in[j] = j < 8 && i + j < xs.size() ? xs[i + j] : other;
      _mm512_store_ps(wide, exp16(_mm512_load_ps(in)));
      _mm256_store_ps(narrow, exp8(_mm256_load_ps(in)));
      for (int j = 0; j < 8; ++j)
        diff += std::bit_cast<uint32_t>(wide[j]) != std::bit_cast<uint32_t>(narrow[j]) &&
                !(wide[j] != wide[j] && narrow[j] != narrow[j]);
    }
  }
}

TEST(CpuExp, SixteenLaneFormGivesExp8sBits) {
  if (!cpu_has_avx512f()) GTEST_SKIP() << "exp16 needs AVX512F";
  uint64_t diff = 0;
  exp16_twin(diff);
  EXPECT_EQ(diff, 0u);
  // The f32 exp op's loop (exp16 here) against exp8 over a vector body and a masked tail.
  std::vector<float> x(1000), got(1000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = -110.0f + 0.2f * static_cast<float>(i);
  exp_f32(x.data(), got.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_EQ(std::bit_cast<uint32_t>(got[i]), std::bit_cast<uint32_t>(vexp_table(x[i]))) << x[i];
}

// softmax's exp (exp8_nonpos on AVX2, vexp elsewhere) over its whole argument range, x - max from 0 down
// past -104 and -inf, in rows of every length from 1 to 40 (vector body and masked tail), against a
// double reference: within 2.5 ulp down to 2^-125; below it, 0 (exp8_nonpos flushes there) or the
// denormal vexp gives. log_softmax against the same reference.
TEST_F(CpuMath, SoftmaxMatchesDoubleReferenceAcrossTheExpRange) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> val(-110.0f, 0.0f);
  const float denorm = std::numeric_limits<float>::denorm_min();
  for (int64_t n = 1; n <= 40; ++n) {
    const int64_t rows = 64;
    std::vector<float> x(static_cast<size_t>(rows * n));
    for (float& v : x) v = val(rng);
    for (int64_t r = 0; r < rows; ++r) {
      x[static_cast<size_t>(r * n + r % n)] = 0.0f;  // the row's max, so x - max spans (-110, 0]
      if (n > 2 && r % 3 == 0) x[static_cast<size_t>(r * n + (r + 1) % n)] = -std::numeric_limits<float>::infinity();
    }
    const auto sm = vals<float>(b.softmax(f32(x, {rows, n}), 1));
    const auto lsm = vals<float>(b.log_softmax(f32(x, {rows, n}), 1));
    for (int64_t r = 0; r < rows; ++r) {
      double sum = 0;
      for (int64_t j = 0; j < n; ++j) sum += std::exp(static_cast<double>(x[static_cast<size_t>(r * n + j)]));
      for (int64_t j = 0; j < n; ++j) {
        const size_t k = static_cast<size_t>(r * n + j);
        const double want = std::exp(static_cast<double>(x[k])) / sum;
        if (std::isinf(x[k])) {
          EXPECT_EQ(sm[k], 0.0f) << "n " << n << " row " << r;
          EXPECT_EQ(lsm[k], -std::numeric_limits<float>::infinity());
        } else if (want >= std::ldexp(1.0, -125)) {
          EXPECT_NEAR(sm[k], want, 3.0e-7 * want) << "n " << n << " x " << x[k];
        } else {
          EXPECT_TRUE(sm[k] == 0.0f || std::fabs(sm[k] - want) <= 4.0 * denorm + 3.0e-7 * want)
              << "n " << n << " x " << x[k] << ": " << sm[k] << " for " << want;
        }
        if (!std::isinf(x[k])) EXPECT_NEAR(lsm[k], x[k] - std::log(sum), 1e-5 * (1.0 + std::fabs(x[k]))) << n;
      }
    }
  }
}

TEST_F(CpuMath, ReduceDimFirstSplitsRowsAcrossThreads) {
  // Large enough that reduce_lanes splits the reduced dim between threads and merges the partials.
  const int64_t n = 4099, inner = 4100;  // wider than one 4096-column task, odd lengths
  std::vector<float> v(static_cast<size_t>(n * inner));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i * 7919) % 1000) * 0.001f - 0.5f;
  v[static_cast<size_t>(3000 * inner + 4097)] = 50.0f;
  v[static_cast<size_t>(17 * inner + 5)] = kNaN;
  const auto sum = vals<float>(b.sum_dim(f32(v, {n, inner}), 0));
  const auto mx = vals<float>(b.max_dim(f32(v, {n, inner}), 0));
  const auto mean = vals<float>(b.mean_dim(f32(v, {n, inner}), 0));
  ASSERT_EQ(sum.size(), static_cast<size_t>(inner));
  for (int64_t j = 0; j < inner; ++j) {
    double s = 0;
    float m = -std::numeric_limits<float>::infinity();
    bool nan = false;
    for (int64_t k = 0; k < n; ++k) {
      const float x = v[static_cast<size_t>(k * inner + j)];
      s += x;
      nan |= std::isnan(x);
      m = std::max(m, x);
    }
    if (nan) {
      EXPECT_TRUE(std::isnan(sum[j]) && std::isnan(mx[j]) && std::isnan(mean[j])) << j;
      continue;
    }
    ASSERT_NEAR(sum[j], s, 1e-3) << j;
    ASSERT_NEAR(mean[j], s / n, 1e-6) << j;
    ASSERT_EQ(mx[j], m) << j;
  }
}

// reduce_lanes hands its pieces to whichever thread claims them first (from both ends): a sum split into
// many pieces and rows of odd lengths must still match a f64 sum, and give the same bits on every call.
TEST_F(CpuMath, ReductionsClaimedByThreadsGiveTheSameBitsEveryCall) {
  const size_t threads = num_threads();
  set_num_threads(3);
  const int64_t rows = 1001, len = 4097;  // rows of 4097: more than one row block, odd claims
  std::vector<float> v(static_cast<size_t>(rows * len));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i * 7919) % 1000) * 0.001f - 0.4f;
  const Prim all = f32(v, {rows * len}), mat = f32(v, {rows, len});
  double want = 0;
  for (float x : v) want += x;
  const float first = vals<float>(b.sum(all))[0];
  EXPECT_NEAR(first, want, 1e-6 * std::fabs(want) + 1e-2);
  const std::vector<float> first_rows = vals<float>(b.sum_dim(mat, 1));
  ASSERT_EQ(first_rows.size(), static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    double s = 0;
    for (int64_t k = 0; k < len; ++k) s += v[static_cast<size_t>(r * len + k)];
    ASSERT_NEAR(first_rows[r], s, 1e-3) << r;
  }
  for (int rep = 0; rep < 20; ++rep) {
    ASSERT_EQ(std::bit_cast<uint32_t>(vals<float>(b.sum(all))[0]), std::bit_cast<uint32_t>(first)) << rep;
    ASSERT_EQ(vals<float>(b.sum_dim(mat, 1)), first_rows) << rep;
  }
  set_num_threads(threads);
}

TEST_F(CpuMath, LargeBuffersAreReusedAfterTheLastViewGoes) {
  // 4 MB buffers go through the pool; a freed one comes back for the next alloc of its size class,
  // but never while a view still holds it.
  if (pool_budget() == 0) GTEST_SKIP() << "BURN_CPU_POOL_BYTES=0 disables the pool";
  const Shape s{1 << 20};
  CpuPtr a = alloc(s, DType::F32);
  void* pa = a->raw();
  Prim view = b.slice(a, {SliceRange{0, 10, 1}});
  a.reset();
  CpuPtr c = alloc(s, DType::F32);
  EXPECT_NE(c->raw(), pa);
  view.reset();
  c.reset();
  CpuPtr d = alloc(s, DType::F32);
  CpuPtr e = alloc(s, DType::F32);
  EXPECT_TRUE(d->raw() == pa || e->raw() == pa);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(d->raw()) % 64, 0u);
  // Writes through the reused buffer are the tensor's own.
  std::fill_n(d->data<float>(), 1 << 20, 2.0f);
  EXPECT_EQ(vals<float>(b.sum(d))[0], 2.0f * (1 << 20));
}

}  // namespace
}  // namespace burn::cpu
