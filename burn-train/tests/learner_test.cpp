// The Learner: it learns, writes its artifacts, resumes bit for bit in a new process (after a normal
// stop, an interruption mid-epoch and a SIGKILL mid-save), accumulates gradients, stops early, and
// names what is wrong in its configuration.
#include <gtest/gtest.h>

#include <algorithm>
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

// Mixed precision: the steps run under autocast (the Linear layers' logits in the 16-bit dtype), the
// parameters stay f32, and the run learns as the f32 one does; f16 goes through the loss scaler.
TEST(Learner, MixedPrecisionTrainsUnderAutocastWithF32Parameters) {
  for (const DType dt : {DType::BF16, DType::F16}) {
    RunSpec r;
    r.mixed_precision = train::MixedPrecision{.dtype = dt};
    std::vector<std::string> messages;
    r.messages = &messages;
    const learner_fixture::Outcome out = learner_fixture::run(r);
    EXPECT_EQ(out.train_logits_dtype, dt);
    for (DType p : out.param_dtypes) EXPECT_EQ(p, DType::F32);
    EXPECT_EQ(out.result.global_step, 24);
    const auto* loss = find(out.summary, "train", "Loss");
    ASSERT_NE(loss, nullptr);
    EXPECT_LT(loss->last, 0.8) << dtype_name(dt) << ": train loss did not go down";
    const auto* acc = find(out.summary, "valid", "Accuracy");
    ASSERT_NE(acc, nullptr);
    EXPECT_GT(acc->best, 70.0) << dtype_name(dt);
    // f16 at 2^16: this small net's gradients stay finite, so no step is skipped
    for (const std::string& m : messages) EXPECT_EQ(m.find("step skipped"), std::string::npos) << m;
  }
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
  // Atomic writes in order: run.json, checkpoint of step 4, train/epoch-1.csv, train/epochs.csv, the two valid
  // CSVs, the checkpoint closing epoch 1 (step 6), then step 8's checkpoint, the 8th, which dies after
  // its data is written, before the rename.
  const int status = run_helper(dir, "4 kill-at-save 8");
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
    EXPECT_NE(std::string(e.what()).find("seed 5 against 6"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

std::string resume_error(const RunSpec& r) {
  try {
    learner_fixture::run(r);
  } catch (const ValueError& e) {
    return e.what();
  }
  ADD_FAILURE() << "the resume was not refused";
  return "";
}

// A fresh run in a folder holding an older, longer run's checkpoints lost its own to the
// keep-last policy (the old steps counted as newer), and a later resume continued the old run.
TEST(LearnerRuns, AFreshRunMovesAnOlderRunAsideAndResumesOnlyItself) {
  const fs::path dir = fresh_dir("two_runs");
  RunSpec old_run;
  old_run.artifact_dir = dir.string();
  old_run.checkpoint_every = 4;
  learner_fixture::run(old_run);  // lr 0.03: checkpoints up to step 24
  const auto old_id = train::read_run_file(dir.string());
  ASSERT_TRUE(old_id);

  std::vector<std::string> messages;
  RunSpec fresh;
  fresh.artifact_dir = dir.string();
  fresh.checkpoint_every = 4;
  fresh.lr = 1e-2;
  fresh.stop_after_steps = 5;
  fresh.messages = &messages;
  learner_fixture::run(fresh);
  const auto new_id = train::read_run_file(dir.string());
  ASSERT_TRUE(new_id);
  EXPECT_NE(new_id->id, old_id->id);
  const fs::path moved = dir / "previous" / old_id->id;
  EXPECT_NE(joined(messages).find("moved the previous run's files (run " + old_id->id + ") to " + moved.string()),
            std::string::npos)
      << joined(messages);
  EXPECT_TRUE(fs::exists(moved / "run.json"));
  EXPECT_TRUE(fs::exists(moved / "checkpoints" / "step-000000000024-epoch-4.bpz"));
  EXPECT_TRUE(fs::exists(moved / "train" / "epochs.csv"));
  EXPECT_TRUE(fs::exists(moved / "metrics.png"));
  // The new run's own checkpoints are kept: step 4 and the stop at step 5.
  EXPECT_TRUE(fs::exists(dir / "checkpoints" / "step-000000000004.bpz"));
  EXPECT_TRUE(fs::exists(dir / "checkpoints" / "step-000000000005.bpz"));

  // Resuming with the old run's settings is refused, naming the one that differs.
  RunSpec as_old = old_run;
  as_old.resume = true;
  const std::string err = resume_error(as_old);
  EXPECT_NE(err.find("cannot resume run " + new_id->id), std::string::npos) << err;
  EXPECT_NE(err.find("lr 0.010000 against 0.030000"), std::string::npos) << err;

  // With its own settings it continues itself, says from where, and ends as its straight run does.
  messages.clear();
  RunSpec rest = fresh;
  rest.resume = true;
  rest.stop_after_steps = 0;
  const auto resumed = learner_fixture::run(rest);
  EXPECT_NE(
      joined(messages).find("resumed run " + new_id->id + " from " +
                            (dir / "checkpoints" / "step-000000000005.bpz").string() + " (epoch 1, batch 5, step 5)"),
      std::string::npos)
      << joined(messages);
  RunSpec straight_new;
  straight_new.artifact_dir = fresh_dir("two_runs_straight").string();
  straight_new.lr = 1e-2;
  const auto want = learner_fixture::run(straight_new);
  EXPECT_EQ(resumed.result.global_step, 24);
  ASSERT_EQ(resumed.params.size(), want.params.size());
  for (size_t i = 0; i < resumed.params.size(); ++i) EXPECT_EQ(resumed.params[i], want.params[i]) << "param " << i;
  fs::remove_all(dir);
  fs::remove_all(straight_new.artifact_dir);
}

TEST(LearnerRuns, AnotherRunsCheckpointIsNeitherResumedNorDeleted) {
  const fs::path dir = fresh_dir("stray"), other = fresh_dir("stray_other");
  RunSpec a;
  a.artifact_dir = other.string();
  a.checkpoint_every = 4;
  a.epochs = 4;
  learner_fixture::run(a);
  // A newer checkpoint of another run copied into this run's folder.
  RunSpec b;
  b.artifact_dir = dir.string();
  b.checkpoint_every = 4;
  b.stop_after_steps = 5;
  learner_fixture::run(b);
  fs::copy_file(other / "checkpoints" / "step-000000000024-epoch-4.bpz",
                dir / "checkpoints" / "step-000000000024-epoch-4.bpz");
  std::vector<std::string> messages;
  RunSpec rest = b;
  rest.resume = true;
  rest.stop_after_steps = 0;
  rest.messages = &messages;
  const auto resumed = learner_fixture::run(rest);
  const std::string text = joined(messages);
  EXPECT_NE(text.find("skipping '" + (dir / "checkpoints" / "step-000000000024-epoch-4.bpz").string() +
                      "': a checkpoint of run "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("from " + (dir / "checkpoints" / "step-000000000005.bpz").string()), std::string::npos) << text;
  EXPECT_EQ(resumed.result.global_step, 24);
  for (size_t i = 0; i < resumed.params.size(); ++i)
    EXPECT_EQ(resumed.params[i], straight().params[i]) << "param " << i;
  // The keep-last policy counted and deleted only this run's checkpoints.
  EXPECT_TRUE(fs::exists(dir / "checkpoints" / "step-000000000024-epoch-4.bpz"));
  fs::remove_all(dir);
  fs::remove_all(other);
}

// A stray step-...-epoch-<20 digits> file ended training with "stoll".
TEST(LearnerRuns, CheckpointNamesThatDoNotParseAreSkippedWithAWarning) {
  const fs::path dir = fresh_dir("bad_names");
  fs::create_directories(dir / "checkpoints");
  const fs::path bad = dir / "checkpoints" / "step-000000000001-epoch-99999999999999999999.bpz";
  std::ofstream(bad) << "x";
  std::vector<std::string> messages;
  RunSpec r;
  r.artifact_dir = dir.string();
  r.epochs = 1;
  r.resume = true;  // no run here yet: a fresh start, which moves the stray file aside
  r.messages = &messages;
  EXPECT_EQ(learner_fixture::run(r).result.epochs_done, 1);
  EXPECT_NE(joined(messages).find("skipping '" + bad.string() + "': not a checkpoint name"), std::string::npos)
      << joined(messages);
  // Inside a run's own folder too.
  std::ofstream(dir / "checkpoints" / "step-12-epoch-1.bpz") << "x";
  messages.clear();
  RunSpec again = r;
  again.epochs = 2;
  EXPECT_EQ(learner_fixture::run(again).result.epochs_done, 2);
  EXPECT_NE(joined(messages).find("step-12-epoch-1.bpz': not a checkpoint name"), std::string::npos)
      << joined(messages);
  fs::remove_all(dir);
}

TEST(LearnerRuns, ResumeRefusesWhatItCannotMatchAndWritesNothing) {
  const fs::path dir = fresh_dir("refuse");
  RunSpec r;
  r.artifact_dir = dir.string();
  r.checkpoint_every = 4;
  r.stop_after_steps = 9;
  learner_fixture::run(r);
  const auto listing = [&] {
    std::vector<std::pair<std::string, uintmax_t>> out;
    for (const auto& e : fs::recursive_directory_iterator(dir))
      out.emplace_back(e.path().string(), e.is_regular_file() ? fs::file_size(e.path()) : 0);
    std::sort(out.begin(), out.end());
    return out;
  };
  const auto before = listing();
  // Another batch size, other train data: named with both values (and nothing in the folder changes).
  RunSpec batch = r;
  batch.resume = true;
  batch.batch_size = 8;
  std::string err = resume_error(batch);
  EXPECT_NE(err.find("batch size 16 against 8"), std::string::npos) << err;
  RunSpec items = r;
  items.resume = true;
  items.train_items = 80;
  err = resume_error(items);
  EXPECT_NE(err.find("train items 96 against 80"), std::string::npos) << err;
  EXPECT_EQ(listing(), before);
  // Checkpoints without a run.json naming their run cannot be matched.
  const auto run_file = train::read_run_file(dir.string());
  ASSERT_TRUE(run_file);
  fs::remove(dir / "run.json");
  RunSpec again = r;
  again.resume = true;
  err = resume_error(again);
  EXPECT_NE(err.find("but no " + (dir / "run.json").string()), std::string::npos) << err;
  // A damaged newest checkpoint is named, not passed over for an older one in silence.
  train::write_run_file(dir.string(), *run_file);
  const fs::path newest = dir / "checkpoints" / "step-000000000009.bpz";
  fs::resize_file(newest, fs::file_size(newest) / 2);
  err = resume_error(again);
  EXPECT_NE(err.find("cannot resume from '" + newest.string() + "', the newest checkpoint"), std::string::npos) << err;
  fs::remove_all(dir);
}

// A resume with a changed batch size once named the loader's 0-based epoch; through LearnerCore
// with no data settings, the error names the learner's epoch, batch and step.
TEST(LearnerRuns, AResumePastTheDataNamesTheRightEpoch) {
  const fs::path dir = fresh_dir("epoch_named");
  RunSpec r;
  r.artifact_dir = dir.string();
  r.stop_after_steps = 10;  // epoch 2, batch 4
  learner_fixture::run(r);
  const Device ad = Device::get("autodiff<cpu>");
  learner_fixture::Net net{nn::LinearConfig{8, 16}.init(ad), nn::LinearConfig{16, 3}.init(ad),
                           nn::DropoutConfig{0.2}.init()};
  optim::Optimizer opt = optim::AdamConfig{}.init();
  optim::CosineAnnealingLrScheduler sched(optim::CosineAnnealingLrSchedulerConfig{0.03, 0.003, 24});
  train::LearnerConfig c;
  c.epochs = 4;
  c.seed = 5;
  c.artifact_dir = dir.string();
  c.resume = true;
  c.display = train::Display::None;
  c.run_config = {{"lr", std::to_string(0.03)}};
  train::LearnerCore core(c, opt, sched);
  // The data settings a Learner would give, as the first run had them, but only 2 batches an epoch.
  const train::RunSettings data = {
      {"train items", "96"}, {"batch size", "16"}, {"train order", "shuffled, seed 9"}, {"drop last", "no"}};
  auto ds = std::make_shared<data::InMemDataset<learner_fixture::Item>>(learner_fixture::make_items(32, 1));
  data::DataLoader<learner_fixture::Item, learner_fixture::Batch> small(
      ds, std::make_shared<learner_fixture::NetBatcher>(ad), {.batch_size = 16, .shuffle = true, .seed = 9});
  auto open_train = [&](uint64_t epoch, size_t start) {
    auto it = std::make_shared<data::DataLoader<learner_fixture::Item, learner_fixture::Batch>::Iter>(
        small.iter_at(epoch, start));
    return train::TrainEpoch{[]() -> std::optional<train::TrainOutput> { return std::nullopt; },
                             [it] { return it->progress(); }, it->num_batches()};
  };
  try {
    core.fit(nn::ModuleRef(net), open_train, nullptr, data);
    FAIL() << "no error";
  } catch (const ValueError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("cannot resume epoch 2 at batch 4 (step 10)"), std::string::npos) << m;
    EXPECT_NE(m.find("cannot start epoch 1 (0-based) at batch 4: it has 2 batches"), std::string::npos) << m;
  }
  fs::remove_all(dir);
}

}  // namespace
