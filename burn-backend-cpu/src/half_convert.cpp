// The f16/bf16 <-> f32 conversion paths and their run-time choice (see half_convert.hpp). Each vector
// function carries its own target attribute and runs only after the CPU said it can, so the plugin
// loads on any x86-64.
#include "half_convert.hpp"

#include <immintrin.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "burn/tensor/error.hpp"
#include "convert.hpp"
#include "half_simd.hpp"
#include "kernel_choice.hpp"

// GCC 12 warns that the AVX-512 intrinsics' own _mm512_undefined_* placeholders may be used uninitialised
// (they are masked out); nothing of this file's is.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace burn::cpu {

namespace {

// ---- scalar reference: the inline conversions, one element at a time --------------------------------

void widen_f16_scalar(const uint16_t* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = half_to_float(in[i]);
}
void narrow_f16_scalar(const float* in, uint16_t* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = float_to_half(in[i]);
}
void widen_bf16_scalar(const uint16_t* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = bfloat_to_float(in[i]);
}
void narrow_bf16_scalar(const float* in, uint16_t* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = float_to_bfloat(in[i]);
}

// ---- AVX2 + F16C: 8 lanes --------------------------------------------------------------------------

#define BURN_HALF_AVX2 __attribute__((target("avx2,f16c")))

BURN_HALF_AVX2 void widen_f16_avx2(const uint16_t* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))));
  widen_f16_scalar(in + i, out + i, n - i);
}
BURN_HALF_AVX2 void narrow_f16_avx2(const float* in, uint16_t* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  narrow_f16_scalar(in + i, out + i, n - i);
}
BURN_HALF_AVX2 void widen_bf16_avx2(const uint16_t* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, widen_bf16x8_avx2(in + i));
  widen_bf16_scalar(in + i, out + i, n - i);
}
BURN_HALF_AVX2 void narrow_bf16_avx2(const float* in, uint16_t* out, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) narrow_bf16x16_avx2(_mm256_loadu_ps(in + i), _mm256_loadu_ps(in + i + 8), out + i);
  narrow_bf16_scalar(in + i, out + i, n - i);
}

// ---- AVX-512: 16 lanes -----------------------------------------------------------------------------

#define BURN_HALF_AVX512 __attribute__((target("avx512f")))
#define BURN_HALF_AVX512_BF16 __attribute__((target("avx512f,avx512bf16")))

BURN_HALF_AVX512 void widen_f16_avx512(const uint16_t* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_ps(out + i, _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i))));
  widen_f16_scalar(in + i, out + i, n - i);
}
BURN_HALF_AVX512 void narrow_f16_avx512(const float* in, uint16_t* out, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                        _mm512_cvtps_ph(_mm512_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  narrow_f16_scalar(in + i, out + i, n - i);
}
BURN_HALF_AVX512 void widen_bf16_avx512(const uint16_t* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512i w = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i)));
    _mm512_storeu_si512(out + i, _mm512_slli_epi32(w, 16));
  }
  widen_bf16_scalar(in + i, out + i, n - i);
}
// float_to_bfloat on 16 lanes, in the low 16 bits of each 32-bit lane.
BURN_HALF_AVX512 [[gnu::always_inline]] inline __m512i round_bf16_avx512(__m512i u) {
  const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
  const __m512i rounded = _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7fff)), odd), 16);
  const __m512i quiet = _mm512_or_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(0x40));
  const __mmask16 nan =
      _mm512_cmpgt_epu32_mask(_mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff)), _mm512_set1_epi32(0x7f800000));
  return _mm512_mask_blend_epi32(nan, rounded, quiet);
}
BURN_HALF_AVX512 void narrow_bf16_avx512(const float* in, uint16_t* out, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512i r = round_bf16_avx512(_mm512_castps_si512(_mm512_loadu_ps(in + i)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm512_cvtepi32_epi16(r));
  }
  narrow_bf16_scalar(in + i, out + i, n - i);
}
// vcvtneps2bf16 rounds to nearest even and quiets NaNs as float_to_bfloat does, but treats f32 denormal
// inputs as zero; the lanes holding one (rare) take the integer rounding instead.
BURN_HALF_AVX512_BF16 void narrow_bf16_avx512bf16(const float* in, uint16_t* out, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 v = _mm512_loadu_ps(in + i);
    __m256i r = reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(v));
    const __m512i u = _mm512_castps_si512(v);
    // Denormal: 1 <= |u| <= 0x7fffff, i.e. |u| - 1 < 0x7fffff unsigned.
    const __mmask16 den = _mm512_cmplt_epu32_mask(
        _mm512_sub_epi32(_mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff)), _mm512_set1_epi32(1)),
        _mm512_set1_epi32(0x7fffff));
    if (den) {
      const __m512i exact = round_bf16_avx512(u);
      r = _mm512_cvtepi32_epi16(_mm512_mask_blend_epi32(den, _mm512_cvtepu16_epi32(r), exact));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), r);
  }
  narrow_bf16_scalar(in + i, out + i, n - i);
}

// ---- the choice --------------------------------------------------------------------------------------

using Widen = void (*)(const uint16_t*, float*, int64_t);
using Narrow = void (*)(const float*, uint16_t*, int64_t);
struct Path {
  Widen widen_f16, widen_bf16;
  Narrow narrow_f16, narrow_bf16;
};

bool cpu_has(const char* feature) {
  __builtin_cpu_init();
  if (std::strcmp(feature, "avx2") == 0) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
  if (std::strcmp(feature, "avx512f") == 0) return __builtin_cpu_supports("avx512f");
  if (std::strcmp(feature, "avx512bf16") == 0) return __builtin_cpu_supports("avx512bf16");
  return false;
}

Path path_of(HalfIsa isa) {
  switch (isa) {
    case HalfIsa::Avx512:
      return {widen_f16_avx512, widen_bf16_avx512, narrow_f16_avx512,
              half_isa_has_bf16_instructions() ? narrow_bf16_avx512bf16 : narrow_bf16_avx512};
    case HalfIsa::Avx2: return {widen_f16_avx2, widen_bf16_avx2, narrow_f16_avx2, narrow_bf16_avx2};
    case HalfIsa::Scalar: break;
  }
  return {widen_f16_scalar, widen_bf16_scalar, narrow_f16_scalar, narrow_bf16_scalar};
}

const char* half_variant_name(int v) {
  switch (static_cast<HalfIsa>(v)) {
    case HalfIsa::Scalar: return "scalar";
    case HalfIsa::Avx2: return "avx2";
    case HalfIsa::Avx512: return "avx512";
  }
  return "?";
}

bool half_variant_available(int v) {
  switch (static_cast<HalfIsa>(v)) {
    case HalfIsa::Scalar: return true;
    case HalfIsa::Avx2: return cpu_has("avx2");
    case HalfIsa::Avx512: return cpu_has("avx512f");
  }
  return false;
}

const char* half_variant_requirement(int v) {
  return static_cast<HalfIsa>(v) == HalfIsa::Avx2 ? "AVX2 and F16C" : "AVX512F";
}

constexpr KernelChoiceSpec kHalfIsaSpec{
    "BURN_CPU_HALF",   "set_half_isa",         "conversion path",       "conversions", 3,
    half_variant_name, half_variant_available, half_variant_requirement};
KernelChoice g_isa{kHalfIsaSpec};

const Path& current_path() {
  static const Path paths[3] = {path_of(HalfIsa::Scalar), path_of(HalfIsa::Avx2), path_of(HalfIsa::Avx512)};
  return paths[static_cast<int>(half_isa())];
}

}  // namespace

const char* half_isa_name(HalfIsa isa) { return half_variant_name(static_cast<int>(isa)); }

bool half_isa_available(HalfIsa isa) { return half_variant_available(static_cast<int>(isa)); }

bool half_isa_has_bf16_instructions() {
  static const bool ok = cpu_has("avx512f") && cpu_has("avx512bf16");
  return ok;
}

HalfIsa half_isa() { return static_cast<HalfIsa>(g_isa.get()); }

HalfIsa set_half_isa(HalfIsa isa) { return static_cast<HalfIsa>(g_isa.set(static_cast<int>(isa))); }

void widen_to_f32(DType from, const uint16_t* in, float* out, int64_t n) {
  const Path& p = current_path();
  (from == DType::F16 ? p.widen_f16 : p.widen_bf16)(in, out, n);
}

void narrow_from_f32(DType to, const float* in, uint16_t* out, int64_t n) {
  const Path& p = current_path();
  (to == DType::F16 ? p.narrow_f16 : p.narrow_bf16)(in, out, n);
}

}  // namespace burn::cpu
