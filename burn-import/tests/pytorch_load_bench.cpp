// Times loading a .pt file into a Record (open + read_all), as torch.load does in Python: the median
// and minimum of N loads in one process, after one untimed load that warms the page cache, in wall
// time and in CPU time (the steadier figure on a shared machine).
// Usage: burn-import-pytorch-bench FILE [N]. Built on request (not part of `all`).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "burn/import/importer.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE [N]\n", argv[0]);
    return 2;
  }
  const std::string path = argv[1];
  const int n = argc > 2 ? std::atoi(argv[2]) : 20;
  uint64_t bytes = burn::import::open(path)->read_all().tensor_bytes();
  std::vector<double> ms, cpu;
  for (int i = 0; i < n; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    auto record = burn::import::open(path)->read_all();
    cpu.push_back(1e3 * static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    bytes = record.tensor_bytes();
  }
  std::sort(ms.begin(), ms.end());
  std::sort(cpu.begin(), cpu.end());
  std::printf(
      "burn::import::open(%s)->read_all(): median %.2f ms (cpu %.2f ms), min %.2f ms over %d (%.1f MB of tensors)\n",
      path.c_str(), ms[ms.size() / 2], cpu[cpu.size() / 2], ms.front(), n, static_cast<double>(bytes) / 1e6);
}
