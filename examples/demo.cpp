// burn-demo: trains the FashionCnn on Fashion-MNIST (Debian's dataset-fashion-mnist) with the Learner
// and its dashboard, saves the artifacts, and in a separate run loads the saved model and predicts.
//
//   burn-demo train [--epochs 3] [--artifacts DIR] [--resume] ...   the dashboard on a terminal, log lines otherwise
//                   (a fresh run moves an older run's files to DIR/previous/; --resume needs the same settings)
//   burn-demo infer [--artifacts DIR] [--count 8]                    loads DIR/config.json and DIR/model.bpz
//   burn run --nproc-per-node 2 -- burn-demo train ...               data parallel: each rank trains on its
//                   shard of every batch (--batch-size is the global batch); rank 0 writes the artifacts
#include <boost/program_options.hpp>
#include <burn/collective/communicator.hpp>
#include <burn/data/mnist.hpp>
#include <burn/optim.hpp>
#include <burn/train/data_parallel.hpp>
#include <burn/train/learner.hpp>
#include <burn/train/metric/classification.hpp>
#include <burn/train/metric/system.hpp>
#include <burn/train/run.hpp>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "fashion_cnn.hpp"

namespace po = boost::program_options;
using namespace burn;
using examples::FashionCnn;
using examples::FashionCnnConfig;

namespace {

// Fashion-MNIST's per-pixel mean and standard deviation over the training set.
constexpr float kMean = 0.2860f, kStd = 0.3530f;

// config.json: the model's settings, what `infer` rebuilds the model from.
std::string config_json(const FashionCnnConfig& c) {
  const nlohmann::ordered_json j = {{"channels1", c.channels1},
                                    {"channels2", c.channels2},
                                    {"hidden", c.hidden},
                                    {"classes", c.classes},
                                    {"dropout", c.dropout}};
  return j.dump(2) + "\n";
}

// Errors name the file and the key: a missing key, a value of the wrong type or out of range.
FashionCnnConfig load_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ValueError("demo", "cannot read '" + path + "': train first (burn-demo train)");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw ValueError("demo", "'" + path + "' is not valid JSON: " + e.what());
  }
  if (!j.is_object()) throw ValueError("demo", "'" + path + "' must hold a JSON object, got " + j.type_name());
  auto integer = [&](const char* key, int64_t min, int64_t max) {
    if (!j.contains(key)) throw ValueError("demo", "'" + path + "': key '" + key + "' is missing");
    const auto& v = j[key];
    if (!v.is_number_integer())
      throw ValueError("demo", "'" + path + "': key '" + key + "' must be an integer, got " + v.dump());
    const auto x = v.get<int64_t>();
    if (x < min || x > max)
      throw ValueError("demo", "'" + path + "': key '" + key + "' must be in " + std::to_string(min) + ".." +
                                   std::to_string(max) + ", got " + std::to_string(x));
    return x;
  };
  FashionCnnConfig c;
  c.channels1 = integer("channels1", 1, 4096), c.channels2 = integer("channels2", 1, 4096);
  c.hidden = integer("hidden", 1, 1 << 20), c.classes = integer("classes", 10, 10);
  if (!j.contains("dropout")) throw ValueError("demo", "'" + path + "': key 'dropout' is missing");
  const auto& d = j["dropout"];
  if (!d.is_number() || d.get<double>() < 0 || d.get<double>() >= 1)
    throw ValueError("demo", "'" + path + "': key 'dropout' must be a number in [0, 1), got " + d.dump());
  c.dropout = d.get<double>();
  return c;
}

// A flag's value in [min, max]; a ValueError naming the flag and the value otherwise (an unsigned
// option would take "-5" as 2^64 - 5).
int64_t in_range(const char* flag, int64_t value, int64_t min, int64_t max) {
  if (value < min || value > max) {
    throw ValueError("demo", std::string("--") + flag + " must be " +
                                 (max == INT64_MAX ? "at least " + std::to_string(min)
                                                   : "in " + std::to_string(min) + ".." + std::to_string(max)) +
                                 ", got " + std::to_string(value));
  }
  return value;
}

// The shortest text that reads back as the same double ("0.02", not "0.020000").
std::string shortest(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

train::TrainOutput train_step(const nn::loss::CrossEntropyLoss& loss, const FashionCnn& m, const data::MnistBatch& b) {
  const Tensor<2> logits = m.forward(b.images);
  const Tensor<1> l = loss.forward(logits, b.targets);
  return {l.backward(), {l, logits, b.targets}};
}

int train_command(const std::vector<std::string>& args) {
  int64_t epochs = 3, batch_size = 64, train_items = 0, test_items = 0, workers = 2, checkpoint_every = 200;
  FashionCnnConfig config;
  double lr = 2e-3;
  std::string dir = "artifacts/fashion-mnist", device_spec = "autodiff<cpu>", display = "auto";
  po::options_description opts("burn-demo train");
  opts.add_options()("help,h", "show this help")("epochs", po::value(&epochs)->default_value(epochs), "epochs")(
      "batch-size", po::value(&batch_size)->default_value(batch_size), "items per batch (of all ranks together)")(
      "workers", po::value(&workers)->default_value(workers), "data loader threads")(
      "lr", po::value(&lr)->default_value(lr), "peak learning rate (warm-up, then cosine)")(
      "artifacts", po::value(&dir)->default_value(dir), "folder for config, checkpoints, metrics and plot")(
      "device", po::value(&device_spec)->default_value(device_spec), "an autodiff device spec")(
      "display", po::value(&display)->default_value(display), "auto, dashboard, log or none")(
      "train-items", po::value(&train_items)->default_value(0), "train on the first N items only (0: all 60000)")(
      "test-items", po::value(&test_items)->default_value(0), "validate and test on the first N only (0: all 10000)")(
      "channels1", po::value(&config.channels1)->default_value(config.channels1), "channels of the first conv")(
      "channels2", po::value(&config.channels2)->default_value(config.channels2), "channels of the second conv")(
      "hidden", po::value(&config.hidden)->default_value(config.hidden), "units of the hidden layer")(
      "dropout", po::value(&config.dropout)->default_value(config.dropout), "dropout before the last layer")(
      "checkpoint-every", po::value(&checkpoint_every)->default_value(checkpoint_every),
      "a checkpoint every N train steps (and after every epoch)")(
      "resume", "continue this folder's run from its newest checkpoint (same settings required)");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  in_range("epochs", epochs, 1, 1000000);
  in_range("batch-size", batch_size, 1, 1 << 20);
  in_range("workers", workers, 0, 256);
  in_range("train-items", train_items, 0, INT64_MAX);
  in_range("test-items", test_items, 0, INT64_MAX);
  in_range("channels1", config.channels1, 1, 4096);
  in_range("channels2", config.channels2, 1, 4096);
  in_range("hidden", config.hidden, 1, 1 << 20);
  in_range("checkpoint-every", checkpoint_every, 1, INT64_MAX);
  if (!(lr > 0) || !std::isfinite(lr)) throw ValueError("demo", "--lr must be a positive number, got " + shortest(lr));
  if (!(config.dropout >= 0 && config.dropout < 1))
    throw ValueError("demo", "--dropout must be in [0, 1), got " + shortest(config.dropout));
  const std::map<std::string, train::Display> displays = {{"auto", train::Display::Auto},
                                                          {"dashboard", train::Display::Dashboard},
                                                          {"log", train::Display::Log},
                                                          {"none", train::Display::None}};
  if (!displays.count(display))
    throw ValueError("demo", "--display must be auto, dashboard, log or none, got '" + display + "'");
  const Device ad = Device::get(device_spec);
  if (!autodiff_of(ad)) {
    throw ValueError("demo", "--device must be an autodiff device such as autodiff<cpu>, got '" + device_spec + "'");
  }
  // Under `burn run` (WORLD_SIZE set) the ranks train data-parallel; alone, the communicator is a job of one.
  collective::Communicator comm = collective::Communicator::from_environment();
  const auto ranks = static_cast<size_t>(comm.world_size()), rank = static_cast<size_t>(comm.rank());
  std::shared_ptr<train::DataParallel> dp;
  if (ranks > 1) dp = std::make_shared<train::DataParallel>(comm);
  if (batch_size % static_cast<int64_t>(ranks) != 0) {
    throw ValueError("demo", "--batch-size " + std::to_string(batch_size) + " is not a multiple of the " +
                                 std::to_string(ranks) + " ranks: each rank takes an equal part of a batch");
  }
  const bool writer = rank == 0;  // rank 0 writes the artifacts and reports
  // Evaluation runs where model.valid() moves the model: below every autodiff layer.
  const Device inner = nn::valid_device(ad);
  ad.seed(7);

  // A prefix of each split when asked (a quick check of the whole pipeline, as ctest runs it).
  auto prefix = [](data::DatasetPtr<data::MnistItem> ds, size_t n) -> data::DatasetPtr<data::MnistItem> {
    if (n == 0 || n >= ds->size()) return ds;
    return std::make_shared<data::PartialDataset<data::MnistItem>>(ds, 0, n);
  };
  auto train_set =
      prefix(std::make_shared<data::MnistDataset>(data::MnistDataset::train()), static_cast<size_t>(train_items));
  auto test_set =
      prefix(std::make_shared<data::MnistDataset>(data::MnistDataset::test()), static_cast<size_t>(test_items));
  data::DataLoader<data::MnistItem, data::MnistBatch> train_loader(
      train_set, std::make_shared<data::MnistBatcher>(ad, kMean, kStd),
      {.batch_size = static_cast<size_t>(batch_size) / ranks,
       .shuffle = true,
       .seed = 7,
       .num_workers = static_cast<size_t>(workers),
       .num_shards = ranks,
       .shard_index = rank});
  data::DataLoader<data::MnistItem, data::MnistBatch> test_loader(
      test_set, std::make_shared<data::MnistBatcher>(inner, kMean, kStd),
      {.batch_size = 256 / ranks,
       .num_workers = static_cast<size_t>(workers),
       .num_shards = ranks,
       .shard_index = rank});

  const int64_t steps = epochs * static_cast<int64_t>(train_loader.num_batches());
  const int64_t warmup = std::max<int64_t>(1, steps / 20);
  auto up = std::make_shared<optim::LinearLrScheduler>(optim::LinearLrSchedulerConfig{lr / 10, lr, warmup});
  auto down = std::make_shared<optim::CosineAnnealingLrScheduler>(
      optim::CosineAnnealingLrSchedulerConfig{lr, lr / 50, std::max<int64_t>(1, steps - warmup)});
  auto schedule = std::make_shared<optim::SequentialLr>(
      std::vector<std::shared_ptr<const optim::LrScheduler>>{up, down}, std::vector<int64_t>{warmup});

  const nn::loss::CrossEntropyLoss loss = nn::loss::CrossEntropyLossConfig{}.init(ad);
  const nn::loss::CrossEntropyLoss eval_loss = nn::loss::CrossEntropyLossConfig{}.init(inner);
  train::LearnerConfig lc;
  lc.epochs = epochs;
  lc.seed = 7;
  lc.artifact_dir = dir;
  lc.resume = vm.count("resume") > 0;
  lc.checkpoint_every = checkpoint_every;
  lc.checkpoints.best_split = train::Split::Valid;
  lc.checkpoints.best_metric = "Accuracy";
  lc.display = displays.at(display);
  // What this run is made of besides the seed and the train data (the learner adds those): a
  // --resume with other values is refused, naming them.
  lc.run_config = {{"channels1", std::to_string(config.channels1)},
                   {"channels2", std::to_string(config.channels2)},
                   {"hidden", std::to_string(config.hidden)},
                   {"dropout", shortest(config.dropout)},
                   {"epochs", std::to_string(epochs)},
                   {"lr", shortest(lr)},
                   {"test items", std::to_string(test_set->size())}};
  lc.run_files = {"config.json", "model.bpz"};
  lc.data_parallel = dp;
  train::Learner<FashionCnn, data::MnistBatch> learner(
      config.init(ad), optim::AdamConfig{}.init(), schedule,
      [&](const FashionCnn& m, const data::MnistBatch& b) { return train_step(loss, m, b); },
      [&](const FashionCnn& m, const data::MnistBatch& b) {
        const Tensor<2> logits = m.forward(b.images);
        return train::StepOutput{eval_loss.forward(logits, b.targets), logits, b.targets};
      },
      lc);
  auto& core = learner.core();
  for (const auto split : {train::Split::Train, train::Split::Valid}) {
    core.add_metric(split, std::make_unique<train::LossMetric>());
    core.add_metric(split, std::make_unique<train::AccuracyMetric>());
  }
  core.add_metric(train::Split::Train, std::make_unique<train::LearningRateMetric>());
  core.add_metric(train::Split::Train, std::make_unique<train::IterationSpeedMetric>());
  core.add_metric(train::Split::Train, std::make_unique<train::CpuUseMetric>());
  core.add_metric(train::Split::Train, std::make_unique<train::MemoryMetric>());
  core.add_metric(train::Split::Test, std::make_unique<train::AccuracyMetric>());
  core.add_metric(train::Split::Test, train::fbeta_metric(1.0));
  // The run is checked (resume) or the previous run moved aside (fresh) before anything is written.
  learner.open_run(train_loader);
  if (writer) train::write_text_atomically(dir + "/config.json", config_json(config), "demo");

  const FashionCnn trained = learner.fit(train_loader, &test_loader);
  if (writer) {
    nn::save(trained, dir + "/model.bpz");
    std::printf("model saved to %s/model.bpz (%lld parameters)\n", dir.c_str(),
                static_cast<long long>(nn::num_params(trained)));
  }
  double accuracy = 0;
  for (const auto& s : learner.evaluate(test_loader)) {  // every rank's test shard
    if (writer) std::printf("test %s: %.2f %s\n", s.metric.c_str(), s.last, s.unit.c_str());
    if (s.metric == "Accuracy") accuracy = s.last;
  }
  if (writer) {
    std::printf("artifacts in %s: config.json, model.bpz, checkpoints/, train/ and valid/ CSVs, metrics.png%s\n",
                dir.c_str(), ranks > 1 ? (" (" + std::to_string(ranks) + " ranks)").c_str() : "");
  }
  return accuracy > 0 ? 0 : 1;  // the target (89 %) is the demo script's to check, over the full data
}

// The first test images with the predicted class, the true one and the confidence.
void show_predictions(const FashionCnn& model, const data::MnistBatch& b) {
  const auto& names = data::MnistDataset::fashion_mnist_classes();
  const auto probs = model.forward(b.images).softmax(1).to_vec<float>();
  const auto labels = b.targets.to_vec<int64_t>();
  std::printf("%-5s  %-12s  %-12s  %s\n", "image", "predicted", "true", "confidence");
  for (size_t i = 0; i < labels.size(); ++i) {
    const float* p = probs.data() + i * 10;
    const auto pred = std::max_element(p, p + 10) - p;
    std::printf("%-5zu  %-12s  %-12s  %5.1f %%%s\n", i, names[static_cast<size_t>(pred)],
                names[static_cast<size_t>(labels[i])], 100.0 * p[pred], pred == labels[i] ? "" : "  (wrong)");
  }
}

int infer_command(const std::vector<std::string>& args) {
  std::string dir = "artifacts/fashion-mnist";
  int64_t count = 8;
  double required = 0;
  po::options_description opts("burn-demo infer");
  opts.add_options()("help,h", "show this help")("artifacts", po::value(&dir)->default_value(dir), "trained artifacts")(
      "count", po::value(&count)->default_value(count), "test images to show")(
      "require-accuracy", po::value(&required)->default_value(0), "exit 1 when the test accuracy (%) is below this");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  in_range("count", count, 0, 10000);
  if (!(required >= 0 && required <= 100))
    throw ValueError("demo", "--require-accuracy must be a percentage in [0, 100], got " + shortest(required));
  const Device cpu = Device::get("cpu");
  FashionCnn model = load_config(dir + "/config.json").init(cpu);
  nn::load(model, dir + "/model.bpz");
  const data::MnistDataset test = data::MnistDataset::test();
  const data::MnistBatcher batcher(cpu, kMean, kStd);
  std::vector<data::MnistItem> items;
  for (size_t i = 0; i < static_cast<size_t>(count) && i < test.size(); ++i) items.push_back(*test.get(i));
  if (!items.empty()) show_predictions(model, batcher.batch(items));
  // The whole test set, in batches, for the accuracy of the loaded model.
  int64_t right = 0;
  for (size_t start = 0; start < test.size(); start += 500) {
    std::vector<data::MnistItem> chunk;
    for (size_t i = start; i < std::min(test.size(), start + 500); ++i) chunk.push_back(*test.get(i));
    const data::MnistBatch cb = batcher.batch(chunk);
    const auto pred = model.forward(cb.images).argmax(1).squeeze<1>(1).to_vec<int64_t>();
    const auto truth = cb.targets.to_vec<int64_t>();
    for (size_t i = 0; i < pred.size(); ++i) right += pred[i] == truth[i];
  }
  const double accuracy = 100.0 * static_cast<double>(right) / static_cast<double>(test.size());
  std::printf("test accuracy of the loaded model: %.2f %% (%lld of %zu)\n", accuracy, static_cast<long long>(right),
              test.size());
  if (accuracy < required) {
    std::fprintf(stderr, "burn-demo: test accuracy %.2f %% is below the required %.2f %%\n", accuracy, required);
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string cmd = argc > 1 ? argv[1] : "";
    const std::vector<std::string> args(argv + std::min(argc, 2), argv + argc);
    if (cmd == "train") return train_command(args);
    if (cmd == "infer") return infer_command(args);
    std::cerr << "usage: burn-demo train [options] | burn-demo infer [options] (--help for each)\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "burn-demo: " << e.what() << "\n";
    return 1;
  }
}
