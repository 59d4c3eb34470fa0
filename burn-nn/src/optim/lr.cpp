// LR schedulers: each a closed form of its iteration count, which is its whole record.
#include "burn/optim/lr.hpp"

#include <cmath>
#include <numbers>

#include "../nn/config_json.hpp"

namespace burn::optim {

BURN_CONFIG_JSON(LinearLrSchedulerConfig, initial_lr, final_lr, num_iters)
BURN_CONFIG_JSON(StepLrSchedulerConfig, initial_lr, step_size, gamma)
BURN_CONFIG_JSON(ExponentialLrSchedulerConfig, initial_lr, gamma)
BURN_CONFIG_JSON(CosineAnnealingLrSchedulerConfig, initial_lr, min_lr, num_iters)
BURN_CONFIG_JSON(NoamLrSchedulerConfig, init_lr, warmup_steps, model_size)

namespace {
void check(bool ok, const char* cfg, const std::string& what) {
  if (!ok) throw ValueError(cfg, what);
}
std::string num(double v) { return std::to_string(v); }
}  // namespace

LrScheduler::~LrScheduler() = default;

record::Record LrScheduler::to_record() const {
  record::Record rec;
  rec.set("scheduler", name());
  rec.set("iteration", iteration_);
  rec.metadata().producer = "burn-optim lr scheduler";
  return rec;
}

void LrScheduler::load_record(const record::Record& rec) {
  const record::Value* n = rec.find("scheduler");
  if (!n || n->kind() != record::EntryKind::String || n->as_string() != name())
    throw RecordError("LrScheduler::load_record",
                      "the record is not the state of a '" + name() + "' scheduler (scheduler: " +
                          (n && n->kind() == record::EntryKind::String ? "'" + n->as_string() + "'" : "absent") + ")");
  const record::Value* it = rec.find("iteration");
  if (!it || it->kind() != record::EntryKind::Int || it->as_int() < 0)
    throw RecordError("LrScheduler::load_record", "'iteration' is missing or not a count >= 0");
  iteration_ = it->as_int();
}

LinearLrScheduler LinearLrSchedulerConfig::init() const {
  check(num_iters > 0, "LinearLrSchedulerConfig", "num_iters must be > 0, got " + std::to_string(num_iters));
  check(initial_lr > 0 && final_lr >= 0, "LinearLrSchedulerConfig",
        "initial_lr must be > 0 and final_lr >= 0, got " + num(initial_lr) + " and " + num(final_lr));
  return LinearLrScheduler(*this);
}
double LinearLrScheduler::lr_at(int64_t t) const {
  const double f = static_cast<double>(std::min(t, c_.num_iters)) / static_cast<double>(c_.num_iters);
  return c_.initial_lr + (c_.final_lr - c_.initial_lr) * f;
}

StepLrScheduler StepLrSchedulerConfig::init() const {
  check(step_size > 0, "StepLrSchedulerConfig", "step_size must be > 0, got " + std::to_string(step_size));
  check(initial_lr > 0 && gamma > 0, "StepLrSchedulerConfig",
        "initial_lr and gamma must be > 0, got " + num(initial_lr) + " and " + num(gamma));
  return StepLrScheduler(*this);
}
double StepLrScheduler::lr_at(int64_t t) const {
  return c_.initial_lr * std::pow(c_.gamma, static_cast<double>(t / c_.step_size));
}

ExponentialLrScheduler ExponentialLrSchedulerConfig::init() const {
  check(initial_lr > 0 && gamma > 0 && gamma <= 1, "ExponentialLrSchedulerConfig",
        "initial_lr must be > 0 and gamma in (0, 1], got " + num(initial_lr) + " and " + num(gamma));
  return ExponentialLrScheduler(*this);
}
double ExponentialLrScheduler::lr_at(int64_t t) const {
  return c_.initial_lr * std::pow(c_.gamma, static_cast<double>(t));
}

CosineAnnealingLrScheduler CosineAnnealingLrSchedulerConfig::init() const {
  check(num_iters > 0, "CosineAnnealingLrSchedulerConfig", "num_iters must be > 0, got " + std::to_string(num_iters));
  check(initial_lr > 0 && min_lr >= 0 && min_lr <= initial_lr, "CosineAnnealingLrSchedulerConfig",
        "need 0 <= min_lr <= initial_lr, initial_lr > 0, got " + num(min_lr) + " and " + num(initial_lr));
  return CosineAnnealingLrScheduler(*this);
}
double CosineAnnealingLrScheduler::lr_at(int64_t t) const {
  const double x = std::numbers::pi * static_cast<double>(t) / static_cast<double>(c_.num_iters);
  return c_.min_lr + (c_.initial_lr - c_.min_lr) * (1.0 + std::cos(x)) / 2.0;
}

NoamLrScheduler NoamLrSchedulerConfig::init() const {
  check(warmup_steps > 0 && model_size > 0, "NoamLrSchedulerConfig",
        "warmup_steps and model_size must be > 0, got " + std::to_string(warmup_steps) + " and " +
            std::to_string(model_size));
  check(init_lr > 0, "NoamLrSchedulerConfig", "init_lr must be > 0, got " + num(init_lr));
  return NoamLrScheduler(*this);
}
double NoamLrScheduler::lr_at(int64_t t) const {
  const double n = static_cast<double>(t + 1);
  const double w = static_cast<double>(c_.warmup_steps);
  return c_.init_lr * std::pow(static_cast<double>(c_.model_size), -0.5) *
         std::min(std::pow(n, -0.5), n * std::pow(w, -1.5));
}

SequentialLr::SequentialLr(std::vector<std::shared_ptr<const LrScheduler>> schedulers, std::vector<int64_t> milestones)
    : schedulers_(std::move(schedulers)), milestones_(std::move(milestones)) {
  check(!schedulers_.empty() && milestones_.size() + 1 == schedulers_.size(), "SequentialLr",
        "needs one milestone fewer than schedulers, got " + std::to_string(schedulers_.size()) + " schedulers and " +
            std::to_string(milestones_.size()) + " milestones");
  for (size_t i = 0; i < milestones_.size(); ++i)
    check(milestones_[i] > (i ? milestones_[i - 1] : 0), "SequentialLr", "milestones must be increasing and > 0");
  for (const auto& s : schedulers_) check(s != nullptr, "SequentialLr", "a scheduler is null");
}
double SequentialLr::lr_at(int64_t t) const {
  size_t i = 0;
  while (i < milestones_.size() && t >= milestones_[i]) ++i;
  return schedulers_[i]->lr_at(i ? t - milestones_[i - 1] : t);
}

ComposedLr::ComposedLr(std::vector<std::shared_ptr<const LrScheduler>> schedulers, Reduction reduction)
    : schedulers_(std::move(schedulers)), reduction_(reduction) {
  check(!schedulers_.empty(), "ComposedLr", "needs at least one scheduler");
  for (const auto& s : schedulers_) check(s != nullptr, "ComposedLr", "a scheduler is null");
}
double ComposedLr::lr_at(int64_t t) const {
  double acc = reduction_ == Reduction::Prod ? 1.0 : 0.0;
  for (const auto& s : schedulers_) acc = reduction_ == Reduction::Prod ? acc * s->lr_at(t) : acc + s->lr_at(t);
  return reduction_ == Reduction::Avg ? acc / static_cast<double>(schedulers_.size()) : acc;
}

}  // namespace burn::optim
