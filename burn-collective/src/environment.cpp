// CommunicatorConfig::from_environment: torchrun's RANK, WORLD_SIZE, LOCAL_RANK and burn's own
// variables (docs/environment.md), each checked with an error that names it and its value.
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "burn/collective/communicator.hpp"

namespace burn::collective {

namespace {

constexpr const char* kFromEnvironmentOp = "collective.from_environment";

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

// A whole decimal integer in [lo, hi], or ValueError naming the variable.
int env_int(const char* name, int fallback, long lo, long hi, const std::string& what) {
  const char* v = env(name);
  if (!v) return fallback;
  errno = 0;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (errno != 0 || end == v || *end != '\0' || n < lo || n > hi) {
    throw ValueError(kFromEnvironmentOp, std::string(name) + "='" + v + "': expected " + what);
  }
  return static_cast<int>(n);
}

}  // namespace

CommunicatorConfig CommunicatorConfig::from_environment() {
  CommunicatorConfig c;
  ConnectOptions& o = c.connect;
  o.world_size = env_int("WORLD_SIZE", 1, 1, 1 << 20, "a whole number of ranks, at least 1");
  o.rank = env_int(
      "RANK", 0, 0, o.world_size - 1,
      "a rank in [0, " + std::to_string(o.world_size - 1) + "] (WORLD_SIZE is " + std::to_string(o.world_size) + ")");
  if (o.world_size > 1 && !env("RANK")) {
    throw ValueError(kFromEnvironmentOp, "WORLD_SIZE is " + std::to_string(o.world_size) +
                                             " but RANK is not set (`burn run` sets both for every rank)");
  }
  c.local_rank = env_int("LOCAL_RANK", o.rank, 0, 1 << 20, "a whole number, at least 0");
  if (const char* e = env("BURN_COLLECTIVE")) c.engine = e;
  if (const char* r = env("BURN_RENDEZVOUS")) o.rendezvous = r;
  if (o.world_size > 1 && o.rendezvous.empty()) {
    throw ValueError(kFromEnvironmentOp, "WORLD_SIZE is " + std::to_string(o.world_size) +
                                             " but BURN_RENDEZVOUS is not set: the ranks need a place to meet, e.g. "
                                             "BURN_RENDEZVOUS=file:///tmp/burn-rdzv-job1 (`burn run` sets it)");
  }
  if (const char* i = env("BURN_SOCKET_IFNAME")) o.socket_ifname = i;
  if (const char* id = env("BURN_RUN_ID")) o.run_id = id;
  if (const char* v = env("BURN_COLLECTIVE_CHECK")) {
    const std::string check = v;
    if (check == "off" || check == "0") {
      c.check_calls = false;
    } else if (check != "on" && check != "1") {
      throw ValueError(kFromEnvironmentOp, "BURN_COLLECTIVE_CHECK='" + check + "': expected on, off, 1 or 0");
    }
  }
  if (const char* t = env("BURN_COLLECTIVE_TIMEOUT_S")) {
    char* end = nullptr;
    const double s = std::strtod(t, &end);
    if (end == t || *end != '\0' || !std::isfinite(s) || s <= 0 || s > 1e7) {
      throw ValueError(kFromEnvironmentOp,
                       std::string("BURN_COLLECTIVE_TIMEOUT_S='") + t + "': expected a positive number of seconds");
    }
    o.timeout = std::chrono::milliseconds(std::max<long long>(1, std::llround(s * 1000)));
  }
  return c;
}

}  // namespace burn::collective
