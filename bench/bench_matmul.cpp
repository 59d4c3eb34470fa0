// matmul through the public Tensor API: square 256/1024/2048 and batched [32,128,64] @ [32,64,128].
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
