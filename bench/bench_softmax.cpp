// softmax and log_softmax over the last dim of a 4096x1024 f32 tensor; softmax(x * 0.125 + mask)
// unfused and on fusion<cpu> (`_fused`: one pass, the prologue computed per row block, sync() per
// iteration).
#include "common.hpp"

namespace {

using namespace burn;
using namespace burn::bench;

void register_cases() {
  add_case("softmax/4096x1024", [](benchmark::State& st) {
    auto x = input<2>({4096, 1024});
    for (auto _ : st) {
      auto y = x.softmax(1);
      benchmark::DoNotOptimize(y);
    }
  });
  add_case("softmax_scaled_masked/4096x1024", [](benchmark::State& st) {
    auto x = input<2>({4096, 1024});
    auto mask = input<2>({1, 1024});
    for (auto _ : st) {
      auto y = (x * 0.125f + mask).softmax(1);
      benchmark::DoNotOptimize(y);
    }
  });
  add_case("softmax_scaled_masked_fused/4096x1024", [](benchmark::State& st) {
    const Device fused = Device::get("fusion<cpu>");  // libburn-fusion is loaded by name
    auto x = input<2>({4096, 1024}).to_device(fused);
    auto mask = input<2>({1, 1024}).to_device(fused);
    fused.sync();
    for (auto _ : st) {
      auto y = (x * 0.125f + mask).softmax(1);
      fused.sync();
      benchmark::DoNotOptimize(y);
    }
  });
  add_case("log_softmax/4096x1024", [](benchmark::State& st) {
    auto x = input<2>({4096, 1024});
    for (auto _ : st) {
      auto y = x.log_softmax(1);
      benchmark::DoNotOptimize(y);
    }
  });
}

}  // namespace

int main(int argc, char** argv) { return burn::bench::run_main(argc, argv, register_cases); }
