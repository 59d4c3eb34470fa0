// The machine's cost of fresh memory: a 64 MiB anonymous mapping written once per 4 KiB page and unmapped,
// repeated. An allocator that returns large blocks to the system (glibc's malloc above its mmap threshold,
// which PyTorch's CPU allocator uses) pays this on every new output of that size; a framework that keeps its
// buffers (burn's cpu plugin) pays it once. Under a hypervisor that hands freed guest memory back to the
// host, a first touch can cost far more than on bare metal: the page says which. Prints one JSON object.
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  const size_t bytes = (argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (size_t{64} << 20)) / 4096 * 4096;
  const int reps = std::max(1, argc > 2 ? std::atoi(argv[2]) : 10);
  if (bytes == 0) {
    std::fprintf(stderr, "burn-limit-fault: size must be at least 4096 bytes\n");
    return 1;
  }
  std::vector<double> us_per_page;
  unsigned long check = 0;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
      std::fprintf(stderr, "burn-limit-fault: cannot map %zu bytes\n", bytes);
      return 1;
    }
    auto* p = static_cast<volatile unsigned char*>(m);
    for (size_t i = 0; i < bytes; i += 4096) p[i] = 1;
    for (size_t i = 0; i < bytes; i += 4096) check += p[i];
    munmap(m, bytes);
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    us_per_page.push_back(sec * 1e6 / static_cast<double>(bytes / 4096));
  }
  std::sort(us_per_page.begin(), us_per_page.end());
  std::printf("{\"bytes\": %zu, \"best_us_per_page\": %.3f, \"median_us_per_page\": %.3f, \"median_ms\": %.3f}\n",
              bytes, us_per_page.front(), us_per_page[us_per_page.size() / 2],
              us_per_page[us_per_page.size() / 2] * static_cast<double>(bytes / 4096) / 1e3);
  return check == static_cast<unsigned long>(reps) * (bytes / 4096) ? 0 : 1;
}
