// The identity of a training run: a random id made when the run starts and the settings it was made
// with. Every checkpoint carries it, and the artifacts folder names its run in `run.json`, so that a
// resumed run continues only its own checkpoints and a fresh run never mixes with an older one.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "burn/record/record.hpp"
#include "burn/train/export.hpp"

namespace burn::train {

// A setting a resumed run must repeat, as text: {"hidden size", "128"}. The name is a record entry
// name (no '.', '/' or control characters).
struct RunSetting {
  std::string name;
  std::string value;
  bool operator==(const RunSetting&) const = default;
};
using RunSettings = std::vector<RunSetting>;

struct RunIdentity {
  std::string id;  // 16 hex digits
  RunSettings config;
};

// A new random run id (16 hex digits from std::random_device).
BURN_TRAIN_API std::string new_run_id();

// The settings that differ, "hidden size 64 against 128, lr (unset) against 0.02": each one's value
// in `theirs` (the checkpoint's, the folder's) against `ours`; "" when they are the same.
BURN_TRAIN_API std::string config_differences(const RunSettings& theirs, const RunSettings& ours);

// The identity as the "run" group of a checkpoint ("id", "config.<name>") and back; nullopt when
// the record has no "run" group (a checkpoint written before runs had an identity), RecordError
// naming the file and entry when it is malformed.
BURN_TRAIN_API record::Record run_record(const RunIdentity& run);
BURN_TRAIN_API std::optional<RunIdentity> run_from_record(const record::Record& run_group, const std::string& file);
// The identity stored in a checkpoint file, read from its index and "run" entries only (not the
// weights); nullopt when it has none. Errors of the file propagate (RecordError naming it).
BURN_TRAIN_API std::optional<RunIdentity> read_checkpoint_run(const std::string& path);

// `<dir>/run.json`: {"run": id, "config": {name: value, ...}}. read_run_file: nullopt when the file
// does not exist; a damaged file is a ValueError naming it and the key. write_run_file is atomic.
BURN_TRAIN_API std::string run_file_path(const std::string& dir);
BURN_TRAIN_API std::optional<RunIdentity> read_run_file(const std::string& dir);
BURN_TRAIN_API void write_run_file(const std::string& dir, const RunIdentity& run);

// Writes a text file atomically (burn::record::AtomicFile: the old file or the new one, never a mix);
// errors name `op` and the file. Every file the learner writes in an artifacts folder goes this way.
BURN_TRAIN_API void write_text_atomically(const std::string& path, const std::string& text,
                                          const char* op = "train.artifacts");

// Moves the entries of `dir` named in `names` that exist (run.json first) into a new folder
// `<dir>/previous/<run id>` (`<dir>/previous/unnamed-<UTC time>` when `previous` is unknown);
// returns that folder, "" when none of them existed. Nothing is deleted or overwritten.
BURN_TRAIN_API std::string move_previous_run(const std::string& dir, const std::vector<std::string>& names,
                                             const std::optional<RunIdentity>& previous);

}  // namespace burn::train
