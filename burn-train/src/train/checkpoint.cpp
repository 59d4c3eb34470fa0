// Checkpoint files: names that sort by step, atomic saves through burn::record, and the keep policy.
#include "burn/train/checkpoint.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <regex>

#include "burn/record/file.hpp"
#include "burn/record/recorder.hpp"

namespace burn::train {

namespace fs = std::filesystem;

namespace {

constexpr const char* kCheckpointOp = "train.checkpoint";

int64_t non_negative_int(const record::Record& r, const char* name, const std::string& file) {
  const record::Value* v = r.find(name);
  if (!v || v->kind() != record::EntryKind::Int) {
    throw record::record_error(kCheckpointOp, file, std::string("position.") + name, "missing or not an integer");
  }
  if (v->as_int() < 0) {
    throw record::record_error(kCheckpointOp, file, std::string("position.") + name,
                               "is negative: " + std::to_string(v->as_int()));
  }
  return v->as_int();
}

}  // namespace

record::Record position_record(const TrainingPosition& p) {
  record::Record r;
  r.set("epoch", p.epoch);
  r.set("batch", p.batch);
  r.set("global_step", p.global_step);
  return r;
}

TrainingPosition position_from_record(const record::Record& r, const std::string& file) {
  TrainingPosition p;
  p.epoch = non_negative_int(r, "epoch", file);
  p.batch = non_negative_int(r, "batch", file);
  p.global_step = non_negative_int(r, "global_step", file);
  if (p.epoch < 1) throw record::record_error(kCheckpointOp, file, "position.epoch", "must be at least 1");
  return p;
}

Checkpointer::Checkpointer(std::string dir, CheckpointPolicy policy, std::string run_id)
    : dir_(std::move(dir)), policy_(std::move(policy)), run_id_(std::move(run_id)) {
  if (policy_.keep_last < 1) {
    throw ValueError(kCheckpointOp, "keep_last must be at least 1, got " + std::to_string(policy_.keep_last));
  }
  if (policy_.extension.empty() || policy_.extension[0] != '.') {
    throw ValueError(kCheckpointOp, "the extension must start with a dot, got '" + policy_.extension + "'");
  }
}

std::vector<CheckpointInfo> Checkpointer::list() const {
  std::vector<CheckpointInfo> out;
  std::error_code ec;
  if (!fs::is_directory(dir_, ec)) return out;
  const std::string& ext = policy_.extension;
  const std::regex name("step-([0-9]{12})(-epoch-([0-9]+))?" +
                        std::regex_replace(ext, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)"));
  // A decimal that fits int64, at least `min` (a name's digits may not: step-...-epoch-<20 digits>).
  auto number = [](const std::string& digits, int64_t min) -> std::optional<int64_t> {
    int64_t v = 0;
    const auto [p, err] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (err != std::errc() || p != digits.data() + digits.size() || v < min) return std::nullopt;
    return v;
  };
  for (const auto& e : fs::directory_iterator(dir_)) {
    std::smatch m;
    const std::string file = e.path().filename().string();
    const bool looks_like_one = file.rfind("step-", 0) == 0 && file.size() > ext.size() &&
                                file.compare(file.size() - ext.size(), ext.size(), ext) == 0;
    if (!e.is_regular_file() || !looks_like_one) continue;
    std::optional<int64_t> step, epoch = 0;
    if (std::regex_match(file, m, name)) {
      step = number(m[1].str(), 0);
      if (m[3].matched) epoch = number(m[3].str(), 1);
    }
    if (!step || !epoch) {
      if (warned_.insert(e.path().string()).second) {
        const std::string text =
            "skipping '" + e.path().string() + "': not a checkpoint name (step-<12 digits>[-epoch-<n>]" + ext + ")";
        if (warn_) {
          warn_(text);
        } else {
          std::cerr << "[" << kCheckpointOp << "] " << text << "\n";
        }
      }
      continue;
    }
    out.push_back({e.path().string(), *step, *epoch});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.global_step < b.global_step; });
  return out;
}

std::optional<CheckpointInfo> Checkpointer::latest() const {
  const auto all = list();
  if (all.empty()) return std::nullopt;
  return all.back();
}

std::string Checkpointer::save(const record::Record& state, const TrainingPosition& position, int64_t epoch_end,
                               const MetricHistory& history) {
  fs::create_directories(dir_);
  char name[64];
  std::snprintf(name, sizeof name, "step-%012lld", static_cast<long long>(position.global_step));
  std::string file = name;
  if (epoch_end > 0) file += "-epoch-" + std::to_string(epoch_end);
  const std::string path = (fs::path(dir_) / (file + policy_.extension)).string();
  record::save(path, state);

  owned_[path] = true;

  // What the policy keeps: the newest keep_last of this run, and the checkpoint closing the best epoch.
  std::vector<CheckpointInfo> all;
  for (auto& c : list()) {
    if (of_this_run(c.path)) all.push_back(std::move(c));
  }
  std::optional<int64_t> best_epoch;
  if (policy_.best_split && !policy_.best_metric.empty()) {
    if (const auto b = history.best(*policy_.best_split, policy_.best_metric)) best_epoch = b->first;
  }
  const size_t keep_from =
      all.size() > static_cast<size_t>(policy_.keep_last) ? all.size() - static_cast<size_t>(policy_.keep_last) : 0;
  for (size_t i = 0; i < keep_from; ++i) {
    if (best_epoch && all[i].epoch == *best_epoch) continue;
    std::error_code ec;
    fs::remove(all[i].path, ec);
    owned_.erase(all[i].path);
  }
  return path;
}

bool Checkpointer::of_this_run(const std::string& path) {
  if (run_id_.empty()) return true;
  const auto it = owned_.find(path);
  if (it != owned_.end()) return it->second;
  bool mine = false;
  try {
    const auto run = read_checkpoint_run(path);
    mine = run && run->id == run_id_;
  } catch (const std::exception&) {
    mine = false;  // unreadable: not known to be ours, so never deleted
  }
  owned_[path] = mine;
  return mine;
}

}  // namespace burn::train
