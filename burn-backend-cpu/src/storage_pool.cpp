// The large-buffer cache behind Storage: size-classed, byte-budgeted, thread-safe. A buffer enters
// the cache only from Storage's destructor, i.e. once no view references it any more.
#include "storage_pool.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define BURN_POOL_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define BURN_POOL_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define BURN_POOL_POISON(p, n) ((void)(p), (void)(n))
#define BURN_POOL_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace burn::cpu {
namespace {

constexpr size_t kHugePage = size_t(2) << 20;

size_t parse_bytes(const char* s, bool* ok) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s, &end, 10);
  *ok = end != s;
  size_t mul = 1;
  if (*ok && *end) {
    switch (*end) {
      case 'k':
      case 'K': mul = size_t(1) << 10; break;
      case 'm':
      case 'M': mul = size_t(1) << 20; break;
      case 'g':
      case 'G': mul = size_t(1) << 30; break;
      default: *ok = false;
    }
  }
  size_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<size_t>(v), mul, &bytes)) return SIZE_MAX;
  return bytes;
}

size_t default_budget() {
  if (const char* env = std::getenv("BURN_CPU_POOL_BYTES")) {
    bool ok = false;
    const size_t v = parse_bytes(env, &ok);
    if (ok) return v;
  }
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  const size_t ram = pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) : 0;
  // A quarter of RAM, uncapped: the cache only ever holds what the program itself had mapped at its peak, and a
  // training step's transient buffers (RoBERTa-base at batch 8: more than 2 GiB) must fit or every step maps
  // and zero-fills them afresh (with a 2 GiB cap: 28% of that step's time in the kernel's clear_page).
  return ram == 0 ? size_t(2) << 30 : ram / 4;
}

// A fresh mapping of `bytes` (a size class); 2 MiB aligned when large, so whole huge pages fit.
void* map_fresh(size_t bytes) {
  if (bytes < 2 * kHugePage) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? nullptr : p;
  }
  // Over-map by one huge page and cut the unaligned head and tail off.
  const size_t span = bytes + kHugePage;
  void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const uintptr_t b = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t a = (b + kHugePage - 1) & ~(kHugePage - 1);
  if (a > b) munmap(raw, a - b);
  const uintptr_t tail = a + bytes, end = b + span;
  if (end > tail) munmap(reinterpret_cast<void*>(tail), end - tail);
  void* p = reinterpret_cast<void*>(a);
#ifdef MADV_HUGEPAGE
  madvise(p, bytes, MADV_HUGEPAGE);  // fewer faults and TLB misses; a no-op where THP is off
#endif
  return p;
}

struct Entry {
  void* p;
  size_t bytes;
  uint64_t stamp;
};

class Pool {
 public:
  Pool() : budget_(default_budget()) {}

  void* acquire(size_t cls) {
    {
      std::lock_guard<std::mutex> lk(mutex_);
      // The most recently cached buffer of the class: its pages are the likeliest still in cache.
      size_t best = cached_.size();
      for (size_t i = 0; i < cached_.size(); ++i)
        if (cached_[i].bytes == cls && (best == cached_.size() || cached_[i].stamp > cached_[best].stamp)) best = i;
      if (best != cached_.size()) {
        void* p = cached_[best].p;
        held_ -= cls;
        cached_[best] = cached_.back();
        cached_.pop_back();
        BURN_POOL_UNPOISON(p, cls);
        return p;
      }
    }
    void* p = map_fresh(cls);
    if (!p) {
      // Out of address space or memory: give the cache back and try once more.
      trim();
      p = map_fresh(cls);
    }
    return p;
  }

  // Runs in Storage's destructor, so it must not throw: when the cache's bookkeeping cannot grow
  // (bad_alloc), the buffer is unmapped instead of cached.
  void release(void* p, size_t cls) noexcept {
    std::vector<Entry> evicted;
    bool cached = false;
    try {
      std::lock_guard<std::mutex> lk(mutex_);
      if (cls <= budget_) {
        // Room first, so nothing below can throw once the cache starts changing.
        if (cached_.size() == cached_.capacity()) cached_.reserve(2 * cached_.size() + 8);
        if (held_ + cls > budget_) evicted.reserve(cached_.size());
        // Oldest first out until the new one fits.
        while (held_ + cls > budget_ && !cached_.empty()) {
          const auto it = std::min_element(cached_.begin(), cached_.end(),
                                           [](const Entry& a, const Entry& b) { return a.stamp < b.stamp; });
          evicted.push_back(*it);
          held_ -= it->bytes;
          *it = cached_.back();
          cached_.pop_back();
        }
        BURN_POOL_POISON(p, cls);
        cached_.push_back({p, cls, ++clock_});
        held_ += cls;
        cached = true;
      }
    } catch (...) {
      // Nothing was changed before the failing reserve; `evicted` holds only buffers already out.
    }
    if (!cached) munmap(p, cls);
    // Unmapping outside the lock: munmap of a large buffer takes a while.
    for (const Entry& e : evicted) {
      BURN_POOL_UNPOISON(e.p, e.bytes);
      munmap(e.p, e.bytes);
    }
  }

  void trim() {
    std::vector<Entry> all;
    {
      std::lock_guard<std::mutex> lk(mutex_);
      all.swap(cached_);
      held_ = 0;
    }
    for (const Entry& e : all) {
      BURN_POOL_UNPOISON(e.p, e.bytes);
      munmap(e.p, e.bytes);
    }
  }

  size_t budget() const { return budget_; }
  size_t held() {
    std::lock_guard<std::mutex> lk(mutex_);
    return held_;
  }

 private:
  const size_t budget_;
  std::mutex mutex_;
  std::vector<Entry> cached_;
  size_t held_ = 0;
  uint64_t clock_ = 0;
};

// Never destroyed: Storage objects in other static destructors may still give buffers back.
Pool& pool() {
  static Pool* p = new Pool();
  return *p;
}

}  // namespace

size_t pool_class_bytes(size_t bytes) {
  if (bytes <= kPoolMinBytes) return kPoolMinBytes;
  // 2^k times 1, 1.25, 1.5 or 1.75: at most 25% above the request.
  const int k = std::bit_width(bytes - 1) - 1;  // 2^k < bytes <= 2^(k+1)
  const size_t quarter = (size_t(1) << k) / 4;
  return ((bytes + quarter - 1) / quarter) * quarter;
}

void* pool_acquire(size_t bytes) { return pool().acquire(pool_class_bytes(bytes)); }
void pool_release(void* p, size_t bytes) {
  if (p) pool().release(p, pool_class_bytes(bytes));
}
size_t pool_budget() { return pool().budget(); }
size_t pool_cached_bytes() { return pool().held(); }
void pool_trim() { pool().trim(); }

// The size of the highest cache level cpu 0 has, as sysfs reports it (what the core shares with its
// neighbours: 32 MiB on the development VM, whose CPUID-derived sysconf value is the whole socket's
// 256 MiB); else sysconf's L3 or L2; 0 when nothing says.
size_t last_level_cache_bytes() {
  size_t best = 0;
  int best_level = 0;
  for (int i = 0; i < 16; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    std::ifstream level_file(dir + "level"), size_file(dir + "size"), type_file(dir + "type");
    int level = 0;
    std::string size, type;
    if (!(level_file >> level) || !(size_file >> size) || !(type_file >> type)) break;
    if (type == "Instruction" || level < best_level || size.empty()) continue;
    size_t mul = 1;
    if (size.back() == 'K') mul = size_t(1) << 10;
    if (size.back() == 'M') mul = size_t(1) << 20;
    const size_t v = std::strtoull(size.c_str(), nullptr, 10) * mul;
    if (v > 0) best = v, best_level = level;
  }
  if (best > 0) return best;
  long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (llc <= 0) llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
  return llc > 0 ? static_cast<size_t>(llc) : 0;
}

bool streaming_stores_pay(size_t bytes) {
  static const size_t threshold = [] {
    const char* env = std::getenv("BURN_CPU_STREAMING_STORES");
    if (env && std::strcmp(env, "off") == 0) return SIZE_MAX;
    if (env && std::strcmp(env, "on") == 0) return size_t(0);
    const size_t llc = last_level_cache_bytes();
    return llc > 0 ? llc / 2 : size_t(16) << 20;
  }();
  return bytes >= threshold;
}

}  // namespace burn::cpu
