// The reduce family on the device (reductions, scans, sort) against the cpu plugin on the same data:
// every dtype, every dim, strided, permuted, flipped and broadcast views, empty tensors, rows of one,
// lines long enough for several passes (2^20 + 3 elements), ties, NaN, and sort stability.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <random>

#include "burn/tensor/error.hpp"
#include "burn/tensor/plugin.hpp"
#include "runtime/instance.hpp"
#include "vulkan_backend.hpp"

namespace burn::vulkan {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

using DimOp = std::function<Prim(Backend&, Prim, size_t)>;
using View = std::function<Prim(Backend&, Prim)>;

// Run in both kernel modes (BURN_VULKAN_REDUCE): workgroups with shared memory, the GPU path, and an
// invocation per chunk, the CPU-type device path.
class VulkanReduce : public ::testing::TestWithParam<const char*> {
 protected:
  static void SetUpTestSuite() {
    try {
      auto inst = Instance::get();
      if (inst->best_score() == 0) return;
      vk_ = std::make_shared<VulkanBackend>(context_for(inst->choose("")), "vulkan");
      cpu_ = plugins::create_backend("cpu");
    } catch (const std::exception&) {
      vk_.reset();
    }
  }
  static void TearDownTestSuite() {
    vk_.reset();
    cpu_.reset();
  }
  void SetUp() override {
    if (!vk_) GTEST_SKIP() << "no usable Vulkan device (install mesa-vulkan-drivers for lavapipe)";
    setenv("BURN_VULKAN_REDUCE", GetParam(), 1);
  }
  void TearDown() override { unsetenv("BURN_VULKAN_REDUCE"); }
  static bool trees() { return std::string(GetParam()) == "tree"; }

  static VulkanBackend& vk() { return *vk_; }
  static Backend& cpu() { return *cpu_; }
  static bool has(DType d) { return vk_->supports(OpId::sum_dim, d); }

  // Seeded data: ints in [lo, hi], floats uniform in [lo, hi) (f16 rounded from f32).
  static TensorData random(DType d, const Shape& s, uint32_t seed, double lo = -4, double hi = 4) {
    std::mt19937 gen(seed);
    const auto n = static_cast<size_t>(s.num_elements());
    if (d == DType::I64 || d == DType::I32 || d == DType::Bool) {
      std::uniform_int_distribution<int64_t> u(static_cast<int64_t>(lo), static_cast<int64_t>(hi));
      std::vector<int64_t> v(n);
      for (auto& x : v) x = u(gen);
      return TensorData::from_vector(v, s).convert(d);
    }
    std::uniform_real_distribution<double> u(lo, hi);
    std::vector<double> v(n);
    for (auto& x : v) x = u(gen);
    return TensorData::from_vector(v, s).convert(d);
  }

  // Runs op on both backends (the view applied on each) and compares; f16 inputs run on the cpu as f32.
  static void expect_same(const TensorData& data, const View& view, const std::function<Prim(Backend&, Prim)>& op,
                          double rtol, double atol, const std::string& what) {
    SCOPED_TRACE(what);
    const TensorData host = data.dtype() == DType::F16 ? data.convert(DType::F32) : data;
    const TensorData got = vk().into_data(op(vk(), view(vk(), vk().from_data(data))));
    const TensorData want = cpu().into_data(op(cpu(), view(cpu(), cpu().from_data(host))));
    if (data.dtype() != DType::F16) EXPECT_EQ(got.dtype(), want.dtype());
    const ApproxReport r = got.compare_approx(want, rtol, atol);
    EXPECT_TRUE(r.ok) << r.message;
  }

  static double tol(DType d) { return d == DType::F16 ? 4e-3 : d == DType::F32 ? 2e-5 : d == DType::F64 ? 1e-12 : 0; }

  static uint64_t dispatches() {
    return static_cast<VulkanStatsSource*>(vk().query_interface("vulkan-stats"))->stats().dispatches;
  }

  static std::vector<std::pair<std::string, View>> views() {
    return {
        {"contiguous", [](Backend&, Prim x) { return x; }},
        {"permuted",
         [](Backend& b, Prim x) {
           return b.permute(x, {2, 0, 1});
         }},
        {"sliced+flipped",
         [](Backend& b, Prim x) {
           return b.flip(b.slice(x, {{0, 3, 1}, {1, 5, 2}, {0, 7, 1}}), {2});
         }},
        {"broadcast",
         [](Backend& b, Prim x) {
           return b.expand(b.slice(x, {{0, 1, 1}}), Shape{4, 5, 7});
         }},
    };
  }

  static std::shared_ptr<VulkanBackend> vk_;
  static BackendPtr cpu_;
};
std::shared_ptr<VulkanBackend> VulkanReduce::vk_;
BackendPtr VulkanReduce::cpu_;

const std::vector<DType> kNumeric = {DType::F32, DType::F64, DType::I64, DType::I32, DType::F16};

TEST_P(VulkanReduce, DimReductionsMatchTheCpuOnEveryDtypeDimAndView) {
  const std::vector<std::pair<std::string, DimOp>> ops = {
      {"sum_dim", [](Backend& b, Prim x, size_t d) { return b.sum_dim(x, d); }},
      {"mean_dim", [](Backend& b, Prim x, size_t d) { return b.mean_dim(x, d); }},
      {"prod_dim", [](Backend& b, Prim x, size_t d) { return b.prod_dim(x, d); }},
      {"max_dim", [](Backend& b, Prim x, size_t d) { return b.max_dim(x, d); }},
      {"min_dim", [](Backend& b, Prim x, size_t d) { return b.min_dim(x, d); }},
      {"argmax", [](Backend& b, Prim x, size_t d) { return b.argmax(x, d); }},
      {"argmin", [](Backend& b, Prim x, size_t d) { return b.argmin(x, d); }},
      {"max_dim_with_indices.values", [](Backend& b, Prim x, size_t d) { return b.max_dim_with_indices(x, d).first; }},
      {"min_dim_with_indices.indices",
       [](Backend& b, Prim x, size_t d) { return b.min_dim_with_indices(x, d).second; }},
      {"any_dim", [](Backend& b, Prim x, size_t d) { return b.any_dim(x, d); }},
      {"all_dim", [](Backend& b, Prim x, size_t d) { return b.all_dim(x, d); }},
  };
  for (DType dt : kNumeric) {
    if (!has(dt)) continue;
    // Small ints: ties for argmax/argmin, zeros for any/all; prod stays in range.
    const TensorData data = random(dt, Shape{4, 5, 7}, 7, -3, 3);
    for (const auto& [vname, view] : views()) {
      for (const auto& [oname, op] : ops) {
        for (size_t dim = 0; dim < 3; ++dim) {
          const double t = tol(dt) * (oname == "prod_dim" ? 4 : 1);
          expect_same(
              data, view, [&, dim](Backend& b, Prim x) { return op(b, x, dim); }, t, t,
              oname + " " + std::string(dtype_name(dt)) + " " + vname + " dim " + std::to_string(dim));
        }
      }
    }
  }
}

TEST_P(VulkanReduce, FullReductionsMatchTheCpuOnViewsAndDtypes) {
  const std::vector<std::pair<std::string, std::function<Prim(Backend&, Prim)>>> ops = {
      {"sum", [](Backend& b, Prim x) { return b.sum(x); }},   {"mean", [](Backend& b, Prim x) { return b.mean(x); }},
      {"prod", [](Backend& b, Prim x) { return b.prod(x); }}, {"max", [](Backend& b, Prim x) { return b.max(x); }},
      {"min", [](Backend& b, Prim x) { return b.min(x); }},   {"any", [](Backend& b, Prim x) { return b.any(x); }},
      {"all", [](Backend& b, Prim x) { return b.all(x); }},
  };
  for (DType dt : kNumeric) {
    if (!has(dt)) continue;
    const TensorData data = random(dt, Shape{4, 5, 7}, 11, -2, 2);
    for (const auto& [vname, view] : views()) {
      for (const auto& [oname, op] : ops) {
        // 140 factors of up to 2 overflow f16: prod over a line of them.
        const View v = oname != "prod" ? view : [view](Backend& b, Prim x) {
          return b.slice(view(b, x), {{0, 1, 1}, {0, 1, 1}});
        };
        const double t = tol(dt) * (oname == "prod" ? 8 : 4);
        expect_same(data, v, op, t, t, oname + " " + std::string(dtype_name(dt)) + " " + vname);
      }
    }
  }
}

TEST_P(VulkanReduce, AnyAndAllTakeBoolAndCountNaNAsNonzero) {
  const TensorData b = TensorData::from_vector(std::vector<bool>{false, false, true, false, false, false}, Shape{2, 3});
  EXPECT_EQ(vk().into_data(vk().any(vk().from_data(b))).to_vec<bool>(), std::vector<bool>{true});
  EXPECT_EQ(vk().into_data(vk().all(vk().from_data(b))).to_vec<bool>(), std::vector<bool>{false});
  EXPECT_EQ(vk().into_data(vk().any_dim(vk().from_data(b), 1)).to_vec<bool>(), (std::vector<bool>{true, false}));
  EXPECT_EQ(vk().into_data(vk().all_dim(vk().permute(vk().from_data(b), {1, 0}), 0)).to_vec<bool>(),
            (std::vector<bool>{false, false}));
  const TensorData f = TensorData::from_vector(std::vector<float>{0, static_cast<float>(kNaN), 0, 0}, Shape{2, 2});
  EXPECT_EQ(vk().into_data(vk().any_dim(vk().from_data(f), 1)).to_vec<bool>(), (std::vector<bool>{true, false}));
  const TensorData empty = TensorData::from_vector(std::vector<bool>{}, Shape{0});
  EXPECT_EQ(vk().into_data(vk().any(vk().from_data(empty))).to_vec<bool>(), std::vector<bool>{false});
  EXPECT_EQ(vk().into_data(vk().all(vk().from_data(empty))).to_vec<bool>(), std::vector<bool>{true});
}

TEST_P(VulkanReduce, EmptyTensorsAndRowsOfOne) {
  const TensorData e = TensorData::from_vector(std::vector<float>{}, Shape{0, 3});
  Prim x = vk().from_data(e);
  const TensorData s0 = vk().into_data(vk().sum_dim(x, 0));
  EXPECT_EQ(s0.shape(), (Shape{1, 3}));
  EXPECT_EQ(s0.to_vec<float>(), (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(vk().into_data(vk().prod_dim(x, 0)).to_vec<float>(), (std::vector<float>{1, 1, 1}));
  EXPECT_EQ(vk().into_data(vk().sum_dim(x, 1)).shape(), (Shape{0, 1}));
  EXPECT_EQ(vk().into_data(vk().argmax(x, 1)).shape(), (Shape{0, 1}));
  EXPECT_EQ(vk().into_data(vk().sum(x)).to_vec<float>(), std::vector<float>{0});
  EXPECT_EQ(vk().into_data(vk().cumsum(x, 0)).shape(), (Shape{0, 3}));
  EXPECT_EQ(vk().into_data(vk().sort(x, 0, false, true).second).shape(), (Shape{0, 3}));
  EXPECT_THROW(vk().max_dim(x, 0), ValueError);
  EXPECT_THROW(vk().argmin(x, 0), ValueError);
  EXPECT_THROW(vk().max(x), ValueError);
  const TensorData i = TensorData::from_vector(std::vector<int64_t>{}, Shape{0});
  EXPECT_EQ(vk().into_data(vk().prod(vk().from_data(i))).to_vec<int64_t>(), std::vector<int64_t>{1});
  // Rows of one: every reduction is the element itself (var with correction 1 divides by 0).
  const TensorData one = TensorData::from_vector(std::vector<float>{3, -1}, Shape{2, 1});
  Prim o = vk().from_data(one);
  EXPECT_EQ(vk().into_data(vk().sum_dim(o, 1)).to_vec<float>(), (std::vector<float>{3, -1}));
  EXPECT_EQ(vk().into_data(vk().argmin(o, 1)).to_vec<int64_t>(), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(vk().into_data(vk().cumprod(o, 1)).to_vec<float>(), (std::vector<float>{3, -1}));
  EXPECT_EQ(vk().into_data(vk().sort(o, 1, true, false).first).to_vec<float>(), (std::vector<float>{3, -1}));
  EXPECT_EQ(vk().into_data(vk().var(o, 1, 0)).to_vec<float>(), (std::vector<float>{0, 0}));
  const auto nan = vk().into_data(vk().var(o, 1, 1)).to_vec<float>();
  EXPECT_TRUE(std::isnan(nan[0]) && std::isnan(nan[1]));
}

TEST_P(VulkanReduce, NaNPropagatesThroughMaxMinAndWinsArgmax) {
  const float n = static_cast<float>(kNaN);
  const TensorData d = TensorData::from_vector(std::vector<float>{1, n, 5, n, 2, 0, 3, 3, -1}, Shape{3, 3});
  for (const auto& [name, op] : std::vector<std::pair<std::string, DimOp>>{
           {"max_dim", [](Backend&b, Prim x, size_t k) { return b.max_dim(x, k); }},
           {"min_dim", [](Backend&b, Prim x, size_t k) { return b.min_dim(x, k); }},
           {"argmax", [](Backend&b, Prim x, size_t k) { return b.argmax(x, k); }},
           {"argmin", [](Backend&b, Prim x, size_t k) { return b.argmin(x, k); }},
           {"sum_dim", [](Backend&b, Prim x, size_t k) { return b.sum_dim(x, k); }},
           {"cummax", [](Backend&b, Prim x, size_t k) { return b.cummax(x, k); }},
           {"cummin", [](Backend&b, Prim x, size_t k) { return b.cummin(x, k); }},
       }) {
    for (size_t dim = 0; dim < 2; ++dim)
      expect_same(
          d, [](Backend&, Prim x) { return x; }, [&, dim](Backend& b, Prim x) { return op(b, x, dim); }, 0, 0,
          name + " dim " + std::to_string(dim));
  }
  EXPECT_EQ(vk().into_data(vk().argmax(vk().from_data(d), 1)).to_vec<int64_t>(), (std::vector<int64_t>{1, 0, 0}));
  EXPECT_TRUE(std::isnan(vk().into_data(vk().max(vk().from_data(d))).to_vec<float>()[0]));
}

TEST_P(VulkanReduce, IntSumsWrapAndIntMeansTruncateAsOnTheCpu) {
  const int32_t big = 2000000000;
  const TensorData d = TensorData::from_vector(std::vector<int32_t>{big, big, big, -7, 1, -3}, Shape{2, 3});
  for (size_t dim = 0; dim < 2; ++dim) {
    expect_same(
        d, [](Backend&, Prim x) { return x; }, [dim](Backend& b, Prim x) { return b.sum_dim(x, dim); }, 0, 0,
        "sum_dim");
    expect_same(
        d, [](Backend&, Prim x) { return x; }, [dim](Backend& b, Prim x) { return b.mean_dim(x, dim); }, 0, 0,
        "mean_dim");
    expect_same(
        d, [](Backend&, Prim x) { return x; }, [dim](Backend& b, Prim x) { return b.prod_dim(x, dim); }, 0, 0,
        "prod_dim");
    expect_same(
        d, [](Backend&, Prim x) { return x; }, [dim](Backend& b, Prim x) { return b.cumsum(x, dim); }, 0, 0, "cumsum");
  }
  // 3 x 2e9 wraps in i32; its mean is taken over the i64 sum (2e9), as the cpu does.
  EXPECT_EQ(vk().into_data(vk().mean_dim(vk().from_data(d), 1)).to_vec<int32_t>(), (std::vector<int32_t>{big, -3}));
}

TEST_P(VulkanReduce, LongLinesFoldInPassesAccurately) {
  // 2^20 + 3 elements: one pass of 4096-element workgroups and a second tiny pass (or chunks of 256 per
  // invocation, three passes), summed in tree order.
  const int64_t n = (int64_t{1} << 20) + 3;
  const TensorData d = random(DType::F32, Shape{n}, 3, 0, 1);
  double exact = 0;
  for (float v : d.to_vec<float>()) exact += v;
  Prim x = vk().from_data(d);
  const uint64_t before = dispatches();
  const float s = vk().into_data(vk().sum(x)).to_vec<float>()[0];
  EXPECT_EQ(dispatches() - before, trees() ? 2u : 3u);
  EXPECT_LT(std::fabs(s - exact) / exact, 1e-6) << s << " vs " << exact;
  const View same = [](Backend&, Prim v) { return v; };
  expect_same(
      d, same, [](Backend& b, Prim v) { return b.mean(v); }, 1e-6, 0, "mean");
  expect_same(
      d, same, [](Backend& b, Prim v) { return b.max(v); }, 0, 0, "max");
  expect_same(
      d, same, [](Backend& b, Prim v) { return b.min_dim(v, 0); }, 0, 0, "min_dim");
  expect_same(
      d, same, [](Backend& b, Prim v) { return b.argmax(v, 0); }, 0, 0, "argmax");
  expect_same(
      d, same, [](Backend& b, Prim v) { return b.var(v, 0, 1); }, 1e-5, 0, "var");
  // Row passes over [3, 70001] (contiguous) and column passes over [70001, 3] (strided, across lines).
  const TensorData m = random(DType::F64, Shape{3, 70001}, 5);
  expect_same(
      m, same, [](Backend& b, Prim v) { return b.sum_dim(v, 1); }, 1e-12, 1e-9, "rows");
  expect_same(
      m,
      [](Backend& b, Prim v) {
        return b.permute(v, {1, 0});
      },
      [](Backend& b, Prim v) { return b.sum_dim(v, 0); }, 1e-12, 1e-9, "columns");
  const TensorData c = random(DType::F32, Shape{5000, 17}, 9);
  expect_same(
      c, same, [](Backend& b, Prim v) { return b.sum_dim(v, 0); }, 1e-5, 1e-4, "many columns");
  expect_same(
      c, same, [](Backend& b, Prim v) { return b.var(v, 0, 1); }, 1e-5, 1e-5, "var of columns");
  expect_same(
      c, same, [](Backend& b, Prim v) { return b.argmin(v, 0); }, 0, 0, "argmin of columns");
}

TEST_P(VulkanReduce, ArgReductionsKeepTheFirstTieAcrossChunks) {
  const int64_t n = 3 * 4096 + 5;
  std::vector<float> v(n, 0.0f);
  v[5000] = v[9000] = 7;
  v[12000] = -2;
  v[3] = v[12001] = -2;
  Prim x = vk().from_data(TensorData::from_vector(v, Shape{n}));
  EXPECT_EQ(vk().into_data(vk().argmax(x, 0)).to_vec<int64_t>(), std::vector<int64_t>{5000});
  EXPECT_EQ(vk().into_data(vk().argmin(x, 0)).to_vec<int64_t>(), std::vector<int64_t>{3});
  v[11000] = v[10000] = static_cast<float>(kNaN);
  x = vk().from_data(TensorData::from_vector(v, Shape{n}));
  EXPECT_EQ(vk().into_data(vk().argmax(x, 0)).to_vec<int64_t>(), std::vector<int64_t>{10000});
  EXPECT_EQ(vk().into_data(vk().argmin(x, 0)).to_vec<int64_t>(), std::vector<int64_t>{10000});
  // Columns: an invocation per chunk of a column, then a pass over the chunks.
  std::vector<int64_t> c(5000 * 20, 1);
  c[300 * 20 + 3] = c[4000 * 20 + 3] = 9;
  const auto idx = vk().into_data(vk().argmax(vk().from_data(TensorData::from_vector(c, Shape{5000, 20})), 0));
  EXPECT_EQ(idx.to_vec<int64_t>()[3], 300);
  EXPECT_EQ(idx.to_vec<int64_t>()[4], 0);
}

TEST_P(VulkanReduce, VarMatchesTheCpu) {
  for (DType dt : {DType::F32, DType::F64, DType::F16}) {
    if (!has(dt)) continue;
    const TensorData d = random(dt, Shape{4, 5, 7}, 13);
    for (const auto& [vname, view] : views()) {
      for (size_t dim = 0; dim < 3; ++dim)
        for (int64_t corr : {0, 1, 2})
          expect_same(
              d, view, [dim, corr](Backend& b, Prim x) { return b.var(x, dim, corr); }, tol(dt) * 4, tol(dt),
              "var " + std::string(dtype_name(dt)) + " " + vname + " dim " + std::to_string(dim));
    }
  }
}

TEST_P(VulkanReduce, ScansMatchTheCpuOnEveryDtypeDimAndView) {
  const std::vector<std::pair<std::string, DimOp>> ops = {
      {"cumsum", [](Backend& b, Prim x, size_t d) { return b.cumsum(x, d); }},
      {"cumprod", [](Backend& b, Prim x, size_t d) { return b.cumprod(x, d); }},
      {"cummax", [](Backend& b, Prim x, size_t d) { return b.cummax(x, d); }},
      {"cummin", [](Backend& b, Prim x, size_t d) { return b.cummin(x, d); }},
  };
  for (DType dt : kNumeric) {
    if (!has(dt)) continue;
    const TensorData d = random(dt, Shape{4, 5, 7}, 17, -2, 2);
    for (const auto& [vname, view] : views())
      for (const auto& [oname, op] : ops)
        for (size_t dim = 0; dim < 3; ++dim)
          expect_same(
              d, view, [&, dim](Backend& b, Prim x) { return op(b, x, dim); }, tol(dt) * 4, tol(dt) * 4,
              oname + " " + std::string(dtype_name(dt)) + " " + vname + " dim " + std::to_string(dim));
  }
}

TEST_P(VulkanReduce, LongScansRunInBlocks) {
  const View same = [](Backend&, Prim v) { return v; };
  // 2^17 + 3: 33 blocks of 4096, their totals scanned, then each block from its prefix.
  const TensorData i = random(DType::I64, Shape{2, (1 << 17) + 3}, 19, -1000, 1000);
  expect_same(
      i, same, [](Backend& b, Prim v) { return b.cumsum(v, 1); }, 0, 0, "cumsum i64 rows");
  expect_same(
      i, same, [](Backend& b, Prim v) { return b.cummax(v, 1); }, 0, 0, "cummax i64 rows");
  const TensorData f = random(DType::F32, Shape{70001, 2}, 23, 0.999, 1.001);
  expect_same(
      f, same, [](Backend& b, Prim v) { return b.cumsum(v, 0); }, 1e-5, 1e-3, "cumsum f32 columns");
  expect_same(
      f, same, [](Backend& b, Prim v) { return b.cumprod(v, 0); }, 1e-3, 1e-6, "cumprod f32 columns");
  expect_same(
      f, same, [](Backend& b, Prim v) { return b.cummin(v, 0); }, 0, 0, "cummin f32 columns");
  if (has(DType::F16)) {
    const TensorData h = random(DType::F16, Shape{9000}, 29, -1, 1);
    expect_same(
        h, same, [](Backend& b, Prim v) { return b.cumsum(v, 0); }, 2e-3, 2e-2, "cumsum f16");
  }
}

TEST_P(VulkanReduce, SortMatchesTheCpuOnEveryDtypeDimAndView) {
  for (DType dt : kNumeric) {
    if (!has(dt)) continue;
    const TensorData d = random(dt, Shape{4, 5, 7}, 31, -3, 3);
    for (const auto& [vname, view] : views())
      for (size_t dim = 0; dim < 3; ++dim)
        for (bool desc : {false, true}) {
          const std::string what = std::string(dtype_name(dt)) + " " + vname + " dim " + std::to_string(dim) +
                                   (desc ? " descending" : " ascending");
          expect_same(
              d, view, [=](Backend& b, Prim x) { return b.sort(x, dim, desc, false).first; }, 0, 0, what);
          // f16 rounding makes ties the f32 data does not have.
          if (dt != DType::F16)
            expect_same(
                d, view, [=](Backend& b, Prim x) { return b.argsort(x, dim, desc, true); }, 0, 0, what);
        }
  }
}

TEST_P(VulkanReduce, SortIsStableAndPutsNaNLargestAtEveryLength) {
  // Lengths around a run (32), a workgroup's capacity (4096 f32, 2048 f64) and beyond: merge passes.
  for (DType dt : {DType::F32, DType::F64, DType::I32}) {
    for (int64_t n : {1, 2, 3, 17, 33, 2048, 2049, 4096, 4097, 9000}) {
      TensorData d = random(dt, Shape{2, n}, static_cast<uint32_t>(n), 0, 2);  // many equal keys
      if (dt != DType::I32 && n > 3) {
        std::vector<double> v = d.to_f64_vec();
        v[1] = v[n - 1] = v[n + 2] = kNaN;
        d = TensorData::from_vector(v, Shape{2, n}).convert(dt);
      }
      for (bool desc : {false, true}) {
        SCOPED_TRACE(std::string(dtype_name(dt)) + " n " + std::to_string(n) + (desc ? " desc" : ""));
        const auto [gv, gi] = vk().sort(vk().from_data(d), 1, desc, true);
        const auto [wv, wi] = cpu().sort(cpu().from_data(d), 1, desc, true);
        EXPECT_EQ(vk().into_data(gi), cpu().into_data(wi));
        const ApproxReport r = vk().into_data(gv).compare_approx(cpu().into_data(wv), 0, 0);  // NaN equals NaN
        EXPECT_TRUE(r.ok) << r.message;
      }
    }
  }
  // Equal keys keep their order: indices ascend within each run of equal values.
  const TensorData eq = random(DType::I64, Shape{5003}, 37, 0, 2);
  const auto [vals, idx] = vk().sort(vk().from_data(eq), 0, false, true);
  const auto v = vk().into_data(vals).to_vec<int64_t>();
  const auto i = vk().into_data(idx).to_vec<int64_t>();
  for (size_t k = 1; k < v.size(); ++k) {
    ASSERT_LE(v[k - 1], v[k]);
    if (v[k - 1] == v[k]) ASSERT_LT(i[k - 1], i[k]) << "at " << k;
  }
}

TEST_P(VulkanReduce, TopkAndArgsortGoThroughTheSort) {
  const TensorData d = random(DType::F32, Shape{3, 6000}, 41, -1, 1);
  const View same = [](Backend&, Prim v) { return v; };
  for (int64_t k : {0, 1, 5, 6000}) {
    for (bool largest : {true, false}) {
      expect_same(
          d, same, [=](Backend& b, Prim x) { return b.topk(x, k, 1, largest).first; }, 0, 0, "topk values");
      expect_same(
          d, same, [=](Backend& b, Prim x) { return b.topk(x, k, 1, largest).second; }, 0, 0, "topk indices");
    }
  }
  expect_same(
      d,
      [](Backend& b, Prim v) {
        return b.permute(v, {1, 0});
      },
      [](Backend& b, Prim x) { return b.argsort(x, 0, true, false); }, 0, 0, "argsort");
  EXPECT_THROW(vk().topk(vk().from_data(d), 6001, 1, true), IndexError);
}

TEST_P(VulkanReduce, BadInputIsAClearError) {
  Prim f = vk().from_data(random(DType::F32, Shape{2, 3}, 1));
  Prim i = vk().from_data(random(DType::I32, Shape{2, 3}, 1));
  Prim b = vk().from_data(random(DType::Bool, Shape{2, 3}, 1, 0, 1));
  EXPECT_THROW(vk().sum_dim(f, 2), IndexError);
  EXPECT_THROW(vk().cumsum(f, 5), IndexError);
  EXPECT_THROW(vk().sort(f, 2, false, false), IndexError);
  EXPECT_THROW(vk().sum_dim(b, 0), DTypeError);
  EXPECT_THROW(vk().sort(b, 0, false, false), DTypeError);
  EXPECT_THROW(vk().var(i, 0, 1), DTypeError);
  try {
    vk().prod(b);
    FAIL() << "prod of bool ran";
  } catch (const DTypeError& e) {
    EXPECT_NE(std::string(e.what()).find("prod"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, VulkanReduce, ::testing::Values("tree", "lines"),
                         [](const ::testing::TestParamInfo<const char*>& i) { return std::string(i.param); });

}  // namespace
}  // namespace burn::vulkan
