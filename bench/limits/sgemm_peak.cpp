// The machine's GEMM limit: raw OpenBLAS SGEMM on n x n f32 (default 2048) with a set thread count.
// Prints one JSON object: {"n":..., "threads":..., "core":..., "best_gflops":..., "median_gflops":...}; the core is
// the one OpenBLAS chose (its own detection, or OPENBLAS_CORETYPE), so the page can say which kernels set the limit.
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

extern "C" void openblas_set_num_threads(int);
extern "C" char* openblas_get_corename(void);

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 2048;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  const int reps = argc > 3 ? std::atoi(argv[3]) : 10;
  openblas_set_num_threads(threads);

  std::vector<float> a(static_cast<size_t>(n) * n), b(a.size()), c(a.size());
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (auto& v : a) v = u(rng);
  for (auto& v : b) v = u(rng);

  auto gemm = [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
  };
  gemm();  // warm-up: OpenBLAS starts its threads and touches its buffers here
  gemm();
  std::vector<double> gflops;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    gemm();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    gflops.push_back(2.0 * n * n * static_cast<double>(n) / s / 1e9);
  }
  std::sort(gflops.begin(), gflops.end());
  std::printf(
      "{\"n\": %d, \"threads\": %d, \"core\": \"%s\", \"best_gflops\": %.3f, \"median_gflops\": %.3f, "
      "\"check\": %g}\n",
      n, threads, openblas_get_corename(), gflops.back(), gflops[gflops.size() / 2], static_cast<double>(c[0]));
  return 0;
}
