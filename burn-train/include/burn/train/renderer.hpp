// What the user sees while training: a Renderer gets every step's metric values and progress and
// every epoch's summary. LogRenderer writes plain lines (CI, pipes); the terminal dashboard is
// dashboard.hpp. The Learner picks the dashboard when stdout is a terminal.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "burn/train/history.hpp"
#include "burn/train/metric/metric.hpp"

namespace burn::train {

// A metric's value as the renderers see it.
struct MetricView {
  std::string name;
  MetricValue value;
  bool numeric = true;
};

// Where training stands at a step.
struct StepStatus {
  Split split = Split::Train;
  int64_t epoch = 1, epochs = 1;
  int64_t iteration = 0, iterations = 0;  // this epoch's steps done, and its steps
  int64_t items = 0, items_total = 0;     // this epoch's items done, and its items
  double elapsed_seconds = 0;             // in this epoch so far (in this run, when it was resumed)
  int64_t items_start = 0;                // items of the epoch done before this run (a resumed epoch)
};

class BURN_TRAIN_API Renderer {
 public:
  virtual ~Renderer();
  virtual void step(const StepStatus& status, const std::vector<MetricView>& metrics) = 0;
  // The split's epoch is over; its epoch values are in `history`.
  virtual void end_epoch(Split split, int64_t epoch, const MetricHistory& history) = 0;
  // A line worth showing (a checkpoint written, early stopping, the summary).
  virtual void message(const std::string& text) = 0;
  // Training is over (the dashboard restores the terminal here).
  virtual void finish() {}
  // The user asked to stop (the dashboard's `q`); polled after every step.
  virtual bool stop_requested() { return false; }
};

// Plain lines: one per `every` seconds of steps (and the first and last step of an epoch), one per
// epoch and split with its epoch values. Written to `out` (stdout by default) and flushed.
class BURN_TRAIN_API LogRenderer : public Renderer {
 public:
  explicit LogRenderer(double every_seconds = 5.0, std::FILE* out = stdout);
  void step(const StepStatus& status, const std::vector<MetricView>& metrics) override;
  void end_epoch(Split split, int64_t epoch, const MetricHistory& history) override;
  void message(const std::string& text) override;

 private:
  double every_;
  std::FILE* out_;
  std::chrono::steady_clock::time_point last_;
  bool printed_ = false;
};

// "12.3 s" / "4 min 05 s" / "1 h 02 min": durations in the logs and the dashboard's ETA.
BURN_TRAIN_API std::string format_duration(double seconds);
// Seconds left for the rest of the epoch at the pace so far; negative when unknown.
BURN_TRAIN_API double eta_seconds(const StepStatus& status);

}  // namespace burn::train
