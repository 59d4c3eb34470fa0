// Data-parallel training on 2 and 3 ranks of burn-train-data-parallel-rank (data_parallel_rank.cpp),
// started by the launcher with one thread each and a time limit; each rank checks its own values
// and prints "ok:" or "FAIL:" lines. In process: the sharded sampler.
#include <gtest/gtest.h>
#include <signal.h>

#include <regex>

#include "burn/data/dataloader.hpp"
#include "burn/tensor/tensor.hpp"
#include "launch_job.hpp"

using namespace burn;
using burn::collective::testing::all_logs;
using burn::collective::testing::Job;

namespace {

class DataParallelJob : public burn::collective::testing::JobTest {
 protected:
  Job run(std::vector<std::string> args, int nproc, bool stop_on_failure = true) {
    burn::collective::testing::JobOptions o;
    o.command = {BURN_DATA_PARALLEL_RANK};
    o.command.insert(o.command.end(), args.begin(), args.end());
    o.nproc = nproc;
    o.stop_on_failure = stop_on_failure;
    return run_job(o);
  }
  // Every rank ended well and printed `checks` ok lines and no FAIL.
  void expect_passed(const Job& job, int nproc, size_t checks) {
    ASSERT_EQ(job.result.exit_code, 0) << all_logs(job);
    for (int r = 0; r < nproc; ++r) {
      const std::string& log = job.logs[static_cast<size_t>(r)];
      EXPECT_EQ(log.find("FAIL"), std::string::npos) << all_logs(job);
      size_t oks = 0;
      for (size_t at = log.find("ok: "); at != std::string::npos; at = log.find("ok: ", at + 1)) ++oks;
      EXPECT_GE(oks, checks) << all_logs(job);
    }
  }
};

// 5 SGD and 5 Adam steps: bitwise the same on every rank, one process's values within the bound
// (bitwise for the dyadic first step on 2 ranks), bucketed = per-parameter, a layout fixed after step 1.
TEST_F(DataParallelJob, StepsOnTwoRanks) { expect_passed(run({"steps"}, 2), 2, 21); }
TEST_F(DataParallelJob, StepsOnThreeRanks) { expect_passed(run({"steps"}, 3), 3, 20); }

// DataParallelConfig::overlap off: the all-reduces wait for the end of backward, with the same values.
TEST_F(DataParallelJob, AllReduceAfterBackwardEqualsTheOverlapBitwise) {
  expect_passed(run({"after-backward"}, 2), 2, 16);
}

TEST_F(DataParallelJob, AccumulationEqualsOneStepOnTheWholeBatch) {
  expect_passed(run({"accumulate"}, 2), 2, 3);
  expect_passed(run({"accumulate"}, 3), 3, 3);
}

// A parameter left out of later steps gets a zero gradient there, not one left in a reused bucket.
TEST_F(DataParallelJob, AParameterWithoutAGradientCountsAsZeroInLaterSteps) {
  expect_passed(run({"unused"}, 2), 2, 3);
  expect_passed(run({"unused"}, 3), 3, 3);
}

TEST_F(DataParallelJob, BroadcastOverwritesAnotherInitOnRankOne) {
  expect_passed(run({"broadcast"}, 2), 2, 3);
  expect_passed(run({"broadcast"}, 3), 3, 3);
}

// A checkpoint of a 2-rank Learner run resumes on 2 ranks to the same parameters, bit for bit, as
// the run without a stop; only rank 0 writes in the folder.
TEST_F(DataParallelJob, ACheckpointOfTwoRanksResumesBitExactlyOnTwoRanks) {
  const std::string straight = (dir_ / "straight").string(), resumed = (dir_ / "resumed").string();
  const Job a = run({"learner", straight, "2", "0"}, 2);
  ASSERT_EQ(a.result.exit_code, 0) << all_logs(a);
  const Job b1 = run({"learner", resumed, "1", "0"}, 2);
  ASSERT_EQ(b1.result.exit_code, 0) << all_logs(b1);
  const Job b2 = run({"learner", resumed, "2", "1"}, 2);
  ASSERT_EQ(b2.result.exit_code, 0) << all_logs(b2);
  const std::regex digest("params ([0-9a-f]+) steps ([0-9]+)");
  std::smatch ma, mb, m1;
  ASSERT_TRUE(std::regex_search(a.logs[0], ma, digest)) << all_logs(a);
  ASSERT_TRUE(std::regex_search(b2.logs[1], mb, digest)) << all_logs(b2);
  ASSERT_TRUE(std::regex_search(b1.logs[0], m1, digest)) << all_logs(b1);
  EXPECT_EQ(ma[1], mb[1]) << all_logs(a) << all_logs(b2);
  EXPECT_EQ(ma[2], mb[2]);
  EXPECT_NE(m1[1], ma[1]) << "the first half must differ from the whole run";
  // 96 items in 2 shards of 48, batches of 16: 3 steps an epoch.
  EXPECT_EQ(ma[2], "6");
  EXPECT_EQ(m1[2], "3");
  // One set of checkpoints (rank 0's), no temporary file left.
  size_t checkpoints = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(resumed) / "checkpoints")) {
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
    ++checkpoints;
  }
  EXPECT_GE(checkpoints, 1u);
}

// Rank 1 is SIGKILLed after its forward of step 2: the others fail in that step's all-reduce at once
// (the collective timeout is 60 s, the job's limit 90 s), naming rank 1; no process is left.
void expect_peer_death_reported(const Job& job, int nproc) {
  ASSERT_FALSE(job.result.timed_out) << all_logs(job);
  ASSERT_EQ(job.result.failed_rank, 1) << all_logs(job);
  EXPECT_EQ(job.result.ranks[1].signal, SIGKILL) << all_logs(job);
  for (int r = 0; r < nproc; ++r) {
    if (r == 1) continue;
    EXPECT_EQ(job.result.ranks[static_cast<size_t>(r)].exit_code, 3) << all_logs(job);
    const std::regex named("error: \\[collective\\.all_reduce\\] rank " + std::to_string(r) + " of " +
                           std::to_string(nproc) +
                           ": (peer |peers rank [0-9]+ \\(pid [0-9]+\\), )rank 1 \\(pid [0-9]+\\)");
    EXPECT_TRUE(std::regex_search(job.logs[static_cast<size_t>(r)], named)) << all_logs(job);
  }
}

TEST_F(DataParallelJob, AKilledRankMidStepIsNamedByTheOthersOnTwoRanks) {
  const auto start = std::chrono::steady_clock::now();
  expect_peer_death_reported(run({"kill"}, 2, false), 2);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30)) << "not at once";
}
TEST_F(DataParallelJob, AKilledRankMidStepIsNamedByTheOthersOnThreeRanks) {
  expect_peer_death_reported(run({"kill"}, 3, false), 3);
}

// The sampler: disjoint shards of one permutation per epoch; batch k of the shards together is batch
// k of one loader with the whole batch.
TEST(ShardedLoader, ShardsAreDisjointAndMakeTheWholeBatch) {
  for (size_t world : {2u, 3u}) {
    for (uint64_t epoch : {0u, 1u}) {
      data::LoaderOptions whole{.batch_size = 4 * world, .shuffle = true, .seed = 7};
      const auto all = data::LoaderEngine::epoch_indices(50, whole, epoch);
      std::vector<size_t> seen;
      std::vector<std::vector<size_t>> shards;
      for (size_t r = 0; r < world; ++r) {
        data::LoaderOptions o{.batch_size = 4, .shuffle = true, .seed = 7, .num_shards = world, .shard_index = r};
        shards.push_back(data::LoaderEngine::epoch_indices(50, o, epoch));
        EXPECT_EQ(shards.back().size(), 50 / world);
        seen.insert(seen.end(), shards.back().begin(), shards.back().end());
      }
      std::sort(seen.begin(), seen.end());
      EXPECT_EQ(std::adjacent_find(seen.begin(), seen.end()), seen.end()) << "shards overlap";
      for (size_t k = 0; k < (50 / world) / 4; ++k) {
        std::vector<size_t> joined, single(all.begin() + static_cast<long>(k * 4 * world),
                                           all.begin() + static_cast<long>((k + 1) * 4 * world));
        for (const auto& s : shards)
          joined.insert(joined.end(), s.begin() + static_cast<long>(k * 4), s.begin() + static_cast<long>((k + 1) * 4));
        std::sort(joined.begin(), joined.end());
        std::sort(single.begin(), single.end());
        EXPECT_EQ(joined, single) << "world " << world << " epoch " << epoch << " batch " << k;
      }
    }
  }
  const auto e0 = data::LoaderEngine::epoch_indices(50, {.shuffle = true, .seed = 7, .num_shards = 2}, 0);
  const auto e1 = data::LoaderEngine::epoch_indices(50, {.shuffle = true, .seed = 7, .num_shards = 2}, 1);
  EXPECT_NE(e0, e1) << "a new permutation each epoch";
  try {
    data::LoaderEngine(10, {.batch_size = 2, .num_shards = 2, .shard_index = 2}, 0, 0,
                       [](size_t, const size_t*, size_t) {});
    ADD_FAILURE() << "no error for shard 2 of 2";
  } catch (const data::DataError& e) {
    EXPECT_NE(std::string(e.what()).find("shard_index 2 of num_shards 2"), std::string::npos) << e.what();
  }
}

}  // namespace
