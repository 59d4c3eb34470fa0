// What the remote section's cases share (bench/remote_table.py runs them): the address of the burn server
// they run against, and its connection's counters.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

#include "burn/remote/remote.hpp"
#include "burn/tensor.hpp"

namespace burn::bench {

// $BURN_BENCH_REMOTE (tcp://HOST:PORT), which bench/remote_table.py sets after starting `burn server`;
// unset, the case is skipped with a message saying so, and "" is returned.
inline std::string remote_address(benchmark::State& st) {
  const char* address = std::getenv("BURN_BENCH_REMOTE");
  if (address && *address) return address;
  st.SkipWithError("BURN_BENCH_REMOTE is not set (a burn server's tcp://HOST:PORT; bench/remote_table.py starts one)");
  return {};
}

// The counters of the connection under `device` (any decorator over remote<...> forwards them).
inline remote::RemoteStats remote_stats(const Device& device) {
  auto* source = static_cast<remote::RemoteStatsSource*>(device->query_interface(remote::kRemoteStatsInterface));
  return source ? source->stats() : remote::RemoteStats{};
}

// Per-iteration counters of what the connection sent and waited for between two snapshots: the page's
// bytes sent and round trips per op or per step.
inline void report_traffic(benchmark::State& st, const remote::RemoteStats& before, const remote::RemoteStats& after) {
  const double n = st.iterations() ? static_cast<double>(st.iterations()) : 1.0;
  st.counters["bytes_sent"] = static_cast<double>(after.bytes_sent - before.bytes_sent) / n;
  st.counters["bytes_received"] = static_cast<double>(after.bytes_received - before.bytes_received) / n;
  st.counters["round_trips"] = static_cast<double>(after.round_trips - before.round_trips) / n;
  st.counters["batches"] = static_cast<double>(after.batches - before.batches) / n;
  // Which ops waited ("round_trips:sync", ...): an op the client could not predict shows up here.
  for (const auto& [op, count] : after.round_trips_by_op) {
    const auto was = before.round_trips_by_op.find(op);
    const uint64_t delta = count - (was == before.round_trips_by_op.end() ? 0 : was->second);
    if (delta) st.counters["round_trips:" + op] = static_cast<double>(delta) / n;
  }
}

}  // namespace burn::bench
