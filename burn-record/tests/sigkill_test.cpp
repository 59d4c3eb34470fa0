// A saving process killed with SIGKILL at many points (while writing data, before and after the
// rename) never leaves a torn checkpoint: the target is always the previous complete file or the new
// complete one, checked value by value.
#include <gtest/gtest.h>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "burn/record/recorder.hpp"
#include "recorder_fixture.hpp"
#include "sample_record.hpp"
#include "victim_record.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using namespace burn;
using namespace burn::record;
using test::Format;

// Runs the victim; kills it after `delay` unless it finished. Returns the wait status.
int run_victim(const std::vector<std::string>& args, std::chrono::microseconds delay, bool kill_it) {
  std::vector<char*> argv;
  std::string exe = BURN_SAVE_VICTIM;
  argv.push_back(exe.data());
  std::vector<std::string> copy = args;
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, exe.c_str(), nullptr, nullptr, argv.data(), environ) != 0) return -1;
  if (kill_it) {
    std::this_thread::sleep_for(delay);
    ::kill(pid, SIGKILL);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

class SigKill : public test::RecorderTest {};

TEST_P(SigKill, TargetIsAlwaysTheOldOrTheNewCompleteFile) {
  const Format fmt = GetParam();
  const std::string target = (dir_ / (std::string("ckpt") + fmt.extension)).string();
  const std::string mb = std::to_string(fmt.megabytes);
  // Generation 0, saved completely; how long one save takes sets the range of kill times.
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(run_victim({fmt.recorder, target, "0", mb}, {}, false), 0);
  const auto full = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);

  int last = 0, killed = 0, kept_old = 0, got_new = 0;
  auto check = [&](int generation, const std::string& how) {
    SCOPED_TRACE(how);
    Record loaded;
    try {
      loaded = load(target, {.recorder = fmt.recorder});
    } catch (const Error& e) {
      FAIL() << "the target does not load after a kill: " << e.what();
    }
    const int64_t g = loaded.at("generation").as_int();
    ASSERT_TRUE(g == last || g == generation) << "generation " << g << ", expected " << last << " or " << generation;
    // Every value of that generation, not just its number.
    ASSERT_EQ(test::first_difference(loaded, test::victim_record(static_cast<int>(g), fmt.megabytes)), "");
    if (g == generation) {
      ++got_new;
      last = generation;
    } else {
      ++kept_old;
    }
  };

  int generation = 0;
  // Killed at each phase of the save, from inside: before the data is complete, after the fsync
  // (before the rename), and after the rename.
  for (const char* phase : {"created", "written", "synced", "renamed"}) {
    ++generation;
    const int before = last;
    const int status = run_victim({fmt.recorder, target, std::to_string(generation), mb, phase}, {}, false);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << phase;
    ++killed;
    check(generation, std::string("killed at phase ") + phase);
    // Until the rename the previous file stays; after it the new one is complete.
    EXPECT_EQ(last, std::string(phase) == "renamed" ? generation : before) << phase;
  }
  // Killed from outside at times spread over a whole save (process start included).
  constexpr int kTimed = 16;
  for (int k = 0; k < kTimed; ++k) {
    ++generation;
    const auto delay = full * 3 * (k + 1) / (2 * kTimed);  // up to 1.5 saves: some finish
    const int status = run_victim({fmt.recorder, target, std::to_string(generation), mb}, delay, true);
    killed += WIFSIGNALED(status) ? 1 : 0;
    check(generation,
          "killed after " + std::to_string(delay.count()) + " us of a " + std::to_string(full.count()) + " us save");
  }
  // Both outcomes happened: kills landed before and after the rename.
  EXPECT_GT(kept_old, 0);
  EXPECT_GT(got_new, 0);
  EXPECT_GE(killed, 4);
  // A killed save may leave its temporary file behind, never anything else.
  for (const auto& e : fs::directory_iterator(dir_)) {
    const std::string name = e.path().filename().string();
    EXPECT_TRUE(name == fs::path(target).filename().string() || name.rfind(".ckpt", 0) == 0) << name;
  }
  std::cout << "[ sigkill ] " << fmt.recorder << ": " << killed << " kills, " << kept_old << " kept the old file, "
            << got_new << " had the new one\n";
}

INSTANTIATE_TEST_SUITE_P(Recorders, SigKill,
                         ::testing::Values(Format{"zstd", ".bpz", 24}, Format{"hdf5", ".h5", 24},
                                           Format{"json", ".json", 2}, Format{"safetensors", ".safetensors", 24}),
                         [](const auto& info) { return std::string(info.param.recorder); });

}  // namespace
