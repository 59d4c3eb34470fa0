// Run identity: ids, the "run" group of checkpoints, run.json, and moving a previous run aside.
#include "burn/train/run.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "burn/record/file.hpp"
#include "burn/record/recorder.hpp"
#include "burn/tensor/error.hpp"

namespace burn::train {

namespace fs = std::filesystem;

namespace {

constexpr const char* kRunOp = "train.run";
constexpr const char* kRunFile = "run.json";

const RunSetting* find_setting(const RunSettings& s, const std::string& name) {
  for (const auto& x : s) {
    if (x.name == name) return &x;
  }
  return nullptr;
}

std::string utc_stamp() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

bool is_run_id(const std::string& id) {
  if (id.size() != 16) return false;
  for (char c : id) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace

std::string new_run_id() {
  std::random_device rd;
  const uint64_t v = (uint64_t(rd()) << 32) ^ uint64_t(rd());
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string config_differences(const RunSettings& theirs, const RunSettings& ours) {
  std::string out;
  auto add = [&](const std::string& name, const RunSetting* a, const RunSetting* b) {
    if (!out.empty()) out += ", ";
    out += name + " " + (a ? a->value : "(unset)") + " against " + (b ? b->value : "(unset)");
  };
  for (const auto& t : theirs) {
    const RunSetting* o = find_setting(ours, t.name);
    if (!o || o->value != t.value) add(t.name, &t, o);
  }
  for (const auto& o : ours) {
    if (!find_setting(theirs, o.name)) add(o.name, nullptr, &o);
  }
  return out;
}

record::Record run_record(const RunIdentity& run) {
  record::Record r;
  r.set("id", run.id);
  record::Record config;
  for (const auto& s : run.config) config.set(s.name, s.value);
  r.set("config", std::move(config));
  return r;
}

std::optional<RunIdentity> run_from_record(const record::Record& r, const std::string& file) {
  const record::Value* id = r.find("id");
  if (!id || id->kind() != record::EntryKind::String || !is_run_id(id->as_string()))
    throw record::record_error(kRunOp, file, "run.id", "missing or not a run id (16 hex digits)");
  RunIdentity run;
  run.id = id->as_string();
  const record::Value* config = r.find("config");
  if (!config || config->kind() != record::EntryKind::Group)
    throw record::record_error(kRunOp, file, "run.config", "missing or not a group");
  for (const auto& e : config->group().entries()) {
    if (e.value.kind() != record::EntryKind::String)
      throw record::record_error(kRunOp, file, "run.config." + e.name, "is not a string");
    run.config.push_back({e.name, e.value.as_string()});
  }
  return run;
}

std::optional<RunIdentity> read_checkpoint_run(const std::string& path) {
  const auto reader = record::open(path);
  if (!reader->find("run")) return std::nullopt;
  const record::Value run = reader->read("run");
  if (run.kind() != record::EntryKind::Group) throw record::record_error(kRunOp, path, "run", "is not a group");
  return run_from_record(run.group(), path);
}

std::string run_file_path(const std::string& dir) { return (fs::path(dir) / kRunFile).string(); }

std::optional<RunIdentity> read_run_file(const std::string& dir) {
  const std::string path = run_file_path(dir);
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) return std::nullopt;
  std::ifstream in(path);
  if (!in) throw ValueError(kRunOp, "'" + path + "': cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::ordered_json j;
  try {
    j = nlohmann::ordered_json::parse(text.str());
  } catch (const nlohmann::json::exception& e) {
    throw ValueError(kRunOp, "'" + path + "': not JSON (" + e.what() + ")");
  }
  if (!j.is_object()) throw ValueError(kRunOp, "'" + path + "': not a JSON object");
  RunIdentity run;
  if (!j.contains("run") || !j["run"].is_string() || !is_run_id(j["run"].get<std::string>()))
    throw ValueError(kRunOp, "'" + path + "': key 'run' is missing or not a run id (16 hex digits)");
  run.id = j["run"].get<std::string>();
  if (!j.contains("config") || !j["config"].is_object())
    throw ValueError(kRunOp, "'" + path + "': key 'config' is missing or not an object");
  for (const auto& [name, value] : j["config"].items()) {
    if (!value.is_string()) throw ValueError(kRunOp, "'" + path + "': key 'config." + name + "' is not a string");
    run.config.push_back({name, value.get<std::string>()});
  }
  return run;
}

void write_text_atomically(const std::string& path, const std::string& text, const char* op) {
  record::AtomicFile file(path);
  {
    record::OutputFile out(file.path(), op);
    out.write(text.data(), text.size());
    out.close();
  }
  file.commit();
}

void write_run_file(const std::string& dir, const RunIdentity& run) {
  nlohmann::ordered_json j;
  j["run"] = run.id;
  j["config"] = nlohmann::ordered_json::object();
  for (const auto& s : run.config) j["config"][s.name] = s.value;
  fs::create_directories(dir);
  write_text_atomically(run_file_path(dir), j.dump(2) + "\n", kRunOp);
}

std::string move_previous_run(const std::string& dir, const std::vector<std::string>& names,
                              const std::optional<RunIdentity>& previous) {
  std::vector<std::string> present;
  std::error_code ec;
  // run.json first: a move cut short leaves a folder without a run, never a run without its files.
  if (fs::exists(fs::symlink_status(run_file_path(dir), ec))) present.push_back(kRunFile);
  for (const auto& n : names) {
    if (n != kRunFile && fs::exists(fs::symlink_status(fs::path(dir) / n, ec))) present.push_back(n);
  }
  if (present.empty()) return "";
  const fs::path base = fs::path(dir) / "previous";
  const std::string stem = previous ? previous->id : "unnamed-" + utc_stamp();
  fs::path target = base / stem;
  for (int i = 2; fs::exists(fs::symlink_status(target, ec)); ++i) target = base / (stem + "-" + std::to_string(i));
  fs::create_directories(target, ec);
  if (ec)
    throw ValueError(kRunOp, "cannot create '" + target.string() + "' for the previous run's files: " + ec.message());
  for (const auto& n : present) {
    fs::rename(fs::path(dir) / n, target / n, ec);
    if (ec) {
      throw ValueError(kRunOp, "cannot move '" + (fs::path(dir) / n).string() + "' to '" + (target / n).string() +
                                   "': " + ec.message());
    }
  }
  return target.string();
}

}  // namespace burn::train
