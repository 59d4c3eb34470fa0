// Exact integer GEMM, the kernel under quantized linear layers: C (int32) = A (M x K, u8 or s8) x B (K x N, s8),
// every product and every sum formed exactly on every path (no 16-bit saturation: see gemm_int8.cpp), and a
// dequantizing epilogue to f32 with per-tensor or per-row/per-column scales and zero points. B is packed once
// (PackedInt8Weights) and reused by every call, as a Linear layer's weight would be.
// BURN_CPU_INT8=scalar|avx2|vnni forces a path (tests, measurements). Private to the plugin.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace burn::cpu {

enum class Int8Path : uint8_t { Scalar, Avx2, Vnni };

const char* int8_path_name(Int8Path path);
// Whether this CPU can run `path` (Avx2 needs AVX2 and FMA; Vnni also AVX512-VNNI and AVX512VL).
bool int8_path_available(Int8Path path);
// The path every int8 GEMM takes: BURN_CPU_INT8 when set (ValueError for an unknown name, Unsupported for a path
// this CPU lacks), else the best one available.
Int8Path int8_path();
// Test hook: forces `path` (Unsupported when the CPU lacks it) and returns the path that was in use.
Int8Path set_int8_path(Int8Path path);

// B's packed layout: panels of kInt8PanelCols columns (the last one zero-padded), each panel K rounded up to
// kInt8KGroup (zero rows) in groups of 4 k: byte (panel p, group g, column j, r) = B[4g + r][16p + j] at offset
// p * k_padded * 16 + g * 64 + j * 4 + r. One 64-byte row of a group is what one VNNI vpdpbusd on zmm reads; the
// AVX2 and scalar tiles read it as two 8-column halves of 32 bytes.
constexpr int64_t kInt8PanelCols = 16;
constexpr int64_t kInt8KGroup = 4;

struct PackedInt8Weights {
  int64_t k = 0, n = 0;
  int64_t k_padded = 0;           // k rounded up to kInt8KGroup
  std::vector<int8_t> data;       // panels() * k_padded * kInt8PanelCols bytes, layout above
  std::vector<int32_t> col_sums;  // sum over k of B[k][j], for A's zero-point correction
  int64_t panels() const { return (n + kInt8PanelCols - 1) / kInt8PanelCols; }
};

// Packs row-major B (k x n, leading dim ldb >= n). ValueError for negative sizes, ldb < n or k beyond
// int8_gemm_max_k(true) (no A could then be multiplied by it exactly).
PackedInt8Weights pack_int8_weights(const int8_t* b, int64_t k, int64_t n, int64_t ldb);

// The largest K for which every dot product of A's type with s8 fits int32: 65,793 for u8 A (255 * 128 per
// product), 131,071 for s8 A (128 * 128). Longer products are a ValueError, never a wrapped sum.
int64_t int8_gemm_max_k(bool a_signed);

// C (m x n, leading dim ldc >= n) = A (m x b.k, leading dim lda >= b.k) x B, exact. Split over the pool.
void gemm_int8(const uint8_t* a, int64_t lda, int64_t m, const PackedInt8Weights& b, int32_t* c, int64_t ldc);
void gemm_int8(const int8_t* a, int64_t lda, int64_t m, const PackedInt8Weights& b, int32_t* c, int64_t ldc);

// C (m x n, leading dim ldc >= n) = sum_k (A[i][k] - za[i]) * (B[k][j] - zb[j]), the integer matmul of ONNX's
// MatMulInteger: za and zb empty (0), 1 value or one per row of A / column of B, within A's type's range and
// [-128, 127]; the zero-point terms are formed in int64 and the sum wrapped to int32 (two's complement, as an int32
// accumulator wraps), so it is exact whenever it fits int32. ValueError for a count or zero point out of range.
void gemm_int8_zp(const uint8_t* a, int64_t lda, int64_t m, const PackedInt8Weights& b, std::span<const int32_t> za,
                  std::span<const int32_t> zb, int32_t* c, int64_t ldc);
void gemm_int8_zp(const int8_t* a, int64_t lda, int64_t m, const PackedInt8Weights& b, std::span<const int32_t> za,
                  std::span<const int32_t> zb, int32_t* c, int64_t ldc);

// One operand's quantization: `scale` holds 1 value (per tensor) or one per row of A / per column of B;
// `zero_point` is empty (0), 1 value or one per row / column, within the operand's type's range.
struct Int8Quant {
  std::span<const float> scale;
  std::span<const int32_t> zero_point;
};
struct Int8Epilogue {
  Int8Quant a, b;
  std::span<const float> bias;  // empty or n values
};

// out[i][j] = sa[i] * sb[j] * (C[i][j] - za[i] * colsum_b[j] - zb[j] * rowsum_a[i] + K * za[i] * zb[j]) + bias[j]
// (per-tensor entries broadcast), i.e. sum_k sa (a - za) * sb (b - zb) + bias: the integer part exact, the
// scaling in double, rounded once to f32. ValueError for a count or zero point out of range.
void gemm_int8_dequant(const uint8_t* a, int64_t lda, int64_t m, const PackedInt8Weights& b, const Int8Epilogue& ep,
                       float* out, int64_t ldo);
void gemm_int8_dequant(const int8_t* a, int64_t lda, int64_t m, const PackedInt8Weights& b, const Int8Epilogue& ep,
                       float* out, int64_t ldo);

}  // namespace burn::cpu
