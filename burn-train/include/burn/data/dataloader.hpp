// Batcher and DataLoader (Burn's burn::data::dataloader). An epoch takes the dataset's indices in
// order, or shuffled by permutation(n, derive_seed(seed, epoch)) (rng.hpp), cuts them into batches of
// batch_size (the last one shorter unless drop_last), and builds batch k from the items of slice k.
// Batches are handed out in order 0, 1, 2... whatever the number of workers, so the same seed and
// epoch give the same batches in the same order with 0 workers (built on the consumer's thread) or N.
// The engine (threads, bounded prefetch, ordering, errors) is LoaderEngine in dataloader.cpp; the
// templates below only build a batch into a slot.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "burn/data/dataset.hpp"
#include "burn/data/export.hpp"

namespace burn::data {

// Turns the items of a batch into the batch (tensors, usually). Called from the loader's workers at
// the same time: batch() must be thread-safe (const, no shared mutable state).
template <typename I, typename B>
class Batcher {
 public:
  virtual ~Batcher() = default;
  virtual B batch(std::vector<I> items) const = 0;
};

// A Batcher from a function or lambda.
template <typename I, typename B>
class FnBatcher : public Batcher<I, B> {
 public:
  explicit FnBatcher(std::function<B(std::vector<I>)> f) : f_(std::move(f)) {}
  B batch(std::vector<I> items) const override { return f_(std::move(items)); }

 private:
  std::function<B(std::vector<I>)> f_;
};

struct LoaderOptions {
  size_t batch_size = 1;
  bool shuffle = false;  // a new permutation each epoch, from `seed` and the epoch number
  uint64_t seed = 0;
  size_t num_workers = 0;  // 0: batches are built on the consumer's thread when asked for
  size_t prefetch = 0;     // batches built ahead (ready or in flight) at most; 0: 2 per worker
  bool drop_last = false;  // drop the last batch when it is shorter than batch_size
  // Data-parallel sampling: this loader reads shard `shard_index` of `num_shards` (a rank of a job),
  // the items at positions shard_index, shard_index + num_shards, ... of the epoch's order (one seeded
  // permutation, the same on every rank), so the shards are disjoint and, batch for batch, together
  // make the batch of num_shards * batch_size a single loader would give. The order's last
  // n mod num_shards items are left out so that every shard has n / num_shards items.
  size_t num_shards = 1;
  size_t shard_index = 0;
};

// Items handed to the consumer so far in this epoch, and in the whole epoch.
struct Progress {
  size_t items_processed = 0;
  size_t items_total = 0;
};

// The non-template engine of one epoch. `work(slot, indices, count)` builds the batch of the dataset
// items indices[0..count) into the caller's slot `slot` (< num_slots()); a slot is not reused before
// the batch in it has been taken by next() and next() is called again.
class BURN_DATA_API LoaderEngine {
 public:
  using Work = std::function<void(size_t slot, const size_t* indices, size_t count)>;
  static constexpr size_t npos = ~size_t{0};

  // Epoch `epoch` of a dataset of `dataset_size` items, starting at batch `start_batch` (a resumed
  // epoch: the batches before it are skipped, not built). Throws DataError for batch_size 0 or a
  // start beyond the epoch's batches.
  LoaderEngine(size_t dataset_size, const LoaderOptions& options, uint64_t epoch, size_t start_batch, Work work);
  ~LoaderEngine();
  LoaderEngine(const LoaderEngine&) = delete;
  LoaderEngine& operator=(const LoaderEngine&) = delete;

  size_t num_slots() const { return slots_for(options_); }
  // The slots an engine with these options uses: prefetch, or 2 per worker, at least 1 and the workers.
  static size_t slots_for(const LoaderOptions& options);
  // The slot of the next batch in order (waiting for it), or npos when the epoch is done. An
  // exception thrown by `work` for that batch is rethrown here, as the same object, and ends the epoch.
  size_t next();
  Progress progress() const;
  size_t num_batches() const;
  size_t batches_done() const;  // batches handed out, counting the skipped start

  // The batches of an epoch and its items, as the engine counts them.
  static size_t count_batches(size_t dataset_size, size_t batch_size, bool drop_last);
  // The dataset indices of the epoch, in order (iota or the epoch's permutation), of this shard.
  static std::vector<size_t> epoch_indices(size_t dataset_size, const LoaderOptions& options, uint64_t epoch);
  // The items of one shard's epoch: dataset_size / num_shards (dataset_size for one shard).
  static size_t shard_size(size_t dataset_size, const LoaderOptions& options);

 private:
  struct State;
  LoaderOptions options_;
  std::unique_ptr<State> s_;
};

namespace detail {
// DataError: the loader asked a dataset for an index it says it holds and got nothing.
[[noreturn]] BURN_DATA_API void throw_missing_item(size_t index, size_t size);
}  // namespace detail

template <typename I, typename B>
class DataLoader {
 public:
  // One epoch: next() returns the batches in order, then nullopt. Also a range of B (for (auto b : it)).
  class Iter {
   public:
    std::optional<B> next() {
      size_t slot = st_->engine->next();
      if (slot == LoaderEngine::npos) return std::nullopt;
      std::optional<B> out = std::move(st_->slots[slot]);
      st_->slots[slot].reset();
      return out;
    }
    Progress progress() const { return st_->engine->progress(); }
    size_t num_batches() const { return st_->engine->num_batches(); }
    size_t batches_done() const { return st_->engine->batches_done(); }

    class iterator {
     public:
      using iterator_category = std::input_iterator_tag;
      using value_type = B;
      using difference_type = std::ptrdiff_t;
      iterator() = default;
      explicit iterator(Iter* it) : it_(it), cur_(it->next()) {}
      B& operator*() { return *cur_; }
      iterator& operator++() { return cur_ = it_->next(), *this; }
      bool operator==(std::default_sentinel_t) const { return !cur_.has_value(); }

     private:
      Iter* it_ = nullptr;
      std::optional<B> cur_;
    };
    iterator begin() { return iterator(this); }
    std::default_sentinel_t end() { return {}; }

   private:
    friend class DataLoader;
    // Slots before the engine: the engine's destructor joins the workers that write into them.
    struct State {
      std::unique_ptr<std::optional<B>[]> slots;
      std::unique_ptr<LoaderEngine> engine;
    };
    explicit Iter(std::unique_ptr<State> st) : st_(std::move(st)) {}
    std::unique_ptr<State> st_;
  };

  DataLoader(DatasetPtr<I> dataset, std::shared_ptr<const Batcher<I, B>> batcher, LoaderOptions options)
      : ds_(std::move(dataset)), batcher_(std::move(batcher)), opt_(options) {}

  // The next epoch (0, 1, 2... counted by this loader).
  Iter iter() { return iter_at(epoch_++, 0); }
  // Epoch `epoch` from batch `start_batch` on (resuming); the loader's epoch counter becomes epoch + 1.
  Iter iter_at(uint64_t epoch, size_t start_batch) {
    epoch_ = epoch + 1;
    auto st = std::make_unique<typename Iter::State>();
    auto* slots_raw = &st->slots;
    auto work = [ds = ds_, batcher = batcher_, slots_raw](size_t slot, const size_t* idx, size_t n) {
      std::vector<I> items;
      items.reserve(n);
      for (size_t k = 0; k < n; ++k) {
        std::optional<I> item = ds->get(idx[k]);
        if (!item) detail::throw_missing_item(idx[k], ds->size());
        items.push_back(std::move(*item));
      }
      (*slots_raw)[slot].emplace(batcher->batch(std::move(items)));
    };
    // The slots exist before the engine starts its workers.
    st->slots = std::make_unique<std::optional<B>[]>(LoaderEngine::slots_for(opt_));
    st->engine = std::make_unique<LoaderEngine>(ds_->size(), opt_, epoch, start_batch, std::move(work));
    return Iter(std::move(st));
  }

  uint64_t epoch() const { return epoch_; }  // the epoch the next iter() runs
  void set_epoch(uint64_t e) { epoch_ = e; }
  const LoaderOptions& options() const { return opt_; }
  size_t num_items() const { return ds_->size(); }
  size_t num_batches() const {
    return LoaderEngine::count_batches(LoaderEngine::shard_size(ds_->size(), opt_), opt_.batch_size, opt_.drop_last);
  }

 private:
  DatasetPtr<I> ds_;
  std::shared_ptr<const Batcher<I, B>> batcher_;
  LoaderOptions opt_;
  uint64_t epoch_ = 0;
};

}  // namespace burn::data
