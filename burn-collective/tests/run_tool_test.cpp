// `burn run` as a user types it (through the `burn` tool): torchrun's environment in every rank, the
// first failed rank's exit code, the other ranks stopped, signals forwarded. Each run is bounded: past
// its deadline the test kills it and fails.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

extern char** environ;

namespace fs = std::filesystem;

namespace {

struct Ran {
  int exit_code = -1;
  int signal = 0;
  bool timed_out = false;
  std::string output;
};

class BurnRun : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "burn-run-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // Runs `burn run ARGS...`; `while_running` is called every few ms with the pid until it returns false.
  Ran burn_run(std::vector<std::string> args, const std::function<bool(pid_t)>& while_running = {},
               const std::string& output = "output") {
    args.insert(args.begin(), {BURN_CLI, "run"});
    const std::string out = (dir_ / output).string();
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    pid_t pid = 0;
    Ran r;
    const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
      r.output = "cannot start burn";
      return r;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    bool watching = static_cast<bool>(while_running);
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) != pid) {
      if (watching) watching = while_running(pid);
      if (std::chrono::steady_clock::now() > deadline) {
        r.timed_out = true;
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
    std::ifstream in(out);
    std::stringstream text;
    text << in.rdbuf();
    r.output = text.str();
    return r;
  }

  fs::path dir_;
};

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_F(BurnRun, EveryRankGetsTorchrunsEnvironment) {
  const Ran r = burn_run({"--nproc-per-node", "2", "--", "sh", "-c",
                          "echo \"rank=$RANK local=$LOCAL_RANK world=$WORLD_SIZE local_world=$LOCAL_WORLD_SIZE "
                          "rdzv=${BURN_RENDEZVOUS%%/burn-run-*} id=${BURN_RUN_ID%%-*}\""});
  ASSERT_FALSE(r.timed_out) << r.output;
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const std::string tmp = "file://" + fs::temp_directory_path().string();
  EXPECT_NE(r.output.find("rank=0 local=0 world=2 local_world=2 rdzv=" + tmp + " id=run"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("rank=1 local=1 world=2 local_world=2 rdzv=" + tmp + " id=run"), std::string::npos)
      << r.output;
}

// The ranks of a machine share its cores: cores / ranks cpu threads each, unless BURN_NUM_THREADS is set.
TEST_F(BurnRun, EachRankGetsItsShareOfTheCores) {
  const char* before = std::getenv("BURN_NUM_THREADS");
  const std::string saved = before ? before : "";
  ::unsetenv("BURN_NUM_THREADS");
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  Ran r = burn_run({"--nproc-per-node", "2", "--", "sh", "-c", "echo \"rank=$RANK threads=$BURN_NUM_THREADS\""});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const std::string share = std::to_string(std::max(1u, hw / 2));
  EXPECT_NE(r.output.find("rank=0 threads=" + share), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("rank=1 threads=" + share), std::string::npos) << r.output;
  ::setenv("BURN_NUM_THREADS", "3", 1);
  r = burn_run({"--nproc-per-node", "2", "--", "sh", "-c", "echo \"rank=$RANK threads=$BURN_NUM_THREADS\""});
  EXPECT_NE(r.output.find("rank=1 threads=3"), std::string::npos) << r.output;
  if (before)
    ::setenv("BURN_NUM_THREADS", saved.c_str(), 1);
  else
    ::unsetenv("BURN_NUM_THREADS");
}

TEST_F(BurnRun, RanksCommunicate) {
  const Ran r = burn_run({"--nproc-per-node", "2", BURN_COLLECTIVE_TEST_RANK, "values"});
  ASSERT_FALSE(r.timed_out) << r.output;
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(count(r.output, " 0 failures"), 2u) << r.output;
}

TEST_F(BurnRun, AFailedRankStopsTheOthersAndGivesItsExitCode) {
  const Ran r = burn_run({"--nproc-per-node", "3", "--grace", "2", "--", "sh", "-c",
                          "if [ \"$RANK\" = 1 ]; then sleep 0.2; exit 7; fi; exec sleep 50"});
  ASSERT_FALSE(r.timed_out) << r.output;
  EXPECT_EQ(r.exit_code, 7) << r.output;
  EXPECT_NE(r.output.find("burn run: rank 1 (pid "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(") exited with code 7; the other ranks were stopped"), std::string::npos) << r.output;
}

TEST_F(BurnRun, ARankKilledByASignalGives128PlusTheSignal) {
  const Ran r =
      burn_run({"--nproc-per-node", "2", "--", "sh", "-c", "if [ \"$RANK\" = 0 ]; then kill -9 $$; fi; exec sleep 50"});
  ASSERT_FALSE(r.timed_out) << r.output;
  EXPECT_EQ(r.exit_code, 128 + SIGKILL) << r.output;
  EXPECT_NE(r.output.find("was killed by signal 9"), std::string::npos) << r.output;
}

// Rank 1 is SIGKILLed; rank 0 waits until rank 1 has ended (a zombie, or already reaped) and exits with 3 at
// once, as a peer does when a collective's socket closes. The job is rank 1's: the launcher waits on the ranks'
// pidfds, so it sees rank 1 end first, and of two ranks found ended in one sweep takes the signalled one (the old
// launcher, a 5 ms sleep and a sweep in rank order, named rank 0 in most rounds).
TEST_F(BurnRun, APeerFailingBecauseARankDiedDoesNotTakeItsPlace) {
  const std::string pid_file = (dir_ / "pid1").string();
  const std::string script = "if [ \"$RANK\" = 1 ]; then echo $$ > " + pid_file + ".tmp; mv " + pid_file + ".tmp " +
                             pid_file +
                             "; sleep 0.1; kill -9 $$; fi; "
                             "while [ ! -s " +
                             pid_file + " ]; do sleep 0.01; done; p=$(cat " + pid_file +
                             "); "
                             "while [ -e /proc/$p ] && ! grep -q ') Z' /proc/$p/stat 2>/dev/null; do :; done; exit 3";
  for (int round = 0; round < 5; ++round) {
    std::error_code ec;
    fs::remove(pid_file, ec);
    const Ran r = burn_run({"--nproc-per-node", "2", "--", "sh", "-c", script});
    ASSERT_FALSE(r.timed_out) << r.output;
    EXPECT_EQ(r.exit_code, 128 + SIGKILL) << "round " << round << ": " << r.output;
    EXPECT_NE(r.output.find("burn run: rank 1 (pid "), std::string::npos) << r.output;
  }
}

// SIGTERM to `burn run` reaches every rank (each traps it and writes a file), and the job's code says so.
TEST_F(BurnRun, SignalsAreForwardedToEveryRank) {
  const std::string d = dir_.string();
  const std::string script =
      "trap 'echo term > " + d + "/term-$RANK; exit 5' TERM; touch " + d + "/ready-$RANK; while :; do sleep 0.05; done";
  bool sent = false;
  const Ran r = burn_run({"--nproc-per-node", "2", "--", "sh", "-c", script}, [&](pid_t pid) {
    if (fs::exists(dir_ / "ready-0") && fs::exists(dir_ / "ready-1")) {
      ::kill(pid, SIGTERM);
      sent = true;
      return false;
    }
    return true;
  });
  ASSERT_TRUE(sent) << r.output;
  ASSERT_FALSE(r.timed_out) << r.output;
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << r.output;
  EXPECT_NE(r.output.find("forwarded to every rank"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(dir_ / "term-0")) << r.output;
  EXPECT_TRUE(fs::exists(dir_ / "term-1")) << r.output;
}

// Two "machines" (two launchers here) meet through a shared directory under one run id: 4 ranks, the
// second launcher's ranks numbered 2 and 3.
TEST_F(BurnRun, TwoMachinesMeetThroughASharedDirectory) {
  const std::string rdzv = "file://" + (dir_ / "shared").string();
  auto node = [&](int n) {
    return burn_run({"--nnodes", "2", "--node-rank", std::to_string(n), "--nproc-per-node", "2", "--rendezvous", rdzv,
                     "--run-id", "job1", "--", BURN_COLLECTIVE_TEST_RANK, "values"},
                    {}, "node-" + std::to_string(n));
  };
  Ran second;
  std::thread other([&] { second = node(1); });
  const Ran first = node(0);
  other.join();
  ASSERT_FALSE(first.timed_out || second.timed_out) << first.output << second.output;
  EXPECT_EQ(first.exit_code, 0) << first.output << second.output;
  EXPECT_EQ(second.exit_code, 0) << first.output << second.output;
  for (const char* r : {"rank 0: ", "rank 1: "}) EXPECT_NE(first.output.find(r), std::string::npos) << first.output;
  for (const char* r : {"rank 2: ", "rank 3: "}) EXPECT_NE(second.output.find(r), std::string::npos) << second.output;
  EXPECT_EQ(count(first.output + second.output, " 0 failures"), 4u) << first.output << second.output;
}

// A machine that never comes: the ranks of the other one fail at the rendezvous, naming the missing ranks.
TEST_F(BurnRun, AMissingMachineIsNamedAtTheRendezvous) {
  ::setenv("BURN_COLLECTIVE_TIMEOUT_S", "1", 1);
  const Ran r = burn_run({"--nnodes", "2", "--nproc-per-node", "2", "--rendezvous", "file://" + dir_.string() + "/r",
                          "--run-id", "job2", BURN_COLLECTIVE_TEST_RANK, "values"});
  ::unsetenv("BURN_COLLECTIVE_TIMEOUT_S");
  ASSERT_FALSE(r.timed_out) << r.output;
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("rank(s) 2, 3 did not arrive at the rendezvous 'file://" + dir_.string() + "/r' within 1 s"),
            std::string::npos)
      << r.output;
}

// Whether a process is gone: no such pid, or a zombie nobody has reaped yet.
bool gone(pid_t pid) {
  if (::kill(pid, 0) != 0) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

// `burn run` killed by SIGKILL (it can forward nothing) takes its ranks along: none is orphaned. The
// rendezvous is in the test's folder: a killed launcher cannot remove a directory it made.
TEST_F(BurnRun, AKilledLauncherLeavesNoRankBehind) {
  const std::string d = dir_.string();
  std::vector<pid_t> ranks;
  const Ran r =
      burn_run({"--nproc-per-node", "2", "--rendezvous", "file://" + d + "/rdzv", "--", "sh", "-c",
                "echo $$ > " + d + "/pid-$RANK.tmp && mv " + d + "/pid-$RANK.tmp " + d + "/pid-$RANK; exec sleep 50"},
               [&](pid_t pid) {
                 if (!fs::exists(dir_ / "pid-0") || !fs::exists(dir_ / "pid-1")) return true;
                 for (const char* f : {"pid-0", "pid-1"}) {
                   std::ifstream in(dir_ / f);
                   pid_t p = 0;
                   in >> p;
                   ranks.push_back(p);
                 }
                 ::kill(pid, SIGKILL);
                 return false;
               });
  EXPECT_EQ(r.signal, SIGKILL) << r.output;
  ASSERT_EQ(ranks.size(), 2u) << r.output;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (pid_t p : ranks) {
    ASSERT_GT(p, 0);
    while (!gone(p) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_TRUE(gone(p)) << "rank pid " << p << " outlived its launcher";
    if (!gone(p)) ::kill(p, SIGKILL);
  }
}

TEST_F(BurnRun, BadUseIsExplained) {
  Ran r = burn_run({"--nproc-per-node", "2", "--nnodes", "2", "--", "true"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("a job on 2 machines needs a rendezvous every machine reaches"), std::string::npos)
      << r.output;
  r = burn_run({"--nnodes", "2", "--node-rank", "2", "--", "true"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("node rank 2 of 2 machines: expected 0 <= node rank < machines"), std::string::npos)
      << r.output;
  r = burn_run({"--nproc-per-node", "2"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("burn run: no program given"), std::string::npos) << r.output;
  r = burn_run({"--timeout", "-1", "true"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("burn run: --timeout -1: expected a number of seconds, at least 0"), std::string::npos)
      << r.output;
  r = burn_run({"--nproc-per-node", "2", "/nonexistent/program"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("cannot start rank 0 ('/nonexistent/program'): No such file or directory"), std::string::npos)
      << r.output;
}

}  // namespace
