// The Learner: it learns, writes its artifacts, resumes bit for bit in a new process (after a normal
// stop, an interruption mid-epoch and a SIGKILL mid-save), accumulates gradients, stops early, and
// names what is wrong in its configuration.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "learner_fixture.hpp"

namespace {

namespace fs = std::filesystem;
using namespace burn;
using RunSpec = learner_fixture::Run;

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("burn_learner_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}

// Runs the helper process (a new process, as a user restarting training); returns its wait status.
int run_helper(const fs::path& dir, const std::string& args) {
  const std::string cmd =
      std::string(BURN_LEARNER_RESUME_HELPER) + " " + dir.string() + " " + args + " >/dev/null 2>&1";
  return std::system(cmd.c_str());
}

const learner_fixture::Outcome& straight() {
  static const learner_fixture::Outcome out = [] {
    RunSpec r;
    r.artifact_dir = fresh_dir("straight").string();
    r.checkpoint_every = 4;
    return learner_fixture::run(r);
  }();
  return out;
}

const train::MetricSummary* find(const std::vector<train::MetricSummary>& rows, const std::string& split,
                                 const std::string& metric) {
  for (const auto& r : rows) {
    if (r.split == split && r.metric == metric) return &r;
  }
  return nullptr;
}

TEST(Learner, LearnsAndWritesItsArtifacts) {
  const auto& out = straight();
  EXPECT_EQ(out.result.epochs_done, 4);
  EXPECT_EQ(out.result.global_step, 24);  // 96 items / 16 per batch * 4 epochs
  EXPECT_EQ(out.scheduler_steps, 24);
  const auto* loss = find(out.summary, "train", "Loss");
  ASSERT_NE(loss, nullptr);
  EXPECT_LT(loss->last, 0.8) << "train loss did not go down";
  const auto* acc = find(out.summary, "valid", "Accuracy");
  ASSERT_NE(acc, nullptr);
  EXPECT_GT(acc->best, 70.0);
  const fs::path dir = fs::temp_directory_path() / ("burn_learner_straight_" + std::to_string(::getpid()));
  EXPECT_TRUE(fs::exists(dir / "metrics.png"));
  EXPECT_TRUE(fs::exists(dir / "train" / "epoch-4.csv"));
  std::ifstream epochs(dir / "valid" / "epochs.csv");
  std::string header;
  std::getline(epochs, header);
  EXPECT_EQ(header, "epoch,Loss,Accuracy");
  // keep_last 2: the two newest checkpoints stay, named by step.
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir / "checkpoints")) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"step-000000000020.bpz", "step-000000000024-epoch-4.bpz"}));
}

TEST(Learner, TwoPlusTwoEpochsInANewProcessEqualFourStraight) {
  const fs::path dir = fresh_dir("resume");
  ASSERT_EQ(run_helper(dir, "2"), 0);
  RunSpec r;
  r.artifact_dir = dir.string();
  r.resume = true;
  r.checkpoint_every = 4;
  const auto resumed = learner_fixture::run(r);
  EXPECT_EQ(resumed.result.epochs_done, 4);
  EXPECT_EQ(resumed.result.global_step, 24);
  ASSERT_EQ(resumed.params.size(), straight().params.size());
  for (size_t i = 0; i < resumed.params.size(); ++i)
    EXPECT_EQ(resumed.params[i], straight().params[i]) << "param " << i;
  // The history came back with the checkpoint: four epochs of valid accuracy, as in the straight run.
  const auto* acc = find(resumed.summary, "valid", "Accuracy");
  ASSERT_NE(acc, nullptr);
  EXPECT_EQ(acc->last_epoch, 4);
  EXPECT_DOUBLE_EQ(acc->best, find(straight().summary, "valid", "Accuracy")->best);
  fs::remove_all(dir);
}

TEST(Learner, InterruptedMidEpochResumesFromItsCheckpointBitForBit) {
  const fs::path dir = fresh_dir("interrupt");
  RunSpec first;
  first.artifact_dir = dir.string();
  first.stop_after_steps = 9;  // epoch 2, batch 3
  const auto stopped = learner_fixture::run(first);
  EXPECT_TRUE(stopped.result.interrupted);
  EXPECT_EQ(stopped.result.global_step, 9);
  EXPECT_TRUE(fs::exists(dir / "checkpoints" / "step-000000000009.bpz"));
  RunSpec rest;
  rest.artifact_dir = dir.string();
  rest.resume = true;
  const auto resumed = learner_fixture::run(rest);
  EXPECT_EQ(resumed.result.global_step, 24);
  for (size_t i = 0; i < resumed.params.size(); ++i)
    EXPECT_EQ(resumed.params[i], straight().params[i]) << "param " << i;
  fs::remove_all(dir);
}

TEST(Learner, KilledMidSaveLosesOnlyTheCheckpointBeingWritten) {
  const fs::path dir = fresh_dir("sigkill");
  // Atomic writes in order: checkpoint of step 4, train/epoch-1.csv, train/epochs.csv, the two valid
  // CSVs, the checkpoint closing epoch 1 (step 6), then step 8's checkpoint, the 7th, which dies after
  // its data is written, before the rename.
  const int status = run_helper(dir, "4 kill-at-save 7");
  ASSERT_TRUE(WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0)) << status;
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir / "checkpoints")) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  // The complete ones, and the killed save's temporary file (never a torn checkpoint under its name).
  ASSERT_GE(names.size(), 2u);
  EXPECT_EQ(names[0], ".step-000000000008.bpz.tmp-" + names[0].substr(names[0].size() - 6));
  EXPECT_EQ(names[names.size() - 1], "step-000000000006-epoch-1.bpz");
  RunSpec rest;
  rest.artifact_dir = dir.string();
  rest.resume = true;
  rest.checkpoint_every = 4;
  const auto resumed = learner_fixture::run(rest);
  EXPECT_EQ(resumed.result.global_step, 24);
  for (size_t i = 0; i < resumed.params.size(); ++i)
    EXPECT_EQ(resumed.params[i], straight().params[i]) << "param " << i;
  fs::remove_all(dir);
}

TEST(Learner, GradientAccumulationStepsTheOptimizerOncePerGroup) {
  RunSpec r;
  r.epochs = 1;
  r.grad_accumulation = 4;  // 6 batches: steps after batches 4 and 6 (the epoch's last closes the group)
  const auto out = learner_fixture::run(r);
  EXPECT_EQ(out.result.global_step, 6);
  EXPECT_EQ(out.scheduler_steps, 2);
}

TEST(Learner, EarlyStoppingEndsTheRunWhenTheMetricStopsImproving) {
  RunSpec r;
  r.epochs = 10;
  r.lr = 0.0;  // nothing changes: valid loss never improves after epoch 1
  r.early_stopping = train::EarlyStopping{train::Split::Valid, "Loss", 2};
  const auto out = learner_fixture::run(r);
  EXPECT_TRUE(out.result.early_stopped);
  EXPECT_EQ(out.result.epochs_done, 3);
}

TEST(Learner, ConfigurationErrorsNameTheProblem) {
  RunSpec r;
  r.early_stopping = train::EarlyStopping{train::Split::Valid, "F1", 2};
  try {
    learner_fixture::run(r);
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("'F1'"), std::string::npos) << e.what();
  }
  const fs::path dir = fresh_dir("seed");
  ASSERT_EQ(run_helper(dir, "1"), 0);
  RunSpec other_seed;
  other_seed.artifact_dir = dir.string();
  other_seed.resume = true;
  other_seed.seed = 6;
  try {
    learner_fixture::run(other_seed);
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("seed 5"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

}  // namespace
