// Importing (burn-import): a torchvision ResNet-18 state dict saved by torch.save (zip and legacy
// layouts) loaded whole into a Record by the pytorch importer plugin, against torch.load of the same
// file (bench/torch/bench_torch.py). bench/run.py writes the files ($BURN_BENCH_TMP/burn-bench-import).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "bench_main.hpp"
#include "burn/import/importer.hpp"

namespace {

std::string file(const std::string& layout) {
  const char* env = std::getenv("BURN_BENCH_TMP");
  return std::string(env && *env ? env : "/tmp") + "/burn-bench-import/resnet18_" + layout + ".pt";
}

void register_cases() {
  for (const std::string layout : {"zip", "legacy"}) {
    benchmark::RegisterBenchmark(("import_pytorch_load/resnet18_" + layout).c_str(),
                                 [layout](benchmark::State& st) {
                                   const std::string path = file(layout);
                                   if (!std::filesystem::exists(path)) {
                                     st.SkipWithError((path + " is missing (bench/run.py writes it)").c_str());
                                     return;
                                   }
                                   for (auto _ : st) benchmark::DoNotOptimize(burn::import::open(path)->read_all());
                                 })
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace

int main(int argc, char** argv) {
  return burn::bench::run_benchmarks(
      argc, argv, [] {}, register_cases);
}
