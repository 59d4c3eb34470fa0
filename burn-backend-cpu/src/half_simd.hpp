// AVX2 building blocks of the bf16 conversions, shared by the bulk conversions (half_convert.cpp) and the
// register route's loops (half_map.cpp): convert.hpp's bfloat_to_float and float_to_bfloat on 8 lanes, the
// same bits. Each function carries its target; callers run them only after the CPU said it has AVX2.
// Private to the plugin.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace burn::cpu {

#define BURN_HALF_SIMD_AVX2 __attribute__((target("avx2")))

// 8 bf16 values as f32 (a shift: exact).
BURN_HALF_SIMD_AVX2 [[gnu::always_inline]] inline __m256 widen_bf16x8_avx2(const uint16_t* in) {
  const __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in)));
  return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
}

// float_to_bfloat on 8 lanes, the result in the low 16 bits of each 32-bit lane.
BURN_HALF_SIMD_AVX2 [[gnu::always_inline]] inline __m256i round_bf16_avx2(__m256 v) {
  const __m256i u = _mm256_castps_si256(v);
  const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
  const __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7fff)), odd), 16);
  const __m256i quiet = _mm256_or_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(0x40));
  // |u| > inf bits, as a signed compare: both sides are below 2^31.
  const __m256i nan =
      _mm256_cmpgt_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff)), _mm256_set1_epi32(0x7f800000));
  return _mm256_blendv_epi8(rounded, quiet, nan);
}

// 16 f32 values (lo: the first 8) rounded to bf16 and stored, in order.
BURN_HALF_SIMD_AVX2 [[gnu::always_inline]] inline void narrow_bf16x16_avx2(__m256 lo, __m256 hi, uint16_t* out) {
  // packus works within 128-bit halves (lo0 hi0 lo1 hi1); the permute puts them in order. No lane
  // saturates: every value is below 2^16.
  const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(round_bf16_avx2(lo), round_bf16_avx2(hi)), 0xd8);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), packed);
}

}  // namespace burn::cpu
