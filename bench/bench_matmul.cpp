// matmul through the public Tensor API: square 256/1024/2048 and batched [32,128,64] @ [32,64,128];
// a Linear + bias + ReLU (512x1024 @ 1024x1024) unfused and on fusion<cpu> (`_fused`: the epilogue in
// one pass over the matmul's output, sync() per iteration).
#include "common.hpp"

namespace {

using namespace burn;
using namespace burn::bench;

void register_cases() {
  for (int64_t n : {256, 1024, 2048}) {
    add_case("matmul/" + std::to_string(n), [n](benchmark::State& st) {
      auto a = input<2>({n, n});
      auto b = input<2>({n, n});
      for (auto _ : st) {
        auto c = a.matmul(b);
        benchmark::DoNotOptimize(c);
      }
    });
  }
  // bf16 operands: the cpu plugin widens them to f32, runs the f32 GEMM and rounds the product once.
  add_case("matmul_bf16/1024", [](benchmark::State& st) {
    auto a = input<2>({1024, 1024}).cast(DType::BF16);
    auto b = input<2>({1024, 1024}).cast(DType::BF16);
    for (auto _ : st) {
      auto c = a.matmul(b);
      benchmark::DoNotOptimize(c);
    }
  });
  add_case("linear_bias_relu/512x1024@1024x1024", [](benchmark::State& st) {
    auto x = input<2>({512, 1024});
    auto w = input<2>({1024, 1024});
    auto b = input<2>({1, 1024});
    for (auto _ : st) {
      auto y = (x.matmul(w) + b).relu();
      benchmark::DoNotOptimize(y);
    }
  });
  add_case("linear_bias_relu_fused/512x1024@1024x1024", [](benchmark::State& st) {
    const Device fused = Device::get("fusion<cpu>");  // libburn-fusion is loaded by name
    auto x = input<2>({512, 1024}).to_device(fused);
    auto w = input<2>({1024, 1024}).to_device(fused);
    auto b = input<2>({1, 1024}).to_device(fused);
    fused.sync();
    for (auto _ : st) {
      auto y = (x.matmul(w) + b).relu();
      fused.sync();
      benchmark::DoNotOptimize(y);
    }
  });
  add_case("matmul_batched/32x128x64@32x64x128", [](benchmark::State& st) {
    auto a = input<3>({32, 128, 64});
    auto b = input<3>({32, 64, 128});
    for (auto _ : st) {
      auto c = a.matmul(b);
      benchmark::DoNotOptimize(c);
    }
  });
}

}  // namespace

int main(int argc, char** argv) { return burn::bench::run_main(argc, argv, register_cases); }
