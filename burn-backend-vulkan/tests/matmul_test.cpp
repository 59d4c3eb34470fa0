// matmul on the Vulkan device against the cpu plugin, on both GEMM kernels of burn-gpu/kernels/matmul.kernel (the
// register-blocked and the shared-memory tiled one, whichever the profile picks): edge sizes (1, 0, odd,
// several tiles, grids beyond the device's limit), broadcast batches, transposed, sliced, flipped and expanded views
// read in place, every dtype the device has (f16 against f32 sums of the same values), wrapping integer sums, errors,
// the epilogue hook, and the kernel choice and tile sizes from a profile.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <utility>

#include "burn/tensor/error.hpp"
#include "burn/tensor/plugin.hpp"
#include "device_support.hpp"
#include "ops/matmul.hpp"
#include "runtime/instance.hpp"

namespace burn::vulkan {
namespace {

constexpr GemmKernel kBoth[] = {GemmKernel::register_blocked, GemmKernel::shared_tiled};

// Seeded values: floats in [-1, 1]; f16 data holds multiples of 1/64 in [-2, 2] (exact in f16, so the cpu's
// f32 product of the same values is the reference); ints in [-lim, lim].
TensorData matmul_operand(const Shape& shape, DType d, uint32_t seed, int64_t lim = 50) {
  std::mt19937_64 rng(seed);
  const size_t n = static_cast<size_t>(shape.num_elements());
  if (d == DType::I64 || d == DType::I32) {
    std::uniform_int_distribution<int64_t> dist(-lim, lim);
    std::vector<int64_t> v(n);
    for (auto& x : v) x = dist(rng);
    TensorData t = TensorData::from_vector(v, shape);
    return d == DType::I64 ? t : t.convert(DType::I32);
  }
  std::vector<double> v(n);
  if (d == DType::F16) {
    std::uniform_int_distribution<int> dist(-128, 128);
    for (auto& x : v) x = dist(rng) / 64.0;
  } else {
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    for (auto& x : v) x = dist(rng);
  }
  return TensorData::from_vector(v, shape).convert(d);
}

using View = std::function<Prim(Backend&, Prim)>;
Prim same(Backend&, Prim p) { return p; }
// A [.., a, b] stored as [.., b, a] and transposed back (row stride 1).
View transposed(size_t rank) {
  return [rank](Backend& b, Prim p) {
    Axes axes;
    for (size_t i = 0; i < rank; ++i) axes.push_back(static_cast<int64_t>(i));
    std::swap(axes[rank - 1], axes[rank - 2]);
    return b.permute(std::move(p), axes);
  };
}

// matmul of views of `a` and `b` on the device with `kernel`, checked against the cpu plugin's (f16: the cpu
// computes in f32 on the same values, the device sums in f32 and rounds once to f16).
void expect_matmul(GemmKernel kernel, const TensorData& a, const TensorData& b, const View& va = same,
                   const View& vb = same, const std::string& what = "", const GemmOptions& options = {}) {
  DeviceAndCpu& bk = *device_and_cpu();
  const DType d = a.dtype();
  const bool half = d == DType::F16;
  Prim want = bk.cpu->matmul(va(*bk.cpu, bk.cpu->from_data(half ? a.convert(DType::F32) : a)),
                             vb(*bk.cpu, bk.cpu->from_data(half ? b.convert(DType::F32) : b)));
  Prim got = matmul_with(*bk.vk, va(*bk.vk, bk.vk->from_data(a)), vb(*bk.vk, bk.vk->from_data(b)), kernel, options);
  const TensorData w = bk.cpu->into_data(want);
  const TensorData g = bk.vk->into_data(got);
  const std::string ctx = std::string(gemm_kernel_name(kernel)) + " " + std::string(dtype_name(d)) + " " +
                          a.shape().to_string() + " x " + b.shape().to_string() + " " + what;
  ASSERT_EQ(g.dtype(), d) << ctx;
  ASSERT_EQ(g.shape(), w.shape()) << ctx;
  if (d == DType::I64 || d == DType::I32) {
    EXPECT_TRUE(g == w) << ctx;
    return;
  }
  const double rtol = half ? 2e-3 : d == DType::F64 ? 1e-12 : 1e-5;
  const double atol = half ? 2e-3 : d == DType::F64 ? 1e-12 : 1e-5;
  const ApproxReport r = g.convert(DType::F64).compare_approx(w.convert(DType::F64), rtol, atol);
  EXPECT_TRUE(r.ok) << ctx << ": " << r.message;
}

void expect_matmul(GemmKernel kernel, const Shape& sa, const Shape& sb, DType d = DType::F32, uint32_t seed = 1) {
  expect_matmul(kernel, matmul_operand(sa, d, seed), matmul_operand(sb, d, seed + 100));
}

TEST(VulkanMatmul, EdgeAndOddSizes) {
  REQUIRE_DEVICE_AND_CPU();
  (void)vk, (void)cpu;
  for (GemmKernel k : kBoth) {
    expect_matmul(k, Shape{1, 1}, Shape{1, 1});
    expect_matmul(k, Shape{17, 33}, Shape{33, 9});
    expect_matmul(k, Shape{1, 40}, Shape{40, 1});      // a dot product
    expect_matmul(k, Shape{70, 1}, Shape{1, 65});      // an outer product, K = 1
    expect_matmul(k, Shape{3, 100}, Shape{100, 130});  // N over two tiles, K over several steps
  }
}

TEST(VulkanMatmul, SeveralTilesEachWay) {
  REQUIRE_DEVICE_AND_CPU();
  (void)vk, (void)cpu;
  for (GemmKernel k : kBoth) expect_matmul(k, Shape{128, 256}, Shape{256, 64});
}

TEST(VulkanMatmul, ZeroSizedOperands) {
  REQUIRE_DEVICE_AND_CPU();
  (void)cpu;
  for (GemmKernel k : kBoth) {
    expect_matmul(k, Shape{0, 4}, Shape{4, 3});        // M = 0
    expect_matmul(k, Shape{3, 4}, Shape{4, 0});        // N = 0
    expect_matmul(k, Shape{0, 2, 3}, Shape{0, 3, 4});  // no batches
    // K = 0: zeros, also over a result buffer the pool hands out again (it holds old values).
    for (int round = 0; round < 2; ++round) {
      Prim r = matmul_with(vk, vk.from_data(TensorData(Shape{3, 0}, DType::F32)),
                           vk.from_data(TensorData(Shape{0, 5}, DType::F32)), k);
      const TensorData t = vk.into_data(r);
      ASSERT_EQ(t.shape(), (Shape{3, 5}));
      EXPECT_EQ(t.to_vec<float>(), std::vector<float>(15, 0.0f));
      Prim fill = vk.full(Shape{3, 5}, Scalar(7.0), DType::F32);  // dirty a slice of that size class
      (void)vk.into_data(fill);
    }
    expect_matmul(k, Shape{2, 3, 0}, Shape{2, 0, 4}, DType::I64);
  }
}

TEST(VulkanMatmul, BroadcastBatches) {
  REQUIRE_DEVICE_AND_CPU();
  (void)vk, (void)cpu;
  for (GemmKernel k : kBoth) {
    expect_matmul(k, Shape{2, 1, 5, 7}, Shape{1, 3, 7, 4});
    expect_matmul(k, Shape{4, 6, 9}, Shape{1, 9, 5});  // one rhs for every lhs (a Linear on [B, T, C])
    expect_matmul(k, Shape{1, 6, 9}, Shape{4, 9, 5});
    expect_matmul(k, Shape{70, 3, 2}, Shape{70, 2, 3});  // many small products
    // rhs [7, 4] expanded to [2, 3, 7, 4]: batch strides 0 without size-1 dims.
    expect_matmul(
        k, matmul_operand(Shape{2, 3, 5, 7}, DType::F32, 5), matmul_operand(Shape{7, 4}, DType::F32, 6), same,
        [](Backend& b, Prim p) {
          return b.expand(std::move(p), Shape{2, 3, 7, 4});
        },
        "expanded rhs");
  }
}

TEST(VulkanMatmul, TransposedAndStridedViewsAreReadInPlace) {
  REQUIRE_DEVICE_AND_CPU();
  (void)vk, (void)cpu;
  for (GemmKernel k : kBoth) {
    const TensorData at = matmul_operand(Shape{33, 17}, DType::F32, 7);  // A^T, stored [K, M]
    const TensorData bt = matmul_operand(Shape{9, 33}, DType::F32, 8);   // B^T, stored [N, K]
    const TensorData a = matmul_operand(Shape{17, 33}, DType::F32, 9);
    const TensorData b = matmul_operand(Shape{33, 9}, DType::F32, 10);
    expect_matmul(k, at, b, transposed(2), same, "lhs transposed");
    expect_matmul(k, a, bt, same, transposed(2), "rhs transposed");
    expect_matmul(k, at, bt, transposed(2), transposed(2), "both transposed");
    // Batched and transposed: [B, K, M] viewed as [B, M, K].
    expect_matmul(k, matmul_operand(Shape{3, 6, 5}, DType::F32, 11), matmul_operand(Shape{3, 6, 4}, DType::F32, 12),
                  transposed(3), same, "batched lhs transposed");
    // Every other row and column, and flipped (negative strides).
    const View stepped = [](Backend& bk, Prim p) {
      return bk.slice(std::move(p), {SliceRange{1, 35, 2}, SliceRange{0, 40, 3}});
    };
    expect_matmul(k, matmul_operand(Shape{35, 40}, DType::F32, 13), matmul_operand(Shape{14, 6}, DType::F32, 14),
                  stepped, same, "stepped lhs");
    const View flipped = [](Backend& bk, Prim p) { return bk.flip(std::move(p), {0, 1}); };
    expect_matmul(k, a, b, flipped, flipped, "both flipped");
    // The batch dims permuted too: [K, B, M] viewed as [B, M, K].
    expect_matmul(
        k, matmul_operand(Shape{6, 3, 5}, DType::F32, 15), matmul_operand(Shape{3, 6, 4}, DType::F32, 16),
        [](Backend& bk, Prim p) {
          return bk.permute(std::move(p), {1, 2, 0});
        },
        same, "batch permuted");
  }
}

TEST(VulkanMatmul, EveryDtypeTheDeviceHas) {
  REQUIRE_DEVICE_AND_CPU();
  (void)vk, (void)cpu;
  for (GemmKernel k : kBoth) {
    for (DType d : {DType::F32, DType::F64, DType::F16, DType::I64, DType::I32}) {
      if (!device_has(d)) continue;
      expect_matmul(k, Shape{17, 33}, Shape{33, 9}, d, 20);
      expect_matmul(k, Shape{2, 1, 5, 7}, Shape{1, 3, 7, 4}, d, 21);
      expect_matmul(k, matmul_operand(Shape{33, 17}, d, 22), matmul_operand(Shape{9, 33}, d, 23), transposed(2),
                    transposed(2), "both transposed");
    }
  }
}

TEST(VulkanMatmul, IntegerSumsWrapAsTheCpuBackend) {
  REQUIRE_DEVICE_AND_CPU();
  (void)vk, (void)cpu;
  for (GemmKernel k : kBoth) {
    // Products of 2^21-sized i32 and 2^40-sized i64 values overflow; both backends wrap (two's complement).
    expect_matmul(k, matmul_operand(Shape{9, 33}, DType::I32, 30, 1 << 21),
                  matmul_operand(Shape{33, 5}, DType::I32, 31, 1 << 21));
    expect_matmul(k, matmul_operand(Shape{9, 33}, DType::I64, 32, int64_t{1} << 40),
                  matmul_operand(Shape{33, 5}, DType::I64, 33, int64_t{1} << 40));
  }
}

TEST(VulkanMatmul, NaNAndInfinityPropagate) {
  REQUIRE_DEVICE_AND_CPU();
  (void)cpu;
  const float inf = INFINITY;
  for (GemmKernel k : kBoth) {
    Prim a = vk.from_data(TensorData::from_vector<float>({1, 1, NAN, 0, inf, 1}, Shape{3, 2}));
    Prim b = vk.from_data(TensorData::from_vector<float>({1, 0, 1, 1}, Shape{2, 2}));
    const std::vector<float> r = vk.into_data(matmul_with(vk, a, b, k)).to_vec<float>();
    EXPECT_EQ(r[0], 2.0f);
    EXPECT_EQ(r[1], 1.0f);
    EXPECT_TRUE(std::isnan(r[2]) && std::isnan(r[3]));  // NaN * 0 is NaN, as in IEEE sums
    EXPECT_TRUE(r[4] == inf && std::isnan(r[5]));       // inf * 0 + 1 * 1 is NaN
  }
}

TEST(VulkanMatmul, TheProfilesChoiceRunsThroughTheBackend) {
  REQUIRE_DEVICE_AND_CPU();
  const DeviceProfile& p = bk->ctx->profile();
  EXPECT_EQ(gemm_kernel(p, DType::F32),
            p.features.shared_memory_gemm ? GemmKernel::shared_tiled : GemmKernel::register_blocked);
  const TensorData a = matmul_operand(Shape{2, 9, 13}, DType::F32, 40),
                   b = matmul_operand(Shape{2, 13, 6}, DType::F32, 41);
  const TensorData got = vk.into_data(vk.matmul(vk.from_data(a), vk.from_data(b)));
  const TensorData want = cpu.into_data(cpu.matmul(cpu.from_data(a), cpu.from_data(b)));
  EXPECT_TRUE(got.compare_approx(want).ok);
}

TEST(VulkanMatmul, BadOperandsAreErrorsLikeTheCpuBackend) {
  REQUIRE_DEVICE_AND_CPU();
  (void)cpu;
  auto f32 = [&](Shape s) { return vk.from_data(matmul_operand(s, DType::F32, 50)); };
  EXPECT_THROW(vk.matmul(f32(Shape{2, 3}), vk.from_data(matmul_operand(Shape{3, 2}, DType::I64, 51))), DTypeError);
  EXPECT_THROW(vk.matmul(vk.from_data(TensorData::from_vector<bool>({true, false, true, false}, Shape{2, 2})),
                         vk.from_data(TensorData::from_vector<bool>({true, false, true, false}, Shape{2, 2}))),
               DTypeError);
  EXPECT_THROW(vk.matmul(f32(Shape{2, 3}), f32(Shape{4, 2})), ShapeError);        // inner dims
  EXPECT_THROW(vk.matmul(f32(Shape{3}), f32(Shape{3})), ShapeError);              // rank 1
  EXPECT_THROW(vk.matmul(f32(Shape{2, 2, 3}), f32(Shape{3, 2})), ShapeError);     // ranks differ
  EXPECT_THROW(vk.matmul(f32(Shape{2, 2, 3}), f32(Shape{3, 3, 2})), ShapeError);  // batch 2 vs 3
  try {
    vk.matmul(f32(Shape{2, 2, 3}), f32(Shape{3, 3, 2}));
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("[2, 2, 3]"), std::string::npos) << e.what();
  }
  if (!device_has(DType::F64)) {
    Prim x = vk.from_data(matmul_operand(Shape{2, 2}, DType::F32, 52));
    EXPECT_THROW(vk.matmul(vk.cast(x, DType::F64), vk.cast(x, DType::F64)), Unsupported);
  }
  // bf16 is a matmul dtype on the cpu plugin, storage only here: a missing feature, not a wrong dtype.
  Prim b = vk.cast(f32(Shape{2, 2}), DType::BF16);
  try {
    vk.matmul(b, b);
    ADD_FAILURE() << "bf16 matmul ran";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("bf16 is storage only"), std::string::npos) << e.what();
  }
}

TEST(VulkanMatmul, TheEpilogueHookRewritesEachResult) {
  REQUIRE_DEVICE_AND_CPU();
  const TensorData a = matmul_operand(Shape{2, 9, 13}, DType::F32, 60),
                   b = matmul_operand(Shape{2, 13, 6}, DType::F32, 61);
  const std::vector<float> mm = cpu.into_data(cpu.matmul(cpu.from_data(a), cpu.from_data(b))).to_vec<float>();
  GemmOptions relu_plus_position;
  // relu(acc) + 1000 z + 100 row + col: the result, the batch, row and column reach the expression.
  relu_plus_position.epilogue = "max(acc, 0.0) + float(z * 1000 + row * 100 + col)";
  for (GemmKernel k : kBoth) {
    const std::vector<float> got =
        vk.into_data(matmul_with(vk, vk.from_data(a), vk.from_data(b), k, relu_plus_position)).to_vec<float>();
    ASSERT_EQ(got.size(), mm.size());
    for (size_t i = 0; i < got.size(); ++i) {
      const int z = static_cast<int>(i / 54), row = static_cast<int>(i / 6 % 9), col = static_cast<int>(i % 6);
      EXPECT_NEAR(got[i], std::max(mm[i], 0.0f) + static_cast<float>(z * 1000 + row * 100 + col), 1e-3) << i;
    }
  }
}

TEST(VulkanMatmul, TilesFitTheDevicesLimits) {
  DeviceProfile p;
  p.limits.max_workgroup_invocations = 64;
  p.limits.max_workgroup_size = {64, 64, 64};
  p.limits.max_shared_memory = 4096;
  for (GemmKernel k : kBoth) {
    for (uint32_t bytes : {4u, 8u}) {
      const GemmTiles t = gemm_tiles(p, k, bytes);
      EXPECT_LE(t.wg_x * t.wg_y, 64u);
      EXPECT_GE(t.tm * t.tn, 1u);
      if (k == GemmKernel::shared_tiled) {
        EXPECT_GE(t.bk, 1u);
        EXPECT_LE(uint64_t{t.bk} * (t.wg_y * t.tm + 1 + t.wg_x * t.tn + 1) * bytes, 4096u);
      }
    }
  }
  // BURN_VULKAN_DISABLE=shared_memory_gemm (and the lavapipe quirk) select the register-blocked kernel.
  p.features.shared_memory_gemm = true;
  EXPECT_EQ(gemm_kernel(p, DType::F32), GemmKernel::shared_tiled);
  EXPECT_EQ(apply_disable_list(p, "shared_memory_gemm", "test"), "");
  EXPECT_EQ(gemm_kernel(p, DType::F32), GemmKernel::register_blocked);
}

// The cooperative-matrix kernel is chosen for f16 only, on a profile with an f16 shape whose tiles fit the
// device's limits; the shape comes from the properties the device lists (no device needed).
TEST(VulkanMatmul, CooperativeMatrixIsChosenForF16WithAShapeThatFits) {
  auto prop = [](VkComponentTypeNV ab, VkComponentTypeNV cd, uint32_t m, uint32_t n, uint32_t k) {
    VkCooperativeMatrixPropertiesNV c{VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV};
    c.MSize = m, c.NSize = n, c.KSize = k, c.AType = c.BType = ab, c.CType = c.DType = cd;
    c.scope = VK_SCOPE_SUBGROUP_NV;
    return c;
  };
  constexpr auto f16 = VK_COMPONENT_TYPE_FLOAT16_NV, f32 = VK_COMPONENT_TYPE_FLOAT32_NV;
  EXPECT_EQ(choose_coopmat_f16({prop(f16, f16, 16, 16, 16)}), (std::array<uint32_t, 3>{}));  // f16 sums: no
  EXPECT_EQ(choose_coopmat_f16({prop(f16, f32, 16, 8, 16), prop(f16, f32, 16, 16, 16)}),
            (std::array<uint32_t, 3>{16, 16, 16}));
  EXPECT_EQ(choose_coopmat_f16({prop(f16, f32, 16, 8, 8), prop(f16, f32, 16, 8, 16)}),
            (std::array<uint32_t, 3>{16, 8, 8}));

  DeviceProfile p;
  p.type = VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
  p.limits.max_workgroup_invocations = 1024;
  p.limits.max_workgroup_size = {1024, 1024, 64};
  p.limits.max_shared_memory = 49152;
  p.limits.subgroup_size = 32;
  p.features.float16 = true;
  EXPECT_EQ(gemm_kernel(p, DType::F16), GemmKernel::shared_tiled);  // no cooperative matrices
  p.features.cooperative_matrix = true;
  p.limits.coopmat_f16 = {16, 8, 16};
  EXPECT_EQ(gemm_kernel(p, DType::F16), GemmKernel::cooperative_matrix);
  EXPECT_EQ(gemm_kernel(p, DType::F32), GemmKernel::shared_tiled);
  const GemmTiles t = gemm_tiles(p, GemmKernel::cooperative_matrix, 4);
  EXPECT_EQ(t.wg_x, 4u * 32u);
  EXPECT_EQ(t.block_rows() % 16, 0u);
  EXPECT_EQ(t.block_cols() % 8, 0u);
  EXPECT_EQ(t.bk % 16, 0u);
  EXPECT_LE(t.shared_bytes(4), 49152u);
  // Less shared memory: smaller tiles, then none (the tiled kernel runs).
  EXPECT_EQ(t.block_rows(), 128u);
  p.limits.max_shared_memory = 32768;
  EXPECT_EQ(gemm_tiles(p, GemmKernel::cooperative_matrix, 4).block_rows(), 64u);
  EXPECT_LE(gemm_tiles(p, GemmKernel::cooperative_matrix, 4).shared_bytes(4), 32768u);
  EXPECT_EQ(gemm_kernel(p, DType::F16), GemmKernel::cooperative_matrix);
  p.limits.max_shared_memory = 16384;
  EXPECT_EQ(gemm_tiles(p, GemmKernel::cooperative_matrix, 4).wg_x, 0u);
  EXPECT_EQ(gemm_kernel(p, DType::F16), GemmKernel::shared_tiled);
  // BURN_VULKAN_DISABLE=cooperative_matrix switches it off.
  p.limits.max_shared_memory = 49152;
  EXPECT_EQ(apply_disable_list(p, "cooperative_matrix", "test"), "");
  EXPECT_EQ(gemm_kernel(p, DType::F16), GemmKernel::shared_tiled);
}

// The f16 GEMM on cooperative matrices against the cpu, where the device has them (a GPU with
// VK_NV_cooperative_matrix); elsewhere skipped with the reason. Sizes cross the tile edges on every side.
TEST(VulkanMatmul, CooperativeMatrixF16MatchesTheCpu) {
  REQUIRE_DEVICE_AND_CPU();
  (void)vk, (void)cpu;
  const DeviceProfile& p = bk->ctx->profile();
  if (gemm_kernel(p, DType::F16) != GemmKernel::cooperative_matrix) {
    std::string why = p.name + " has ";
    if (!p.features.float16)
      why += "no f16";
    else if (!p.features.cooperative_matrix)
      why += "no VK_NV_cooperative_matrix with an f16 x f16 + f32 subgroup shape";
    else
      why += "no cooperative-matrix tiles within its limits";
    for (const auto& d : p.disabled) why += "; " + d;
    GTEST_SKIP() << "the cooperative-matrix GEMM cannot run: " << why;
  }
  constexpr GemmKernel k = GemmKernel::cooperative_matrix;
  const GemmTiles t = gemm_tiles(p, k, 4);
  const int64_t bm = t.block_rows(), bn = t.block_cols();
  expect_matmul(k, Shape{1, 1}, Shape{1, 1}, DType::F16);
  expect_matmul(k, Shape{bm, 2 * t.bk}, Shape{2 * t.bk, bn}, DType::F16);                      // whole tiles
  expect_matmul(k, Shape{2 * bm + 5, 3 * t.bk + 7}, Shape{3 * t.bk + 7, bn + 3}, DType::F16);  // edges
  expect_matmul(k, Shape{3, 2, 37, 41}, Shape{1, 2, 41, 29}, DType::F16);                      // broadcast batches
  expect_matmul(k, matmul_operand(Shape{41, 37}, DType::F16, 3), matmul_operand(Shape{41, 29}, DType::F16, 4),
                transposed(2), same, "lhs transposed");
  GemmOptions capped;
  capped.max_groups = {2, 2, 2};
  expect_matmul(k, matmul_operand(Shape{3, 3 * bm + 1, 20}, DType::F16, 5),
                matmul_operand(Shape{3, 20, 3 * bn + 1}, DType::F16, 6), same, same, "grid capped", capped);
  GemmOptions relu;
  relu.epilogue = "max(acc, 0.0)";
  const TensorData a = matmul_operand(Shape{bm + 1, 40}, DType::F16, 7),
                   b = matmul_operand(Shape{40, 9}, DType::F16, 8);
  const TensorData got = vk.into_data(matmul_with(vk, vk.from_data(a), vk.from_data(b), k, relu));
  const TensorData want =
      cpu.into_data(cpu.relu(cpu.matmul(cpu.from_data(a.convert(DType::F32)), cpu.from_data(b.convert(DType::F32)))));
  const ApproxReport r = got.convert(DType::F64).compare_approx(want.convert(DType::F64), 2e-3, 2e-3);
  EXPECT_TRUE(r.ok) << "epilogue: " << r.message;
}

// More tiles or batches than a dispatch may have: the kernel walks the rest (the grid capped at 2 x 2 x 2
// here, as maxComputeWorkGroupCount caps it for sizes too slow to test on lavapipe).
TEST(VulkanMatmul, GridsBeyondTheDeviceLimitWalkTheRest) {
  REQUIRE_DEVICE_AND_CPU();
  (void)vk, (void)cpu;
  GemmOptions capped;
  capped.max_groups = {2, 2, 2};
  for (GemmKernel k : kBoth) {
    const GemmTiles t = gemm_tiles(bk->ctx->profile(), k, 4);
    const int64_t m = 5 * t.wg_y * t.tm + 3, n = 3 * t.wg_x * t.tn + 1;
    expect_matmul(k, matmul_operand(Shape{7, m, 9}, DType::I32, 80), matmul_operand(Shape{7, 9, n}, DType::I32, 81),
                  same, same, "grid capped", capped);
  }
}

// Not a test: GFLOP/s of both kernels on this device at 256^3 and 512^3 f32 (the README's table).
// build/release/bin/burn_vulkan_test --gtest_also_run_disabled_tests --gtest_filter='*Gflops*'
TEST(VulkanMatmul, DISABLED_GflopsOfBothKernels) {
  REQUIRE_DEVICE_AND_CPU();
  (void)cpu;
  for (int64_t n : {256, 512}) {
    Prim a = vk.from_data(matmul_operand(Shape{n, n}, DType::F32, 70));
    Prim b = vk.from_data(matmul_operand(Shape{n, n}, DType::F32, 71));
    for (GemmKernel k : kBoth) {
      (void)vk.into_data(matmul_with(vk, a, b, k));  // compile the pipeline
      double best = 1e30;
      for (int rep = 0; rep < 5; ++rep) {
        const auto t0 = std::chrono::steady_clock::now();
        Prim c = matmul_with(vk, a, b, k);
        vk.sync();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
      std::printf("%s %s %lld^3: %.2f GFLOP/s (best of 5: %.2f ms)\n", bk->ctx->profile().name.c_str(),
                  gemm_kernel_name(k), static_cast<long long>(n), 2.0 * n * n * n / best * 1e-9, best * 1e3);
    }
  }
}

}  // namespace
}  // namespace burn::vulkan
