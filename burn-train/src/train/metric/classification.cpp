// Accuracy, top-k accuracy, precision/recall/F-beta from confusion counts, and AUROC.
#include "burn/train/metric/classification.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "train/metric/host.hpp"

namespace burn::train {

using detail::check_target;
using detail::host_classification;
using detail::HostClassification;

namespace {

// The predicted class of row i: argmax (the first of equal maxima, as torch.argmax), or for one
// output column, output > threshold.
int64_t predict(const HostClassification& h, int64_t i, double threshold) {
  const float* r = h.row(i);
  if (h.classes == 1) return r[0] > threshold ? 1 : 0;
  return std::max_element(r, r + h.classes) - r;
}

MetricValue percent_value(const std::string& name, RunningMean& mean, int64_t hits, int64_t counted) {
  MetricValue v;
  v.current = counted > 0 ? 100.0 * static_cast<double>(hits) / static_cast<double>(counted) : std::nan("");
  if (counted > 0) mean.add(v.current, static_cast<double>(counted));
  v.running = mean.value();
  v.formatted = format_numeric(name, v.current, v.running, "%", 2);
  return v;
}

}  // namespace

MetricValue AccuracyMetric::update(const StepOutput& out, const MetricContext&) {
  const auto h = host_classification(out, "accuracy");
  int64_t hits = 0, counted = 0;
  for (int64_t i = 0; i < h.batch; ++i) {
    const int64_t t = h.targets[i];
    if (pad_ && t == *pad_) continue;
    check_target(h, t, "accuracy");
    ++counted;
    hits += predict(h, i, 0.5) == t;
  }
  return percent_value(name(), mean_, hits, counted);
}

TopKAccuracyMetric::TopKAccuracyMetric(int64_t k, std::optional<int64_t> pad_index) : k_(k), pad_(pad_index) {
  if (k < 1) throw ValueError("train.top_k_accuracy", "k must be at least 1, got " + std::to_string(k));
}

MetricValue TopKAccuracyMetric::update(const StepOutput& out, const MetricContext&) {
  const auto h = host_classification(out, "top_k_accuracy");
  int64_t hits = 0, counted = 0;
  for (int64_t i = 0; i < h.batch; ++i) {
    const int64_t t = h.targets[i];
    if (pad_ && t == *pad_) continue;
    check_target(h, t, "top_k_accuracy");
    ++counted;
    // The target is in the top k when fewer than k classes rank above it (ties: lower index first).
    const float* r = h.row(i);
    int64_t above = 0;
    for (int64_t c = 0; c < h.classes; ++c) above += r[c] > r[t] || (r[c] == r[t] && c < t);
    hits += above < k_;
  }
  return percent_value(name(), mean_, hits, counted);
}

// ---- precision, recall, F-beta ----

ConfusionMetric::ConfusionMetric(Score score, ClassDecision decision, double beta)
    : score_(score), decision_(decision), beta_(beta) {
  if (!(beta > 0)) throw ValueError("train.fbeta", "beta must be positive, got " + std::to_string(beta));
}

std::string ConfusionMetric::name() const {
  const std::string avg = decision_.average == ClassAverage::Micro ? " (micro)" : " (macro)";
  switch (score_) {
    case Score::Precision: return "Precision" + avg;
    case Score::Recall: return "Recall" + avg;
    case Score::FBeta: {
      char b[32];
      std::snprintf(b, sizeof b, "%g", beta_);
      return std::string("F") + b + " Score" + avg;
    }
  }
  return "?";
}

double ConfusionMetric::score(const std::vector<int64_t>& tp, const std::vector<int64_t>& fp,
                              const std::vector<int64_t>& fn) const {
  const double b2 = beta_ * beta_;
  // Scores of one class (or of the summed counts); a 0/0 ratio counts as 0, as torchmetrics does.
  auto of = [&](double t, double p, double n) {
    const double precision = t + p > 0 ? t / (t + p) : 0.0;
    const double recall = t + n > 0 ? t / (t + n) : 0.0;
    switch (score_) {
      case Score::Precision: return precision;
      case Score::Recall: return recall;
      case Score::FBeta: {
        const double d = b2 * precision + recall;
        return d > 0 ? (1 + b2) * precision * recall / d : 0.0;
      }
    }
    return 0.0;
  };
  if (decision_.average == ClassAverage::Micro) {
    const auto sum = [](const std::vector<int64_t>& v) {
      return static_cast<double>(std::accumulate(v.begin(), v.end(), int64_t{0}));
    };
    return 100.0 * of(sum(tp), sum(fp), sum(fn));
  }
  double total = 0;
  int64_t classes = 0;
  for (size_t c = 0; c < tp.size(); ++c) {
    if (tp[c] + fp[c] + fn[c] == 0) continue;  // a class neither predicted nor present
    total += of(static_cast<double>(tp[c]), static_cast<double>(fp[c]), static_cast<double>(fn[c]));
    ++classes;
  }
  return classes > 0 ? 100.0 * total / static_cast<double>(classes) : std::nan("");
}

MetricValue ConfusionMetric::update(const StepOutput& out, const MetricContext&) {
  const auto h = host_classification(out, "confusion");
  const size_t n = static_cast<size_t>(h.classes == 1 ? 2 : h.classes);
  std::vector<int64_t> tp(n, 0), fp(n, 0), fn(n, 0);
  for (int64_t i = 0; i < h.batch; ++i) {
    const int64_t t = h.targets[i];
    check_target(h, t, "confusion");
    const int64_t p = predict(h, i, decision_.threshold);
    if (p == t) {
      ++tp[t];
    } else {
      ++fp[p];
      ++fn[t];
    }
  }
  // Binary outputs score the positive class only (class 1), as binary precision/recall are defined.
  if (h.classes == 1) tp[0] = fp[0] = fn[0] = 0;
  if (tp_.size() < n) tp_.resize(n, 0), fp_.resize(n, 0), fn_.resize(n, 0);
  for (size_t c = 0; c < n; ++c) tp_[c] += tp[c], fp_[c] += fp[c], fn_[c] += fn[c];
  MetricValue v;
  v.current = score(tp, fp, fn);
  v.running = score(tp_, fp_, fn_);
  v.formatted = format_numeric(name(), v.current, v.running, "%", 2);
  return v;
}

std::unique_ptr<Metric> precision_metric(ClassDecision d) {
  return std::make_unique<ConfusionMetric>(ConfusionMetric::Score::Precision, d);
}
std::unique_ptr<Metric> recall_metric(ClassDecision d) {
  return std::make_unique<ConfusionMetric>(ConfusionMetric::Score::Recall, d);
}
std::unique_ptr<Metric> fbeta_metric(double beta, ClassDecision d) {
  return std::make_unique<ConfusionMetric>(ConfusionMetric::Score::FBeta, d, beta);
}

// ---- AUROC ----

namespace {

// The Mann-Whitney statistic of one class: P(score of a positive > score of a negative) + P(tie)/2,
// from the ranks of the sorted scores (average ranks for ties). NaN without both kinds.
double auroc_of(std::vector<std::pair<float, bool>>& items) {
  std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  double positive_rank_sum = 0;
  int64_t positives = 0;
  for (size_t i = 0; i < items.size();) {
    size_t j = i;
    while (j < items.size() && items[j].first == items[i].first) ++j;
    const double rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;  // mean of ranks i+1..j
    for (size_t k = i; k < j; ++k) {
      if (items[k].second) positive_rank_sum += rank, ++positives;
    }
    i = j;
  }
  const auto n = static_cast<int64_t>(items.size());
  const int64_t negatives = n - positives;
  if (positives == 0 || negatives == 0) return std::nan("");
  const double p = static_cast<double>(positives);
  return (positive_rank_sum - p * (p + 1) / 2.0) / (p * static_cast<double>(negatives));
}

}  // namespace

double auroc(const std::vector<float>& scores, const std::vector<int64_t>& targets, int64_t classes) {
  const size_t n = targets.size();
  if (classes < 1 || scores.size() != n * static_cast<size_t>(classes)) {
    throw ShapeError("train.auroc", std::to_string(scores.size()) + " scores for " + std::to_string(n) +
                                        " targets of " + std::to_string(classes) + " classes");
  }
  std::vector<std::pair<float, bool>> items(n);
  if (classes == 1) {
    for (size_t i = 0; i < n; ++i) items[i] = {scores[i], targets[i] == 1};
    return auroc_of(items);
  }
  double total = 0;
  int64_t counted = 0;
  for (int64_t c = 0; c < classes; ++c) {
    for (size_t i = 0; i < n; ++i)
      items[i] = {scores[i * static_cast<size_t>(classes) + static_cast<size_t>(c)], targets[i] == c};
    const double a = auroc_of(items);
    if (!std::isnan(a)) total += a, ++counted;
  }
  return counted > 0 ? total / static_cast<double>(counted) : std::nan("");
}

void AurocMetric::clear() {
  scores_.clear();
  targets_.clear();
  classes_ = 0;
  running_ = std::nan("");
  refreshed_items_ = 0;
}

MetricValue AurocMetric::update(const StepOutput& out, const MetricContext& ctx) {
  const auto h = host_classification(out, "auroc");
  if (classes_ != 0 && classes_ != h.classes) {
    throw ShapeError("train.auroc", "output of " + std::to_string(h.classes) + " classes after " +
                                        std::to_string(classes_) + " earlier in the epoch");
  }
  for (int64_t i = 0; i < h.batch; ++i) check_target(h, h.targets[i], "auroc");
  classes_ = h.classes;
  scores_.insert(scores_.end(), h.scores.begin(), h.scores.end());
  targets_.insert(targets_.end(), h.targets.begin(), h.targets.end());
  MetricValue v;
  v.current = 100.0 * auroc(h.scores, h.targets, h.classes);
  // Sorting the whole epoch every step would be quadratic: the epoch value is refreshed when the items
  // grew by a quarter since the last refresh, and at the epoch's last batch, so it is exact at the end.
  const auto items = static_cast<int64_t>(targets_.size());
  const bool last = ctx.items_total > 0 && ctx.items >= ctx.items_total;
  if (std::isnan(running_) || last || items >= refreshed_items_ + refreshed_items_ / 4 + 1) {
    running_ = 100.0 * auroc(scores_, targets_, classes_);
    refreshed_items_ = items;
  }
  v.running = running_;
  v.formatted = format_numeric(name(), v.current, v.running, "%", 2);
  return v;
}

}  // namespace burn::train
