// Saving and loading a ResNet-50-sized state dict (torchvision's 320 tensors, 25.6M f32 parameters,
// 102 MB; shapes in record_resnet50_shapes.txt) with the zstd and hdf5 recorders. The PyTorch side
// times torch.save / torch.load of the same tensors. Files go to $BURN_BENCH_TMP (default /tmp).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include "bench_main.hpp"
#include "burn/record/recorder.hpp"

namespace {

using namespace burn;
using namespace burn::record;

std::string tmp_dir() {
  const char* env = std::getenv("BURN_BENCH_TMP");
  const std::string dir = std::string(env && *env ? env : "/tmp") + "/burn-bench-record";
  std::filesystem::create_directories(dir);
  return dir;
}

// The state dict: float tensors normal(0, 0.02) (trained weights are as incompressible), int64
// counters 0.
const Record& resnet50() {
  static const Record r = [] {
    std::ifstream in(BURN_BENCH_RESNET50_SHAPES);
    if (!in) throw std::runtime_error("cannot read " + std::string(BURN_BENCH_RESNET50_SHAPES));
    std::mt19937 g(1234);
    std::normal_distribution<float> d(0.f, 0.02f);
    Record out;
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream f(line);
      std::string name, dtype;
      f >> name >> dtype;
      std::vector<int64_t> dims;
      for (int64_t x; f >> x;) dims.push_back(x);
      const Shape shape(dims);
      if (dtype == "float32") {
        std::vector<float> v(static_cast<size_t>(shape.num_elements()));
        for (auto& x : v) x = d(g);
        out.set(name, TensorData::from_vector<float>(v, shape));
      } else {
        out.set(name, TensorData(shape, DType::I64));
      }
    }
    return out;
  }();
  return r;
}

int threads() {
  const char* env = std::getenv("BURN_NUM_THREADS");
  return env ? std::atoi(env) : 0;
}

struct Variant {
  const char* name;  // in the case name
  const char* recorder;
  const char* extension;
  int level;  // SaveOptions::compression_level
};

void register_cases() {
  // zstd at its default level (1), zstd_level0 (raw chunks, still hashed), hdf5 (uncompressed default).
  for (const Variant& v : {Variant{"zstd", "zstd", ".bpz", -1}, Variant{"zstd_level0", "zstd", ".bpz", 0},
                           Variant{"hdf5", "hdf5", ".h5", -1}}) {
    const std::string path = tmp_dir() + "/resnet50_" + v.name + v.extension;
    const std::string rec = v.recorder;
    const int level = v.level;
    benchmark::RegisterBenchmark((std::string("record_save/") + v.name + "/resnet50").c_str(),
                                 [path, rec, level](benchmark::State& st) {
                                   const Record& r = resnet50();
                                   for (auto _ : st)
                                     save(path, r, {.recorder = rec, .compression_level = level, .threads = threads()});
                                   st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * r.tensor_bytes()));
                                 })
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((std::string("record_load/") + v.name + "/resnet50").c_str(),
                                 [path, rec, level](benchmark::State& st) {
                                   const Record& r = resnet50();
                                   save(path, r, {.recorder = rec, .compression_level = level, .threads = threads()});
                                   for (auto _ : st) {
                                     Record back = load(path, {.recorder = rec});
                                     benchmark::DoNotOptimize(back);
                                   }
                                   st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * r.tensor_bytes()));
                                 })
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace

int main(int argc, char** argv) {
  return burn::bench::run_benchmarks(
      argc, argv, [] { resnet50(); }, register_cases);
}
