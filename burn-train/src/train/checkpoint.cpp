// Checkpoint files: names that sort by step, atomic saves through burn::record, and the keep policy.
#include "burn/train/checkpoint.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <regex>

#include "burn/record/file.hpp"
#include "burn/record/recorder.hpp"

namespace burn::train {

namespace fs = std::filesystem;

namespace {

constexpr const char* kOp = "train.checkpoint";

int64_t non_negative_int(const record::Record& r, const char* name, const std::string& file) {
  const record::Value* v = r.find(name);
  if (!v || v->kind() != record::EntryKind::Int) {
    throw record::record_error(kOp, file, std::string("position.") + name, "missing or not an integer");
  }
  if (v->as_int() < 0) {
    throw record::record_error(kOp, file, std::string("position.") + name,
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
  if (p.epoch < 1) throw record::record_error(kOp, file, "position.epoch", "must be at least 1");
  return p;
}

Checkpointer::Checkpointer(std::string dir, CheckpointPolicy policy)
    : dir_(std::move(dir)), policy_(std::move(policy)) {
  if (policy_.keep_last < 1) {
    throw ValueError(kOp, "keep_last must be at least 1, got " + std::to_string(policy_.keep_last));
  }
  if (policy_.extension.empty() || policy_.extension[0] != '.') {
    throw ValueError(kOp, "the extension must start with a dot, got '" + policy_.extension + "'");
  }
}

std::vector<CheckpointInfo> Checkpointer::list() const {
  std::vector<CheckpointInfo> out;
  std::error_code ec;
  if (!fs::is_directory(dir_, ec)) return out;
  const std::regex name("step-([0-9]{12})(-epoch-([0-9]+))?" +
                        std::regex_replace(policy_.extension, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)"));
  for (const auto& e : fs::directory_iterator(dir_)) {
    std::smatch m;
    const std::string file = e.path().filename().string();
    if (!e.is_regular_file() || !std::regex_match(file, m, name)) continue;
    out.push_back({e.path().string(), std::stoll(m[1].str()), m[3].matched ? std::stoll(m[3].str()) : 0});
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

  // What the policy keeps: the newest keep_last, and the checkpoint closing the best epoch.
  auto all = list();
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
  }
  return path;
}

}  // namespace burn::train
