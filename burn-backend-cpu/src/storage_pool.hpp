// A process-wide cache of large (>= 1 MiB) buffers behind the cpu backend's Storage, so that a fresh
// output reuses pages already faulted in instead of page-faulting a new mmap on every op.
#pragma once

#include <cstddef>

namespace burn::cpu {

// Buffers of at least this many bytes go through the pool; smaller ones use aligned_alloc.
inline constexpr size_t kPoolMinBytes = size_t(1) << 20;

// A page-aligned buffer of at least `bytes` (>= kPoolMinBytes): a cached one of the same size class
// when there is one, else a fresh mapping (huge pages advised). nullptr when out of memory.
void* pool_acquire(size_t bytes);
// Gives back a buffer from pool_acquire(bytes) with the same `bytes`; it is cached while the byte
// budget allows (the least recently cached buffers are unmapped first), else unmapped.
void pool_release(void* p, size_t bytes);

// The size class (the bytes actually mapped) of a request: 2^k, 1.25, 1.5 or 1.75 x 2^k.
size_t pool_class_bytes(size_t bytes);
// The cache's byte budget: BURN_CPU_POOL_BYTES (0 disables caching), else RAM / 4.
size_t pool_budget();
// Bytes held in cached (free) buffers now.
size_t pool_cached_bytes();
// Unmaps every cached buffer.
void pool_trim();

// Whether a kernel writing `bytes` of results in one pass should use streaming (non-temporal) stores:
// when they are at least half the last-level cache, the result displaces most of what the cache held
// anyway (its input needs the other half), so reading each line before writing it (what a normal
// store does) costs memory bandwidth and keeps nothing useful. BURN_CPU_STREAMING_STORES=off: never;
// =on: always (tests run the streaming paths on small tensors this way).
bool streaming_stores_pay(size_t bytes);
// The last-level cache's size in bytes (sysfs, else sysconf), 0 when unknown.
size_t last_level_cache_bytes();

}  // namespace burn::cpu
