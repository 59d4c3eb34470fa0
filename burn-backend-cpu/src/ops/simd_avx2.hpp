// AVX2/FMA building blocks of the kernels that are vectorised by hand rather than left to GCC (the f32
// exp of exp and softmax, the blocked convolutions). Every function that uses them carries
// BURN_AVX2_FMA itself and runs only after cpu_has_avx2_fma() said yes, so the plugin still loads and
// runs on any x86-64.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "ops/math_util.hpp"

namespace burn::cpu {

#define BURN_AVX2_FMA __attribute__((target("avx2,fma")))

inline bool cpu_has_avx2_fma() {
  static const bool ok = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return ok;
}

// The mask of the first min(k, 8) lanes, for the masked loads and stores of a loop's tail.
BURN_AVX2_FMA [[gnu::always_inline]] inline __m256i tail_mask8(int64_t k) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(std::min<int64_t>(k, 8))),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// The table exp's reduction, shared by exp8 and exp8_nonpos: x = (k/8) ln 2 + r with k = round(8x / ln 2),
// so |r| <= ln2/16. Returns r; `t` is 1.5 * 2^23 + k, whose low bits hold k (two's complement), and `kf`
// is k as a float (NaN for a NaN x). Meaningful for x within exp8's clamps; exp8_nonpos zeroes what it
// gives below them.
BURN_AVX2_FMA [[gnu::always_inline]] inline __m256 exp_table_reduce8(__m256 x, __m256& t, __m256& kf) {
  using namespace exp_table;
  const __m256 shift = _mm256_set1_ps(exp_const::kShift);
  t = _mm256_fmadd_ps(x, _mm256_set1_ps(kEightOverLn2), shift);
  kf = _mm256_sub_ps(t, shift);
  // r = x - k ln2/8 with ln2/8 in two parts; the first has 12 bits, so k times it is exact.
  const __m256 r = _mm256_fnmadd_ps(kf, _mm256_set1_ps(kLn2Over8Hi), x);
  return _mm256_fnmadd_ps(kf, _mm256_set1_ps(kLn2Over8Lo), r);
}

// e^r - 1 for |r| <= ln2/16, Taylor's degree-4 polynomial (exact to 1e-9 there): s e^r is then
// fma(s, exp_table_poly8(r), s) with one rounding.
BURN_AVX2_FMA [[gnu::always_inline]] inline __m256 exp_table_poly8(__m256 r) {
  using namespace exp_table;
  const __m256 r2 = _mm256_mul_ps(r, r);
  const __m256 q =
      _mm256_fmadd_ps(r2, _mm256_set1_ps(kC4), _mm256_fmadd_ps(r, _mm256_set1_ps(kC3), _mm256_set1_ps(0.5f)));
  return _mm256_fmadd_ps(r2, q, r);
}

// The scale 2^(k/8) of the table exp as bits, for k/8 in the normal exponent range: t << 20 is k << 20
// modulo 2^32, which puts floor(k/8) in the exponent field and k mod 8 in the three bits below it; the
// table entry takes those away again while it adds 2^((k mod 8)/8).
BURN_AVX2_FMA [[gnu::always_inline]] inline __m256 exp_table_scale8(__m256 t) {
  const __m256i ti = _mm256_castps_si256(t);
  const __m256i tab = _mm256_permutevar8x32_epi32(
      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(exp_table::kPow2EighthsLessIndex)), ti);
  return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_slli_epi32(ti, 20), tab));
}

// exp8 for lanes anywhere: clamped, and 2^floor(k/8) in two factors, so that it reaches the denormals
// (down to 2^-151) and overflows to inf (2^128).
BURN_AVX2_FMA [[gnu::always_inline]] inline __m256 exp8_full_range(__m256 x) {
  // minps/maxps return their second operand when either is NaN, so NaN passes through both clamps.
  x = _mm256_min_ps(_mm256_set1_ps(exp_const::kHi), x);
  x = _mm256_max_ps(_mm256_set1_ps(exp_const::kLo), x);
  __m256 t, kf;
  const __m256 r = exp_table_reduce8(x, t, kf);
  // vpermps reads the low 3 bits of each index: those of t are k mod 8.
  const __m256 tab = _mm256_permutevar8x32_ps(_mm256_loadu_ps(exp_table::kPow2Eighths), _mm256_castps_si256(t));
  const __m256 y = _mm256_fmadd_ps(tab, exp_table_poly8(r), tab);  // 2^((k mod 8)/8) e^r, in [0.95, 2)
  // y * 2^e1 by an exponent add (exact, e1 in [-76, 64] keeps it normal), then times 2^e2. From kf, not
  // t: for NaN the conversion gives INT_MIN, whose halves scale by 2^0 and 1, so NaN stays NaN.
  const __m256i e = _mm256_srai_epi32(_mm256_cvtps_epi32(kf), 3);
  const __m256i e1 = _mm256_srai_epi32(e, 1);
  const __m256i e2 = _mm256_sub_epi32(e, e1);
  const __m256 a = _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(y), _mm256_slli_epi32(e1, 23)));
  const __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(e2, _mm256_set1_epi32(127)), 23));
  return _mm256_mul_ps(a, s2);
}

// exp8 where no lane is beyond +-kExpNormal (NaN lanes are fine): every result is normal, so no clamp
// and no two-factor scaling; the scale is made as bits and the final fma applies it, 12 instructions.
inline constexpr float kExpNormal = 87.0f;
BURN_AVX2_FMA [[gnu::always_inline]] inline __m256 exp8_normal(__m256 x) {
  __m256 t, kf;
  const __m256 r = exp_table_reduce8(x, t, kf);
  const __m256 scale = exp_table_scale8(t);
  return _mm256_fmadd_ps(scale, exp_table_poly8(r), scale);
}

// The f32 exp of the exp op on 8 lanes (eager, the fused executor's register chains and its tile
// interpreter all call it; vexp_table in math_util.hpp is the same arithmetic one lane at a time, for
// CPUs without AVX2). Within 0.89 ulp of exp over every float (a throwaway exhaustive run), denormal
// results within 0.93 of their spacing, +inf past ln(FLT_MAX), NaN kept. When every lane is within
// |x| <= 87, exp8_normal (15 instructions with the test); otherwise exp8_full_range's 21. Both give the same
// bits there, as scaling by a power of two commutes with the one rounding while the result is normal.
BURN_AVX2_FMA [[gnu::always_inline]] inline __m256 exp8(__m256 x) {
  const __m256 ax = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
  if (_mm256_movemask_ps(_mm256_cmp_ps(ax, _mm256_set1_ps(kExpNormal), _CMP_GT_OQ)) != 0) [[unlikely]]
    return exp8_full_range(x);
  return exp8_normal(x);
}

// exp(d) for d <= 0 or NaN (softmax's x - max), 14 instructions: exp8's scale made as bits
// (exp_table_scale8) for every lane, with no clamp and no test. For results of 2^-125 and up this gives
// exp8's bits; below (k < -1000, and -inf) it returns 0, as in a flush-to-zero mode, which also covers
// every d below exp8's clamp. NaN stays NaN (kf is NaN, so it is kept, and the fma gives NaN whatever
// the scale).
BURN_AVX2_FMA [[gnu::always_inline]] inline __m256 exp8_nonpos(__m256 d) {
  __m256 t, kf;
  const __m256 r = exp_table_reduce8(d, t, kf);
  const __m256 scale = exp_table_scale8(t);
  const __m256 y = _mm256_fmadd_ps(scale, exp_table_poly8(r), scale);
  return _mm256_andnot_ps(_mm256_cmp_ps(kf, _mm256_set1_ps(-1000.0f), _CMP_LT_OQ), y);
}

}  // namespace burn::cpu
