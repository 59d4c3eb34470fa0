// The main() of every benchmark program: a setup step outside the timed cases (device, inputs), then
// Google Benchmark's usual run.
#pragma once

#include <benchmark/benchmark.h>

#include <exception>
#include <iostream>

namespace burn::bench {

inline int run_benchmarks(int argc, char** argv, void (*prepare)(), void (*register_cases)()) {
  try {
    prepare();
  } catch (const std::exception& e) {
    std::cerr << "bench: setup failed: " << e.what() << "\n";
    return 1;
  }
  register_cases();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace burn::bench
