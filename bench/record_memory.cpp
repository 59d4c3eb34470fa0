// Peak memory of saving and loading a large record, for burn-record's README (a tool, not a
// benchmark). Each step runs in its own process so that its peak (VmHWM) is its own:
//   burn-bench-record-memory save RECORDER PATH MEGABYTES   make a record of that size, save it
//   burn-bench-record-memory load RECORDER PATH [ENTRY]     load it all (or one entry)
// Prints the data size, the resident memory before the step (libraries and plugin loaded) and the
// peak during it, in MiB.
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <string>

#include "burn/record/recorder.hpp"

namespace {

using namespace burn;
using namespace burn::record;

// kB of a /proc/self/status line such as "VmHWM:   123 kB", in MiB.
double status_mib(const std::string& key) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key + ":", 0) == 0) return std::strtod(line.c_str() + key.size() + 1, nullptr) / 1024.0;
  }
  return -1;
}

// Resets VmHWM to the current RSS (Linux: write 5 to clear_refs).
void reset_peak() { std::ofstream("/proc/self/clear_refs") << "5"; }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: burn-bench-record-memory save RECORDER PATH MEGABYTES | load RECORDER PATH [ENTRY]\n";
    return 2;
  }
  const std::string mode = argv[1], rec = argv[2], path = argv[3];
  (void)recorder(rec);  // the plugin is loaded before the baseline
  if (mode == "save") {
    const int mb = argc > 4 ? std::atoi(argv[4]) : 1024;
    Record r;
    std::mt19937 g(1);
    std::normal_distribution<float> d(0.f, 0.02f);
    for (int t = 0; t < mb / 4; ++t) {  // 4 MiB tensors
      std::vector<float> v(1 << 20);
      for (auto& x : v) x = d(g);
      r.set("layers." + std::to_string(t) + ".weight", TensorData::from_vector<float>(v, {1024, 1024}));
    }
    const double before = status_mib("VmRSS");
    reset_peak();
    save(path, r, {.recorder = rec});
    std::cout << "save " << rec << ": data " << r.tensor_bytes() / 1048576.0 << " MiB, resident before " << before
              << " MiB, peak " << status_mib("VmHWM") << " MiB\n";
    return 0;
  }
  const double before = status_mib("VmRSS");
  reset_peak();
  uint64_t bytes = 0;
  if (argc > 4) {
    auto reader = open(path, {.recorder = rec});
    bytes = reader->read_tensor(argv[4]).bytes().size();
  } else {
    const Record r = load(path, {.recorder = rec});
    bytes = r.tensor_bytes();
  }
  std::cout << "load " << rec << (argc > 4 ? " (one entry)" : "") << ": data " << bytes / 1048576.0
            << " MiB, resident before " << before << " MiB, peak " << status_mib("VmHWM") << " MiB\n";
  return 0;
}
