// Metrics against values worked out by hand and against a brute-force AUROC (every pair counted).
#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <thread>

#include "burn/train/metric/classification.hpp"
#include "burn/train/metric/system.hpp"

namespace {

using namespace burn;
using namespace burn::train;

Device cpu() { return Device::get("cpu"); }

StepOutput classification(const std::vector<float>& scores, int64_t classes, const std::vector<int64_t>& targets) {
  StepOutput out;
  const auto n = static_cast<int64_t>(targets.size());
  out.output = Tensor<2>::from_vector(scores, Shape{n, classes}, cpu());
  out.targets = Tensor<1, Int>::from_vector(targets, Shape{n}, cpu());
  return out;
}

// One-hot-like scores whose argmax is `preds`.
StepOutput predicted(const std::vector<int64_t>& preds, int64_t classes, const std::vector<int64_t>& targets) {
  std::vector<float> s(preds.size() * static_cast<size_t>(classes), 0.0f);
  for (size_t i = 0; i < preds.size(); ++i) s[i * static_cast<size_t>(classes) + static_cast<size_t>(preds[i])] = 1.0f;
  return classification(s, classes, targets);
}

TEST(Metric, AccuracyCountsArgmaxHitsAndSkipsThePadIndex) {
  AccuracyMetric acc;
  const auto v = acc.update(predicted({0, 1, 2, 2}, 3, {0, 1, 1, 2}), {});
  EXPECT_DOUBLE_EQ(v.current, 75.0);
  const auto w = acc.update(predicted({0, 0}, 3, {1, 2}), {});
  EXPECT_DOUBLE_EQ(w.current, 0.0);
  EXPECT_DOUBLE_EQ(w.running, 50.0);  // 3 of 6 items
  EXPECT_NE(w.formatted.find("Accuracy 0.00 % (epoch 50.00 %)"), std::string::npos) << w.formatted;
  acc.clear();
  EXPECT_DOUBLE_EQ(acc.update(predicted({1}, 3, {1}), {}).running, 100.0);

  AccuracyMetric padded(/*pad_index=*/2);
  EXPECT_NEAR(padded.update(predicted({0, 1, 0, 0}, 3, {0, 2, 1, 2}), {}).current, 50.0, 1e-12);
}

TEST(Metric, TopKAccuracyBreaksTiesTowardsTheLowerIndex) {
  TopKAccuracyMetric top2(2);
  // Row 0: target 2 is third; row 1: target 0 ties with class 1 for first; row 2: class 1 ties class 2
  // for second place and wins it, so target 2 is out.
  const auto v = top2.update(classification({0.5f, 0.4f, 0.1f, 0.7f, 0.7f, 0.0f, 0.9f, 0.3f, 0.3f}, 3, {2, 0, 2}), {});
  EXPECT_NEAR(v.current, 100.0 / 3.0, 1e-9);
  EXPECT_THROW(TopKAccuracyMetric(0), ValueError);
}

TEST(Metric, PrecisionRecallF1MacroAndMicroFromConfusionCounts) {
  // Per class: c0 tp1 fp1 fn1; c1 tp2 fp1 fn0; c2 tp1 fp0 fn1 (worked out by hand).
  const auto step = predicted({0, 1, 1, 1, 0, 2}, 3, {0, 0, 1, 1, 2, 2});
  EXPECT_NEAR(precision_metric()->update(step, {}).current, 100.0 * (0.5 + 2.0 / 3.0 + 1.0) / 3.0, 1e-9);
  EXPECT_NEAR(recall_metric()->update(step, {}).current, 100.0 * (0.5 + 1.0 + 0.5) / 3.0, 1e-9);
  EXPECT_NEAR(fbeta_metric(1.0)->update(step, {}).current, 100.0 * (0.5 + 0.8 + 2.0 / 3.0) / 3.0, 1e-9);
  // F2 of c1: 5 * (2/3 * 1) / (4 * 2/3 + 1) = 10/11.
  const double f2 = (0.5 + 10.0 / 11.0 + 5.0 * 0.5 / (4.0 + 0.5)) / 3.0;
  EXPECT_NEAR(fbeta_metric(2.0)->update(step, {}).current, 100.0 * f2, 1e-9);
  ClassDecision micro{ClassAverage::Micro};
  EXPECT_NEAR(precision_metric(micro)->update(step, {}).current, 100.0 * 4.0 / 6.0, 1e-9);
  EXPECT_NEAR(fbeta_metric(1.0, micro)->update(step, {}).current, 100.0 * 4.0 / 6.0, 1e-9);
}

TEST(Metric, ConfusionRunningValueComesFromTheEpochCountsNotABatchMean) {
  auto recall = recall_metric({ClassAverage::Micro});
  recall->update(predicted({0, 0, 0, 0}, 2, {0, 0, 0, 0}), {});     // 4 of 4
  const auto v = recall->update(predicted({0, 0}, 2, {1, 1}), {});  // 0 of 2
  EXPECT_DOUBLE_EQ(v.current, 0.0);
  EXPECT_NEAR(v.running, 100.0 * 4.0 / 6.0, 1e-9);  // not (100 + 0) / 2
}

TEST(Metric, BinaryPrecisionUsesTheThresholdAndThePositiveClass) {
  ClassDecision d{ClassAverage::Macro, 0.0};  // logits: positive above 0
  // Predictions 1,1,0,0 for targets 1,0,1,0: positive class tp1 fp1 fn1.
  const auto step = classification({2.0f, 0.5f, -1.0f, -3.0f}, 1, {1, 0, 1, 0});
  EXPECT_NEAR(precision_metric(d)->update(step, {}).current, 50.0, 1e-9);
  EXPECT_NEAR(recall_metric(d)->update(step, {}).current, 50.0, 1e-9);
}

// Every (positive, negative) pair: 1 when the positive scores higher, 1/2 on a tie.
double brute_force_auroc(const std::vector<float>& s, const std::vector<int64_t>& t, int64_t classes) {
  double total = 0;
  int counted = 0;
  for (int64_t c = 0; c < (classes == 1 ? 1 : classes); ++c) {
    double wins = 0, pairs = 0;
    for (size_t i = 0; i < t.size(); ++i) {
      for (size_t j = 0; j < t.size(); ++j) {
        const bool pi = classes == 1 ? t[i] == 1 : t[i] == c, pj = classes == 1 ? t[j] == 1 : t[j] == c;
        if (!pi || pj) continue;
        const float a = s[i * classes + c], b = s[j * classes + c];
        wins += a > b ? 1.0 : a == b ? 0.5 : 0.0;
        pairs += 1;
      }
    }
    if (pairs > 0) total += wins / pairs, ++counted;
  }
  return total / counted;
}

TEST(Metric, AurocMatchesTheClassicExampleAndEveryPairCounted) {
  EXPECT_NEAR(auroc({0.1f, 0.4f, 0.35f, 0.8f}, {0, 0, 1, 1}, 1), 0.75, 1e-12);
  std::mt19937 rng(7);
  for (int64_t classes : {1, 4}) {
    std::vector<float> s;
    std::vector<int64_t> t;
    for (int i = 0; i < 300; ++i) {
      t.push_back(static_cast<int64_t>(rng() % (classes == 1 ? 2 : classes)));
      // Scores on a coarse grid, so that ties happen.
      for (int64_t c = 0; c < classes; ++c) s.push_back(static_cast<float>(rng() % 20) / 4.0f + (t.back() == c));
    }
    EXPECT_NEAR(auroc(s, t, classes), brute_force_auroc(s, t, classes), 1e-12) << classes << " classes";
  }
}

TEST(Metric, AurocEpochValueIsOverEveryItemAndExactAtTheLastBatch) {
  AurocMetric m;
  std::vector<float> all_s;
  std::vector<int64_t> all_t;
  std::mt19937 rng(11);
  MetricValue v;
  const int batches = 20, batch = 16;
  for (int b = 0; b < batches; ++b) {
    std::vector<float> s;
    std::vector<int64_t> t;
    for (int i = 0; i < batch; ++i) {
      t.push_back(static_cast<int64_t>(rng() % 2));
      s.push_back(static_cast<float>(rng() % 100) / 100.0f + 0.3f * static_cast<float>(t.back()));
    }
    all_s.insert(all_s.end(), s.begin(), s.end());
    all_t.insert(all_t.end(), t.begin(), t.end());
    MetricContext ctx;
    ctx.items = (b + 1) * batch;
    ctx.items_total = batches * batch;
    v = m.update(classification(s, 1, t), ctx);
    EXPECT_NEAR(v.current, 100.0 * brute_force_auroc(s, t, 1), 1e-9);
  }
  EXPECT_NEAR(v.running, 100.0 * brute_force_auroc(all_s, all_t, 1), 1e-9);
}

TEST(Metric, ClassificationMetricsNameTheMissingFieldAndBadTargets) {
  StepOutput empty;
  try {
    AccuracyMetric().update(empty, {});
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("output"), std::string::npos) << e.what();
  }
  try {
    AccuracyMetric().update(predicted({0}, 3, {5}), {});
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("target 5"), std::string::npos) << e.what();
  }
  StepOutput mismatch = predicted({0, 1}, 3, {0, 1});
  mismatch.targets = Tensor<1, Int>::from_vector(std::vector<int64_t>{0, 1, 2}, Shape{3}, cpu());
  EXPECT_THROW(AccuracyMetric().update(mismatch, {}), ShapeError);
  EXPECT_THROW(LossMetric().update(empty, {}), ValueError);
}

TEST(Metric, LossRunningValueIsWeightedByTheBatchSize) {
  LossMetric loss;
  StepOutput a;
  a.loss = Tensor<1>::from_list({2.0f}, cpu());
  a.batch_size = 30;
  StepOutput b;
  b.loss = Tensor<1>::from_list({4.0f}, cpu());
  b.batch_size = 10;
  loss.update(a, {});
  const auto v = loss.update(b, {});
  EXPECT_DOUBLE_EQ(v.current, 4.0);
  EXPECT_DOUBLE_EQ(v.running, 2.5);
}

TEST(Metric, SystemMetricsMeasureTheProcess) {
  MetricContext ctx;
  ctx.lr = 3e-4;
  EXPECT_DOUBLE_EQ(LearningRateMetric().update({}, ctx).current, 3e-4);

  // 100 items in 200 ms of sleep: about 500 items/s (wide bounds: a loaded machine sleeps longer).
  IterationSpeedMetric speed;
  ctx.items = 0;
  speed.update({}, ctx);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ctx.items = 100;
  const auto v = speed.update({}, ctx);
  EXPECT_GT(v.current, 100.0);
  EXPECT_LT(v.current, 501.0);

  // Busy for 100 ms on one thread, then the CPU share is above zero and at most 100 %.
  CpuUseMetric cpu_use;
  cpu_use.update({}, ctx);
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
  volatile double sink = 0;
  while (std::chrono::steady_clock::now() < until) sink = sink + 1.0;
  const auto c = cpu_use.update({}, ctx);
  EXPECT_GT(c.current, 0.0);
  EXPECT_LE(c.current, 100.5);

  // 64 MB touched raise the resident set by about that much.
  MemoryMetric mem;
  const double before = mem.update({}, ctx).current;
  std::vector<char> block(64 << 20, 1);
  const auto m = mem.update({}, ctx);
  EXPECT_GT(m.current - before, 50.0) << block[12345];
  EXPECT_GE(m.running, m.current);
}

}  // namespace
