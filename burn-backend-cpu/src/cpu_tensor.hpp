// CPU backend internals: the strided tensor primitive, storage, dtype dispatch and the thread pool.
// Private to the plugin; nothing here is installed.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "burn/tensor/backend.hpp"
#include "burn/tensor/error.hpp"

namespace burn::cpu {

// A 64-byte aligned, uninitialised buffer.
struct Storage {
  explicit Storage(size_t bytes);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  void* data = nullptr;
  size_t bytes = 0;
  // Times reusable() let an op write its result here in place (how the pack cache knows a weight changed).
  std::atomic<uint64_t> writes{0};

 private:
  void* block_ = nullptr;  // what malloc returned for a small buffer (data is rounded up from it)
};

// Bytes of every live Storage and their peak, for query_interface("memory").
MemoryStats& storage_stats();

// A strided view over a Storage. permute, transpose, slice, expand and flip only make new views;
// strides are in elements and may be 0 (expand) or negative (flip).
class CpuTensor final : public Primitive {
 public:
  CpuTensor(Shape shape, DType dtype, std::shared_ptr<Storage> storage, std::vector<int64_t> strides, int64_t offset);

  const std::shared_ptr<Storage>& storage() const { return storage_; }
  const std::vector<int64_t>& strides() const { return strides_; }
  int64_t offset() const { return offset_; }
  bool is_contiguous() const { return contiguous_; }

  template <typename T>
  T* data() const {
    return static_cast<T*>(storage_->data) + offset_;
  }
  void* raw() const { return static_cast<uint8_t*>(storage_->data) + offset_ * dtype_size(dtype()); }

 private:
  std::shared_ptr<Storage> storage_;
  std::vector<int64_t> strides_;
  int64_t offset_;
  bool contiguous_;
};
using CpuPtr = std::shared_ptr<CpuTensor>;

// The CpuTensor behind a primitive; DeviceError naming `op` if it came from another backend.
CpuPtr as_cpu(const Prim& p, const char* op);
// A new contiguous tensor (uninitialised). ShapeError for a shape int64 cannot count, OutOfMemory
// naming the running op (current_op) and the bytes when they cannot be had.
CpuPtr alloc(const Shape& shape, DType dtype);
// The op an allocation failure names: the api op being run, else "cpu alloc".
const char* alloc_op();
// `x` itself when contiguous, else a contiguous copy.
CpuPtr contiguous(const CpuPtr& x);
// A contiguous copy of any strided tensor into `dst` (same shape and dtype, dst contiguous).
void copy_strided(const CpuTensor& src, CpuTensor& dst);
// True when `p` is the caller's only handle to a contiguous buffer of this shape and dtype that
// nothing else views, so an elementwise op may write its result there (counted in Storage::writes).
bool reusable(const Prim& p, const Shape& shape, DType dtype);
// A view with new shape/strides/offset over x's storage.
CpuPtr make_view(const CpuPtr& x, Shape shape, std::vector<int64_t> strides, int64_t offset);

// parallel_for's pool path (n > grain): splits [0, n) over the persistent pool's threads.
void parallel_for_pooled(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

// Calls fn(begin, end) over [0, n) on the persistent pool; runs inline when n <= grain, without
// wrapping fn in a std::function (which allocates for most lambdas: a cost every small op paid).
template <typename F>
void parallel_for(int64_t n, int64_t grain, F&& fn) {
  if (n <= 0) return;
  if (n <= grain || n == 1) {  // a grain below 1 counts as 1
    fn(int64_t{0}, n);
    return;
  }
  parallel_for_pooled(n, grain, fn);
}
size_t num_threads();
void set_num_threads(size_t n);

// Tasks [0, total) claimed one at a time from both ends, for kernels that balance their threads
// themselves: chunk 0 of a parallel_for over the threads takes them from the front, the other chunks
// from the back, so on 2 threads each walks its own end of the work in order and a thread that starts
// late or runs slower (a busy core) just claims fewer. The blocked convs order their tasks (tile, panel),
// panels innermost, and rebuild a tile's input only when they move to another tile, so on 2 threads at
// most the one tile where the two meet is built twice (claimed from the front only, both threads took the
// panels of every tile in turns and each built every tile). (Past 2^32 tasks, all from the front.)
class TaskClaims {
 public:
  explicit TaskClaims(int64_t total)
      : wide_(total >= (int64_t{1} << 32)), total_(total), range_(wide_ ? 0 : static_cast<uint64_t>(total) << 32) {}
  int64_t next(bool back) {
    if (wide_) {
      const int64_t t = static_cast<int64_t>(range_.fetch_add(1, std::memory_order_relaxed));
      return t < total_ ? t : -1;
    }
    uint64_t r = range_.load(std::memory_order_relaxed);
    for (;;) {
      const uint64_t lo = r & 0xffffffffu, hi = r >> 32;
      if (lo >= hi) return -1;
      const uint64_t nr = back ? (hi - 1) << 32 | lo : hi << 32 | (lo + 1);
      if (range_.compare_exchange_weak(r, nr, std::memory_order_relaxed))
        return static_cast<int64_t>(back ? hi - 1 : lo);
    }
  }

 private:
  bool wide_;
  int64_t total_;
  std::atomic<uint64_t> range_;
};

// Walks every element of a strided shape in row-major order, yielding element offsets.
// Used by the generic (non-contiguous) paths; contiguous paths index directly.
struct StridedIndexer {
  StridedIndexer(const Shape& shape, const std::vector<int64_t>& strides);
  // Offset (in elements, relative to the view's base) of the flat row-major index i.
  int64_t offset_of(int64_t i) const;
  std::vector<int64_t> dims, strides;
};

}  // namespace burn::cpu
