// A tiny classifier with dropout, its synthetic data and one training run, shared by the Learner
// tests and the helper process that trains the first half of a resumed run.
#pragma once

#include <burn/nn.hpp>
#include <burn/optim.hpp>
#include <random>

#include "burn/train/learner.hpp"
#include "burn/train/metric/classification.hpp"
#include "burn/train/metric/system.hpp"

namespace learner_fixture {

using namespace burn;

struct Net {
  nn::Linear a, b;
  nn::Dropout drop;
  BURN_MODULE(a, b, drop)
  Tensor<2> forward(const Tensor<2>& x) const { return b.forward(drop.forward(a.forward(x).relu())); }
};

struct Item {
  std::vector<float> x;
  int64_t y = 0;
};
struct Batch {
  Tensor<2> x;
  Tensor<1, Int> y;
};

// Points in 8-d whose class (of 3) is the argmax of a fixed linear map: learnable in a few epochs.
inline std::vector<Item> make_items(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<Item> items(n);
  for (auto& it : items) {
    it.x.resize(8);
    for (float& v : it.x) v = normal(rng);
    const float s[3] = {it.x[0] + it.x[1] - it.x[2], it.x[3] - it.x[4] + 0.5f * it.x[5], it.x[6] + it.x[7] - it.x[0]};
    it.y = std::max_element(s, s + 3) - s;
  }
  return items;
}

class NetBatcher : public data::Batcher<Item, Batch> {
 public:
  explicit NetBatcher(Device d) : d_(std::move(d)) {}
  Batch batch(std::vector<Item> items) const override {
    std::vector<float> x;
    std::vector<int64_t> y;
    for (const auto& it : items) x.insert(x.end(), it.x.begin(), it.x.end()), y.push_back(it.y);
    const auto n = static_cast<int64_t>(items.size());
    return {Tensor<2>::from_vector(x, Shape{n, 8}, d_), Tensor<1, Int>::from_vector(y, Shape{n}, d_)};
  }

 private:
  Device d_;
};

struct Run {
  std::string artifact_dir;
  int64_t epochs = 4;
  bool resume = false;
  std::optional<int64_t> checkpoint_every;
  int64_t grad_accumulation = 1;
  uint64_t seed = 5;
  std::optional<train::EarlyStopping> early_stopping;
  double lr = 3e-2;
  int64_t stop_after_steps = 0;  // > 0: the interrupter fires after this many steps of this run
  size_t train_items = 96;
  size_t batch_size = 16;
  std::vector<std::string>* messages = nullptr;        // when set, the learner's messages are appended
  std::shared_ptr<train::DataParallel> data_parallel;  // set: the loaders read this rank's shard
  std::optional<train::MixedPrecision> mixed_precision;
};

// Trains the Net with Adam and a cosine schedule (2 loader workers, shuffled) and returns the learner's
// fit result with the trained model's parameters.
struct Outcome {
  train::FitResult result;
  std::vector<std::vector<float>> params;
  std::vector<train::MetricSummary> summary;
  int64_t scheduler_steps = 0;
  std::vector<DType> param_dtypes;
  DType train_logits_dtype = DType::F32;  // of the last train step
};

inline std::vector<std::vector<float>> param_values(Net& net) {
  std::vector<std::vector<float>> out;
  for (const auto& p : nn::named_params(net)) out.push_back(api::into_data(p.param->handle()).to_vec<float>());
  return out;
}

// Stops the run through its interrupter after N train steps (0: never) and keeps the messages.
class StopAfter : public train::Renderer {
 public:
  StopAfter(int64_t steps, train::Interrupter& i, std::vector<std::string>* messages)
      : left_(steps), interrupter_(i), messages_(messages) {}
  void step(const train::StepStatus& st, const std::vector<train::MetricView>&) override {
    if (st.split == train::Split::Train && --left_ == 0) interrupter_.stop();
  }
  void end_epoch(train::Split, int64_t, const train::MetricHistory&) override {}
  void message(const std::string& m) override {
    if (messages_) messages_->push_back(m);
  }

 private:
  int64_t left_;
  train::Interrupter& interrupter_;
  std::vector<std::string>* messages_;
};

inline Outcome run(const Run& r) {
  const Device ad = Device::get("autodiff<cpu>");
  const Device cpu = Device::get("cpu");
  ad.seed(42);  // the initial weights: the same in every run
  Net net{nn::LinearConfig{8, 16}.init(ad), nn::LinearConfig{16, 3}.init(ad), nn::DropoutConfig{0.2}.init()};
  auto train_ds = std::make_shared<data::InMemDataset<Item>>(make_items(r.train_items, 1));
  auto valid_ds = std::make_shared<data::InMemDataset<Item>>(make_items(48, 2));
  const size_t shards = r.data_parallel ? static_cast<size_t>(r.data_parallel->world_size()) : 1;
  const size_t shard = r.data_parallel ? static_cast<size_t>(r.data_parallel->rank()) : 0;
  data::DataLoader<Item, Batch> train_loader(train_ds, std::make_shared<NetBatcher>(ad),
                                             {.batch_size = r.batch_size,
                                              .shuffle = true,
                                              .seed = 9,
                                              .num_workers = 2,
                                              .num_shards = shards,
                                              .shard_index = shard});
  data::DataLoader<Item, Batch> valid_loader(valid_ds, std::make_shared<NetBatcher>(cpu),
                                             {.batch_size = 16, .num_shards = shards, .shard_index = shard});
  // Fixed, not from r.epochs: the first half of a resumed run must schedule as the whole run does.
  const int64_t total_steps = 24 / r.grad_accumulation;
  auto sched = std::make_shared<optim::CosineAnnealingLrScheduler>(
      optim::CosineAnnealingLrSchedulerConfig{r.lr, r.lr / 10, std::max<int64_t>(total_steps, 1)});
  const nn::loss::CrossEntropyLoss ce = nn::loss::CrossEntropyLossConfig{}.init(ad);
  const nn::loss::CrossEntropyLoss ce_valid = nn::loss::CrossEntropyLossConfig{}.init(cpu);
  train::LearnerConfig config;
  config.epochs = r.epochs;
  config.seed = r.seed;
  config.artifact_dir = r.artifact_dir;
  config.resume = r.resume;
  config.checkpoint_every = r.checkpoint_every;
  config.grad_accumulation = r.grad_accumulation;
  config.early_stopping = r.early_stopping;
  config.display = train::Display::None;
  config.run_config = {{"lr", std::to_string(r.lr)}};
  config.data_parallel = r.data_parallel;
  config.mixed_precision = r.mixed_precision;
  DType logits_dtype = DType::F32;
  train::Learner<Net, Batch> learner(
      net, optim::AdamConfig{}.init(), sched,
      [&](const Net& m, const Batch& b) {
        const Tensor<2> logits = m.forward(b.x);
        const Tensor<1> loss = ce.forward(logits, b.y);
        logits_dtype = logits.dtype();
        return train::TrainOutput{train::backward(loss), {loss, logits, b.y}};
      },
      [&](const Net& m, const Batch& b) {
        const Tensor<2> logits = m.forward(b.x);
        return train::StepOutput{ce_valid.forward(logits, b.y), logits, b.y};
      },
      config);
  for (const auto split : {train::Split::Train, train::Split::Valid}) {
    learner.core().add_metric(split, std::make_unique<train::LossMetric>());
    learner.core().add_metric(split, std::make_unique<train::AccuracyMetric>());
  }
  learner.core().add_metric(train::Split::Test, std::make_unique<train::AccuracyMetric>());
  if (r.stop_after_steps > 0 || r.messages) {
    learner.core().set_renderer(
        std::make_shared<StopAfter>(r.stop_after_steps, learner.core().interrupter(), r.messages));
  }
  Net trained = learner.fit(train_loader, &valid_loader);
  Outcome out;
  out.result = learner.last_fit();
  out.params = param_values(trained);
  out.summary = learner.core().history().summary();
  out.scheduler_steps = sched->iteration();
  for (const auto& p : nn::named_params(trained)) out.param_dtypes.push_back(p.param->handle().prim->dtype());
  out.train_logits_dtype = logits_dtype;
  return out;
}

}  // namespace learner_fixture
