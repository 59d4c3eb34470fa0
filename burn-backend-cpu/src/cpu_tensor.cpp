// CPU backend internals: aligned storage, strided views, strided copies and the persistent thread pool.
#include "cpu_tensor.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <typeinfo>

#include "burn/tensor/data.hpp"
#include "burn/tensor/detail/host_cache.hpp"
#include "elementwise.hpp"
#include "ops/blas.hpp"
#include "storage_pool.hpp"

// Weak so the plugin still loads against a BLAS that is not OpenBLAS (the call is then skipped).

namespace burn::cpu {

// ---------------------------------------------------------------------------------------------
// Storage and views

namespace {

// Counts live storage bytes; the peak is raised with a CAS loop so concurrent allocations agree.
class StorageStats final : public MemoryStats {
 public:
  void add(size_t n) {
    const uint64_t now = in_use_.fetch_add(n, std::memory_order_relaxed) + n;
    uint64_t peak = peak_.load(std::memory_order_relaxed);
    while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
    }
  }
  void sub(size_t n) { in_use_.fetch_sub(n, std::memory_order_relaxed); }
  uint64_t bytes_in_use() const override { return in_use_.load(std::memory_order_relaxed); }
  uint64_t peak_bytes_in_use() const override { return peak_.load(std::memory_order_relaxed); }
  void reset_peak() override { peak_.store(in_use_.load(std::memory_order_relaxed), std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> in_use_{0}, peak_{0};
};

StorageStats& stats() {
  static StorageStats* s = new StorageStats();  // never destroyed: storages may outlive statics
  return *s;
}

}  // namespace

MemoryStats& storage_stats() { return stats(); }

Storage::Storage(size_t n) : bytes(n) {
  try {
    // Large buffers come from the pool (page-aligned, pages already faulted in when reused).
    if (n >= kPoolMinBytes) {
      data = pool_acquire(n);
    } else if (n >= detail::kHostBlockMinBytes) {
      // burn-tensor's cache of mid-sized blocks (64-byte aligned), shared with TensorData's bytes:
      // glibc would trim them off its heap between steps and fault them in again.
      data = detail::host_alloc(n);
    } else {
      // malloc and round up by hand: glibc's aligned_alloc splits a larger chunk and frees the rest,
      // which merges into the top chunk and consolidates the fastbins on every small tensor.
      block_ = std::malloc(std::max<size_t>(n, 1) + 63);
      if (block_) data = reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(block_) + 63) & ~uintptr_t(63));
    }
  } catch (const std::bad_alloc&) {
    data = nullptr;  // the pool's own bookkeeping could not grow: the same answer as a refused mapping
  } catch (const OutOfMemory&) {
    data = nullptr;  // host_alloc's refusal, answered below with this op's name
  }
  if (!data) throw OutOfMemory(alloc_op(), "the system refused " + std::to_string(n) + " bytes for a tensor");
  stats().add(n);
}

// Runs once no view references the buffer any more, so the pool may hand it out again.
Storage::~Storage() {
  stats().sub(bytes);
  if (bytes >= kPoolMinBytes)
    pool_release(data, bytes);
  else if (bytes >= detail::kHostBlockMinBytes)
    detail::host_free(data, bytes);
  else
    std::free(block_);
}

namespace {

bool compute_contiguous(const Shape& shape, const std::vector<int64_t>& strides) {
  int64_t expected = 1;
  for (size_t i = shape.rank(); i-- > 0;) {
    if (shape[i] == 0) return true;  // an empty tensor has nothing to walk
    if (shape[i] == 1) continue;     // a size-1 dim is never stepped, its stride is irrelevant
    if (strides[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

}  // namespace

CpuTensor::CpuTensor(Shape shape, DType dtype, std::shared_ptr<Storage> storage, std::vector<int64_t> strides,
                     int64_t offset)
    : Primitive(std::move(shape), dtype), storage_(std::move(storage)), strides_(std::move(strides)), offset_(offset) {
  if (strides_.size() != this->shape().rank())
    throw ShapeError("view", "shape " + this->shape().to_string() + " has rank " +
                                 std::to_string(this->shape().rank()) + " but " + std::to_string(strides_.size()) +
                                 " strides were given");
  contiguous_ = compute_contiguous(this->shape(), strides_);
  // An empty view reads nothing; its offset (narrow at 2^61 of an empty tensor with a huge dim) would
  // put data() far past the buffer, an overflowing pointer expression.
  for (int64_t d : this->shape())
    if (d == 0) offset_ = 0;
}

CpuPtr as_cpu(const Prim& p, const char* op) {
  if (!p) throw DeviceError(op, "tensor is null (a moved-from or uninitialised tensor)");
  // CpuTensor is final, so comparing the dynamic type is enough, and cheaper than a dynamic_cast
  // (which walks the hierarchy comparing type names) on every op.
  if (typeid(*p) != typeid(CpuTensor))
    throw DeviceError(op, "tensor is not a cpu tensor (it belongs to another backend)");
  return std::static_pointer_cast<CpuTensor>(p);
}

const char* alloc_op() {
  const char* op = current_op();
  return *op ? op : "cpu alloc";
}

CpuPtr alloc(const Shape& shape, DType dtype) {
  // Overflow-checked, and refused up front when larger than the machine: never a wrapped size.
  auto storage = std::make_shared<Storage>(checked_bytes(shape, dtype_size(dtype), alloc_op()));
  return std::make_shared<CpuTensor>(shape, dtype, std::move(storage), contiguous_strides(shape), 0);
}

CpuPtr contiguous(const CpuPtr& x) {
  if (x->is_contiguous()) return x;
  CpuPtr out = alloc(x->shape(), x->dtype());
  copy_strided(*x, *out);
  return out;
}

namespace {

// A transposing copy (the source is unit-stride along some outer dim k but not along the last) done
// in square tiles over (k, last), so both sides stay in cache; false when the layout is not that.
template <typename E>
bool copy_tiled(const LoopPlan<2>& plan, E* d, const E* s) {
  const size_t rank = plan.dims.size();
  const auto& ds = plan.strides[0];
  const auto& ss = plan.strides[1];
  if (rank < 2 || ss.back() == 1 || ss.back() == 0) return false;
  size_t k = rank;
  for (size_t i = 0; i + 1 < rank; ++i)
    if (ss[i] == 1) k = i;
  constexpr int64_t B = 32;
  if (k == rank || plan.dims[k] < B || plan.dims.back() < B) return false;
  const size_t last = rank - 1;
  // The remaining dims are walked as an outer index; each task is one band of B rows of dim k.
  std::vector<size_t> others;
  int64_t outer = 1;
  for (size_t i = 0; i < last; ++i)
    if (i != k) {
      others.push_back(i);
      outer *= plan.dims[i];
    }
  const int64_t nk = plan.dims[k], nl = plan.dims[last];
  const int64_t bands = (nk + B - 1) / B;
  const int64_t dk = ds[k], dl = ds[last], sk = ss[k], sl = ss[last];
  parallel_for(outer * bands, std::max<int64_t>(1, kElementwiseGrain / (B * nl)), [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      int64_t rem = t / bands, doff = 0, soff = 0;
      for (size_t j = others.size(); j-- > 0;) {
        const int64_t i = rem % plan.dims[others[j]];
        rem /= plan.dims[others[j]];
        doff += i * ds[others[j]];
        soff += i * ss[others[j]];
      }
      const int64_t i0 = (t % bands) * B, i1 = std::min(nk, i0 + B);
      for (int64_t j0 = 0; j0 < nl; j0 += B) {
        const int64_t j1 = std::min(nl, j0 + B);
        for (int64_t i = i0; i < i1; ++i) {
          E* dr = d + doff + i * dk;
          const E* sr = s + soff + i * sk;
          for (int64_t j = j0; j < j1; ++j) dr[j * dl] = sr[j * sl];
        }
      }
    }
  });
  return true;
}

template <typename E>
void copy_rows(const CpuTensor& src, const CpuTensor& dst) {
  const Shape& shape = dst.shape();
  const LoopPlan<2> plan(shape, {broadcast_strides(dst, shape), broadcast_strides(src, shape)});
  E* d = static_cast<E*>(dst.raw());
  const E* s = static_cast<const E*>(src.raw());
  if (copy_tiled(plan, d, s)) return;
  for_each_row(plan, kElementwiseGrain, [&](int64_t, int64_t len, const int64_t* offs, const int64_t* in) {
    E* dr = d + offs[0];
    const E* sr = s + offs[1];
    if (in[0] == 1 && in[1] == 1) {
      std::memcpy(dr, sr, static_cast<size_t>(len) * sizeof(E));
    } else if (in[1] == 0) {
      const E v = *sr;
      for (int64_t j = 0; j < len; ++j) dr[j * in[0]] = v;
    } else {
      for (int64_t j = 0; j < len; ++j) dr[j * in[0]] = sr[j * in[1]];
    }
  });
}

}  // namespace

void copy_view(const CpuTensor& src, const CpuTensor& dst) {
  if (src.dtype() != dst.dtype())
    throw DTypeError("copy", "source " + std::string(dtype_name(src.dtype())) + " and destination " +
                                 std::string(dtype_name(dst.dtype())) + " differ");
  if (dst.shape().num_elements() == 0) return;
  switch (dtype_size(dst.dtype())) {
    case 1: copy_rows<uint8_t>(src, dst); break;
    case 2: copy_rows<uint16_t>(src, dst); break;
    case 4: copy_rows<uint32_t>(src, dst); break;
    default: copy_rows<uint64_t>(src, dst); break;
  }
}

void copy_strided(const CpuTensor& src, CpuTensor& dst) {
  if (src.shape() != dst.shape())
    throw ShapeError("copy",
                     "source " + src.shape().to_string() + " and destination " + dst.shape().to_string() + " differ");
  const int64_t n = src.shape().num_elements();
  if (n == 0) return;
  if (src.is_contiguous() && dst.is_contiguous()) {
    const size_t es = dtype_size(src.dtype());
    const auto* s = static_cast<const uint8_t*>(src.raw());
    auto* d = static_cast<uint8_t*>(dst.raw());
    // Large copies are split so several cores share the memory bandwidth.
    parallel_for(n, 1 << 18,
                 [&](int64_t b, int64_t e) { std::memcpy(d + b * es, s + b * es, static_cast<size_t>(e - b) * es); });
    return;
  }
  copy_view(src, dst);
}

bool reusable(const Prim& p, const Shape& shape, DType dtype) {
  if (!p || p.use_count() != 1) return false;
  auto* t = dynamic_cast<CpuTensor*>(p.get());
  if (!(t && t->dtype() == dtype && t->is_contiguous() && t->shape() == shape && t->storage().use_count() == 1))
    return false;
  t->storage()->writes.fetch_add(1, std::memory_order_relaxed);
  return true;
}

CpuPtr make_view(const CpuPtr& x, Shape shape, std::vector<int64_t> strides, int64_t offset) {
  return std::make_shared<CpuTensor>(std::move(shape), x->dtype(), x->storage(), std::move(strides), offset);
}

StridedIndexer::StridedIndexer(const Shape& shape, const std::vector<int64_t>& st) : dims(shape.dims()), strides(st) {}

int64_t StridedIndexer::offset_of(int64_t i) const {
  int64_t off = 0;
  for (size_t d = dims.size(); d-- > 0;) {
    const int64_t n = dims[d];
    if (n == 0) return 0;
    off += (i % n) * strides[d];
    i /= n;
  }
  return off;
}

// ---------------------------------------------------------------------------------------------
// The thread pool: workers are started once and sleep between jobs; the caller runs chunks too.

namespace {

thread_local bool tl_in_parallel = false;  // nested parallel_for calls run inline

// How long the caller of a parallel_for waits by spinning for the other threads' chunks before it sleeps.
constexpr std::chrono::microseconds kJoinSpin{50};

inline void cpu_pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

size_t default_thread_count() {
  if (const char* env = std::getenv("BURN_NUM_THREADS")) {
    char* end = nullptr;
    const long v = std::strtol(env, &end, 10);
    if (end != env && v > 0) return static_cast<size_t>(v);
  }
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : hw;
}

class ThreadPool {
 public:
  explicit ThreadPool(size_t n) { start(n); }
  ~ThreadPool() { stop(); }

  size_t size() const { return size_; }

  void resize(size_t n) {
    std::lock_guard<std::mutex> job(job_mutex_);
    stop();
    start(n);
  }

  // Runs fn over [0, n) in `chunks` pieces; returns false (nothing run) when another thread holds
  // the pool, so that caller runs inline instead of waiting.
  bool run(int64_t n, int64_t chunks, const std::function<void(int64_t, int64_t)>& fn) {
    std::unique_lock<std::mutex> job(job_mutex_, std::try_to_lock);
    if (!job.owns_lock()) return false;
    {
      std::unique_lock<std::mutex> lk(mutex_);
      // Workers still leaving the previous job must be gone before its fields are overwritten.
      idle_cv_.wait(lk, [&] { return active_.load() == 0; });
      fn_ = &fn;
      n_ = n;
      chunks_ = chunks;
      next_.store(0);
      done_.store(0);
      error_ = nullptr;
      ++generation_;
    }
    work_cv_.notify_all();
    tl_in_parallel = true;
    work();
    tl_in_parallel = false;
    // Spin up to kJoinSpin, then sleep, until every claimed chunk has finished: a caller that sleeps must be
    // woken again (a futex wake, on a VM an interrupt to a halted vCPU), dearer than waiting out a last chunk
    // of a few tens of µs. Bounded by time, not by a count of loads (4000 were a few µs).
    const auto give_up = std::chrono::steady_clock::now() + kJoinSpin;
    for (int spins = 0; done_.load(std::memory_order_acquire) < chunks_; ++spins) {
      cpu_pause();
      if ((spins & 63) == 63 && std::chrono::steady_clock::now() > give_up) {
        std::unique_lock<std::mutex> lk(mutex_);
        done_cv_.wait(lk, [&] { return done_.load(std::memory_order_acquire) >= chunks_; });
        break;
      }
    }
    if (error_) std::rethrow_exception(error_);
    return true;
  }

 private:
  void start(size_t n) {
    size_ = std::max<size_t>(1, n);
    stop_ = false;
    for (size_t i = 0; i + 1 < size_; ++i) workers_.emplace_back([this] { worker_loop(); });
    blas_single_threaded();
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lk(mutex_);
      stop_ = true;
    }
    work_cv_.notify_all();
    for (auto& t : workers_) t.join();
    workers_.clear();
  }

  void worker_loop() {
    tl_in_parallel = true;
    uint64_t seen = 0;
    {
      std::lock_guard<std::mutex> lk(mutex_);
      seen = generation_;
    }
    for (;;) {
      {
        std::unique_lock<std::mutex> lk(mutex_);
        work_cv_.wait(lk, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        active_.fetch_add(1);
      }
      work();
      if (active_.fetch_sub(1) == 1) {
        std::lock_guard<std::mutex> lk(mutex_);
        idle_cv_.notify_all();
      }
    }
  }

  // Claims chunks until none is left.
  void work() {
    for (;;) {
      const int64_t c = next_.fetch_add(1);
      if (c >= chunks_) return;
      const int64_t b = n_ * c / chunks_, e = n_ * (c + 1) / chunks_;
      try {
        (*fn_)(b, e);
      } catch (...) {
        std::lock_guard<std::mutex> lk(error_mutex_);
        if (!error_) error_ = std::current_exception();
      }
      if (done_.fetch_add(1, std::memory_order_acq_rel) + 1 == chunks_) {
        std::lock_guard<std::mutex> lk(mutex_);
        done_cv_.notify_all();
      }
    }
  }

  size_t size_ = 1;
  std::vector<std::thread> workers_;
  std::mutex job_mutex_;  // one job at a time
  std::mutex mutex_;      // guards generation_, stop_ and the job fields while they are set
  std::condition_variable work_cv_, idle_cv_, done_cv_;
  uint64_t generation_ = 0;
  bool stop_ = false;
  const std::function<void(int64_t, int64_t)>* fn_ = nullptr;
  int64_t n_ = 0, chunks_ = 0;
  std::atomic<int64_t> next_{0}, done_{0};
  std::atomic<int> active_{0};
  std::mutex error_mutex_;
  std::exception_ptr error_;
};

ThreadPool& pool() {
  static ThreadPool p(default_thread_count());
  return p;
}

}  // namespace

void parallel_for_pooled(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  if (n <= grain || tl_in_parallel) {
    fn(0, n);
    return;
  }
  ThreadPool& p = pool();
  const int64_t chunks = std::min<int64_t>(static_cast<int64_t>(p.size()), (n + grain - 1) / grain);
  if (chunks <= 1 || !p.run(n, chunks, fn)) fn(0, n);
}

size_t num_threads() { return pool().size(); }

void set_num_threads(size_t n) { pool().resize(n == 0 ? default_thread_count() : n); }

}  // namespace burn::cpu
