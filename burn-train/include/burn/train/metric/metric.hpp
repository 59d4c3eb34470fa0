// The one small interface every metric implements, what a train or valid step hands it, and the
// running statistics numeric metrics share.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "burn/tensor/tensor.hpp"
#include "burn/train/export.hpp"

namespace burn::train {

// What a train or valid step returns for the metrics; each metric reads the fields it needs and
// throws a ValueError naming itself and the missing field when the step left one empty.
struct StepOutput {
  std::optional<Tensor<1>> loss;          // the batch loss, shape [1]
  std::optional<Tensor<2>> output;        // [batch, classes] logits or scores
  std::optional<Tensor<1, Int>> targets;  // [batch] class indices
  int64_t batch_size = 0;                 // items in the batch; 0: the targets' (or output's) length
};

// Where training stands when a metric is updated.
struct MetricContext {
  int64_t epoch = 1;  // 1-based
  int64_t epochs = 1;
  int64_t iteration = 0;     // steps done in this epoch, this one included
  int64_t items = 0;         // items done in this epoch, this batch included
  int64_t items_total = 0;   // items per epoch; 0 when unknown
  std::optional<double> lr;  // the learning rate of this step (train only)
};

// A metric's value after an update. `current` is the last batch's, `running` the epoch's so far
// (what is logged per epoch). Non-numeric metrics leave both NaN and only fill `formatted`.
struct MetricValue {
  double current = 0.0;
  double running = 0.0;
  std::string formatted;  // "Accuracy 93.10 % (epoch 92.71 %)" for the dashboard and the log
};

class BURN_TRAIN_API Metric {
 public:
  virtual ~Metric();
  virtual std::string name() const = 0;
  // Called after every step of the split the metric is registered for.
  virtual MetricValue update(const StepOutput& out, const MetricContext& ctx) = 0;
  // Called at the start of each epoch: the running value starts again.
  virtual void clear() = 0;
  // Plotted and usable for early stopping and best-checkpoint selection.
  virtual bool numeric() const { return true; }
  // Which way is better, for early stopping and "best" checkpoints.
  virtual bool higher_is_better() const { return false; }
  // The unit shown after the value ("%", "items/s", "MB"); empty for none.
  virtual std::string unit() const { return {}; }
};

// A count-weighted mean over an epoch: the running value of most numeric metrics.
class BURN_TRAIN_API RunningMean {
 public:
  void add(double value, double weight);
  double value() const;  // NaN before the first add
  void clear() { sum_ = 0.0, weight_ = 0.0; }

 private:
  double sum_ = 0.0, weight_ = 0.0;
};

// "Name 12.3456 unit (epoch 11.2345 unit)": the format of every numeric metric.
BURN_TRAIN_API std::string format_numeric(const std::string& name, double current, double running,
                                          const std::string& unit, int precision = 4);

// The batch size of a step: StepOutput::batch_size, else the targets' or the output's first dim.
BURN_TRAIN_API int64_t batch_size_of(const StepOutput& out);

}  // namespace burn::train
