// Unit tests of the cpu backend's infrastructure (views, thread pool, buffer reuse) and of its
// creation, layout, indexing, compare and boolean kernels, driven through CpuBackend directly.
#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "convert.hpp"
#include "cpu_backend.hpp"
#include "cpu_tensor.hpp"
#include "cpu_test_fixture.hpp"
#include "elementwise.hpp"

namespace burn::cpu {
namespace {

class CpuKernels : public CpuBackendTest {
 protected:
  static const void* storage_of(const Prim& p) { return as_cpu(p, "test")->storage()->data; }
  static const std::vector<int64_t>& strides_of(const Prim& p) { return as_cpu(p, "test")->strides(); }
};

// ---- infrastructure -----------------------------------------------------------------------------

TEST(CpuInfra, StorageIsAlignedAndRoundsUp) {
  Storage s(3);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(s.data) % 64, 0u);
  EXPECT_EQ(s.bytes, 3u);
  Storage z(0);
  EXPECT_NE(z.data, nullptr);
  // Small buffers are rounded up by hand from malloc: many live ones of odd sizes, every one aligned
  // and writable to its last byte (ASan checks the bounds), up to the pool's sizes.
  std::vector<std::unique_ptr<Storage>> live;
  for (size_t n : {1, 7, 32, 63, 64, 65, 100, 1000, 4095, 65537, 1 << 20})
    for (int k = 0; k < 8; ++k) {
      live.push_back(std::make_unique<Storage>(n));
      EXPECT_EQ(reinterpret_cast<uintptr_t>(live.back()->data) % 64, 0u) << n;
      std::memset(live.back()->data, 0xab, n);
    }
}

TEST(CpuInfra, ContiguityIgnoresSizeOneDims) {
  auto st = std::make_shared<Storage>(64);
  EXPECT_TRUE(CpuTensor(Shape{2, 3}, DType::F32, st, {3, 1}, 0).is_contiguous());
  EXPECT_TRUE(CpuTensor(Shape{2, 1, 3}, DType::F32, st, {3, 99, 1}, 2).is_contiguous());
  EXPECT_FALSE(CpuTensor(Shape{2, 3}, DType::F32, st, {1, 2}, 0).is_contiguous());
  EXPECT_FALSE(CpuTensor(Shape{2, 3}, DType::F32, st, {0, 1}, 0).is_contiguous());
  EXPECT_FALSE(CpuTensor(Shape{3}, DType::F32, st, {-1}, 2).is_contiguous());
}

TEST(CpuInfra, ParallelForCoversRangeExactlyOnce) {
  const int64_t n = 1'000'003;
  std::vector<int> hits(static_cast<size_t>(n), 0);
  parallel_for(n, 1000, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) ++hits[static_cast<size_t>(i)];
  });
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[static_cast<size_t>(i)], 1) << i;
  EXPECT_GE(num_threads(), 1u);
}

TEST(CpuInfra, ParallelForNestsInlineAndPropagatesExceptions) {
  std::atomic<int64_t> total{0};
  parallel_for(64, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) parallel_for(100, 1, [&](int64_t b2, int64_t e2) { total += e2 - b2; });
  });
  EXPECT_EQ(total.load(), 6400);
  // Only the last chunk throws, wherever it runs (a worker, or inline on one thread).
  EXPECT_THROW(parallel_for(1 << 20, 1,
                            [](int64_t, int64_t e) {
                              if (e == (1 << 20)) throw std::runtime_error("worker failure");
                            }),
               std::runtime_error);
  // The pool still works after a failed job.
  std::atomic<int64_t> count{0};
  parallel_for(1 << 16, 16, [&](int64_t b, int64_t e) { count += e - b; });
  EXPECT_EQ(count.load(), 1 << 16);
}

TEST(CpuInfra, StridedIndexerWalksViews) {
  StridedIndexer ix(Shape{2, 3}, {1, 2});  // a transposed [3, 2]
  std::vector<int64_t> got;
  for (int64_t i = 0; i < 6; ++i) got.push_back(ix.offset_of(i));
  EXPECT_EQ(got, (std::vector<int64_t>{0, 2, 4, 1, 3, 5}));
}

class ForeignPrim : public Primitive {
 public:
  ForeignPrim() : Primitive(Shape{1}, DType::F32) {}
};

TEST_F(CpuKernels, ForeignTensorIsADeviceError) {
  Prim p = std::make_shared<ForeignPrim>();
  try {
    b.reshape(p, Shape{1});
    FAIL() << "expected DeviceError";
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("reshape"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("another backend"), std::string::npos) << e.what();
  }
}

// ---- creation -----------------------------------------------------------------------------------

TEST_F(CpuKernels, FullEmptyArange) {
  EXPECT_EQ(vals<float>(b.full(Shape{2, 2}, Scalar(1.5), DType::F32)), (std::vector<float>{1.5f, 1.5f, 1.5f, 1.5f}));
  EXPECT_EQ(vals<int64_t>(b.full(Shape{3}, Scalar(int64_t{1} << 40), DType::I64)),
            (std::vector<int64_t>(3, int64_t{1} << 40)));
  EXPECT_EQ(vals<bool>(b.full(Shape{2}, Scalar(true), DType::Bool)), (std::vector<bool>{true, true}));
  EXPECT_EQ(b.empty(Shape{0, 4}, DType::F32)->shape(), (Shape{0, 4}));
  EXPECT_EQ(vals<int64_t>(b.arange(0, 10, 3, DType::I64)), (std::vector<int64_t>{0, 3, 6, 9}));
  EXPECT_EQ(vals<float>(b.arange(5, 0, -2, DType::F32)), (std::vector<float>{5, 3, 1}));
  EXPECT_EQ(b.arange(3, 3, 1, DType::I64)->shape(), (Shape{0}));
  EXPECT_THROW(b.arange(0, 3, 0, DType::I64), ValueError);
}

TEST_F(CpuKernels, IntoDataRoundTripsEveryDtype) {
  TensorData h = TensorData::from_vector(std::vector<int32_t>{1, -2, 3, 4, 5, 6}, Shape{2, 3});
  EXPECT_EQ(b.into_data(b.from_data(h)), h);
  TensorData raw(Shape{2}, DType::F16, {0x00, 0x3c, 0x00, 0xc0});  // 1.0, -2.0
  EXPECT_EQ(b.into_data(b.from_data(raw)), raw);
}

TEST_F(CpuKernels, CastF32F16F32RoundTrip) {
  const std::vector<float> v{1.5f, -2.25f, 1024.0f, 0.0f, -0.5f, 65504.0f};
  Prim x = f32(v, Shape{6});
  Prim h = b.cast(x, DType::F16);
  EXPECT_EQ(h->dtype(), DType::F16);
  EXPECT_EQ(vals<float>(b.cast(h, DType::F32)), v);
  Prim bf = b.cast(x, DType::BF16);
  EXPECT_EQ(vals<float>(b.cast(bf, DType::F32)), (std::vector<float>{1.5f, -2.25f, 1024.0f, 0.0f, -0.5f, 65536.0f}));
  // f16 -> f64 and f16 -> i64 go straight through.
  EXPECT_EQ(vals<int64_t>(b.cast(h, DType::I64)), (std::vector<int64_t>{1, -2, 1024, 0, 0, 65504}));
}

TEST(CpuConvert, InlineHalfConversionsMatchBurnTensor) {
  // Every half bit pattern decodes exactly as burn-tensor's reference (NaNs: both NaN).
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float a = half_to_float(static_cast<uint16_t>(h)), e = f16_to_f32(static_cast<uint16_t>(h));
    if (std::isnan(e))
      ASSERT_TRUE(std::isnan(a)) << h;
    else
      ASSERT_EQ(std::bit_cast<uint32_t>(a), std::bit_cast<uint32_t>(e)) << h;
    const float ba = bfloat_to_float(static_cast<uint16_t>(h)), be = bf16_to_f32(static_cast<uint16_t>(h));
    if (std::isnan(be))
      ASSERT_TRUE(std::isnan(ba)) << h;
    else
      ASSERT_EQ(std::bit_cast<uint32_t>(ba), std::bit_cast<uint32_t>(be)) << h;
  }
  // A sweep of float bit patterns (every 4099th, so all exponents and rounding cases) encodes the same.
  for (uint64_t u = 0; u <= 0xffffffffu; u += 4099) {
    const float f = std::bit_cast<float>(static_cast<uint32_t>(u));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(half_to_float(float_to_half(f))));
      EXPECT_TRUE(std::isnan(bfloat_to_float(float_to_bfloat(f))));
      continue;
    }
    ASSERT_EQ(float_to_half(f), f32_to_f16(f)) << f;
    ASSERT_EQ(float_to_bfloat(f), f32_to_bf16(f)) << f;
  }
  // Ties round to even: 2049 lies halfway between the halves 2048 and 2050.
  EXPECT_EQ(half_to_float(float_to_half(2049.0f)), 2048.0f);
  EXPECT_EQ(half_to_float(float_to_half(65520.0f)), INFINITY);
}

TEST_F(CpuKernels, CastTruncatesTowardZeroAndBoolIsNonzero) {
  Prim x = f32({-1.7f, 2.9f, -0.2f, 0.0f, std::nanf("")}, Shape{5});
  EXPECT_EQ(vals<int64_t>(b.cast(x, DType::I64)), (std::vector<int64_t>{-1, 2, 0, 0, 0}));
  EXPECT_EQ(vals<int32_t>(b.cast(x, DType::I32)), (std::vector<int32_t>{-1, 2, 0, 0, 0}));
  EXPECT_EQ(vals<bool>(b.cast(x, DType::Bool)), (std::vector<bool>{true, true, true, false, true}));
  EXPECT_EQ(vals<double>(b.cast(i64({3, -4}, Shape{2}), DType::F64)), (std::vector<double>{3.0, -4.0}));
  EXPECT_EQ(vals<float>(b.cast(boolean({true, false}, Shape{2}), DType::F32)), (std::vector<float>{1.0f, 0.0f}));
  // Same dtype: the very same primitive.
  EXPECT_EQ(b.cast(x, DType::F32), x);
  // Cast of a strided view.
  Prim t = b.permute(iota(Shape{2, 3}), {1, 0});
  EXPECT_EQ(vals<int64_t>(b.cast(t, DType::I64)), (std::vector<int64_t>{0, 3, 1, 4, 2, 5}));
}

// ---- layout -------------------------------------------------------------------------------------

TEST_F(CpuKernels, PermuteIsAViewWithTransposedValues) {
  Prim x = iota(Shape{2, 3});
  Prim t = b.permute(x, {1, 0});
  EXPECT_EQ(storage_of(t), storage_of(x));
  EXPECT_EQ(t->shape(), (Shape{3, 2}));
  EXPECT_FALSE(as_cpu(t, "test")->is_contiguous());
  EXPECT_EQ(vals<float>(t), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  EXPECT_THROW(b.permute(x, {0, 0}), IndexError);  // a repeated dim, as the tensor API says
  EXPECT_THROW(b.permute(x, {0}), ShapeError);
}

TEST_F(CpuKernels, SliceWithStepIsAView) {
  Prim x = iota(Shape{4, 6});
  Prim s = b.slice(x, {SliceRange{1, 4, 2}, SliceRange{0, 6, 3}});
  EXPECT_EQ(storage_of(s), storage_of(x));
  EXPECT_EQ(s->shape(), (Shape{2, 2}));
  EXPECT_EQ(vals<float>(s), (std::vector<float>{6, 9, 18, 21}));
  // A slice of a slice composes offsets and strides.
  Prim s2 = b.slice(s, {SliceRange{1, 2, 1}});
  EXPECT_EQ(vals<float>(s2), (std::vector<float>{18, 21}));
  EXPECT_EQ(b.slice(x, {SliceRange{2, 2, 1}})->shape(), (Shape{0, 6}));
  EXPECT_THROW(b.slice(x, {SliceRange{0, 5, 1}}), IndexError);
  EXPECT_THROW(b.slice(x, {SliceRange{0, 2, 0}}), ValueError);
}

TEST_F(CpuKernels, FlipUsesNegativeStrides) {
  Prim x = iota(Shape{2, 3});
  Prim f = b.flip(x, {1});
  EXPECT_EQ(storage_of(f), storage_of(x));
  EXPECT_LT(strides_of(f)[1], 0);
  EXPECT_EQ(vals<float>(f), (std::vector<float>{2, 1, 0, 5, 4, 3}));
  EXPECT_EQ(vals<float>(b.flip(x, {0, 1})), (std::vector<float>{5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(vals<float>(b.flip(x, {-2})), (std::vector<float>{3, 4, 5, 0, 1, 2}));
  // Flip then slice.
  EXPECT_EQ(vals<float>(b.slice(f, {SliceRange{0, 2, 1}, SliceRange{1, 3, 1}})), (std::vector<float>{1, 0, 4, 3}));
}

TEST_F(CpuKernels, ExpandUsesStrideZero) {
  Prim x = f32({1, 2, 3}, Shape{3, 1});
  Prim e = b.expand(x, Shape{2, 3, 4});
  EXPECT_EQ(storage_of(e), storage_of(x));
  EXPECT_EQ(strides_of(e)[0], 0);
  EXPECT_EQ(strides_of(e)[2], 0);
  std::vector<float> want;
  for (int r = 0; r < 2; ++r)
    for (float v : {1.f, 2.f, 3.f})
      for (int c = 0; c < 4; ++c) want.push_back(v);
  EXPECT_EQ(vals<float>(e), want);
  EXPECT_THROW(b.expand(x, Shape{2, 4}), ShapeError);
}

TEST_F(CpuKernels, TransposedCopiesMatchIndexMath) {
  // Large enough for the tiled transpose path, with sizes that are not multiples of the tile.
  const int64_t a = 3, r = 70, c = 45;
  Prim x = iota(Shape{a, r, c});
  std::vector<float> got = vals<float>(b.permute(x, {0, 2, 1}));  // [a, c, r]
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < c; ++j)
      for (int64_t k = 0; k < r; ++k)
        ASSERT_EQ(got[static_cast<size_t>((i * c + j) * r + k)], static_cast<float>((i * r + k) * c + j));
  std::vector<float> got2 = vals<float>(b.permute(x, {2, 1, 0}));  // [c, r, a]
  for (int64_t j = 0; j < c; ++j)
    for (int64_t k = 0; k < r; ++k)
      for (int64_t i = 0; i < a; ++i)
        ASSERT_EQ(got2[static_cast<size_t>((j * r + k) * a + i)], static_cast<float>((i * r + k) * c + j));
  // f16 goes through the same byte-size copy.
  Prim h = b.cast(b.permute(x, {0, 2, 1}), DType::F16);
  std::vector<float> back = vals<float>(b.cast(h, DType::F32));
  EXPECT_EQ(back.size(), got.size());
  for (size_t i = 0; i < back.size(); ++i) ASSERT_EQ(back[i], half_to_float(float_to_half(got[i])));
}

TEST_F(CpuKernels, CatOfLongRowsSplitsAcrossThreads) {
  const int64_t n = 300'000;
  Prim x = b.arange(0, n, 1, DType::I64), y = b.arange(n, 2 * n, 1, DType::I64);
  std::vector<int64_t> got = vals<int64_t>(b.cat({x, y}, 0));
  ASSERT_EQ(static_cast<int64_t>(got.size()), 2 * n);
  for (int64_t i = 0; i < 2 * n; ++i) ASSERT_EQ(got[static_cast<size_t>(i)], i);
}

TEST_F(CpuKernels, ReshapeViewsContiguousAndCopiesStrided) {
  Prim x = iota(Shape{2, 6});
  Prim r = b.reshape(x, Shape{3, 4});
  EXPECT_EQ(storage_of(r), storage_of(x));
  Prim t = b.permute(x, {1, 0});  // [6, 2]
  Prim r2 = b.reshape(t, Shape{12});
  EXPECT_NE(storage_of(r2), storage_of(x));
  EXPECT_EQ(vals<float>(r2), (std::vector<float>{0, 6, 1, 7, 2, 8, 3, 9, 4, 10, 5, 11}));
  EXPECT_EQ(b.reshape(x, Shape{-1, 3})->shape(), (Shape{4, 3}));
  EXPECT_THROW(b.reshape(x, Shape{5}), ShapeError);
}

TEST_F(CpuKernels, SliceAssignCopiesUnlessUnique) {
  Prim x = iota(Shape{3, 3});
  Prim v = f32({-1, -2}, Shape{1, 2});
  Prim out = b.slice_assign(x, {SliceRange{0, 3, 2}, SliceRange{1, 3, 1}}, v);  // x still held: copy
  EXPECT_NE(storage_of(out), storage_of(x));
  EXPECT_EQ(vals<float>(x), (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(vals<float>(out), (std::vector<float>{0, -1, -2, 3, 4, 5, 6, -1, -2}));
  // The only handle moved in: written in place.
  Prim y = iota(Shape{4});
  const void* before = storage_of(y);
  Prim out2 = b.slice_assign(std::move(y), {SliceRange{1, 3, 1}}, f32({9, 8}, Shape{2}));
  EXPECT_EQ(storage_of(out2), before);
  EXPECT_EQ(vals<float>(out2), (std::vector<float>{0, 9, 8, 3}));
  EXPECT_THROW(b.slice_assign(x, {SliceRange{0, 2, 1}}, f32({1, 2}, Shape{2, 1, 1})), ShapeError);
  EXPECT_THROW(b.slice_assign(x, {SliceRange{0, 1, 1}}, i64({1, 2, 3}, Shape{1, 3})), DTypeError);
}

TEST_F(CpuKernels, CatAlongEachDim) {
  Prim a = iota(Shape{2, 2});
  Prim c = f32({10, 11, 12, 13, 14, 15}, Shape{2, 3});
  EXPECT_EQ(vals<float>(b.cat({a, c}, 1)), (std::vector<float>{0, 1, 10, 11, 12, 2, 3, 13, 14, 15}));
  Prim d = f32({7, 8}, Shape{1, 2});
  EXPECT_EQ(vals<float>(b.cat({a, d}, 0)), (std::vector<float>{0, 1, 2, 3, 7, 8}));
  // A strided input (transposed) goes through the strided copy.
  EXPECT_EQ(vals<float>(b.cat({b.permute(a, {1, 0}), d}, 0)), (std::vector<float>{0, 2, 1, 3, 7, 8}));
  EXPECT_THROW(b.cat({a, c}, 0), ShapeError);
  EXPECT_THROW(b.cat({a, i64({1, 2}, Shape{1, 2})}, 0), DTypeError);
}

TEST_F(CpuKernels, RepeatDim) {
  Prim x = iota(Shape{2, 2});
  EXPECT_EQ(vals<float>(b.repeat_dim(x, 0, 2)), (std::vector<float>{0, 1, 2, 3, 0, 1, 2, 3}));
  EXPECT_EQ(vals<float>(b.repeat_dim(x, 1, 3)), (std::vector<float>{0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3}));
  EXPECT_EQ(b.repeat_dim(x, 1, 0)->shape(), (Shape{2, 0}));
}

// ---- indexing -----------------------------------------------------------------------------------

TEST_F(CpuKernels, GatherByHand) {
  Prim x = f32({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  // dim 1: out[i][j] = x[i][idx[i][j]]
  EXPECT_EQ(vals<float>(b.gather(x, 1, i64({2, 0, 1, 1}, Shape{2, 2}))), (std::vector<float>{3, 1, 5, 5}));
  // dim 0: out[i][j] = x[idx[i][j]][j]
  EXPECT_EQ(vals<float>(b.gather(x, 0, i64({1, 0, 1}, Shape{1, 3}))), (std::vector<float>{4, 2, 6}));
  // i32 indices and a strided source.
  EXPECT_EQ(vals<float>(b.gather(b.permute(x, {1, 0}), 1, i32({1, 0, 0}, Shape{3, 1}))), (std::vector<float>{4, 2, 3}));
  try {
    b.gather(x, 1, i64({3}, Shape{1, 1}));
    FAIL() << "expected IndexError";
  } catch (const IndexError& e) {
    EXPECT_NE(std::string(e.what()).find("gather"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("3"), std::string::npos);
  }
  EXPECT_THROW(b.gather(x, 1, f32({0}, Shape{1, 1})), DTypeError);
}

TEST_F(CpuKernels, ScatterAddByHand) {
  Prim x = f32({0, 0, 0, 0, 0, 0}, Shape{2, 3});
  Prim idx = i64({0, 1, 2, 0, 0, 2}, Shape{2, 3});
  Prim v = f32({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  // dim 0: out[idx[i][j]][j] += v[i][j]
  EXPECT_EQ(vals<float>(b.scatter_add(x, 0, i64({0, 1, 1, 0, 0, 1}, Shape{2, 3}), v)),
            (std::vector<float>{5, 5, 0, 0, 2, 9}));
  // dim 1 with repeated indices in a row: out[i][idx[i][j]] += v[i][j]
  EXPECT_EQ(vals<float>(b.scatter_add(x, 1, idx, v)), (std::vector<float>{1, 2, 3, 9, 0, 6}));
  EXPECT_EQ(vals<float>(x), std::vector<float>(6, 0.0f));  // x was shared: untouched
  EXPECT_THROW(b.scatter_add(x, 0, i64({2}, Shape{1, 1}), v), IndexError);
  EXPECT_THROW(b.scatter_add(x, 0, idx, f64({1, 2, 3, 4, 5, 6}, Shape{2, 3})), DTypeError);
}

TEST_F(CpuKernels, SelectAndSelectAdd) {
  Prim x = iota(Shape{3, 2});
  EXPECT_EQ(vals<float>(b.select(x, 0, i64({2, 0, 2}, Shape{3}))), (std::vector<float>{4, 5, 0, 1, 4, 5}));
  EXPECT_EQ(vals<float>(b.select(x, 1, i32({1}, Shape{1}))), (std::vector<float>{1, 3, 5}));
  EXPECT_THROW(b.select(x, 0, i64({3}, Shape{1})), IndexError);
  Prim v = f32({1, 1, 10, 10, 100, 100}, Shape{3, 2});
  EXPECT_EQ(vals<float>(b.select_add(x, 0, i64({0, 2, 0}, Shape{3}), v)), (std::vector<float>{101, 102, 2, 3, 14, 15}));
  EXPECT_THROW(b.select_add(x, 0, i64({0}, Shape{1}), v), ShapeError);
}

TEST_F(CpuKernels, MaskWhereMaskFillArgwhere) {
  Prim x = iota(Shape{2, 3});
  Prim m = boolean({true, false, true}, Shape{3});  // broadcast over rows
  Prim v = f32({-1}, Shape{1});
  EXPECT_EQ(vals<float>(b.mask_where(x, m, v)), (std::vector<float>{-1, 1, -1, -1, 4, -1}));
  EXPECT_EQ(vals<float>(b.mask_fill(x, m, Scalar(7.0))), (std::vector<float>{7, 1, 7, 7, 4, 7}));
  EXPECT_EQ(vals<int64_t>(b.mask_fill(i64({1, 2, 3}, Shape{3}), m, Scalar(int64_t{-5}))),
            (std::vector<int64_t>{-5, 2, -5}));
  EXPECT_THROW(b.mask_fill(x, f32({1, 0, 1}, Shape{3}), Scalar(1.0)), DTypeError);
  // x one value broadcast along the rows (as a mean's gradient under relu's backward), mask varying: long rows.
  std::vector<bool> bits(2 * 70);
  std::vector<float> want(bits.size());
  for (size_t i = 0; i < bits.size(); ++i) bits[i] = (i * 7) % 3 == 0, want[i] = bits[i] ? -2.0f : 0.5f;
  Prim mask = boolean(bits, Shape{2, 70});
  EXPECT_EQ(vals<float>(b.mask_fill(b.expand(f32({0.5f}, Shape{1, 1}), Shape{2, 70}), mask, Scalar(-2.0))), want);
  Prim a = b.argwhere(f32({0, 1, 0, 2, 3, 0}, Shape{2, 3}));
  EXPECT_EQ(a->dtype(), DType::I64);
  EXPECT_EQ(a->shape(), (Shape{3, 2}));
  EXPECT_EQ(vals<int64_t>(a), (std::vector<int64_t>{0, 1, 1, 0, 1, 1}));
  EXPECT_EQ(b.argwhere(f32({0, 0}, Shape{2}))->shape(), (Shape{0, 1}));
}

TEST_F(CpuKernels, ArgwhereLargeIsOrdered) {
  const int64_t n = 200'000;
  std::vector<float> v(static_cast<size_t>(n), 0.0f);
  for (int64_t i = 0; i < n; i += 7) v[static_cast<size_t>(i)] = 1.0f;
  std::vector<int64_t> got = vals<int64_t>(b.argwhere(f32(v, Shape{n})));
  ASSERT_EQ(static_cast<int64_t>(got.size()), (n + 6) / 7);
  for (size_t k = 0; k < got.size(); ++k) ASSERT_EQ(got[k], static_cast<int64_t>(k) * 7);
}

// ---- compare and bool ---------------------------------------------------------------------------

TEST_F(CpuKernels, CompareBroadcastsAndReturnsBool) {
  Prim x = iota(Shape{2, 3});
  Prim y = f32({1, 4}, Shape{2, 1});
  Prim g = b.greater(x, y);
  EXPECT_EQ(g->dtype(), DType::Bool);
  EXPECT_EQ(vals<bool>(g), (std::vector<bool>{false, false, true, false, false, true}));
  EXPECT_EQ(vals<bool>(b.lower_equal(x, y)), (std::vector<bool>{true, true, false, true, true, false}));
  EXPECT_EQ(vals<bool>(b.equal_elem(x, Scalar(4.0))), (std::vector<bool>{false, false, false, false, true, false}));
  // An int tensor against a float scalar compares as double.
  EXPECT_EQ(vals<bool>(b.greater_elem(i64({1, 2}, Shape{2}), Scalar(1.5))), (std::vector<bool>{false, true}));
  EXPECT_EQ(vals<bool>(b.not_equal_elem(i32({1, 2}, Shape{2}), Scalar(int64_t{2}))), (std::vector<bool>{true, false}));
  try {
    b.equal(x, f64({1, 2, 3, 4, 5, 6}, Shape{2, 3}));
    FAIL() << "expected DTypeError";
  } catch (const DTypeError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("equal"), std::string::npos) << m;
    EXPECT_NE(m.find("f32"), std::string::npos) << m;
    EXPECT_NE(m.find("f64"), std::string::npos) << m;
  }
  try {
    b.lower(x, f32({1, 2}, Shape{2}));
    FAIL() << "expected ShapeError";
  } catch (const ShapeError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("lower"), std::string::npos) << m;
    EXPECT_NE(m.find("[2, 3]"), std::string::npos) << m;
    EXPECT_NE(m.find("[2]"), std::string::npos) << m;
  }
}

TEST_F(CpuKernels, CompareLargeStridedMatchesScalarLoop) {
  // Big enough to split across the pool; the permuted lhs takes the strided path.
  const int64_t r = 300, c = 257;
  Prim x = iota(Shape{r, c});
  Prim t = b.permute(x, {1, 0});  // [c, r]
  std::vector<float> cv(static_cast<size_t>(r));
  for (int64_t j = 0; j < r; ++j) cv[static_cast<size_t>(j)] = static_cast<float>(j * c + 100);
  Prim col = f32(cv, Shape{1, r});  // broadcast over rows
  std::vector<bool> got = vals<bool>(b.greater_equal(t, col));
  ASSERT_EQ(static_cast<int64_t>(got.size()), r * c);
  for (int64_t i = 0; i < c; ++i)
    for (int64_t j = 0; j < r; ++j) {
      // t[i][j] = x[j][i] = j * c + i
      ASSERT_EQ(got[static_cast<size_t>(i * r + j)], i >= 100) << i << "," << j;
    }
}

TEST_F(CpuKernels, BoolOpsAndInPlaceReuse) {
  Prim p = boolean({true, true, false, false}, Shape{4});
  Prim q = boolean({true, false, true, false}, Shape{4});
  EXPECT_EQ(vals<bool>(b.bool_and(p, q)), (std::vector<bool>{true, false, false, false}));
  EXPECT_EQ(vals<bool>(b.bool_or(p, q)), (std::vector<bool>{true, true, true, false}));
  EXPECT_EQ(vals<bool>(b.bool_xor(p, q)), (std::vector<bool>{false, true, true, false}));
  EXPECT_EQ(vals<bool>(b.bool_and(p, boolean({true}, Shape{1}))), (std::vector<bool>{true, true, false, false}));
  EXPECT_THROW(b.bool_and(p, iota(Shape{4})), DTypeError);
  // bool_not of a shared tensor allocates; of a moved-in only handle, it writes in place.
  Prim n1 = b.bool_not(p);
  EXPECT_NE(storage_of(n1), storage_of(p));
  const void* before = storage_of(n1);
  Prim n2 = b.bool_not(std::move(n1));
  EXPECT_EQ(storage_of(n2), before);
  EXPECT_EQ(vals<bool>(n2), (std::vector<bool>{true, true, false, false}));
}

TEST_F(CpuKernels, BinaryOpHelperReusesLhsAndBroadcasts) {
  // Drives the helper the math kernels use, with a lambda, to pin its reuse rule.
  Prim x = iota(Shape{2, 3});
  const void* before = storage_of(x);
  Prim y = f32({10, 20, 30}, Shape{3});
  Prim out = binary_op<float, float>(std::move(x), y, DType::F32, "test_add", [](float a, float c) { return a + c; });
  EXPECT_EQ(storage_of(out), before);
  EXPECT_EQ(vals<float>(out), (std::vector<float>{10, 21, 32, 13, 24, 35}));
  Prim z = unary_op<float, float>(b.flip(out, {1}), DType::F32, "test_neg", [](float a) { return -a; });
  EXPECT_EQ(vals<float>(z), (std::vector<float>{-32, -21, -10, -35, -24, -13}));
}

}  // namespace
}  // namespace burn::cpu

namespace burn::cpu {
namespace {

// max_pool_with_indices against a naive walk in PyTorch's order (taps row-major, the first tap starts,
// a later tap wins when greater or NaN): the fixed 2x2/s2, 3x3/s2 and 3x3/s1 windows, the same windows
// padded (row kernel inside, border ring tap by tap), and with ceil_mode the general walk; values with
// ties and NaNs, f32 and f64, plane sizes that leave columns and rows out, rows of 14 and 23 2x2 outputs (the
// AVX2 row kernel's 8-wide steps and its tail).
TEST_F(CpuKernels, MaxPoolWithIndicesMatchesANaiveWalk) {
  struct Case {
    int64_t k, s, pad;
    bool ceil;
  };
  for (const Case c : {Case{2, 2, 0, false}, Case{3, 2, 0, false}, Case{3, 1, 0, false}, Case{3, 2, 1, false},
                       Case{3, 1, 1, false}, Case{2, 2, 1, false}, Case{3, 2, 1, true}, Case{2, 2, 0, true}}) {
    for (const Shape& shape : {Shape{2, 3, 7, 9}, Shape{1, 2, 8, 8}, Shape{1, 1, 3, 3}, Shape{1, 2, 12, 33},
                               Shape{1, 2, 5, 28}, Shape{1, 1, 4, 46}}) {
      const int64_t H = shape[2], W = shape[3], planes = shape[0] * shape[1];
      std::vector<double> x(static_cast<size_t>(shape.num_elements()));
      for (size_t i = 0; i < x.size(); ++i) x[i] = (i * 7919 % 13) == 5 ? std::nan("") : double((i * 31) % 5);
      const PoolOptions o{.kernel = {c.k, c.k},
                          .stride = {c.s, c.s},
                          .padding = {c.pad, c.pad},
                          .padding_end = {c.pad, c.pad},
                          .dilation = {1, 1},
                          .ceil_mode = c.ceil};
      auto out_len = [&](int64_t in) {
        const int64_t span = in + 2 * c.pad - c.k;
        int64_t n = (c.ceil ? (span + c.s - 1) / c.s : span / c.s) + 1;
        if (c.ceil && (n - 1) * c.s >= in + c.pad) --n;  // the last window starts inside (PyTorch)
        return n;
      };
      const int64_t OH = out_len(H), OW = out_len(W);
      std::vector<double> want_v;
      std::vector<int64_t> want_i;
      for (int64_t p = 0; p < planes; ++p)
        for (int64_t oh = 0; oh < OH; ++oh)
          for (int64_t ow = 0; ow < OW; ++ow) {
            double m = 0;
            int64_t mi = -1;
            for (int64_t a = 0; a < c.k; ++a)
              for (int64_t bb = 0; bb < c.k; ++bb) {
                const int64_t h = oh * c.s - c.pad + a, w = ow * c.s - c.pad + bb;
                if (h < 0 || h >= H || w < 0 || w >= W) continue;
                const double v = x[static_cast<size_t>((p * H + h) * W + w)];
                if (mi < 0 || v > m || std::isnan(v)) m = v, mi = h * W + w;
              }
            want_v.push_back(m);
            want_i.push_back(mi);
          }
      for (bool f64_case : {false, true}) {
        SCOPED_TRACE("k " + std::to_string(c.k) + " s " + std::to_string(c.s) + " pad " + std::to_string(c.pad) +
                     (c.ceil ? " ceil " : " ") + shape.to_string() + (f64_case ? " f64" : " f32"));
        std::vector<float> xf(x.begin(), x.end());
        auto [y, idx] = b.max_pool_with_indices(f64_case ? f64(x, shape) : f32(xf, shape), o);
        ASSERT_EQ(y->shape(), (Shape{shape[0], shape[1], OH, OW}));
        EXPECT_EQ(vals<int64_t>(idx), want_i);
        const std::vector<double> got = b.into_data(y).to_f64_vec();
        ASSERT_EQ(got.size(), want_v.size());
        for (size_t i = 0; i < got.size(); ++i)
          EXPECT_TRUE(got[i] == want_v[i] || (std::isnan(got[i]) && std::isnan(want_v[i]))) << i;
      }
    }
  }
}

// max_pool (values only) against its definition, a vertical first-wins max over the window's rows and
// then a horizontal one over its columns (a later tap wins when greater or NaN), bit for bit: rows wide
// enough for the AVX2 passes (3x3 stride 2 is vectorised both ways) and their scalar tails, ties of
// +0 and -0, and a NaN in some planes only (those rows take the scalar kernel).
TEST_F(CpuKernels, MaxPoolValuesMatchTheirDefinitionBitForBit) {
  for (const int64_t W : {7, 16, 17, 35, 112, 113})
    for (const int64_t pad : {0, 1})
      for (const int64_t s : {1, 2}) {
        const int64_t k = 3, H = 9, planes = 3;
        std::vector<float> x(static_cast<size_t>(planes * H * W));
        // Values at most 0, and every third a signed zero, so that most windows end in a tie of zeros.
        for (size_t i = 0; i < x.size(); ++i) x[i] = -static_cast<float>((i * 37) % 11);
        for (size_t i = 1; i < x.size(); i += 3) x[i] = (i / 3) % 2 ? 0.0f : -0.0f;
        x[static_cast<size_t>(2 * H * W + 4 * W + W / 2)] = std::numeric_limits<float>::quiet_NaN();  // plane 2
        const int64_t OH = (H + 2 * pad - k) / s + 1, OW = (W + 2 * pad - k) / s + 1;
        auto takes = [](float v, float m) { return v > m || v != v; };
        std::vector<float> want;
        for (int64_t p = 0; p < planes; ++p)
          for (int64_t oh = 0; oh < OH; ++oh) {
            std::vector<float> col(static_cast<size_t>(W));
            for (int64_t w = 0; w < W; ++w) {
              bool first = true;
              for (int64_t a = 0; a < k; ++a) {
                const int64_t h = oh * s - pad + a;
                if (h < 0 || h >= H) continue;
                const float v = x[static_cast<size_t>((p * H + h) * W + w)];
                if (first || takes(v, col[static_cast<size_t>(w)])) col[static_cast<size_t>(w)] = v;
                first = false;
              }
            }
            for (int64_t ow = 0; ow < OW; ++ow) {
              float m = -std::numeric_limits<float>::infinity();
              bool first = true;
              for (int64_t bb = 0; bb < k; ++bb) {
                const int64_t w = ow * s - pad + bb;
                const float v = w < 0 || w >= W ? -std::numeric_limits<float>::infinity() : col[static_cast<size_t>(w)];
                if (first || takes(v, m)) m = v;
                first = false;
              }
              want.push_back(m);
            }
          }
        const PoolOptions o{
            .kernel = {k, k}, .stride = {s, s}, .padding = {pad, pad}, .padding_end = {pad, pad}, .dilation = {1, 1}};
        const auto got = vals<float>(b.max_pool(f32(x, Shape{1, planes, H, W}), o));
        ASSERT_EQ(got.size(), want.size());
        for (size_t i = 0; i < got.size(); ++i) {
          if (std::isnan(want[i])) {
            EXPECT_TRUE(std::isnan(got[i])) << "W " << W << " pad " << pad << " s " << s << " at " << i;
          } else {
            EXPECT_EQ(std::bit_cast<uint32_t>(got[i]), std::bit_cast<uint32_t>(want[i]))
                << "W " << W << " pad " << pad << " s " << s << " at " << i << ": " << got[i] << " vs " << want[i];
          }
        }
      }
}

}  // namespace
}  // namespace burn::cpu
