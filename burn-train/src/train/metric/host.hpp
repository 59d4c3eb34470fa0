// Internal: a classification step's output and targets copied to the host, where the metrics count.
#pragma once

#include <string>
#include <vector>

#include "burn/train/metric/metric.hpp"

namespace burn::train::detail {

struct HostClassification {
  int64_t batch = 0, classes = 0;
  std::vector<float> scores;  // [batch, classes] row-major
  std::vector<int64_t> targets;
  const float* row(int64_t i) const { return scores.data() + i * classes; }
};

// ValueError/ShapeError naming the metric when the step lacks output or targets or they disagree.
HostClassification host_classification(const StepOutput& out, const std::string& metric);
// ValueError naming the metric when a target is not a class of the output.
void check_target(const HostClassification& h, int64_t target, const std::string& metric);

}  // namespace burn::train::detail
