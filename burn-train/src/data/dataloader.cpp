// LoaderEngine: the threads, the bounded prefetch and the ordering of a DataLoader epoch.
//
// Batch k goes into slot k % num_slots. Workers take batches in increasing k, but only while
// k < released + num_slots (released: batches whose slot the consumer has given back), so at most
// num_slots batches are ready or in flight and a slot is never overwritten before it was taken. The
// consumer waits for exactly batch `consumed` in its slot, which is what makes the order independent
// of the number of workers and of their timing.
#include <condition_variable>
#include <exception>
#include <mutex>
#include <numeric>
#include <thread>

#include "burn/data/dataloader.hpp"
#include "burn/data/rng.hpp"

namespace burn::data {

struct LoaderEngine::State {
  Work work;
  std::vector<size_t> indices;
  size_t batch_size = 1, num_batches = 0, num_slots = 1, start_batch = 0;
  size_t items_total = 0, items_done = 0;

  std::mutex mu;
  std::condition_variable cv_work, cv_ready;
  size_t assigned = 0;   // next batch a worker takes
  size_t consumed = 0;   // next batch the consumer takes
  size_t released = 0;   // batches whose slot is free again
  bool holding = false;  // the consumer holds the slot of batch consumed - 1
  bool stop = false;
  std::vector<size_t> done_batch;  // per slot: the batch last completed in it (npos: none)
  std::vector<std::exception_ptr> errors;
  std::vector<std::thread> workers;

  size_t count(size_t k) const { return std::min(batch_size, indices.size() - k * batch_size); }

  void worker_loop() {
    std::unique_lock lock(mu);
    for (;;) {
      cv_work.wait(lock, [&] { return stop || assigned >= num_batches || assigned < released + num_slots; });
      if (stop || assigned >= num_batches) return;
      size_t k = assigned++, slot = k % num_slots;
      lock.unlock();
      std::exception_ptr err;
      try {
        work(slot, indices.data() + k * batch_size, count(k));
      } catch (...) {
        err = std::current_exception();
      }
      lock.lock();
      errors[slot] = err;
      done_batch[slot] = k;
      cv_ready.notify_all();
    }
  }
};

size_t LoaderEngine::slots_for(const LoaderOptions& o) {
  size_t slots = o.prefetch ? o.prefetch : 2 * std::max<size_t>(1, o.num_workers);
  return std::max<size_t>({slots, o.num_workers, 1});
}

size_t LoaderEngine::count_batches(size_t n, size_t batch_size, bool drop_last) {
  if (batch_size == 0) return 0;
  return drop_last ? n / batch_size : (n + batch_size - 1) / batch_size;
}

std::vector<size_t> LoaderEngine::epoch_indices(size_t n, const LoaderOptions& o, uint64_t epoch) {
  std::vector<size_t> idx;
  if (o.shuffle) {
    idx = permutation(n, derive_seed(o.seed, epoch));
  } else {
    idx.resize(n);
    std::iota(idx.begin(), idx.end(), size_t{0});
  }
  if (o.num_shards <= 1) return idx;
  // Strided, so that batch k of every shard together is batch k of one loader with num_shards times
  // the batch size.
  std::vector<size_t> shard(shard_size(n, o));
  for (size_t i = 0; i < shard.size(); ++i) shard[i] = idx[i * o.num_shards + o.shard_index];
  return shard;
}

size_t LoaderEngine::shard_size(size_t n, const LoaderOptions& o) { return o.num_shards <= 1 ? n : n / o.num_shards; }

LoaderEngine::LoaderEngine(size_t n, const LoaderOptions& o, uint64_t epoch, size_t start_batch, Work work)
    : options_(o), s_(std::make_unique<State>()) {
  if (o.batch_size == 0) throw DataError("data::DataLoader", "batch_size must be at least 1, got 0");
  if (o.num_shards == 0 || o.shard_index >= o.num_shards) {
    throw DataError("data::DataLoader", "shard_index " + std::to_string(o.shard_index) + " of num_shards " +
                                            std::to_string(o.num_shards) + ": expected 0 <= shard_index < num_shards");
  }
  const size_t items = shard_size(n, o);
  State& s = *s_;
  s.work = std::move(work);
  s.batch_size = o.batch_size;
  s.num_batches = count_batches(items, o.batch_size, o.drop_last);
  if (start_batch > s.num_batches) {
    throw DataError("data::DataLoader", "cannot start epoch " + std::to_string(epoch) + " (0-based) at batch " +
                                            std::to_string(start_batch) + ": it has " + std::to_string(s.num_batches) +
                                            " batches");
  }
  s.indices = epoch_indices(n, o, epoch);
  s.indices.resize(std::min(items, s.num_batches * o.batch_size));  // drop_last: the tail is never read
  s.items_total = s.indices.size();
  s.start_batch = s.assigned = s.consumed = s.released = start_batch;
  s.items_done = std::min(s.items_total, start_batch * o.batch_size);
  s.num_slots = slots_for(o);
  s.done_batch.assign(s.num_slots, npos);
  s.errors.resize(s.num_slots);
  size_t threads = std::min(o.num_workers, s.num_batches - start_batch);
  try {
    for (size_t i = 0; i < threads; ++i) s.workers.emplace_back([&s] { s.worker_loop(); });
  } catch (...) {  // no destructor runs for a throwing constructor: stop the threads already started
    {
      std::lock_guard lock(s.mu);
      s.stop = true;
    }
    s.cv_work.notify_all();
    for (auto& t : s.workers) t.join();
    throw;
  }
}

LoaderEngine::~LoaderEngine() {
  {
    std::lock_guard lock(s_->mu);
    s_->stop = true;
  }
  s_->cv_work.notify_all();
  for (auto& t : s_->workers) t.join();
}

size_t LoaderEngine::next() {
  State& s = *s_;
  std::unique_lock lock(s.mu);
  if (s.holding) {
    s.holding = false;
    ++s.released;
    s.cv_work.notify_one();
  }
  if (s.stop || s.consumed >= s.num_batches) return npos;
  size_t k = s.consumed, slot = k % s.num_slots;
  if (s.workers.empty()) {
    // No workers: build the batch here; an exception simply propagates (and ends the epoch).
    lock.unlock();
    try {
      s.work(slot, s.indices.data() + k * s.batch_size, s.count(k));
    } catch (...) {
      lock.lock();
      s.stop = true;
      throw;
    }
    lock.lock();
  } else {
    s.cv_ready.wait(lock, [&] { return s.done_batch[slot] == k; });
    if (s.errors[slot]) {
      std::exception_ptr err = std::exchange(s.errors[slot], nullptr);
      s.stop = true;
      s.cv_work.notify_all();
      std::rethrow_exception(err);
    }
  }
  ++s.consumed;
  s.holding = true;
  s.items_done += s.count(k);
  return slot;
}

Progress LoaderEngine::progress() const {
  std::lock_guard lock(s_->mu);
  return {s_->items_done, s_->items_total};
}

size_t LoaderEngine::num_batches() const { return s_->num_batches; }

size_t LoaderEngine::batches_done() const {
  std::lock_guard lock(s_->mu);
  return s_->consumed;
}

namespace detail {
void throw_missing_item(size_t index, size_t size) {
  throw DataError("data::DataLoader", "the dataset returned no item for index " + std::to_string(index) +
                                          " although its size is " + std::to_string(size));
}
}  // namespace detail

}  // namespace burn::data
