// The peer of the OpenCL GEMM row: CLBlast's own SGEMM called directly on the device burn's `opencl` picks
// by default (bench/gpu/clblast_gemm.cpp), with no burn code between the caller and CLBlast.
#pragma once

#include <cstdint>

namespace burn::bench {

// C = A x B, n x n x n f32 row-major, `inner` calls per timed round and one clFinish, median of `reps`
// rounds after a warm-up that compiles CLBlast's kernels; prints one JSON line (case "gemm_clblast").
// Returns 77 without an OpenCL device, 1 when an OpenCL or CLBlast call fails.
int clblast_gemm(int64_t n, int inner, int reps);

}  // namespace burn::bench
