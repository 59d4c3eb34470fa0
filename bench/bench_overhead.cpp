// The fixed cost of one op: `a + b` on two 1x8 f32 tensors, reported as ops per second; eager on cpu
// and recorded on fusion<cpu>.
#include "common.hpp"

namespace {

using namespace burn;
using namespace burn::bench;

void register_cases() {
  add_case("tiny_add/1x8", [](benchmark::State& st) { time_add(st, input<2>({1, 8}), input<2>({1, 8})); });
  // Recording one op on fusion<cpu> (target: at most 1 us): `a + b` is recorded and its result dropped,
  // so the flush every 256 ops skips it; what is timed is recording plus that amortised flush.
  add_case("tiny_add_recorded/1x8", [](benchmark::State& st) {
    const Device fused = Device::get("fusion<cpu>");
    const Tensor<2> a = input<2>({1, 8}).to_device(fused), b = input<2>({1, 8}).to_device(fused);
    fused.sync();
    time_add(st, a, b);
    fused.sync();
  });
}

}  // namespace

int main(int argc, char** argv) { return burn::bench::run_main(argc, argv, register_cases); }
