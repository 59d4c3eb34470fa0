// GEMM through OpenBLAS, split over the pool in blocks of rows or columns (see blas.hpp).
#include "ops/blas.hpp"

#include <cblas.h>

#include <algorithm>
#include <type_traits>

#include "cpu_tensor.hpp"

extern "C" __attribute__((weak)) void openblas_set_num_threads(int);

namespace burn::cpu {
namespace {

// Rows or columns per block at least, in multiples of the GEMM kernels' register tiles.
constexpr int64_t kBlockAlign = 16;

// y = alpha op(A) x + beta y, A stored row-major rows x cols.
template <typename T>
void gemv(bool trans, int64_t rows, int64_t cols, T alpha, const T* a, int64_t lda, const T* x, int64_t incx, T beta,
          T* y, int64_t incy) {
  const auto op = trans ? CblasTrans : CblasNoTrans;
  const int r = static_cast<int>(rows), c = static_cast<int>(cols);
  if constexpr (std::is_same_v<T, float>)
    cblas_sgemv(CblasRowMajor, op, r, c, alpha, a, static_cast<int>(lda), x, static_cast<int>(incx), beta, y,
                static_cast<int>(incy));
  else
    cblas_dgemv(CblasRowMajor, op, r, c, alpha, a, static_cast<int>(lda), x, static_cast<int>(incx), beta, y,
                static_cast<int>(incy));
}

template <typename T>
void serial_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b,
                 int64_t ldb, T beta, T* c, int64_t ldc) {
  // A product with one row or one column is a matrix-vector product: OpenBLAS's sgemm packs the whole
  // matrix first, which for a batch-1 linear layer costs as much as the product (ResNet-18's fc at
  // batch 1 took 1.8x ONNX Runtime's time). With beta 0, C is cleared first: gemv computes beta * y,
  // the uninitialised output may hold NaN, and whether a library special-cases beta 0 is its own choice.
  if (m == 1 || n == 1) {
    const int64_t len = m == 1 ? n : m, inc = m == 1 ? 1 : ldc;
    if (beta == T(0))
      for (int64_t i = 0; i < len; ++i) c[i * inc] = T(0);
    if (m == 1)  // c = op(B)^T a: B is n x k (tb) or k x n
      gemv(!tb, tb ? n : k, tb ? k : n, alpha, b, ldb, a, ta ? lda : 1, beta, c, inc);
    else  // c = op(A) b: A is m x k or k x m (ta)
      gemv(ta, ta ? k : m, ta ? m : k, alpha, a, lda, b, tb ? 1 : ldb, beta, c, inc);
    return;
  }
  const auto opa = ta ? CblasTrans : CblasNoTrans, opb = tb ? CblasTrans : CblasNoTrans;
  const int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
  if constexpr (std::is_same_v<T, float>)
    cblas_sgemm(CblasRowMajor, opa, opb, mi, ni, ki, alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb), beta, c,
                static_cast<int>(ldc));
  else
    cblas_dgemm(CblasRowMajor, opa, opb, mi, ni, ki, alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb), beta, c,
                static_cast<int>(ldc));
}

template <typename T>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b, int64_t ldb,
          T beta, T* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == T(0) ? T(0) : beta * c[i * ldc + j];
    return;
  }
  // One block per pool thread along the longer side of C; each block packs the other operand again,
  // which costs little once the block has kBlockAlign rows or columns.
  const bool rows = m >= n;
  const int64_t len = rows ? m : n;
  const int64_t threads = static_cast<int64_t>(num_threads());
  const int64_t parts = std::min(threads, len / kBlockAlign);
  if (m * n * k < kBlasSerialWork || parts < 2)
    return serial_gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  const int64_t block = (len + parts - 1) / parts;
  const int64_t step = (block + kBlockAlign - 1) / kBlockAlign * kBlockAlign;
  parallel_for((len + step - 1) / step, 1, [&](int64_t s, int64_t e) {
    for (int64_t i = s; i < e; ++i) {
      const int64_t p0 = i * step, cnt = std::min(step, len - p0);
      if (rows)
        serial_gemm(ta, tb, cnt, n, k, alpha, a + (ta ? p0 : p0 * lda), lda, b, ldb, beta, c + p0 * ldc, ldc);
      else
        serial_gemm(ta, tb, m, cnt, k, alpha, a, lda, b + (tb ? p0 * ldb : p0), ldb, beta, c + p0, ldc);
    }
  });
}

}  // namespace

void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
               const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  gemm<float>(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t lda,
               const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  gemm<double>(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void blas_single_threaded() {
  if (openblas_set_num_threads) openblas_set_num_threads(1);
}

}  // namespace burn::cpu
