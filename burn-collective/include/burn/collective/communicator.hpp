// Collective communication between the ranks of a job: all_reduce, broadcast, all_gather,
// reduce_scatter and barrier on tensors of any device and dtype, each bounded by a timeout. The bytes
// are moved by an engine plugin (kind `collective`; `gloo` by default); tensors are staged through host
// memory, f16/bf16 through f32 and bool through u8.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "burn/collective/engine.hpp"
#include "burn/collective/export.hpp"
#include "burn/tensor/tensor.hpp"

namespace burn::collective {

// Who this rank is and how it meets the others. from_environment() reads torchrun's variables (RANK,
// WORLD_SIZE, LOCAL_RANK) and burn's (BURN_RENDEZVOUS, BURN_COLLECTIVE, BURN_SOCKET_IFNAME,
// BURN_COLLECTIVE_TIMEOUT_S, BURN_RUN_ID); see docs/environment.md. Without WORLD_SIZE it is a job of
// one rank, which needs no rendezvous and no plugin.
struct BURN_COLLECTIVE_API CommunicatorConfig {
  std::string engine = "gloo";  // the collective plugin's name
  int local_rank = 0;           // rank on this machine (informational: choosing a device, threads)
  // Before each collective the ranks exchange what they are about to call (op, reduction, root, dtype,
  // shape: 104 bytes per rank; an all_reduce carries it in its own exchange) and fail with every rank's
  // call when they differ. Off (BURN_COLLECTIVE_CHECK=off) skips that exchange; ranks that disagree may
  // then wait for the timeout, or abort inside Gloo when a message is larger than the receiver's buffer.
  bool check_calls = true;
  ConnectOptions connect;
  static CommunicatorConfig from_environment();
};

// A connected rank. Cheap to copy (shared); one collective runs at a time per communicator (calls
// from several threads are serialised, and every rank must issue the same collectives in the same
// order; they are checked to agree, see check_calls). A timeout of zero means the configured default.
// After an error the communicator is broken: every later call throws the first error again.
class BURN_COLLECTIVE_API Communicator {
 public:
  using Timeout = std::chrono::milliseconds;

  static Communicator connect(const CommunicatorConfig& config);
  static Communicator from_environment();

  int rank() const;
  int world_size() const;
  int local_rank() const;
  std::string engine_name() const;  // "gloo", or "local" for a job of one rank
  Timeout default_timeout() const;

  // Every rank gets the reduction over the ranks, elementwise; shapes and dtypes must agree. Mean is
  // for float dtypes; Sum on bool is a logical or (Max too), Min a logical and.
  template <size_t D, typename K>
  Tensor<D, K> all_reduce(const Tensor<D, K>& t, ReduceOp op = ReduceOp::Sum, Timeout timeout = Timeout{0}) {
    return Tensor<D, K>(all_reduce(t.handle(), op, timeout));
  }
  // Every rank gets root's tensor (same shape and dtype on every rank).
  template <size_t D, typename K>
  Tensor<D, K> broadcast(const Tensor<D, K>& t, int root = 0, Timeout timeout = Timeout{0}) {
    return Tensor<D, K>(broadcast(t.handle(), root, timeout));
  }
  // The ranks' tensors concatenated along dim 0, in rank order: [world_size * n, ...].
  template <size_t D, typename K>
  Tensor<D, K> all_gather(const Tensor<D, K>& t, Timeout timeout = Timeout{0}) {
    return Tensor<D, K>(all_gather(t.handle(), timeout));
  }
  // Dim 0 (a multiple of world_size) is cut into world_size blocks; rank r gets the reduction over
  // the ranks of block r: [n / world_size, ...].
  template <size_t D, typename K>
  Tensor<D, K> reduce_scatter(const Tensor<D, K>& t, ReduceOp op = ReduceOp::Sum, Timeout timeout = Timeout{0}) {
    return Tensor<D, K>(reduce_scatter(t.handle(), op, timeout));
  }
  void barrier(Timeout timeout = Timeout{0});

  // The same on type-erased handles (the templates above forward here).
  TensorHandle all_reduce(const TensorHandle& t, ReduceOp op, Timeout timeout);
  TensorHandle broadcast(const TensorHandle& t, int root, Timeout timeout);
  TensorHandle all_gather(const TensorHandle& t, Timeout timeout);
  TensorHandle reduce_scatter(const TensorHandle& t, ReduceOp op, Timeout timeout);
  // all_reduce on host data, in place (no copy but for f16/bf16, reduced in f32): what a communication
  // thread calls without touching a device. After an error `data` holds unspecified values.
  void all_reduce(TensorData& data, ReduceOp op, Timeout timeout = Timeout{0});

  struct State;

 private:
  explicit Communicator(std::shared_ptr<State> s) : s_(std::move(s)) {}
  std::shared_ptr<State> s_;
};

}  // namespace burn::collective
