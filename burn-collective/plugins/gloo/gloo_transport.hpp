// The gloo engine's Transport: Gloo's allreduce, broadcast, allgather, alltoall and barrier on host
// buffers over TCP, with errors that name this rank and the peer that failed. Private to the plugin.
#pragma once

#include <memory>

#include "burn/collective/engine.hpp"
#include "rendezvous.hpp"

namespace burn::collective::gloo_engine {

std::unique_ptr<Transport> make_transport(const ConnectOptions& options);

}  // namespace burn::collective::gloo_engine
