// Dataset, InMemDataset and the transforms: exact items and orders, seeds, and argument errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "burn/data/dataset.hpp"
#include "burn/data/rng.hpp"
#include "tmp_dir.hpp"

using namespace burn::data;
using burn::data::test::error_of;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

DatasetPtr<int> range_ds(int n, int start = 0) {
  std::vector<int> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), start);
  return std::make_shared<InMemDataset<int>>(v);
}

template <typename T>
std::vector<T> all(const Dataset<T>& ds) {
  return std::vector<T>(ds.begin(), ds.end());
}

}  // namespace

TEST(Rng, GeneratorIsTheStandardsMt19937_64) {
  // [rand.predef]: the 10000th output of a default-constructed mt19937_64.
  Rng rng;
  rng.discard(9999);
  EXPECT_EQ(rng(), 9981545732273789042ull);
}

TEST(Rng, SplitMixAndDerivedSeeds) {
  // SplitMix64's reference outputs for state 0 are splitmix64(0), splitmix64(0x9E37..15) (Vigna).
  EXPECT_EQ(splitmix64(0), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(splitmix64(0x9E3779B97F4A7C15ull), 0x6E789E6AA1B965F4ull);
  EXPECT_EQ(derive_seed(42, 3), splitmix64(splitmix64(42) ^ 3));
  EXPECT_NE(derive_seed(42, 0), derive_seed(42, 1));
}

TEST(Rng, UniformBelowIsUnbiasedAndInRange) {
  Rng rng(1);
  std::vector<int> counts(6);
  for (int i = 0; i < 60000; ++i) ++counts[uniform_below(rng, 6)];
  for (int c : counts) EXPECT_NEAR(c, 10000, 400);
  EXPECT_EQ(uniform_below(rng, 1), 0u);
}

TEST(Rng, PermutationIsFisherYatesOverMt19937_64) {
  // The algorithm of rng.hpp, written out: the order a seed gives is pinned, not just "some order".
  Rng rng(7);
  std::vector<size_t> want(10);
  std::iota(want.begin(), want.end(), size_t{0});
  for (size_t i = 10; i > 1; --i) {
    uint64_t n = i, threshold = (0 - n) % n, r;
    do r = rng();
    while (r < threshold);
    std::swap(want[i - 1], want[r % n]);
  }
  EXPECT_EQ(permutation(10, 7), want);
  std::vector<size_t> sorted = permutation(1000, 3);
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) ASSERT_EQ(sorted[i], i);
  EXPECT_NE(permutation(1000, 3), permutation(1000, 4));
  EXPECT_TRUE(permutation(0, 1).empty());
}

TEST(InMemDataset, GetSizeAndIteration) {
  InMemDataset<std::string> ds({"a", "b", "c"});
  EXPECT_EQ(ds.size(), 3u);
  EXPECT_EQ(ds.get(1), "b");
  EXPECT_EQ(ds.get(3), std::nullopt);
  EXPECT_THAT(all(ds), ElementsAre("a", "b", "c"));
  auto copy = to_in_memory(*range_ds(4, 10));
  EXPECT_THAT(copy->items(), ElementsAre(10, 11, 12, 13));
}

TEST(MapperDataset, MapsEachItem) {
  MapperDataset<int, std::string> ds(range_ds(3), [](const int& x) { return std::string(size_t(x), '*'); });
  EXPECT_THAT(all(ds), ElementsAre("", "*", "**"));
  EXPECT_EQ(ds.get(3), std::nullopt);
}

TEST(PartialDataset, RangeAndSplits) {
  auto base = range_ds(10);
  PartialDataset<int> part(base, 3, 6);
  EXPECT_THAT(all(part), ElementsAre(3, 4, 5));
  EXPECT_EQ(part.get(3), std::nullopt);
  auto parts = PartialDataset<int>::split(base, 3);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_THAT(all(*parts[0]), ElementsAre(0, 1, 2, 3));
  EXPECT_THAT(all(*parts[1]), ElementsAre(4, 5, 6));
  EXPECT_THAT(all(*parts[2]), ElementsAre(7, 8, 9));
  auto tv = PartialDataset<int>::split_fractions(base, {0.8, 0.2});
  EXPECT_THAT(all(*tv[0]), ElementsAre(0, 1, 2, 3, 4, 5, 6, 7));
  EXPECT_THAT(all(*tv[1]), ElementsAre(8, 9));
  EXPECT_THAT(error_of([&] { PartialDataset<int>(base, 4, 11); }),
              HasSubstr("range [4, 11) does not fit a dataset of 10 items"));
  EXPECT_THAT(error_of([&] { PartialDataset<int>::split_fractions(base, {0.5, 0.4}); }), HasSubstr("sum to 0.9"));
  EXPECT_THAT(error_of([&] { PartialDataset<int>::split(base, 0); }), HasSubstr("number of parts must be at least 1"));
}

TEST(ShuffledDataset, IsThePermutationOfItsSeed) {
  auto base = range_ds(20, 100);
  ShuffledDataset<int> a(base, 5), b(base, 5), c(base, 6);
  std::vector<int> want;
  for (size_t i : permutation(20, 5)) want.push_back(100 + int(i));
  EXPECT_EQ(all(a), want);
  EXPECT_EQ(all(a), all(b));
  EXPECT_NE(all(a), all(c));
  std::vector<int> sorted = all(a);
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, all(*base));
}

TEST(SamplerDataset, WithoutReplacementCyclesThroughPermutations) {
  auto base = range_ds(4);
  SamplerDataset<int> s(base, 10, false, 9);
  std::vector<int> got = all(s);
  ASSERT_EQ(got.size(), 10u);
  // Two full permutations then two items of a third, all from one mt19937_64(9) stream.
  Rng rng(9);
  std::vector<int> want;
  for (int k = 0; k < 3; ++k)
    for (size_t i : permutation(4, rng)) want.push_back(int(i));
  want.resize(10);
  EXPECT_EQ(got, want);
  std::map<int, int> counts;
  for (int v : got) ++counts[v];
  for (auto [v, c] : counts) EXPECT_TRUE(c == 2 || c == 3) << v;
}

TEST(SamplerDataset, WithReplacementDrawsUniformIndices) {
  auto base = range_ds(3, 50);
  SamplerDataset<int> s(base, 3000, true, 1);
  Rng rng(1);
  std::map<int, int> counts;
  for (size_t i = 0; i < s.size(); ++i) {
    int v = *s.get(i);
    ASSERT_EQ(v, 50 + int(uniform_below(rng, 3)));
    ++counts[v];
  }
  EXPECT_EQ(counts.size(), 3u);
  for (auto [v, c] : counts) EXPECT_NEAR(c, 1000, 120);
  EXPECT_THAT(error_of([] { SamplerDataset<int>(range_ds(0), 2, true, 1); }), HasSubstr("empty dataset"));
}

TEST(SelectionDataset, SelectsAndChecksIndices) {
  SelectionDataset<int> s(range_ds(5, 10), {4, 0, 4, 2});
  EXPECT_THAT(all(s), ElementsAre(14, 10, 14, 12));
  EXPECT_THAT(error_of([] {
                SelectionDataset<int>(range_ds(5), {1, 5});
              }),
              HasSubstr("index 5 (selection entry 1) is out of range for a dataset of 5 items"));
}

TEST(WindowsDataset, ConsecutiveWindows) {
  WindowsDataset<int> w(range_ds(5), 3);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_THAT(*w.get(0), ElementsAre(0, 1, 2));
  EXPECT_THAT(*w.get(2), ElementsAre(2, 3, 4));
  EXPECT_EQ(w.get(3), std::nullopt);
  EXPECT_EQ(WindowsDataset<int>(range_ds(2), 3).size(), 0u);
  EXPECT_THAT(error_of([] { WindowsDataset<int>(range_ds(2), 0); }), HasSubstr("window size must be at least 1"));
}

TEST(ComposedDataset, Concatenates) {
  ComposedDataset<int> c({range_ds(2, 0), range_ds(0), range_ds(3, 10), range_ds(1, 20)});
  EXPECT_EQ(c.size(), 6u);
  EXPECT_THAT(all(c), ElementsAre(0, 1, 10, 11, 12, 20));
  EXPECT_EQ(c.get(6), std::nullopt);
  EXPECT_EQ(ComposedDataset<int>({}).size(), 0u);
}
