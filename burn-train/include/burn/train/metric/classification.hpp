// Classification metrics over [batch, classes] outputs and [batch] class targets: accuracy (with a
// pad index), top-k accuracy, precision, recall, F-beta (micro or macro) and AUROC.
#pragma once

#include <cmath>
#include <vector>

#include "burn/train/metric/metric.hpp"

namespace burn::train {

// Share of items whose argmax is the target, in percent; targets equal to pad_index are left out.
class BURN_TRAIN_API AccuracyMetric : public Metric {
 public:
  explicit AccuracyMetric(std::optional<int64_t> pad_index = std::nullopt) : pad_(pad_index) {}
  std::string name() const override { return "Accuracy"; }
  MetricValue update(const StepOutput& out, const MetricContext& ctx) override;
  void clear() override { mean_.clear(); }
  bool higher_is_better() const override { return true; }
  std::string unit() const override { return "%"; }

 private:
  std::optional<int64_t> pad_;
  RunningMean mean_;
};

// Share of items whose target is among the k highest outputs, in percent (ties: the lower index).
class BURN_TRAIN_API TopKAccuracyMetric : public Metric {
 public:
  explicit TopKAccuracyMetric(int64_t k, std::optional<int64_t> pad_index = std::nullopt);
  std::string name() const override { return "Top-" + std::to_string(k_) + " Accuracy"; }
  MetricValue update(const StepOutput& out, const MetricContext& ctx) override;
  void clear() override { mean_.clear(); }
  bool higher_is_better() const override { return true; }
  std::string unit() const override { return "%"; }

 private:
  int64_t k_;
  std::optional<int64_t> pad_;
  RunningMean mean_;
};

// Micro: one score from the counts of every class (for single-label multiclass, precision = recall =
// accuracy). Macro: the mean of per-class scores over classes seen (as predicted or as target).
enum class ClassAverage { Micro, Macro };

// How outputs become predictions: the argmax of the classes, or, for one output column (binary),
// output > threshold (of the raw output: pass probabilities or set threshold 0 for logits).
struct ClassDecision {
  ClassAverage average = ClassAverage::Macro;
  double threshold = 0.5;  // binary outputs only
};

// Confusion counts per class, accumulated over the epoch; the running value is computed from the
// epoch's counts (not a mean of batch scores), the current value from the batch's.
class BURN_TRAIN_API ConfusionMetric : public Metric {
 public:
  enum class Score { Precision, Recall, FBeta };
  ConfusionMetric(Score score, ClassDecision decision, double beta = 1.0);
  std::string name() const override;
  MetricValue update(const StepOutput& out, const MetricContext& ctx) override;
  void clear() override { tp_.clear(), fp_.clear(), fn_.clear(); }
  bool higher_is_better() const override { return true; }
  std::string unit() const override { return "%"; }

 private:
  double score(const std::vector<int64_t>& tp, const std::vector<int64_t>& fp, const std::vector<int64_t>& fn) const;
  Score score_;
  ClassDecision decision_;
  double beta_;
  std::vector<int64_t> tp_, fp_, fn_;  // per class, this epoch
};

BURN_TRAIN_API std::unique_ptr<Metric> precision_metric(ClassDecision decision = {});
BURN_TRAIN_API std::unique_ptr<Metric> recall_metric(ClassDecision decision = {});
BURN_TRAIN_API std::unique_ptr<Metric> fbeta_metric(double beta, ClassDecision decision = {});

// Area under the ROC curve, in percent. One output column: binary (targets 0/1, higher output =
// positive); several: one-vs-rest per class, averaged over the classes that have both positives and
// negatives. Ties count one half (the Mann-Whitney statistic). The running value is over every item
// of the epoch so far, not a mean of batch AUROCs; it is recomputed when the epoch's items grew by a
// quarter and at the epoch's last batch (MetricContext::items reaching items_total), so it is exact
// at the end of an epoch and costs O(n log n) per epoch overall.
class BURN_TRAIN_API AurocMetric : public Metric {
 public:
  std::string name() const override { return "AUROC"; }
  MetricValue update(const StepOutput& out, const MetricContext& ctx) override;
  void clear() override;
  bool higher_is_better() const override { return true; }
  std::string unit() const override { return "%"; }

 private:
  std::vector<float> scores_;     // [items, classes] row-major, this epoch
  std::vector<int64_t> targets_;  // [items]
  int64_t classes_ = 0;
  double running_ = std::nan("");
  int64_t refreshed_items_ = 0;
};

// AUROC of scores [n, classes] (row-major) against class targets, as AurocMetric computes it; NaN
// when no class has both positives and negatives.
BURN_TRAIN_API double auroc(const std::vector<float>& scores, const std::vector<int64_t>& targets, int64_t classes);

}  // namespace burn::train
