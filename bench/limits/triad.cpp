// The machine's memory-bandwidth limit: a STREAM-like triad a[i] = b[i] + s * c[i] on arrays of
// n floats (default 64M) split over a set number of threads. Bytes counted as STREAM does: 3 * 4 * n
// per pass (write-allocate traffic not counted). Prints one JSON object.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

#include <sys/mman.h>

namespace {

// Runs fn(begin, end) over [0, n) split into `threads` contiguous parts, one std::thread each.
template <typename Fn>
void parallel(size_t n, int threads, Fn fn) {
  std::vector<std::thread> ts;
  const size_t part = (n + threads - 1) / threads;
  for (int t = 0; t < threads; ++t) {
    const size_t b = std::min(n, t * part), e = std::min(n, b + part);
    ts.emplace_back([=] { fn(b, e); });
  }
  for (auto& t : ts) t.join();
}

constexpr size_t kHugePage = size_t(2) << 20;

float* huge_floats(size_t bytes) {
  void* p = std::aligned_alloc(kHugePage, bytes);
#ifdef MADV_HUGEPAGE
  if (p) madvise(p, bytes, MADV_HUGEPAGE);
#endif
  return static_cast<float*>(p);
}

void release(float* p) { std::free(p); }

}  // namespace

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (size_t{64} << 20);
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  const int reps = argc > 3 ? std::atoi(argv[3]) : 10;

  // Uninitialised storage so that the first touch happens in the threads that will use each part;
  // 2 MiB aligned with huge pages advised, as the cpu plugin's buffer pool maps its large tensors
  // (without them the triad reads about 10% slower on the development VM: fewer TLB misses, and the
  // hardware prefetchers are not stopped at every 4 KiB page).
  const size_t bytes = (n * sizeof(float) + kHugePage - 1) / kHugePage * kHugePage;
  std::unique_ptr<float, void (*)(float*)> a(huge_floats(bytes), release), b(huge_floats(bytes), release),
      c(huge_floats(bytes), release);
  if (!a || !b || !c) {
    std::fprintf(stderr, "burn-limit-triad: cannot allocate 3 x %zu bytes\n", bytes);
    return 1;
  }
  float* pa = a.get();
  float* pb = b.get();
  float* pc = c.get();
  parallel(n, threads, [=](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) pa[i] = 0.0f, pb[i] = 1.0f, pc[i] = 2.0f;
  });
  const float s = 3.0f;
  std::vector<double> gbs;
  for (int r = 0; r < reps + 1; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    parallel(n, threads, [=](size_t lo, size_t hi) {
      for (size_t i = lo; i < hi; ++i) pa[i] = pb[i] + s * pc[i];
    });
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r > 0) gbs.push_back(3.0 * 4.0 * static_cast<double>(n) / sec / 1e9);  // pass 0 is warm-up
  }
  std::sort(gbs.begin(), gbs.end());
  std::printf("{\"n\": %zu, \"threads\": %d, \"best_gbs\": %.3f, \"median_gbs\": %.3f, \"check\": %g}\n", n, threads,
              gbs.back(), gbs[gbs.size() / 2], static_cast<double>(pa[n / 2]));
  return 0;
}
