// The cpu plugin's exact int8 GEMM (burn-backend-cpu/src/ops/gemm_int8.hpp) against its f32 GEMM (OpenBLAS
// through blas_gemm) on one BERT-base feed-forward shape, 128x768 . 768x3072, kernel against kernel: the
// program links the plugin's kernel objects, since neither is reachable through the tensor API yet (no int8
// dtype). B is packed once outside the timed loop, as a Linear layer's weight would be; the int8 cases time
// A's packing, the products and (dequant) the f32 epilogue. `_scalar` forces the reference path.
#include <random>
#include <vector>

#include "bench_main.hpp"
#include "cpu_tensor.hpp"
#include "ops/blas.hpp"
#include "ops/gemm_int8.hpp"

namespace {

using namespace burn::cpu;

constexpr int64_t kM = 128, kK = 768, kN = 3072;

template <typename T>
std::vector<T> random_values(size_t count, int lo, int hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<T> v(count);
  for (T& x : v) x = static_cast<T>(dist(rng));
  return v;
}

void count_macs(benchmark::State& st) {
  st.counters["MAC/s"] = benchmark::Counter(double(kM * kN * kK), benchmark::Counter::kIsIterationInvariantRate);
}

void register_cases() {
  const auto add = [](const std::string& name, auto fn) {
    benchmark::RegisterBenchmark(name.c_str(), fn)->UseRealTime()->Unit(benchmark::kMicrosecond);
  };
  add("f32_gemm/128x768x3072", [](benchmark::State& st) {
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> a(kM * kK), b(kK * kN), c(kM * kN);
    for (float& x : a) x = dist(rng);
    for (float& x : b) x = dist(rng);
    for (auto _ : st) {
      blas_gemm(false, false, kM, kN, kK, 1.0f, a.data(), kK, b.data(), kN, 0.0f, c.data(), kN);
      benchmark::DoNotOptimize(c.data());
    }
    count_macs(st);
  });
  for (bool scalar : {false, true}) {
    const std::string suffix = scalar ? "_scalar" : "";
    add("int8_gemm_s32" + suffix + "/128x768x3072", [scalar](benchmark::State& st) {
      const auto a = random_values<uint8_t>(kM * kK, 0, 255, 1);
      const auto b = random_values<int8_t>(kK * kN, -128, 127, 2);
      const PackedInt8Weights w = pack_int8_weights(b.data(), kK, kN, kN);
      std::vector<int32_t> c(kM * kN);
      const Int8Path before = set_int8_path(scalar ? Int8Path::Scalar : int8_path());
      for (auto _ : st) {
        gemm_int8(a.data(), kK, kM, w, c.data(), kN);
        benchmark::DoNotOptimize(c.data());
      }
      set_int8_path(before);
      count_macs(st);
    });
  }
  add("int8_gemm_dequant/128x768x3072", [](benchmark::State& st) {
    const auto a = random_values<uint8_t>(kM * kK, 0, 255, 1);
    const auto b = random_values<int8_t>(kK * kN, -128, 127, 2);
    const PackedInt8Weights w = pack_int8_weights(b.data(), kK, kN, kN);
    const std::vector<float> sa{0.02f}, sb(kN, 0.01f), bias(kN, 0.5f);
    const std::vector<int32_t> za{128};
    std::vector<float> out(kM * kN);
    const Int8Epilogue ep{{sa, za}, {sb, {}}, bias};
    for (auto _ : st) {
      gemm_int8_dequant(a.data(), kK, kM, w, ep, out.data(), kN);
      benchmark::DoNotOptimize(out.data());
    }
    count_macs(st);
  });
  add("int8_pack_weights/768x3072", [](benchmark::State& st) {
    const auto b = random_values<int8_t>(kK * kN, -128, 127, 2);
    for (auto _ : st) {
      PackedInt8Weights w = pack_int8_weights(b.data(), kK, kN, kN);
      benchmark::DoNotOptimize(w.data.data());
    }
  });
}

}  // namespace

int main(int argc, char** argv) {
  // The pool (and OpenBLAS's single-thread setting) is made before any case runs.
  return burn::bench::run_benchmarks(
      argc, argv, [] { (void)num_threads(); }, register_cases);
}
