// The cpu kernels of the quant group. quantized_linear: each row of x quantized to u8 here, in the f32 arithmetic of
// burn-tensor's default body (src/defaults/quant.cpp), then gemm_int8_dequant against the weight packed once.
// matmul_integer: gemm_int8_zp against b packed once (a u8 b as s8 b - 128, its zero point moved alike).
// Packed weights are cached per weight storage and view (ops/pack_cache.hpp), packed at their first call.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "burn/tensor/shape_rules.hpp"
#include "cpu_backend.hpp"
#include "cpu_tensor.hpp"
#include "ops/gemm_int8.hpp"
#include "ops/pack_cache.hpp"
#include "ops/quant.hpp"

namespace burn::cpu {

namespace {

PackCache<PackedInt8Weights>& packed_cache() {
  static PackCache<PackedInt8Weights> cache(PackWhen::FirstCall, pack_cache_budget());
  return cache;
}

std::shared_ptr<const PackedInt8Weights> packed_weights(const CpuPtr& w) {
  const auto pack = [](const CpuPtr& v) {
    const CpuPtr wc = contiguous(v);
    const int64_t k = v->shape()[0], n = v->shape()[1];
    if (v->dtype() != DType::U8) return pack_int8_weights(wc->data<int8_t>(), k, n, n);
    // u8 b is packed as s8 b - 128; the caller moves its zero point by -128 too, so (b - zb) is unchanged.
    std::vector<int8_t> shifted(static_cast<size_t>(k * n));
    const uint8_t* src = wc->data<uint8_t>();
    for (size_t i = 0; i < shifted.size(); ++i) shifted[i] = static_cast<int8_t>(int32_t{src[i]} - 128);
    return pack_int8_weights(shifted.data(), k, n, n);
  };
  const auto bytes = [](const PackedInt8Weights& p) { return p.data.size() + p.col_sums.size() * sizeof(int32_t); };
  return packed_cache().get(w, pack, bytes);
}

// A contiguous f32 (or i32) copy of a small operand as a host vector.
template <typename T>
std::vector<T> host_values(const Prim& p, const char* op) {
  const CpuPtr c = contiguous(as_cpu(p, op));
  const T* d = c->data<T>();
  return std::vector<T>(d, d + c->shape().num_elements());
}

}  // namespace

uint64_t quantized_linear_packs() { return packed_cache().packs(); }

size_t quantized_linear_cached_weights() { return packed_cache().cached(); }

namespace {

// The default body's ops on a row's range, one rounding each: (hi - lo) / 255, clamped below; round(-lo / scale)
// clamped.
inline float row_scale(float lo, float hi) { return std::max((hi - lo) / 255.0f, 0x1p-126f); }
inline float row_zero_point(float lo, float scale) { return std::clamp(std::nearbyint(-lo / scale), 0.0f, 255.0f); }

// x86-64-v3 where the CPU has it: nearbyint becomes an inline vroundps instead of a libm call per element (same
// rounding, same bits).
__attribute__((target_clones("arch=x86-64-v3", "default"))) void quantize_rows_plain(
    const float* x, int64_t m, int64_t k, uint8_t* q, float* scales, int32_t* zero_points, uint8_t* bad_rows) {
  for (int64_t i = 0; i < m; ++i) {
    const float* r = x + i * k;
    float lo = 0.0f, hi = 0.0f;
    bool finite = true;
    for (int64_t j = 0; j < k; ++j) {
      const float v = r[j];
      if (!std::isfinite(v)) {
        finite = false;
        continue;  // quantized as 0, as the default body's mask_fill does
      }
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    const float scale = row_scale(lo, hi), zp = row_zero_point(lo, scale);
    uint8_t* qr = q + i * k;
    for (int64_t j = 0; j < k; ++j) {
      const float v = std::isfinite(r[j]) ? r[j] : 0.0f;
      qr[j] = static_cast<uint8_t>(std::clamp(std::nearbyint(v / scale) + zp, 0.0f, 255.0f));
    }
    scales[i] = scale;
    zero_points[i] = static_cast<int32_t>(zp);
    bad_rows[i] = finite ? 0 : 1;
  }
}

// GCC 12 takes the AVX-512 intrinsics' _mm512_undefined_* sources for uninitialized reads.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
// The same on AVX-512, 16 values a step (GCC leaves the range pass above scalar: its branch on non-finite values).
// Each lane's min/max starts at +0 and moves only to a strictly smaller/larger finite value, as the scalar loop's
// does, so the lanes' min/max is the row's, -0 never taken; v / scale, round to nearest even, + zp and the clamp
// are the scalar ops lane by lane.
__attribute__((target("avx512f"))) void quantize_rows_avx512(const float* x, int64_t m, int64_t k, uint8_t* q,
                                                             float* scales, int32_t* zero_points, uint8_t* bad_rows) {
  const __m512 inf = _mm512_set1_ps(std::numeric_limits<float>::infinity());
  for (int64_t i = 0; i < m; ++i) {
    const float* r = x + i * k;
    __m512 lo = _mm512_setzero_ps(), hi = lo;
    __mmask16 all_finite = 0xFFFF;
    for (int64_t j = 0; j < k; j += 16) {
      const __mmask16 in = k - j >= 16 ? __mmask16{0xFFFF} : static_cast<__mmask16>((1u << (k - j)) - 1);
      const __m512 v = _mm512_maskz_loadu_ps(in, r + j);
      const __mmask16 fin = _mm512_cmp_ps_mask(_mm512_abs_ps(v), inf, _CMP_LT_OQ);  // false for NaN and +-inf
      all_finite &= static_cast<__mmask16>(fin | ~in);
      lo = _mm512_mask_min_ps(lo, fin, v, lo);  // v < lo ? v : lo
      hi = _mm512_mask_max_ps(hi, fin, v, hi);  // v > hi ? v : hi
    }
    const float row_lo = _mm512_reduce_min_ps(lo);
    const float scale = row_scale(row_lo, _mm512_reduce_max_ps(hi)), zp = row_zero_point(row_lo, scale);
    const __m512 vs = _mm512_set1_ps(scale), vz = _mm512_set1_ps(zp), top = _mm512_set1_ps(255.0f);
    uint8_t* qr = q + i * k;
    for (int64_t j = 0; j < k; j += 16) {
      const __mmask16 in = k - j >= 16 ? __mmask16{0xFFFF} : static_cast<__mmask16>((1u << (k - j)) - 1);
      const __m512 raw = _mm512_maskz_loadu_ps(in, r + j);
      const __m512 v = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(_mm512_abs_ps(raw), inf, _CMP_LT_OQ), raw);
      const __m512 t =
          _mm512_add_ps(_mm512_roundscale_ps(_mm512_div_ps(v, vs), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), vz);
      const __m512 c = _mm512_min_ps(_mm512_max_ps(t, _mm512_setzero_ps()), top);
      _mm512_mask_cvtepi32_storeu_epi8(qr + j, in, _mm512_cvtps_epi32(c));
    }
    scales[i] = scale;
    zero_points[i] = static_cast<int32_t>(zp);
    bad_rows[i] = all_finite == 0xFFFF ? 0 : 1;
  }
}
#pragma GCC diagnostic pop

}  // namespace

void quantize_rows_u8_portable(const float* x, int64_t m, int64_t k, uint8_t* q, float* scales, int32_t* zero_points,
                               uint8_t* bad_rows) {
  quantize_rows_plain(x, m, k, q, scales, zero_points, bad_rows);
}

void quantize_rows_u8(const float* x, int64_t m, int64_t k, uint8_t* q, float* scales, int32_t* zero_points,
                      uint8_t* bad_rows) {
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  (avx512 ? quantize_rows_avx512 : quantize_rows_plain)(x, m, k, q, scales, zero_points, bad_rows);
}

Prim CpuBackend::quantized_linear(Prim x, Prim w_values, Prim w_scales, Prim w_zero_points, Prim bias) {
  static constexpr const char* op = "quantized_linear";
  const Shape out_shape = shape_rules::quantized_linear(x, w_values, w_scales, w_zero_points, bias, op);
  const int64_t k = w_values->shape()[0], n = w_values->shape()[1];
  // The composite takes what the int8 kernel does not: f16 and bf16 x, and K past the exact int32 range.
  const bool ours = x->dtype() == DType::F32 && k <= int8_gemm_max_k(false);
  if (!ours)
    return Backend::quantized_linear(std::move(x), std::move(w_values), std::move(w_scales), std::move(w_zero_points),
                                     std::move(bias));
  const int64_t m = x->shape().num_elements() / k;
  CpuPtr out = alloc(out_shape, DType::F32);
  if (m == 0 || n == 0) {
    std::fill_n(out->data<float>(), out_shape.num_elements(), 0.0f);
    return out;
  }
  const CpuPtr xc = contiguous(as_cpu(x, op));
  const std::shared_ptr<const PackedInt8Weights> packed = packed_weights(as_cpu(w_values, op));

  std::vector<uint8_t> qa(static_cast<size_t>(m * k)), bad(static_cast<size_t>(m));
  std::vector<float> sa(static_cast<size_t>(m));
  std::vector<int32_t> za(static_cast<size_t>(m));
  parallel_for(m, std::max<int64_t>(1, 65536 / k), [&](int64_t b, int64_t e) {
    quantize_rows_u8(xc->data<float>() + b * k, e - b, k, qa.data() + b * k, sa.data() + b, za.data() + b,
                     bad.data() + b);
  });
  const std::vector<float> sb = host_values<float>(w_scales, op);
  const std::vector<int32_t> zb = w_zero_points ? host_values<int32_t>(w_zero_points, op) : std::vector<int32_t>{};
  const std::vector<float> bv = bias ? host_values<float>(bias, op) : std::vector<float>{};
  Int8Epilogue ep;
  ep.a = {sa, za};
  ep.b = {sb, zb};
  ep.bias = bv;
  float* o = out->data<float>();
  gemm_int8_dequant(qa.data(), k, m, *packed, ep, o, n);
  for (int64_t i = 0; i < m; ++i)
    if (bad[static_cast<size_t>(i)]) std::fill_n(o + i * n, n, std::numeric_limits<float>::quiet_NaN());
  return out;
}

Prim CpuBackend::matmul_integer(Prim a, Prim b, Prim a_zero_points, Prim b_zero_points) {
  static constexpr const char* op = "matmul_integer";
  const Shape out_shape = shape_rules::matmul_integer(a, b, a_zero_points, b_zero_points, op);
  const bool a_signed = a->dtype() == DType::I8;
  const int64_t m = a->shape()[a->shape().rank() - 2], k = b->shape()[0], n = b->shape()[1];
  const bool ours = k <= int8_gemm_max_k(a_signed);
  // Zero points outside their operand's range (possible through the op, never from ONNX) go to the composite too.
  std::vector<int32_t> za = ours && a_zero_points ? host_values<int32_t>(a_zero_points, op) : std::vector<int32_t>{};
  std::vector<int32_t> zb = ours && b_zero_points ? host_values<int32_t>(b_zero_points, op) : std::vector<int32_t>{};
  const int32_t za_min = a_signed ? -128 : 0, za_max = a_signed ? 127 : 255;
  const int32_t zb_min = b->dtype() == DType::I8 ? -128 : 0, zb_max = b->dtype() == DType::I8 ? 127 : 255;
  const auto within = [](const std::vector<int32_t>& v, int32_t lo, int32_t hi) {
    return std::all_of(v.begin(), v.end(), [&](int32_t z) { return z >= lo && z <= hi; });
  };
  if (!ours || !within(za, za_min, za_max) || !within(zb, zb_min, zb_max))
    return Backend::matmul_integer(std::move(a), std::move(b), std::move(a_zero_points), std::move(b_zero_points));
  const int64_t rows = a->shape().num_elements() / k;
  CpuPtr out = alloc(out_shape, DType::I32);
  if (rows == 0 || n == 0) {
    std::fill_n(out->data<int32_t>(), out_shape.num_elements(), 0);
    return out;
  }
  if (b->dtype() == DType::U8) {
    if (zb.empty()) zb.push_back(0);
    for (int32_t& z : zb) z -= 128;
  }
  // Per-row zero points of a batched a repeat for every matrix of the batch.
  if (za.size() > 1 && rows != m) {
    std::vector<int32_t> all(static_cast<size_t>(rows));
    for (int64_t i = 0; i < rows; ++i) all[static_cast<size_t>(i)] = za[static_cast<size_t>(i % m)];
    za = std::move(all);
  }
  const CpuPtr ac = contiguous(as_cpu(a, op));
  const std::shared_ptr<const PackedInt8Weights> packed = packed_weights(as_cpu(b, op));
  int32_t* o = out->data<int32_t>();
  if (a_signed)
    gemm_int8_zp(ac->data<int8_t>(), k, rows, *packed, za, zb, o, n);
  else
    gemm_int8_zp(ac->data<uint8_t>(), k, rows, *packed, za, zb, o, n);
  return out;
}

}  // namespace burn::cpu
