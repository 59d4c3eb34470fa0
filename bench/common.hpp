// Shared helpers of the Google Benchmark programs: the cpu device, input tensors, and one way to
// register a case so every program times it the same way (wall clock, since the ops are threaded).
#pragma once

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "bench_main.hpp"
#include "burn/tensor.hpp"

namespace burn::bench {

// One device for the whole process, made on first use so that plugin loading is never timed.
inline const Device& cpu() {
  static const Device dev = [] {
    Device d = Device::get("cpu");
    d.seed(1234);
    return d;
  }();
  return dev;
}

// autodiff<cpu> (the program links burn::autodiff), made on first use like cpu().
inline const Device& ad() {
  static const Device dev = Device::get("autodiff<cpu>");
  return dev;
}

// Uniform in [-1, 1): exp stays finite, relu has both branches, softmax rows are not degenerate.
template <size_t D>
Tensor<D> input(const Shape& s) {
  return Tensor<D>::random(s, Distribution::uniform(-1.0, 1.0), cpu());
}

// What `make()` returns, made once per process and `key` and kept: Google Benchmark calls a case's function for
// its warm-up and again for each repetition, so a model made inside it is new at every call, and each repetition
// of a slow case (one or two iterations) times a cold model, its weights packed and its buffers first touched,
// instead of the steady inference (or training) that the PyTorch and ONNX Runtime sides time on a model made once.
// Never destroyed: tensors must not outlive the plugins at exit.
template <typename T, typename Make>
T& made_once(const std::string& key, Make make) {
  static auto* made = new std::map<std::string, std::unique_ptr<T>>();
  auto it = made->find(key);
  if (it == made->end()) it = made->emplace(key, std::make_unique<T>(make())).first;
  return *it->second;
}

// Registers `fn(state)` under `name` (the name the torch side and the table use).
template <typename Fn>
void add_case(const std::string& name, Fn fn) {
  benchmark::RegisterBenchmark(name.c_str(), std::move(fn))->UseRealTime()->Unit(benchmark::kMicrosecond);
}

// The fixed cost of one op: `a + b` per iteration, reported as ops per second.
template <size_t D>
void time_add(benchmark::State& st, const Tensor<D>& a, const Tensor<D>& b) {
  for (auto _ : st) {
    auto c = a + b;
    benchmark::DoNotOptimize(c);
  }
  st.SetItemsProcessed(st.iterations());
}

// main() of every program: creates the device (and so the thread pool) before any case runs.
inline int run_main(int argc, char** argv, void (*register_cases)()) {
  return run_benchmarks(
      argc, argv, [] { cpu(); }, register_cases);
}

}  // namespace burn::bench
