// The interface a collective engine plugin (kind `collective`, e.g. `gloo`) implements: an Engine
// joins a group of ranks and returns a Transport that moves host bytes between them. Users call
// burn::collective::Communicator (communicator.hpp), which stages tensors through these.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "burn/collective/export.hpp"
#include "burn/collective/version.hpp"
#include "burn/tensor/dtype.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/plugin.hpp"

namespace burn::collective {

// How values of the ranks are combined. An engine is asked for Sum, Max and Min only: the
// Communicator computes Mean as a Sum divided by the world size.
enum class ReduceOp : uint8_t { Sum, Mean, Max, Min };
BURN_COLLECTIVE_API const char* reduce_op_name(ReduceOp op);

// A collective that failed: a peer that died or did not answer in time, a rendezvous that did not
// complete, ranks that disagree on the world size. The message names the op, this rank and the peer.
class BURN_COLLECTIVE_API CollectiveError : public Error {
 public:
  CollectiveError(const std::string& op, const std::string& message) : Error(op, message) {}
};

// Where and how a rank joins its group (see docs/environment.md for the variables they come from).
struct ConnectOptions {
  int rank = 0;
  int world_size = 1;
  std::string rendezvous;     // "file:///shared/dir": the store the ranks meet in
  std::string run_id;         // keys of one run in the store; ranks of one run share it
  std::string socket_ifname;  // network interface for the transport; empty: loopback (127.0.0.1)
  std::chrono::milliseconds timeout{std::chrono::seconds(300)};  // rendezvous, and ops without their own
};

// One rank's connection to its group. Every method blocks until the collective is done on this rank
// or throws CollectiveError; a transport that threw is broken and every later call throws again.
// Buffers are host memory; counts are elements of `dtype` (F32, F64, I64, I32, I8, U8: the Communicator
// stages F16/BF16 through F32 and Bool through U8). A timeout bounds the whole operation.
class BURN_COLLECTIVE_API Transport {
 public:
  virtual ~Transport();
  virtual int rank() const = 0;
  virtual int world_size() const = 0;
  // In place: data holds this rank's values and receives the reduction of every rank's.
  virtual void all_reduce(void* data, size_t count, DType dtype, ReduceOp op, std::chrono::milliseconds timeout) = 0;
  // The Communicator's call check, the first exchange of every checked collective: `calls`
  // (world_size * call_bytes) receives every rank's `call` (call_bytes, the same on every rank) in rank
  // order. The default is all_gather; whatever an engine does, a rank in this exchange must meet a rank
  // in all_reduce_checked's without hanging or overflowing a buffer (their calls then differ).
  virtual void exchange_calls(const void* call, void* calls, size_t call_bytes, std::chrono::milliseconds timeout);
  // all_reduce after the ranks have exchanged their calls as exchange_calls does: no peer's data arrives
  // before agree(calls) has returned true here, and false sends nothing more, leaves `data` unchanged and
  // returns false. The default is exchange_calls then all_reduce; an engine may carry the calls in the
  // all-reduce's own exchange instead (the gloo engine does: one exchange for small buffers).
  virtual bool all_reduce_checked(void* data, size_t count, DType dtype, ReduceOp op, const void* call, void* calls,
                                  size_t call_bytes, const std::function<bool(const void* calls)>& agree,
                                  std::chrono::milliseconds timeout);
  // data: `bytes` bytes, read on `root` and written on every other rank.
  virtual void broadcast(void* data, size_t bytes, int root, std::chrono::milliseconds timeout) = 0;
  // out (world_size * bytes_per_rank bytes) receives every rank's `in`, in rank order.
  virtual void all_gather(const void* in, void* out, size_t bytes_per_rank, std::chrono::milliseconds timeout) = 0;
  // in holds world_size blocks of count_per_rank elements; out receives the reduction over the ranks
  // of block `rank()`.
  virtual void reduce_scatter(const void* in, void* out, size_t count_per_rank, DType dtype, ReduceOp op,
                              std::chrono::milliseconds timeout) = 0;
  virtual void barrier(std::chrono::milliseconds timeout) = 0;
};

// What a collective plugin's create() makes: joins groups.
class BURN_COLLECTIVE_API Engine {
 public:
  virtual ~Engine();
  virtual std::string name() const = 0;
  // Meets the other ranks at options.rendezvous and connects to them; CollectiveError when the
  // rendezvous fails (a rank missing after options.timeout, ranks with different world sizes).
  virtual std::unique_ptr<Transport> connect(const ConnectOptions& options) const = 0;
};

// The engine of that name (the plugin of kind `collective`), shared; PluginError listing the known
// engines when there is none.
BURN_COLLECTIVE_API std::shared_ptr<const Engine> engine(std::string_view name);
// Names of the collective plugins found, sorted.
BURN_COLLECTIVE_API std::vector<std::string> engine_names();

}  // namespace burn::collective

extern "C" {
// What a collective plugin's create() returns: the burn-collective version it was compiled against
// (its major must be the host's, and below 1.0 its minor too: the Engine and Transport vtables cross the
// boundary) and the engine.
struct BurnCollectiveObject {
  uint32_t struct_size;                 // sizeof(BurnCollectiveObject) when built
  const char* burn_collective_version;  // BURN_COLLECTIVE_VERSION when built
  burn::collective::Engine* engine;     // owned; deleted by the plugin's destroy()
};
}

// Writes `burn_plugin_entry` for a collective plugin, as BURN_IMPORTER_PLUGIN does for an importer.
// FACTORY: a callable returning std::unique_ptr<burn::collective::Engine> (may throw); SCORE: a
// callable returning int32_t (may throw: 0).
#define BURN_COLLECTIVE_PLUGIN(NAME, VERSION, FACTORY, SCORE)                                              \
  BURN_WRAPPED_OBJECT_PLUGIN_(BURN_PLUGIN_COLLECTIVE, NAME, VERSION, FACTORY, SCORE, BurnCollectiveObject, \
                              burn::collective::Engine, engine, BURN_COLLECTIVE_VERSION)
