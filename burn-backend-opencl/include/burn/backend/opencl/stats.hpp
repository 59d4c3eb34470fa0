// The opencl plugin's counters, reached through query_interface("opencl-stats") on any chain over an
// OpenCL device (decorators forward it): a pointer to the device context's live OpenClStats. Header-only
// and free of OpenCL's headers, so tests and benchmarks outside the plugin (bench/gpu) can read them.
#pragma once

#include <cstdint>
#include <string_view>

namespace burn::opencl {

inline constexpr std::string_view kOpenClStatsInterface = "opencl-stats";

struct OpenClStats {
  uint64_t launches = 0;        // kernels enqueued
  uint64_t compiled = 0;        // programs built from source
  uint64_t from_disk = 0;       // programs loaded from the disk cache
  uint64_t pool_hits = 0;       // allocations served from the pool
  uint64_t buffers = 0;         // buffers created
  uint64_t bytes_held = 0;      // bytes of every buffer burn holds (in use or pooled)
  uint64_t blocks_written = 0;  // small argument blocks (layouts, index tables) uploaded, not found cached
};

}  // namespace burn::opencl
