// The softmax / log_softmax lane kernels (activation.cpp), shared with the fused executor so that a
// fused softmax runs the very arithmetic of the eager one. Both may run in place (x == y).
#pragma once

#include <cstdint>

namespace burn::cpu {

inline constexpr int64_t kSoftmaxCols = 256;  // columns per task when the softmax dim is not the last

// `rows` contiguous rows of length n. With `stream` (x != y; streaming_stores_pay said yes for the
// whole result), f32 rows are written with streaming stores where the CPU has AVX2.
void softmax_rows(const float* x, float* y, int64_t rows, int64_t n, bool log, bool stream);
void softmax_rows(const double* x, double* y, int64_t rows, int64_t n, bool log);
// One lane block: n rows of `w` adjacent columns at row stride `inner`.
void softmax_block(const float* x, float* y, int64_t n, int64_t inner, int64_t w, bool log);
void softmax_block(const double* x, double* y, int64_t n, int64_t inner, int64_t w, bool log);

}  // namespace burn::cpu
