// f32 GEMM against a packed right operand (gemm_packed.hpp) on the blocked conv kernels' micro-kernels.
// One pool task per panel of B: the panel (k x nr floats, contiguous) streams from memory once and stays in
// L2 while every MR-row block of A runs against it, each micro-kernel call summing the whole k in registers
// (no C reloads); A's rows are read in place, row-major with k contiguous.
#include "ops/gemm_packed.hpp"

#include <algorithm>

#include "cpu_tensor.hpp"
#include "ops/conv_blocked.hpp"
#include "ops/conv_blocked_gemm.hpp"

namespace burn::cpu {

namespace {

using conv_detail::micro_kernel;

// The register blocks: MR rows x NV vectors of W lanes.
constexpr int kMrWide = 8, kNvWide = 3, kMrNarrow = 4, kNvNarrow = 3;
constexpr int kNrWide = 16 * kNvWide, kNrNarrow = 8 * kNvNarrow;

// Multiply-adds per pool task below which the pool is not woken.
constexpr int64_t kSerialMacs = int64_t{1} << 18;

template <int MR, int NV, int W>
void panel_rows(int64_t m, const float* a, int64_t lda, const float* panel, int64_t kc, float* c, int64_t ldc,
                int cols) {
  constexpr int NR = NV * W;
  for (int64_t i = 0; i < m; i += MR) {
    const int rows = static_cast<int>(std::min<int64_t>(MR, m - i));
    const float* ap[MR];
    for (int r = 0; r < MR; ++r) ap[r] = a + (i + std::min(r, rows - 1)) * lda;
    micro_kernel<MR, NV, W>(kc, ap, 1, panel, NR, c + i * ldc, ldc, rows, cols, nullptr, false);
  }
}

}  // namespace

bool packed_gemm_available() { return conv_detail::blocked_conv_enabled(); }

PackedRhs pack_rhs(const float* b, int64_t ldb, bool trans, int64_t k, int64_t n) {
  PackedRhs p;
  p.k = k;
  p.n = n;
  p.wide = conv_detail::conv_isa() == conv_detail::ConvIsa::Avx512;
  p.nr = p.wide ? kNrWide : kNrNarrow;
  const int64_t nr = p.nr, panels = p.panels();
  p.data.resize(static_cast<size_t>(checked_mul(checked_mul(panels, k, "pack_rhs"), nr, "pack_rhs")));
  float* out = p.data.data();
  parallel_for(panels, std::max<int64_t>(1, (int64_t{1} << 16) / std::max<int64_t>(1, k * nr)),
               [&](int64_t s, int64_t e) {
                 for (int64_t q = s; q < e; ++q) {
                   const int64_t j0 = q * nr, cols = std::min(nr, n - j0);
                   float* dst = out + q * k * nr;
                   // B's rows read in order either way (a transposed B: one panel column per row of B).
                   if (trans) {
                     for (int64_t j = 0; j < cols; ++j) {
                       const float* src = b + (j0 + j) * ldb;
                       for (int64_t r = 0; r < k; ++r) dst[r * nr + j] = src[r];
                     }
                   }
                   for (int64_t r = 0; r < k; ++r) {
                     float* row = dst + r * nr;
                     if (!trans) std::copy(b + r * ldb + j0, b + r * ldb + j0 + cols, row);
                     std::fill(row + cols, row + nr, 0.0f);
                   }
                 }
               });
  return p;
}

void packed_gemm(int64_t m, const float* a, int64_t lda, const PackedRhs& b, float* c, int64_t ldc) {
  if (m == 0 || b.n == 0) return;
  const int64_t k = b.k, nr = b.nr, panels = b.panels();
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + b.n, 0.0f);
    return;
  }
  const int64_t grain = std::max<int64_t>(1, kSerialMacs / std::max<int64_t>(1, m * k * nr));
  parallel_for(panels, grain, [&](int64_t s, int64_t e) {
    for (int64_t q = s; q < e; ++q) {
      const float* panel = b.data.data() + q * k * nr;
      const int cols = static_cast<int>(std::min(nr, b.n - q * nr));
      if (b.wide)
        panel_rows<kMrWide, kNvWide, 16>(m, a, lda, panel, k, c + q * nr, ldc, cols);
      else
        panel_rows<kMrNarrow, kNvNarrow, 8>(m, a, lda, panel, k, c + q * nr, ldc, cols);
    }
  });
}

}  // namespace burn::cpu
