// The blocked f32 convolution kernels of the cpu backend, for x86-64 CPUs with AVX2 and FMA. A conv is
// an implicit GEMM: for each tile of output pixels a zero-padded, stride-phase-split copy of the input
// rows it reads stays in L2, the taps of a few pixels are packed from it through an offset table into a
// contiguous micro-panel, and a register-blocked FMA micro-kernel runs on those (no im2col matrix); the
// pool runs one tile per task, so there is no GEMM threading to share, no full-size column buffer and no
// extra pass for the bias; where the CPU also has AVX512F the micro-kernels are 16-lane ones (conv_isa()).
// Large weights are cut into panels of output channels (a task per tile and panel) and 1x1 convs run as
// plain GEMMs on the same micro-kernels (forward only). conv.cpp keeps im2col
// + OpenBLAS for f64, for CPUs without AVX2/FMA and for the shapes blocked_conv_forward_fits /
// blocked_conv_fits turn down. The kernels: conv_blocked_forward.cpp and conv_blocked_backward.cpp, over
// the tiling and input regions of conv_blocked_tiles.hpp/.cpp and the tile GEMM of conv_blocked_gemm.hpp.
#pragma once

#include <cstdint>
#include <vector>

#include "ops/conv_util.hpp"

namespace burn::cpu::conv_detail {

// True when the kernels below may run: the CPU has AVX2 and FMA, and BURN_CPU_CONV is not "gemm"
// (that setting keeps the im2col + OpenBLAS path, for comparisons and for testing that path).
bool blocked_conv_enabled();

// Which micro-kernels the blocked kernels run: AVX2/FMA (8 lanes) or AVX-512F (16 lanes, wider register
// blocks); both give the same results up to the order of the sums.
enum class ConvIsa : uint8_t { Avx2, Avx512 };
const char* conv_isa_name(ConvIsa isa);
// Whether this CPU can run `isa` (Avx2: AVX2 and FMA; Avx512: those and AVX512F).
bool conv_isa_available(ConvIsa isa);
// The kernels every blocked conv takes: BURN_CPU_CONV_ISA when set (read once; ValueError for an unknown
// name, Unsupported for kernels this CPU lacks), else the widest available.
ConvIsa conv_isa();
// Test hook: forces `isa` (Unsupported when the CPU lacks it) and returns the kernels that were in use.
ConvIsa set_conv_isa(ConvIsa isa);

// Whether the blocked backward kernels take this shape (measured per shape; see the comment in the
// source): no zero-size dim, a kernel larger than 1x1, and weights per group that stay in L2.
bool blocked_conv_fits(const Dims& m, const Geo3& g);

// Whether blocked_conv_forward takes this shape: no zero-size dim, and a kernel larger than 1x1 or a
// 1x1 kernel without padding; weights of any size (the forward cuts them into panels of output channels).
bool blocked_conv_forward_fits(const Dims& m, const Geo3& g);

// What the forward does to each result after its sum, while its tile is still in L2: + the residual
// at the same index (a tensor of y's shape, or null), then relu when `relu`. The same operations as the
// separate add and relu ops, so the same bits; the fused executor's conv anchors ask for it.
struct ConvEpilogue {
  const float* residual = nullptr;
  bool relu = false;
  bool any() const { return residual || relu; }
};

// y [N, Cout, L] = conv(x, w) + bias (bias [Cout] or null), then the epilogue.
void blocked_conv_forward(const float* x, const float* w, const float* bias, float* y, const Dims& m, const Geo3& g,
                          const ConvEpilogue& ep = {});

// Shared with the Winograd forward (AVX2/FMA code: call only when blocked_conv_enabled()).
// The epilogue on `channels` rows of `len` results each, from y + off (row stride out_size).
void apply_conv_epilogue(float* y, int64_t off, int64_t out_size, int64_t channels, int64_t len,
                         const ConvEpilogue& ep);
// C [rows x 24] (row stride ldc) = A [rows x kc] (row stride lda, k contiguous) x B [kc x 24] (row stride
// ldb), + C when `load`: the forward's AVX2 4 x 24 micro-kernel over every 4 rows (Winograd's tasks of
// 24 blocks where the convs run AVX2 kernels).
void gemm_rows_x24(int64_t kc, const float* a, int64_t lda, int64_t rows, const float* b, int64_t ldb, float* c,
                   int64_t ldc, bool load);
// The same for C [rows x 32] on the AVX-512 8 x 32 micro-kernel (Winograd's tasks of 32 blocks where
// conv_isa() is Avx512).
void gemm_rows_x32(int64_t kc, const float* a, int64_t lda, int64_t rows, const float* b, int64_t ldb, float* c,
                   int64_t ldc, bool load);

// The input gradient of a stride-1 conv is a forward conv of gy with the weights flipped in space and
// transposed per group (padding d (k - 1) - p), so the forward kernels do all the work: whether g is such
// a conv, that forward's geometry (its Dims: Dims(m.n, m.cout, m.c, m.groups, g2)), and its weights.
bool grad_input_as_forward(const Geo3& g);
Geo3 grad_input_geometry(const Geo3& g);
std::vector<float> grad_input_weights(const float* w, const Dims& m, const Geo3& g);

// gx [N, C, in] = the input gradient of the conv for gy [N, Cout, L].
void blocked_conv_grad_input(const float* gy, const float* w, float* gx, const Dims& m, const Geo3& g);

// gw [Cout, Cg, K] = the weight gradient; when gb is not null, also gb [Cout] = sums of gy per channel
// (gw may be null then: only gb).
void blocked_conv_grad_weight(const float* x, const float* gy, float* gw, float* gb, const Dims& m, const Geo3& g);

}  // namespace burn::cpu::conv_detail
