// launch(): fork and exec one process group per rank, watch them, stop them all when one fails, when
// the job times out or when the launcher is signalled, and kill whatever a rank left behind.
#include "burn/collective/launcher.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>
#include <sstream>
#include <thread>

#include "burn/tensor/error.hpp"

extern char** environ;

namespace burn::collective {

namespace {

constexpr const char* kLaunchOp = "collective.launch";
using Clock = std::chrono::steady_clock;
constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP};

// Variables the launcher sets for each rank: taken out of the inherited environment.
bool launcher_sets(const std::string& kv) {
  for (const char* k :
       {"RANK=", "LOCAL_RANK=", "WORLD_SIZE=", "LOCAL_WORLD_SIZE=", "GROUP_RANK=", "BURN_RENDEZVOUS=", "BURN_RUN_ID="})
    if (kv.rfind(k, 0) == 0) return true;
  return false;
}

bool has_variable(const std::vector<std::string>& env, const std::string& name) {
  for (const auto& kv : env)
    if (kv.rfind(name + "=", 0) == 0) return true;
  return false;
}
bool has_option(const LaunchOptions& o, const std::string& name) {
  for (const auto& kv : o.env)
    if (kv.first == name) return true;
  return false;
}

// The ranks of one machine share its cores: each rank's cpu backend gets cores / ranks threads
// (at least 1) unless BURN_NUM_THREADS says otherwise, so N ranks do not start N pools of all cores.
int default_threads(int nproc) {
  const unsigned hw = std::thread::hardware_concurrency();
  return std::max(1, static_cast<int>(hw == 0 ? 1 : hw) / std::max(1, nproc));
}

std::string random_hex() {
  std::random_device rd;
  std::ostringstream s;
  s << std::hex << rd() << rd();
  return s.str();
}

// The signals the launcher takes synchronously while it runs (restored after).
struct SignalMask {
  sigset_t set{}, old{};
  bool active = false;
  int fd = -1;  // a signalfd of the set: poll() wakes for a signal as for a rank's end (-1: not available)
  explicit SignalMask(bool on) : active(on) {
    sigemptyset(&set);
    for (int s : kForwarded) sigaddset(&set, s);
    if (active) {
      pthread_sigmask(SIG_BLOCK, &set, &old);
      fd = ::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    }
  }
  ~SignalMask() {
    if (fd >= 0) ::close(fd);
    if (active) pthread_sigmask(SIG_SETMASK, &old, nullptr);
  }
  SignalMask(const SignalMask&) = delete;
  SignalMask& operator=(const SignalMask&) = delete;
  // A pending forwarded signal, taken without waiting; 0 when none.
  int take() const {
    if (!active) return 0;
    timespec now{0, 0};
    const int s = sigtimedwait(&set, nullptr, &now);
    return s > 0 ? s : 0;
  }
};

struct Rank {
  RankStatus status;
  bool running = false;
  int pidfd = -1;  // readable once the rank has ended (-1 where the kernel has no pidfd_open)
  Clock::time_point term_sent{};
};

// Sleeps until a running rank ends, a forwarded signal arrives or `wait` passes. On the ranks' pidfds the first
// rank to end is seen at once: with a fixed sleep, a peer that fails because of it (its socket closed) can end in
// the same sleep, and the sweep, which goes in rank order, could not tell which ended first.
void wait_for_event(const std::vector<Rank>& ranks, const SignalMask& mask, std::chrono::milliseconds wait) {
  std::vector<pollfd> fds;
  for (const auto& r : ranks)
    if (r.running && r.pidfd >= 0) fds.push_back({r.pidfd, POLLIN, 0});
  if (mask.fd >= 0) fds.push_back({mask.fd, POLLIN, 0});
  ::poll(fds.data(), fds.size(), static_cast<int>(wait.count()));  // EINTR: the sweep runs early, which is harmless
}

void close_pidfds(std::vector<Rank>& ranks) {
  for (auto& r : ranks)
    if (r.pidfd >= 0) {
      ::close(r.pidfd);
      r.pidfd = -1;
    }
}

pid_t spawn_rank(const LaunchOptions& o, int rank, const std::vector<std::string>& base_env, const std::string& url,
                 const std::string& run_id) {
  std::vector<std::string> env = base_env;
  env.push_back("RANK=" + std::to_string(o.node_rank * o.nproc + rank));
  env.push_back("LOCAL_RANK=" + std::to_string(rank));
  env.push_back("WORLD_SIZE=" + std::to_string(o.nnodes * o.nproc));
  env.push_back("LOCAL_WORLD_SIZE=" + std::to_string(o.nproc));
  env.push_back("GROUP_RANK=" + std::to_string(o.node_rank));
  env.push_back("BURN_RENDEZVOUS=" + url);
  env.push_back("BURN_RUN_ID=" + run_id);
  if (!has_variable(base_env, "BURN_NUM_THREADS") && !has_option(o, "BURN_NUM_THREADS")) {
    env.push_back("BURN_NUM_THREADS=" + std::to_string(default_threads(o.nproc)));
  }
  for (const auto& [k, v] : o.env) env.push_back(k + "=" + v);
  std::vector<char*> envp, argv;
  for (auto& s : env) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = o.command;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  std::string log;
  if (!o.output_dir.empty()) {
    log = (std::filesystem::path(o.output_dir) / ("rank-" + std::to_string(rank) + ".log")).string();
  }
  sigset_t none;
  sigemptyset(&none);
  // The child reports a failed exec through this pipe (closed by a successful one).
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0)
    throw Error(kLaunchOp, std::string("cannot make a pipe: ") + std::strerror(errno));
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int e = errno;
    ::close(report[0]);
    ::close(report[1]);
    throw Error(kLaunchOp, "cannot start rank " + std::to_string(rank) + ": fork: " + std::strerror(e));
  }
  if (pid == 0) {
    // Only async-signal-safe calls from here. Its own process group: stopping a rank stops what it
    // started, and a terminal's Ctrl-C reaches the launcher only, which forwards it once. SIGKILL when
    // the launcher dies, even by SIGKILL, so no rank outlives it.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int sig : kForwarded) ::sigaction(sig, &dfl, nullptr);
    ::sigaction(SIGPIPE, &dfl, nullptr);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    if (!log.empty()) {
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0 || ::dup2(fd, STDOUT_FILENO) < 0 || ::dup2(fd, STDERR_FILENO) < 0) {
        const int e = errno;
        [[maybe_unused]] const ssize_t n = ::write(report[1], &e, sizeof(e));
        ::_exit(127);
      }
      ::close(fd);
    }
    ::execvpe(argv[0], argv.data(), envp.data());
    const int e = errno;
    [[maybe_unused]] const ssize_t n = ::write(report[1], &e, sizeof(e));
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here, so that it is a group before the launcher signals it
  ::close(report[1]);
  int child_errno = 0;
  ssize_t got;
  do {
    got = ::read(report[0], &child_errno, sizeof(child_errno));
  } while (got < 0 && errno == EINTR);
  ::close(report[0]);
  if (got > 0) {
    ::waitpid(pid, nullptr, 0);
    throw Error(kLaunchOp, "cannot start rank " + std::to_string(rank) + " ('" + o.command[0] + "'" +
                               (log.empty() ? "" : ", output to '" + log + "'") + "): " + std::strerror(child_errno));
  }
  return pid;
}

std::string how_it_ended(const RankStatus& s) {
  if (s.signal) return "was killed by signal " + std::to_string(s.signal) + " (" + strsignal(s.signal) + ")";
  return "exited with code " + std::to_string(s.exit_code);
}

}  // namespace

LaunchResult launch(const LaunchOptions& o) {
  if (o.command.empty()) throw ValueError(kLaunchOp, "no program to run");
  if (o.nproc < 1 || o.nproc > 4096)
    throw ValueError(kLaunchOp, "nproc " + std::to_string(o.nproc) + ": expected 1 to 4096");
  if (o.nnodes < 1 || o.nnodes > 65536 || o.node_rank < 0 || o.node_rank >= o.nnodes) {
    throw ValueError(kLaunchOp, "node rank " + std::to_string(o.node_rank) + " of " + std::to_string(o.nnodes) +
                                    " machines: expected 0 <= node rank < machines");
  }
  // The launchers of the machines meet only through the directory and the run id they are given.
  if (o.nnodes > 1 && (o.rendezvous.empty() || o.run_id.empty())) {
    throw ValueError(kLaunchOp, "a job on " + std::to_string(o.nnodes) +
                                    " machines needs a rendezvous every machine reaches (a shared directory, "
                                    "file:///shared/dir) and a run id, the same on every machine");
  }

  // The rendezvous directory, fresh unless given; the run id keeps runs in one directory apart.
  namespace fs = std::filesystem;
  std::string dir;
  bool own_dir = false;
  std::string url = o.rendezvous;
  if (url.empty()) {
    std::error_code ec;
    std::string tmpl = (fs::temp_directory_path(ec) / "burn-run-XXXXXX").string();
    if (!::mkdtemp(tmpl.data()))
      throw Error(kLaunchOp, "cannot make a rendezvous directory " + tmpl + ": " + std::strerror(errno));
    dir = tmpl;
    own_dir = true;
    url = "file://" + dir;
  }
  const std::string run_id = o.run_id.empty() ? "run-" + random_hex() : o.run_id;
  std::vector<std::string> base_env;
  for (char** e = environ; *e; ++e)
    if (!launcher_sets(*e)) base_env.emplace_back(*e);

  SignalMask mask(o.forward_signals);
  std::vector<Rank> ranks(static_cast<size_t>(o.nproc));
  LaunchResult result;
  auto stop_all = [&](int sig) {
    for (auto& r : ranks) {
      if (!r.running) continue;
      ::kill(-r.status.pid, sig);
      if (r.term_sent == Clock::time_point{}) r.term_sent = Clock::now();
      r.status.stopped = true;
    }
  };
  try {
    for (int i = 0; i < o.nproc; ++i) {
      Rank& r = ranks[static_cast<size_t>(i)];
      r.status.rank = i;
      r.status.pid = spawn_rank(o, i, base_env, url, run_id);
      r.running = true;
      // The raw call: glibc 2.36's <sys/pidfd.h> declares pidfd_open without C linkage for C++.
      r.pidfd = static_cast<int>(::syscall(SYS_pidfd_open, r.status.pid, 0));
    }
  } catch (...) {
    stop_all(SIGKILL);
    for (auto& r : ranks)
      if (r.running) ::waitpid(r.status.pid, nullptr, 0);
    close_pidfds(ranks);
    if (own_dir) fs::remove_all(dir);
    throw;
  }

  const auto start = Clock::now();
  bool stopping = false;
  size_t running = ranks.size();
  while (running > 0) {
    std::vector<Rank*> ended;
    for (auto& r : ranks) {
      if (!r.running) continue;
      int status = 0;
      if (::waitpid(r.status.pid, &status, WNOHANG) != r.status.pid) {
        // Asked to stop and still there after the grace period: killed.
        if (r.term_sent != Clock::time_point{} && Clock::now() - r.term_sent > o.grace) ::kill(-r.status.pid, SIGKILL);
        continue;
      }
      r.running = false;
      --running;
      if (WIFEXITED(status)) r.status.exit_code = WEXITSTATUS(status);
      if (WIFSIGNALED(status)) r.status.signal = WTERMSIG(status);
      ::kill(-r.status.pid, SIGKILL);  // what the rank left in its group
      ended.push_back(&r);
    }
    // Of ranks found ended in one sweep, one killed by a signal is taken as the first failure: the others most
    // likely failed because it died, and the sweep cannot tell their order.
    std::stable_partition(ended.begin(), ended.end(), [](const Rank* r) { return r->status.signal != 0; });
    for (Rank* rp : ended) {
      Rank& r = *rp;
      const bool failed = r.status.signal != 0 || r.status.exit_code != 0;
      // The first rank that fails gives the job its exit code; ranks stopped by the launcher do not.
      if (failed && !stopping && result.failed_rank < 0) {
        result.failed_rank = r.status.rank;
        result.exit_code = r.status.signal ? 128 + r.status.signal : r.status.exit_code;
        result.summary = "rank " + std::to_string(r.status.rank) + " (pid " + std::to_string(r.status.pid) + ") " +
                         how_it_ended(r.status);
        if (o.stop_on_failure) {
          result.summary += "; the other ranks were stopped";
          stopping = true;
          stop_all(SIGTERM);
        }
      }
    }
    if (running == 0) break;
    wait_for_event(ranks, mask, std::chrono::milliseconds(5));
    if (const int sig = mask.take(); sig != 0) {
      if (!stopping) {
        result.exit_code = 128 + sig;
        result.summary = std::string("the launcher got ") + strsignal(sig) + ", forwarded to every rank";
        stopping = true;
      }
      stop_all(sig);
    }
    if (!stopping && o.timeout.count() > 0 && Clock::now() - start > o.timeout) {
      result.timed_out = true;
      result.exit_code = 124;
      std::ostringstream s;
      s << "the job ran past its timeout of " << static_cast<double>(o.timeout.count()) / 1000.0
        << " s; every rank was stopped";
      result.summary = s.str();
      stopping = true;
      stop_all(SIGTERM);
    }
  }
  close_pidfds(ranks);
  for (auto& r : ranks) result.ranks.push_back(r.status);
  if (result.summary.empty()) result.summary = "every rank exited with code 0";
  if (own_dir) {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  return result;
}

}  // namespace burn::collective
