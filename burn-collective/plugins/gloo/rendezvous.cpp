// The gloo engine's rendezvous: a store (Gloo's FileStore in a shared directory, or its RedisStore on
// a Redis server every machine reaches) under a prefix per run, a record per rank, then Gloo's
// full-mesh connection over TCP.
#include "rendezvous.hpp"

#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#define HIREDIS_NESTED_INCLUDE  // Debian's libhiredis-dev puts hiredis.h in /usr/include/hiredis
#include <gloo/rendezvous/redis_store.h>
#include <gloo/transport/tcp/device.h>
#include <net/if.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <sstream>
#include <thread>

#include "sigpipe.hpp"

namespace burn::collective::gloo_engine {

namespace {

constexpr const char* kOp = "collective.connect";
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

std::string who(const ConnectOptions& o) {
  return "rank " + std::to_string(o.rank) + " of " + std::to_string(o.world_size);
}

std::string seconds_text(milliseconds t) {
  std::ostringstream s;
  s << static_cast<double>(t.count()) / 1000.0 << " s";
  return s.str();
}

// file:///abs/dir: a FileStore in that directory (created when missing).
std::unique_ptr<::gloo::rendezvous::Store> file_store(const ConnectOptions& o) {
  const std::string prefix = "file://";
  const std::string dir = o.rendezvous.substr(prefix.size());
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) {
    throw CollectiveError(kOp, who(o) + ": rendezvous directory '" + dir +
                                   "' cannot be created: " + (ec ? ec.message() : "not a directory"));
  }
  return std::make_unique<::gloo::rendezvous::FileStore>(dir);
}

// redis://host[:port]: a RedisStore on that server (port 6379 by default), for machines without a
// shared file system.
std::unique_ptr<::gloo::rendezvous::Store> redis_store(const ConnectOptions& o) {
  const std::string rest = o.rendezvous.substr(std::string("redis://").size());
  const size_t colon = rest.rfind(':');
  const std::string host = rest.substr(0, colon == std::string::npos ? rest.size() : colon);
  int port = 6379;
  if (colon != std::string::npos) {
    const std::string p = rest.substr(colon + 1);
    char* end = nullptr;
    const long v = std::strtol(p.c_str(), &end, 10);
    if (p.empty() || *end != '\0' || v < 1 || v > 65535) {
      throw ValueError(kOp, who(o) + ": rendezvous '" + o.rendezvous + "': port '" + p + "' is not in 1..65535");
    }
    port = static_cast<int>(v);
  }
  if (host.empty() || host.find('/') != std::string::npos) {
    throw ValueError(kOp, who(o) + ": rendezvous '" + o.rendezvous + "': expected redis://host or redis://host:port");
  }
  auto unreachable = [&](const std::string& why) {
    return CollectiveError(kOp, who(o) + ": cannot reach the Redis server of the rendezvous '" + o.rendezvous +
                                    "' (is redis-server running there, and port " + std::to_string(port) +
                                    " open?): " + why);
  };
  // Gloo's RedisStore throws on a refused connection without freeing hiredis' context: a probe of our
  // own, freed either way, keeps an unreachable server from leaking one per attempt.
  const timeval connect_timeout{2, 0};
  redisContext* probe = redisConnectWithTimeout(host.c_str(), port, connect_timeout);
  const std::string probe_error = !probe ? "out of memory" : probe->err ? probe->errstr : "";
  if (probe) redisFree(probe);
  if (!probe_error.empty()) throw unreachable(probe_error);
  try {
    return std::make_unique<::gloo::rendezvous::RedisStore>(host, port);
  } catch (const std::exception& e) {
    throw unreachable(e.what());
  }
}

// The store the rendezvous URL names.
std::unique_ptr<::gloo::rendezvous::Store> make_store(const ConnectOptions& o) {
  const std::string& url = o.rendezvous;
  if (url.rfind("file:///", 0) == 0 && url.size() > 8) return file_store(o);
  if (url.rfind("redis://", 0) == 0) return redis_store(o);
  throw Unsupported(kOp, who(o) + ": rendezvous '" + url +
                             "': the gloo engine meets through a directory, file:///absolute/path (a shared "
                             "folder for ranks on several machines), or a Redis server, redis://host[:port]");
}

std::string encode(const PeerRecord& r, const std::string& nonce) {
  return "world=" + std::to_string(r.world_size) + " pid=" + std::to_string(r.pid) + " nonce=" + nonce +
         " host=" + r.host;
}

PeerRecord decode(const std::vector<char>& bytes, std::string& nonce) {
  std::istringstream in(std::string(bytes.begin(), bytes.end()));
  PeerRecord r;
  std::string field;
  while (in >> field) {
    const auto eq = field.find('=');
    if (eq == std::string::npos) continue;
    const std::string k = field.substr(0, eq), v = field.substr(eq + 1);
    if (k == "world") r.world_size = std::atoi(v.c_str());
    if (k == "pid") r.pid = std::atol(v.c_str());
    if (k == "nonce") nonce = v;
    if (k == "host") r.host = v;
  }
  return r;
}

std::string random_nonce() {
  std::random_device rd;
  std::ostringstream s;
  s << std::hex << rd() << rd();
  return s.str();
}

// Waits for the record of `rank`; false when the deadline passes first.
bool wait_key(::gloo::rendezvous::Store& store, const std::string& key, Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
  try {
    store.wait({key}, std::max(left, milliseconds(1)));
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

std::string record_key(int rank) { return "burn-rank-" + std::to_string(rank); }

std::shared_ptr<::gloo::transport::Device> make_device(const ConnectOptions& o) {
  ::gloo::transport::tcp::attr attr;
  // Without an interface the ranks talk over loopback only: safe by default, and a job across
  // machines has to say which network to use.
  if (o.socket_ifname.empty()) {
    attr.hostname = "127.0.0.1";
  } else {
    // Checked here first: Gloo's own lookup throws without freeing getifaddrs' list.
    if (::if_nametoindex(o.socket_ifname.c_str()) == 0) {
      throw CollectiveError(kOp, who(o) + ": cannot open a TCP device on interface '" + o.socket_ifname +
                                     "' (BURN_SOCKET_IFNAME): no such interface on " + host_name() +
                                     " (`ip -brief addr` lists them)");
    }
    attr.iface = o.socket_ifname;
  }
  try {
    return ::gloo::transport::tcp::CreateDevice(attr);
  } catch (const std::exception& e) {
    throw CollectiveError(kOp,
                          who(o) + ": cannot open a TCP device on " +
                              (o.socket_ifname.empty() ? std::string("127.0.0.1")
                                                       : "interface '" + o.socket_ifname + "' (BURN_SOCKET_IFNAME)") +
                              ": " + e.what());
  }
}

}  // namespace

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof(buf) - 1) != 0) return "unknown";
  return buf;
}

Joined join(const ConnectOptions& o) {
  auto base_store = make_store(o);
  const SigpipeBlocked blocked;  // Gloo's I/O thread, started with the device, keeps SIGPIPE blocked
  auto device = make_device(o);  // first: a wrong interface fails at once, not after the rendezvous
  const std::string run = o.run_id.empty() ? "burn" : o.run_id;
  ::gloo::rendezvous::PrefixStore store(run, *base_store);
  const auto deadline = Clock::now() + o.timeout;

  // 1. This rank's record. FileStore refuses to overwrite a key: one left by an earlier run is an error.
  PeerRecord self{o.world_size, static_cast<long>(::getpid()), host_name()};
  const std::string nonce = random_nonce();
  try {
    const std::string text = encode(self, nonce);
    store.set(record_key(o.rank), std::vector<char>(text.begin(), text.end()));
  } catch (const std::exception& e) {
    throw CollectiveError(kOp, who(o) + ": cannot write its record in the rendezvous '" + o.rendezvous + "' (run id '" +
                                   run + "'): a rank " + std::to_string(o.rank) +
                                   " of this run id is already there (an earlier run, or two processes with RANK=" +
                                   std::to_string(o.rank) + "); give each run a fresh directory or BURN_RUN_ID (" +
                                   e.what() + ")");
  }

  // 2. Every rank's record, rank 0's first: a different world size is found as soon as one is read.
  Joined joined;
  joined.peers.resize(static_cast<size_t>(o.world_size));
  std::string nonce0;
  std::vector<int> missing;
  for (int r = 0; r < o.world_size; ++r) {
    if (!wait_key(store, record_key(r), deadline)) {
      missing.push_back(r);
      continue;
    }
    std::string n;
    PeerRecord rec = decode(store.get(record_key(r)), n);
    if (rec.world_size != o.world_size) {
      throw CollectiveError(kOp, who(o) + ": rank " + std::to_string(r) + " (pid " + std::to_string(rec.pid) + " on " +
                                     rec.host + ") has world size " + std::to_string(rec.world_size) + ", this rank " +
                                     std::to_string(o.world_size) +
                                     ": every rank must be started with the same WORLD_SIZE");
    }
    if (r == 0) nonce0 = n;
    joined.peers[static_cast<size_t>(r)] = rec;
  }
  if (!missing.empty()) {
    std::string list;
    for (int r : missing) list += (list.empty() ? "" : ", ") + std::to_string(r);
    throw CollectiveError(kOp, who(o) + ": rank(s) " + list + " did not arrive at the rendezvous '" + o.rendezvous +
                                   "' within " + seconds_text(o.timeout) + " (world size " +
                                   std::to_string(o.world_size) + "; BURN_COLLECTIVE_TIMEOUT_S sets the wait)");
  }

  // 3. Gloo's own keys under rank 0's nonce, so that keys of an earlier run are never read.
  ::gloo::rendezvous::PrefixStore mesh_store(run + "-" + nonce0, *base_store);
  auto context = std::make_shared<::gloo::rendezvous::Context>(o.rank, o.world_size);
  context->setTimeout(std::max(std::chrono::duration_cast<milliseconds>(deadline - Clock::now()), milliseconds(1)));
  try {
    context->connectFullMesh(mesh_store, device);
  } catch (const std::exception& e) {
    throw CollectiveError(kOp, who(o) + ": connecting to the other ranks failed: " + e.what());
  }
  context->setTimeout(o.timeout);
  joined.context = std::move(context);
  return joined;
}

}  // namespace burn::collective::gloo_engine
