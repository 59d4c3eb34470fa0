// The fixed cost of one op: `a + b` on two 1x8 f32 tensors, reported as ops per second.
#include "common.hpp"

namespace {

using namespace burn;
using namespace burn::bench;

void register_cases() {
  add_case("tiny_add/1x8", [](benchmark::State& st) { time_add(st, input<2>({1, 8}), input<2>({1, 8})); });
}

}  // namespace

int main(int argc, char** argv) { return burn::bench::run_main(argc, argv, register_cases); }
