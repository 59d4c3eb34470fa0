// Packed copies of constant GEMM operands (a layer's weight), cached per storage and view, for the int8
// kernels (quant.cpp) and the packed f32 GEMM (matmul.cpp). An entry holds the storage itself, which keeps
// its use count above one, so no op of this plugin writes into it in place (reusable(), cpu_tensor.hpp) and
// the packed copy cannot go stale; a storage only the cache still holds is dropped on the next call.
// Private to the plugin.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

#include "cpu_tensor.hpp"

namespace burn::cpu {

// When an operand is packed: at its first call (the int8 ops, which only inference runs), or at the second
// call that finds its storage unwritten since the first (Storage::writes): a weight that an optimizer
// updates, in place or into a new storage every step, is then never packed, and an activation only when a
// second product reads it.
enum class PackWhen : uint8_t { FirstCall, SecondCall };

// The packed bytes each cache may hold: a quarter of the RAM (a model's weights are packed once more).
inline size_t pack_cache_budget() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) / 4 : size_t{1} << 30;
}

template <typename Packed>
class PackCache {
 public:
  // `budget`: the packed bytes the cache may hold (`bytes_of` measures one); past it, get() packs nothing.
  PackCache(PackWhen when, size_t budget) : when_(when), budget_(budget) {}

  // The packed form of `w`, made by `make(w)` (outside the lock) when due; nullptr when not (yet) packed.
  template <typename Make, typename BytesOf>
  std::shared_ptr<const Packed> get(const CpuPtr& w, const Make& make, const BytesOf& bytes_of) {
    const Storage* s = w->storage().get();
    ViewKey key{w->offset(), w->strides(), w->shape().dims(), w->dtype()};
    {
      std::lock_guard<std::mutex> lock(mutex_);
      sweep();
      if (auto it = entries_.find(s); it != entries_.end())
        if (auto v = it->second.views.find(key); v != it->second.views.end()) return v->second;
      // Past the budget an int8 weight is still packed for its call; an f32 product runs unpacked.
      if (when_ == PackWhen::SecondCall && (bytes_ >= budget_ || !second_call(w, key))) return nullptr;
    }
    std::shared_ptr<const Packed> packed = std::make_shared<const Packed>(make(w));
    std::lock_guard<std::mutex> lock(mutex_);
    const size_t bytes = bytes_of(*packed);
    ++packs_;
    if (bytes_ + bytes > budget_) return packed;  // used for this call, not kept
    bytes_ += bytes;
    Entry& e = entries_[s];
    e.storage = w->storage();
    auto [it, inserted] = e.views.try_emplace(std::move(key), packed);
    if (!inserted) return it->second;  // another thread packed it first
    e.bytes += bytes;
    return packed;
  }

  // Packs made since the process started (each a miss), and the packed operands held now.
  uint64_t packs() {
    std::lock_guard<std::mutex> lock(mutex_);
    return packs_;
  }
  size_t cached() {
    std::lock_guard<std::mutex> lock(mutex_);
    sweep();
    size_t n = 0;
    for (const auto& [storage, e] : entries_) n += e.views.size();
    return n;
  }

 private:
  struct ViewKey {
    int64_t offset;
    std::vector<int64_t> strides, dims;
    DType dtype;
    bool operator<(const ViewKey& o) const {
      return std::tie(offset, strides, dims, dtype) < std::tie(o.offset, o.strides, o.dims, o.dtype);
    }
  };
  struct Entry {
    std::shared_ptr<Storage> storage;
    std::map<ViewKey, std::shared_ptr<const Packed>> views;
    size_t bytes = 0;
  };
  // A view met once: its storage (not kept alive) and the storage's write count then.
  struct Seen {
    std::weak_ptr<Storage> storage;
    uint64_t writes;
  };

  // Whether this call is the second to find `w` unwritten; records it as the first otherwise. Lock held.
  bool second_call(const CpuPtr& w, const ViewKey& key) {
    const std::shared_ptr<Storage>& s = w->storage();
    const uint64_t writes = s->writes.load(std::memory_order_relaxed);
    auto [it, inserted] = seen_.try_emplace({s.get(), key}, Seen{s, writes});
    if (inserted) {
      if (seen_.size() > 2 * seen_swept_) sweep_seen();
      return false;
    }
    // The same address may be a new storage; the same storage may have been written in place since.
    if (it->second.storage.lock() != s || it->second.writes != writes) {
      it->second = Seen{s, writes};
      return false;
    }
    seen_.erase(it);
    return true;
  }

  // Drops the storages nothing but the cache holds any more. Lock held.
  void sweep() {
    for (auto it = entries_.begin(); it != entries_.end();) {
      if (it->second.storage.use_count() != 1) {
        ++it;
        continue;
      }
      bytes_ -= it->second.bytes;
      it = entries_.erase(it);
    }
  }
  void sweep_seen() {
    for (auto it = seen_.begin(); it != seen_.end();)
      it = it->second.storage.expired() ? seen_.erase(it) : std::next(it);
    seen_swept_ = std::max<size_t>(seen_.size(), 64);
  }

  const PackWhen when_;
  const size_t budget_;
  std::mutex mutex_;
  std::map<const Storage*, Entry> entries_;
  std::map<std::pair<const Storage*, ViewKey>, Seen> seen_;
  size_t seen_swept_ = 64;
  size_t bytes_ = 0;
  uint64_t packs_ = 0;
};

}  // namespace burn::cpu
