// The metric history (event store), its summary, its record for checkpoints, and the CSV files.
#include "burn/train/history.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>

#include "burn/tensor/error.hpp"
#include "burn/train/run.hpp"

namespace burn::train {

const char* split_name(Split s) {
  switch (s) {
    case Split::Train: return "train";
    case Split::Valid: return "valid";
    case Split::Test: return "test";
  }
  return "?";
}

MetricSeries& MetricHistory::series(Split split, const std::string& metric) {
  SplitData& d = splits_[split];
  auto it = d.series.find(metric);
  if (it == d.series.end()) {
    d.order.push_back(metric);
    it = d.series.emplace(metric, MetricSeries{}).first;
  }
  return it->second;
}

void MetricHistory::declare(Split split, const std::string& metric, bool higher_is_better, const std::string& unit) {
  MetricSeries& s = series(split, metric);
  s.higher_is_better = higher_is_better;
  s.unit = unit;
}

void MetricHistory::add_step(Split split, const std::string& metric, int64_t epoch, int64_t iteration, double value) {
  series(split, metric).steps.push_back({epoch, iteration, value});
}

void MetricHistory::end_epoch(Split split, const std::string& metric, int64_t epoch, double value) {
  series(split, metric).epochs[epoch] = value;
}

const MetricSeries* MetricHistory::find(Split split, const std::string& metric) const {
  const auto d = splits_.find(split);
  if (d == splits_.end()) return nullptr;
  const auto it = d->second.series.find(metric);
  return it == d->second.series.end() ? nullptr : &it->second;
}

std::vector<std::string> MetricHistory::metrics(Split split) const {
  const auto d = splits_.find(split);
  return d == splits_.end() ? std::vector<std::string>{} : d->second.order;
}

std::optional<std::pair<int64_t, double>> MetricHistory::best(Split split, const std::string& metric) const {
  const MetricSeries* s = find(split, metric);
  if (!s) return std::nullopt;
  std::optional<std::pair<int64_t, double>> best;
  for (const auto& [epoch, v] : s->epochs) {
    if (std::isnan(v)) continue;
    // Strictly better: on a tie the earlier epoch stays the best.
    if (!best || (s->higher_is_better ? v > best->second : v < best->second)) best = {epoch, v};
  }
  return best;
}

int64_t MetricHistory::epochs_since_best(Split split, const std::string& metric) const {
  const MetricSeries* s = find(split, metric);
  const auto b = best(split, metric);
  if (!s || !b || s->epochs.empty()) return 0;
  return s->epochs.rbegin()->first - b->first;
}

std::vector<MetricSummary> MetricHistory::summary() const {
  std::vector<MetricSummary> out;
  for (const auto& [split, d] : splits_) {
    for (const auto& name : d.order) {
      const MetricSeries& s = d.series.at(name);
      const auto b = best(split, name);
      if (!b) continue;
      MetricSummary m{split_name(split),       name, s.unit, b->second, s.epochs.rbegin()->second, b->first,
                      s.epochs.rbegin()->first};
      out.push_back(m);
    }
  }
  return out;
}

std::string MetricHistory::summary_table() const {
  const auto rows = summary();
  size_t w = 6;
  for (const auto& r : rows) w = std::max(w, r.metric.size());
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "%-5s  %-*s  %22s  %22s\n", "split", static_cast<int>(w), "metric", "best (epoch)",
                "last (epoch)");
  out += line;
  for (const auto& r : rows) {
    char best[64], last[64];
    std::snprintf(best, sizeof best, "%.6g %s (%lld)", r.best, r.unit.c_str(), static_cast<long long>(r.best_epoch));
    std::snprintf(last, sizeof last, "%.6g %s (%lld)", r.last, r.unit.c_str(), static_cast<long long>(r.last_epoch));
    std::snprintf(line, sizeof line, "%-5s  %-*s  %22s  %22s\n", r.split.c_str(), static_cast<int>(w), r.metric.c_str(),
                  best, last);
    out += line;
  }
  return out;
}

// Layout: <split>/<index>/{name, unit, higher_is_better, epochs: f64 [n], values: f64 [n]}; an
// index rather than the metric's name, since names hold spaces and dots.
record::Record MetricHistory::to_record() const {
  record::Record rec;
  for (const auto& [split, d] : splits_) {
    record::Record group;
    for (size_t i = 0; i < d.order.size(); ++i) {
      const MetricSeries& s = d.series.at(d.order[i]);
      record::Record m;
      m.set("name", d.order[i]);
      m.set("unit", s.unit);
      m.set("higher_is_better", s.higher_is_better);
      std::vector<double> epochs, values;
      for (const auto& [e, v] : s.epochs) epochs.push_back(static_cast<double>(e)), values.push_back(v);
      const auto n = static_cast<int64_t>(epochs.size());
      m.set("epochs", TensorData::from_vector(epochs, Shape{n}));
      m.set("values", TensorData::from_vector(values, Shape{n}));
      group.set(std::to_string(i), std::move(m));
    }
    rec.set(split_name(split), std::move(group));
  }
  return rec;
}

void MetricHistory::load_record(const record::Record& rec) {
  splits_.clear();
  for (const Split split : {Split::Train, Split::Valid, Split::Test}) {
    const record::Value* g = rec.find(split_name(split));
    if (!g) continue;
    for (const auto& e : g->group().entries()) {
      const record::Record& m = e.value.group();
      const std::string name = m.at("name").as_string();
      declare(split, name, m.at("higher_is_better").as_bool(), m.at("unit").as_string());
      const auto epochs = m.at("epochs").tensor().to_vec<double>();
      const auto values = m.at("values").tensor().to_vec<double>();
      if (epochs.size() != values.size()) {
        throw RecordError("train.history", "metric '" + name + "' has " + std::to_string(epochs.size()) +
                                               " epochs and " + std::to_string(values.size()) + " values");
      }
      for (size_t i = 0; i < epochs.size(); ++i) end_epoch(split, name, static_cast<int64_t>(epochs[i]), values[i]);
    }
  }
}

// ---- CSV ----

namespace {

// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string number(double v) {
  if (std::isnan(v)) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

}  // namespace

void write_metric_csv(const MetricHistory& history, const std::string& dir, Split split, int64_t epoch) {
  const std::filesystem::path folder = std::filesystem::path(dir) / split_name(split);
  std::filesystem::create_directories(folder);
  const auto names = history.metrics(split);

  std::string steps = "epoch,iteration";
  std::string epochs = "epoch";
  for (const auto& n : names) {
    const std::string field = csv_field(n);
    steps.append(",").append(field);
    epochs.append(",").append(field);
  }
  steps += "\n", epochs += "\n";

  // Rows keyed by iteration: every metric is updated at every step, but a metric added later or
  // skipped leaves its cell empty rather than shifting the columns.
  std::map<int64_t, std::vector<double>> rows;
  std::set<int64_t> epoch_numbers;
  for (size_t m = 0; m < names.size(); ++m) {
    const MetricSeries* s = history.find(split, names[m]);
    for (const auto& p : s->steps) {
      if (p.epoch != epoch) continue;
      auto& row = rows[p.iteration];
      row.resize(names.size(), std::nan(""));
      row[m] = p.value;
    }
    for (const auto& [e, v] : s->epochs) epoch_numbers.insert(e);
  }
  for (const auto& [it, row] : rows) {
    steps.append(std::to_string(epoch)).append(",").append(std::to_string(it));
    for (double v : row) steps.append(",").append(number(v));
    steps += "\n";
  }
  for (const int64_t e : epoch_numbers) {
    epochs += std::to_string(e);
    for (const auto& n : names) {
      const auto& ev = history.find(split, n)->epochs;
      const auto it = ev.find(e);
      epochs.append(",");
      if (it != ev.end()) epochs.append(number(it->second));
    }
    epochs += "\n";
  }
  write_text_atomically((folder / ("epoch-" + std::to_string(epoch) + ".csv")).string(), steps, "train.csv");
  write_text_atomically((folder / "epochs.csv").string(), epochs, "train.csv");
}

}  // namespace burn::train
