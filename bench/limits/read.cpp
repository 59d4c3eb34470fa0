// The machine's read-only bandwidth: a sum over n floats (default 64M) split over a set number of
// threads, 4 SSE vectors of independent partial sums per thread so that the adds never limit it. A
// reduction reads and barely writes, and on most machines a pure read stream runs faster than the
// triad's read-read-write mix: reductions are judged against this figure. Prints one JSON object.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

#include <sys/mman.h>

namespace {

typedef float v4 __attribute__((vector_size(16)));

constexpr size_t kHugePage = size_t(2) << 20;

float* huge_floats(size_t bytes) {  // as triad.cpp: 2 MiB aligned, huge pages advised
  void* p = std::aligned_alloc(kHugePage, bytes);
#ifdef MADV_HUGEPAGE
  if (p) madvise(p, bytes, MADV_HUGEPAGE);
#endif
  return static_cast<float*>(p);
}

// Sum of x[lo, hi) (lo and hi multiples of 16).
float sum(const float* x, size_t lo, size_t hi) {
  v4 a = {0, 0, 0, 0}, b = a, c = a, d = a;
  for (size_t i = lo; i < hi; i += 16) {
    a += *reinterpret_cast<const v4*>(x + i);
    b += *reinterpret_cast<const v4*>(x + i + 4);
    c += *reinterpret_cast<const v4*>(x + i + 8);
    d += *reinterpret_cast<const v4*>(x + i + 12);
  }
  const v4 s = (a + b) + (c + d);
  return s[0] + s[1] + s[2] + s[3];
}

}  // namespace

int main(int argc, char** argv) {
  const size_t n = (argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (size_t{64} << 20)) / 16 * 16;
  const int threads = std::max(1, argc > 2 ? std::atoi(argv[2]) : 2);
  const int reps = std::max(1, argc > 3 ? std::atoi(argv[3]) : 10);
  const size_t bytes = (n * sizeof(float) + kHugePage - 1) / kHugePage * kHugePage;
  std::unique_ptr<float, void (*)(void*)> x(huge_floats(bytes), std::free);
  if (!x || n == 0) {
    std::fprintf(stderr, "burn-limit-read: cannot allocate %zu bytes\n", bytes);
    return 1;
  }
  float* px = x.get();
  const size_t part = (n / 16 + threads - 1) / threads * 16;  // contiguous parts, multiples of 16
  std::vector<float> partial(static_cast<size_t>(threads));
  auto pass = [&](bool init) {
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; ++t) {
      const size_t lo = std::min(n, t * part), hi = std::min(n, lo + part);
      ts.emplace_back([=, &partial] {
        if (init) std::fill(px + lo, px + hi, 1.0f);  // first touch in the thread that reads the part
        partial[static_cast<size_t>(t)] = sum(px, lo, hi);
      });
    }
    for (auto& t : ts) t.join();
  };
  pass(true);
  std::vector<double> gbs;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    pass(false);
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    gbs.push_back(4.0 * static_cast<double>(n) / sec / 1e9);
  }
  std::sort(gbs.begin(), gbs.end());
  double total = 0;
  for (float p : partial) total += p;
  std::printf("{\"n\": %zu, \"threads\": %d, \"best_gbs\": %.3f, \"median_gbs\": %.3f, \"check\": %.0f}\n", n, threads,
              gbs.back(), gbs[gbs.size() / 2], total);
  return total == static_cast<double>(n) ? 0 : 1;  // every float read once
}
