// burn-demo as a careless user drives it, on a small Fashion-MNIST look-alike written
// here: runs in a folder holding another run, resumes with other settings, bad arguments and
// config files, stray checkpoint names, and SIGKILLs at exact points of the saves and during
// training, after which every resume must end bit for bit where an uninterrupted run ends.
#include <gtest/gtest.h>

#include <algorithm>
#include <burn/data/mnist.hpp>
#include <burn/record/recorder.hpp>
#include <burn/train/run.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>

#include "process.hpp"

namespace {

namespace fs = std::filesystem;
using namespace burn;
using robustness::ProcessOptions;
using robustness::ProcessResult;
using robustness::run_process;

// Two epochs of 12 batches: checkpoints at steps 5, 10, 12 (epoch 1), 15, 20 and 24 (epoch 2).
const std::vector<std::string> kSmall = {
    "--epochs",    "2", "--train-items", "192", "--test-items", "64", "--batch-size", "16", "--display",          "log",
    "--channels1", "4", "--channels2",   "8",   "--hidden",     "16", "--workers",    "1",  "--checkpoint-every", "5"};

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Class c: a bright band at rows 2c..2c+3 over seeded noise, so the data is learnable.
void write_split(const fs::path& dir, const std::string& prefix, int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> px(size_t(n) * 784), labels(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const int c = (i * 7 + static_cast<int>(seed)) % 10;
    labels[size_t(i)] = static_cast<uint8_t>(c);
    for (int r = 0; r < 28; ++r) {
      for (int col = 0; col < 28; ++col) {
        const bool band = r >= 2 * c && r < 2 * c + 4;
        px[size_t(i) * 784 + size_t(r * 28 + col)] = static_cast<uint8_t>((band ? 160 : 0) + rng() % 90);
      }
    }
  }
  data::write_idx((dir / (prefix + "-images-idx3-ubyte")).string(), TensorData::from_vector(px, Shape{n, 28, 28}),
                  false);
  data::write_idx((dir / (prefix + "-labels-idx1-ubyte")).string(), TensorData::from_vector(labels, Shape{n}), false);
}

// A folder per test with its data; runs of burn-demo (or its copy with the kill hook) on it.
class Demo : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = fs::temp_directory_path() / ("burn-robustness-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "data");
    write_split(root_ / "data", "train", 192, 1);
    write_split(root_ / "data", "t10k", 64, 2);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(root_);
  }

  fs::path dir(const std::string& name) const { return root_ / name; }

  // `burn-demo <args>`; with `kill` ("N:phase"), the copy that SIGKILLs itself at that save.
  ProcessResult demo(std::vector<std::string> args, const std::string& kill = "", ProcessOptions o = {}) const {
    args.insert(args.begin(), kill.empty() ? BURN_DEMO : BURN_ROBUSTNESS_DEMO);
    o.env.emplace_back("BURN_FASHION_MNIST_DIR", (root_ / "data").string());
    o.env.emplace_back("BURN_ROBUSTNESS_KILL", kill);
    if (o.timeout == ProcessOptions{}.timeout) o.timeout = std::chrono::seconds(60);
    return run_process(args, o);
  }

  // `burn-demo train --artifacts DIR <kSmall> <extra>`, a flag of kSmall given in `extra` taking
  // its value from there (a flag given twice is an error of its own).
  ProcessResult train(const fs::path& artifacts, const std::vector<std::string>& extra = {},
                      const std::string& kill = "", ProcessOptions o = {}) const {
    std::vector<std::string> args = {"train", "--artifacts", artifacts.string()};
    std::vector<std::string> flags = kSmall;
    for (size_t i = 0; i < extra.size(); ++i) {
      const auto it = std::find(flags.begin(), flags.end(), extra[i]);
      if (it != flags.end() && i + 1 < extra.size()) {
        *(it + 1) = extra[++i];
      } else {
        flags.push_back(extra[i]);
      }
    }
    args.insert(args.end(), flags.begin(), flags.end());
    return demo(args, kill, std::move(o));
  }

  fs::path root_;
};

// The tensors of a saved model, by path, as bytes: two runs' models compare bit for bit.
std::map<std::string, std::vector<uint8_t>> model_tensors(const fs::path& file) {
  std::map<std::string, std::vector<uint8_t>> out;
  const record::Record r = record::load(file.string());
  for (const auto& e : r.flatten()) {
    if (e.value->kind() != record::EntryKind::Tensor) continue;
    const auto& b = e.value->tensor().bytes();
    out[e.path].assign(b.begin(), b.end());
  }
  return out;
}

// What a killed run leaves is whole: every record loads, run.json and config.json parse; the only
// partial files are the hidden temporaries of a save cut short.
void expect_no_torn_file(const fs::path& dir) {
  if (!fs::exists(dir)) return;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    const std::string name = e.path().filename().string();
    if (name[0] == '.') {
      EXPECT_NE(name.find(".tmp-"), std::string::npos) << e.path();
      continue;
    }
    if (e.path().extension() == ".bpz") {
      EXPECT_NO_THROW(record::load(e.path().string())) << e.path();
    }
  }
  if (fs::exists(dir / "run.json")) EXPECT_NO_THROW(train::read_run_file(dir.string()));
  if (fs::exists(dir / "config.json"))
    EXPECT_TRUE(nlohmann::json::accept(read_text(dir / "config.json"))) << dir / "config.json";
}

std::string run_id(const fs::path& dir) {
  const auto run = train::read_run_file(dir.string());
  return run ? run->id : "";
}

bool killed(const ProcessResult& r) { return r.signal == SIGKILL; }

// A fresh run in a folder holding an older, longer run lost its own step
// checkpoints to the keep-last policy, and a resume then continued the old run.
TEST_F(Demo, AFreshRunMovesTheOlderRunAsideAndResumeContinuesOnlyItself) {
  const fs::path a = dir("a");
  const ProcessResult older = train(a, {"--lr", "0.02"});
  ASSERT_TRUE(older.ok()) << older.output;
  const std::string older_id = run_id(a);
  ASSERT_FALSE(older_id.empty());

  // The new run (default lr) dies right after its step-10 checkpoint is in place (save 4: run.json,
  // config.json, step 5, step 10).
  const ProcessResult cut = train(a, {}, "4:renamed");
  ASSERT_TRUE(killed(cut)) << cut.output;
  const std::string new_id = run_id(a);
  EXPECT_NE(new_id, older_id);
  EXPECT_NE(cut.output.find("moved the previous run's files (run " + older_id + ") to " +
                            (a / "previous" / older_id).string()),
            std::string::npos)
      << cut.output;
  EXPECT_TRUE(fs::exists(a / "checkpoints" / "step-000000000005.bpz"));
  EXPECT_TRUE(fs::exists(a / "checkpoints" / "step-000000000010.bpz"));
  EXPECT_FALSE(fs::exists(a / "checkpoints" / "step-000000000024-epoch-2.bpz"));
  for (const char* f : {"run.json", "config.json", "model.bpz", "metrics.png",
                        "checkpoints/step-000000000024-epoch-2.bpz", "train/epochs.csv", "valid/epochs.csv"}) {
    EXPECT_TRUE(fs::exists(a / "previous" / older_id / f)) << f;
  }
  expect_no_torn_file(a);

  // The old run's settings no longer resume here: the folder's run is the new one.
  const ProcessResult as_older = train(a, {"--lr", "0.02", "--resume"});
  EXPECT_NE(as_older.exit_code, 0);
  EXPECT_NE(as_older.output.find("cannot resume run " + new_id), std::string::npos) << as_older.output;
  EXPECT_NE(as_older.output.find("lr 0.002 against 0.02"), std::string::npos) << as_older.output;

  // Its own settings continue it, from its own newest checkpoint, named.
  const ProcessResult resumed = train(a, {"--resume"});
  ASSERT_TRUE(resumed.ok()) << resumed.output;
  EXPECT_NE(
      resumed.output.find("resumed run " + new_id + " from " + (a / "checkpoints" / "step-000000000010.bpz").string() +
                          " (epoch 1, batch 10, step 10)"),
      std::string::npos)
      << resumed.output;
  const ProcessResult straight = train(dir("straight"));
  ASSERT_TRUE(straight.ok()) << straight.output;
  EXPECT_EQ(model_tensors(a / "model.bpz"), model_tensors(dir("straight") / "model.bpz"));
}

// A resume wrote the default config.json before opening the checkpoint, so a
// folder made with another config lost its model (infer no longer loaded model.bpz).
TEST_F(Demo, AResumeWithAnotherConfigIsRefusedAndChangesNothing) {
  const fs::path a = dir("a");
  ASSERT_TRUE(train(a).ok());
  std::map<std::string, std::string> before;
  for (const auto& e : fs::recursive_directory_iterator(a)) {
    if (e.is_regular_file()) before[e.path().string()] = read_text(e.path());
  }
  const ProcessResult r = train(a, {"--hidden", "32", "--resume"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("hidden 16 against 32"), std::string::npos) << r.output;
  std::map<std::string, std::string> after;
  for (const auto& e : fs::recursive_directory_iterator(a)) {
    if (e.is_regular_file()) after[e.path().string()] = read_text(e.path());
  }
  EXPECT_TRUE(after == before) << "the refused resume changed the artifacts folder";
  const ProcessResult infer = demo({"infer", "--artifacts", a.string(), "--count", "2"});
  EXPECT_TRUE(infer.ok()) << infer.output;
  EXPECT_NE(infer.output.find("test accuracy of the loaded model"), std::string::npos) << infer.output;
}

// A resume with another batch size or data size; a stray checkpoint name.
TEST_F(Demo, AResumeWithOtherDataIsRefusedAndStrayNamesAreSkipped) {
  const fs::path a = dir("a");
  ASSERT_TRUE(killed(train(a, {}, "4:renamed")));
  ProcessResult r = train(a, {"--batch-size", "8", "--resume"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("batch size 16 against 8"), std::string::npos) << r.output;
  r = train(a, {"--train-items", "96", "--resume"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("train items 192 against 96"), std::string::npos) << r.output;
  r = train(a, {"--test-items", "32", "--resume"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("test items 64 against 32"), std::string::npos) << r.output;

  // A stray file named like a checkpoint whose epoch does not fit an integer ended training with
  // "burn-demo: stoll"; now it is skipped with a warning naming it, and the run resumes.
  const fs::path stray = a / "checkpoints" / "step-000000000011-epoch-99999999999999999999.bpz";
  std::ofstream(stray) << "not a checkpoint";
  r = train(a, {"--resume"});
  ASSERT_TRUE(r.ok()) << r.output;
  EXPECT_NE(r.output.find("skipping '" + stray.string() + "': not a checkpoint name"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(epoch 1, batch 10, step 10)"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(stray));
}

// Negative sizes wrapped around and ran; --display took anything.
TEST_F(Demo, BadArgumentsAreRefusedNamingTheFlagAndTheValue) {
  const fs::path a = dir("never");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--batch-size", "-1"}, "--batch-size must be in 1..1048576, got -1"},
      {{"--train-items", "-5"}, "--train-items must be at least 0, got -5"},
      {{"--test-items", "-5"}, "--test-items must be at least 0, got -5"},
      {{"--epochs", "0"}, "--epochs must be in 1..1000000, got 0"},
      {{"--workers", "-2"}, "--workers must be in 0..256, got -2"},
      {{"--hidden", "0"}, "--hidden must be in 1..1048576, got 0"},
      {{"--checkpoint-every", "-200"}, "--checkpoint-every must be at least 1, got -200"},
      {{"--lr", "-0.1"}, "--lr must be a positive number, got -0.1"},
      {{"--dropout", "1.5"}, "--dropout must be in [0, 1), got 1.5"},
      {{"--display", "bogus"}, "--display must be auto, dashboard, log or none, got 'bogus'"},
      {{"--device", "cpu"}, "--device must be an autodiff device such as autodiff<cpu>, got 'cpu'"},
  };
  for (const auto& [flags, message] : cases) {
    const ProcessResult r = train(a, flags);
    EXPECT_NE(r.exit_code, 0) << flags[0];
    EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
  }
  EXPECT_FALSE(fs::exists(a)) << "a refused run wrote into its artifacts folder";
  const ProcessResult count = demo({"infer", "--artifacts", a.string(), "--count", "-3"});
  EXPECT_NE(count.exit_code, 0);
  EXPECT_NE(count.output.find("--count must be in 0..10000, got -3"), std::string::npos) << count.output;
}

// Config.json errors name the file and the key.
TEST_F(Demo, ConfigJsonErrorsNameTheFileAndTheKey) {
  const fs::path a = dir("a");
  fs::create_directories(a);
  const std::string file = (a / "config.json").string();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"channels1": 4, "channels2": 8, "classes": 10, "dropout": 0.25})",
       "'" + file + "': key 'hidden' is missing"},
      {R"({"channels1": 4, "channels2": 8, "hidden": "16", "classes": 10, "dropout": 0.25})",
       "'" + file + "': key 'hidden' must be an integer, got \"16\""},
      {R"({"channels1": 4, "channels2": 8, "hidden": -16, "classes": 10, "dropout": 0.25})",
       "'" + file + "': key 'hidden' must be in 1..1048576, got -16"},
      {R"({"channels1": 4, "channels2": 8, "hidden": 16, "classes": 10, "dropout": 2})",
       "'" + file + "': key 'dropout' must be a number in [0, 1), got 2"},
      {R"({"channels1": 4, "channels2": 8, "hidden": 16, "classes": 3, "dropout": 0.25})",
       "'" + file + "': key 'classes' must be in 10..10, got 3"},
      {R"({"channels1": 4,)", "'" + file + "' is not valid JSON"},
      {R"([1, 2])", "'" + file + "' must hold a JSON object, got array"},
  };
  for (const auto& [text, message] : cases) {
    std::ofstream(file) << text;
    const ProcessResult r = demo({"infer", "--artifacts", a.string()});
    EXPECT_NE(r.exit_code, 0) << text;
    EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
  }
}

// With autodiff<autodiff<cpu>> the test metrics were computed with dropout active.
// The test accuracy the run reports must be the one of its saved model, loaded again on cpu.
TEST_F(Demo, NestedAutodiffEvaluatesWithoutDropout) {
  const fs::path a = dir("a");
  const ProcessResult r = train(a, {"--device", "autodiff<autodiff<cpu>>", "--dropout", "0.5"});
  ASSERT_TRUE(r.ok()) << r.output;
  std::smatch reported, loaded;
  ASSERT_TRUE(std::regex_search(r.output, reported, std::regex("test Accuracy: ([0-9.]+) %"))) << r.output;
  const ProcessResult infer = demo({"infer", "--artifacts", a.string(), "--count", "0"});
  ASSERT_TRUE(infer.ok()) << infer.output;
  ASSERT_TRUE(std::regex_search(infer.output, loaded, std::regex("test accuracy of the loaded model: ([0-9.]+) %")))
      << infer.output;
  EXPECT_EQ(reported[1].str(), loaded[1].str());
}

// Kill points as "N:phase" of the N-th atomic save: 1 run.json, 2 config.json, 3 step 5, 4 step 10,
// 5-8 the epoch's CSVs, 9 the checkpoint closing epoch 1, 10 step 15, 11 step 20, 12-15 CSVs, 16 the
// checkpoint closing epoch 2; then the model and the test CSVs (counted from the run's total).
class DemoKills : public Demo {
 protected:
  // A fresh run killed at `kill`, then `--resume`: the resumed model must be the straight run's.
  void kill_and_resume(const std::string& kill, const std::map<std::string, std::vector<uint8_t>>& want,
                       ProcessOptions o = {}) {
    SCOPED_TRACE("kill at " + (kill.empty() ? o.kill_when_exists : kill));
    const fs::path a = dir("kill-" + std::to_string(++runs_));
    const ProcessResult cut = train(a, {}, kill, o);
    ASSERT_TRUE(killed(cut)) << "the run was not killed: " << cut.output;
    expect_no_torn_file(a);
    const ProcessResult resumed = train(a, {"--resume"});
    ASSERT_TRUE(resumed.ok()) << resumed.output;
    EXPECT_EQ(model_tensors(a / "model.bpz"), want);
    if (!HasFailure()) fs::remove_all(a);
  }

  std::map<std::string, std::vector<uint8_t>> straight() {
    const ProcessResult r = train(dir("straight"));
    EXPECT_TRUE(r.ok()) << r.output;
    return model_tensors(dir("straight") / "model.bpz");
  }

  int runs_ = 0;
};

TEST_F(DemoKills, DuringTheFirstSavesAndCheckpointsEveryResumeIsBitIdentical) {
  const auto want = straight();
  for (const char* kill : {"1:written", "2:renamed", "3:created", "3:written", "4:synced", "9:written", "9:renamed"})
    kill_and_resume(kill, want);
}

TEST_F(DemoKills, DuringTrainingAndTheLastSavesEveryResumeIsBitIdentical) {
  const auto want = straight();
  // The saves of a whole run, counted by the kill hook: the model is the third from the end.
  const ProcessResult count = train(dir("count"), {}, "count:");
  ASSERT_TRUE(count.ok()) << count.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(count.output, m, std::regex("burn-robustness: ([0-9]+) saves"))) << count.output;
  const int saves = std::stoi(m[1].str());
  for (const std::string kill : {std::string("11:created"), std::string("16:synced"),
                                 std::to_string(saves - 2) + ":written", std::to_string(saves - 2) + ":renamed"})
    kill_and_resume(kill, want);
  // Between saves, in the middle of epoch 2: as soon as step 15's checkpoint is in place.
  ProcessOptions o;
  o.kill_when_exists = (dir("kill-" + std::to_string(runs_ + 1)) / "checkpoints" / "step-000000000015.bpz").string();
  kill_and_resume("", want, o);
}

}  // namespace
