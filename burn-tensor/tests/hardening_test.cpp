// Absurd sizes and indices through the public api: each case crashed or gave a silently wrong result
// before sizes were overflow-checked; now each raises a burn::Error naming the op, or is right.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <utility>

#include "burn/tensor.hpp"
#include "expect_error.hpp"
#include "test_device.hpp"

using namespace burn;
using burn::testing::expect_error;

namespace {

Device dev() { return burn::testing::test_device(); }
constexpr int64_t kMax = INT64_MAX, kMin = INT64_MIN;

// Lowers the per-buffer limit for one test, so "too large for the machine" needs no huge numbers.
struct AllocLimit {
  explicit AllocLimit(size_t bytes) { set_max_alloc_bytes(bytes); }
  ~AllocLimit() { set_max_alloc_bytes(0); }
};

}  // namespace

// Was a SIGSEGV: 2^62 f32 elements are 2^64 bytes, which wrapped to a 0-byte buffer that fill overran.
TEST(Hardening, HugeCreationIsOutOfMemory) {
  expect_error<OutOfMemory>([] { Tensor<1>::zeros({1LL << 62}, dev()); }, {"[full]", "[4611686018427387904]", "bytes"});
  expect_error<OutOfMemory>([] { Tensor<1>::zeros({1LL << 61}, dev(), DType::F64); }, {"[full]"});
  expect_error<OutOfMemory>([] { Tensor<1>::empty({1LL << 62}, dev()); }, {"[empty]"});
  expect_error<OutOfMemory>([] { Tensor<1>::random({1LL << 62}, Distribution::normal(0, 1), dev()); }, {"[random]"});
}

// Were silently "created" with a 0-byte buffer: the element count wrapped to 0 or went negative.
TEST(Hardening, ElementCountsThatWrapAreShapeErrors) {
  expect_error<ShapeError>([] { Tensor<2>::zeros({1LL << 32, 1LL << 32}, dev()); }, {"[full]", "int64"});
  expect_error<ShapeError>([] { Tensor<2>::ones({3, 1LL << 62}, dev()); }, {"[full]"});
  expect_error<ShapeError>(
      [] {
        Tensor<2>::random({1LL << 32, 1LL << 32}, Distribution::normal(0, 1), dev());
      },
      {"[random]"});
  // A zero dim makes 0 elements, but the strides of the other dims would still overflow.
  expect_error<ShapeError>([] { Tensor<3>::zeros({0, 1LL << 62, 1LL << 62}, dev()); }, {"[full]"});
  expect_error<ShapeError>([] { Tensor<2>::zeros({-1, -1}, dev()); }, {"[full]", "negative"});
}

TEST(Hardening, AllocationLimitNamesOpAndBytes) {
  AllocLimit limit(1 << 20);
  expect_error<OutOfMemory>([] { Tensor<1>::zeros({1 << 20}, dev()); }, {"[full]", "4194304", "1048576"});
  // The backend's own allocation names the api op that asked for it (current_op), not the allocator.
  auto a = Tensor<2>::ones({1024, 1}, dev()), b = Tensor<2>::ones({1, 1024}, dev());
  expect_error<OutOfMemory>([&] { (void)(a + b); }, {"[add]", "[1024, 1024]"});
  EXPECT_EQ(Tensor<1>::zeros({1000}, dev()).num_elements(), 1000);
}

// Were SIGSEGVs: the inline accessors dereferenced the null primitive of an empty tensor.
TEST(Hardening, EmptyTensorAccessorsThrow) {
  Tensor<2> t;
  expect_error<ValueError>([&] { (void)t.shape(); }, {"[shape]", "empty"});
  expect_error<ValueError>([&] { (void)t.dim(0); }, {"[dim]"});
  expect_error<ValueError>([&] { (void)t.num_elements(); }, {"[num_elements]"});
  expect_error<ValueError>([&] { (void)t.dtype(); }, {"[dtype]"});
  expect_error<ValueError>([&] { (void)t.item<float>(); }, {"empty"});
  auto x = Tensor<2>::ones({2, 3}, dev());
  auto y = std::move(x);
  expect_error<ValueError>([&] { (void)x.shape(); }, {"moved-from"});  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(y.dim(1), 3);
}

// Were SIGSEGVs: these api functions read the rank or shape before checking the handle.
TEST(Hardening, EmptyTensorOpsThrow) {
  Tensor<2> t;
  expect_error<ValueError>([&] { t.transpose(); }, {"empty"});
  expect_error<ValueError>([&] { t.narrow(0, 0, 0); }, {"empty"});
  expect_error<ValueError>([&] { t.flatten<1>(0, 1); }, {"empty"});
  expect_error<ValueError>([&] { t.split(1, 0); }, {"empty"});
  expect_error<ValueError>([&] { t.tril(); }, {"empty"});
  expect_error<ValueError>([&] { t.squeeze<1>(0); }, {"empty"});
  expect_error<ValueError>([&] { t.unsqueeze<3>(); }, {"empty"});
  expect_error<ValueError>([&] { t.zeros_like(); }, {"empty"});
  expect_error<ValueError>([&] { Tensor<2>::stack<3>({Tensor<2>::ones({1, 1}, dev()), t}, 0); }, {"empty"});
  expect_error<DeviceError>([] { Tensor<1>::zeros({2}, Device()); }, {"[full]", "no device"});
}

// Were accepted with an element count that wrapped to 0 (the empty input "fit" 2^64 elements).
TEST(Hardening, ReshapeAndExpandToAbsurdShapes) {
  auto e = Tensor<1>::zeros({0}, dev());
  expect_error<ShapeError>([&] { e.reshape<2>({1LL << 62, 4}); }, {"[reshape]", "overflows"});
  expect_error<ShapeError>([&] { e.reshape<3>({2, 1LL << 62, 2}); }, {"[reshape]"});
  auto x = Tensor<2>::ones({2, 3}, dev());
  // The view's num_elements() was 0 and its sum() 0.
  expect_error<ShapeError>([&] { x.expand({1LL << 62, 2, 3}); }, {"[expand]", "int64"});
  expect_error<ShapeError>([&] { x.expand({kMax, kMax, 2, 3}); }, {"[expand]"});
  auto big = x.expand({1LL << 40, 2, 3});  // a valid view: 6.6e12 elements on 6 stored
  EXPECT_EQ(big.num_elements(), 6 * (1LL << 40));
}

// repeat({0, INT64_MAX}) gave dim 3 * INT64_MAX wrapped to 9223372036854775805; pad past int64
// and a replicate pad of 2^40 (a host index list of 2^40 entries: killed) are refused up front.
TEST(Hardening, RepeatAndPadSizes) {
  auto x = Tensor<2>::ones({2, 3}, dev());
  expect_error<ShapeError>([&] { x.repeat({0, kMax}); }, {"[repeat]", "overflows"});
  expect_error<ShapeError>([&] { x.repeat({kMax, kMax}); }, {"[repeat]"});
  expect_error<ShapeError>([&] { x.pad({kMax, kMax}); }, {"[pad]", "overflows"});
  expect_error<ShapeError>([&] { x.pad({kMin, kMin}); }, {"[pad]", "removes more than"});
  expect_error<OutOfMemory>([&] { x.pad({1LL << 40, 0}, PadMode::Replicate); }, {"[pad]"});
  expect_error<ShapeError>([&] { x.pad({kMax, 0}, PadMode::Replicate); }, {"[pad]"});
  EXPECT_EQ(x.pad({-1, 2}).shape(), Shape({2, 4}));
}

// narrow(0, 2, INT64_MAX) returned a [0, 3] tensor: start + length overflowed past the check.
TEST(Hardening, NarrowRangeCannotOverflow) {
  auto x = Tensor<2>::ones({2, 3}, dev());
  expect_error<IndexError>([&] { x.narrow(0, 2, kMax); }, {"[narrow]", "9223372036854775807"});
  expect_error<IndexError>([&] { x.narrow(0, 1, kMax); }, {"[narrow]"});
  expect_error<IndexError>([&] { x.narrow(1, -1, kMax); }, {"[narrow]"});
  expect_error<IndexError>([&] { x.narrow(0, kMin, 1); }, {"[narrow]"});
  EXPECT_EQ(x.narrow(1, -1, 1).shape(), Shape({2, 1}));
}

// A step of INT64_MAX gave the dim a size of -1; INT64_MIN was negated (undefined).
TEST(Hardening, SliceStepsAtTheLimits) {
  auto v = Tensor<1, Int>::arange(0, 5, dev());
  EXPECT_EQ(v.slice({Slice::range(0, 5, kMax)}).to_vec<int64_t>(), (std::vector<int64_t>{0}));
  EXPECT_EQ(v.slice({Slice::range(0, 5, kMin)}).to_vec<int64_t>(), (std::vector<int64_t>{4}));
  EXPECT_EQ(v.slice({Slice::range(kMin, kMax)}).to_vec<int64_t>(), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(v.slice_fill({Slice::range(0, 5, -kMax)}, 9).to_vec<int64_t>(), (std::vector<int64_t>{0, 1, 2, 3, 9}));
}

// arange(0, 10, INT64_MAX) had 0 elements instead of one; the count is now computed in 128 bits.
TEST(Hardening, ArangeCounts) {
  using IntRange = Tensor<1, Int>;
  EXPECT_EQ(IntRange::arange(0, 10, dev(), kMax).to_vec<int64_t>(), (std::vector<int64_t>{0}));
  EXPECT_EQ(IntRange::arange(10, -10, dev(), kMin).to_vec<int64_t>(), (std::vector<int64_t>{10}));
  EXPECT_EQ(IntRange::arange(kMin, kMax, dev(), 1LL << 62).to_vec<int64_t>(),
            (std::vector<int64_t>{kMin, -(1LL << 62), 0, 1LL << 62}));
  expect_error<ShapeError>([] { Tensor<1, Int>::arange(kMin, kMax, dev()); }, {"[arange]", "int64"});
  expect_error<OutOfMemory>([] { Tensor<1, Int>::arange(0, kMax, dev()); }, {"[arange]"});
  expect_error<ValueError>([] { Tensor<1, Int>::arange(0, 1LL << 40, dev(), 1LL << 39, DType::I32); },
                           {"[arange]", "do not fit i32"});
}

// one_hot(2^62) of 3 values was a SIGSEGV (bytes wrapped); -1 with a value of INT64_MAX overflowed.
TEST(Hardening, OneHotClassCounts) {
  auto i = Tensor<1, Int>::from_list<int64_t>({1, 2, 3}, dev());
  expect_error<ShapeError>([&] { i.one_hot(1LL << 62); }, {"[one_hot]"});
  expect_error<OutOfMemory>([&] { i.one_hot(1LL << 40); }, {"[one_hot]"});
  expect_error<ShapeError>([&] { Tensor<1, Int>::from_list<int64_t>({kMax}, dev()).one_hot(-1); }, {"[one_hot]"});
  expect_error<ValueError>([&] { i.one_hot(-2); }, {"[one_hot]", "-2"});
  EXPECT_EQ(i.one_hot(-1).shape(), Shape({3, 4}));
}

// split_with_sizes({INT64_MAX, INT64_MAX, 2}) summed to 0 (wrapped) and said so; chunk(INT64_MAX)
// computed n + chunks - 1.
TEST(Hardening, SplitSizesCannotOverflow) {
  auto x = Tensor<2>::ones({2, 3}, dev());
  expect_error<ShapeError>([&] { x.split_with_sizes({kMax, kMax, 2}, 0); }, {"[split_with_sizes]", "sum to more than"});
  EXPECT_EQ(x.chunk(kMax, 1).size(), 3u);
  EXPECT_EQ(x.split(kMax, 1).size(), 1u);
}

// tril_mask of {-1, -1} returned a [0, 0] mask.
TEST(Hardening, TriangularMaskShape) {
  expect_error<ShapeError>([] { Tensor<2>::tril_mask({-1, -1}, 0, dev()); }, {"[tril_mask]", "negative"});
}

// Was a SIGSEGV: [2^31, 1] + [1, 2^31] broadcasts to 2^62 f32 elements, 2^64 bytes wrapped to 0.
TEST(Hardening, BroadcastOutputTooLarge) {
  auto a = Tensor<2>::ones({1, 1}, dev()).expand({1LL << 31, 1});
  auto b = Tensor<2>::ones({1, 1}, dev()).expand({1, 1LL << 31});
  expect_error<OutOfMemory>([&] { (void)(a + b); }, {"[add]"});
}

// conv_transpose with padding INT64_MAX computed a wrapped, positive output size (SIGSEGV in
// col2im); conv with stride INT64_MAX overflowed the valid-span bound (SIGSEGV in im2col).
TEST(Hardening, ConvGeometryAtTheLimits) {
  auto x = Tensor<3>::ones({1, 4, 6}, dev());
  auto wt = Tensor<3>::ones({4, 2, 3}, dev());
  expect_error<ShapeError>(
      [&] {
        module::conv_transpose1d(x, wt, std::nullopt,
                                 {.stride = {3}, .padding = {kMax}, .padding_out = {2}, .groups = 2});
      },
      {"[conv_transpose]", "<= 0"});
  auto w = Tensor<3>::ones({2, 4, 3}, dev());
  auto y = module::conv1d(x, w, std::nullopt, {.stride = {kMax}});
  EXPECT_EQ(y.shape(), Shape({1, 2, 1}));
  EXPECT_EQ(y.to_vec<float>(), (std::vector<float>{12, 12}));
  expect_error<ShapeError>([&] { module::conv1d(x, w, std::nullopt, {.padding = {kMax}}); }, {"[conv]", "overflows"});
}

// TensorData accepted negative dims, wrapped counts and byte counts; the default one claimed one
// element with no bytes (to_string read past the buffer); value_f64 read past the end.
TEST(Hardening, TensorDataChecksItsShape) {
  expect_error<ShapeError>([] { TensorData(Shape{-1}, DType::F32); }, {"[TensorData]", "negative"});
  expect_error<ShapeError>([] { TensorData(Shape{-1, -4}, DType::F32, std::vector<uint8_t>(16)); }, {"negative"});
  expect_error<OutOfMemory>([] { TensorData(Shape{1LL << 62}, DType::F32, {}); }, {"[TensorData]"});
  expect_error<ShapeError>([] { TensorData(Shape{2, 1LL << 62}, DType::F32); }, {"[TensorData]"});
  expect_error<ShapeError>(
      [] {
        TensorData::from_vector(std::vector<float>{1, 2}, Shape{2, 1LL << 32, 1LL << 32});
      },
      {"[TensorData]"});
  expect_error<ShapeError>(
      [] {
        TensorData(Shape{0}, DType::F32).reshape(Shape{1LL << 62, 4});
      },
      {"[TensorData::reshape]"});
  expect_error<ShapeError>([] { TensorData(Shape{1}, DType::F32).reshape(Shape{-1, -1}); }, {"negative"});
  expect_error<IndexError>([] { TensorData(Shape{1}, DType::F32).value_f64(100); }, {"100"});
  TensorData empty;
  EXPECT_EQ(empty.num_elements(), 0);
  EXPECT_EQ(empty.to_string(), "[]");
  EXPECT_EQ(Tensor<1>::from_data(empty, dev()).shape(), Shape({0}));
  TensorData resized(Shape{4}, DType::F32);
  resized.bytes().resize(2);  // the buffer is writable: a wrong size must not be read past
  expect_error<ShapeError>([&] { (void)resized.to_vec<float>(); }, {"[to_vec]"});
  EXPECT_THROW(Shape({1LL << 32, 1LL << 32}).num_elements(), ShapeError);
}

// TensorData's memory: large blocks are kept after free and handed to the next block of the same
// size, so the zero-filling constructor must still zero a reused block; uninitialized() checks the
// shape like the constructors, and copies and reshapes keep the bytes.
TEST(Hardening, TensorDataMemoryIsZeroedOrWritten) {
  const Shape big{1 << 20};  // 4 MiB of f32: a mapped block, cached when freed
  for (int round = 0; round < 3; ++round) {
    {
      TensorData dirty = TensorData::uninitialized(big, DType::F32);
      ASSERT_EQ(dirty.bytes().size(), size_t{4} << 20);
      std::memset(dirty.raw(), 0xab, dirty.bytes().size());
    }
    const TensorData zeros(big, DType::F32);
    const auto& b = zeros.bytes();
    ASSERT_EQ(b.size(), size_t{4} << 20);
    EXPECT_EQ(std::count(b.begin(), b.end(), uint8_t{0}), static_cast<std::ptrdiff_t>(b.size())) << "round " << round;
  }
  TensorData t = TensorData::uninitialized(Shape{3, 700'000}, DType::F32);
  for (size_t i = 0; i < 2'100'000; ++i) static_cast<float*>(t.raw())[i] = static_cast<float>(i % 977);
  const TensorData copy = t;
  const TensorData flat = t.reshape(Shape{2'100'000});
  EXPECT_EQ(copy, t);
  EXPECT_EQ(flat.bytes(), t.bytes());
  EXPECT_EQ(flat.value_f64(1'000'000), static_cast<double>(1'000'000 % 977));
  expect_error<ShapeError>([] { TensorData::uninitialized(Shape{-3}, DType::F32); }, {"[TensorData]", "negative"});
  expect_error<OutOfMemory>([] { TensorData::uninitialized(Shape{1LL << 62}, DType::F32); }, {"[TensorData]"});
}

// A kernel far larger than the input (padding up to half of it is legal): the cpu kernels sized a
// padded scratch row and window-row list by the kernel (std::bad_alloc escaped, or minutes of loops).
// Now the taps outside the input are skipped, and a scratch row too large to have is OutOfMemory.
TEST(Hardening, PoolKernelFarLargerThanInput) {
  auto x = Tensor<3>::from_vector(std::vector<float>{1, 4, 2, 3}, {1, 1, 4}, dev());
  auto [m, i] = module::max_pool_with_indices<3>(x, {.kernel = {1LL << 40}, .padding = {1LL << 39}});
  EXPECT_EQ(m.to_vec<float>(), std::vector<float>{4});
  EXPECT_EQ(i.to_vec<int64_t>(), std::vector<int64_t>{1});
  auto a = module::avg_pool1d(x, {.kernel = {1 << 20}, .padding = {1 << 19}});
  EXPECT_FLOAT_EQ(a.to_vec<float>()[0], 10.0f / (1 << 20));  // count_include_pad: the whole window
  expect_error<OutOfMemory>([&] { module::avg_pool1d(x, {.kernel = {1LL << 60}, .padding = {1LL << 59}}); },
                            {"[avg_pool]"});
}

// Slice::at(INT64_MAX) computed INT64_MAX + 1 before the range check (undefined behaviour).
TEST(Hardening, SliceAtTheLastIndex) {
  auto x = Tensor<2>::ones({2, 3}, dev());
  expect_error<IndexError>([&] { x.slice({Slice::at(kMax)}); }, {"[slice]", "9223372036854775807"});
  expect_error<IndexError>([&] { x.slice({Slice::at(kMin)}); }, {"[slice]"});
}

// The cpu matmul kept references to the shapes of its operands while replacing a strided one by a
// contiguous copy: when the caller had moved in its only handle, the shapes were read after free.
TEST(Hardening, MatmulOfAMovedStridedView) {
  auto a = Tensor<2, Int>::from_vector(std::vector<int64_t>{1, 2, 3, 4}, {2, 2}, dev());
  auto w = Tensor<2, Int>::from_vector(std::vector<int64_t>{1, 1}, {2, 1}, dev());
  TensorHandle out = api::matmul(api::swap_dims(a.handle(), 0, 1), w.handle());
  const Tensor<2, Int> t(out);
  EXPECT_EQ(t.to_vec<int64_t>(), (std::vector<int64_t>{4, 6}));
}

// Int scatter and select_assign add as PyTorch does, wrapping on overflow (the cpu kernels added in
// signed int64: undefined behaviour, reported by UBSan).
TEST(Hardening, IntScatterAddWraps) {
  auto x = Tensor<1, Int>::from_vector(std::vector<int64_t>{kMax, 0}, {2}, dev());
  auto idx = Tensor<1, Int>::from_vector(std::vector<int64_t>{0}, {1}, dev());
  auto one = Tensor<1, Int>::from_vector(std::vector<int64_t>{1}, {1}, dev());
  EXPECT_EQ(x.scatter(0, idx, one).to_vec<int64_t>(), (std::vector<int64_t>{kMin, 0}));
  EXPECT_EQ(x.select_assign(0, idx, one).to_vec<int64_t>(), (std::vector<int64_t>{kMin, 0}));
}

// Adaptive windows end at ((o + 1) * in + out - 1) / out: for a huge (expanded) input dim that
// overflowed int64 in the kernels; refused up front now.
TEST(Hardening, AdaptivePoolWindowsCannotOverflow) {
  auto x = Tensor<3>::ones({1, 1, 1}, dev()).expand({1, 1, 1LL << 62});
  expect_error<ShapeError>([&] { module::adaptive_avg_pool(x, {2}); }, {"[adaptive_avg_pool]", "overflows"});
  expect_error<ShapeError>([&] { module::adaptive_max_pool(x, {2}); }, {"[adaptive_max_pool]"});
}

// Printing went through double: INT64_MAX printed as -9223372036854775808 (an undefined cast of
// 2^63), and 2 * edge_items overflowed int. Float-to-int conversion of TensorData saturates as the
// cpu cast does instead of an undefined cast.
TEST(Hardening, TensorDataPrintsAndConvertsExactly) {
  auto d = TensorData::from_vector<int64_t>({kMax, kMin, (1LL << 53) + 1}, Shape{3});
  EXPECT_EQ(d.to_string(), "[9223372036854775807, -9223372036854775808, 9007199254740993]");
  EXPECT_EQ(TensorData::from_vector<int64_t>({kMax}, Shape{}).to_string(), "9223372036854775807");
  EXPECT_EQ(d.to_string(1, INT_MAX), d.to_string());
  EXPECT_EQ(d.to_string(1, -5), "[...]");
  EXPECT_EQ(d.to_string(1, 1), "[9223372036854775807, ..., 9007199254740993]");
  auto f = TensorData::from_vector<float>({1e30f, -1e30f, std::nanf(""), 2.9f}, Shape{4});
  EXPECT_EQ(f.convert(DType::I64).to_vec<int64_t>(), (std::vector<int64_t>{kMax, kMin, 0, 2}));
}

// Found by burn-fuzz in main's signal ops: a window or a transform length too large for the machine
// was a std::bad_alloc, or hung in split_of's walk to sqrt(n) before anything was allocated.
TEST(Hardening, SignalSizesTooLargeAreOutOfMemory) {
  {
    AllocLimit limit(1 << 20);
    expect_error<OutOfMemory>([] { signal::hann_window(1 << 20, true, dev()); }, {"[hann_window]", "8388608"});
    expect_error<OutOfMemory>([] { signal::blackman_window(kMax, false, dev()); }, {"[blackman_window]"});
  }
  auto x = Tensor<1>::ones({8}, dev());
  expect_error<OutOfMemory>([&] { signal::rfft(x, -1, kMax); }, {"[rfft]"});
  expect_error<OutOfMemory>([&] { signal::irfft(x, x, -1, kMax - 1); }, {"[irfft]"});
  // 2 * (bins - 1) overflowed for an expanded spectrum of 2^62 + 1 bins
  auto wide = Tensor<1>::zeros({1}, dev()).expand({(1LL << 62) + 1});
  expect_error<ShapeError>([&] { signal::irfft(wide, wide); }, {"[irfft]", "overflows"});
  EXPECT_EQ(signal::hann_window(4, true, dev()).to_vec<float>(), (std::vector<float>{0, 0.5f, 1, 0.5f}));
}

// Found by burn-fuzz in main's index and reduce composites: a 0-d input was read at shape()[1] or
// shape()[rank - 1] (out of bounds: SIGSEGV).
TEST(Hardening, ZeroDimInputsOfComposites) {
  const TensorHandle s = api::from_data(dev(), TensorData::from_vector<float>({2.0f}, Shape{}), Kind::Float);
  const TensorHandle i = api::from_data(dev(), TensorData::from_vector<int64_t>({0}, Shape{}), Kind::Int);
  expect_error<ShapeError>([&] { api::cov(s, 1, std::nullopt, std::nullopt); }, {"[cov]"});
  expect_error<ShapeError>([&] { api::categorical(s, 1, true); }, {"[categorical]"});
  expect_error<ShapeError>([&] { api::gather_nd(s, i); }, {"[gather_nd]", "0-d"});
  expect_error<ShapeError>([&] { api::scatter_nd(s, i, s, ScatterReduction::Add); }, {"[scatter_nd]", "0-d"});
}

// An expanded dim of 2^62 split into pieces of 1 (or iterated) pushed 2^62 sizes and handles until
// std::bad_alloc; the pieces' host bookkeeping is checked first.
TEST(Hardening, SplitOfAHugeViewIsOutOfMemory) {
  const TensorHandle v = api::expand(Tensor<1>::ones({1}, dev()).handle(), {1LL << 62});
  expect_error<OutOfMemory>([&] { api::split(v, 1, 0); }, {"[split]"});
  expect_error<OutOfMemory>([&] { api::chunk(v, kMax, 0); }, {"[split]"});
  expect_error<OutOfMemory>([&] { api::iter_dim(v, 0); }, {"[iter_dim]"});
  EXPECT_EQ(api::split(v, 1LL << 61, 0).size(), 2u);
}

// Found by burn-fuzz under UBSan: diag's size n + |offset| and its square overflowed (and
// std::abs(INT64_MIN) is undefined); the matrix branch computed -offset * n for an empty diagonal.
TEST(Hardening, DiagOffsetsAtTheLimits) {
  const TensorHandle v = Tensor<1>::ones({3}, dev()).handle();
  expect_error<ShapeError>([&] { api::diag(v, kMax); }, {"[diag]", "overflows"});
  expect_error<ShapeError>([&] { api::diag(v, kMin); }, {"[diag]", "overflows"});
  expect_error<ShapeError>([&] { api::diag(v, 1LL << 40); }, {"[diag]"});
  const TensorHandle m = Tensor<2>::ones({2, 2}, dev()).handle();
  EXPECT_EQ(api::diag(m, kMin).prim->shape(), Shape({0}));
  EXPECT_EQ(api::diag(m, kMax).prim->shape(), Shape({0}));
  EXPECT_EQ(Tensor<2>(api::diag(v, -1)).to_vec<float>(),
            (std::vector<float>{0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}));
}

// Found by burn-fuzz under UBSan: any num_groups divides 0 channels, and the cpu kernel counted
// N * num_groups rows; pixel (un)shuffle's output dims H * r, W * r and C * r^2 overflowed likewise.
TEST(Hardening, GroupNormAndPixelShuffleSizes) {
  const TensorHandle x = Tensor<3>::zeros({2, 0, 3}, dev()).handle();
  expect_error<ShapeError>([&] { api::group_norm(x, std::nullopt, std::nullopt, kMax, 1e-5); },
                           {"[group_norm]", "overflows"});
  EXPECT_EQ(api::group_norm(x, std::nullopt, std::nullopt, 5, 1e-5).prim->shape(), Shape({2, 0, 3}));
  const TensorHandle flat = Tensor<3>::zeros({1, 0, 0}, dev()).handle();
  expect_error<ShapeError>([&] { api::pixel_unshuffle(flat, kMax); }, {"[pixel_unshuffle]", "overflows"});
  const TensorHandle tall = Tensor<3>::zeros({0, 1LL << 40, 1}, dev()).handle();
  expect_error<ShapeError>([&] { api::pixel_shuffle(tall, 1LL << 31); }, {"[pixel_shuffle]", "overflows"});
  EXPECT_EQ(api::pixel_unshuffle(Tensor<3>::zeros({1, 2, 2}, dev()).handle(), 2).prim->shape(), Shape({4, 1, 1}));
}

// Found by burn-fuzz (zero-element inputs with a huge dim): the cpu scans, sorts and pixel shuffle
// walked 2^62 lanes or rows of length 0 (a hang) before noticing there was nothing to do.
TEST(Hardening, EmptyTensorsWithAHugeDimReturnAtOnce) {
  const TensorHandle x = api::from_data(dev(), TensorData(Shape{1LL << 62, 1, 0}, DType::I64), Kind::Int);
  EXPECT_EQ(api::argsort(x, -1, false, false).prim->shape(), Shape({1LL << 62, 1, 0}));
  EXPECT_EQ(api::reduce_dim(OpId::cumsum, x, -1).prim->shape(), Shape({1LL << 62, 1, 0}));
  EXPECT_EQ(api::reduce_dim(OpId::cumprod, x, 0).prim->shape(), Shape({1LL << 62, 1, 0}));
  EXPECT_EQ(api::topk_with_indices(x, 0, -1, true).first.prim->shape(), Shape({1LL << 62, 1, 0}));
  const TensorHandle f = api::from_data(dev(), TensorData(Shape{1LL << 60, 4, 1, 0}, DType::F32), Kind::Float);
  EXPECT_EQ(api::pixel_shuffle(f, 2).prim->shape(), Shape({1LL << 60, 1, 2, 0}));
}

// Found by burn-fuzz under UBSan: roll's ((s % n) + n) % n and diag's i * (n + 1) overflowed for an
// empty tensor with a huge dim. The factorisations of an empty batch of huge matrices walked
// min(m, n) steps or made [m, m] tables; they return the empty factors at once.
TEST(Hardening, HugeDimsOfEmptyTensorsInLayoutAndLinalg) {
  const TensorHandle x = api::from_data(dev(), TensorData(Shape{0, kMax}, DType::F32), Kind::Float);
  EXPECT_EQ(api::roll(x, {1}, {1}).prim->shape(), Shape({0, kMax}));
  EXPECT_EQ(api::roll(x, {kMin}, {1}).prim->shape(), Shape({0, kMax}));
  const TensorHandle wide = api::from_data(dev(), TensorData(Shape{0, 1, kMax}, DType::F32), Kind::Float);
  EXPECT_EQ(api::diag(wide, 0).prim->shape(), Shape({0, 1}));
  const TensorHandle big = api::from_data(dev(), TensorData(Shape{0, 1LL << 31, 1LL << 31}, DType::F32), Kind::Float);
  EXPECT_EQ(api::det(big).prim->shape(), Shape({0}));
  EXPECT_EQ(api::lu_factor(big).second.prim->shape(), Shape({0, 1LL << 31}));
  EXPECT_EQ(api::lu(big)[0].prim->shape(), Shape({0, 1LL << 31, 1LL << 31}));
  EXPECT_EQ(api::qr(big, QrMode::Reduced).second.prim->shape(), Shape({0, 1LL << 31, 1LL << 31}));
  const auto small = Tensor<2>::from_vector(std::vector<float>{1, 2, 3, 4}, {2, 2}, dev()).handle();
  EXPECT_NEAR(Tensor<1>(api::det(small)).to_vec<float>()[0], -2.0f, 1e-5f);
}

// Found by burn-fuzz under UBSan: argmin/argmax computed (inner + 255) / 256 column chunks for an
// empty output whose inner extent is 2^63 - 1; unfold with a window of 0 has n + 1 windows.
TEST(Hardening, ArgReduceAndUnfoldAtTheLimits) {
  const TensorHandle x = api::from_data(dev(), TensorData(Shape{0, 1, kMax}, DType::F32), Kind::Float);
  EXPECT_EQ(api::reduce_dim(OpId::argmin, x, 1).prim->shape(), Shape({0, 1, kMax}));
  EXPECT_EQ(api::reduce_dim(OpId::argmax, x, 1).prim->shape(), Shape({0, 1, kMax}));
  expect_error<ShapeError>([&] { api::unfold(x, 2, 0, 1); }, {"[unfold]", "overflows"});
  const TensorHandle v = Tensor<1>::ones({3}, dev()).handle();
  EXPECT_EQ(api::unfold(v, 0, 0, 1).prim->shape(), Shape({4, 0}));
}

// Found by burn-fuzz: matmul of two 0-d tensors read shape[rank - 1] of an empty shape (SIGSEGV).
TEST(Hardening, MatmulOfZeroDimTensors) {
  const TensorHandle s = api::from_data(dev(), TensorData::from_vector<float>({2.0f}, Shape{}), Kind::Float);
  expect_error<ShapeError>([&] { api::matmul(s, s); }, {"[matmul]", "0-d"});
}

// An allocation within the per-buffer limit that the system refuses: 2^52 bytes pass the limit set
// here, but no mapping that large fits a 47- or 48-bit user address space, so mmap fails whatever
// the overcommit policy. The storage's failure is OutOfMemory naming the api op and the bytes.
TEST(Hardening, AllocationTheSystemRefusesIsOutOfMemory) {
  AllocLimit limit(SIZE_MAX);
  expect_error<OutOfMemory>([] { Tensor<1>::empty({1LL << 50}, dev()); },
                            {"[empty]", "refused", "4503599627370496", "bytes"});
  expect_error<OutOfMemory>([] { Tensor<1>::zeros({1LL << 50}, dev()); }, {"[full]", "4503599627370496"});
}

// Found by burn-fuzz under UBSan: glu of an empty tensor with a dim of 2^62 narrowed it at 2^61, and
// the empty view's data() pointed 2^61 elements past its buffer (an overflowing pointer expression).
TEST(Hardening, EmptyViewsAtHugeOffsets) {
  const TensorHandle x = api::from_data(dev(), TensorData(Shape{0, 1LL << 62}, DType::F32), Kind::Float);
  EXPECT_EQ(api::glu(x, 1).prim->shape(), Shape({0, 1LL << 61}));
  const TensorHandle tail = api::narrow(x, 1, (1LL << 62) - 1, 1);
  EXPECT_EQ(api::unary(OpId::sigmoid, tail).prim->shape(), Shape({0, 1}));
}

// Found by burn-fuzz (seed 444444): the default conv_transpose of an empty weight with a 2^40-tall
// kernel walked its 2^40 taps (a hang); with no columns or no elements it returns at once.
TEST(Hardening, ConvTransposeOfAnEmptyHugeKernel) {
  for (const Device& d : {dev(), Device::get("defaults<cpu>")}) {
    const TensorHandle x = api::from_data(d, TensorData(Shape{1, 1, 2, 3}, DType::F32), Kind::Float);
    const TensorHandle w = api::from_data(d, TensorData(Shape{1, 0, 1LL << 40, 1}, DType::F32), Kind::Float);
    EXPECT_EQ(api::conv_transpose(x, w, std::nullopt, ConvTransposeOptions{}).prim->shape(),
              Shape({1, 0, (1LL << 40) + 1, 3}));
  }
}
