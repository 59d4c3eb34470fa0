// The packed f32 GEMM (ops/gemm_packed.hpp) against a double reference over odd shapes, both layouts of B and
// both micro-kernel widths; and matmul's pack cache: a right operand kept from the second call that finds it
// unwritten, never after an in-place write in between, dropped with its storage, the same bits before and after,
// and nothing kept under BURN_CPU_PACKED_MATMUL=off (the cpu.packed_matmul_off run); and the cache's byte budget.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cpu_test_fixture.hpp"
#include "ops/blas.hpp"
#include "ops/conv_blocked.hpp"
#include "ops/gemm_packed.hpp"
#include "ops/pack_cache.hpp"

namespace burn::cpu {
namespace {

std::vector<float> uniform_values(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// The widths this CPU can run, each forced in turn; the one in use is restored afterwards.
template <typename F>
void for_each_available_isa(F&& f) {
  if (!packed_gemm_available()) GTEST_SKIP() << "the packed GEMM needs AVX2 and FMA";
  const conv_detail::ConvIsa before = conv_detail::conv_isa();
  for (auto isa : {conv_detail::ConvIsa::Avx2, conv_detail::ConvIsa::Avx512}) {
    if (!conv_detail::conv_isa_available(isa)) continue;
    conv_detail::set_conv_isa(isa);
    SCOPED_TRACE(conv_detail::conv_isa_name(isa));
    f();
  }
  conv_detail::set_conv_isa(before);
}

TEST(CpuGemmPacked, MatchesADoubleReferenceOnOddShapesAndBothLayouts) {
  for_each_available_isa([] {
    for (int64_t m : {1, 2, 3, 7, 8, 9, 17})
      for (int64_t k : {0, 1, 5, 64})
        for (int64_t n : {1, 23, 24, 25, 47, 48, 49, 100})
          for (bool trans : {false, true}) {
            SCOPED_TRACE(::testing::Message() << "m " << m << " k " << k << " n " << n << " trans " << trans);
            // Leading dimensions wider than the rows, so a kernel that assumes them packed reads the wrong values.
            const int64_t lda = k + 3, ldb = (trans ? k : n) + 2, ldc = n + 5;
            const std::vector<float> a = uniform_values(static_cast<size_t>(m * lda), 11);
            const std::vector<float> b = uniform_values(static_cast<size_t>((trans ? n : k) * ldb), 12);
            std::vector<float> c(static_cast<size_t>(m * ldc), 7.0f);  // 7: the gaps must keep it
            const PackedRhs packed = pack_rhs(b.data(), ldb, trans, k, n);
            packed_gemm(m, a.data(), lda, packed, c.data(), ldc);
            for (int64_t i = 0; i < m; ++i)
              for (int64_t j = 0; j < ldc; ++j) {
                const float got = c[static_cast<size_t>(i * ldc + j)];
                if (j >= n) {
                  ASSERT_EQ(got, 7.0f) << "wrote past column " << n << " at (" << i << ", " << j << ")";
                  continue;
                }
                double want = 0;
                for (int64_t r = 0; r < k; ++r)
                  want += double(a[static_cast<size_t>(i * lda + r)]) *
                          double(trans ? b[static_cast<size_t>(j * ldb + r)] : b[static_cast<size_t>(r * ldb + j)]);
                ASSERT_NEAR(got, want, 1e-5 * (k + 1)) << "at (" << i << ", " << j << ")";
              }
          }
  });
}

// A layer's shape (RoBERTa's 768 -> 3072 at 128 tokens): many panels over the pool, many row blocks, the whole
// k summed in registers; against OpenBLAS, which sums in another order (so within a bound, not bitwise).
TEST(CpuGemmPacked, ALayerSizedProductMatchesOpenBlas) {
  for_each_available_isa([] {
    const int64_t m = 131, k = 768, n = 3072 + 5;
    const std::vector<float> a = uniform_values(static_cast<size_t>(m * k), 14);
    const std::vector<float> b = uniform_values(static_cast<size_t>(k * n), 15);
    std::vector<float> got(static_cast<size_t>(m * n)), want(got.size());
    packed_gemm(m, a.data(), k, pack_rhs(b.data(), n, false, k, n), got.data(), n);
    blas_gemm(false, false, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, want.data(), n);
    double worst = 0;
    for (size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::abs(double(got[i]) - double(want[i])));
    // Sums of 768 products of [-1, 1] values are about 16 in size; each order rounds within k ulps of that.
    EXPECT_LT(worst, 2e-3) << "largest difference from OpenBLAS";
    EXPECT_GT(std::abs(got[0]) + std::abs(got.back()), 0.0f) << "the control: the product is not all zeros";
  });
}

TEST(CpuGemmPacked, PanelsHoldBInTheirDocumentedLayout) {
  for_each_available_isa([] {
    const int64_t k = 3, n = 50;
    const std::vector<float> b = uniform_values(static_cast<size_t>(k * n), 13);
    const PackedRhs p = pack_rhs(b.data(), n, false, k, n);
    ASSERT_EQ(p.nr, p.wide ? 48 : 24);
    ASSERT_EQ(p.data.size(), static_cast<size_t>(p.panels() * k * p.nr));
    for (int64_t r = 0; r < k; ++r)
      for (int64_t j = 0; j < p.panels() * p.nr; ++j)
        EXPECT_EQ(p.data[static_cast<size_t>((j / p.nr) * k * p.nr + r * p.nr + j % p.nr)],
                  j < n ? b[static_cast<size_t>(r * n + j)] : 0.0f);
  });
}

class CpuPackedMatmul : public CpuBackendTest {
 protected:
  void SetUp() override {
    if (!packed_gemm_available()) GTEST_SKIP() << "the packed GEMM needs AVX2 and FMA";
  }
  static bool switched_off() {
    const char* env = std::getenv("BURN_CPU_PACKED_MATMUL");
    return env && std::strcmp(env, "off") == 0;
  }
  // x (m x k) times w (k x n), both row-major, in double.
  static std::vector<double> reference(const std::vector<float>& x, const std::vector<float>& w, int64_t m, int64_t k,
                                       int64_t n) {
    std::vector<double> c(static_cast<size_t>(m * n), 0.0);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t r = 0; r < k; ++r)
        for (int64_t j = 0; j < n; ++j)
          c[static_cast<size_t>(i * n + j)] +=
              double(x[static_cast<size_t>(i * k + r)]) * w[static_cast<size_t>(r * n + j)];
    return c;
  }
  static void expect_near(const std::vector<float>& got, const std::vector<double>& want, int64_t k) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5 * (k + 1)) << "element " << i;
  }
};

TEST_F(CpuPackedMatmul, AWeightIsPackedAtItsSecondUnchangedCallAndOnlyThen) {
  const int64_t m = 5, k = 40, n = 30;
  const std::vector<float> xv = uniform_values(static_cast<size_t>(m * k), 21);
  const std::vector<float> wv = uniform_values(static_cast<size_t>(k * n), 22);
  const Prim x = f32(xv, {m, k}), w = f32(wv, {k, n});
  const std::vector<double> want = reference(xv, wv, m, k, n);
  const uint64_t packs = packed_matmul_packs();
  expect_near(vals<float>(b.matmul(x, w)), want, k);
  EXPECT_EQ(packed_matmul_packs(), packs) << "a first call packs nothing (the operand may be an activation)";
  expect_near(vals<float>(b.matmul(x, w)), want, k);
  const uint64_t expected = switched_off() ? packs : packs + 1;
  EXPECT_EQ(packed_matmul_packs(), expected);
  expect_near(vals<float>(b.matmul(x, w)), want, k);
  EXPECT_EQ(packed_matmul_packs(), expected) << "the third call reuses the packed copy";
}

// A resumed training run must equal a straight one: the same product gives the same bits whether its right
// operand is packed for the call (first call, a weight just loaded) or taken from the cache (a weight that a
// validation pass already packed); transposed (a backward's W^T) and plain.
TEST_F(CpuPackedMatmul, AProductHasTheSameBitsBeforeAndAfterItsOperandIsCached) {
  const int64_t m = 37, k = 300, n = 70;
  const Prim x = f32(uniform_values(static_cast<size_t>(m * k), 61), {m, k});
  for (bool trans : {false, true}) {
    SCOPED_TRACE(trans ? "w viewed transposed" : "w as stored");
    const Prim w = trans ? b.permute(f32(uniform_values(static_cast<size_t>(n * k), 62), {n, k}), {1, 0})
                         : f32(uniform_values(static_cast<size_t>(k * n), 62), {k, n});
    const size_t cached = packed_matmul_cached();
    const std::vector<float> first = vals<float>(b.matmul(x, w));
    const std::vector<float> second = vals<float>(b.matmul(x, w));
    const std::vector<float> third = vals<float>(b.matmul(x, w));
    if (!switched_off()) ASSERT_EQ(packed_matmul_cached(), cached + 1) << "the control: the third call used the cache";
    ASSERT_EQ(first.size(), static_cast<size_t>(m * n));
    for (size_t i = 0; i < first.size(); ++i) {
      ASSERT_EQ(std::memcmp(&first[i], &second[i], sizeof(float)), 0) << "element " << i << " of the second call";
      ASSERT_EQ(std::memcmp(&first[i], &third[i], sizeof(float)), 0) << "element " << i << " of the third call";
    }
  }
}

TEST_F(CpuPackedMatmul, AWeightWrittenInPlaceBetweenCallsIsNotPacked) {
  const int64_t m = 4, k = 16, n = 9;
  const std::vector<float> xv = uniform_values(static_cast<size_t>(m * k), 31);
  std::vector<float> wv = uniform_values(static_cast<size_t>(k * n), 32);
  const Prim x = f32(xv, {m, k});
  Prim w = f32(wv, {k, n});
  const Storage* storage = as_cpu(w, "test")->storage().get();
  const uint64_t packs = packed_matmul_packs();
  b.matmul(x, w);
  // An optimizer's in-place update: neg writes into its input's buffer when it holds the last handle.
  w = b.neg(std::move(w));
  ASSERT_EQ(as_cpu(w, "test")->storage().get(), storage) << "the control: neg wrote in place";
  for (float& v : wv) v = -v;
  expect_near(vals<float>(b.matmul(x, w)), reference(xv, wv, m, k, n), k);
  EXPECT_EQ(packed_matmul_packs(), packs) << "the second call found the weight written since the first";
  expect_near(vals<float>(b.matmul(x, w)), reference(xv, wv, m, k, n), k);
  EXPECT_EQ(packed_matmul_packs(), switched_off() ? packs : packs + 1);
}

TEST_F(CpuPackedMatmul, TransposedAndFoldedOperandsTakeThePackedPathWithTheRightValues) {
  const int64_t batch = 3, m = 2, k = 12, n = 26;
  const std::vector<float> xv = uniform_values(static_cast<size_t>(batch * m * k), 41);
  const std::vector<float> wtv = uniform_values(static_cast<size_t>(n * k), 42);  // w as stored: n x k
  std::vector<float> wv(static_cast<size_t>(k * n));
  for (int64_t r = 0; r < k; ++r)
    for (int64_t j = 0; j < n; ++j) wv[static_cast<size_t>(r * n + j)] = wtv[static_cast<size_t>(j * k + r)];
  const Prim x = f32(xv, {batch, m, k});
  const Prim w = b.expand(b.permute(f32(wtv, {1, n, k}), {0, 2, 1}), Shape{batch, k, n});  // one matrix for every batch
  const std::vector<double> want = reference(xv, wv, batch * m, k, n);
  const uint64_t packs = packed_matmul_packs();
  for (int call = 0; call < 3; ++call) expect_near(vals<float>(b.matmul(x, w)), want, k);
  EXPECT_EQ(packed_matmul_packs(), switched_off() ? packs : packs + 1);
}

TEST_F(CpuPackedMatmul, ThePackedCopyIsDroppedWithItsWeight) {
  if (switched_off()) GTEST_SKIP() << "BURN_CPU_PACKED_MATMUL=off packs nothing";
  const Prim x = f32(uniform_values(6 * 8, 51), {6, 8});
  const size_t cached = packed_matmul_cached();
  Prim w = f32(uniform_values(8 * 10, 52), {8, 10});
  b.matmul(x, w);
  b.matmul(x, w);
  EXPECT_EQ(packed_matmul_cached(), cached + 1);
  w.reset();
  EXPECT_EQ(packed_matmul_cached(), cached) << "nothing but the cache held the weight's storage";
}

// The byte budget of a pack cache (ops/pack_cache.hpp; a quarter of the RAM in the plugin): an operand whose packed
// form does not fit is packed for its call and not kept, a full cache of second-call operands packs nothing more, and
// the room comes back when a kept operand's storage is dropped.
class PackCacheBudget : public CpuBackendTest {
 protected:
  using Packed = std::vector<float>;
  static size_t bytes_of(const Packed& p) { return p.size() * sizeof(float); }
  CpuPtr weight(uint32_t seed) { return as_cpu(f32(uniform_values(200, seed), {200}), "test"); }  // packs to 800 B
  std::shared_ptr<const Packed> get(PackCache<Packed>& cache, const CpuPtr& w) {
    return cache.get(
        w, [](const CpuPtr& v) { return Packed(v->data<float>(), v->data<float>() + 200); }, bytes_of);
  }
};

TEST_F(PackCacheBudget, AnOperandPastTheBudgetIsPackedForItsCallAndNotKept) {
  PackCache<Packed> cache(PackWhen::FirstCall, 1000);
  CpuPtr w1 = weight(1), w2 = weight(2);
  ASSERT_TRUE(get(cache, w1));
  EXPECT_EQ(cache.cached(), 1u);
  const std::shared_ptr<const Packed> p2 = get(cache, w2);  // 800 + 800 > 1000
  ASSERT_TRUE(p2) << "still packed for its call";
  EXPECT_EQ((*p2)[7], w2->data<float>()[7]);
  EXPECT_EQ(cache.cached(), 1u) << "not kept";
  EXPECT_TRUE(get(cache, w2));
  EXPECT_EQ(cache.packs(), 3u) << "packed again at each call";
  EXPECT_TRUE(get(cache, w1));
  EXPECT_EQ(cache.packs(), 3u) << "the kept operand is not packed again";
  w1.reset();  // only the cache holds its storage now: its 800 bytes come back
  EXPECT_TRUE(get(cache, w2));
  EXPECT_EQ(cache.cached(), 1u);
  EXPECT_TRUE(get(cache, w2));
  EXPECT_EQ(cache.packs(), 4u) << "w2 kept once there was room";
}

TEST_F(PackCacheBudget, AFullCacheOfSecondCallOperandsPacksNothingMore) {
  PackCache<Packed> cache(PackWhen::SecondCall, 800);
  CpuPtr w1 = weight(1), w2 = weight(2);
  EXPECT_FALSE(get(cache, w1)) << "a first call packs nothing";
  ASSERT_TRUE(get(cache, w1));
  EXPECT_EQ(cache.cached(), 1u);
  for (int call = 0; call < 3; ++call) EXPECT_FALSE(get(cache, w2)) << "call " << call << ": the budget is used up";
  EXPECT_EQ(cache.packs(), 1u);
  w1.reset();
  EXPECT_FALSE(get(cache, w2)) << "its first call since the room came back";
  EXPECT_TRUE(get(cache, w2));
  EXPECT_EQ(cache.packs(), 2u);
  EXPECT_EQ(cache.cached(), 1u);
}

}  // namespace
}  // namespace burn::cpu
