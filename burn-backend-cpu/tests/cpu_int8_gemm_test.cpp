// The exact int8 GEMM (ops/gemm_int8.hpp) on every path this CPU has, against an int64 reference: random shapes
// (odd sizes, K off the vector width, 1x1, long K), the all-extremes inputs that saturate a vpmaddubsw kernel,
// and the dequantizing epilogue against a double reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "burn/tensor/error.hpp"
#include "int8_paths.hpp"
#include "ops/gemm_int8.hpp"

namespace burn::cpu {
namespace {

template <typename T>
std::vector<T> random_values(size_t count, std::mt19937& rng) {
  std::uniform_int_distribution<int> dist(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
  std::vector<T> v(count);
  for (T& x : v) x = static_cast<T>(dist(rng));
  return v;
}

// sum_k a[i][k] * b[k][j] in int64, a with leading dim lda, b with n.
template <typename T>
std::vector<int64_t> int64_reference(const std::vector<T>& a, int64_t lda, const std::vector<int8_t>& b, int64_t m,
                                     int64_t n, int64_t k) {
  std::vector<int64_t> c(static_cast<size_t>(m * n), 0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t j = 0; j < n; ++j) c[i * n + j] += int64_t{a[i * lda + kk]} * int64_t{b[kk * n + j]};
  return c;
}

struct Dims {
  int64_t m, n, k;
};

template <typename T>
void check_random_shapes() {
  const Dims shapes[] = {{1, 1, 1},      {1, 1, 4096},  {7, 13, 29}, {5, 17, 3},    {33, 9, 100}, {4, 8, 16},
                         {19, 31, 4097}, {67, 70, 255}, {2, 3, 0},   {130, 41, 37}, {1, 300, 768}};
  std::mt19937 rng(31);
  for (const Dims& s : shapes) {
    SCOPED_TRACE(::testing::Message() << s.m << "x" << s.k << " . " << s.k << "x" << s.n);
    const int64_t lda = s.k + 3, ldc = s.n + 5;  // leading dims past the row: the gaps must stay untouched
    const auto a = random_values<T>(static_cast<size_t>(s.m * lda), rng);
    const auto b = random_values<int8_t>(static_cast<size_t>(s.k * s.n), rng);
    const PackedInt8Weights w = pack_int8_weights(b.data(), s.k, s.n, s.n);
    const auto want = int64_reference(a, lda, b, s.m, s.n, s.k);
    for (int64_t j = 0; j < s.n; ++j) {
      int64_t col = 0;
      for (int64_t kk = 0; kk < s.k; ++kk) col += b[kk * s.n + j];
      ASSERT_EQ(w.col_sums[j], col) << "column " << j;
    }
    for_each_int8_path([&](Int8Path) {
      std::vector<int32_t> c(static_cast<size_t>(s.m * ldc), -7);
      gemm_int8(a.data(), lda, s.m, w, c.data(), ldc);
      int64_t wrong = 0;
      for (int64_t i = 0; i < s.m; ++i)
        for (int64_t j = 0; j < ldc; ++j) {
          const int64_t expect = j < s.n ? want[i * s.n + j] : -7;
          if (c[i * ldc + j] != expect && wrong++ < 5)
            ADD_FAILURE() << "C[" << i << "][" << j << "] = " << c[i * ldc + j] << ", expected " << expect;
        }
      EXPECT_EQ(wrong, 0);
    });
  }
}

TEST(Int8Gemm, U8TimesS8EqualsInt64ReferenceOnEveryPath) {
  SKIP_IF_INT8_PATH_MISSING();
  check_random_shapes<uint8_t>();
}

TEST(Int8Gemm, S8TimesS8EqualsInt64ReferenceOnEveryPath) {
  SKIP_IF_INT8_PATH_MISSING();
  check_random_shapes<int8_t>();
}

// Every entry of A and of B at one extreme: a vpmaddubsw kernel clamps each pair sum (255 * -128 * 2 = -65,280,
// 255 * 127 * 2 = 64,770) to int16. Up to the longest exact K, where the sum nearly reaches int32's limit.
template <typename T>
void check_extremes(T av, int8_t bv) {
  const int64_t m = 3, n = 9;
  for (int64_t k : {int64_t{2}, int64_t{31}, int64_t{4096}, int8_gemm_max_k(std::is_signed_v<T>)}) {
    SCOPED_TRACE(::testing::Message() << int(av) << " x " << int(bv) << ", k = " << k);
    const std::vector<T> a(static_cast<size_t>(m * k), av);
    const std::vector<int8_t> b(static_cast<size_t>(k * n), bv);
    const PackedInt8Weights w = pack_int8_weights(b.data(), k, n, n);
    const int64_t expect = int64_t{av} * int64_t{bv} * k;
    ASSERT_GE(expect, std::numeric_limits<int32_t>::min());
    ASSERT_LE(expect, std::numeric_limits<int32_t>::max());
    for_each_int8_path([&](Int8Path) {
      std::vector<int32_t> c(static_cast<size_t>(m * n), 0);
      gemm_int8(a.data(), k, m, w, c.data(), n);
      for (size_t i = 0; i < c.size(); ++i) ASSERT_EQ(c[i], expect) << "entry " << i;
    });
  }
}

TEST(Int8Gemm, ExtremeInputsDoNotSaturateOnEveryPath) {
  SKIP_IF_INT8_PATH_MISSING();
  check_extremes<uint8_t>(255, -128);
  check_extremes<uint8_t>(255, 127);
  check_extremes<int8_t>(-128, -128);
  check_extremes<int8_t>(-128, 127);
  check_extremes<int8_t>(127, 127);
}

// Alternating extremes along k, so a pair sum of a saturating kernel would hit both clamps in one row.
TEST(Int8Gemm, AlternatingExtremesAreExact) {
  SKIP_IF_INT8_PATH_MISSING();
  const int64_t m = 5, n = 11, k = 203;
  std::vector<uint8_t> a(static_cast<size_t>(m * k));
  std::vector<int8_t> b(static_cast<size_t>(k * n));
  for (int64_t i = 0; i < m * k; ++i) a[i] = (i / 2) % 3 == 0 ? 0 : 255;
  for (int64_t i = 0; i < k * n; ++i) b[i] = (i % 4) < 2 ? -128 : 127;
  const PackedInt8Weights w = pack_int8_weights(b.data(), k, n, n);
  const auto want = int64_reference(a, k, b, m, n, k);
  for_each_int8_path([&](Int8Path) {
    std::vector<int32_t> c(static_cast<size_t>(m * n));
    gemm_int8(a.data(), k, m, w, c.data(), n);
    for (size_t i = 0; i < c.size(); ++i) ASSERT_EQ(c[i], want[i]) << "entry " << i;
  });
}

// The epilogue against sum_k sa (a - za) * sb (b - zb) + bias formed in int64 and double, rounded once.
template <typename T>
void check_epilogue(bool per_row_a, bool per_col_b, bool zero_a, bool zero_b, bool bias) {
  SCOPED_TRACE(::testing::Message() << (std::is_signed_v<T> ? "s8" : "u8") << " A, per-row A " << per_row_a
                                    << ", per-column B " << per_col_b << ", za " << zero_a << ", zb " << zero_b
                                    << ", bias " << bias);
  const int64_t m = 13, n = 21, k = 77;
  std::mt19937 rng(7);
  const auto a = random_values<T>(static_cast<size_t>(m * k), rng);
  const auto b = random_values<int8_t>(static_cast<size_t>(k * n), rng);
  std::uniform_real_distribution<float> scale(1e-3f, 0.1f), bias_dist(-3.0f, 3.0f);
  std::uniform_int_distribution<int> zpa(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
  std::uniform_int_distribution<int> zpb(-128, 127);
  std::vector<float> sa(per_row_a ? m : 1), sb(per_col_b ? n : 1), bv(bias ? n : 0);
  std::vector<int32_t> za(zero_a ? (per_row_a ? m : 1) : 0), zb(zero_b ? (per_col_b ? n : 1) : 0);
  for (float& x : sa) x = scale(rng);
  for (float& x : sb) x = scale(rng);
  for (float& x : bv) x = bias_dist(rng);
  for (int32_t& x : za) x = zpa(rng);
  for (int32_t& x : zb) x = zpb(rng);
  if (!za.empty()) za[0] = std::numeric_limits<T>::min();  // the extreme zero points too
  if (!zb.empty()) zb[0] = 127;
  const auto at = [](const auto& v, int64_t i, auto zero) { return v.empty() ? zero : v[v.size() == 1 ? 0 : i]; };
  const PackedInt8Weights w = pack_int8_weights(b.data(), k, n, n);
  const Int8Epilogue ep{{sa, za}, {sb, zb}, bv};
  for_each_int8_path([&](Int8Path) {
    std::vector<float> out(static_cast<size_t>(m * n));
    gemm_int8_dequant(a.data(), k, m, w, ep, out.data(), n);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        int64_t q = 0;
        for (int64_t kk = 0; kk < k; ++kk)
          q += (int64_t{a[i * k + kk]} - at(za, i, 0)) * (int64_t{b[kk * n + j]} - at(zb, j, 0));
        const double want = double(at(sa, i, 0.0f)) * double(at(sb, j, 0.0f)) * double(q) + double(at(bv, j, 0.0f));
        // One rounding to f32 (the double scaling may differ from the reference's in its last bits).
        const double tol = std::abs(want) * std::ldexp(1.0, -23) + 1e-30;
        ASSERT_NEAR(out[i * n + j], want, tol) << "out[" << i << "][" << j << "]";
      }
  });
}

TEST(Int8Gemm, EpilogueMatchesDoubleReferenceOnEveryPath) {
  SKIP_IF_INT8_PATH_MISSING();
  for (int mask = 0; mask < 32; ++mask) {
    const bool pr = mask & 1, pc = mask & 2, za = mask & 4, zb = mask & 8, bias = mask & 16;
    check_epilogue<uint8_t>(pr, pc, za, zb, bias);
    check_epilogue<int8_t>(pr, pc, za, zb, bias);
  }
}

TEST(Int8Gemm, BadArgumentsAreValueErrors) {
  const std::vector<int8_t> b(6, 1);
  const PackedInt8Weights w = pack_int8_weights(b.data(), 2, 3, 3);
  const std::vector<uint8_t> a(4, 1);
  std::vector<int32_t> c(6);
  std::vector<float> out(6);
  EXPECT_THROW(pack_int8_weights(b.data(), -1, 3, 3), ValueError);
  EXPECT_THROW(pack_int8_weights(b.data(), 2, 3, 2), ValueError);        // ldb < n
  EXPECT_THROW(gemm_int8(a.data(), 1, 2, w, c.data(), 3), ValueError);   // lda < k
  EXPECT_THROW(gemm_int8(a.data(), 2, -1, w, c.data(), 3), ValueError);  // negative m
  EXPECT_THROW(gemm_int8(a.data(), 2, 2, w, c.data(), 2), ValueError);   // ldc < n
  const float one = 1.0f;
  const std::vector<float> two(2, 1.0f), four(4, 1.0f);
  const int32_t z_neg = -1, z_256 = 256, z_128 = 128;
  const auto dequant = [&](Int8Epilogue ep) { gemm_int8_dequant(a.data(), 2, 2, w, ep, out.data(), 3); };
  EXPECT_NO_THROW(dequant({{{&one, 1}, {}}, {{&one, 1}, {}}, {}}));
  EXPECT_THROW(dequant({{four, {}}, {{&one, 1}, {}}, {}}), ValueError);                // 4 scales for 2 rows
  EXPECT_THROW(dequant({{{&one, 1}, {}}, {two, {}}, {}}), ValueError);                 // 2 scales for 3 columns
  EXPECT_THROW(dequant({{{&one, 1}, {}}, {{&one, 1}, {}}, two}), ValueError);          // 2 biases for 3 columns
  EXPECT_THROW(dequant({{{&one, 1}, {&z_neg, 1}}, {{&one, 1}, {}}, {}}), ValueError);  // u8 zero point -1
  EXPECT_THROW(dequant({{{&one, 1}, {&z_256, 1}}, {{&one, 1}, {}}, {}}), ValueError);  // u8 zero point 256
  EXPECT_THROW(dequant({{{&one, 1}, {}}, {{&one, 1}, {&z_128, 1}}, {}}), ValueError);  // s8 zero point 128
  const std::vector<int8_t> sa(4, 1);
  EXPECT_THROW(gemm_int8_dequant(sa.data(), 2, 2, w, {{{&one, 1}, {&z_128, 1}}, {{&one, 1}, {}}, {}}, out.data(), 3),
               ValueError);
  // K past the exact limit of u8 x s8 but within s8 x s8's: refused for u8 A only.
  const int64_t k = int8_gemm_max_k(false) + 1;
  ASSERT_LE(k, int8_gemm_max_k(true));
  const std::vector<int8_t> bk(static_cast<size_t>(k), 1);
  const PackedInt8Weights wk = pack_int8_weights(bk.data(), k, 1, 1);
  const std::vector<uint8_t> ak(static_cast<size_t>(k), 255);
  const std::vector<int8_t> sk(static_cast<size_t>(k), -128);
  int32_t ck = 0;
  EXPECT_THROW(gemm_int8(ak.data(), k, 1, wk, &ck, 1), ValueError);
  gemm_int8(sk.data(), k, 1, wk, &ck, 1);
  EXPECT_EQ(ck, -128 * k);
  EXPECT_THROW(pack_int8_weights(bk.data(), int8_gemm_max_k(true) + 1, 1, 1), ValueError);
}

TEST(Int8Gemm, EnvironmentChoosesThePath) {
  // ctest runs the Int8Gemm tests under BURN_CPU_INT8=scalar, =avx2 and =vnni too (tests/CMakeLists.txt).
  const char* env = std::getenv("BURN_CPU_INT8");
  if (!env || !*env) {  // empty counts as unset, as in the kernel
    EXPECT_EQ(int8_path(), int8_path_available(Int8Path::Vnni)   ? Int8Path::Vnni
                           : int8_path_available(Int8Path::Avx2) ? Int8Path::Avx2
                                                                 : Int8Path::Scalar);
    return;
  }
  SKIP_IF_INT8_PATH_MISSING();
  EXPECT_STREQ(int8_path_name(int8_path()), env);
}

TEST(Int8Gemm, AMissingPathIsAnError) {
  SKIP_IF_INT8_PATH_MISSING();
  for (Int8Path p : kInt8Paths)
    if (!int8_path_available(p)) EXPECT_THROW(set_int8_path(p), Unsupported) << int8_path_name(p);
  EXPECT_NO_THROW(set_int8_path(set_int8_path(Int8Path::Scalar)));
}

}  // namespace
}  // namespace burn::cpu
