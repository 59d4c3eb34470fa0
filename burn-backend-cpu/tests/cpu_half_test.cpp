// f16 and bf16 compute on the cpu plugin (half_backend.cpp, half_convert.cpp): every conversion path this
// CPU has against a bit-level reference over all 65,536 patterns of both formats, and the plugin's ops
// in f16/bf16 against the f32 kernels' results rounded once (bitwise).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <ostream>
#include <random>
#include <vector>

#include "burn/tensor/data.hpp"
#include "cpu_backend.hpp"
#include "cpu_tensor.hpp"
#include "half_convert.hpp"

namespace burn::cpu {
namespace {

constexpr HalfIsa kIsas[] = {HalfIsa::Scalar, HalfIsa::Avx2, HalfIsa::Avx512};

// The semantics of half_convert.hpp written plainly: burn-tensor's conversions for numbers; NaNs quiet,
// keeping sign and top payload bits. f16 widening quiets a signalling NaN; bf16 widening is a shift.
uint32_t ref_widen(DType d, uint16_t h) {
  if (d == DType::BF16) return static_cast<uint32_t>(h) << 16;
  if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0)
    return (static_cast<uint32_t>(h & 0x8000) << 16) | 0x7fc00000u | (static_cast<uint32_t>(h & 0x3ff) << 13);
  return std::bit_cast<uint32_t>(f16_to_f32(h));
}
uint16_t ref_narrow(DType d, float f) {
  const uint32_t u = std::bit_cast<uint32_t>(f);
  if (std::isnan(f)) {
    const uint32_t sign = (u >> 16) & 0x8000u;
    return static_cast<uint16_t>(d == DType::BF16 ? ((u >> 16) | 0x40u) : (sign | 0x7e00u | ((u >> 13) & 0x3ffu)));
  }
  return d == DType::BF16 ? f32_to_bf16(f) : f32_to_f16(f);
}

// The path BURN_CPU_HALF forces when this CPU lacks it (ctest forces avx2 on every machine), else null.
const char* missing_env_path() {
  const char* env = std::getenv("BURN_CPU_HALF");
  if (!env) return nullptr;
  for (HalfIsa isa : kIsas)
    if (std::strcmp(env, half_isa_name(isa)) == 0 && !half_isa_available(isa)) return env;
  return nullptr;
}
#define SKIP_IF_ENV_PATH_MISSING()        \
  if (const char* p = missing_env_path()) \
  GTEST_SKIP() << "BURN_CPU_HALF=" << p << " asks for conversions this CPU lacks"

// Runs body once per conversion path this CPU has, forced through the test hook; restores the default.
template <typename F>
void for_each_isa(F&& body) {
  const HalfIsa before = half_isa();
  int ran = 0;
  for (HalfIsa isa : kIsas) {
    if (!half_isa_available(isa)) continue;
    set_half_isa(isa);
    SCOPED_TRACE(half_isa_name(isa));
    body(isa);
    ++ran;
  }
  set_half_isa(before);
  EXPECT_GE(ran, 1);
}

TEST(HalfConvert, EveryPatternWidensAndRoundTripsOnEveryPath) {
  SKIP_IF_ENV_PATH_MISSING();
  // 65,536 patterns plus 13 so that each vector loop also ends in a scalar tail.
  std::vector<uint16_t> in(65536 + 13);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint16_t>(i);
  for_each_isa([&](HalfIsa) {
    for (DType d : {DType::F16, DType::BF16}) {
      SCOPED_TRACE(dtype_name(d));
      std::vector<float> wide(in.size());
      std::vector<uint16_t> back(in.size());
      widen_to_f32(d, in.data(), wide.data(), static_cast<int64_t>(in.size()));
      narrow_from_f32(d, wide.data(), back.data(), static_cast<int64_t>(in.size()));
      for (size_t i = 0; i < in.size(); ++i) {
        ASSERT_EQ(std::bit_cast<uint32_t>(wide[i]), ref_widen(d, in[i])) << "widen 0x" << std::hex << in[i];
        ASSERT_EQ(back[i], ref_narrow(d, wide[i])) << "round trip 0x" << std::hex << in[i];
        // A number comes back unchanged; a NaN comes back a NaN.
        const bool nan = std::isnan(wide[i]);
        if (!nan) ASSERT_EQ(back[i], in[i]) << std::hex << in[i];
      }
    }
  });
}

TEST(HalfConvert, FloatsRoundToNearestEvenOnEveryPath) {
  SKIP_IF_ENV_PATH_MISSING();
  // Every 4099th f32 pattern (all exponents), and around each format's rounding point: the low 13
  // (f16) and 16 (bf16) bits at 0, just below, at and just above half an ulp, on odd and even results.
  std::vector<float> in;
  for (uint64_t u = 0; u <= 0xffffffffu; u += 4099) in.push_back(std::bit_cast<float>(static_cast<uint32_t>(u)));
  std::mt19937 rng(31);
  for (int k = 0; k < 200000; ++k) {
    const uint32_t hi = rng() & 0xffff0000u;
    for (uint32_t lo : {0x0000u, 0x0fffu, 0x1000u, 0x1001u, 0x2000u, 0x3000u, 0x7fffu, 0x8000u, 0x8001u, 0x18000u})
      in.push_back(std::bit_cast<float>(hi + (lo & 0xffffu) + (lo & 0x10000u)));
  }
  // Denormal f32 (bf16 keeps them; the AVX512-BF16 instruction alone would flush them) and the f16 edges.
  for (uint32_t u : {0x00000001u, 0x00008000u, 0x00018000u, 0x007fffffu, 0x807fffffu, 0x33000000u, 0x33000001u,
                     0x387fe000u, 0x477ff000u, 0x477fefffu, 0x7f800001u, 0x7fa00000u, 0xffc00001u})
    in.push_back(std::bit_cast<float>(u));
  for_each_isa([&](HalfIsa) {
    for (DType d : {DType::F16, DType::BF16}) {
      SCOPED_TRACE(dtype_name(d));
      std::vector<uint16_t> out(in.size());
      narrow_from_f32(d, in.data(), out.data(), static_cast<int64_t>(in.size()));
      for (size_t i = 0; i < in.size(); ++i)
        ASSERT_EQ(out[i], ref_narrow(d, in[i])) << "f32 0x" << std::hex << std::bit_cast<uint32_t>(in[i]);
    }
  });
}

TEST(HalfConvert, EnvironmentChoosesThePath) {
  // ctest runs this test under BURN_CPU_HALF=scalar and =avx2 too (tests/CMakeLists.txt).
  const char* env = std::getenv("BURN_CPU_HALF");
  if (!env) {
    EXPECT_EQ(half_isa(), half_isa_available(HalfIsa::Avx512) ? HalfIsa::Avx512
                          : half_isa_available(HalfIsa::Avx2) ? HalfIsa::Avx2
                                                              : HalfIsa::Scalar);
    return;
  }
  SKIP_IF_ENV_PATH_MISSING();
  EXPECT_STREQ(half_isa_name(half_isa()), env);
}

TEST(HalfConvert, AMissingPathIsAnError) {
  SKIP_IF_ENV_PATH_MISSING();
  for (HalfIsa isa : kIsas)
    if (!half_isa_available(isa)) EXPECT_THROW(set_half_isa(isa), Unsupported) << half_isa_name(isa);
  EXPECT_NO_THROW(set_half_isa(set_half_isa(HalfIsa::Scalar)));
}

// ---- the plugin's backend in f16/bf16 against the f32 kernels -------------------------------------

// The suite's parameter: a half dtype in a type of the suite's own, so that its PrintTo (the name, not the
// enum's byte in gtest's test descriptions) cannot meet another file's printer of DType itself.
struct HalfFormat {
  DType dtype;
};
void PrintTo(const HalfFormat& f, std::ostream* os) { *os << dtype_name(f.dtype); }

class CpuHalf : public ::testing::TestWithParam<HalfFormat> {
 protected:
  std::unique_ptr<Backend> be = make_cpu_backend();
  CpuBackend f32;  // the reference: the same kernels on the widened values
  DType h = GetParam().dtype;

  void SetUp() override { SKIP_IF_ENV_PATH_MISSING(); }

  // n values of format h: normals of both signs over several binades, with zeros, infinities, NaNs and
  // (f16) subnormals mixed in; `positive` for ops whose domain is x > 0 (and NaN).
  Prim values(Shape s, uint32_t seed, bool positive = false) {
    const int64_t n = s.num_elements();
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-6.0f, 6.0f);
    std::vector<float> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      float x = u(rng);
      if (i % 97 == 5) x = 0.0f;
      if (i % 211 == 7) x = std::numeric_limits<float>::infinity();
      if (i % 223 == 9) x = std::numeric_limits<float>::quiet_NaN();
      if (i % 101 == 3) x *= 1e-6f;  // f16 subnormals
      v[static_cast<size_t>(i)] = positive ? std::fabs(x) : x;
    }
    Prim x = be->from_data(TensorData::from_vector(v, std::move(s)));
    return be->cast(x, h);
  }
  // The f32 reference's input: the half tensor widened exactly.
  Prim wide(const Prim& x) { return f32.cast(x, DType::F32); }
  // Bits of a half result and of the f32 result rounded once.
  void expect_rounded(const Prim& got, const Prim& f32_result, const char* what) {
    ASSERT_EQ(got->dtype(), h) << what;
    ASSERT_EQ(got->shape(), f32_result->shape()) << what;
    const TensorData gd = be->into_data(got);
    const auto* g = static_cast<const uint16_t*>(gd.raw());
    const auto r = f32.into_data(f32_result).to_vec<float>();
    for (size_t i = 0; i < r.size(); ++i)
      ASSERT_EQ(g[i], ref_narrow(h, r[i])) << what << " element " << i << ": f32 result " << r[i];
  }
};

TEST_P(CpuHalf, UnaryOpsAreTheF32OpRoundedOnce) {
  // 3 tiles and a tail.
  const Prim x = values(Shape{3, 8291}, 1);
  const Prim xp = values(Shape{3, 8291}, 2, /*positive=*/true);
  const Prim wx = wide(x), wxp = wide(xp);
  expect_rounded(be->exp(x), f32.exp(wx), "exp");
  expect_rounded(be->log(xp), f32.log(wxp), "log");
  expect_rounded(be->sqrt(xp), f32.sqrt(wxp), "sqrt");
  expect_rounded(be->tanh(x), f32.tanh(wx), "tanh");
  expect_rounded(be->sin(x), f32.sin(wx), "sin");
  expect_rounded(be->erf(x), f32.erf(wx), "erf");
  expect_rounded(be->recip(x), f32.recip(wx), "recip");
  expect_rounded(be->sigmoid(x), f32.sigmoid(wx), "sigmoid");
  expect_rounded(be->gelu(x), f32.gelu(wx), "gelu");
  expect_rounded(be->silu(x), f32.silu(wx), "silu");
  expect_rounded(be->relu(x), f32.relu(wx), "relu");
  expect_rounded(be->neg(x), f32.neg(wx), "neg");
  expect_rounded(be->abs(x), f32.abs(wx), "abs");
  expect_rounded(be->round(x), f32.round(wx), "round");
  expect_rounded(be->mul_scalar(x, Scalar(0.1)), f32.mul_scalar(wx, Scalar(0.1)), "mul_scalar");
  expect_rounded(be->powf_scalar(xp, Scalar(1.5)), f32.powf_scalar(wxp, Scalar(1.5)), "powf_scalar");
  expect_rounded(be->clamp(x, Scalar(-1.0), Scalar(2.5)), f32.clamp(wx, Scalar(-1.0), Scalar(2.5)), "clamp");
  expect_rounded(be->leaky_relu(x, 0.01), f32.leaky_relu(wx, 0.01), "leaky_relu");
  // Bool results: the f32 comparisons' bits.
  EXPECT_EQ(be->into_data(be->is_nan(x)), f32.into_data(f32.is_nan(wx)));
  EXPECT_EQ(be->into_data(be->greater_elem(x, Scalar(0.5))), f32.into_data(f32.greater_elem(wx, Scalar(0.5))));
}

TEST_P(CpuHalf, BinaryOpsAreTheF32OpRoundedOnce) {
  const Prim a = values(Shape{20000}, 3), b = values(Shape{20000}, 4);
  const Prim wa = wide(a), wb = wide(b);
  expect_rounded(be->add(a, b), f32.add(wa, wb), "add");
  expect_rounded(be->sub(a, b), f32.sub(wa, wb), "sub");
  expect_rounded(be->mul(a, b), f32.mul(wa, wb), "mul");
  expect_rounded(be->div(a, b), f32.div(wa, wb), "div");
  expect_rounded(be->atan2(a, b), f32.atan2(wa, wb), "atan2");
  expect_rounded(be->maximum(a, b), f32.maximum(wa, wb), "maximum");
  expect_rounded(be->remainder(a, b), f32.remainder(wa, wb), "remainder");
  EXPECT_EQ(be->into_data(be->lower(a, b)), f32.into_data(f32.lower(wa, wb)));
  // One operand a single element (tiles share it), a broadcast and a strided view (the promote route).
  const Prim s = values(Shape{1, 1}, 5);
  expect_rounded(be->add(a, s), f32.add(wa, wide(s)), "add of a single element");
  const Prim c = values(Shape{40, 1}, 6), r = values(Shape{1, 50}, 7);
  expect_rounded(be->mul(c, r), f32.mul(wide(c), wide(r)), "broadcast mul");
  const Prim m = values(Shape{64, 48}, 8);
  const Prim mt = be->permute(m, {1, 0});
  expect_rounded(be->exp(mt), f32.exp(f32.permute(wide(m), {1, 0})), "exp of a transposed view");
  // The instruction route gathers broadcast and strided operands tile by tile: a row against a matrix, a
  // single element on the left, a transposed view against a contiguous one, several tiles per task.
  const Prim big = values(Shape{300, 257}, 9), row = values(Shape{257}, 10), col = values(Shape{300, 1}, 11);
  const Prim wbig = wide(big);
  expect_rounded(be->sub(big, row), f32.sub(wbig, wide(row)), "sub of a broadcast row");
  expect_rounded(be->div(col, big), f32.div(wide(col), wbig), "div of a broadcast column");
  expect_rounded(be->mul(s, big), f32.mul(wide(s), wbig), "mul with a single element on the left");
  const Prim sq = values(Shape{200, 200}, 12), sq2 = values(Shape{200, 200}, 13);
  expect_rounded(be->add(be->permute(sq, {1, 0}), sq2), f32.add(f32.permute(wide(sq), {1, 0}), wide(sq2)),
                 "add of a transposed view and a contiguous tensor");
  expect_rounded(be->minimum(big, row), f32.minimum(wbig, wide(row)), "minimum of a broadcast row");
  EXPECT_EQ(be->into_data(be->greater_equal(big, col)), f32.into_data(f32.greater_equal(wbig, wide(col))));
  EXPECT_EQ(be->into_data(be->equal(big, big)), f32.into_data(f32.equal(wbig, wbig)));
  EXPECT_EQ(be->into_data(be->lower_equal_elem(big, Scalar(1.25))),
            f32.into_data(f32.lower_equal_elem(wbig, Scalar(1.25))));
  expect_rounded(be->gelu_tanh(big), f32.gelu_tanh(wbig), "gelu_tanh");
  expect_rounded(be->sub_scalar(big, Scalar(0.3)), f32.sub_scalar(wbig, Scalar(0.3)), "sub_scalar");
  expect_rounded(be->clamp_min(big, Scalar(-0.5)), f32.clamp_min(wbig, Scalar(-0.5)), "clamp_min");
  expect_rounded(be->square(big), f32.square(wbig), "square");
}

TEST_P(CpuHalf, ReductionsGemmAndConvAccumulateInF32) {
  const Prim x = values(Shape{8, 300}, 9);
  const Prim wx = wide(x);
  // NaN-free inputs for the accumulating ops, so that the comparison sees the sums.
  const Prim y = be->clamp(be->mask_fill(x, be->is_nan(x), Scalar(0.25)), Scalar(-4.0), Scalar(4.0));
  const Prim wy = wide(y);
  expect_rounded(be->sum_dim(y, 1), f32.sum_dim(wy, 1), "sum_dim");
  expect_rounded(be->mean(y), f32.mean(wy), "mean");
  expect_rounded(be->var(y, 1, 1), f32.var(wy, 1, 1), "var");
  expect_rounded(be->cumsum(y, 1), f32.cumsum(wy, 1), "cumsum");
  expect_rounded(be->softmax(y, 1), f32.softmax(wy, 1), "softmax");
  expect_rounded(be->max_dim(x, 1), f32.max_dim(wx, 1), "max_dim");
  EXPECT_EQ(be->into_data(be->argmax(y, 1)), f32.into_data(f32.argmax(wy, 1)));
  // The reductions read the half input through widened spans (reduce_widened): every lane shape of the f32
  // kernel, whole rows split over the threads, columns narrower and wider than a task's, NaN in max/argmin.
  const Prim big = values(Shape{3, 70001}, 14);
  const Prim bigc = be->clamp(be->mask_fill(big, be->is_nan(big), Scalar(0.5)), Scalar(-4.0), Scalar(4.0));
  const Prim wbig = wide(big), wbigc = wide(bigc);
  expect_rounded(be->sum(bigc), f32.sum(wbigc), "sum of 210k");
  expect_rounded(be->mean_dim(bigc, 1), f32.mean_dim(wbigc, 1), "mean_dim of long rows");
  expect_rounded(be->sum_dim(bigc, 0), f32.sum_dim(wbigc, 0), "sum_dim over 3 rows of 70001 columns");
  expect_rounded(be->max(big), f32.max(wbig), "max with NaN");
  expect_rounded(be->min_dim(big, 1), f32.min_dim(wbig, 1), "min_dim with NaN");
  EXPECT_EQ(be->into_data(be->argmin(big, 1)), f32.into_data(f32.argmin(wbig, 1)));
  const Prim cols = be->reshape(bigc, Shape{70001, 3});
  expect_rounded(be->sum_dim(cols, 0), f32.sum_dim(f32.reshape(wbigc, Shape{70001, 3}), 0), "sum_dim of 3 columns");
  EXPECT_EQ(be->into_data(be->argmax(cols, 0)), f32.into_data(f32.argmax(f32.reshape(wbigc, Shape{70001, 3}), 0)));
  const Prim small = be->mul_scalar(y, Scalar(0.5));
  expect_rounded(be->prod_dim(small, 1), f32.prod_dim(wide(small), 1), "prod_dim");
  expect_rounded(be->sum_dim(be->permute(y, {1, 0}), 1), f32.sum_dim(f32.permute(wy, {1, 0}), 1),
                 "sum_dim of a transposed view");
  const PrimPair sorted = be->sort(y, 1, true, true);
  expect_rounded(sorted.first, f32.sort(wy, 1, true, true).first, "sort values");
  EXPECT_EQ(be->into_data(sorted.second), f32.into_data(f32.sort(wy, 1, true, true).second));
  const Prim w = be->clamp(values(Shape{300, 70}, 10), Scalar(-2.0), Scalar(2.0));
  const Prim ww = wide(w);
  // The 1/sqrt(300) scale keeps the sums inside f16's range.
  const Prim yw = be->mul_scalar(y, Scalar(0.0625));
  expect_rounded(be->matmul(yw, w), f32.matmul(wide(yw), ww), "matmul");
  const Prim img = be->reshape(y, Shape{2, 4, 20, 15});
  const Prim k = be->reshape(be->slice(w, {{0, 36, 1}, {0, 2, 1}}), Shape{2, 4, 3, 3});
  ConvOptions opt;
  opt.stride = {1, 1};
  opt.padding = {1, 1};
  opt.dilation = {1, 1};
  opt.groups = 1;
  expect_rounded(be->conv(img, k, nullptr, opt), f32.conv(wide(img), wide(k), nullptr, opt), "conv");
  expect_rounded(be->layer_norm(y, nullptr, nullptr, 1, 1e-5), f32.layer_norm(wy, nullptr, nullptr, 1, 1e-5),
                 "layer_norm");
  // embedding copies rows of 16-bit values (the native route): the same bits as the f32 rows rounded.
  const Prim idx = be->from_data(TensorData::from_vector(std::vector<int64_t>{7, 0, 7, 3}, Shape{4}));
  expect_rounded(be->embedding(y, idx), f32.embedding(wy, idx), "embedding");
}

// The simple maps and exp (bf16 ones run widening, op and rounding in registers, half_map.hpp) on every conversion
// path: every bit pattern of the format as the left operand (denormals, NaN payloads, infinities, both zeros) against a
// shuffle of them, sizes with vector tails and several parallel tasks; each result the f32 op's rounded once.
TEST_P(CpuHalf, SimpleMapsAndExpOverEveryPatternOnEveryPath) {
  for (const int64_t n : {int64_t{65536 + 37}, int64_t{31}, int64_t{1}}) {
    std::vector<uint8_t> abytes(static_cast<size_t>(n) * 2), bbytes(abytes.size());
    std::vector<uint16_t> perm(65536);
    for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<uint16_t>(i);
    std::shuffle(perm.begin(), perm.end(), std::mt19937(static_cast<uint32_t>(n)));
    for (int64_t i = 0; i < n; ++i) {
      const auto ai = static_cast<uint16_t>((i * 40503) & 0xffff), bi = perm[static_cast<size_t>(i) & 0xffff];
      std::memcpy(&abytes[static_cast<size_t>(i) * 2], &ai, 2);
      std::memcpy(&bbytes[static_cast<size_t>(i) * 2], &bi, 2);
    }
    const Prim a = be->from_data(TensorData(Shape{n}, h, abytes)), b = be->from_data(TensorData(Shape{n}, h, bbytes));
    const Prim wa = wide(a), wb = wide(b);
    for_each_isa([&](HalfIsa) {
      SCOPED_TRACE(n);
      expect_rounded(be->add(a, b), f32.add(wa, wb), "add");
      expect_rounded(be->sub(a, b), f32.sub(wa, wb), "sub");
      expect_rounded(be->mul(a, b), f32.mul(wa, wb), "mul");
      expect_rounded(be->div(a, b), f32.div(wa, wb), "div");
      expect_rounded(be->maximum(a, b), f32.maximum(wa, wb), "maximum");
      expect_rounded(be->minimum(a, b), f32.minimum(wa, wb), "minimum");
      expect_rounded(be->add_scalar(a, Scalar(0.3)), f32.add_scalar(wa, Scalar(0.3)), "add_scalar");
      expect_rounded(be->sub_scalar(a, Scalar(-2.5)), f32.sub_scalar(wa, Scalar(-2.5)), "sub_scalar");
      expect_rounded(be->mul_scalar(a, Scalar(1e-3)), f32.mul_scalar(wa, Scalar(1e-3)), "mul_scalar");
      expect_rounded(be->div_scalar(a, Scalar(7.0)), f32.div_scalar(wa, Scalar(7.0)), "div_scalar");
      expect_rounded(be->neg(a), f32.neg(wa), "neg");
      expect_rounded(be->abs(a), f32.abs(wa), "abs");
      expect_rounded(be->clamp(a, Scalar(-1.0), Scalar(2.5)), f32.clamp(wa, Scalar(-1.0), Scalar(2.5)), "clamp");
      expect_rounded(be->clamp_min(a, Scalar(-0.5)), f32.clamp_min(wa, Scalar(-0.5)), "clamp_min");
      expect_rounded(be->clamp_max(a, Scalar(0.75)), f32.clamp_max(wa, Scalar(0.75)), "clamp_max");
      expect_rounded(be->recip(a), f32.recip(wa), "recip");
      expect_rounded(be->square(a), f32.square(wa), "square");
      expect_rounded(be->relu(a), f32.relu(wa), "relu");
      expect_rounded(be->leaky_relu(a, 0.01), f32.leaky_relu(wa, 0.01), "leaky_relu");
      expect_rounded(be->exp(a), f32.exp(wa), "exp");
    });
  }
}

TEST_P(CpuHalf, SupportsAnswersForTheF32Route) {
  EXPECT_TRUE(be->supports(OpId::add, h));
  EXPECT_TRUE(be->supports(OpId::exp, h));
  EXPECT_TRUE(be->supports(OpId::matmul, h));
  EXPECT_TRUE(be->supports(OpId::conv, h));
  EXPECT_TRUE(be->supports(OpId::sum_dim, h));
  EXPECT_TRUE(be->supports(OpId::random, h));
  // random draws in f32 and rounds: values of the format, inside the distribution's range.
  const Prim r = be->random(Shape{1000}, Distribution::uniform(0.0, 1.0), h);
  ASSERT_EQ(r->dtype(), h);
  for (float v : f32.into_data(f32.cast(r, DType::F32)).to_vec<float>()) ASSERT_TRUE(v >= 0.0f && v <= 1.0f) << v;
  EXPECT_TRUE(be->supports(OpId::slice, h));
  EXPECT_TRUE(be->supports(OpId::embedding, h));
  EXPECT_FALSE(be->supports(OpId::bitwise_and, h));
  EXPECT_FALSE(be->supports(OpId::bool_not, h));
  // The kernels alone still refuse the format, and say where it is computed.
  EXPECT_FALSE(f32.supports(OpId::add, h));
  EXPECT_THROW(f32.exp(values(Shape{4}, 11)), Unsupported);
  EXPECT_EQ(be->name(), "cpu");
}

TEST_P(CpuHalf, MixedFloatOperandsAreADTypeError) {
  const Prim a = values(Shape{4}, 12);
  const Prim b = f32.cast(a, DType::F32);
  EXPECT_THROW(be->add(a, b), DTypeError);
  EXPECT_THROW(be->matmul(be->reshape(a, Shape{2, 2}), be->reshape(b, Shape{2, 2})), DTypeError);
  const Prim other = be->cast(b, h == DType::F16 ? DType::BF16 : DType::F16);
  EXPECT_THROW(be->add(a, other), DTypeError);
}

INSTANTIATE_TEST_SUITE_P(Formats, CpuHalf, ::testing::Values(HalfFormat{DType::F16}, HalfFormat{DType::BF16}),
                         [](const auto& info) { return std::string(dtype_name(info.param.dtype)); });

}  // namespace
}  // namespace burn::cpu
