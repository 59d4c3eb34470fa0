// detail::host_alloc's cache of freed blocks from 64 KiB to 2 MiB (TensorData's bytes and the cpu plugin's
// mid-sized buffers): reuse by power-of-two class, the byte budget with the least recently freed given
// back first, 64-byte alignment, and (under ASan) a kept block or a class's slack reported when touched.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "burn/tensor/data.hpp"
#include "burn/tensor/detail/host_cache.hpp"

using namespace burn;
using burn::detail::host_alloc;
using burn::detail::host_cache_stats;
using burn::detail::host_cache_trim;
using burn::detail::host_free;

namespace {

constexpr size_t kMiB = size_t{1} << 20;

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAsan = true;
#else
constexpr bool kAsan = false;
#endif
#else
constexpr bool kAsan = false;
#endif

}  // namespace

// Every case starts from an empty cache; BURN_HOST_SMALL_CACHE_BYTES=0 turns it off. (Outside the
// anonymous namespace: the test classes derived from it are not in it.)
class HostCache : public ::testing::Test {
 protected:
  void SetUp() override {
    if (host_cache_stats().small_budget < 8 * kMiB) GTEST_SKIP() << "BURN_HOST_SMALL_CACHE_BYTES is below 8 MiB";
    host_cache_trim();
  }
  void TearDown() override { host_cache_trim(); }
};

TEST_F(HostCache, ReusesAFreedBlockOfTheSameClass) {
  auto* p = static_cast<uint8_t*>(host_alloc(100'000));
  std::memset(p, 7, 100'000);
  host_free(p, 100'000);
  EXPECT_EQ(host_cache_stats().small_held, size_t{128} << 10);  // its class: 2^17
  // Another size of the same class gets the same block, and the cache is empty again.
  void* q = host_alloc(120'000);
  EXPECT_EQ(q, p);
  EXPECT_EQ(host_cache_stats().small_held, 0u);
  // A different class does not take it.
  host_free(q, 120'000);
  void* r = host_alloc(300'000);
  EXPECT_NE(r, p);
  EXPECT_EQ(host_cache_stats().small_held, size_t{128} << 10);
  host_free(r, 300'000);
  EXPECT_EQ(host_cache_stats().small_held, (size_t{128} << 10) + (size_t{512} << 10));
}

TEST_F(HostCache, BlocksAre64ByteAlignedAndWholeAfterReuse) {
  for (size_t bytes : {size_t{65536}, size_t{65537}, size_t{100'003}, kMiB - 1, kMiB, kMiB + 1, 2 * kMiB - 1}) {
    for (int round = 0; round < 2; ++round) {  // fresh, then the kept block
      auto* p = static_cast<uint8_t*>(host_alloc(bytes));
      EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u) << bytes << " bytes, round " << round;
      std::memset(p, 0xab, bytes);
      EXPECT_EQ(p[bytes - 1], 0xab);
      host_free(p, bytes);
    }
  }
  // One block per class is kept (each round took the one before back); below 64 KiB nothing is.
  void* small = host_alloc(1000);
  host_free(small, 1000);
  EXPECT_EQ(host_cache_stats().small_held, (size_t{64} + 128 + 1024 + 2048) << 10);
}

TEST_F(HostCache, BudgetGivesBackTheLeastRecentlyFreed) {
  const size_t budget = host_cache_stats().small_budget;
  const size_t n = budget / kMiB + 4;  // 4 blocks of 1 MiB more than the budget holds
  std::vector<void*> blocks(n);
  for (auto& b : blocks) b = host_alloc(kMiB);
  for (void* b : blocks) host_free(b, kMiB);
  EXPECT_EQ(host_cache_stats().small_held, budget / kMiB * kMiB);
  // The cache hands out the most recently freed first, and the first 4 freed are gone.
  const size_t kept = budget / kMiB;
  std::set<void*> got;
  for (size_t i = 0; i < kept; ++i) {
    void* p = host_alloc(kMiB);
    if (i == 0) EXPECT_EQ(p, blocks.back());
    got.insert(p);
  }
  EXPECT_EQ(host_cache_stats().small_held, 0u);
  EXPECT_EQ(got, std::set<void*>(blocks.end() - static_cast<std::ptrdiff_t>(kept), blocks.end()));
  for (void* p : got) host_free(p, kMiB);
  EXPECT_EQ(host_cache_stats().small_held, kept * kMiB);
}

TEST_F(HostCache, ThreadsAllocateAndFreeConcurrently) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t] {
      for (int i = 0; i < 500; ++i) {
        const size_t bytes = (size_t{64} << 10) << ((t + i) % 5);
        auto* p = static_cast<uint8_t*>(host_alloc(bytes));
        p[0] = p[bytes - 1] = static_cast<uint8_t>(t);
        EXPECT_EQ(p[0] + p[bytes - 1], 2 * t);
        host_free(p, bytes);
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_LE(host_cache_stats().small_held, host_cache_stats().small_budget);
}

TEST_F(HostCache, AsanReportsAUseOfAKeptBlockOrOfTheSlack) {
  if (!kAsan) GTEST_SKIP() << "ASan builds only";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        auto* p = static_cast<volatile uint8_t*>(host_alloc(100'000));
        host_free(const_cast<uint8_t*>(p), 100'000);
        p[10] = 1;
      },
      "use-after-poison");
  EXPECT_DEATH(
      {
        auto* p = static_cast<volatile uint8_t*>(host_alloc(100'000));
        p[100'000] = 1;  // inside the 128 KiB class, past the block
      },
      "use-after-poison");
}
