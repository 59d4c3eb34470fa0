// LR schedulers against torch.optim.lr_scheduler (fixtures/lr.json from gen_fixtures_optim.py), their
// configs as JSON, and their state through a Record saved with a recorder.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "burn/optim/lr.hpp"
#include "burn/record/recorder.hpp"
#include "fixture.hpp"

using namespace burn;

namespace {

const nlohmann::json& fixtures() { return burn::test::fixture("lr.json"); }

// The scheduler's first N lrs against torch's get_last_lr() before each of N steps.
void expect_lrs(optim::LrScheduler& s, const std::string& name) {
  const std::vector<double> want = fixtures()[name]["lrs"].get<std::vector<double>>();
  ASSERT_FALSE(want.empty());
  for (size_t i = 0; i < want.size(); ++i) {
    const double got = s.step();
    // torch updates most of these recursively (lr *= factor), so the last bits differ.
    EXPECT_NEAR(got, want[i], 1e-12 + 1e-9 * std::abs(want[i])) << name << " step " << i;
  }
}

std::string config(const std::string& name) { return fixtures()[name]["config"].dump(); }

}  // namespace

TEST(Lr, ConstantLinearStepExponentialCosineNoamMatchTorch) {
  optim::ConstantLr constant(0.3);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(constant.step(), 0.3);
  auto linear = optim::LinearLrSchedulerConfig::from_json(config("linear")).init();
  expect_lrs(linear, "linear");
  auto step = optim::StepLrSchedulerConfig::from_json(config("step")).init();
  expect_lrs(step, "step");
  auto exponential = optim::ExponentialLrSchedulerConfig::from_json(config("exponential")).init();
  expect_lrs(exponential, "exponential");
  auto cosine = optim::CosineAnnealingLrSchedulerConfig::from_json(config("cosine")).init();
  expect_lrs(cosine, "cosine");
  auto noam = optim::NoamLrSchedulerConfig::from_json(config("noam")).init();
  expect_lrs(noam, "noam");
}

TEST(Lr, WarmupThenCosineMatchesTorchSequentialLR) {
  auto warmup = std::make_shared<optim::LinearLrScheduler>(optim::LinearLrSchedulerConfig{0.01, 0.1, 8}.init());
  auto cosine =
      std::make_shared<optim::CosineAnnealingLrScheduler>(optim::CosineAnnealingLrSchedulerConfig{0.1, 0.0, 30}.init());
  optim::SequentialLr s({warmup, cosine}, {8});
  expect_lrs(s, "warmup_cosine");
}

TEST(Lr, ComposedProductMatchesTorchChainedScheduler) {
  auto decay = std::make_shared<optim::ExponentialLrScheduler>(optim::ExponentialLrSchedulerConfig{0.1, 0.95}.init());
  auto steps = std::make_shared<optim::StepLrScheduler>(optim::StepLrSchedulerConfig{1.0, 10, 0.5}.init());
  optim::ComposedLr s({decay, steps});
  expect_lrs(s, "chained");
  optim::ComposedLr sum({decay, steps}, optim::ComposedLr::Reduction::Sum);
  optim::ComposedLr avg({decay, steps}, optim::ComposedLr::Reduction::Avg);
  EXPECT_DOUBLE_EQ(sum.lr_at(10), 0.1 * std::pow(0.95, 10) + 0.5);
  EXPECT_DOUBLE_EQ(avg.lr_at(10), (0.1 * std::pow(0.95, 10) + 0.5) / 2);
}

TEST(Lr, StateResumesThroughARecorder) {
  auto make = [] {
    auto warmup = std::make_shared<optim::LinearLrScheduler>(optim::LinearLrSchedulerConfig{0.01, 0.1, 8}.init());
    auto cosine = std::make_shared<optim::CosineAnnealingLrScheduler>(
        optim::CosineAnnealingLrSchedulerConfig{0.1, 0.0, 30}.init());
    return optim::SequentialLr({warmup, cosine}, {8});
  };
  optim::SequentialLr straight = make(), first = make();
  std::vector<double> want;
  for (int i = 0; i < 20; ++i) want.push_back(straight.step());
  for (int i = 0; i < 13; ++i) first.step();
  const std::string file =
      (std::filesystem::temp_directory_path() / ("burn_lr_" + std::to_string(::getpid()) + ".bpz")).string();
  record::save(file, first.to_record());
  optim::SequentialLr resumed = make();
  resumed.load_record(record::load(file));
  std::filesystem::remove(file);
  EXPECT_EQ(resumed.iteration(), 13);
  for (int i = 13; i < 20; ++i) EXPECT_EQ(resumed.step(), want[i]) << i;  // bit for bit

  optim::ConstantLr other(0.1);
  try {
    other.load_record(first.to_record());
    FAIL() << "a sequential scheduler's state loaded into a constant one must throw";
  } catch (const RecordError& e) {
    EXPECT_NE(std::string(e.what()).find("'constant' scheduler (scheduler: 'sequential')"), std::string::npos)
        << e.what();
  }
  record::Record bad = first.to_record();
  bad.set("iteration", int64_t{-1});
  EXPECT_THROW(resumed.load_record(bad), RecordError);
}

TEST(Lr, ConfigsRoundTripAndRefuseBadValues) {
  const optim::CosineAnnealingLrSchedulerConfig c{.initial_lr = 0.5, .min_lr = 0.01, .num_iters = 100};
  const auto back = optim::CosineAnnealingLrSchedulerConfig::from_json(c.to_json());
  EXPECT_EQ(back.initial_lr, 0.5);
  EXPECT_EQ(back.min_lr, 0.01);
  EXPECT_EQ(back.num_iters, 100);
  EXPECT_EQ(optim::StepLrSchedulerConfig::from_json(R"({"initial_lr": 1})").gamma, 0.1);
  EXPECT_THROW(optim::NoamLrSchedulerConfig::from_json(R"({"warmup": 3})"), ValueError);
  EXPECT_THROW((optim::LinearLrSchedulerConfig{0.1, 0.01, 0}.init()), ValueError);
  EXPECT_THROW((optim::CosineAnnealingLrSchedulerConfig{0.1, 0.2, 10}.init()), ValueError);
  EXPECT_THROW((optim::ExponentialLrSchedulerConfig{0.1, 1.5}.init()), ValueError);
  EXPECT_THROW((optim::NoamLrSchedulerConfig{1.0, 0, 512}.init()), ValueError);
  auto s = std::make_shared<optim::ConstantLr>(0.1);
  EXPECT_THROW(optim::SequentialLr({s, s}, {}), ValueError);
  EXPECT_THROW(optim::SequentialLr({s, s, s}, {5, 5}), ValueError);
  EXPECT_THROW(optim::ComposedLr({}), ValueError);
}
