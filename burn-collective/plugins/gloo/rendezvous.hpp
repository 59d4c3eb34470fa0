// Meeting the other ranks for the gloo engine: the store named by the rendezvous URL (a FileStore in a
// directory for now), each rank's record (world size, pid, host) checked before Gloo connects, and the
// TCP device on the chosen interface. Private to the gloo plugin.
#pragma once

#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>

#include <memory>
#include <string>
#include <vector>

#include "burn/collective/engine.hpp"

namespace burn::collective::gloo_engine {

// What a rank says about itself in the store before Gloo connects: enough to check the world size
// and, after a failure, to tell whether a peer on this host has died.
struct PeerRecord {
  int world_size = 0;
  long pid = 0;
  std::string host;
};

struct Joined {
  std::shared_ptr<::gloo::rendezvous::Context> context;
  std::vector<PeerRecord> peers;  // by rank, this rank's included
};

// Rendezvous and full-mesh connection; CollectiveError naming what failed (the URL, a missing rank,
// a rank with another world size, a key left by an earlier run, the interface).
Joined join(const ConnectOptions& options);

// This machine's host name, as written in the records.
std::string host_name();

}  // namespace burn::collective::gloo_engine
