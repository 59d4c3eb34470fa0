// burn-fuzz: the time-budgeted fuzz run of ctest (label fuzz). It first runs one unmutated case per op
// (every op of the table is then reached), then mutated executions until the budget is spent, each
// replayable alone from the printed seed and its index. Fails on any escape that is not a
// burn::Error, on an op never reached, and (through the sanitizers, a signal or the watchdog) on
// crashes and hangs, printing the execution that died.
//   burn-fuzz [--seconds S] [--executions N] [--seed N] [--replay I] [--devices A;B] [--fixtures DIR] [--max-bytes B]
// BURN_FUZZ_SECONDS, BURN_FUZZ_EXECUTIONS and BURN_FUZZ_SEED give the defaults of --seconds, --executions and --seed;
// run longer by hand with e.g. BURN_FUZZ_SECONDS=3600, and a new seed with BURN_FUZZ_SEED=$RANDOM.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fuzz.hpp"

extern "C" void __sanitizer_set_death_callback(void (*)(void)) __attribute__((weak));

namespace burn::conformance::fuzz {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr double kDefaultSeconds = 30;  // CI's asan stage; a sanitized execution is ~10x slower
constexpr double kCaseSeconds = 60;
#else
constexpr double kDefaultSeconds = 20;
constexpr double kCaseSeconds = 15;
#endif
constexpr uint64_t kDefaultSeed = 20240611;
constexpr size_t kMaxFailures = 20;

// ---- the execution running now, for crash, sanitizer and hang reports ---------------------------

std::mutex g_mutex;
std::string g_current;                  // guarded by g_mutex
char g_crash_text[8192];                // a copy that signal handlers and death callbacks can print
std::atomic<int64_t> g_started_ms{-1};  // -1 between executions

int64_t now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

void set_current(const std::string& text) {
  std::lock_guard<std::mutex> lk(g_mutex);
  g_current = text;
  const size_t n = std::min(text.size(), sizeof(g_crash_text) - 1);
  std::memcpy(g_crash_text, text.data(), n);
  g_crash_text[n] = '\0';
  g_started_ms.store(now_ms());
}

void report_current() {
  const char head[] = "\nburn-fuzz: died while running:\n  ";
  (void)!write(2, head, sizeof(head) - 1);
  (void)!write(2, g_crash_text, std::strlen(g_crash_text));
  (void)!write(2, "\n", 1);
}

void on_fatal_signal(int sig) {
  report_current();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// A hang is a failure too: an execution on tensors of a few thousand elements takes milliseconds.
void watchdog(double case_seconds) {
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const int64_t started = g_started_ms.load();
    if (started >= 0 && now_ms() - started > static_cast<int64_t>(case_seconds * 1000)) {
      std::lock_guard<std::mutex> lk(g_mutex);
      std::fprintf(stderr, "\nburn-fuzz: FAILED: an execution has run for more than %.0f s (a hang):\n  %s\n",
                   case_seconds, g_current.c_str());
      std::fflush(stderr);
      _exit(3);
    }
  }
}

struct Args {
  double seconds = kDefaultSeconds;
  uint64_t seed = kDefaultSeed;
  int64_t replay = -1;
  std::vector<std::string> devices = {"trace<cpu>", "trace<defaults<cpu>>"};
  std::string fixtures;
  size_t max_bytes = size_t(16) << 20;
  uint64_t max_executions = 0;  // 0: only the time budget stops the run
};

void usage() {
  std::cout
      << "usage: burn-fuzz [--seconds S] [--executions N] [--seed N] [--replay I] [--devices A;B] [--fixtures DIR] "
         "[--max-bytes B]\n"
         "  --seconds S    time budget after the unmutated pass (default $BURN_FUZZ_SECONDS, else "
      << kDefaultSeconds
      << ")\n"
         "  --executions N stop after N mutated executions even within the time budget (default\n"
         "                 $BURN_FUZZ_EXECUTIONS, else none): CI runs a fixed prefix of the seed's sequence\n"
         "  --seed N       seed of the mutated executions (default $BURN_FUZZ_SEED, else "
      << kDefaultSeed
      << ")\n"
         "  --replay I     run only mutated execution I of the seed, printing it\n"
         "  --devices L    ';'-separated trace<...> chains (default trace<cpu>;trace<defaults<cpu>>)\n"
         "  --fixtures D   fixture folder (default <exe>/../share/burn/conformance/fixtures)\n"
         "  --max-bytes B  largest tensor buffer (set_max_alloc_bytes; default 16 MiB), so absurd sizes fail fast\n";
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t at = 0;
  for (size_t k; (k = s.find(sep, at)) != std::string::npos; at = k + 1) out.push_back(s.substr(at, k - at));
  out.push_back(s.substr(at));
  return out;
}

std::string exe_dir() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : p.parent_path().string();
}

Args parse(int argc, char** argv) {
  Args a;
  if (const char* s = std::getenv("BURN_FUZZ_SECONDS")) a.seconds = std::atof(s);
  if (const char* s = std::getenv("BURN_FUZZ_SEED")) a.seed = std::strtoull(s, nullptr, 10);
  if (const char* s = std::getenv("BURN_FUZZ_EXECUTIONS")) a.max_executions = std::strtoull(s, nullptr, 10);
  a.fixtures = exe_dir() + "/../share/burn/conformance/fixtures";
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "burn-fuzz: " << k << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (k == "--seconds")
      a.seconds = std::atof(value().c_str());
    else if (k == "--executions")
      a.max_executions = std::strtoull(value().c_str(), nullptr, 10);
    else if (k == "--seed")
      a.seed = std::strtoull(value().c_str(), nullptr, 10);
    else if (k == "--replay")
      a.replay = std::atoll(value().c_str());
    else if (k == "--devices")
      a.devices = split(value(), ';');
    else if (k == "--fixtures")
      a.fixtures = value();
    else if (k == "--max-bytes")
      a.max_bytes = std::strtoull(value().c_str(), nullptr, 10);
    else if (k == "--help" || k == "-h")
      usage(), std::exit(0);
    else {
      std::cerr << "burn-fuzz: unknown argument " << k << "\n";
      usage();
      std::exit(2);
    }
  }
  return a;
}

int run(const Args& a) {
  set_max_alloc_bytes(a.max_bytes);
  std::vector<Device> devices;
  for (const std::string& spec : a.devices) devices.push_back(Device::get(spec));
  Driver driver(load_cases(a.fixtures), devices);
  const auto replay_line = [&](int64_t i) {
    return "replay: burn-fuzz --seed " + std::to_string(a.seed) + " --replay " + std::to_string(i);
  };

  if (a.replay >= 0) {
    Rng rng(splitmix(splitmix(a.seed) + static_cast<uint64_t>(a.replay)));
    std::string text;
    Outcome o = driver.run_mutated(rng, [&](const std::string& t) {
      text = t;
      set_current(t);
      std::cout << "execution " << a.replay << ": " << t << std::endl;
    });
    static const char* kinds[] = {"ok", "burn::Error", "skipped", "FAILED"};
    std::cout << "  -> " << kinds[static_cast<int>(o.kind)] << " " << o.detail << "\n";
    return o.kind == Outcome::Kind::Failure ? 1 : 0;
  }

  std::cout << "burn-fuzz: seed " << a.seed << ", " << a.seconds << " s after the unmutated pass, "
            << driver.case_count() << " fixture cases, devices";
  for (const auto& d : a.devices) std::cout << " " << d;
  std::cout << "\n  reproduce with BURN_FUZZ_SEED=" << a.seed << "; one execution with --seed " << a.seed
            << " --replay I" << std::endl;

  std::vector<std::string> failures;
  std::map<std::string, uint64_t> errors;
  uint64_t ok = 0, skipped = 0, runs = 0;
  const auto tally = [&](const Outcome& o, const std::string& text) {
    ++runs;
    switch (o.kind) {
      case Outcome::Kind::Ok: ++ok; break;
      case Outcome::Kind::BurnError: ++errors[o.detail]; break;
      case Outcome::Kind::Skipped: ++skipped; break;
      case Outcome::Kind::Failure:
        failures.push_back(o.detail + "\n    " + text);
        std::cerr << "burn-fuzz: FAILURE: " << failures.back() << std::endl;
        break;
    }
  };

  const auto start = std::chrono::steady_clock::now();
  // Unmutated: every op its fixtures reach, reached at least once.
  for (size_t c : driver.seed_cases()) {
    std::string text;
    Outcome o = driver.run_case(c, [&](const std::string& t) { set_current("unmutated " + (text = t)); });
    g_started_ms.store(-1);
    tally(o, "unmutated " + text);
  }
  g_started_ms.store(-1);
  const auto mutated_start = std::chrono::steady_clock::now();
  const auto deadline = mutated_start + std::chrono::duration<double>(a.seconds);
  int64_t i = 0;
  for (; std::chrono::steady_clock::now() < deadline && failures.size() < kMaxFailures &&
         (a.max_executions == 0 || static_cast<uint64_t>(i) < a.max_executions);
       ++i) {
    Rng rng(splitmix(splitmix(a.seed) + static_cast<uint64_t>(i)));
    std::string text;
    Outcome o =
        driver.run_mutated(rng, [&](const std::string& t) { set_current((text = t) + "\n  " + replay_line(i)); });
    g_started_ms.store(-1);
    tally(o, text + "\n    " + replay_line(i));
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  uint64_t burn_errors = 0;
  for (const auto& [k, n] : errors) burn_errors += n;
  std::cout << "burn-fuzz: " << runs << " executions (" << i << " mutated) in " << secs << " s, "
            << static_cast<int64_t>(runs / std::max(secs, 1e-9)) << "/s: " << ok << " ok, " << burn_errors
            << " burn::Error (";
  bool first = true;
  for (const auto& [k, n] : errors) std::cout << (first ? "" : ", ") << k << " " << n, first = false;
  std::cout << "), " << skipped << " skipped, " << failures.size() << " failures" << std::endl;

  const std::vector<std::string> missing = driver.unreached_ops();
  if (!missing.empty()) {
    std::cerr << "burn-fuzz: FAILED: " << missing.size() << " op(s) of burn::all_ops() were never reached (add a"
              << " fixture case that runs them):";
    for (const auto& m : missing) std::cerr << " " << m;
    std::cerr << "\n";
  }
  const std::vector<std::string> undriven = driver.undriven_calls();
  if (!undriven.empty()) {
    std::cerr << "burn-fuzz: FAILED: " << undriven.size() << " call(s) of the conformance call table have no fixture"
              << " case, so they were never run:";
    for (const auto& m : undriven) std::cerr << " " << m;
    std::cerr << "\n";
  }
  if (!failures.empty())
    std::cerr << "burn-fuzz: FAILED: " << failures.size() << " execution(s) let a non-burn::Error escape\n";
  return failures.empty() && missing.empty() && undriven.empty() ? 0 : 1;
}

}  // namespace
}  // namespace burn::conformance::fuzz

int main(int argc, char** argv) {
  using namespace burn::conformance::fuzz;
  const Args args = parse(argc, argv);
  if (__sanitizer_set_death_callback) {
    __sanitizer_set_death_callback(report_current);
  } else {
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(sig, on_fatal_signal);
  }
  std::thread(watchdog, kCaseSeconds).detach();
  try {
    return run(args);
  } catch (const std::exception& e) {
    std::cerr << "burn-fuzz: " << e.what() << "\n";
    return 2;
  }
}
