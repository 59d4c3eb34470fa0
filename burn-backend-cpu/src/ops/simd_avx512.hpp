// AVX-512 forms of simd_avx2.hpp's table exp: exp16 is exp8 on 16 lanes, operation for operation (the same
// reduction, polynomial, table and scaling, and the same test choosing the normal or the full-range
// arithmetic), so every lane gets exp8's bits. The f32 exp loop (float_math.cpp) and the bf16 register route
// (half_map.cpp) take it where the CPU has AVX512F; each caller carries BURN_AVX512_FMA and runs after
// cpu_has_avx512f() said yes.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "ops/math_util.hpp"
#include "ops/simd_avx2.hpp"

namespace burn::cpu {

#define BURN_AVX512_FMA __attribute__((target("avx512f,avx2,fma")))

inline bool cpu_has_avx512f() {
  static const bool ok = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && cpu_has_avx2_fma();
  }();
  return ok;
}

// The tables of 2^(j/8) twice over: vpermps on zmm reads the low 4 bits of each index, vpermps on ymm the
// low 3, so entry j and j + 8 must agree.
namespace exp_table {
inline constexpr float kPow2Eighths16[16] = {kPow2Eighths[0], kPow2Eighths[1], kPow2Eighths[2], kPow2Eighths[3],
                                             kPow2Eighths[4], kPow2Eighths[5], kPow2Eighths[6], kPow2Eighths[7],
                                             kPow2Eighths[0], kPow2Eighths[1], kPow2Eighths[2], kPow2Eighths[3],
                                             kPow2Eighths[4], kPow2Eighths[5], kPow2Eighths[6], kPow2Eighths[7]};
inline constexpr int32_t kPow2EighthsLessIndex16[16] = {
    kPow2EighthsLessIndex[0], kPow2EighthsLessIndex[1], kPow2EighthsLessIndex[2], kPow2EighthsLessIndex[3],
    kPow2EighthsLessIndex[4], kPow2EighthsLessIndex[5], kPow2EighthsLessIndex[6], kPow2EighthsLessIndex[7],
    kPow2EighthsLessIndex[0], kPow2EighthsLessIndex[1], kPow2EighthsLessIndex[2], kPow2EighthsLessIndex[3],
    kPow2EighthsLessIndex[4], kPow2EighthsLessIndex[5], kPow2EighthsLessIndex[6], kPow2EighthsLessIndex[7]};
}  // namespace exp_table

// exp_table_reduce8 on 16 lanes.
BURN_AVX512_FMA [[gnu::always_inline]] inline __m512 exp_table_reduce16(__m512 x, __m512& t, __m512& kf) {
  using namespace exp_table;
  const __m512 shift = _mm512_set1_ps(exp_const::kShift);
  t = _mm512_fmadd_ps(x, _mm512_set1_ps(kEightOverLn2), shift);
  kf = _mm512_sub_ps(t, shift);
  const __m512 r = _mm512_fnmadd_ps(kf, _mm512_set1_ps(kLn2Over8Hi), x);
  return _mm512_fnmadd_ps(kf, _mm512_set1_ps(kLn2Over8Lo), r);
}

// exp_table_poly8 on 16 lanes.
BURN_AVX512_FMA [[gnu::always_inline]] inline __m512 exp_table_poly16(__m512 r) {
  using namespace exp_table;
  const __m512 r2 = _mm512_mul_ps(r, r);
  const __m512 q =
      _mm512_fmadd_ps(r2, _mm512_set1_ps(kC4), _mm512_fmadd_ps(r, _mm512_set1_ps(kC3), _mm512_set1_ps(0.5f)));
  return _mm512_fmadd_ps(r2, q, r);
}

// exp8_full_range on 16 lanes.
BURN_AVX512_FMA [[gnu::always_inline]] inline __m512 exp16_full_range(__m512 x) {
  // vminps/vmaxps return their second operand when either is NaN, as on ymm.
  x = _mm512_min_ps(_mm512_set1_ps(exp_const::kHi), x);
  x = _mm512_max_ps(_mm512_set1_ps(exp_const::kLo), x);
  __m512 t, kf;
  const __m512 r = exp_table_reduce16(x, t, kf);
  const __m512 tab = _mm512_permutexvar_ps(_mm512_castps_si512(t), _mm512_loadu_ps(exp_table::kPow2Eighths16));
  const __m512 y = _mm512_fmadd_ps(tab, exp_table_poly16(r), tab);
  const __m512i e = _mm512_srai_epi32(_mm512_cvtps_epi32(kf), 3);
  const __m512i e1 = _mm512_srai_epi32(e, 1);
  const __m512i e2 = _mm512_sub_epi32(e, e1);
  const __m512 a = _mm512_castsi512_ps(_mm512_add_epi32(_mm512_castps_si512(y), _mm512_slli_epi32(e1, 23)));
  const __m512 s2 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(e2, _mm512_set1_epi32(127)), 23));
  return _mm512_mul_ps(a, s2);
}

// exp8_normal on 16 lanes.
BURN_AVX512_FMA [[gnu::always_inline]] inline __m512 exp16_normal(__m512 x) {
  __m512 t, kf;
  const __m512 r = exp_table_reduce16(x, t, kf);
  const __m512i ti = _mm512_castps_si512(t);
  const __m512i tab = _mm512_permutexvar_epi32(ti, _mm512_loadu_si512(exp_table::kPow2EighthsLessIndex16));
  const __m512 scale = _mm512_castsi512_ps(_mm512_add_epi32(_mm512_slli_epi32(ti, 20), tab));
  return _mm512_fmadd_ps(scale, exp_table_poly16(r), scale);
}

// The lanes beyond +-kExpNormal (exp8's test; NaN compares false).
BURN_AVX512_FMA [[gnu::always_inline]] inline __mmask16 exp16_outside_normal(__m512 x) {
  const __m512 ax = _mm512_castsi512_ps(_mm512_and_epi32(_mm512_castps_si512(x), _mm512_set1_epi32(0x7fffffff)));
  return _mm512_cmp_ps_mask(ax, _mm512_set1_ps(kExpNormal), _CMP_GT_OQ);
}

// exp8 on 16 lanes: exp16_normal unless a lane is beyond +-kExpNormal. The choice is per 16 lanes rather than
// per 8; both forms give the same bits wherever the normal one applies, so no lane's result depends on it.
BURN_AVX512_FMA [[gnu::always_inline]] inline __m512 exp16(__m512 x) {
  if (exp16_outside_normal(x) != 0) [[unlikely]]
    return exp16_full_range(x);
  return exp16_normal(x);
}

}  // namespace burn::cpu
