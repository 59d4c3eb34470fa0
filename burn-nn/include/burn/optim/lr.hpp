// Learning-rate schedulers (Burn's LrScheduler): `step()` gives the lr of the next optimizer step,
// the initial lr on the first call, as torch.optim.lr_scheduler's get_last_lr() before each step().
// Every scheduler here is a closed form of its iteration count, so that count is its whole state and
// its Record restores it exactly.
//
//   auto sched = optim::SequentialLr({warmup, cosine}, {100});
//   for (...) model = opt.step(sched.step(), model, grads);
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "burn/nn/config.hpp"
#include "burn/optim/export.hpp"
#include "burn/record/record.hpp"

namespace burn::optim {

class BURN_OPTIM_API LrScheduler {
 public:
  virtual ~LrScheduler();
  virtual std::string name() const = 0;  // "cosine_annealing": checked when a record is loaded
  // The lr at a given iteration (0 for the first step), without changing the state.
  virtual double lr_at(int64_t iteration) const = 0;
  // The lr of the next step; advances the iteration.
  double step() { return lr_at(iteration_++); }
  int64_t iteration() const { return iteration_; }
  // {"scheduler": name, "iteration": count}.
  record::Record to_record() const;
  // RecordError when the record is another scheduler's or has no valid iteration.
  void load_record(const record::Record& rec);

 private:
  int64_t iteration_ = 0;
};

// The same lr at every step.
class BURN_OPTIM_API ConstantLr : public LrScheduler {
 public:
  explicit ConstantLr(double lr) : lr_(lr) {}
  std::string name() const override { return "constant"; }
  double lr_at(int64_t) const override { return lr_; }

 private:
  double lr_;
};

// From initial_lr to final_lr in num_iters equal steps, then final_lr (torch LinearLR).
struct BURN_OPTIM_API LinearLrSchedulerConfig {
  double initial_lr = 0.0;
  double final_lr = 0.0;
  int64_t num_iters = 0;
  class LinearLrScheduler init() const;
  BURN_CONFIG(LinearLrSchedulerConfig)
};
class BURN_OPTIM_API LinearLrScheduler : public LrScheduler {
 public:
  explicit LinearLrScheduler(const LinearLrSchedulerConfig& c) : c_(c) {}
  std::string name() const override { return "linear"; }
  double lr_at(int64_t t) const override;

 private:
  LinearLrSchedulerConfig c_;
};

// initial_lr * gamma^floor(t / step_size) (torch StepLR).
struct BURN_OPTIM_API StepLrSchedulerConfig {
  double initial_lr = 0.0;
  int64_t step_size = 1;
  double gamma = 0.1;
  class StepLrScheduler init() const;
  BURN_CONFIG(StepLrSchedulerConfig)
};
class BURN_OPTIM_API StepLrScheduler : public LrScheduler {
 public:
  explicit StepLrScheduler(const StepLrSchedulerConfig& c) : c_(c) {}
  std::string name() const override { return "step"; }
  double lr_at(int64_t t) const override;

 private:
  StepLrSchedulerConfig c_;
};

// initial_lr * gamma^t (torch ExponentialLR).
struct BURN_OPTIM_API ExponentialLrSchedulerConfig {
  double initial_lr = 0.0;
  double gamma = 0.0;
  class ExponentialLrScheduler init() const;
  BURN_CONFIG(ExponentialLrSchedulerConfig)
};
class BURN_OPTIM_API ExponentialLrScheduler : public LrScheduler {
 public:
  explicit ExponentialLrScheduler(const ExponentialLrSchedulerConfig& c) : c_(c) {}
  std::string name() const override { return "exponential"; }
  double lr_at(int64_t t) const override;

 private:
  ExponentialLrSchedulerConfig c_;
};

// min_lr + (initial_lr - min_lr) (1 + cos(pi t / num_iters)) / 2: half a cosine down to min_lr in
// num_iters steps, and back up after (torch CosineAnnealingLR's closed form).
struct BURN_OPTIM_API CosineAnnealingLrSchedulerConfig {
  double initial_lr = 0.0;
  double min_lr = 0.0;
  int64_t num_iters = 0;
  class CosineAnnealingLrScheduler init() const;
  BURN_CONFIG(CosineAnnealingLrSchedulerConfig)
};
class BURN_OPTIM_API CosineAnnealingLrScheduler : public LrScheduler {
 public:
  explicit CosineAnnealingLrScheduler(const CosineAnnealingLrSchedulerConfig& c) : c_(c) {}
  std::string name() const override { return "cosine_annealing"; }
  double lr_at(int64_t t) const override;

 private:
  CosineAnnealingLrSchedulerConfig c_;
};

// The Transformer's schedule (Vaswani et al.): init_lr * model_size^-0.5 * min(n^-0.5, n warmup^-1.5)
// with n = t + 1.
struct BURN_OPTIM_API NoamLrSchedulerConfig {
  double init_lr = 0.0;
  int64_t warmup_steps = 0;
  int64_t model_size = 0;
  class NoamLrScheduler init() const;
  BURN_CONFIG(NoamLrSchedulerConfig)
};
class BURN_OPTIM_API NoamLrScheduler : public LrScheduler {
 public:
  explicit NoamLrScheduler(const NoamLrSchedulerConfig& c) : c_(c) {}
  std::string name() const override { return "noam"; }
  double lr_at(int64_t t) const override;

 private:
  NoamLrSchedulerConfig c_;
};

// One scheduler after another: the i-th runs from milestones[i-1] on, starting at its own iteration 0
// (torch SequentialLR), e.g. a linear warm-up then cosine annealing.
class BURN_OPTIM_API SequentialLr : public LrScheduler {
 public:
  SequentialLr(std::vector<std::shared_ptr<const LrScheduler>> schedulers, std::vector<int64_t> milestones);
  std::string name() const override { return "sequential"; }
  double lr_at(int64_t t) const override;

 private:
  std::vector<std::shared_ptr<const LrScheduler>> schedulers_;
  std::vector<int64_t> milestones_;
};

// Several schedulers at once, their lrs multiplied, summed or averaged (Burn's ComposedLrScheduler;
// the product of a schedule with a factor schedule whose initial lr is 1 is torch's ChainedScheduler).
class BURN_OPTIM_API ComposedLr : public LrScheduler {
 public:
  enum class Reduction { Prod, Sum, Avg };
  ComposedLr(std::vector<std::shared_ptr<const LrScheduler>> schedulers, Reduction reduction = Reduction::Prod);
  std::string name() const override { return "composed"; }
  double lr_at(int64_t t) const override;

 private:
  std::vector<std::shared_ptr<const LrScheduler>> schedulers_;
  Reduction reduction_;
};

}  // namespace burn::optim
