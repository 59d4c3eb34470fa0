// burn-remote: the remote<tcp://host:port> decorator (tensor ops run on a burn server over the network)
// and the server itself. Linking burn::remote registers the decorator; a spec naming `remote` loads
// libburn-remote by name otherwise (as with autodiff and fusion). See burn-remote/README.md.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "burn/remote/export.hpp"
#include "burn/tensor/device.hpp"

namespace burn::remote {

// What one client of a server may use; each is configurable on the command line (`burn server --help`).
struct ServerLimits {
  uint64_t max_message_bytes = 256ull << 20;  // one frame, tensor data included
  uint64_t max_tensors = 1u << 20;            // live handles per client
  uint64_t max_bytes = 4ull << 30;            // bytes of tensors per client
};

// What a running server holds, updated after every batch and disconnect (for tests and logs).
struct ServerStats {
  std::atomic<uint64_t> clients{0}, tensors{0}, bytes{0}, closed_for_protocol_errors{0};
};

struct ServerOptions {
  std::string host = "127.0.0.1";
  std::string port = "7000";  // "0": any free port (see on_listening)
  std::string device = "cpu";
  std::string token;          // empty: no authentication
  uint32_t max_clients = 64;  // connections at once; more are refused with a message
  ServerLimits limits;
  ServerStats* stats = nullptr;  // optional, filled while serving
  bool quiet = false;            // no log line per connection
};

// Serves until `stop` becomes true (checked every 100 ms) or a fatal error. Calls on_listening with
// the bound port once listening. Each client runs on its own thread, with its own handle table.
BURN_REMOTE_API void serve(const ServerOptions& options, const std::atomic<bool>& stop,
                           void (*on_listening)(uint16_t port, void* user) = nullptr, void* user = nullptr);

// A device on the server at `address` ("tcp://host:port") over a connection of its own, not cached as
// Device::get("remote<...>") is: dropping it and its tensors closes the connection.
BURN_REMOTE_API Device connect(const std::string& address);

// What a remote<...> device's connection has sent and waited for since it was made, reached through
// query_interface(kRemoteStatsInterface) on any chain over it (decorators forward it): what the benchmarks
// report per op and per train step, and what tells an op that waits from one sent without waiting.
inline constexpr std::string_view kRemoteStatsInterface = "remote-stats";
struct RemoteStats {
  uint64_t bytes_sent = 0;      // batch frames, headers included (the handshake apart)
  uint64_t batches = 0;         // batch frames sent
  uint64_t bytes_received = 0;  // reply frames, headers included
  uint64_t round_trips = 0;     // waits for a reply: reads, syncs, ops whose outputs the client cannot predict
  std::map<std::string, uint64_t> round_trips_by_op;  // the same, by the op that waited ("into_data", "sync", ...)
};
class RemoteStatsSource {
 public:
  virtual ~RemoteStatsSource() = default;
  virtual RemoteStats stats() const = 0;
};

// Registers the "remote" decorator; called by the library's static initialiser (and harmless twice).
BURN_REMOTE_API void register_remote_decorator();

}  // namespace burn::remote
