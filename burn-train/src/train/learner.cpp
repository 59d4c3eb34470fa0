// The training loop: epochs of train steps with gradient accumulation and optimizer steps, valid
// epochs, metrics into the history and the renderer, checkpoints, resume, early stopping,
// interruption, the test evaluator and the artifacts (CSV, plot, summary).
#include "burn/train/learner.hpp"

#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "burn/data/rng.hpp"
#include "burn/optim/clipping.hpp"
#include "burn/optim/grads.hpp"
#include "burn/record/recorder.hpp"
#include "burn/tensor/autocast.hpp"
#include "burn/tensor/grad_ready.hpp"
#include "burn/train/dashboard.hpp"

namespace burn::train {

namespace {

constexpr const char* kLearnerOp = "train.learner";

struct RegisteredMetric {
  Split split;
  std::unique_ptr<Metric> metric;
};

std::shared_ptr<Renderer> default_renderer(const LearnerConfig& c) {
  if (c.data_parallel && c.data_parallel->rank() != 0) return nullptr;  // rank 0 speaks for the job
  Display d = c.display;
  if (d == Display::Auto) d = isatty(STDOUT_FILENO) ? Display::Dashboard : Display::Log;
  switch (d) {
    case Display::Dashboard: return make_dashboard();
    case Display::Log: return std::make_shared<LogRenderer>(c.log_every_seconds);
    default: return nullptr;
  }
}

// The device the model's parameters live on: what train steps draw random numbers from.
Device model_device(nn::ModuleRef model) {
  for (const auto& p : nn::detail::named_params(model)) {
    if (p.param->handle().device.backend()) return p.param->handle().device;
  }
  throw ValueError(kLearnerOp, "the model has no parameter on a device; set LearnerConfig::device");
}

}  // namespace

namespace {

// The loss scale train::backward applies on this thread: set by the learner around each train step.
thread_local double t_loss_scale = 1.0;

struct LossScaleScope {
  explicit LossScaleScope(double scale) : previous(t_loss_scale) { t_loss_scale = scale; }
  ~LossScaleScope() { t_loss_scale = previous; }
  LossScaleScope(const LossScaleScope&) = delete;
  LossScaleScope& operator=(const LossScaleScope&) = delete;
  double previous;
};

std::optional<DType> autocast_dtype(const LearnerConfig& c) {
  return c.mixed_precision ? std::optional<DType>(c.mixed_precision->dtype) : std::nullopt;
}

}  // namespace

Gradients backward(const TensorHandle& loss) {
  if (t_loss_scale == 1.0) return api::backward(loss, {});
  return api::backward(api::mul_scalar(loss, t_loss_scale), {});
}

struct LearnerCore::Impl {
  DataParallel* dp = nullptr;  // LearnerConfig::data_parallel
  std::vector<RegisteredMetric> metrics;
  std::shared_ptr<Renderer> renderer;
  bool renderer_set = false;

  void clear(Split split) {
    for (auto& m : metrics) {
      if (m.split == split) m.metric->clear();
    }
  }

  // Updates the split's metrics with a step's output, records the values and renders the step.
  void step(MetricHistory& history, const StepOutput& out, const MetricContext& ctx, StepStatus status) {
    std::vector<MetricView> views;
    for (auto& m : metrics) {
      if (m.split != status.split) continue;
      MetricValue v = m.metric->update(out, ctx);
      if (m.metric->numeric()) history.add_step(status.split, m.metric->name(), ctx.epoch, ctx.iteration, v.current);
      views.push_back({m.metric->name(), std::move(v), m.metric->numeric()});
      last_values[m.metric.get()] = views.back().value;
    }
    if (renderer) renderer->step(status, views);
  }

  // The running values at the end of the split's epoch become its epoch values.
  void end_epoch(MetricHistory& history, Split split, int64_t epoch) {
    for (auto& m : metrics) {
      if (m.split != split || !m.metric->numeric()) continue;
      const auto it = last_values.find(m.metric.get());
      if (it != last_values.end()) history.end_epoch(split, m.metric->name(), epoch, it->second.running);
    }
    if (renderer) renderer->end_epoch(split, epoch, history);
  }

  void declare(MetricHistory& history) {
    for (auto& m : metrics) {
      if (m.metric->numeric())
        history.declare(m.split, m.metric->name(), m.metric->higher_is_better(), m.metric->unit());
    }
  }

  void message(const std::string& text) {
    if (renderer) renderer->message(text);
  }

  // One pass of an evaluation split (valid or test): its metrics cleared, every step through them
  // and the renderer, the epoch closed.
  // `autocast`: the mixed-precision dtype the steps run under (LearnerConfig::mixed_precision).
  void eval_epoch(MetricHistory& history, Split split, int64_t epoch, int64_t epochs, EvalEpoch e,
                  std::optional<DType> autocast) {
    clear(split);
    const auto started = std::chrono::steady_clock::now();
    int64_t it = 0;
    auto next = [&] {
      std::optional<AutocastGuard> amp;
      if (autocast) amp.emplace(*autocast);
      return e.next();
    };
    while (std::optional<StepOutput> out = next()) {
      ++it;
      const data::Progress progress = e.progress();
      MetricContext ctx;
      ctx.epoch = epoch;
      ctx.epochs = epochs;
      ctx.iteration = it;
      ctx.items = static_cast<int64_t>(progress.items_processed) * ranks();
      ctx.items_total = static_cast<int64_t>(progress.items_total) * ranks();
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      step(history, dp ? dp->gather(*out) : *out, ctx,
           {split, epoch, epochs, it, static_cast<int64_t>(e.batches), ctx.items, ctx.items_total, elapsed});
    }
    end_epoch(history, split, epoch);
  }

  // Data parallel: the ranks' shards together (loaders are sharded alike); rank 0 writes the files.
  int64_t ranks() const { return dp ? dp->world_size() : 1; }
  bool writes() const { return !dp || dp->rank() == 0; }

  std::map<const Metric*, MetricValue> last_values;
  std::optional<RunStart> run;  // open_run's result, until fit() ends
  RunSettings run_data;         // the train data settings open_run was given
  std::optional<Checkpointer> checkpointer;
};

LearnerCore::LearnerCore(LearnerConfig config, optim::Optimizer& optimizer, optim::LrScheduler& scheduler)
    : config_(std::move(config)), optimizer_(optimizer), scheduler_(scheduler), impl_(std::make_unique<Impl>()) {
  impl_->dp = config_.data_parallel.get();
  if (config_.epochs < 1)
    throw ValueError(kLearnerOp, "epochs must be at least 1, got " + std::to_string(config_.epochs));
  if (config_.grad_accumulation < 1) {
    throw ValueError(kLearnerOp,
                     "grad_accumulation must be at least 1, got " + std::to_string(config_.grad_accumulation));
  }
  if (config_.checkpoint_every && *config_.checkpoint_every < 1) {
    throw ValueError(kLearnerOp,
                     "checkpoint_every must be at least 1 step, got " + std::to_string(*config_.checkpoint_every));
  }
  if (config_.resume && config_.artifact_dir.empty()) {
    throw ValueError(kLearnerOp, "resume needs an artifact_dir to find the checkpoints in");
  }
  for (const auto& s : config_.run_config) {
    record::check_path(s.name, kLearnerOp);
    if (s.name.find('.') != std::string::npos)
      throw ValueError(kLearnerOp, "run_config name '" + s.name + "' may not contain '.'");
  }
  for (const auto& f : config_.run_files) {
    if (f.empty() || f == "." || f == ".." || f == "previous" || f.find('/') != std::string::npos)
      throw ValueError(kLearnerOp, "run_files entry '" + f + "' must be a plain file or folder name, not 'previous'");
  }
}

LearnerCore::~LearnerCore() = default;

LearnerCore& LearnerCore::add_metric(Split split, std::unique_ptr<Metric> metric) {
  if (!metric) throw ValueError(kLearnerOp, "add_metric: null metric");
  for (const auto& m : impl_->metrics) {
    if (m.split == split && m.metric->name() == metric->name()) {
      throw ValueError(kLearnerOp, "metric '" + metric->name() + "' is already registered for " + split_name(split));
    }
  }
  impl_->metrics.push_back({split, std::move(metric)});
  return *this;
}

LearnerCore& LearnerCore::set_renderer(std::shared_ptr<Renderer> renderer) {
  impl_->renderer = std::move(renderer);
  impl_->renderer_set = true;
  return *this;
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

const RunStart& LearnerCore::open_run(nn::ModuleRef model, const RunSettings& data) {
  Impl& im = *impl_;
  // Data parallel: rank 0's run id on every rank (as its characters).
  auto agree_on_run_id = [&im](const std::string& id) {
    if (!im.dp) return id;
    if (id.size() > 64) throw ValueError(kLearnerOp, "run id '" + id + "' is longer than 64 characters");
    std::vector<int64_t> chars(id.begin(), id.end());
    chars.insert(chars.begin(), static_cast<int64_t>(id.size()));
    chars.resize(65, 0);
    chars = im.dp->broadcast_values(chars);
    return std::string(chars.begin() + 1, chars.begin() + 1 + chars[0]);
  };
  if (im.run) {
    if (data != im.run_data)
      throw ValueError(kLearnerOp,
                       "the run is already open with other train data: " + config_differences(im.run_data, data));
    return *im.run;
  }
  if (!im.renderer_set) im.renderer = default_renderer(config_);
  // A refused run restores the terminal and shows the messages before it (the dashboard's finish()).
  struct FinishUnlessStarted {
    Impl& im;
    bool started = false;
    ~FinishUnlessStarted() {
      if (!started && im.renderer) im.renderer->finish();
    }
  } guard{im};
  RunStart start;
  start.run.config = {{"seed", std::to_string(config_.seed)},
                      {"grad accumulation", std::to_string(config_.grad_accumulation)}};
  start.run.config.insert(start.run.config.end(), data.begin(), data.end());
  start.run.config.insert(start.run.config.end(), config_.run_config.begin(), config_.run_config.end());
  history_ = MetricHistory();
  im.declare(history_);
  im.checkpointer.reset();
  const std::string& dir = config_.artifact_dir;
  if (dir.empty()) {
    start.run.id = agree_on_run_id(new_run_id());
    im.run_data = data;
    guard.started = true;
    return im.run.emplace(std::move(start));
  }
  const std::string ckpt_dir = (std::filesystem::path(dir) / "checkpoints").string();
  Checkpointer scan(ckpt_dir, config_.checkpoints);
  scan.set_warning_sink([&im](const std::string& m) { im.message(m); });
  std::optional<RunIdentity> folder;
  try {
    folder = read_run_file(dir);
  } catch (const ValueError&) {
    if (config_.resume) throw;  // a fresh run moves a damaged run.json aside with the rest
  }

  bool fresh = !config_.resume;
  if (config_.resume) {
    const std::vector<CheckpointInfo> all = scan.list();
    if (!folder && !all.empty()) {
      throw ValueError(kLearnerOp, "cannot resume in '" + dir + "': it holds " + std::to_string(all.size()) +
                                       " checkpoint(s) (newest '" + all.back().path + "') but no " +
                                       run_file_path(dir) +
                                       " naming their run, so they cannot be matched to this one; start a fresh run "
                                       "(without resume), which moves them to '" +
                                       (std::filesystem::path(dir) / "previous").string() + "/'");
    }
    if (!folder) {
      im.message("no run to resume in '" + dir + "': starting a fresh run");
      fresh = true;
    } else {
      const std::string diff = config_differences(folder->config, start.run.config);
      if (!diff.empty()) {
        throw ValueError(kLearnerOp,
                         "cannot resume run " + folder->id + " in '" + dir +
                             "': it was made with other settings (its value against this run's): " + diff +
                             "; repeat its settings, or start a fresh run (without resume), which moves its "
                             "files to '" +
                             (std::filesystem::path(dir) / "previous").string() + "/'");
      }
      start.run = *folder;
      for (auto it = all.rbegin(); it != all.rend() && !start.checkpoint; ++it) {
        std::optional<RunIdentity> made_by;
        try {
          made_by = read_checkpoint_run(it->path);
        } catch (const std::exception& e) {
          throw ValueError(kLearnerOp, "cannot resume from '" + it->path + "', the newest checkpoint: " + e.what() +
                                           "; move it away to resume from an earlier one");
        }
        if (!made_by || made_by->id != folder->id) {
          im.message("skipping '" + it->path + "': " +
                     (made_by ? "a checkpoint of run " + made_by->id : std::string("a checkpoint with no run id")) +
                     ", not of run " + folder->id + " of this folder");
          continue;
        }
        const std::string ckdiff = config_differences(made_by->config, start.run.config);
        if (!ckdiff.empty()) {
          throw ValueError(kLearnerOp, "cannot resume from '" + it->path +
                                           "': it was made with other settings (its value " +
                                           "against this run's): " + ckdiff);
        }
        start.checkpoint = *it;
      }
      if (start.checkpoint) {
        const std::string& path = start.checkpoint->path;
        record::Record state;
        try {
          state = record::load(path);
        } catch (const std::exception& e) {
          throw ValueError(kLearnerOp, "cannot resume from '" + path + "', the newest checkpoint: " + e.what() +
                                           "; move it away to resume from an earlier one");
        }
        nn::ModuleLoadOptions load;
        load.prefix = "model";
        nn::detail::load_record(model, state, load);
        optimizer_.load_record(state.at("optimizer").group());
        scheduler_.load_record(state.at("scheduler").group());
        history_.load_record(state.at("history").group());
        im.declare(history_);
        start.position = position_from_record(state.at("position").group(), path);
        start.resumed = true;
        im.message("resumed run " + start.run.id + " from " + path + " (epoch " + std::to_string(start.position.epoch) +
                   ", batch " + std::to_string(start.position.batch) + ", step " +
                   std::to_string(start.position.global_step) + ")");
      } else {
        im.message("no checkpoint of run " + folder->id + " in '" + ckpt_dir + "': starting it from scratch");
      }
    }
  }
  if (fresh && im.writes()) {
    // The learner's own files and the program's: what a previous run left here goes to previous/.
    std::vector<std::string> names = {"checkpoints", split_name(Split::Train), split_name(Split::Valid),
                                      split_name(Split::Test), "metrics.png"};
    names.insert(names.end(), config_.run_files.begin(), config_.run_files.end());
    start.previous_moved_to = move_previous_run(dir, names, folder);
    if (!start.previous_moved_to.empty()) {
      im.message("moved the previous run's files" + (folder ? " (run " + folder->id + ")" : std::string()) + " to " +
                 start.previous_moved_to);
    }
    start.run.id = new_run_id();
    write_run_file(dir, start.run);
    im.message("run " + start.run.id + " in '" + dir + "'");
  }
  if (im.dp) {
    // Every rank continues rank 0's run from the same place: its id, and the same checkpoint.
    start.run.id = agree_on_run_id(start.run.id);
    const std::vector<int64_t> mine = {start.position.epoch, start.position.batch, start.position.global_step};
    const std::vector<int64_t> root = im.dp->broadcast_values(mine);
    if (root != mine) {
      throw ValueError(kLearnerOp, "rank " + std::to_string(im.dp->rank()) + " resumes at step " +
                                       std::to_string(start.position.global_step) + " (epoch " +
                                       std::to_string(start.position.epoch) + ", batch " +
                                       std::to_string(start.position.batch) + ") but rank 0 at step " +
                                       std::to_string(root[2]) + " (epoch " + std::to_string(root[0]) + ", batch " +
                                       std::to_string(root[1]) + "): every rank must see the same '" + dir + "'");
    }
  }
  if (im.writes()) {
    im.checkpointer.emplace(ckpt_dir, config_.checkpoints, start.run.id);
    im.checkpointer->set_warning_sink([&im](const std::string& m) { im.message(m); });
  }
  im.run_data = data;
  guard.started = true;
  return im.run.emplace(std::move(start));
}

FitResult LearnerCore::fit(nn::ModuleRef model, const std::function<TrainEpoch(uint64_t, size_t)>& train,
                           const std::function<EvalEpoch(uint64_t)>& valid, const RunSettings& data) {
  Impl& im = *impl_;
  const RunStart& start = open_run(model, data);
  im.declare(history_);  // metrics added after open_run
  const Device device = config_.device ? *config_.device : model_device(model);
  const bool artifacts = !config_.artifact_dir.empty() && im.writes();
  DataParallel* dp = im.dp;
  if (dp) dp->broadcast_module(model);  // every rank starts from rank 0's parameters and buffers
  std::optional<Checkpointer>& checkpointer = im.checkpointer;
  TrainingPosition pos = start.position;
  const record::Record run_group = run_record(start.run);
  // The run is open until fit() ends, whatever way it ends: a second fit() is a new run.
  struct CloseRun {
    Impl& im;
    ~CloseRun() { im.run.reset(); }
  } close_run{im};

  auto save_checkpoint = [&](const TrainingPosition& p, int64_t epoch_end) {
    if (!checkpointer) return;
    record::Record state;
    state.set("model", nn::detail::into_record(model));
    state.set("optimizer", optimizer_.to_record());
    state.set("scheduler", scheduler_.to_record());
    state.set("history", history_.to_record());
    state.set("position", position_record(p));
    state.set("run", run_group);
    const std::string path = checkpointer->save(state, p, epoch_end, history_);
    im.message("checkpoint " + path);
  };

  FitResult result;
  result.global_step = pos.global_step;
  result.epochs_done = pos.epoch - 1;
  optim::GradientsAccumulator accumulator;
  const auto k = static_cast<size_t>(config_.grad_accumulation);
  // Mixed precision: f32 master copies of half parameters, and for f16 the loss scaler.
  std::optional<optim::GradScaler> scaler;
  if (const std::optional<MixedPrecision>& mp = config_.mixed_precision) {
    optimizer_.set_master_weights(true);
    if (mp->loss_scaling)
      scaler.emplace(*mp->loss_scaling);
    else if (mp->dtype == DType::F16)
      scaler.emplace();
  }
  auto optimizer_step = [&](double lr, optim::GradientsParams& grads) {
    if (!scaler) return optimizer_.step_module(lr, model, grads);
    if (!scaler->step(optimizer_, lr, model, grads))
      im.message("mixed precision: step skipped (a gradient is inf or NaN at loss scale " +
                 std::to_string(scaler->get_scale()) + ")");
    scaler->update();
  };
  size_t pending = 0;  // data parallel: micro-batches kept by no_sync since the last optimizer step

  for (int64_t epoch = pos.epoch; epoch <= config_.epochs; ++epoch) {
    const auto started = std::chrono::steady_clock::now();
    im.clear(Split::Train);
    TrainEpoch te;
    try {
      te = train(static_cast<uint64_t>(epoch - 1), static_cast<size_t>(pos.batch));
    } catch (const data::DataError& e) {
      if (pos.batch == 0) throw;
      throw ValueError(kLearnerOp, "cannot resume epoch " + std::to_string(epoch) + " at batch " +
                                       std::to_string(pos.batch) + " (step " + std::to_string(pos.global_step) + "): " +
                                       e.what() + "; the train data or batch size differ from the checkpoint's");
    }
    const auto items_start = static_cast<int64_t>(te.progress().items_processed);  // > 0 when resumed mid-epoch
    int64_t iteration = pos.batch;
    bool stop = false;
    while (true) {
      uint64_t seed = data::derive_seed(config_.seed, static_cast<uint64_t>(pos.global_step));
      // Each rank draws its own dropout masks for its own items.
      if (dp) seed = data::derive_seed(seed, static_cast<uint64_t>(dp->rank()));
      device.seed(seed);
      // Data parallel: a micro-batch that does not close its group keeps its gradients (no_sync);
      // the one that does sends them all while its backward runs.
      const bool closes = pending + 1 >= k || static_cast<size_t>(iteration) + 1 >= te.batches;
      std::optional<DataParallel::NoSync> keep;
      std::unique_ptr<GradReadyScope> sending;
      if (dp) {
        if (!closes) keep.emplace(*dp);
        sending = dp->begin_step(model);
      }
      std::optional<TrainOutput> out;
      {
        std::optional<AutocastGuard> amp;
        if (config_.mixed_precision) amp.emplace(config_.mixed_precision->dtype);
        const LossScaleScope loss_scale(scaler ? scaler->get_scale() : 1.0);
        out = te.next();
      }
      sending.reset();
      if (!out) break;
      ++iteration;
      ++pos.global_step;
      const bool last = static_cast<size_t>(iteration) >= te.batches;
      double lr = scheduler_.lr_at(scheduler_.iteration());
      if (dp) {
        optim::GradientsParams grads = dp->finish_step(out->grads, model);
        keep.reset();
        if (closes) {
          lr = scheduler_.step();
          optimizer_step(lr, grads);
          pending = 0;
        } else {
          ++pending;
        }
        out->output = dp->gather(out->output);
      } else {
        accumulator.accumulate(optim::GradientsParams::from_grads(out->grads, model));
        if (accumulator.steps() >= k || last) {
          lr = scheduler_.step();
          optim::GradientsParams grads = accumulator.grads();
          optimizer_step(lr, grads);
        }
      }
      const data::Progress progress = te.progress();
      MetricContext ctx;
      ctx.epoch = epoch;
      ctx.epochs = config_.epochs;
      ctx.iteration = iteration;
      ctx.items = static_cast<int64_t>(progress.items_processed) * im.ranks();
      ctx.items_total = static_cast<int64_t>(progress.items_total) * im.ranks();
      ctx.lr = lr;
      im.step(history_, out->output, ctx,
              {Split::Train, epoch, config_.epochs, iteration, static_cast<int64_t>(te.batches), ctx.items,
               ctx.items_total, seconds_since(started), items_start * im.ranks()});
      pos.batch = iteration;
      result.global_step = pos.global_step;
      const bool boundary = dp ? pending == 0 : accumulator.steps() == 0;
      stop = interrupter_.should_stop() || (im.renderer && im.renderer->stop_requested());
      if (dp) stop = dp->any(stop);  // a stop on one rank stops every rank at this step
      if (boundary && !last &&
          (stop || (config_.checkpoint_every && pos.global_step % *config_.checkpoint_every == 0))) {
        save_checkpoint(pos, 0);
      }
      if (stop && boundary) break;
    }
    if (stop && static_cast<size_t>(iteration) < te.batches) {
      im.message("stopped at epoch " + std::to_string(epoch) + ", batch " + std::to_string(iteration) +
                 (checkpointer ? "; resume with LearnerConfig::resume" : ""));
      result.interrupted = true;
      break;
    }
    im.end_epoch(history_, Split::Train, epoch);
    if (valid)
      im.eval_epoch(history_, Split::Valid, epoch, config_.epochs, valid(static_cast<uint64_t>(epoch - 1)),
                    autocast_dtype(config_));
    if (artifacts) {
      write_metric_csv(history_, config_.artifact_dir, Split::Train, epoch);
      if (valid) write_metric_csv(history_, config_.artifact_dir, Split::Valid, epoch);
    }
    pos = {epoch + 1, 0, pos.global_step};
    result.epochs_done = epoch;
    save_checkpoint(pos, epoch);
    if (config_.early_stopping) {
      const EarlyStopping& es = *config_.early_stopping;
      if (!history_.find(es.split, es.metric)) {
        throw ValueError(kLearnerOp, "early stopping watches " + std::string(split_name(es.split)) + " metric '" +
                                         es.metric + "', which is not registered");
      }
      if (history_.epochs_since_best(es.split, es.metric) >= es.patience) {
        im.message("early stopping: " + std::string(split_name(es.split)) + " " + es.metric + " has not improved for " +
                   std::to_string(es.patience) + " epochs (best at epoch " +
                   std::to_string(history_.best(es.split, es.metric)->first) + ")");
        result.early_stopped = true;
        break;
      }
    }
    if (stop) {
      result.interrupted = true;
      break;
    }
  }
  if (artifacts && !history_.summary().empty()) {
    const std::string png = (std::filesystem::path(config_.artifact_dir) / "metrics.png").string();
    plot_metrics_png(history_, png);
  }
  im.message("summary\n" + history_.summary_table());
  if (im.renderer) im.renderer->finish();
  return result;
}

std::vector<MetricSummary> LearnerCore::evaluate(const std::function<EvalEpoch()>& test) {
  Impl& im = *impl_;
  if (!im.renderer_set && !im.renderer) im.renderer = default_renderer(config_);
  im.declare(history_);
  im.eval_epoch(history_, Split::Test, 1, 1, test(), autocast_dtype(config_));
  if (!config_.artifact_dir.empty() && im.writes()) write_metric_csv(history_, config_.artifact_dir, Split::Test, 1);
  std::vector<MetricSummary> out;
  for (const auto& s : history_.summary()) {
    if (s.split == split_name(Split::Test)) out.push_back(s);
  }
  if (im.renderer) im.renderer->finish();
  return out;
}

}  // namespace burn::train
