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
#include "burn/train/dashboard.hpp"

namespace burn::train {

namespace {

constexpr const char* kOp = "train.learner";

struct RegisteredMetric {
  Split split;
  std::unique_ptr<Metric> metric;
};

std::shared_ptr<Renderer> default_renderer(const LearnerConfig& c) {
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
  throw ValueError(kOp, "the model has no parameter on a device; set LearnerConfig::device");
}

}  // namespace

struct LearnerCore::Impl {
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
  void eval_epoch(MetricHistory& history, Split split, int64_t epoch, int64_t epochs, EvalEpoch e) {
    clear(split);
    const auto started = std::chrono::steady_clock::now();
    int64_t it = 0;
    while (std::optional<StepOutput> out = e.next()) {
      ++it;
      const data::Progress progress = e.progress();
      MetricContext ctx;
      ctx.epoch = epoch;
      ctx.epochs = epochs;
      ctx.iteration = it;
      ctx.items = static_cast<int64_t>(progress.items_processed);
      ctx.items_total = static_cast<int64_t>(progress.items_total);
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      step(history, *out, ctx,
           {split, epoch, epochs, it, static_cast<int64_t>(e.batches), ctx.items, ctx.items_total, elapsed});
    }
    end_epoch(history, split, epoch);
  }

  std::map<const Metric*, MetricValue> last_values;
};

LearnerCore::LearnerCore(LearnerConfig config, optim::Optimizer& optimizer, optim::LrScheduler& scheduler)
    : config_(std::move(config)), optimizer_(optimizer), scheduler_(scheduler), impl_(std::make_unique<Impl>()) {
  if (config_.epochs < 1) throw ValueError(kOp, "epochs must be at least 1, got " + std::to_string(config_.epochs));
  if (config_.grad_accumulation < 1) {
    throw ValueError(kOp, "grad_accumulation must be at least 1, got " + std::to_string(config_.grad_accumulation));
  }
  if (config_.checkpoint_every && *config_.checkpoint_every < 1) {
    throw ValueError(kOp, "checkpoint_every must be at least 1 step, got " + std::to_string(*config_.checkpoint_every));
  }
  if (config_.resume && config_.artifact_dir.empty()) {
    throw ValueError(kOp, "resume needs an artifact_dir to find the checkpoints in");
  }
}

LearnerCore::~LearnerCore() = default;

LearnerCore& LearnerCore::add_metric(Split split, std::unique_ptr<Metric> metric) {
  if (!metric) throw ValueError(kOp, "add_metric: null metric");
  for (const auto& m : impl_->metrics) {
    if (m.split == split && m.metric->name() == metric->name()) {
      throw ValueError(kOp, "metric '" + metric->name() + "' is already registered for " + split_name(split));
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

FitResult LearnerCore::fit(nn::ModuleRef model, const std::function<TrainEpoch(uint64_t, size_t)>& train,
                           const std::function<EvalEpoch(uint64_t)>& valid) {
  Impl& im = *impl_;
  if (!im.renderer_set) im.renderer = default_renderer(config_);
  const Device device = config_.device ? *config_.device : model_device(model);
  const bool artifacts = !config_.artifact_dir.empty();
  std::optional<Checkpointer> checkpointer;
  if (artifacts)
    checkpointer.emplace((std::filesystem::path(config_.artifact_dir) / "checkpoints").string(), config_.checkpoints);

  history_ = MetricHistory();
  im.declare(history_);
  TrainingPosition pos;
  if (config_.resume) {
    if (const auto latest = checkpointer->latest()) {
      const record::Record state = record::load(latest->path);
      nn::ModuleLoadOptions load;
      load.prefix = "model";
      nn::detail::load_record(model, state, load);
      optimizer_.load_record(state.at("optimizer").group());
      scheduler_.load_record(state.at("scheduler").group());
      history_.load_record(state.at("history").group());
      im.declare(history_);
      pos = position_from_record(state.at("position").group(), latest->path);
      const auto saved_seed = static_cast<uint64_t>(state.at("seed").as_int());
      if (saved_seed != config_.seed) {
        throw ValueError(kOp, "checkpoint '" + latest->path + "' was trained with seed " + std::to_string(saved_seed) +
                                  ", this run has seed " + std::to_string(config_.seed) +
                                  ": a resumed run must use the same seed");
      }
      im.message("resumed from " + latest->path + " (epoch " + std::to_string(pos.epoch) + ", batch " +
                 std::to_string(pos.batch) + ", step " + std::to_string(pos.global_step) + ")");
    } else {
      im.message("no checkpoint in " + checkpointer->dir() + ": starting from scratch");
    }
  }

  auto save_checkpoint = [&](const TrainingPosition& p, int64_t epoch_end) {
    if (!checkpointer) return;
    record::Record state;
    state.set("model", nn::detail::into_record(model));
    state.set("optimizer", optimizer_.to_record());
    state.set("scheduler", scheduler_.to_record());
    state.set("history", history_.to_record());
    state.set("position", position_record(p));
    state.set("seed", static_cast<int64_t>(config_.seed));
    const std::string path = checkpointer->save(state, p, epoch_end, history_);
    im.message("checkpoint " + path);
  };

  FitResult result;
  result.global_step = pos.global_step;
  result.epochs_done = pos.epoch - 1;
  optim::GradientsAccumulator accumulator;
  const auto k = static_cast<size_t>(config_.grad_accumulation);

  for (int64_t epoch = pos.epoch; epoch <= config_.epochs; ++epoch) {
    const auto started = std::chrono::steady_clock::now();
    im.clear(Split::Train);
    TrainEpoch te = train(static_cast<uint64_t>(epoch - 1), static_cast<size_t>(pos.batch));
    const auto items_start = static_cast<int64_t>(te.progress().items_processed);  // > 0 when resumed mid-epoch
    int64_t iteration = pos.batch;
    bool stop = false;
    while (true) {
      device.seed(data::derive_seed(config_.seed, static_cast<uint64_t>(pos.global_step)));
      std::optional<TrainOutput> out = te.next();
      if (!out) break;
      ++iteration;
      ++pos.global_step;
      accumulator.accumulate(optim::GradientsParams::from_grads(out->grads, model));
      const bool last = static_cast<size_t>(iteration) >= te.batches;
      double lr = scheduler_.lr_at(scheduler_.iteration());
      if (accumulator.steps() >= k || last) {
        lr = scheduler_.step();
        optim::GradientsParams grads = accumulator.grads();
        optimizer_.step_module(lr, model, grads);
      }
      const data::Progress progress = te.progress();
      MetricContext ctx;
      ctx.epoch = epoch;
      ctx.epochs = config_.epochs;
      ctx.iteration = iteration;
      ctx.items = static_cast<int64_t>(progress.items_processed);
      ctx.items_total = static_cast<int64_t>(progress.items_total);
      ctx.lr = lr;
      im.step(history_, out->output, ctx,
              {Split::Train, epoch, config_.epochs, iteration, static_cast<int64_t>(te.batches), ctx.items,
               ctx.items_total, seconds_since(started), items_start});
      pos.batch = iteration;
      result.global_step = pos.global_step;
      const bool boundary = accumulator.steps() == 0;
      stop = interrupter_.should_stop() || (im.renderer && im.renderer->stop_requested());
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
    if (valid) im.eval_epoch(history_, Split::Valid, epoch, config_.epochs, valid(static_cast<uint64_t>(epoch - 1)));
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
        throw ValueError(kOp, "early stopping watches " + std::string(split_name(es.split)) + " metric '" + es.metric +
                                  "', which is not registered");
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
  im.eval_epoch(history_, Split::Test, 1, 1, test());
  if (!config_.artifact_dir.empty()) write_metric_csv(history_, config_.artifact_dir, Split::Test, 1);
  std::vector<MetricSummary> out;
  for (const auto& s : history_.summary()) {
    if (s.split == split_name(Split::Test)) out.push_back(s);
  }
  if (im.renderer) im.renderer->finish();
  return out;
}

}  // namespace burn::train
