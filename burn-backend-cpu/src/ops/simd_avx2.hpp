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

// The table exp's reduction and polynomial, shared by exp8 and exp8_nonpos: x = (k/8) ln 2 + r with
// k = round(8x / ln 2), so |r| <= ln2/16; 2^((k mod 8)/8) comes from an 8-entry table in one vpermps,
// and e^r from Taylor's degree-4 polynomial (exact to 1e-9 there). Returns y = 2^((k mod 8)/8) e^r, in
// [0.95, 2), and k as a float in `kf` (NaN for a NaN x). For x in [-104, 89].
BURN_AVX2_FMA [[gnu::always_inline]] inline __m256 exp_table_core8(__m256 x, __m256& kf) {
  using namespace exp_table;
  const __m256 shift = _mm256_set1_ps(exp_const::kShift);
  const __m256 t = _mm256_fmadd_ps(x, _mm256_set1_ps(kEightOverLn2), shift);
  kf = _mm256_sub_ps(t, shift);
  // r = x - k ln2/8 with ln2/8 in two parts; the first has 12 bits, so k times it is exact.
  __m256 r = _mm256_fnmadd_ps(kf, _mm256_set1_ps(kLn2Over8Hi), x);
  r = _mm256_fnmadd_ps(kf, _mm256_set1_ps(kLn2Over8Lo), r);
  // vpermps reads the low 3 bits of each index: those of t are k mod 8.
  const __m256 pow2_eighths = _mm256_loadu_ps(kPow2Eighths);
  const __m256 tab = _mm256_permutevar8x32_ps(pow2_eighths, _mm256_castps_si256(t));
  const __m256 r2 = _mm256_mul_ps(r, r);
  const __m256 q =
      _mm256_fmadd_ps(r2, _mm256_set1_ps(kC4), _mm256_fmadd_ps(r, _mm256_set1_ps(kC3), _mm256_set1_ps(0.5f)));
  return _mm256_fmadd_ps(tab, _mm256_fmadd_ps(r2, q, r), tab);  // tab * e^r
}

// The f32 exp of the exp op on 8 lanes (eager, the fused executor's register chains and its tile
// interpreter all call it; vexp_table in math_util.hpp is the same arithmetic one lane at a time, for
// CPUs without AVX2). Within 0.89 ulp of exp over every float (a throwaway exhaustive run), denormal
// results within 0.93 of their spacing, +inf past ln(FLT_MAX), NaN kept. 21 vector instructions
// against the 24 of Cephes' degree-7 polynomial this replaced, and a shorter dependency chain: the
// 16M exp chain 15% faster from memory, 13% from L1 (2026-11-27).
BURN_AVX2_FMA [[gnu::always_inline]] inline __m256 exp8(__m256 x) {
  // minps/maxps return their second operand when either is NaN, so NaN passes through both clamps.
  x = _mm256_min_ps(_mm256_set1_ps(exp_const::kHi), x);
  x = _mm256_max_ps(_mm256_set1_ps(exp_const::kLo), x);
  __m256 kf;
  const __m256 y = exp_table_core8(x, kf);
  // 2^floor(k/8) in two factors, so that it reaches the denormals (down to 2^-151) and overflows to inf
  // (2^128): y * 2^e1 by an exponent add (exact, e1 in [-76, 64] keeps it normal), then times 2^e2. From
  // kf, not t: for NaN the conversion gives INT_MIN, whose halves scale by 2^0 and 1, so NaN stays NaN.
  const __m256i e = _mm256_srai_epi32(_mm256_cvtps_epi32(kf), 3);
  const __m256i e1 = _mm256_srai_epi32(e, 1);
  const __m256i e2 = _mm256_sub_epi32(e, e1);
  const __m256 a = _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(y), _mm256_slli_epi32(e1, 23)));
  const __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(e2, _mm256_set1_epi32(127)), 23));
  return _mm256_mul_ps(a, s2);
}

// exp(d) for d <= 0 or NaN (softmax's x - max): exp8's arithmetic with one clamp and 2^floor(k/8)
// added to the exponent field in one step, 17 instructions. Results below 2^-125 (2.3e-38, a
// probability nobody reads) come out 0, as in a flush-to-zero mode; everywhere else it gives exp8's
// bits (both scalings are exact for normal results). NaN stays NaN, -inf gives 0.
BURN_AVX2_FMA [[gnu::always_inline]] inline __m256 exp8_nonpos(__m256 d) {
  // maxps returns its second operand when either is NaN, so NaN passes the clamp.
  d = _mm256_max_ps(_mm256_set1_ps(exp_const::kLo), d);
  __m256 kf;
  const __m256 y = exp_table_core8(d, kf);
  // From kf, not t: for NaN the conversion gives INT_MIN, whose shifted exponent adds nothing.
  const __m256i e = _mm256_srai_epi32(_mm256_cvtps_epi32(kf), 3);
  const __m256 scaled = _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(y), _mm256_slli_epi32(e, 23)));
  // Past k = -1000 (e < -125) y * 2^e may be denormal, which the exponent add cannot make: 0 there.
  return _mm256_andnot_ps(_mm256_cmp_ps(kf, _mm256_set1_ps(-1000.0f), _CMP_LT_OQ), scaled);
}

}  // namespace burn::cpu
