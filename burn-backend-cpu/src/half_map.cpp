// The bf16 register route for the simple elementwise maps and exp (see half_map.hpp): one loop per op and
// conversion path, the widening, the f32 op's per-element function and the rounding in the same registers. Each
// op's function is the one the fused executor's instruction applies to f32 (fused_executor.cpp's exec; for exp,
// exp8 or exp16, the f32 exp loop's), so the result is that instruction's, rounded once as convert.hpp's
// float_to_bfloat rounds.
#include "half_map.hpp"

#include <cstring>

#include "convert.hpp"
#include "elementwise.hpp"
#include "half_simd.hpp"
#include "ops/elementwise_fns.hpp"
#include "ops/simd_avx2.hpp"
#include "ops/simd_avx512.hpp"

// GCC 12 warns that the AVX-512 intrinsics' own _mm512_undefined_* placeholders may be used uninitialised
// (they are masked out); nothing of this file's is.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace burn::cpu {

namespace {

// The loops, generic over the per-element function; each entry point below compiles them for one ISA (the
// callee is inlined into a caller of a wider target, so it vectorises at that width).
template <typename F>
[[gnu::always_inline]] inline void map_loop(const uint16_t* x, uint16_t* y, int64_t n, F f) {
#pragma GCC ivdep
  for (int64_t i = 0; i < n; ++i) y[i] = float_to_bfloat(f(bfloat_to_float(x[i])));
}
template <typename F>
[[gnu::always_inline]] inline void zip_loop(const uint16_t* a, const uint16_t* b, uint16_t* y, int64_t n, F f) {
#pragma GCC ivdep
  for (int64_t i = 0; i < n; ++i) y[i] = float_to_bfloat(f(bfloat_to_float(a[i]), bfloat_to_float(b[i])));
}

#define BURN_BF16_MAP_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx2,fma")))
#define BURN_BF16_MAP_AVX2 __attribute__((target("avx2")))

template <typename F>
BURN_BF16_MAP_AVX512 void map_avx512(const uint16_t* x, uint16_t* y, int64_t n, F f) {
  map_loop(x, y, n, f);
}
template <typename F>
BURN_BF16_MAP_AVX2 void map_avx2(const uint16_t* x, uint16_t* y, int64_t n, F f) {
  map_loop(x, y, n, f);
}
template <typename F>
void map_scalar(const uint16_t* x, uint16_t* y, int64_t n, F f) {
  map_loop(x, y, n, f);
}
template <typename F>
BURN_BF16_MAP_AVX512 void zip_avx512(const uint16_t* a, const uint16_t* b, uint16_t* y, int64_t n, F f) {
  zip_loop(a, b, y, n, f);
}
template <typename F>
BURN_BF16_MAP_AVX2 void zip_avx2(const uint16_t* a, const uint16_t* b, uint16_t* y, int64_t n, F f) {
  zip_loop(a, b, y, n, f);
}
template <typename F>
void zip_scalar(const uint16_t* a, const uint16_t* b, uint16_t* y, int64_t n, F f) {
  zip_loop(a, b, y, n, f);
}

template <typename F>
void map(HalfIsa isa, const uint16_t* const* x, uint16_t* y, int64_t n, F f) {
  switch (isa) {
    case HalfIsa::Avx512: return map_avx512(x[0], y, n, f);
    case HalfIsa::Avx2: return map_avx2(x[0], y, n, f);
    case HalfIsa::Scalar: break;
  }
  map_scalar(x[0], y, n, f);
}
template <typename F>
void zip(HalfIsa isa, const uint16_t* const* x, uint16_t* y, int64_t n, F f) {
  switch (isa) {
    case HalfIsa::Avx512: return zip_avx512(x[0], x[1], y, n, f);
    case HalfIsa::Avx2: return zip_avx2(x[0], x[1], y, n, f);
    case HalfIsa::Scalar: break;
  }
  zip_scalar(x[0], x[1], y, n, f);
}

// exp: the f32 exp op's own exp8 (exp_f32_avx2's, 16 lanes a step) between the widening and the rounding. The
// tail goes through a zero-padded block: exp8 gives each lane the same bits whatever its neighbours.
BURN_AVX2_FMA void exp_bf16_avx2(const uint16_t* x, uint16_t* y, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    narrow_bf16x16_avx2(exp8(widen_bf16x8_avx2(x + i)), exp8(widen_bf16x8_avx2(x + i + 8)), y + i);
  if (i < n) {
    uint16_t in[16] = {}, out[16];
    std::memcpy(in, x + i, static_cast<size_t>(n - i) * sizeof(uint16_t));
    narrow_bf16x16_avx2(exp8(widen_bf16x8_avx2(in)), exp8(widen_bf16x8_avx2(in + 8)), out);
    std::memcpy(y + i, out, static_cast<size_t>(n - i) * sizeof(uint16_t));
  }
}

#define BURN_BF16_EXP_AVX512BF16 __attribute__((target("avx512f,avx512bf16,avx2,fma")))

// 16 bf16 values as f32 (a shift: exact).
BURN_BF16_EXP_AVX512BF16 [[gnu::always_inline]] inline __m512 widen_bf16x16_avx512(const uint16_t* x) {
  const __m512i w = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x)));
  return _mm512_castsi512_ps(_mm512_slli_epi32(w, 16));
}
// exp of 16 bf16 lanes, rounded to bf16 and stored. exp16 is exp8 on 16 lanes (the same bits), and its test
// picks the arithmetic: when it takes exp16_normal every result is a normal float, which vcvtneps2bf16 rounds
// as float_to_bfloat does (it differs only on f32 denormals; NaN comes out quiet alike); otherwise
// exp16_full_range and the integer rounding.
BURN_BF16_EXP_AVX512BF16 [[gnu::always_inline]] inline void exp_bf16x16_avx512bf16(const uint16_t* x, uint16_t* y) {
  const __m512 v = widen_bf16x16_avx512(x);
  if (exp16_outside_normal(v) != 0) [[unlikely]] {
    const __m512 e = exp16_full_range(v);
    narrow_bf16x16_avx2(_mm512_castps512_ps256(e), _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(e), 1)), y);
    return;
  }
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(y), reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(exp16_normal(v))));
}

// exp_bf16_avx2 where the CPU has AVX512-BF16: 16 lanes a vector, the rounding one instruction on exp16_normal's.
BURN_BF16_EXP_AVX512BF16 void exp_bf16_avx512bf16(const uint16_t* x, uint16_t* y, int64_t n) {
  int64_t i = 0;
  // Two vectors a step, as exp_f32's loops: one exp's dependency chain alone leaves the FMA units idle.
  for (; i + 32 <= n; i += 32) {
    const __m512 a = widen_bf16x16_avx512(x + i), b = widen_bf16x16_avx512(x + i + 16);
    if ((exp16_outside_normal(a) | exp16_outside_normal(b)) != 0) [[unlikely]] {
      exp_bf16x16_avx512bf16(x + i, y + i);
      exp_bf16x16_avx512bf16(x + i + 16, y + i + 16);
      continue;
    }
    const __m512 ea = exp16_normal(a), eb = exp16_normal(b);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i), reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(ea)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i + 16), reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(eb)));
  }
  for (; i + 16 <= n; i += 16) exp_bf16x16_avx512bf16(x + i, y + i);
  if (i < n) {
    uint16_t in[16] = {}, out[16];
    std::memcpy(in, x + i, static_cast<size_t>(n - i) * sizeof(uint16_t));
    exp_bf16x16_avx512bf16(in, out);
    std::memcpy(y + i, out, static_cast<size_t>(n - i) * sizeof(uint16_t));
  }
}

}  // namespace

bool bf16_map_supported(const FusedInstr& in, HalfIsa isa) {
  switch (in.op) {
    // The exp op's f32 exp is exp8 wherever the CPU has AVX2 and FMA; the scalar conversion path keeps the tiles.
    case OpId::exp: return in.n_args == 1 && isa != HalfIsa::Scalar && cpu_has_avx2_fma();
    case OpId::add:
    case OpId::sub:
    case OpId::mul:
    case OpId::div:
    case OpId::maximum:
    case OpId::minimum: return in.n_args == 2;
    case OpId::add_scalar:
    case OpId::sub_scalar:
    case OpId::mul_scalar:
    case OpId::div_scalar:
    case OpId::neg:
    case OpId::abs:
    case OpId::clamp:
    case OpId::clamp_min:
    case OpId::clamp_max:
    case OpId::recip:
    case OpId::square:
    case OpId::relu:
    case OpId::leaky_relu: return in.n_args == 1;
    default: return false;
  }
}

// The functions are exec's for T = float, case by case.
void run_bf16_map(const FusedInstr& in, HalfIsa isa, const uint16_t* const* x, uint16_t* y, int64_t n) {
  const float s0 = scalar_as<float>(in.scalars[0]);
  switch (in.op) {
    case OpId::exp:
      if (isa == HalfIsa::Avx512 && half_isa_has_bf16_instructions() && cpu_has_avx512f())
        return exp_bf16_avx512bf16(x[0], y, n);
      return exp_bf16_avx2(x[0], y, n);
    case OpId::add: return zip(isa, x, y, n, [](float a, float b) { return wrap_add(a, b); });
    case OpId::sub: return zip(isa, x, y, n, [](float a, float b) { return wrap_sub(a, b); });
    case OpId::mul: return zip(isa, x, y, n, [](float a, float b) { return wrap_mul(a, b); });
    case OpId::div: return zip(isa, x, y, n, [](float a, float b) { return div_of(a, b); });
    case OpId::maximum: return zip(isa, x, y, n, [](float a, float b) { return max_of(a, b); });
    case OpId::minimum: return zip(isa, x, y, n, [](float a, float b) { return min_of(a, b); });
    case OpId::add_scalar: return map(isa, x, y, n, [s0](float v) { return wrap_add(v, s0); });
    case OpId::sub_scalar: return map(isa, x, y, n, [s0](float v) { return wrap_sub(v, s0); });
    case OpId::mul_scalar: return map(isa, x, y, n, [s0](float v) { return wrap_mul(v, s0); });
    case OpId::div_scalar: return map(isa, x, y, n, [s0](float v) { return div_of(v, s0); });
    case OpId::neg: return map(isa, x, y, n, [](float v) { return wrap_sub(0.0f, v); });
    case OpId::abs: return map(isa, x, y, n, [](float v) { return abs_of(v); });
    case OpId::clamp: {
      const float hi = scalar_as<float>(in.scalars[1]);
      return map(isa, x, y, n, [s0, hi](float v) { return clamp_of(v, s0, hi); });
    }
    case OpId::clamp_min: return map(isa, x, y, n, [s0](float v) { return clamp_min_of(v, s0); });
    case OpId::clamp_max: return map(isa, x, y, n, [s0](float v) { return clamp_max_of(v, s0); });
    case OpId::recip: return map(isa, x, y, n, [](float v) { return 1.0f / v; });
    case OpId::square: return map(isa, x, y, n, [](float v) { return v * v; });
    case OpId::relu: return map(isa, x, y, n, [](float v) { return relu_of(v); });
    case OpId::leaky_relu: {
      const float sl = static_cast<float>(in.params[0]);
      return map(isa, x, y, n, [sl](float v) { return leaky_relu_of(v, sl); });
    }
    default: throw Error(op_info(in.op).name, "internal: the bf16 register route was given an op it does not run");
  }
}

}  // namespace burn::cpu
