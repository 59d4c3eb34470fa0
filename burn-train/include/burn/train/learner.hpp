// The Learner (Burn's supervised paradigm): a model, an optimizer and an LR scheduler, train and
// valid steps given as functions, epochs over DataLoaders, metrics, renderers, checkpoints that
// resume bit for bit, early stopping, an interrupter, a test-set evaluator and a summary.
//
//   train::Learner<Model, Batch> learner(model, optim::AdamConfig{}.init(), scheduler,
//       [](const Model& m, const Batch& b) { auto out = m.forward_classification(b); return
//       train::TrainOutput{out.loss.backward(), out}; },
//       [](const Model& m, const Batch& b) { return m.forward_classification(b); },
//       {.epochs = 10, .artifact_dir = "artifacts", .device = device});
//   learner.core().add_metric(train::Split::Train, std::make_unique<train::AccuracyMetric>());
//   Model trained = learner.fit(train_loader, &valid_loader);
//
// The loop is LearnerCore (non-template, learner.cpp); Learner only binds the model and batch types.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "burn/data/dataloader.hpp"
#include "burn/nn/module.hpp"
#include "burn/optim/grad_scaler.hpp"
#include "burn/optim/lr.hpp"
#include "burn/optim/optimizer.hpp"
#include "burn/train/checkpoint.hpp"
#include "burn/train/data_parallel.hpp"
#include "burn/train/history.hpp"
#include "burn/train/metric/metric.hpp"
#include "burn/train/renderer.hpp"

namespace burn::train {

// What a train step returns: the gradients of its loss (loss.backward()) and what metrics read.
struct TrainOutput {
  Gradients grads;
  StepOutput output;
};

// Stop when `metric` of `split` has not improved for `patience` epochs.
struct EarlyStopping {
  Split split = Split::Valid;
  std::string metric = "Loss";
  int64_t patience = 3;
};

// Mixed-precision training (burn/tensor/autocast.hpp): every train and valid step runs inside an
// AutocastGuard of `dtype` (products in bf16/f16, reductions, norms, softmax and losses in f32), the
// parameters stay f32, and the optimizer keeps f32 master copies of any bf16/f16 parameter
// (Optimizer::set_master_weights). Loss scaling (optim::GradScaler) is on for f16 unless set otherwise:
// the train step must then return train::backward(loss), which scales the loss, and the learner unscales
// the gradients (before clipping) and skips the optimizer step when one is not finite. The scaler's state
// is not in checkpoints: a resumed run starts again from init_scale.
struct MixedPrecision {
  DType dtype = DType::BF16;
  std::optional<optim::GradScalerConfig> loss_scaling;  // default: on (GradScaler's defaults) for f16 only
};

// The gradients of a train step's loss: of loss x the loss scale inside a Learner's step with f16 loss
// scaling (the learner unscales them), of the loss itself everywhere else.
BURN_TRAIN_API Gradients backward(const TensorHandle& loss);
template <size_t D>
Gradients backward(const Tensor<D>& loss) {
  return backward(loss.handle());
}

enum class Display { Auto, Dashboard, Log, None };  // Auto: the dashboard on a terminal, else Log

struct LearnerConfig {
  int64_t epochs = 1;
  int64_t grad_accumulation = 1;            // batches whose gradients are summed before one optimizer step
  uint64_t seed = 0;                        // the device is seeded from (seed, step) before every train step
  std::string artifact_dir;                 // checkpoints/, <split>/*.csv, metrics.png; empty: nothing written
  std::optional<int64_t> checkpoint_every;  // also checkpoint every N train steps (not only per epoch)
  CheckpointPolicy checkpoints;
  // Continue the run of <artifact_dir> (its run.json) from its newest checkpoint, when its settings
  // match this run's; without resume a run is fresh and moves an older run's files to previous/.
  bool resume = false;
  // What makes the program's run (model sizes, learning rate, epochs...), as text: stored with the
  // run and every checkpoint, and a resume made with other values is refused naming them. The
  // learner adds its own: seed, grad accumulation and the train loader's items, batch size and order.
  RunSettings run_config;
  // Files or folders the program writes in artifact_dir for its run (config.json, model.bpz): a
  // fresh run moves them to previous/ with the learner's own (plain names, not paths).
  std::vector<std::string> run_files;
  std::optional<EarlyStopping> early_stopping;
  Display display = Display::Auto;
  double log_every_seconds = 5.0;  // Display::Log: a step line at most this often
  std::optional<Device> device;    // seeded before steps; default: the device of the model's first param
  // Data-parallel training across the ranks of a job: the model is broadcast from rank 0 at the start,
  // gradients are averaged over the ranks while backward runs (accumulation uses no_sync), metrics
  // see the global batch, rank 0 alone writes the artifacts and checkpoints, every rank resumes from
  // them, and a stop asked on one rank stops all. Shard the loaders by rank (LoaderOptions::num_shards).
  std::shared_ptr<DataParallel> data_parallel;
  std::optional<MixedPrecision> mixed_precision;  // off: every op in the dtype it is given
};

// Stops a run after the current step (and its checkpoint); safe to call from any thread or a
// signal handler.
class Interrupter {
 public:
  void stop() { stop_.store(true); }
  bool should_stop() const { return stop_.load(); }
  void reset() { stop_.store(false); }

 private:
  std::atomic<bool> stop_{false};
};

// How a run started (LearnerCore::open_run): its identity, and for a resumed run the checkpoint it
// continues from; for a fresh run, where the previous run's files went.
struct RunStart {
  RunIdentity run;
  bool resumed = false;
  std::optional<CheckpointInfo> checkpoint;  // the checkpoint resumed from
  TrainingPosition position;                 // where training continues
  std::string previous_moved_to;             // fresh: the folder the previous run's files went to ("" none)
};

struct FitResult {
  int64_t epochs_done = 0;  // complete epochs, resumed ones included
  int64_t global_step = 0;
  bool interrupted = false;
  bool early_stopped = false;
};

// One epoch of one split, type-erased by Learner: next() runs the step of the next batch (nullopt at
// the end of the epoch).
struct TrainEpoch {
  std::function<std::optional<TrainOutput>()> next;
  std::function<data::Progress()> progress;
  size_t batches = 0;
};
struct EvalEpoch {
  std::function<std::optional<StepOutput>()> next;
  std::function<data::Progress()> progress;
  size_t batches = 0;
};

class BURN_TRAIN_API LearnerCore {
 public:
  LearnerCore(LearnerConfig config, optim::Optimizer& optimizer, optim::LrScheduler& scheduler);
  ~LearnerCore();
  LearnerCore(const LearnerCore&) = delete;
  LearnerCore& operator=(const LearnerCore&) = delete;

  // A metric of one split (each split needs its own instance: metrics keep epoch state).
  LearnerCore& add_metric(Split split, std::unique_ptr<Metric> metric);
  // Replaces the renderer chosen by LearnerConfig::display.
  LearnerCore& set_renderer(std::shared_ptr<Renderer> renderer);
  Interrupter& interrupter() { return interrupter_; }
  const MetricHistory& history() const { return history_; }
  const LearnerConfig& config() const { return config_; }

  // Starts the run in the artifacts folder before anything is written there. Resume: reads
  // run.json and the newest checkpoint of its run, refuses other settings (ValueError naming each:
  // "hidden size 64 against 128"), and loads the model, optimizer, scheduler and history. Fresh:
  // moves the files of a previous run to <artifact_dir>/previous/<its id>/ and writes run.json with
  // a new id. `data` are the train data's settings (Learner::open_run gives the loader's). fit()
  // calls it when the program has not; the run stays open until fit() ends.
  const RunStart& open_run(nn::ModuleRef model, const RunSettings& data);
  // `train(epoch0, start_batch)` opens a train epoch (0-based epoch for the loader); `valid(epoch0)`
  // a valid epoch (null: no validation).
  FitResult fit(nn::ModuleRef model, const std::function<TrainEpoch(uint64_t, size_t)>& train,
                const std::function<EvalEpoch(uint64_t)>& valid, const RunSettings& data = {});
  // One pass over a test set with the Test metrics; returns their values.
  std::vector<MetricSummary> evaluate(const std::function<EvalEpoch()>& test);

 private:
  struct Impl;
  LearnerConfig config_;
  optim::Optimizer& optimizer_;
  optim::LrScheduler& scheduler_;
  Interrupter interrupter_;
  MetricHistory history_;
  std::unique_ptr<Impl> impl_;
};

template <class M, class TB, class VB = TB>
class Learner {
 public:
  using TrainStep = std::function<TrainOutput(const M&, const TB&)>;
  using ValidStep = std::function<StepOutput(const M&, const VB&)>;

  Learner(M model, optim::Optimizer optimizer, std::shared_ptr<optim::LrScheduler> scheduler, TrainStep train_step,
          ValidStep valid_step, LearnerConfig config)
      : model_(std::move(model)),
        optimizer_(std::move(optimizer)),
        scheduler_(std::move(scheduler)),
        train_step_(std::move(train_step)),
        valid_step_(std::move(valid_step)),
        core_(std::make_unique<LearnerCore>(std::move(config), optimizer_, *scheduler_)) {}

  LearnerCore& core() { return *core_; }
  const M& model() const { return model_; }
  FitResult last_fit() const { return last_; }

  // Starts the run (LearnerCore::open_run) with the train loader's settings: a program that writes
  // its own files in the artifacts folder calls it first, and writes them only once it returned.
  template <class TI>
  const RunStart& open_run(const data::DataLoader<TI, TB>& train) {
    return core_->open_run(nn::ModuleRef(model_), data_settings(train));
  }

  // Trains for the configured epochs (from a checkpoint when LearnerConfig::resume) and returns the model.
  template <class TI, class VI = TI>
  M fit(data::DataLoader<TI, TB>& train, data::DataLoader<VI, VB>* valid = nullptr) {
    auto open_train = [&](uint64_t epoch, size_t start) {
      auto it = std::make_shared<typename data::DataLoader<TI, TB>::Iter>(train.iter_at(epoch, start));
      return TrainEpoch{[this, it]() -> std::optional<TrainOutput> {
                          auto b = it->next();
                          if (!b) return std::nullopt;
                          return train_step_(model_, *b);
                        },
                        [it] { return it->progress(); }, it->num_batches()};
    };
    std::function<EvalEpoch(uint64_t)> open_valid;
    if (valid) open_valid = [&](uint64_t epoch) { return eval_epoch(*valid, epoch); };
    last_ = core_->fit(nn::ModuleRef(model_), open_train, open_valid, data_settings(train));
    return model_;
  }

  // The valid step over a test loader on model().valid(), with the Test metrics.
  template <class I>
  std::vector<MetricSummary> evaluate(data::DataLoader<I, VB>& test) {
    return core_->evaluate([&] { return eval_epoch(test, 0); });
  }

 private:
  // What of the train loader a resumed run must repeat: its items, batch size and order.
  template <class TI>
  static RunSettings data_settings(const data::DataLoader<TI, TB>& train) {
    const data::LoaderOptions& o = train.options();
    RunSettings s = {{"train items", std::to_string(train.num_items())},
                     {"batch size", std::to_string(o.batch_size)},
                     {"train order", o.shuffle ? "shuffled, seed " + std::to_string(o.seed) : "in order"},
                     {"drop last", o.drop_last ? "yes" : "no"}};
    // A data-parallel run resumes on as many ranks (each rank's shard is a function of their number).
    if (o.num_shards > 1) s.push_back({"train shards", std::to_string(o.num_shards)});
    return s;
  }

  template <class I>
  EvalEpoch eval_epoch(data::DataLoader<I, VB>& loader, uint64_t epoch) {
    auto it = std::make_shared<typename data::DataLoader<I, VB>::Iter>(loader.iter_at(epoch, 0));
    auto eval = std::make_shared<M>(nn::valid(model_));  // evaluation mode, on the inner device
    return EvalEpoch{[this, it, eval]() -> std::optional<StepOutput> {
                       auto b = it->next();
                       if (!b) return std::nullopt;
                       return valid_step_(*eval, *b);
                     },
                     [it] { return it->progress(); }, it->num_batches()};
  }

  M model_;
  optim::Optimizer optimizer_;
  std::shared_ptr<optim::LrScheduler> scheduler_;
  TrainStep train_step_;
  ValidStep valid_step_;
  std::unique_ptr<LearnerCore> core_;
  FitResult last_;
};

}  // namespace burn::train
