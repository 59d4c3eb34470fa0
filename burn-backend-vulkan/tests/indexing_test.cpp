// The Vulkan indexing and data-movement ops against the cpu plugin (same inputs, equal outputs, bit for
// bit: the scatters sum in the cpu's order) or hand values: gather, scatter_add, select, select_add,
// argwhere, embedding and its backward, repeat_dim, arange, the bitwise ops and random (statistics and
// the Philox known answers), over every dtype the device has, views, every dim, empty tensors and faults.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>

#include "burn/tensor/error.hpp"
#include "burn/tensor/plugin.hpp"
#include "gpu_test_support.hpp"
#include "runtime/instance.hpp"
#include "vulkan_backend.hpp"

namespace burn::vulkan {
namespace {

using test::philox;

class VulkanIndexing : public testing::Test {
 protected:
  void SetUp() override {
    try {
      auto inst = Instance::get();
      if (inst->best_score() == 0) GTEST_SKIP() << "no usable Vulkan device";
      be_ = std::make_unique<VulkanBackend>(context_for(inst->choose("")), "vulkan");
    } catch (const std::exception& e) {
      GTEST_SKIP() << "no usable Vulkan device: " << e.what();
    }
    cpu_ = plugins::create_backend("cpu");
  }

  VulkanBackend& be() { return *be_; }
  Backend& cpu() { return *cpu_; }
  const DeviceFeatures& features() { return be_->context().profile().features; }

  // The dtypes the device stores, for ops that take every dtype.
  std::vector<DType> all_dtypes() {
    std::vector<DType> d{DType::F32, DType::I64, DType::I32, DType::I8, DType::U8, DType::Bool};
    if (features().float64) d.push_back(DType::F64);
    if (features().float16) d.push_back(DType::F16);
    return d;
  }
  // The dtypes the scatters accumulate on the cpu backend too.
  std::vector<DType> addable_dtypes() {
    std::vector<DType> d{DType::F32, DType::I64, DType::I32, DType::I8, DType::U8};
    if (features().float64) d.push_back(DType::F64);
    return d;
  }

  // The same values (from doubles) on both backends.
  std::pair<Prim, Prim> both(const std::vector<double>& v, const Shape& s, DType d) {
    return test::on_both(be(), cpu(), v, s, d);
  }
  // Pseudo-random values of dtype d: small integers (exact in every dtype), some negative.
  std::vector<double> values(int64_t n, uint32_t seed) {
    std::vector<double> v(static_cast<size_t>(n));
    std::mt19937 g(seed);
    for (double& x : v) x = static_cast<double>(static_cast<int>(g() % 200) - 100) / 4;
    return v;
  }
  std::vector<double> index_values(int64_t n, int64_t limit, uint32_t seed) {
    std::vector<double> v(static_cast<size_t>(n));
    std::mt19937 g(seed);
    for (double& x : v) x = static_cast<double>(g() % static_cast<uint32_t>(limit));
    return v;
  }

  void expect_same(const Prim& vk, const Prim& ref, const std::string& what) {
    test::expect_same(be(), vk, cpu(), ref, what);
  }

  // The IndexError a fault raised at the next read; the message is returned for checks.
  std::string read_fault(const Prim& p) {
    try {
      be().into_data(p);
    } catch (const IndexError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no IndexError raised at the read";
    return "";
  }

  std::unique_ptr<VulkanBackend> be_;
  BackendPtr cpu_;
};

TEST_F(VulkanIndexing, GatherMatchesTheCpuForEveryDtypeDimAndIndexType) {
  const Shape xs{3, 4, 5};
  for (DType d : all_dtypes()) {
    auto [x, xc] = both(values(60, 1), xs, d);
    for (size_t dim = 0; dim < 3; ++dim) {
      for (DType it : {DType::I64, DType::I32}) {
        Shape is{2, 3, 4};
        is[dim] = 6;
        auto [i, ic] = both(index_values(is.num_elements(), xs[dim], 7 + static_cast<uint32_t>(dim)), is, it);
        expect_same(be().gather(x, dim, i), cpu().gather(xc, dim, ic),
                    std::string("gather ") + std::string(dtype_name(d)) + " dim " + std::to_string(dim));
      }
    }
  }
}

TEST_F(VulkanIndexing, GatherReadsPermutedAndFlippedViews) {
  auto [x, xc] = both(values(24, 2), Shape{4, 6}, DType::F32);
  auto [i, ic] = both(index_values(18, 4, 3), Shape{3, 6}, DType::I64);
  // x^T is [6, 4]; the indices, permuted to [6, 3], pick along dim 1 (size 4).
  const Prim xt = be().permute(x, {1, 0}), xct = cpu().permute(xc, {1, 0});
  const Prim it = be().permute(i, {1, 0}), ict = cpu().permute(ic, {1, 0});
  expect_same(be().gather(xt, 1, it), cpu().gather(xct, 1, ict), "gather of transposed views");
  expect_same(be().gather(be().flip(xt, {0}), 1, it), cpu().gather(cpu().flip(xct, {0}), 1, ict), "flipped");
  // A broadcast (expanded) x.
  auto [r, rc] = both(values(4, 4), Shape{1, 4}, DType::F32);
  expect_same(be().gather(be().expand(r, Shape{6, 4}), 1, it), cpu().gather(cpu().expand(rc, Shape{6, 4}), 1, ict),
              "expanded");
}

TEST_F(VulkanIndexing, GatherOfManyElementsTakesSeveralWorkgroups) {
  const int64_t rows = 700, cols = 500;
  auto [x, xc] = both(values(rows * cols, 5), Shape{rows, cols}, DType::F32);
  auto [i, ic] = both(index_values(rows * 300, cols, 6), Shape{rows, 300}, DType::I32);
  expect_same(be().gather(x, 1, i), cpu().gather(xc, 1, ic), "large gather");
}

TEST_F(VulkanIndexing, ScatterAddSumsDuplicatesInTheCpusOrder) {
  // Sums whose value depends on the order: 1e8 + 1 - 1e8 is 0 or 1 in f32 by order.
  const std::vector<double> big = {1e8, 1, -1e8, 3, 1e8, -1e8, 0.5, 0.25, 7, -7, 1e-3, 1e8};
  auto [x, xc] = both(std::vector<double>(6, 0.0), Shape{2, 3}, DType::F32);
  auto [v, vc] = both(big, Shape{2, 6}, DType::F32);
  auto [i, ic] = both({0, 0, 0, 1, 2, 2, 1, 1, 1, 1, 0, 2}, Shape{2, 6}, DType::I64);
  expect_same(be().scatter_add(x, 1, i, v), cpu().scatter_add(xc, 1, ic, vc), "order-sensitive scatter_add");
  for (DType d : addable_dtypes()) {
    const Shape xs{4, 3, 5};
    auto [y, yc] = both(values(60, 11), xs, d);
    for (size_t dim = 0; dim < 3; ++dim) {
      Shape is{4, 3, 5};
      is[dim] = 7;  // more entries than the dim: duplicates
      Shape vs = is;
      vs[dim] += 2;  // values larger than the indices: only their leading part scatters
      auto [iv, ivc] = both(index_values(is.num_elements(), xs[dim], 12), is, DType::I32);
      auto [vv, vvc] = both(values(vs.num_elements(), 13), vs, d);
      expect_same(be().scatter_add(y, dim, iv, vv), cpu().scatter_add(yc, dim, ivc, vvc),
                  std::string("scatter_add ") + std::string(dtype_name(d)) + " dim " + std::to_string(dim));
    }
  }
}

TEST_F(VulkanIndexing, ScatterAddTakesViewsAndLeavesItsInputAlone) {
  auto [x, xc] = both(values(12, 20), Shape{3, 4}, DType::F32);
  auto [v, vc] = both(values(12, 21), Shape{4, 3}, DType::F32);
  auto [i, ic] = both(index_values(12, 3, 22), Shape{4, 3}, DType::I64);
  const TensorData before = be().into_data(x);
  const Prim vt = be().permute(v, {1, 0}), vct = cpu().permute(vc, {1, 0});
  const Prim itv = be().permute(i, {1, 0}), ict = cpu().permute(ic, {1, 0});
  expect_same(be().scatter_add(x, 0, itv, vt), cpu().scatter_add(xc, 0, ict, vct), "scatter_add of views");
  EXPECT_TRUE(be().into_data(x) == before) << "the input was written";
  // The only handle moved in: the result may reuse x's buffer, and is still right.
  Prim own = be().from_data(cpu().into_data(xc));
  expect_same(be().scatter_add(std::move(own), 0, itv, vt), cpu().scatter_add(xc, 0, ict, vct),
              "scatter_add into a moved-in tensor");
}

TEST_F(VulkanIndexing, SelectAndSelectAddOnEveryDim) {
  const Shape xs{3, 4, 5};
  for (DType d : all_dtypes()) {
    auto [x, xc] = both(values(60, 30), xs, d);
    for (size_t dim = 0; dim < 3; ++dim) {
      auto [i, ic] = both(index_values(6, xs[dim], 31), Shape{6}, DType::I64);
      expect_same(be().select(x, dim, i), cpu().select(xc, dim, ic),
                  std::string("select ") + std::string(dtype_name(d)) + " dim " + std::to_string(dim));
    }
  }
  for (DType d : addable_dtypes()) {
    auto [x, xc] = both(values(60, 32), xs, d);
    for (size_t dim = 0; dim < 3; ++dim) {
      auto [i, ic] = both(index_values(7, xs[dim], 33), Shape{7}, DType::I32);
      Shape vs = xs;
      vs[dim] = 7;
      auto [v, vc] = both(values(vs.num_elements(), 34), vs, d);
      expect_same(be().select_add(x, dim, i, v), cpu().select_add(xc, dim, ic, vc),
                  std::string("select_add ") + std::string(dtype_name(d)) + " dim " + std::to_string(dim));
    }
  }
  // A permuted tensor and strided indices (every other entry of a longer vector).
  auto [x, xc] = both(values(20, 35), Shape{4, 5}, DType::F32);
  auto [i, ic] = both({3, 9, 0, 9, 3, 9, 1}, Shape{7}, DType::I64);
  const Prim is = be().slice(i, {SliceRange{0, 7, 2}}), ics = cpu().slice(ic, {SliceRange{0, 7, 2}});
  expect_same(be().select(be().permute(x, {1, 0}), 1, is), cpu().select(cpu().permute(xc, {1, 0}), 1, ics),
              "select of views");
}

TEST_F(VulkanIndexing, EmptyIndicesAndEmptyTensors) {
  auto [x, xc] = both(values(12, 40), Shape{3, 4}, DType::F32);
  auto [i, ic] = both({}, Shape{0, 4}, DType::I64);
  auto [v, vc] = both({}, Shape{0, 4}, DType::F32);
  expect_same(be().gather(x, 0, i), cpu().gather(xc, 0, ic), "empty gather");
  expect_same(be().scatter_add(x, 0, i, v), cpu().scatter_add(xc, 0, ic, vc), "empty scatter_add");
  auto [s, sc] = both({}, Shape{0}, DType::I64);
  expect_same(be().select(x, 1, s), cpu().select(xc, 1, sc), "empty select");
  auto [e, ec] = both({}, Shape{0, 4}, DType::F32);
  expect_same(be().argwhere(e), cpu().argwhere(ec), "argwhere of an empty tensor");
  expect_same(be().repeat_dim(x, 0, 0), cpu().repeat_dim(xc, 0, 0), "repeat_dim 0 times");
}

TEST_F(VulkanIndexing, OutOfRangeIndicesAreFaultsNamingTheOpTheIndexAndTheSize) {
  auto [x, xc] = both(values(12, 50), Shape{3, 4}, DType::F32);
  const Prim bad = be().from_data(TensorData::from_vector<int64_t>({0, 4, 1}, Shape{1, 3}));
  std::string m = read_fault(be().gather(x, 1, bad));
  EXPECT_NE(m.find("gather"), std::string::npos) << m;
  EXPECT_NE(m.find("index 4"), std::string::npos) << m;
  EXPECT_NE(m.find("size 4"), std::string::npos) << m;
  // Negative indices are out of range too, as on the cpu backend.
  const Prim neg = be().from_data(TensorData::from_vector<int32_t>({-1}, Shape{1}));
  m = read_fault(be().select(x, 0, neg));
  EXPECT_NE(m.find("select"), std::string::npos) << m;
  EXPECT_NE(m.find("index -1"), std::string::npos) << m;
  EXPECT_THROW(cpu().select(xc, 0, cpu().from_data(TensorData::from_vector<int32_t>({-1}, Shape{1}))), IndexError);
  // i32 and i64 negative indices, through a direct (not broadcast) index operand, gathering and scattering.
  for (DType it : {DType::I32, DType::I64}) {
    const Prim ni = be().cast(be().from_data(TensorData::from_vector<int64_t>({0, -2, 1, 0}, Shape{1, 4})), it);
    m = read_fault(be().gather(x, 0, ni));
    EXPECT_NE(m.find("index -2"), std::string::npos) << m;
    m = read_fault(
        be().scatter_add(x, 0, ni, be().from_data(TensorData::from_vector<float>({1, 2, 3, 4}, Shape{1, 4}))));
    EXPECT_NE(m.find("index -2"), std::string::npos) << m;
  }
  const Prim v = be().from_data(TensorData::from_vector<float>({1, 2, 3}, Shape{1, 3}));
  m = read_fault(be().scatter_add(x, 0, be().from_data(TensorData::from_vector<int64_t>({0, 3, 1}, Shape{1, 3})), v));
  EXPECT_NE(m.find("scatter_add"), std::string::npos) << m;
  EXPECT_NE(m.find("index 3"), std::string::npos) << m;
  EXPECT_NE(m.find("size 3"), std::string::npos) << m;
  m = read_fault(be().select_add(x, 1, be().from_data(TensorData::from_vector<int64_t>({7}, Shape{1})),
                                 be().from_data(TensorData::from_vector<float>({1, 2, 3}, Shape{3, 1}))));
  EXPECT_NE(m.find("select_add"), std::string::npos) << m;
  EXPECT_NE(m.find("index 7"), std::string::npos) << m;
  m = read_fault(be().embedding(x, be().from_data(TensorData::from_vector<int64_t>({1, 3}, Shape{2}))));
  EXPECT_NE(m.find("embedding"), std::string::npos) << m;
  EXPECT_NE(m.find("index 3"), std::string::npos) << m;
  m = read_fault(be().embedding_backward(x, be().from_data(TensorData::from_vector<float>({1, 2, 3, 4}, Shape{1, 4})),
                                         be().from_data(TensorData::from_vector<int64_t>({-2}, Shape{1}))));
  EXPECT_NE(m.find("embedding_backward"), std::string::npos) << m;
  // The fault is cleared and the device keeps working.
  const Prim good = be().from_data(TensorData::from_vector<int64_t>({2, 0, 1}, Shape{1, 3}));
  expect_same(be().gather(x, 1, good),
              cpu().gather(xc, 1, cpu().from_data(TensorData::from_vector<int64_t>({2, 0, 1}, Shape{1, 3}))),
              "gather after a fault");
}

TEST_F(VulkanIndexing, BadArgumentsAreErrorsBeforeAnyLaunch) {
  auto [x, xc] = both(values(12, 60), Shape{3, 4}, DType::F32);
  const Prim fi = be().from_data(TensorData::from_vector<float>({0}, Shape{1, 1}));
  EXPECT_THROW(be().gather(x, 0, fi), DTypeError);
  const Prim wide = be().from_data(TensorData::from_vector<int64_t>({0, 0, 0, 0, 0}, Shape{1, 5}));
  EXPECT_THROW(be().gather(x, 0, wide), ShapeError);
  EXPECT_THROW(be().gather(x, 2, wide), IndexError);
  const Prim b = be().from_data(TensorData::from_vector<bool>({true}, Shape{1, 1}));
  const Prim i = be().from_data(TensorData::from_vector<int64_t>({0}, Shape{1, 1}));
  EXPECT_THROW(be().scatter_add(be().cast(x, DType::Bool), 0, i, b), DTypeError);
  EXPECT_THROW(be().scatter_add(x, 0, i, be().cast(i, DType::I32)), DTypeError);
  EXPECT_THROW(be().select(x, 0, i), ShapeError);  // 2-D indices
  EXPECT_THROW(be().repeat_dim(x, 0, -1), ValueError);
  EXPECT_THROW(be().bitwise_and(x, x), DTypeError);
  EXPECT_THROW(be().bitwise_not(be().cast(x, DType::Bool)), DTypeError);
}

TEST_F(VulkanIndexing, ArgwhereMatchesTheCpu) {
  // NaN is nonzero, -0 is zero.
  auto [f, fc] = both({0.0, -0.0, NAN, 1.5, 0.0, -2.0}, Shape{2, 3}, DType::F32);
  expect_same(be().argwhere(f), cpu().argwhere(fc), "argwhere f32");
  for (DType d : all_dtypes()) {
    std::vector<double> v = values(2 * 3 * 4 * 5, 70);
    for (size_t k = 0; k < v.size(); k += 3) v[k] = 0;
    auto [x, xc] = both(v, Shape{2, 3, 4, 5}, d);
    expect_same(be().argwhere(x), cpu().argwhere(xc), std::string("argwhere ") + std::string(dtype_name(d)));
    expect_same(be().argwhere(be().permute(x, {3, 1, 0, 2})), cpu().argwhere(cpu().permute(xc, {3, 1, 0, 2})),
                std::string("argwhere of a permuted ") + std::string(dtype_name(d)));
  }
  auto [z, zc] = both(std::vector<double>(10, 0.0), Shape{10}, DType::I32);
  expect_same(be().argwhere(z), cpu().argwhere(zc), "argwhere with no nonzero");
  auto [s, sc] = both({3.0}, Shape{}, DType::F32);
  expect_same(be().argwhere(s), cpu().argwhere(sc), "argwhere of a scalar");
}

TEST_F(VulkanIndexing, ArgwhereOverManyTilesKeepsRowMajorOrder) {
  // 300 * 1100 elements: 323 tiles of 1024, more than one per scan invocation; sparse and dense parts.
  const int64_t rows = 300, cols = 1100;
  std::vector<double> v(static_cast<size_t>(rows * cols), 0.0);
  std::mt19937 g(80);
  for (size_t k = 0; k < v.size(); ++k) v[k] = (k < v.size() / 2 ? g() % 17 == 0 : g() % 3 != 0) ? 1.0 : 0.0;
  auto [x, xc] = both(v, Shape{rows, cols}, DType::Bool);
  expect_same(be().argwhere(x), cpu().argwhere(xc), "large argwhere");
  expect_same(be().argwhere(be().permute(x, {1, 0})), cpu().argwhere(cpu().permute(xc, {1, 0})),
              "large argwhere of a transposed view");
}

TEST_F(VulkanIndexing, EmbeddingAndItsBackwardMatchTheCpu) {
  std::vector<DType> fl{DType::F32};
  if (features().float64) fl.push_back(DType::F64);
  for (DType d : fl) {
    auto [w, wc] = both(values(40, 90), Shape{10, 4}, d);
    for (DType it : {DType::I64, DType::I32}) {
      // Repeated indices: the backward sums their rows.
      auto [i, ic] = both({3, 1, 3, 9, 0, 3}, Shape{2, 3}, it);
      expect_same(be().embedding(w, i), cpu().embedding(wc, ic), "embedding");
      auto [g, gc] = both(values(24, 91), Shape{2, 3, 4}, d);
      expect_same(be().embedding_backward(w, g, i), cpu().embedding_backward(wc, gc, ic), "embedding_backward");
      // A transposed weight and permuted indices.
      auto [wt, wtc] = both(values(40, 93), Shape{4, 10}, d);
      expect_same(be().embedding(be().permute(wt, {1, 0}), be().permute(i, {1, 0})),
                  cpu().embedding(cpu().permute(wtc, {1, 0}), cpu().permute(ic, {1, 0})), "embedding of views");
    }
  }
  auto [w, wc] = both(values(40, 92), Shape{10, 4}, DType::I64);
  auto [s, sc] = both({7}, Shape{}, DType::I64);
  expect_same(be().embedding(w, s), cpu().embedding(wc, sc), "embedding of a scalar index, i64 weight");
}

TEST_F(VulkanIndexing, RepeatDimMatchesTheCpu) {
  for (DType d : all_dtypes()) {
    auto [x, xc] = both(values(24, 100), Shape{2, 3, 4}, d);
    for (size_t dim = 0; dim < 3; ++dim)
      expect_same(be().repeat_dim(x, dim, 3), cpu().repeat_dim(xc, dim, 3),
                  std::string("repeat_dim ") + std::string(dtype_name(d)) + " dim " + std::to_string(dim));
    expect_same(be().repeat_dim(be().permute(x, {2, 0, 1}), 1, 2), cpu().repeat_dim(cpu().permute(xc, {2, 0, 1}), 1, 2),
                "repeat_dim of a permuted view");
  }
}

TEST_F(VulkanIndexing, ArangeMatchesTheCpu) {
  for (DType d : all_dtypes()) {
    if (d == DType::Bool) continue;
    const int64_t lo = d == DType::U8 ? 0 : -50;
    expect_same(be().arange(lo, 120, 3, d), cpu().arange(lo, 120, 3, d), "arange " + std::string(dtype_name(d)));
    expect_same(be().arange(100, lo, -7, d), cpu().arange(100, lo, -7, d), "descending arange");
  }
  // Several workgroups, and values past 2^31 in i64.
  expect_same(be().arange(0, 300000, 1, DType::I32), cpu().arange(0, 300000, 1, DType::I32), "long arange");
  const int64_t big = int64_t{1} << 40;
  expect_same(be().arange(big, big + int64_t{5000} * 1000003, 1000003, DType::I64),
              cpu().arange(big, big + int64_t{5000} * 1000003, 1000003, DType::I64), "arange beyond 2^31");
  EXPECT_THROW(be().arange(0, 5, 0, DType::I64), ValueError);
}

TEST_F(VulkanIndexing, BitwiseOpsMatchTheCpuIncludingShiftCountsOutOfRange) {
  for (DType d : {DType::I64, DType::I32, DType::I8, DType::U8}) {
    std::vector<double> a, b;
    std::mt19937 g(110);
    for (int k = 0; k < 96; ++k) {
      a.push_back(static_cast<double>(static_cast<int>(g() % 255) - (d == DType::U8 ? 0 : 127)));
      // Counts from -70 to 70: negative and past the width wrap modulo the promoted width.
      b.push_back(d == DType::U8 ? static_cast<double>(g() % 80)
                                 : static_cast<double>(static_cast<int>(g() % 141) - 70));
    }
    auto [x, xc] = both(a, Shape{8, 12}, d);
    auto [y, yc] = both(b, Shape{8, 12}, d);
    const std::string n(dtype_name(d));
    expect_same(be().bitwise_and(x, y), cpu().bitwise_and(xc, yc), "and " + n);
    expect_same(be().bitwise_or(x, y), cpu().bitwise_or(xc, yc), "or " + n);
    expect_same(be().bitwise_xor(x, y), cpu().bitwise_xor(xc, yc), "xor " + n);
    expect_same(be().bitwise_not(x), cpu().bitwise_not(xc), "not " + n);
    expect_same(be().bitwise_left_shift(x, y), cpu().bitwise_left_shift(xc, yc), "shl " + n);
    expect_same(be().bitwise_right_shift(x, y), cpu().bitwise_right_shift(xc, yc), "shr " + n);
    // Broadcast rows against a transposed column.
    auto [r, rc] = both(std::vector<double>(a.begin(), a.begin() + 12), Shape{12}, d);
    expect_same(be().bitwise_xor(be().permute(y, {1, 0}), be().reshape(r, Shape{12, 1})),
                cpu().bitwise_xor(cpu().permute(yc, {1, 0}), cpu().reshape(rc, Shape{12, 1})), "broadcast xor " + n);
  }
}

// The reference the kernel's integer draws must reproduce (gpu_test_support), against the published known answers.
TEST(Philox, KnownAnswers) {
  EXPECT_EQ(philox({0, 0, 0, 0}, 0, 0), (std::array<uint32_t, 4>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(philox({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, 0xffffffff, 0xffffffff),
            (std::array<uint32_t, 4>{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(philox({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, 0xa4093822, 0x299f31d0),
            (std::array<uint32_t, 4>{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST_F(VulkanIndexing, RandomIntegersAreThePhiloxStreamKeyedByTheSeed) {
  // Uniform [0, 2^32) in i64 keeps each element's first 64-bit draw modulo 2^32: the block's word 1.
  be().seed(42);
  const Prim r = be().random(Shape{1000}, Distribution::uniform(0, 4294967296.0), DType::I64);
  const uint64_t key = std::mt19937_64(42)();
  const std::vector<int64_t> got = be().into_data(r).to_vec<int64_t>();
  for (uint32_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], philox({i, 0, 0, 0}, static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32))[1]) << i;
  // The same seed gives the same tensor; the next call another.
  be().seed(42);
  const Prim again = be().random(Shape{1000}, Distribution::uniform(0, 4294967296.0), DType::I64);
  const Prim next = be().random(Shape{1000}, Distribution::uniform(0, 4294967296.0), DType::I64);
  EXPECT_TRUE(be().into_data(again) == be().into_data(r));
  EXPECT_FALSE(be().into_data(next) == be().into_data(r));
}

struct Moments {
  double mean = 0, std = 0, lo = INFINITY, hi = -INFINITY;
};
Moments moments(const TensorData& d) {
  const std::vector<double> v = d.to_f64_vec();
  Moments m;
  for (double x : v) {
    m.mean += x;
    m.lo = std::min(m.lo, x);
    m.hi = std::max(m.hi, x);
  }
  m.mean /= static_cast<double>(v.size());
  for (double x : v) m.std += (x - m.mean) * (x - m.mean);
  m.std = std::sqrt(m.std / static_cast<double>(v.size()));
  return m;
}

TEST_F(VulkanIndexing, RandomDistributionsHaveTheirStatistics) {
  be().seed(7);
  const int64_t n = 200000;
  std::vector<DType> fl{DType::F32};
  if (features().float64) fl.push_back(DType::F64);
  if (features().float16) fl.push_back(DType::F16);
  for (DType d : fl) {
    const std::string name(dtype_name(d));
    Moments u = moments(be().into_data(be().random(Shape{n}, Distribution::uniform(2, 3), d)));
    EXPECT_GE(u.lo, 2.0) << name;
    EXPECT_LT(u.hi, 3.0) << name;
    EXPECT_NEAR(u.mean, 2.5, 0.005) << name;
    EXPECT_NEAR(u.std, std::sqrt(1.0 / 12), 0.005) << name;
    Moments g = moments(be().into_data(be().random(Shape{n}, Distribution::normal(1, 2), d)));
    EXPECT_NEAR(g.mean, 1.0, 0.03) << name;
    EXPECT_NEAR(g.std, 2.0, 0.03) << name;
    const TensorData bd = be().into_data(be().random(Shape{n}, Distribution::bernoulli(0.3), d));
    for (double x : bd.to_f64_vec()) ASSERT_TRUE(x == 0.0 || x == 1.0) << name;
    EXPECT_NEAR(moments(bd).mean, 0.3, 0.005) << name;
  }
  // Integers: every value of [-3, 4) drawn, each about equally often.
  const std::vector<double> iv =
      be().into_data(be().random(Shape{n}, Distribution::uniform(-3, 4), DType::I32)).to_f64_vec();
  std::vector<int64_t> hist(7, 0);
  for (double x : iv) {
    ASSERT_TRUE(x >= -3 && x < 4) << x;
    ++hist[static_cast<size_t>(x + 3)];
  }
  for (int64_t h : hist) EXPECT_NEAR(static_cast<double>(h) / n, 1.0 / 7, 0.005);
  // Normal on an integer dtype truncates toward zero; bool Default is a fair coin.
  Moments gi = moments(be().into_data(be().random(Shape{n}, Distribution::normal(100, 10), DType::I64)));
  EXPECT_NEAR(gi.mean, 99.5, 0.1);  // E[trunc(X)] = E[floor(X)] = 100 - 0.5 for X ~ N(100, 10)
  Moments coin = moments(be().into_data(be().random(Shape{n}, Distribution{}, DType::Bool)));
  EXPECT_NEAR(coin.mean, 0.5, 0.005);
  EXPECT_THROW(be().random(Shape{4}, Distribution{}, DType::I64), ValueError);
  EXPECT_THROW(be().random(Shape{4}, Distribution::uniform(3, 2), DType::F32), ValueError);
  EXPECT_THROW(be().random(Shape{4}, Distribution::uniform(0, 300), DType::U8), ValueError);
}

}  // namespace
}  // namespace burn::vulkan
