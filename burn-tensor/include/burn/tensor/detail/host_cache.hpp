// The caches behind detail::host_alloc (data.hpp): blocks from kHostBlockMinBytes to 2 MiB come from malloc
// in power-of-two classes and are kept when freed up to BURN_HOST_SMALL_CACHE_BYTES (default 64 MiB: glibc
// would return them to the system between a training step and the next and fault them in again); blocks of
// 2 MiB and more are mapped and kept up to BURN_HOST_CACHE_BYTES. Blocks of kHostBlockMinBytes and more are
// 64-byte aligned. Internal: for the cpu plugin's mid-sized buffers and the tests.
#pragma once

#include <cstddef>

#include "burn/tensor/export.hpp"

namespace burn::detail {

inline constexpr size_t kHostBlockMinBytes = size_t{64} << 10;

// Bytes held in the two caches of freed blocks now, and their budgets.
struct HostCacheStats {
  size_t small_held = 0, small_budget = 0, large_held = 0, large_budget = 0;
};
BURN_TENSOR_API HostCacheStats host_cache_stats();
// Gives every cached block back (to glibc or the system).
BURN_TENSOR_API void host_cache_trim() noexcept;

}  // namespace burn::detail
