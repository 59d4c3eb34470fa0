// The plain-line renderer and the duration/ETA formats the renderers share.
#include "burn/train/renderer.hpp"

#include <cmath>

namespace burn::train {

Renderer::~Renderer() = default;

std::string format_duration(double s) {
  char buf[64];
  if (!(s >= 0) || std::isinf(s)) return "?";
  if (s < 60) {
    std::snprintf(buf, sizeof buf, "%.1f s", s);
  } else if (s < 3600) {
    std::snprintf(buf, sizeof buf, "%d min %02d s", static_cast<int>(s / 60), static_cast<int>(s) % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%d h %02d min", static_cast<int>(s / 3600), static_cast<int>(s / 60) % 60);
  }
  return buf;
}

double eta_seconds(const StepStatus& st) {
  // The pace of this run only: a resumed epoch's earlier items took no time here.
  const int64_t done = st.items - st.items_start;
  if (st.items_total > 0 && done > 0 && st.elapsed_seconds > 0) {
    return st.elapsed_seconds * static_cast<double>(st.items_total - st.items) / static_cast<double>(done);
  }
  if (st.iterations > 0 && st.iteration > 0 && st.elapsed_seconds > 0) {
    return st.elapsed_seconds * static_cast<double>(st.iterations - st.iteration) / static_cast<double>(st.iteration);
  }
  return -1;
}

LogRenderer::LogRenderer(double every_seconds, std::FILE* out) : every_(every_seconds), out_(out) {}

void LogRenderer::step(const StepStatus& st, const std::vector<MetricView>& metrics) {
  const auto now = std::chrono::steady_clock::now();
  const bool edge = st.iteration == 1 || (st.iterations > 0 && st.iteration == st.iterations);
  if (!edge && printed_ && std::chrono::duration<double>(now - last_).count() < every_) return;
  last_ = now;
  printed_ = true;
  std::string line = "[";
  line.append(split_name(st.split)).append("] epoch ").append(std::to_string(st.epoch)).append("/");
  line.append(std::to_string(st.epochs)).append(" iteration ").append(std::to_string(st.iteration));
  if (st.iterations > 0) line.append("/").append(std::to_string(st.iterations));
  line.append(" items ").append(std::to_string(st.items)).append("/").append(std::to_string(st.items_total));
  const double eta = eta_seconds(st);
  if (eta >= 0) line += " eta " + format_duration(eta);
  for (const auto& m : metrics) line += " | " + m.value.formatted;
  std::fprintf(out_, "%s\n", line.c_str());
  std::fflush(out_);
}

void LogRenderer::end_epoch(Split split, int64_t epoch, const MetricHistory& history) {
  std::string line = std::string("[") + split_name(split) + "] epoch " + std::to_string(epoch) + " done:";
  for (const auto& name : history.metrics(split)) {
    const MetricSeries* s = history.find(split, name);
    const auto it = s->epochs.find(epoch);
    if (it == s->epochs.end()) continue;
    char v[64];
    std::snprintf(v, sizeof v, " %s %.4f%s%s;", name.c_str(), it->second, s->unit.empty() ? "" : " ", s->unit.c_str());
    line += v;
  }
  std::fprintf(out_, "%s\n", line.c_str());
  std::fflush(out_);
}

void LogRenderer::message(const std::string& text) {
  std::fprintf(out_, "%s\n", text.c_str());
  std::fflush(out_);
}

}  // namespace burn::train
