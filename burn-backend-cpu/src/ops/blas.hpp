// The cpu plugin's one door to OpenBLAS GEMM. OpenBLAS runs single-threaded (the pool sets it to one
// thread): its own threads spin in sched_yield after every call and took a core from the pool (12% of
// ResNet-18 inference, 13% of a small CNN's training step), so big products are split over the pool here.
#pragma once

#include <cstdint>
#include <string>

namespace burn::cpu {

// Multiply-adds from which one GEMM is cut into blocks over the pool; callers with many smaller
// products spread the products themselves.
constexpr int64_t kBlasSerialWork = 65536 * 4;

// Row-major C (m x n) = alpha * op(A) (m x k) * op(B) (k x n) + beta * C, A and B read with leading dims
// lda and ldb (transposed when ta / tb). Nested in a pool task it runs on the calling thread.
void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
               const float* b, int64_t ldb, float beta, float* c, int64_t ldc);
void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t lda,
               const double* b, int64_t ldb, double beta, double* c, int64_t ldc);

// Sets OpenBLAS to one thread when the library exports the call (see above); nothing when no BLAS loads.
void blas_single_threaded();

// The plugin links no BLAS: blas.cpp opens it at the first GEMM (or pool start), so that on AMD CPUs with
// AVX-512 it can set OPENBLAS_CORETYPE (Cooperlake or SkylakeX) before OpenBLAS's constructor picks its
// kernels, unless the user set it. A library that cannot be opened makes every GEMM a PluginError naming it.
struct BlasInfo {
  std::string library;    // the soname opened, e.g. "libopenblas.so.0"
  std::string core;       // openblas_get_corename(), e.g. "SkylakeX"; empty for a BLAS that is not OpenBLAS
  std::string chosen_by;  // "set by burn: AMD with AVX-512", "from OPENBLAS_CORETYPE", ...
  std::string error;      // why no BLAS could be used; empty when one is
};
// Loads the library at the first call; the same answer afterwards.
const BlasInfo& blas_info();
// One line: "OpenBLAS core: Cooperlake (set by burn: AMD with AVX-512), libopenblas.so.0".
std::string describe(const BlasInfo& info);
// Opens `library` (a soname or a path) and checks it has the GEMM's functions, without touching the
// plugin's own; a PluginError naming the library when it cannot be opened or lacks one.
void check_blas_library(const std::string& library);

}  // namespace burn::cpu
