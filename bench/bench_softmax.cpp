// softmax and log_softmax over the last dim of a 4096x1024 f32 tensor.
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
