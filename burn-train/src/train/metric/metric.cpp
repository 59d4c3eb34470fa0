// The running mean, the common numeric format, and reading a step's output on the host.
#include "burn/train/metric/metric.hpp"

#include <cmath>
#include <cstdio>

#include "train/metric/host.hpp"

namespace burn::train {

Metric::~Metric() = default;

void RunningMean::add(double value, double weight) {
  sum_ += value * weight;
  weight_ += weight;
}

double RunningMean::value() const { return weight_ > 0 ? sum_ / weight_ : std::nan(""); }

std::string format_numeric(const std::string& name, double current, double running, const std::string& unit,
                           int precision) {
  const std::string u = unit.empty() ? "" : " " + unit;
  char buf[128];
  std::snprintf(buf, sizeof buf, "%.*f%s (epoch %.*f%s)", precision, current, u.c_str(), precision, running, u.c_str());
  return name + " " + buf;
}

int64_t batch_size_of(const StepOutput& out) {
  if (out.batch_size > 0) return out.batch_size;
  if (out.targets) return out.targets->dim(0);
  if (out.output) return out.output->dim(0);
  return 1;
}

namespace detail {

HostClassification host_classification(const StepOutput& out, const std::string& metric) {
  if (!out.output) throw ValueError("train." + metric, "the step's StepOutput has no `output` ([batch, classes])");
  if (!out.targets) throw ValueError("train." + metric, "the step's StepOutput has no `targets` ([batch])");
  const auto& od = out.output->shape();
  const auto& td = out.targets->shape();
  if (od[0] != td[0]) {
    throw ShapeError("train." + metric, "output " + out.output->shape().to_string() + " and targets " +
                                            out.targets->shape().to_string() + " have different batch sizes");
  }
  HostClassification h;
  h.batch = od[0];
  h.classes = od[1];
  h.scores = out.output->to_vec<float>();
  h.targets = out.targets->to_vec<int64_t>();
  return h;
}

void check_target(const HostClassification& h, int64_t target, const std::string& metric) {
  const int64_t hi = h.classes == 1 ? 2 : h.classes;  // one output column: binary targets 0/1
  if (target < 0 || target >= hi) {
    throw ValueError("train." + metric, "target " + std::to_string(target) + " is outside [0, " + std::to_string(hi) +
                                            ") for an output of " + std::to_string(h.classes) + " classes");
  }
}

}  // namespace detail
}  // namespace burn::train
