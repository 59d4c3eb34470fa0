// Metrics about the run rather than the model: loss, learning rate, iteration speed, CPU use and
// memory.
#pragma once

#include <chrono>

#include "burn/train/metric/metric.hpp"

namespace burn::train {

// The step's loss; running: the item-weighted mean over the epoch.
class BURN_TRAIN_API LossMetric : public Metric {
 public:
  std::string name() const override { return "Loss"; }
  MetricValue update(const StepOutput& out, const MetricContext& ctx) override;
  void clear() override { mean_.clear(); }

 private:
  RunningMean mean_;
};

// The learning rate the step used (MetricContext::lr).
class BURN_TRAIN_API LearningRateMetric : public Metric {
 public:
  std::string name() const override { return "Learning Rate"; }
  MetricValue update(const StepOutput& out, const MetricContext& ctx) override;
  void clear() override {}
};

// Items per second since the start of the epoch (current: since the previous step).
class BURN_TRAIN_API IterationSpeedMetric : public Metric {
 public:
  std::string name() const override { return "Iteration Speed"; }
  MetricValue update(const StepOutput& out, const MetricContext& ctx) override;
  void clear() override { started_ = false; }
  bool higher_is_better() const override { return true; }
  std::string unit() const override { return "items/s"; }

 private:
  bool started_ = false;
  std::chrono::steady_clock::time_point start_, last_;
  int64_t start_items_ = 0, last_items_ = 0;
};

// The process's CPU time over wall time, in percent of the CPUs it may use (its affinity mask; 100 % =
// every one of them busy).
class BURN_TRAIN_API CpuUseMetric : public Metric {
 public:
  std::string name() const override { return "CPU Use"; }
  MetricValue update(const StepOutput& out, const MetricContext& ctx) override;
  void clear() override { started_ = false; }
  std::string unit() const override { return "%"; }

 private:
  bool started_ = false;
  double start_cpu_ = 0, last_cpu_ = 0;
  std::chrono::steady_clock::time_point start_, last_;
};

// The process's resident memory in MB (current), and its peak so far this epoch (running).
class BURN_TRAIN_API MemoryMetric : public Metric {
 public:
  std::string name() const override { return "Memory"; }
  MetricValue update(const StepOutput& out, const MetricContext& ctx) override;
  void clear() override { peak_ = 0; }
  std::string unit() const override { return "MB"; }

 private:
  double peak_ = 0;
};

// Seconds of CPU time this process has used (user + system), and its resident set in bytes.
BURN_TRAIN_API double process_cpu_seconds();
BURN_TRAIN_API int64_t process_resident_bytes();

}  // namespace burn::train
