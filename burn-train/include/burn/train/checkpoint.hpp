// Checkpoints of a training run: one record file per checkpoint holding the model, the optimizer, the
// scheduler, the metric history and the position (epoch, batch, step), written atomically through a
// recorder (burn::record::save). A strategy keeps the last N and the best by a metric.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "burn/record/record.hpp"
#include "burn/train/history.hpp"
#include "burn/train/run.hpp"

namespace burn::train {

// Where a run stands: what a resumed run continues from. The data loader's position is (seed,
// epoch, batch) (burn/data/rng.hpp), the device's random state is re-derived from (seed, step) at
// every step, so nothing else needs saving.
struct TrainingPosition {
  int64_t epoch = 1;        // the epoch to run (1-based)
  int64_t batch = 0;        // train batches of that epoch already done
  int64_t global_step = 0;  // train batches done in the whole run
};

struct CheckpointPolicy {
  int64_t keep_last = 2;            // the newest N checkpoints stay; older ones are deleted
  std::optional<Split> best_split;  // with best_metric: the checkpoint of the best epoch stays too
  std::string best_metric;          // e.g. "Loss" on Split::Valid
  std::string extension = ".bpz";   // the recorder, by extension (burn::record)
};

struct CheckpointInfo {
  std::string path;
  int64_t global_step = 0;
  int64_t epoch = 0;  // the epoch it ends (0 when written mid-epoch)
};

class BURN_TRAIN_API Checkpointer {
 public:
  // With a `run_id`, the policy counts and deletes only checkpoints of that run (their "run.id"
  // entry): another run's files, or ones that cannot be read, are never deleted.
  Checkpointer(std::string dir, CheckpointPolicy policy, std::string run_id = {});
  // Writes `<dir>/step-<global_step, 12 digits>[-epoch-<e>].<ext>` atomically, then deletes what the
  // policy no longer keeps. `epoch_end` is the epoch the checkpoint closes (0 when mid-epoch).
  std::string save(const record::Record& state, const TrainingPosition& position, int64_t epoch_end,
                   const MetricHistory& history);
  // Every checkpoint in the folder, oldest first; files of other names are ignored, and a file
  // named like a checkpoint (step-...<ext>) whose name does not parse is skipped with a warning
  // naming it (once per file).
  std::vector<CheckpointInfo> list() const;
  // The newest checkpoint, if any.
  std::optional<CheckpointInfo> latest() const;
  const std::string& dir() const { return dir_; }
  // Where warnings go (default: stderr).
  void set_warning_sink(std::function<void(const std::string&)> sink) { warn_ = std::move(sink); }

 private:
  bool of_this_run(const std::string& path);
  std::string dir_;
  CheckpointPolicy policy_;
  std::string run_id_;
  std::map<std::string, bool> owned_;  // path -> of this run (read once)
  std::function<void(const std::string&)> warn_;
  mutable std::set<std::string> warned_;
};

// The position as a record group ("epoch", "batch", "global_step") and back (RecordError naming the
// entry when one is missing or negative).
BURN_TRAIN_API record::Record position_record(const TrainingPosition& p);
BURN_TRAIN_API TrainingPosition position_from_record(const record::Record& r, const std::string& file);

}  // namespace burn::train
