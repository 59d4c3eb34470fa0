// The fixed cost of one op: `a + b` on two 1x8 f32 tensors, reported as ops per second; eager on cpu
// and recorded on fusion<cpu>; sent to a burn server without waiting, and sent then read back (the
// remote section, bench/remote_table.py, with the read's local twin).
#include <chrono>

#include "common.hpp"
#include "remote_bench.hpp"

namespace {

using namespace burn;
using namespace burn::bench;

// `a + b` then its values on the host per iteration: an op's latency to a result the caller can use.
void time_add_read(benchmark::State& st, const Tensor<2>& a, const Tensor<2>& b) {
  for (auto _ : st) {
    TensorData c = (a + b).into_data();
    benchmark::DoNotOptimize(c);
  }
  st.SetItemsProcessed(st.iterations());
}

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
  // Sent without waiting: each `a + b` and the free of the result it drops are two records of a batch,
  // sent every 256 records; the server runs them as they come, and the socket's buffer bounds how far
  // the client runs ahead. The last iteration waits until the server has run them all, so the rate is
  // the sustained one; the counter drain_us is that last wait.
  add_case("remote_tiny_add/1x8", [](benchmark::State& st) {
    const std::string address = remote_address(st);
    if (address.empty()) return;
    const Device device = Device::get("remote<" + address + ">");
    const Tensor<2> a = input<2>({1, 8}).to_device(device), b = input<2>({1, 8}).to_device(device);
    device.sync();
    const remote::RemoteStats before = remote_stats(device);
    double drain_us = 0;
    benchmark::IterationCount i = 0;
    for (auto _ : st) {
      auto c = a + b;
      benchmark::DoNotOptimize(c);
      if (++i == st.max_iterations) {
        const auto t0 = std::chrono::steady_clock::now();
        device.sync();
        drain_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
      }
    }
    st.SetItemsProcessed(st.iterations());
    st.counters["drain_us"] = drain_us;
    report_traffic(st, before, remote_stats(device));
  });
  // Sent and read back to the host: one round trip per op.
  add_case("tiny_add_read/1x8", [](benchmark::State& st) { time_add_read(st, input<2>({1, 8}), input<2>({1, 8})); });
  add_case("remote_tiny_add_read/1x8", [](benchmark::State& st) {
    const std::string address = remote_address(st);
    if (address.empty()) return;
    const Device device = Device::get("remote<" + address + ">");
    const Tensor<2> a = input<2>({1, 8}).to_device(device), b = input<2>({1, 8}).to_device(device);
    device.sync();
    const remote::RemoteStats before = remote_stats(device);
    time_add_read(st, a, b);
    report_traffic(st, before, remote_stats(device));
  });
}

}  // namespace

int main(int argc, char** argv) { return burn::bench::run_main(argc, argv, register_cases); }
