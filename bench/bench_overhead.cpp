// The fixed cost of one op: `a + b` on two 1x8 f32 tensors, reported as ops per second.
#include "common.hpp"

namespace {

using namespace burn;
using namespace burn::bench;

void register_cases() {
  add_case("tiny_add/1x8", [](benchmark::State& st) {
    auto a = input<2>({1, 8});
    auto b = input<2>({1, 8});
    for (auto _ : st) {
      auto c = a + b;
      benchmark::DoNotOptimize(c);
    }
    st.SetItemsProcessed(st.iterations());
  });
}

}  // namespace

int main(int argc, char** argv) { return burn::bench::run_main(argc, argv, register_cases); }
