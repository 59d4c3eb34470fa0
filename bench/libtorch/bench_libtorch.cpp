// The C++ peer of the fixed-cost cases: the same ops as bench_overhead.cpp and bench_autodiff.cpp's
// tiny case, on libtorch (torch 1.13's C++ API), same case names, so bench/run.py can put them side
// by side. Written as a libtorch user writes it: torch::Tensor operators, requires_grad on the leaf.
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <cstdlib>
#include <string>
#include <utility>

namespace {

// Uniform in [-1, 1), as the burn side's inputs.
torch::Tensor input(int64_t rows, int64_t cols) { return torch::rand({rows, cols}) * 2 - 1; }

template <typename Fn>
void add_case(const std::string& name, Fn fn) {
  benchmark::RegisterBenchmark(name.c_str(), std::move(fn))->UseRealTime()->Unit(benchmark::kMicrosecond);
}

void register_cases() {
  // Eager `a + b` on 1x8, the peer of burn's tiny_add: inference under c10::InferenceMode, the guard
  // PyTorch recommends for C++ inference and libtorch's fastest spelling here (see the variants below).
  add_case("tiny_add/1x8", [](benchmark::State& st) {
    c10::InferenceMode guard;
    auto a = input(1, 8), b = input(1, 8);
    for (auto _ : st) {
      auto c = a + b;
      benchmark::DoNotOptimize(c);
    }
    st.SetItemsProcessed(st.iterations());
  });
  // Other spellings of the same op, for the notes (bench/run.py does not use them).
  add_case("tiny_add_no_grad/1x8", [](benchmark::State& st) {
    torch::NoGradGuard guard;
    auto a = input(1, 8), b = input(1, 8);
    for (auto _ : st) {
      auto c = a + b;
      benchmark::DoNotOptimize(c);
    }
    st.SetItemsProcessed(st.iterations());
  });
  add_case("tiny_add_grad_mode/1x8", [](benchmark::State& st) {
    auto a = input(1, 8), b = input(1, 8);
    for (auto _ : st) {
      auto c = a + b;
      benchmark::DoNotOptimize(c);
    }
    st.SetItemsProcessed(st.iterations());
  });
  // What autograd adds to one op: a + b where a requires grad (the node is recorded, no backward).
  add_case("autodiff_tiny_add/1x8", [](benchmark::State& st) {
    auto a = input(1, 8).requires_grad_(), b = input(1, 8);
    for (auto _ : st) {
      auto c = a + b;
      benchmark::DoNotOptimize(c);
    }
    st.SetItemsProcessed(st.iterations());
  });
}

}  // namespace

int main(int argc, char** argv) {
  // Same threads as the burn side (BURN_NUM_THREADS, 2 by default in bench/run.py).
  const char* threads = std::getenv("BURN_NUM_THREADS");
  at::set_num_threads(threads ? std::atoi(threads) : 2);
  torch::manual_seed(1234);
  register_cases();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("torch_version", TORCH_VERSION);
  benchmark::AddCustomContext("threads", std::to_string(at::get_num_threads()));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
