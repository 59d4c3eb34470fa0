// f32 GEMM against a right operand packed once: C = A B where B (a Linear layer's weight, any matmul's
// constant right operand) is laid out ahead of time as the blocked conv kernels' micro-panels, so that each
// call streams it once from memory instead of repacking it as OpenBLAS does on every call (its copy was
// 15 % of RoBERTa-base's batch-1 inference). AVX2/FMA code (AVX-512F where conv_isa() says so): call only
// when packed_gemm_available(). Private to the plugin; the cache that decides what to pack is matmul.cpp's.
#pragma once

#include <cstdint>
#include <vector>

#include "burn/tensor/data.hpp"

namespace burn::cpu {

// B (k x n) as panels of `nr` columns (the last one zero-padded), each panel k rows of nr floats, one
// after another: element (r, j) at data[(j / nr) * k * nr + r * nr + j % nr].
struct PackedRhs {
  int64_t k = 0, n = 0;
  int nr = 0;         // 48 for the AVX-512F kernels, 24 for the AVX2 ones
  bool wide = false;  // packed for the AVX-512F kernels
  std::vector<float, HostAllocator<float>> data;
  int64_t panels() const { return (n + nr - 1) / nr; }
  size_t bytes() const { return data.size() * sizeof(float); }
};

// Whether packed_gemm can run here: the blocked conv kernels are enabled (AVX2 and FMA).
bool packed_gemm_available();

// Packs B: element (r, j) at b[r * ldb + j], or at b[j * ldb + r] when `trans` (B given as n x k).
PackedRhs pack_rhs(const float* b, int64_t ldb, bool trans, int64_t k, int64_t n);

// C (m x b.n, leading dim ldc) = A (m x b.k, row r at a + r * lda, k contiguous) B; split over the pool.
void packed_gemm(int64_t m, const float* a, int64_t lda, const PackedRhs& b, float* c, int64_t ldc);

// matmul's cache (matmul.cpp): right operands packed since the process started, and packed ones held now.
uint64_t packed_matmul_packs();
size_t packed_matmul_cached();

}  // namespace burn::cpu
