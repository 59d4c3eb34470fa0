// Jobs of test ranks on 127.0.0.1 for the distributed suites (burn-collective's and burn-train's):
// started by burn::collective::launch with a time limit (a hang fails the test instead of blocking
// ctest), each rank's output in its own log, and checked to leave no process behind.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "burn/collective/launcher.hpp"

namespace burn::collective::testing {

struct Job {
  LaunchResult result;
  std::vector<std::string> logs;  // by rank
};

struct JobOptions {
  std::vector<std::string> command;
  int nproc = 2;
  bool stop_on_failure = true;
  std::chrono::milliseconds timeout = std::chrono::seconds(90);  // far above what a job needs: reaching it is a hang
  std::vector<std::pair<std::string, std::string>> env;          // after the defaults below
  std::string rendezvous;                                        // empty: a fresh directory
  std::string run_id;                                            // empty: a random one
};

// The summary and every rank's log, for a failed expectation's message.
inline std::string all_logs(const Job& job) {
  std::string s = job.result.summary + "\n";
  for (size_t r = 0; r < job.logs.size(); ++r) s += "--- rank " + std::to_string(r) + ":\n" + job.logs[r];
  return s;
}

// A test with a fresh folder of its own (the ranks' logs, and whatever the ranks write).
class JobTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "burn-distributed-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // Runs the job to its end: one thread per rank (BURN_NUM_THREADS=1), collectives timing out after
  // 60 s unless the job's env says otherwise.
  Job run_job(const JobOptions& options) {
    LaunchOptions o;
    o.command = options.command;
    o.nproc = options.nproc;
    o.output_dir = dir_.string();
    o.timeout = options.timeout;
    o.grace = std::chrono::milliseconds(500);
    o.forward_signals = false;
    o.stop_on_failure = options.stop_on_failure;
    o.rendezvous = options.rendezvous;
    o.run_id = options.run_id;
    o.env = {{"BURN_COLLECTIVE_TIMEOUT_S", "60"}, {"BURN_NUM_THREADS", "1"}, {"OPENBLAS_NUM_THREADS", "1"}};
    o.env.insert(o.env.end(), options.env.begin(), options.env.end());
    Job job;
    job.result = launch(o);
    for (int r = 0; r < options.nproc; ++r) {
      std::ifstream in(dir_ / ("rank-" + std::to_string(r) + ".log"));
      std::stringstream text;
      text << in.rdbuf();
      job.logs.push_back(text.str());
    }
    // No rank and nothing a rank started is left.
    for (const auto& s : job.result.ranks) {
      EXPECT_EQ(::kill(s.pid, 0), -1) << "rank " << s.rank << " (pid " << s.pid << ") is still there";
      EXPECT_EQ(::kill(-s.pid, 0), -1) << "rank " << s.rank << "'s process group is still there";
    }
    return job;
  }

  std::filesystem::path dir_;
};

}  // namespace burn::collective::testing
