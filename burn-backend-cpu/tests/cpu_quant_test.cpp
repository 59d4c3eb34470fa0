// quantized_linear on the cpu plugin (ops/quant.cpp) on every int8 path: the integer part bitwise equal to an
// int64 reference, the saturation corner (u8 activations at 255 against full-range int8 weights), the kernel
// and burn-tensor's composite (Backend::quantized_linear on the same backend) giving the same bits, the
// fallback past the int32-exact K, and the packed-weight cache (one pack per weight storage, pinned against
// in-place writes, dropped with its weight). matmul_integer likewise: bitwise equal to an int64 reference for u8/s8
// operands with per-tensor, per-row and per-column zero points, the saturation corner, the int32 wrap, and the
// kernel equal to the composite.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cpu_test_fixture.hpp"
#include "int8_paths.hpp"
#include "ops/gemm_int8.hpp"
#include "ops/quant.hpp"

namespace burn::cpu {
namespace {

class CpuQuantTest : public CpuBackendTest {
 protected:
  Prim i8(const std::vector<int8_t>& v, Shape s) { return b.from_data(TensorData::from_vector(v, std::move(s))); }

  // The kernel's result and the composite's on the same operands.
  std::pair<std::vector<float>, std::vector<float>> both(const Prim& x, const Prim& w, const Prim& s, const Prim& z,
                                                         const Prim& bias) {
    return {vals<float>(b.quantized_linear(x, w, s, z, bias)),
            vals<float>(b.Backend::quantized_linear(x, w, s, z, bias))};
  }
};

std::vector<float> normal_values(size_t n, uint32_t seed, float scale) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

std::vector<int8_t> int8_values(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<int8_t> v(n);
  for (int8_t& x : v) x = static_cast<int8_t>(d(rng));
  return v;
}

// Equal bits, NaN matching NaN.
void expect_same_bits(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  int64_t wrong = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const bool same = std::isnan(got[i]) ? std::isnan(want[i]) : std::memcmp(&got[i], &want[i], sizeof(float)) == 0;
    if (!same && wrong++ < 5) ADD_FAILURE() << "element " << i << ": " << got[i] << " vs " << want[i];
  }
  EXPECT_EQ(wrong, 0);
}

// out = float((sa * sb) * sum_k (qa - za)(qb - zb) + bias) with the sum in int64, from the rows as
// quantize_rows_u8 quantizes them.
std::vector<float> int64_reference(const std::vector<float>& x, const std::vector<int8_t>& w, int64_t m, int64_t k,
                                   int64_t n, const std::vector<float>& sb, const std::vector<int32_t>& zb,
                                   const std::vector<float>& bias) {
  std::vector<uint8_t> qa(static_cast<size_t>(m * k)), bad(static_cast<size_t>(m));
  std::vector<float> sa(static_cast<size_t>(m));
  std::vector<int32_t> za(static_cast<size_t>(m));
  quantize_rows_u8(x.data(), m, k, qa.data(), sa.data(), za.data(), bad.data());
  std::vector<float> out(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const int64_t zbj = zb.empty() ? 0 : zb[zb.size() == 1 ? 0 : static_cast<size_t>(j)];
      int64_t acc = 0;
      for (int64_t kk = 0; kk < k; ++kk) acc += (int64_t{qa[i * k + kk]} - za[i]) * (int64_t{w[kk * n + j]} - zbj);
      const double s = double(sa[i]) * double(sb[sb.size() == 1 ? 0 : static_cast<size_t>(j)]);
      const double r = s * double(acc) + (bias.empty() ? 0.0 : double(bias[static_cast<size_t>(j)]));
      out[i * n + j] = bad[i] ? NAN : static_cast<float>(r);
    }
  return out;
}

TEST_F(CpuQuantTest, RowsQuantizeAsTheContractSays) {
  // [-1, 3] -> scale 4/255, zero point round(1 / scale) = round(63.75) = 64; a zero row keeps the smallest scale.
  const std::vector<float> x{-1.0f, 0.0f, 3.0f, 1.0f, 0.0f, 0.0f, 0.0f, 0.0f};
  std::vector<uint8_t> q(8), bad(2);
  std::vector<float> s(2);
  std::vector<int32_t> z(2);
  quantize_rows_u8(x.data(), 2, 4, q.data(), s.data(), z.data(), bad.data());
  EXPECT_EQ(s[0], 4.0f / 255.0f);
  EXPECT_EQ(z[0], 64);
  EXPECT_EQ(q[0], 0);
  EXPECT_EQ(q[1], 64);
  EXPECT_EQ(q[2], 255);
  EXPECT_EQ(q[3], static_cast<uint8_t>(std::nearbyint(1.0f / s[0]) + 64));
  EXPECT_EQ(s[1], 0x1p-126f);
  EXPECT_EQ(z[1], 0);
  EXPECT_EQ(bad[0] + bad[1], 0);
}

// The AVX-512 quantizer (where the CPU has it) against the portable one, bit for bit: row lengths around the
// 16-lane step, ranges from tiny to huge, -0, NaN and infinities, rows of one sign.
TEST_F(CpuQuantTest, QuantizersAgree) {
  const int64_t m = 9;
  for (int64_t k : {int64_t{1}, int64_t{15}, int64_t{16}, int64_t{17}, int64_t{100}, int64_t{768}}) {
    SCOPED_TRACE(::testing::Message() << "k = " << k);
    std::vector<float> x;
    for (int64_t i = 0; i < m; ++i) {
      const std::vector<float> row = normal_values(static_cast<size_t>(k), 7000 + static_cast<uint32_t>(i * k),
                                                   i == 0 ? 1e-30f : (i == 1 ? 1e30f : float(i)));
      x.insert(x.end(), row.begin(), row.end());
    }
    for (int64_t j = 0; j < k; ++j) {
      x[static_cast<size_t>(2 * k + j)] = std::abs(x[static_cast<size_t>(2 * k + j)]) + 0.5f;  // all positive
      x[static_cast<size_t>(3 * k + j)] = -std::abs(x[static_cast<size_t>(3 * k + j)]);        // all <= 0
    }
    x[static_cast<size_t>(3 * k)] = -0.0f;
    x[static_cast<size_t>(4 * k + k / 2)] = NAN;
    x[static_cast<size_t>(5 * k + k - 1)] = -INFINITY;
    x[static_cast<size_t>(6 * k)] = INFINITY;
    std::fill_n(x.begin() + 7 * k, k, -0.0f);
    const size_t n = x.size();
    std::vector<uint8_t> q1(n), q2(n), bad1(m), bad2(m);
    std::vector<float> s1(m), s2(m);
    std::vector<int32_t> z1(m), z2(m);
    quantize_rows_u8(x.data(), m, k, q1.data(), s1.data(), z1.data(), bad1.data());
    quantize_rows_u8_portable(x.data(), m, k, q2.data(), s2.data(), z2.data(), bad2.data());
    EXPECT_EQ(q1, q2);
    EXPECT_EQ(z1, z2);
    EXPECT_EQ(bad1, bad2);
    for (int64_t i = 0; i < m; ++i) EXPECT_EQ(std::memcmp(&s1[i], &s2[i], sizeof(float)), 0) << "scale of row " << i;
    EXPECT_EQ(bad1[4] + bad1[5] + bad1[6], 3);
  }
}

TEST_F(CpuQuantTest, IntegerPartEqualsInt64ReferenceOnEveryPath) {
  SKIP_IF_INT8_PATH_MISSING();
  struct Case {
    int64_t m, k, n;
    bool per_channel, affine, bias;
  };
  const Case cases[] = {{1, 1, 1, false, false, false},
                        {7, 37, 11, true, true, true},
                        {5, 16, 8, false, true, false},
                        {33, 300, 17, true, false, true},
                        {2, 1000, 3, true, true, true}};
  uint32_t seed = 1;
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << c.m << "x" << c.k << "x" << c.n);
    std::vector<float> x = normal_values(static_cast<size_t>(c.m * c.k), seed++, 2.0f);
    if (c.m > 2) x[static_cast<size_t>(c.k + 1)] = NAN;  // row 1 becomes NaN
    const std::vector<int8_t> w = int8_values(static_cast<size_t>(c.k * c.n), seed++);
    const size_t ns = c.per_channel ? static_cast<size_t>(c.n) : 1;
    std::vector<float> sb(ns);
    for (size_t j = 0; j < ns; ++j) sb[j] = 0.001f * static_cast<float>(j + 1);
    std::vector<int32_t> zb;
    if (c.affine)
      for (size_t j = 0; j < ns; ++j) zb.push_back(static_cast<int32_t>(j % 7) - 3);
    const std::vector<float> bias =
        c.bias ? normal_values(static_cast<size_t>(c.n), seed++, 1.0f) : std::vector<float>{};
    const std::vector<float> want = int64_reference(x, w, c.m, c.k, c.n, sb, zb, bias);
    const Prim px = f32(x, {c.m, c.k}), pw = i8(w, {c.k, c.n}), ps = f32(sb, {static_cast<int64_t>(ns)});
    const Prim pz = c.affine ? i32(zb, {static_cast<int64_t>(ns)}) : nullptr;
    const Prim pb = c.bias ? f32(bias, {c.n}) : nullptr;
    for_each_int8_path([&](Int8Path) {
      auto [kernel, composite] = both(px, pw, ps, pz, pb);
      expect_same_bits(kernel, want);
      expect_same_bits(composite, want);
    });
  }
}

// Every activation quantizes to 255 (each row constant and positive: zero point 0), every weight is -128 or 127:
// the pairs a vpmaddubsw kernel saturates. K = 65,793 is the longest whose sums int32 holds.
TEST_F(CpuQuantTest, SaturationCornerIsExact) {
  SKIP_IF_INT8_PATH_MISSING();
  for (int64_t k : {int64_t{64}, int64_t{4097}, int8_gemm_max_k(false)}) {
    SCOPED_TRACE(::testing::Message() << "k = " << k);
    const int64_t m = 2, n = 9;
    std::vector<float> x(static_cast<size_t>(m * k), 1.0f);
    std::fill(x.begin() + k, x.end(), 0.25f);
    std::vector<int8_t> w(static_cast<size_t>(k * n), -128);
    for (int64_t kk = 0; kk < k; ++kk) w[static_cast<size_t>(kk * n + 1)] = 127;
    const Prim px = f32(x, {m, k}), pw = i8(w, {k, n}), ps = f32({0.5f}, {1});
    for_each_int8_path([&](Int8Path) {
      auto [kernel, composite] = both(px, pw, ps, nullptr, nullptr);
      for (int64_t i = 0; i < m; ++i) {
        const double sa = double((i == 0 ? 1.0f : 0.25f) / 255.0f);
        for (int64_t j = 0; j < n; ++j) {
          const int64_t acc = 255 * (j == 1 ? 127 : -128) * k;
          const float want = static_cast<float>(sa * 0.5 * double(acc));
          ASSERT_EQ(kernel[static_cast<size_t>(i * n + j)], want) << i << "," << j;
          ASSERT_EQ(composite[static_cast<size_t>(i * n + j)], want) << i << "," << j;
        }
      }
    });
  }
}

TEST_F(CpuQuantTest, KernelAndCompositeAgreeOnRandomShapes) {
  SKIP_IF_INT8_PATH_MISSING();
  std::mt19937 rng(99);
  std::uniform_int_distribution<int64_t> size(1, 70);
  for (int trial = 0; trial < 20; ++trial) {
    const int64_t m = size(rng), k = size(rng) * 3, n = size(rng);
    SCOPED_TRACE(::testing::Message() << m << "x" << k << "x" << n);
    std::vector<float> x = normal_values(static_cast<size_t>(m * k), 1000 + trial, trial % 2 ? 0.01f : 30.0f);
    if (trial % 3 == 0) x[0] = INFINITY;
    const Prim px = f32(x, {m, k}), pw = i8(int8_values(static_cast<size_t>(k * n), 2000 + trial), {k, n});
    const Prim ps = f32(normal_values(static_cast<size_t>(n), 3000 + trial, 0.01f), {n});
    const Prim pz = trial % 2 ? i32(std::vector<int32_t>(static_cast<size_t>(n), trial - 10), {n}) : nullptr;
    const Prim pb = trial % 4 ? f32(normal_values(static_cast<size_t>(n), 4000 + trial, 1.0f), {n}) : nullptr;
    for_each_int8_path([&](Int8Path) {
      auto [kernel, composite] = both(px, pw, ps, pz, pb);
      expect_same_bits(kernel, composite);
    });
  }
}

// Past the K whose u8 x s8 sums int32 holds, the kernel hands the op to the composite (exact in f64).
TEST_F(CpuQuantTest, LongerKThanInt32HoldsTakesTheComposite) {
  const int64_t k = int8_gemm_max_k(false) + 1;
  const Prim px = f32(std::vector<float>(static_cast<size_t>(k), 1.0f), {1, k});
  const Prim pw = i8(std::vector<int8_t>(static_cast<size_t>(k), -128), {k, 1});
  const uint64_t packs = quantized_linear_packs();
  const std::vector<float> got = vals<float>(b.quantized_linear(px, pw, f32({1.0f}, {1}), nullptr, nullptr));
  EXPECT_EQ(quantized_linear_packs(), packs);
  EXPECT_EQ(got, std::vector<float>{static_cast<float>(double(1.0f / 255.0f) * double(255 * -128 * k))});
}

TEST_F(CpuQuantTest, WeightsArePackedOncePerStorageAndPinned) {
  SKIP_IF_INT8_PATH_MISSING();  // the GEMM reads BURN_CPU_INT8 (cpu.int8_gemm_vnni on a CPU without VNNI)
  const Prim x = f32(normal_values(24, 5, 1.0f), {3, 8});
  const Prim s = f32({0.01f}, {1});
  Prim w = i8(int8_values(32, 6), {8, 4});
  const size_t cached = quantized_linear_cached_weights();
  const uint64_t packs = quantized_linear_packs();
  const std::vector<float> first = vals<float>(b.quantized_linear(x, w, s, nullptr, nullptr));
  EXPECT_EQ(quantized_linear_packs(), packs + 1);
  EXPECT_EQ(vals<float>(b.quantized_linear(x, w, s, nullptr, nullptr)), first);
  EXPECT_EQ(quantized_linear_packs(), packs + 1) << "the second call must reuse the packed weight";
  EXPECT_EQ(quantized_linear_cached_weights(), cached + 1);
  // A view of another part of the same storage is another weight.
  Prim half = b.slice(w, {{0, 8, 1}, {0, 2, 1}});
  b.quantized_linear(x, half, s, nullptr, nullptr);
  EXPECT_EQ(quantized_linear_packs(), packs + 2);
  half.reset();
  EXPECT_EQ(quantized_linear_cached_weights(), cached + 2) << "the views of a live storage stay";
  // An elementwise op writes into the buffer of its input's last handle (the control), but not into a cached
  // weight's: the cache holds the storage, so the packed copy cannot go stale.
  Prim fresh = i8(int8_values(32, 7), {8, 4});
  const Storage* fresh_storage = as_cpu(fresh, "test")->storage().get();
  EXPECT_EQ(as_cpu(b.bitwise_not(std::move(fresh)), "test")->storage().get(), fresh_storage);
  const Storage* w_storage = as_cpu(w, "test")->storage().get();
  const Prim w2 = b.bitwise_not(std::move(w));
  EXPECT_NE(as_cpu(w2, "test")->storage().get(), w_storage);
  EXPECT_EQ(quantized_linear_cached_weights(), cached) << "the storage's last handle is gone: its entries go";
}

// ---- matmul_integer ----

// sum_k (a - za)(b - zb) in int64, wrapped to int32; a is [rows, k] with rows a multiple of m (za per row of each
// matrix when it has m values).
template <typename A, typename B>
std::vector<int32_t> matmul_integer_reference(const std::vector<A>& a, const std::vector<B>& b, int64_t rows, int64_t m,
                                              int64_t k, int64_t n, const std::vector<int32_t>& za,
                                              const std::vector<int32_t>& zb) {
  std::vector<int32_t> out(static_cast<size_t>(rows * n));
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t zai = za.empty() ? 0 : za[za.size() == 1 ? 0 : static_cast<size_t>(i % m)];
    for (int64_t j = 0; j < n; ++j) {
      const int64_t zbj = zb.empty() ? 0 : zb[zb.size() == 1 ? 0 : static_cast<size_t>(j)];
      int64_t acc = 0;
      for (int64_t kk = 0; kk < k; ++kk) acc += (int64_t{a[i * k + kk]} - zai) * (int64_t{b[kk * n + j]} - zbj);
      out[static_cast<size_t>(i * n + j)] = static_cast<int32_t>(acc);
    }
  }
  return out;
}

template <typename T>
std::vector<T> int_values(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(d(rng));
  return v;
}

class CpuMatmulIntegerTest : public CpuQuantTest {
 public:
  template <typename T>
  Prim ints(const std::vector<T>& v, Shape s) {
    return b.from_data(TensorData::from_vector(v, std::move(s)));
  }
  Prim zps(const std::vector<int32_t>& z) { return z.empty() ? nullptr : i32(z, {static_cast<int64_t>(z.size())}); }
  // The kernel's result and the composite's.
  std::pair<std::vector<int32_t>, std::vector<int32_t>> both(const Prim& a, const Prim& w, const Prim& za,
                                                             const Prim& zb) {
    return {vals<int32_t>(b.matmul_integer(a, w, za, zb)), vals<int32_t>(b.Backend::matmul_integer(a, w, za, zb))};
  }
};

template <typename A, typename B>
void check_case(CpuMatmulIntegerTest& t, std::vector<int64_t> a_dims, int64_t n, const std::vector<int32_t>& za,
                const std::vector<int32_t>& zb, uint32_t seed) {
  const int64_t k = a_dims.back(), m = a_dims[a_dims.size() - 2];
  const Shape as(a_dims);
  const int64_t rows = as.num_elements() / k;
  const std::vector<A> a = int_values<A>(static_cast<size_t>(rows * k), seed);
  const std::vector<B> w = int_values<B>(static_cast<size_t>(k * n), seed + 1);
  const std::vector<int32_t> want = matmul_integer_reference(a, w, rows, m, k, n, za, zb);
  const Prim pa = t.ints(a, as), pw = t.ints(w, {k, n}), pza = t.zps(za), pzb = t.zps(zb);
  for_each_int8_path([&](Int8Path) {
    auto [kernel, composite] = t.both(pa, pw, pza, pzb);
    EXPECT_EQ(kernel, want);
    EXPECT_EQ(composite, want);
  });
}

TEST_F(CpuMatmulIntegerTest, EqualsInt64ReferenceOnEveryPath) {
  SKIP_IF_INT8_PATH_MISSING();
  check_case<uint8_t, int8_t>(*this, {7, 37}, 11, {}, {}, 1);
  check_case<uint8_t, int8_t>(*this, {5, 16}, 8, {131}, {-3}, 3);
  check_case<int8_t, int8_t>(*this, {33, 300}, 17, {-128}, std::vector<int32_t>(17, 127), 5);
  check_case<int8_t, uint8_t>(*this, {2, 5, 13}, 11, {-128, 0, 5, 127, -1}, {0, 255, 128, 1, 2, 3, 4, 5, 6, 7, 8}, 7);
  check_case<uint8_t, uint8_t>(*this, {3, 4, 1000}, 3, {0, 255, 128, 7}, {255}, 9);
  check_case<uint8_t, uint8_t>(*this, {1, 1}, 1, {}, {}, 11);
}

// u8 255 x s8 -128 / 127 (and u8 b 0 - 255): every pair a vpmaddubsw kernel adds into a saturating int16 is out
// of its range, and long K. The exact sums, and past int32 (K = 65,793 x 255 x 255) the int32 wrap.
TEST_F(CpuMatmulIntegerTest, SaturationCornerIsExact) {
  SKIP_IF_INT8_PATH_MISSING();
  for (int64_t k : {int64_t{64}, int64_t{4097}, int8_gemm_max_k(false)}) {
    SCOPED_TRACE(::testing::Message() << "k = " << k);
    const int64_t m = 2, n = 9;
    std::vector<uint8_t> a(static_cast<size_t>(m * k), 255);
    std::vector<int8_t> w(static_cast<size_t>(k * n), -128);
    for (int64_t kk = 0; kk < k; ++kk) w[static_cast<size_t>(kk * n + 1)] = 127;
    const std::vector<int32_t> want = matmul_integer_reference(a, w, m, m, k, n, {}, {});
    EXPECT_EQ(want[0], static_cast<int32_t>(-255 * 128 * k));
    const Prim pa = ints(a, {m, k}), pw = ints(w, {k, n});
    std::vector<uint8_t> wu(static_cast<size_t>(k * n), 0);
    const std::vector<int32_t> want_u = matmul_integer_reference(a, wu, m, m, k, n, {}, {255});
    EXPECT_EQ(want_u[0], static_cast<int32_t>(int64_t{-255} * 255 * k)) << "wrapped to int32 past its range";
    const Prim pwu = ints(wu, {k, n}), zb = i32({255}, {1});
    for_each_int8_path([&](Int8Path) {
      auto [kernel, composite] = both(pa, pw, nullptr, nullptr);
      EXPECT_EQ(kernel, want);
      EXPECT_EQ(composite, want);
      auto [kernel_u, composite_u] = both(pa, pwu, nullptr, zb);
      EXPECT_EQ(kernel_u, want_u);
      EXPECT_EQ(composite_u, want_u);
    });
  }
}

TEST_F(CpuMatmulIntegerTest, KernelAndCompositeAgreeOnRandomShapes) {
  SKIP_IF_INT8_PATH_MISSING();
  std::mt19937 rng(7);
  std::uniform_int_distribution<int64_t> size(1, 70);
  for (int trial = 0; trial < 16; ++trial) {
    const int64_t m = size(rng), k = size(rng) * 3, n = size(rng);
    SCOPED_TRACE(::testing::Message() << m << "x" << k << "x" << n);
    const Prim pa = trial % 2 ? ints(int_values<int8_t>(static_cast<size_t>(m * k), trial), {m, k})
                              : ints(int_values<uint8_t>(static_cast<size_t>(m * k), trial), {m, k});
    const Prim pw = trial % 3 ? ints(int_values<int8_t>(static_cast<size_t>(k * n), 100 + trial), {k, n})
                              : ints(int_values<uint8_t>(static_cast<size_t>(k * n), 100 + trial), {k, n});
    const Prim za = trial % 4 == 1 ? i32({trial % 2 ? -7 : 200}, {1}) : nullptr;
    const Prim zb =
        trial % 4 == 2 ? i32(std::vector<int32_t>(static_cast<size_t>(n), trial % 3 ? 100 : 3), {n}) : nullptr;
    for_each_int8_path([&](Int8Path) {
      auto [kernel, composite] = both(pa, pw, za, zb);
      EXPECT_EQ(kernel, composite);
    });
  }
}

// A u8 b is packed once (shifted to s8) and reused; an i8 view of another weight is another entry.
TEST_F(CpuMatmulIntegerTest, WeightsArePackedOnce) {
  const Prim a = ints(int_values<uint8_t>(24, 1), {3, 8});
  const Prim w = ints(int_values<uint8_t>(32, 2), {8, 4});
  const uint64_t packs = quantized_linear_packs();
  const std::vector<int32_t> first = vals<int32_t>(b.matmul_integer(a, w, nullptr, nullptr));
  EXPECT_EQ(vals<int32_t>(b.matmul_integer(a, w, nullptr, nullptr)), first);
  EXPECT_EQ(quantized_linear_packs(), packs + 1) << "the second call must reuse the packed weight";
}

// The operand dtypes the backend ops take are checked once (shape_rules' Prim overloads), alike on the kernel's
// path and the composite's: a DTypeError naming the op and the operand.
TEST_F(CpuMatmulIntegerTest, KernelAndCompositeRefuseTheSameDtypes) {
  const auto refused = [](const std::function<void()>& f, const std::string& what) {
    try {
      f();
      ADD_FAILURE() << "no error for: " << what;
    } catch (const DTypeError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  const Prim a = ints(int_values<uint8_t>(24, 1), {3, 8}), w = ints(int_values<int8_t>(32, 2), {8, 4});
  const Prim wrong = i32(std::vector<int32_t>(32, 1), {8, 4}), z8 = ints(std::vector<int8_t>{1}, {1});
  for (const bool kernel : {true, false}) {
    SCOPED_TRACE(kernel ? "kernel" : "composite");
    const auto mi = [&](const Prim& x, const Prim& y, const Prim& zx, const Prim& zy) {
      return kernel ? b.matmul_integer(x, y, zx, zy) : b.Backend::matmul_integer(x, y, zx, zy);
    };
    refused([&] { mi(a, wrong, nullptr, nullptr); }, "[matmul_integer] a and b must be u8 or i8, got i32");
    refused([&] { mi(a, w, z8, nullptr); }, "[matmul_integer] zero points must be i32, got i8");
    const Prim x = f32(std::vector<float>(24, 1.0f), {3, 8}), s = f32({0.5f}, {1});
    const auto ql = [&](const Prim& vals, const Prim& scales, const Prim& bias) {
      return kernel ? b.quantized_linear(x, vals, scales, nullptr, bias)
                    : b.Backend::quantized_linear(x, vals, scales, nullptr, bias);
    };
    refused(
        [&] {
          ql(ints(int_values<uint8_t>(32, 3), {8, 4}), s, nullptr);
        },
        "[quantized_linear] the weight's values must be i8, got u8");
    refused([&] { ql(w, i32({1}, {1}), nullptr); }, "[quantized_linear] the weight's scales must be f32, got i32");
    refused([&] { ql(w, s, i32({1, 2, 3, 4}, {4})); }, "[quantized_linear] bias must have x's dtype, got i32");
  }
}

}  // namespace
}  // namespace burn::cpu
