// The layer/RMS norm row kernel (norm.cpp), shared with the fused executor so that a fused norm runs
// the very arithmetic of the eager one. It may run in place (x == y).
#pragma once

#include <cstdint>

namespace burn::cpu {

// y = (x - mean) * rstd * w + b over `rows` contiguous rows of n (rms: mean 0, rstd from mean(x^2));
// w and b may be null.
void norm_rows_forward(const float* x, float* y, int64_t rows, int64_t n, const float* w, const float* b, float eps,
                       bool rms);
void norm_rows_forward(const double* x, double* y, int64_t rows, int64_t n, const double* w, const double* b,
                       double eps, bool rms);

}  // namespace burn::cpu
