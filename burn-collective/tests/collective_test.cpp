// The distributed suite: 2 and 3 ranks on 127.0.0.1, started by burn::collective::launch with a time
// limit (a hang fails the test instead of blocking ctest), each rank's output in its own log
// (launch_job.hpp).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "burn/collective/communicator.hpp"
#include "burn/collective/engine.hpp"
#include "burn/collective/launcher.hpp"
#include "launch_job.hpp"

extern char** environ;

namespace fs = std::filesystem;
using namespace burn;
using namespace burn::collective;

namespace {

using burn::collective::testing::all_logs;
using burn::collective::testing::Job;

// A TCP port of 127.0.0.1 that nothing listens on now (the kernel's choice).
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  int port = -1;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  ::close(fd);
  return port;
}

bool wait_for_port(int port, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
    ::close(fd);
    if (ok) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

class Distributed : public burn::collective::testing::JobTest {
 protected:
  Job run(const std::string& scenario, int nproc, bool stop_on_failure = true, const std::string& device = "cpu",
          const std::string& ifname = "") {
    burn::collective::testing::JobOptions o;
    o.command = {BURN_COLLECTIVE_TEST_RANK, scenario, device};
    o.nproc = nproc;
    o.stop_on_failure = stop_on_failure;
    if (!ifname.empty()) o.env.emplace_back("BURN_SOCKET_IFNAME", ifname);
    return run_job(o);
  }
};

TEST_F(Distributed, ValuesOfEveryCollectiveAndDTypeOnTwoRanks) {
  const Job job = run("values", 2);
  ASSERT_EQ(job.result.exit_code, 0) << all_logs(job);
  for (int r = 0; r < 2; ++r) EXPECT_NE(job.logs[r].find(" 0 failures"), std::string::npos) << all_logs(job);
}

TEST_F(Distributed, ValuesOfEveryCollectiveAndDTypeOnThreeRanks) {
  const Job job = run("values", 3);
  ASSERT_EQ(job.result.exit_code, 0) << all_logs(job);
  for (int r = 0; r < 3; ++r) EXPECT_NE(job.logs[r].find(" 0 failures"), std::string::npos) << all_logs(job);
}

// A decorated device: results are made on the input's device (the rank checks it), here trace<cpu>.
// all_reduce across the sizes where the gloo engine changes how it sends (the data in the call frame,
// the rest in segments on 2 ranks, Gloo's ring for the rest on 3), its kept buffers reused by calls of
// other sizes.
TEST_F(Distributed, AllReduceValuesAcrossTheEnginesSizeStepsOnTwoAndThreeRanks) {
  for (const int nproc : {2, 3}) {
    const Job job = run("sizes", nproc);
    ASSERT_EQ(job.result.exit_code, 0) << all_logs(job);
    for (int r = 0; r < nproc; ++r)
      EXPECT_NE(job.logs[static_cast<size_t>(r)].find(" 0 failures"), std::string::npos) << all_logs(job);
  }
}

TEST_F(Distributed, ValuesOnADecoratedDevice) {
  const Job job = run("values", 2, true, "trace<cpu>");
  ASSERT_EQ(job.result.exit_code, 0) << all_logs(job);
  for (int r = 0; r < 2; ++r) EXPECT_NE(job.logs[r].find(" 0 failures"), std::string::npos) << all_logs(job);
}

// The transport on a named interface (loopback's, the one every machine has).
TEST_F(Distributed, ValuesOverANamedInterface) {
  const Job job = run("values", 2, true, "cpu", "lo");
  ASSERT_EQ(job.result.exit_code, 0) << all_logs(job);
  for (int r = 0; r < 2; ++r) EXPECT_NE(job.logs[r].find(" 0 failures"), std::string::npos) << all_logs(job);
}

// The ranks meet on a Redis server (redis://host:port, Gloo's RedisStore) instead of a directory: one
// started here on a free port of 127.0.0.1; skipped where Debian's redis-server is not installed.
TEST_F(Distributed, ValuesThroughARedisRendezvous) {
  const std::string server = "/usr/bin/redis-server";
  if (::access(server.c_str(), X_OK) != 0) GTEST_SKIP() << "no " << server << " (apt-get install redis-server)";
  const int port = free_port();
  ASSERT_GT(port, 0);
  const std::string port_text = std::to_string(port);
  std::vector<std::string> args = {server,
                                   "--port",
                                   port_text,
                                   "--bind",
                                   "127.0.0.1",
                                   "--save",
                                   "",
                                   "--appendonly",
                                   "no",
                                   "--dir",
                                   dir_.string(),
                                   "--logfile",
                                   (dir_ / "redis.log").string()};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t redis = 0;
  ASSERT_EQ(::posix_spawn(&redis, argv[0], nullptr, nullptr, argv.data(), environ), 0);
  struct Stop {
    pid_t pid;
    ~Stop() {
      ::kill(pid, SIGTERM);
      ::waitpid(pid, nullptr, 0);
    }
  } stop{redis};
  ASSERT_TRUE(wait_for_port(port, std::chrono::seconds(10))) << "redis-server did not listen on " << port;
  burn::collective::testing::JobOptions o;
  o.command = {BURN_COLLECTIVE_TEST_RANK, "values", "cpu"};
  o.nproc = 2;
  o.rendezvous = "redis://127.0.0.1:" + port_text;
  o.run_id = "redis-test";
  const Job job = run_job(o);
  ASSERT_EQ(job.result.exit_code, 0) << all_logs(job);
  for (int r = 0; r < 2; ++r) EXPECT_NE(job.logs[r].find(" 0 failures"), std::string::npos) << all_logs(job);
  // The run id's records stay on the server: the same id again is refused, as in a directory.
  const Job again = run_job(o);
  EXPECT_NE(all_logs(again).find("of this run id is already there"), std::string::npos) << all_logs(again);
}

// Rank 1 is SIGKILLed between two collectives: the others fail at once (their op timeout is 60 s and
// the job's limit 90 s), naming rank 1, and a second call repeats the error.
void expect_peer_death_reported(const Job& job, int nproc) {
  ASSERT_FALSE(job.result.timed_out) << all_logs(job);
  ASSERT_EQ(job.result.failed_rank, 1) << all_logs(job);
  EXPECT_EQ(job.result.ranks[1].signal, SIGKILL) << all_logs(job);
  for (int r = 0; r < nproc; ++r) {
    if (r == 1) continue;
    EXPECT_EQ(job.result.ranks[static_cast<size_t>(r)].exit_code, 3) << all_logs(job);
    // Another survivor that has already exited may be named too, before rank 1.
    const std::regex named("error: \\[collective\\.all_reduce\\] rank " + std::to_string(r) + " of " +
                           std::to_string(nproc) +
                           ": (peer |peers rank [0-9]+ \\(pid [0-9]+\\), )rank 1 \\(pid [0-9]+\\) ha(s|ve) exited");
    EXPECT_TRUE(std::regex_search(job.logs[static_cast<size_t>(r)], named)) << all_logs(job);
    EXPECT_NE(job.logs[static_cast<size_t>(r)].find("then: [collective.barrier]"), std::string::npos) << all_logs(job);
    EXPECT_NE(job.logs[static_cast<size_t>(r)].find("broken by an earlier error"), std::string::npos) << all_logs(job);
  }
}

TEST_F(Distributed, AKilledRankIsNamedByTheOthersOnTwoRanks) { expect_peer_death_reported(run("kill", 2, false), 2); }

TEST_F(Distributed, AKilledRankIsNamedByTheOthersOnThreeRanks) { expect_peer_death_reported(run("kill", 3, false), 3); }

// Rank 1 freezes (SIGSTOP): only the op's timeout (1.5 s) can end rank 0's all_reduce; then the
// launcher stops the frozen rank.
TEST_F(Distributed, AFrozenRankEndsTheOthersCollectiveAtItsTimeout) {
  const Job job = run("stop", 2);
  ASSERT_FALSE(job.result.timed_out) << all_logs(job);
  ASSERT_EQ(job.result.failed_rank, 0) << all_logs(job);
  EXPECT_EQ(job.result.exit_code, 3) << all_logs(job);
  EXPECT_NE(job.logs[0].find("error: [collective.all_reduce] rank 0 of 2: timed out after 1.5 s"), std::string::npos)
      << all_logs(job);
  EXPECT_TRUE(job.result.ranks[1].stopped) << all_logs(job);
}

// Ranks that call different collectives (a size, an op) all fail with every rank's call, at once.
TEST_F(Distributed, RanksCallingDifferentCollectivesAreToldWhatEachCalled) {
  Job job = run("mismatch-size", 2, false);
  ASSERT_FALSE(job.result.timed_out) << all_logs(job);
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(job.result.ranks[static_cast<size_t>(r)].exit_code, 3) << all_logs(job);
    EXPECT_NE(job.logs[static_cast<size_t>(r)].find(
                  "error: [collective.all_reduce] rank " + std::to_string(r) +
                  " of 2: the ranks called different collectives: rank 0 all_reduce(sum) f32 [1000], rank 1 "
                  "all_reduce(sum) f32 [2000]"),
              std::string::npos)
        << all_logs(job);
  }
  // Larger than the call frame: the rest is never sent, so no rank overflows a buffer.
  job = run("mismatch-size-large", 2, false);
  ASSERT_FALSE(job.result.timed_out) << all_logs(job);
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(job.result.ranks[static_cast<size_t>(r)].exit_code, 3) << all_logs(job);
    EXPECT_NE(job.logs[static_cast<size_t>(r)].find(
                  "error: [collective.all_reduce] rank " + std::to_string(r) +
                  " of 2: the ranks called different collectives: rank 0 all_reduce(sum) f32 [1000000], rank 1 "
                  "all_reduce(sum) f32 [2000000]"),
              std::string::npos)
        << all_logs(job);
  }
  job = run("mismatch-op", 2, false);
  ASSERT_FALSE(job.result.timed_out) << all_logs(job);
  EXPECT_NE(job.logs[0].find("error: [collective.all_reduce] rank 0 of 2: the ranks called different collectives: "
                             "rank 0 all_reduce(sum) f32 [1000], rank 1 barrier"),
            std::string::npos)
      << all_logs(job);
  EXPECT_NE(job.logs[1].find("error: [collective.barrier] rank 1 of 2"), std::string::npos) << all_logs(job);
}

TEST_F(Distributed, RanksWithDifferentWorldSizesFailAtTheRendezvous) {
  const Job job = run("world", 2, false);
  ASSERT_FALSE(job.result.timed_out) << all_logs(job);
  EXPECT_EQ(job.result.ranks[0].exit_code, 3) << all_logs(job);
  EXPECT_EQ(job.result.ranks[1].exit_code, 3) << all_logs(job);
  EXPECT_NE(job.logs[0].find("rank 0 of 2: rank 1 (pid"), std::string::npos) << all_logs(job);
  EXPECT_NE(job.logs[0].find("has world size 3, this rank 2"), std::string::npos) << all_logs(job);
  EXPECT_NE(job.logs[1].find("rank 1 of 3: rank 0 (pid"), std::string::npos) << all_logs(job);
  EXPECT_NE(job.logs[1].find("has world size 2, this rank 3"), std::string::npos) << all_logs(job);
}

// In process: the environment's errors, and a job of one rank (no plugin, no rendezvous).
class Environment : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* v : kVars) ::unsetenv(v);
  }
  void TearDown() override { SetUp(); }
  static constexpr const char* kVars[] = {"RANK",
                                          "WORLD_SIZE",
                                          "LOCAL_RANK",
                                          "BURN_RENDEZVOUS",
                                          "BURN_COLLECTIVE",
                                          "BURN_COLLECTIVE_TIMEOUT_S",
                                          "BURN_SOCKET_IFNAME",
                                          "BURN_RUN_ID",
                                          "BURN_COLLECTIVE_CHECK"};
};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST_F(Environment, BadValuesAreNamed) {
  ::setenv("WORLD_SIZE", "2", 1);
  EXPECT_NE(error_of([] { CommunicatorConfig::from_environment(); }).find("WORLD_SIZE is 2 but RANK is not set"),
            std::string::npos);
  ::setenv("RANK", "2", 1);
  EXPECT_NE(error_of([] { CommunicatorConfig::from_environment(); }).find("RANK='2': expected a rank in [0, 1]"),
            std::string::npos);
  ::setenv("RANK", "1", 1);
  EXPECT_NE(error_of([] { CommunicatorConfig::from_environment(); }).find("BURN_RENDEZVOUS is not set"),
            std::string::npos);
  ::setenv("BURN_RENDEZVOUS", "tcp://host:29500", 1);
  ::setenv("BURN_COLLECTIVE_TIMEOUT_S", "0", 1);
  EXPECT_NE(error_of([] { CommunicatorConfig::from_environment(); }).find("BURN_COLLECTIVE_TIMEOUT_S='0'"),
            std::string::npos);
  ::setenv("BURN_COLLECTIVE_TIMEOUT_S", "2.5", 1);
  ::setenv("BURN_COLLECTIVE_CHECK", "maybe", 1);
  EXPECT_NE(error_of([] { CommunicatorConfig::from_environment(); }).find("BURN_COLLECTIVE_CHECK='maybe'"),
            std::string::npos);
  ::setenv("BURN_COLLECTIVE_CHECK", "off", 1);
  EXPECT_FALSE(CommunicatorConfig::from_environment().check_calls);
  ::unsetenv("BURN_COLLECTIVE_CHECK");
  EXPECT_TRUE(CommunicatorConfig::from_environment().check_calls);
  const CommunicatorConfig c = CommunicatorConfig::from_environment();
  EXPECT_EQ(c.connect.rank, 1);
  EXPECT_EQ(c.connect.world_size, 2);
  EXPECT_EQ(c.local_rank, 1);
  EXPECT_EQ(c.connect.timeout, std::chrono::milliseconds(2500));
  EXPECT_NE(error_of([] { Communicator::from_environment(); }).find("the gloo engine meets through a directory"),
            std::string::npos);
  ::setenv("BURN_COLLECTIVE", "nosuch", 1);
  EXPECT_NE(error_of([] { Communicator::from_environment(); }).find("no collective plugin named 'nosuch'"),
            std::string::npos);
}

TEST_F(Environment, OneRankNeedsNoPluginAndReturnsItsOwnValues) {
  Communicator c = Communicator::from_environment();
  EXPECT_EQ(c.world_size(), 1);
  EXPECT_EQ(c.engine_name(), "local");
  const Device dev = Device::get("cpu");
  const auto t = Tensor<2>::from_data(TensorData::from_vector<float>({1, 2, 3, 4, 5, 6}, Shape{3, 2}), dev);
  EXPECT_EQ(c.all_reduce(t, ReduceOp::Mean).into_data(), t.into_data());
  EXPECT_EQ(c.all_gather(t).into_data(), t.into_data());
  EXPECT_EQ(c.reduce_scatter(t).into_data(), t.into_data());
  EXPECT_EQ(c.broadcast(t, 0).into_data(), t.into_data());
  EXPECT_NE(error_of([&] { c.broadcast(t, 1); }).find("root 1 is outside [0, 1)"), std::string::npos);
  const auto h = Tensor<1>::from_data(TensorData::from_vector<float>({1, 2}, Shape{2}), dev).cast(DType::F16);
  EXPECT_EQ(c.all_reduce(h, ReduceOp::Max).into_data(), h.into_data());
  const auto i = Tensor<1, Int>::from_data(TensorData::from_vector<int64_t>({1, 2}, Shape{2}), dev);
  EXPECT_NE(error_of([&] { c.all_reduce(i, ReduceOp::Mean); }).find("mean of a i64 tensor"), std::string::npos);
  c.barrier();
}

// A rank alone at the rendezvous fails after the timeout naming the missing rank; its record stays,
// so a second try in the same directory under the same run id is refused.
TEST_F(Environment, AMissingRankAndAReusedDirectoryAreNamed) {
  std::string tmpl = (fs::temp_directory_path() / "burn-collective-rdzv-XXXXXX").string();
  ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
  CommunicatorConfig config;
  config.connect.rank = 0;
  config.connect.world_size = 2;
  config.connect.rendezvous = "file://" + tmpl;
  config.connect.timeout = std::chrono::milliseconds(300);
  EXPECT_NE(error_of([&] { Communicator::connect(config); })
                .find("[collective.connect] rank 0 of 2: rank(s) 1 did not arrive at the rendezvous 'file://" + tmpl +
                      "' within 0.3 s"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              Communicator::connect(config);
            }).find("a rank 0 of this run id is already there (an earlier run, or two processes with RANK=0)"),
            std::string::npos);
  config.connect.socket_ifname = "nosuchif0";
  EXPECT_NE(error_of([&] {
              Communicator::connect(config);
            }).find("rank 0 of 2: cannot open a TCP device on interface 'nosuchif0' (BURN_SOCKET_IFNAME): "),
            std::string::npos);
  config.connect.socket_ifname.clear();
  // A Redis rendezvous whose server is not there (nothing listens on a port just freed).
  config.connect.rendezvous = "redis://127.0.0.1:" + std::to_string(free_port());
  EXPECT_NE(error_of([&] {
              Communicator::connect(config);
            }).find("rank 0 of 2: cannot reach the Redis server of the rendezvous 'redis://127.0.0.1:"),
            std::string::npos);
  config.connect.rendezvous = "redis://127.0.0.1:99999";
  EXPECT_NE(error_of([&] { Communicator::connect(config); }).find("port '99999' is not in 1..65535"),
            std::string::npos);
  config.connect.rendezvous = "file://" + tmpl + "/x";
  ASSERT_TRUE(std::ofstream(tmpl + "/x").good());
  EXPECT_NE(
      error_of([&] { Communicator::connect(config); }).find("rendezvous directory '" + tmpl + "/x' cannot be created"),
      std::string::npos);
  std::error_code ec;
  fs::remove_all(tmpl, ec);
}

// The example of burn-collective/README.md, on a job of one rank.
TEST_F(Environment, ReadmeExample) {
  Communicator comm = Communicator::from_environment();
  auto g = Tensor<2>::ones({3, 4}, Device::get("cpu"));
  auto mean = comm.all_reduce(g, ReduceOp::Mean);
  auto w = comm.broadcast(g, /*root=*/0);
  auto all = comm.all_gather(g);
  auto part = comm.reduce_scatter(Tensor<2>::ones({2 * comm.world_size(), 4}, Device::get("cpu")));
  comm.barrier(std::chrono::seconds(10));
  EXPECT_EQ(mean.into_data(), g.into_data());
  EXPECT_EQ(w.into_data(), g.into_data());
  EXPECT_EQ(all.shape(), Shape({3, 4}));
  EXPECT_EQ(part.shape(), Shape({2, 4}));
}

}  // namespace

// An engine built against burn-collective 0.1 (tests/stale_engine_plugin.cpp), whose Transport vtable lacks 0.2's
// methods, is refused when first asked for, naming both versions (run by collective.stale_engine_refused, which
// points BURN_PLUGIN_PATH at the test-only plugin folder).
TEST(EngineVersion, AnEngineBuiltAgainstAnOlderMinorIsRefusedNamingBothVersions) {
  const char* path = std::getenv("BURN_PLUGIN_PATH");
  if (!path || std::string(path) != BURN_COLLECTIVE_TEST_PLUGIN_DIR)
    GTEST_SKIP() << "needs BURN_PLUGIN_PATH=" << BURN_COLLECTIVE_TEST_PLUGIN_DIR;
  const std::string e = error_of([] { engine("stale"); });
  EXPECT_NE(e.find("built against burn-collective 0.1.0, host is burn-collective " BURN_COLLECTIVE_VERSION),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("below 1.0 the minors must match too"), std::string::npos) << e;
}
