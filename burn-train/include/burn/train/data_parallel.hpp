// Data-parallel training across the ranks of a job (PyTorch's DistributedDataParallel): every rank
// holds the whole model, reads its own shard of each batch (LoaderOptions::num_shards/shard_index),
// and averages the gradients with the others before its optimizer step, so every rank takes the same
// step. The gradients are packed into buckets and all-reduced on a communication thread while
// backward still runs (autodiff's GradReadyScope says when a parameter's gradient is final).
//
//   train::DataParallel dp(collective::Communicator::from_environment());
//   model = dp.broadcast(model);                              // rank 0's parameters and buffers
//   for (auto& batch : loader.iter()) {                       // loader sharded by rank
//     auto grads = dp.backward(loss_of(model, batch), model); // averaged over the ranks
//     model = optimizer.step(lr, model, grads);
//   }
//
// The Learner does the same when LearnerConfig::data_parallel is set.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "burn/collective/communicator.hpp"
#include "burn/nn/module.hpp"
#include "burn/optim/grads.hpp"
#include "burn/tensor/grad_ready.hpp"
#include "burn/train/export.hpp"
#include "burn/train/metric/metric.hpp"

namespace burn::train {

struct DataParallelConfig {
  // Gradients are all-reduced in buckets of about this many bytes (PyTorch's 25 MB): a bucket takes
  // parameters until it holds at least this many, as PyTorch's do; 1 gives every parameter its own.
  size_t bucket_bytes = 25u << 20;
  // The same for the first bucket (the gradients backward finishes first), so that its all-reduce starts
  // early in backward; 0 (the default), or a value of at least bucket_bytes: the first bucket is like the
  // others. PyTorch's is 1 MiB; burn's default is 0 because its ranks get all the cores between them
  // (cores / ranks threads each), so an early all-reduce takes CPU from backward: on 2 ranks of a 2-core
  // machine 1 MiB made the Fashion-MNIST CNN epoch ~10 % slower (docs/decisions.md). With spare cores or a
  // real network link, 1u << 20 is PyTorch's setting.
  size_t first_bucket_bytes = 0;
  // For each all-reduce; 0: the communicator's default (BURN_COLLECTIVE_TIMEOUT_S).
  collective::Communicator::Timeout timeout{0};
  // true: a bucket is all-reduced as soon as its gradients are final, while backward still runs.
  // false: every bucket waits for the end of backward (finish_step) and is all-reduced then, in the
  // same layout and order, so the values are bit for bit those of the overlap; the step is slower by
  // the communication the overlap hides (the baseline the benchmark page sets the overlap against).
  bool overlap = true;
};

class BURN_TRAIN_API DataParallel {
 public:
  explicit DataParallel(collective::Communicator comm, DataParallelConfig config = {});
  ~DataParallel();
  DataParallel(const DataParallel&) = delete;
  DataParallel& operator=(const DataParallel&) = delete;

  int rank() const;
  int world_size() const;
  collective::Communicator& communicator();

  // Every parameter and buffer gets rank 0's value (at the start, so that every rank starts alike).
  template <nn::detail::Module M>
  M broadcast(M model) {
    broadcast_module(nn::ModuleRef(model));
    return model;
  }
  void broadcast_module(nn::ModuleRef model);

  // loss.backward() with the trainable parameters' gradients averaged over the ranks, bucket by bucket
  // while backward runs; the result is the same on every rank. Inside no_sync() the gradients stay
  // here instead (the result is empty) and are added to those of the next backward outside it.
  template <size_t D>
  optim::GradientsParams backward(const Tensor<D>& loss, nn::ModuleRef model) {
    auto scope = begin_step(model);
    Gradients grads = loss.backward();
    scope.reset();
    return finish_step(grads, model);
  }
  // backward() in two halves, for a loop whose step calls loss.backward() itself (the Learner): while
  // the scope lives, backward passes on this thread send `model`'s gradients as they become final;
  // finish_step waits for the all-reduces and returns what backward() returns. Every rank must make
  // the same calls (the same number of steps, inside and outside no_sync).
  [[nodiscard]] std::unique_ptr<GradReadyScope> begin_step(nn::ModuleRef model);
  optim::GradientsParams finish_step(Gradients& grads, nn::ModuleRef model);

  // Gradient accumulation: while the guard lives, backward passes exchange nothing and their
  // gradients are summed here (PyTorch's no_sync()).
  class NoSync {
   public:
    explicit NoSync(DataParallel& dp);
    ~NoSync();
    NoSync(const NoSync&) = delete;
    NoSync& operator=(const NoSync&) = delete;

   private:
    DataParallel& dp_;
    bool previous_;
  };
  [[nodiscard]] NoSync no_sync() { return NoSync(*this); }

  // A step's output over the global batch, for metrics: outputs and targets of every rank concatenated
  // in rank order, the loss their batch-size-weighted mean (every rank gets the same).
  StepOutput gather(const StepOutput& out);
  // Whether any rank's flag is set (a stop asked on one rank stops them all at the same step).
  bool any(bool flag);
  // rank 0's values on every rank (small host values: a run id, a position).
  std::vector<int64_t> broadcast_values(std::vector<int64_t> values);

  // The parameter paths of each bucket of the last synchronised step, in the order they were
  // all-reduced: the first step's are the fields in reverse; from the second step on, the order in
  // which the first step's gradients became final (rank 0's), fixed. Empty before the first step.
  std::vector<std::vector<std::string>> bucket_layout() const;
  // The last synchronised step: its buckets, and how many of them backward's hook handed to the
  // communication thread while backward still ran (the rest were sent by finish_step: parameters
  // without a gradient, or every bucket when DataParallelConfig::overlap is off).
  struct StepStats {
    size_t buckets = 0;
    size_t sent_during_backward = 0;
  };
  StepStats last_step() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace burn::train
