// The event store of a training run: every metric's value per step and per epoch, for each split;
// the source of the summary, early stopping, best checkpoints, the CSV files and the plot.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "burn/record/record.hpp"
#include "burn/train/export.hpp"

namespace burn::train {

enum class Split { Train, Valid, Test };
BURN_TRAIN_API const char* split_name(Split s);  // "train", "valid", "test"

struct StepPoint {
  int64_t epoch = 0;      // 1-based
  int64_t iteration = 0;  // 1-based within the epoch
  double value = 0.0;
};

// What one metric recorded in one split.
struct MetricSeries {
  bool higher_is_better = false;
  std::string unit;
  std::vector<StepPoint> steps;      // the current (batch) value of every step
  std::map<int64_t, double> epochs;  // epoch -> the epoch's value (the running value at its end)
};

// The best and last epoch values of a metric in a split.
struct MetricSummary {
  std::string split, metric, unit;
  double best = 0.0, last = 0.0;
  int64_t best_epoch = 0, last_epoch = 0;
};

class BURN_TRAIN_API MetricHistory {
 public:
  // Declares a metric before its first value (its direction and unit).
  void declare(Split split, const std::string& metric, bool higher_is_better, const std::string& unit);
  void add_step(Split split, const std::string& metric, int64_t epoch, int64_t iteration, double value);
  void end_epoch(Split split, const std::string& metric, int64_t epoch, double value);

  const MetricSeries* find(Split split, const std::string& metric) const;
  std::vector<std::string> metrics(Split split) const;  // in declaration order
  // The epoch with the best value so far, if the metric has epoch values.
  std::optional<std::pair<int64_t, double>> best(Split split, const std::string& metric) const;
  // Epochs since the best one (0 when the last epoch is the best): early stopping's counter.
  int64_t epochs_since_best(Split split, const std::string& metric) const;
  std::vector<MetricSummary> summary() const;
  // "split  metric  best (epoch)  last (epoch)" lines, as printed at the end of a run.
  std::string summary_table() const;

  // Epoch values only (steps are not kept in checkpoints): what a resumed run needs to continue early
  // stopping and best-checkpoint selection.
  record::Record to_record() const;
  void load_record(const record::Record& rec);

 private:
  struct SplitData {
    std::vector<std::string> order;
    std::map<std::string, MetricSeries> series;
  };
  MetricSeries& series(Split split, const std::string& metric);
  std::map<Split, SplitData> splits_;
};

// `<dir>/<split>/epoch-<n>.csv`: one row per step (epoch, iteration, then each metric's batch value);
// and `<dir>/<split>/epochs.csv`: one row per epoch with each metric's epoch value. Rewritten whole
// (atomically) each time, so a reader never sees half a file.
BURN_TRAIN_API void write_metric_csv(const MetricHistory& history, const std::string& dir, Split split, int64_t epoch);

// Draws each numeric metric's epoch values (train and valid, with markers) into one PNG of small
// plots with axes and labels (cairo). Written atomically.
BURN_TRAIN_API void plot_metrics_png(const MetricHistory& history, const std::string& path, int width = 1200);

}  // namespace burn::train
