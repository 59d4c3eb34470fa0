// A small persistent thread pool for the recorder plugins (zstd, hdf5): run(n, fn) calls fn(item, worker) for
// items 0..n-1 on the workers and the calling thread (worker 0; others 1..threads()-1, so per-thread
// state can be indexed by it) and returns when all are done, rethrowing the first exception.
// Persistent because a record has hundreds of entries and thread start-up would show in a load.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace burn::record::plugin_detail {

// Threads for a pool: `requested` when positive, else BURN_NUM_THREADS, else the hardware's.
inline unsigned thread_count(int requested) {
  if (requested > 0) return static_cast<unsigned>(requested);
  if (const char* env = std::getenv("BURN_NUM_THREADS"); env && std::atoi(env) > 0) {
    return static_cast<unsigned>(std::atoi(env));
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

class Pool {
 public:
  explicit Pool(unsigned threads) {
    for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this, i] { work(i); });
  }
  ~Pool() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
  }
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  size_t threads() const { return workers_.size() + 1; }

  void run(size_t n, const std::function<void(size_t, size_t)>& fn) {
    if (n == 0) return;
    if (workers_.empty() || n == 1) {
      for (size_t i = 0; i < n; ++i) fn(i, 0);
      return;
    }
    {
      std::unique_lock lock(mutex_);
      // A worker that woke late for the previous run may still be draining its empty counter.
      finished_.wait(lock, [&] { return active_ == 0; });
      fn_ = &fn;
      n_ = n;
      next_.store(0);
      done_ = 0;
      failed_.store(false);
      error_ = nullptr;
      ++generation_;
    }
    wake_.notify_all();
    drain(0);
    std::unique_lock lock(mutex_);
    finished_.wait(lock, [&] { return done_ == n_ && active_ == 0; });
    fn_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  // Takes items until none are left; counts each one done. After a failure the remaining items are
  // only counted: nobody waits for results that will be thrown away.
  void drain(size_t worker) {
    for (;;) {
      const size_t i = next_.fetch_add(1);
      if (i >= n_) return;
      if (!failed_.load()) {
        try {
          (*fn_)(i, worker);
        } catch (...) {
          std::lock_guard lock(mutex_);
          if (!error_) error_ = std::current_exception();
          failed_.store(true);
        }
      }
      std::lock_guard lock(mutex_);
      if (++done_ == n_) finished_.notify_all();
    }
  }

  void work(size_t worker) {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        ++active_;
      }
      drain(worker);
      std::lock_guard lock(mutex_);
      if (--active_ == 0) finished_.notify_all();
    }
  }

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, finished_;
  const std::function<void(size_t, size_t)>* fn_ = nullptr;
  size_t n_ = 0;
  std::atomic<size_t> next_{0};
  size_t done_ = 0;
  size_t active_ = 0;  // workers inside drain()
  std::atomic<bool> failed_{false};
  std::exception_ptr error_;
  uint64_t generation_ = 0;
  bool stop_ = false;
};

}  // namespace burn::record::plugin_detail
