// The typed front ends of burn::linalg, burn::signal and module::grid_sample_2d (the conformance
// fixtures check the api functions' values against PyTorch; these check the wrappers' ranks and kinds
// and the factorisations' defining identities on inputs the fixtures do not cover).
#include <gtest/gtest.h>

#include <cmath>

#include "burn/tensor.hpp"
#include "test_device.hpp"

using namespace burn;

namespace {

Device dev() { return burn::testing::test_device(); }

template <size_t D>
double max_abs_diff(const Tensor<D>& a, const Tensor<D>& b) {
  return (a - b).abs().max().template item<double>();
}

// A seeded [rows, cols] f64 matrix.
Tensor<2> matrix(int64_t rows, int64_t cols, uint64_t seed) {
  dev().seed(seed);
  return Tensor<2>::random({rows, cols}, Distribution::normal(0, 1), dev(), DType::F64);
}

bool all_finite(const Tensor<2>& t) { return t.is_finite().all().item<bool>(); }

}  // namespace

TEST(Linalg, TypedReductionsKeepTheirDims) {
  auto x = Tensor<2>::from_vector(std::vector<float>{3, 4, 0, 0}, {2, 2}, dev());
  Tensor<2> rows = linalg::vector_norm(x, 2.0, 1);
  EXPECT_EQ(rows.shape(), (Shape{2, 1}));
  EXPECT_EQ(rows.to_vec<float>(), (std::vector<float>{5, 0}));
  EXPECT_EQ(linalg::vector_norm(x).shape(), (Shape{1, 1}));
  EXPECT_FLOAT_EQ(linalg::vector_norm(x, linalg::kInf).item<float>(), 4);
  Tensor<2> t = linalg::trace(x);
  EXPECT_EQ(t.shape(), (Shape{1, 1}));
  EXPECT_FLOAT_EQ(t.item<float>(), 3);
  auto cos = linalg::cosine_similarity(x, x, 1);
  EXPECT_EQ(cos.to_vec<float>(), (std::vector<float>{1, 0}));  // a zero row: 0 / eps^2, not NaN
}

TEST(Linalg, DiagOverloadsByRank) {
  auto v = Tensor<1, Int>::from_list<int64_t>({1, 2}, dev());
  Tensor<2, Int> m = linalg::diag(v, 1);  // torch.diag(v, 1)
  EXPECT_EQ(m.to_vec<int64_t>(), (std::vector<int64_t>{0, 1, 0, 0, 0, 2, 0, 0, 0}));
  Tensor<1, Int> back = linalg::diag(m, 1);
  EXPECT_EQ(back.to_vec<int64_t>(), (std::vector<int64_t>{1, 2}));
  auto b = Tensor<3>::ones({2, 3, 4}, dev());
  Tensor<2> d = linalg::diag(b, -1);
  EXPECT_EQ(d.shape(), (Shape{2, 2}));
}

TEST(Linalg, OuterAndMatvec) {
  auto x = Tensor<1>::from_list<float>({1, 2}, dev());
  auto y = Tensor<1>::from_list<float>({3, 4, 5}, dev());
  Tensor<2> o = linalg::outer(x, y);
  EXPECT_EQ(o.to_vec<float>(), (std::vector<float>{3, 4, 5, 6, 8, 10}));
  auto m = Tensor<3>::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2}, dev());
  auto v = Tensor<2>::from_vector(std::vector<float>{1, 1, 2, 0}, {2, 2}, dev());
  Tensor<2> mv = linalg::matvec(m, v);  // per batch: [[1,2],[3,4]] @ [1,1], [[5,6],[7,8]] @ [2,0]
  EXPECT_EQ(mv.to_vec<float>(), (std::vector<float>{3, 7, 10, 14}));
}

TEST(Linalg, DetOfSingularMatricesIsZeroNotNaN) {
  auto a = Tensor<2>::from_vector(std::vector<double>{1, 2, 3, 2, 4, 6, 1, 0, 1}, {3, 3}, dev());  // row 1 = 2 * row 0
  Tensor<1> d = linalg::det(a);
  EXPECT_EQ(d.shape(), (Shape{1}));
  EXPECT_EQ(d.item<double>(), 0.0);
  auto z = Tensor<3>::zeros({2, 4, 4}, dev());
  EXPECT_EQ(linalg::det(z).to_vec<float>(), (std::vector<float>{0, 0}));
  auto [lu, piv] = linalg::lu_factor(z);
  EXPECT_TRUE(lu.is_finite().all().item<bool>());
  EXPECT_EQ(piv.to_vec<int64_t>(), (std::vector<int64_t>{0, 1, 2, 3, 0, 1, 2, 3}));  // no swaps on a zero column
}

TEST(Linalg, LuReassemblesTheInput) {
  for (auto [m, n] : {std::pair{5, 5}, std::pair{6, 3}, std::pair{3, 6}}) {
    Tensor<2> a = matrix(m, n, 11 + m);
    auto [p, l, u] = linalg::lu(a);
    const int64_t k = std::min(m, n);
    EXPECT_EQ(l.shape(), (Shape{m, k}));
    EXPECT_EQ(u.shape(), (Shape{k, n}));
    EXPECT_LT(max_abs_diff(p.matmul(l).matmul(u), a), 1e-12) << m << "x" << n;
    EXPECT_LT(max_abs_diff(l, l.tril(0)), 1e-15);
    EXPECT_LT(max_abs_diff(u, u.triu(0)), 1e-15);
    // Partial pivoting bounds every multiplier by 1.
    EXPECT_LE(l.abs().max().item<double>(), 1.0);
  }
}

TEST(Linalg, QrInvariants) {
  for (auto [m, n] : {std::pair{6, 4}, std::pair{4, 4}, std::pair{3, 5}}) {
    Tensor<2> a = matrix(m, n, 29 + n);
    for (QrMode mode : {QrMode::Reduced, QrMode::Complete}) {
      auto [q, r] = linalg::qr(a, mode);
      const int64_t cols = mode == QrMode::Reduced ? std::min(m, n) : m;
      EXPECT_EQ(q.shape(), (Shape{m, cols}));
      EXPECT_EQ(r.shape(), (Shape{cols, n}));
      auto eye = Tensor<2>::eye(cols, dev(), DType::F64);
      EXPECT_LT(max_abs_diff(q.transpose().matmul(q), eye), 1e-12) << m << "x" << n;
      EXPECT_LT(max_abs_diff(q.matmul(r), a), 1e-12) << m << "x" << n;
      EXPECT_EQ(max_abs_diff(r, r.triu(0)), 0.0);
    }
  }
  // A rank-deficient input: finite factors that still reassemble it.
  auto s = Tensor<2>::from_vector(std::vector<double>{1, 2, 0, 2, 4, 0, 3, 6, 0}, {3, 3}, dev());
  auto [q, r] = linalg::qr(s);
  EXPECT_TRUE(all_finite(q) && all_finite(r));
  EXPECT_LT(max_abs_diff(q.matmul(r), s), 1e-12);
}

TEST(Signal, RfftIrfftRoundTripAlongADim) {
  dev().seed(5);
  for (int64_t n : {7, 100}) {  // a direct DFT and a split (10 x 10) transform
    auto x = Tensor<3>::random({2, n, 3}, Distribution::normal(0, 1), dev(), DType::F64);
    auto [re, im] = signal::rfft(x, 1);
    EXPECT_EQ(re.shape(), (Shape{2, n / 2 + 1, 3}));
    Tensor<3> back = signal::irfft(re, im, 1, n);
    EXPECT_LT(max_abs_diff(back, x), 1e-12) << n;
    // Parseval for the one-sided spectrum of a real signal of even or odd length.
    const double energy = x.square().sum().item<double>();
    auto power = re.square() + im.square();
    const int64_t dup = (n % 2 == 0) ? n / 2 - 1 : n / 2;  // bins that stand for two
    double spec = power.sum().item<double>() + power.narrow(1, 1, dup).sum().item<double>();
    EXPECT_NEAR(spec / static_cast<double>(n), energy, 1e-9 * energy) << n;
  }
}

TEST(Signal, Windows) {
  auto h = signal::hann_window(5, false, dev());
  auto want = std::vector<float>{0, 0.5f, 1, 0.5f, 0};
  auto got = h.to_vec<float>();
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-7) << i;
  EXPECT_EQ(signal::blackman_window(1, true, dev()).to_vec<float>(), (std::vector<float>{1}));
  EXPECT_EQ(signal::hamming_window(0, true, dev()).shape(), (Shape{0}));
  EXPECT_THROW(signal::hann_window(-2, true, dev()), ValueError);
}

TEST(GridSample, IdentityGridReproducesTheInput) {
  dev().seed(3);
  auto x = Tensor<4>::random({1, 2, 3, 4}, Distribution::normal(0, 1), dev());
  // Pixel centres with align_corners: x = -1 + 2 j / (W - 1), y = -1 + 2 i / (H - 1).
  std::vector<float> g;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      g.push_back(-1.0f + 2.0f * static_cast<float>(j) / 3.0f);
      g.push_back(-1.0f + 2.0f * static_cast<float>(i) / 2.0f);
    }
  auto grid = Tensor<4>::from_vector(g, {1, 3, 4, 2}, dev());
  for (GridSampleMode mode : {GridSampleMode::Bilinear, GridSampleMode::Nearest}) {
    Tensor<4> y = module::grid_sample_2d(x, grid, {mode, GridSamplePadding::Zeros, true});
    EXPECT_LT(max_abs_diff(y, x), 1e-6);
  }
}
