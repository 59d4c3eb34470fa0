// DataLoader: exact batches and orders, the same batches whatever the workers, drop_last, progress,
// resuming mid-epoch, the prefetch bound, and worker errors reaching the consumer unchanged.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <numeric>
#include <thread>

#include "burn/data/dataloader.hpp"
#include "burn/data/rng.hpp"
#include "tmp_dir.hpp"

using namespace burn::data;
using burn::data::test::error_of;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

using Batch = std::vector<int>;

DatasetPtr<int> range_ds(int n) {
  std::vector<int> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return std::make_shared<InMemDataset<int>>(v);
}

std::shared_ptr<const Batcher<int, Batch>> identity() {
  return std::make_shared<FnBatcher<int, Batch>>([](std::vector<int> items) { return items; });
}

std::vector<Batch> epoch(DataLoader<int, Batch>& loader) {
  std::vector<Batch> out;
  auto it = loader.iter();
  for (auto& b : it) out.push_back(b);
  return out;
}

// A dataset whose get() takes a little time at random, so that workers finish out of order.
class SlowDataset : public Dataset<int> {
 public:
  explicit SlowDataset(int n) : n_(n) {}
  std::optional<int> get(size_t i) const override {
    if (i >= size()) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::microseconds((i * 7919) % 300));
    return int(i);
  }
  size_t size() const override { return size_t(n_); }

 private:
  int n_;
};

struct CustomError : std::runtime_error {
  using std::runtime_error::runtime_error;
  int code = 42;
};

// Throws CustomError for item `bad`.
class FailingDataset : public Dataset<int> {
 public:
  FailingDataset(int n, size_t bad) : n_(n), bad_(bad) {}
  std::optional<int> get(size_t i) const override {
    if (i == bad_) throw CustomError("item " + std::to_string(i) + " is broken");
    return i < size() ? std::optional<int>(int(i)) : std::nullopt;
  }
  size_t size() const override { return size_t(n_); }

 private:
  int n_;
  size_t bad_;
};

}  // namespace

TEST(DataLoader, SequentialBatches) {
  DataLoader<int, Batch> loader(range_ds(10), identity(), {.batch_size = 3});
  EXPECT_EQ(loader.num_batches(), 4u);
  EXPECT_THAT(epoch(loader),
              ElementsAre(ElementsAre(0, 1, 2), ElementsAre(3, 4, 5), ElementsAre(6, 7, 8), ElementsAre(9)));
}

TEST(DataLoader, DropLast) {
  DataLoader<int, Batch> loader(range_ds(10), identity(), {.batch_size = 3, .num_workers = 2, .drop_last = true});
  EXPECT_EQ(loader.num_batches(), 3u);
  EXPECT_THAT(epoch(loader), ElementsAre(ElementsAre(0, 1, 2), ElementsAre(3, 4, 5), ElementsAre(6, 7, 8)));
  DataLoader<int, Batch> small(range_ds(2), identity(), {.batch_size = 3, .drop_last = true});
  EXPECT_TRUE(epoch(small).empty());
}

TEST(DataLoader, ShuffleFollowsTheDocumentedSeeds) {
  // Epoch e is permutation(n, derive_seed(seed, e)) cut into batches: rng.hpp's contract.
  DataLoader<int, Batch> loader(range_ds(11), identity(), {.batch_size = 4, .shuffle = true, .seed = 123});
  for (uint64_t e = 0; e < 3; ++e) {
    std::vector<size_t> perm = permutation(11, derive_seed(123, e));
    std::vector<Batch> got = epoch(loader);
    ASSERT_EQ(got.size(), 3u);
    std::vector<int> flat;
    for (auto& b : got) flat.insert(flat.end(), b.begin(), b.end());
    EXPECT_EQ(flat, std::vector<int>(perm.begin(), perm.end())) << "epoch " << e;
    EXPECT_EQ(got[2].size(), 3u);
  }
  EXPECT_EQ(loader.epoch(), 3u);
}

TEST(DataLoader, SameSeedSameBatchesWhateverTheWorkers) {
  auto ds = std::make_shared<SlowDataset>(203);
  std::vector<std::vector<Batch>> runs;
  for (size_t workers : {0, 1, 3}) {
    DataLoader<int, Batch> loader(ds, identity(),
                                  {.batch_size = 8, .shuffle = true, .seed = 2024, .num_workers = workers});
    std::vector<Batch> two_epochs = epoch(loader);
    auto second = epoch(loader);
    two_epochs.insert(two_epochs.end(), second.begin(), second.end());
    runs.push_back(two_epochs);
  }
  ASSERT_EQ(runs[0].size(), 2u * 26u);
  EXPECT_EQ(runs[0][25].size(), 203u % 8u);
  EXPECT_NE(runs[0][0], runs[0][26]);  // epochs are shuffled differently
  EXPECT_EQ(runs[1], runs[0]);
  EXPECT_EQ(runs[2], runs[0]);
}

TEST(DataLoader, Progress) {
  DataLoader<int, Batch> loader(range_ds(10), identity(), {.batch_size = 4, .num_workers = 2});
  auto it = loader.iter();
  EXPECT_EQ(it.progress().items_processed, 0u);
  EXPECT_EQ(it.progress().items_total, 10u);
  std::vector<size_t> done;
  while (it.next()) done.push_back(it.progress().items_processed);
  EXPECT_THAT(done, ElementsAre(4u, 8u, 10u));
  EXPECT_EQ(it.batches_done(), 3u);
  DataLoader<int, Batch> dropping(range_ds(10), identity(), {.batch_size = 4, .drop_last = true});
  EXPECT_EQ(dropping.iter().progress().items_total, 8u);
}

TEST(DataLoader, ResumeMidEpochGivesTheRestOfThatEpoch) {
  LoaderOptions opt{.batch_size = 3, .shuffle = true, .seed = 77, .num_workers = 2};
  DataLoader<int, Batch> full(range_ds(20), identity(), opt);
  full.set_epoch(4);
  std::vector<Batch> whole = epoch(full);
  DataLoader<int, Batch> resumed(range_ds(20), identity(), opt);
  auto it = resumed.iter_at(4, 5);
  EXPECT_EQ(it.progress().items_processed, 15u);
  std::vector<Batch> rest;
  for (auto& b : it) rest.push_back(b);
  EXPECT_EQ(rest, std::vector<Batch>(whole.begin() + 5, whole.end()));
  EXPECT_EQ(resumed.epoch(), 5u);
  EXPECT_THAT(error_of([&] { resumed.iter_at(0, 8); }),
              HasSubstr("cannot start epoch 0 (0-based) at batch 8: it has 7 batches"));
}

TEST(DataLoader, PrefetchIsBounded) {
  // A worker may start batch k only while k < batches taken + slots: it never runs further ahead.
  std::atomic<size_t> taken{0}, violations{0}, max_ahead{0};
  auto batcher = std::make_shared<FnBatcher<int, Batch>>([&](std::vector<int> items) {
    size_t k = size_t(items[0]) / 2, t = taken.load();
    if (k >= t + 3) ++violations;
    size_t ahead = k > t ? k - t : 0;
    size_t m = max_ahead.load();
    while (ahead > m && !max_ahead.compare_exchange_weak(m, ahead)) {
    }
    return items;
  });
  DataLoader<int, Batch> loader(range_ds(200), batcher, {.batch_size = 2, .num_workers = 3, .prefetch = 3});
  auto it = loader.iter();
  int n = 0;
  while (auto b = it.next()) {
    ++taken;
    ASSERT_EQ((*b)[0], 2 * n++);
    if (n % 10 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));  // let the workers run ahead
  }
  EXPECT_EQ(n, 100);
  EXPECT_EQ(violations.load(), 0u);
  EXPECT_LE(max_ahead.load(), 2u);
}

TEST(DataLoader, WorkerErrorsReachTheConsumerUnchanged) {
  for (size_t workers : {0, 1, 3}) {
    DataLoader<int, Batch> loader(std::make_shared<FailingDataset>(30, 13), identity(),
                                  {.batch_size = 4, .num_workers = workers});
    auto it = loader.iter();
    int good = 0;
    try {
      while (it.next()) ++good;
      ADD_FAILURE() << "no error with " << workers << " workers";
    } catch (const CustomError& e) {
      EXPECT_STREQ(e.what(), "item 13 is broken");
      EXPECT_EQ(e.code, 42);
    }
    EXPECT_EQ(good, 3) << workers << " workers";  // batches 0..2 came before the broken batch 3
    EXPECT_FALSE(it.next().has_value());          // the epoch ended with the error
  }
}

TEST(DataLoader, AbandonedEpochStopsItsWorkers) {
  DataLoader<int, Batch> loader(std::make_shared<SlowDataset>(1000), identity(), {.batch_size = 5, .num_workers = 3});
  {
    auto it = loader.iter();
    ASSERT_TRUE(it.next());
  }  // joins the workers: no thread outlives the epoch
  auto it = loader.iter();
  EXPECT_THAT(*it.next(), ElementsAre(0, 1, 2, 3, 4));
  EXPECT_THAT(error_of([] { DataLoader<int, Batch>(range_ds(3), identity(), {.batch_size = 0}).iter(); }),
              HasSubstr("batch_size must be at least 1"));
}
