// One or more Fashion-MNIST epochs of the MLP or the small CNN (nn_models.hpp) as a burn user writes
// them: burn::data's MnistDataset and DataLoader (shuffled, worker threads), Adam, cross-entropy, on
// autodiff<cpu>. Prints one JSON line: each epoch's time, the time spent waiting for the loader, the test
// accuracy after each epoch (untimed) and the dtype of the model's output in the last step.
// bench/train_epoch.py runs it and bench/torch/train_epoch.py in the same run.
// --autocast bf16|f16 trains (and tests) under burn/tensor/autocast.hpp's AutocastGuard, the parameters
// in f32; f16 also scales the loss (optim::GradScaler). The step is train_step.hpp's.
// --int8-accuracy 1 also tests the trained model after nn::quantize_dynamic (test_accuracy_int8: Linear layers on
// the int8 op, convs with int8 weights; untimed), as bench/torch/train_epoch.py does with PyTorch's.
// Under `burn run` (WORLD_SIZE > 1) the ranks train data-parallel (train::DataParallel, the loader
// sharded by rank): --batch-size is the global batch, each rank takes batch-size / ranks of it, and
// rank 0 alone tests and prints (bench/distributed.py's epoch rows). Alone, nothing of that runs.
//
//   burn-bench-train-epoch --model cnn --epochs 1 --batch-size 64 --workers 2 [--autocast bf16]
//   burn run --nproc-per-node 2 -- burn-bench-train-epoch --model cnn --batch-size 64 --workers 1
#include <burn/collective/communicator.hpp>
#include <burn/data/mnist.hpp>
#include <burn/nn/loss.hpp>
#include <burn/nn/quant.hpp>
#include <burn/optim.hpp>
#include <burn/optim/grad_scaler.hpp>
#include <burn/tensor/autocast.hpp>
#include <burn/train/data_parallel.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "train_step.hpp"

namespace {

using namespace burn;
using Clock = std::chrono::steady_clock;

constexpr float kMean = 0.2860f, kStd = 0.3530f;

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// dp: the job's data parallelism (null alone): rank 0's parameters, a shard of each batch, the gradients
// averaged over the ranks.
template <class M>
int run(M model, const std::string& name, int epochs, size_t batch_size, size_t workers, double epsilon, uint64_t seed,
        std::optional<DType> autocast, bool int8_accuracy, train::DataParallel* dp = nullptr) {
  const Device ad = Device::get("autodiff<cpu>");
  const Device cpu = Device::get("cpu");
  auto train = std::make_shared<data::MnistDataset>(data::MnistDataset::train());
  const size_t ranks = dp ? static_cast<size_t>(dp->world_size()) : 1;
  if (dp) model = dp->broadcast(model);
  data::DataLoader<data::MnistItem, data::MnistBatch> loader(train,
                                                             std::make_shared<data::MnistBatcher>(ad, kMean, kStd),
                                                             {.batch_size = batch_size / ranks,
                                                              .shuffle = true,
                                                              .seed = seed,
                                                              .num_workers = workers,
                                                              .num_shards = ranks,
                                                              .shard_index = dp ? static_cast<size_t>(dp->rank()) : 0});
  optim::Optimizer opt = optim::AdamConfig{.epsilon = epsilon}.init();
  const nn::loss::CrossEntropyLoss loss = nn::loss::CrossEntropyLossConfig{}.init(ad);
  std::optional<optim::GradScaler> scaler;
  if (autocast == DType::F16) scaler.emplace();
  const data::MnistDataset test = data::MnistDataset::test();
  data::DataLoader<data::MnistItem, data::MnistBatch> test_loader(
      std::make_shared<data::MnistDataset>(test), std::make_shared<data::MnistBatcher>(cpu, kMean, kStd),
      {.batch_size = 1000});
  // Percent of the test set right for `eval`, the forward under the training's autocast (not timed).
  auto accuracy_of = [&](const M& eval) {
    int64_t right = 0;
    auto it = test_loader.iter();
    while (auto b = it.next()) {
      const auto guard = autocast ? std::make_optional<AutocastGuard>(*autocast) : std::nullopt;
      const auto pred =
          eval.forward(bench::as_input(eval, b->images)).argmax(1).template squeeze<1>(1).template to_vec<int64_t>();
      const auto truth = b->targets.to_vec<int64_t>();
      for (size_t i = 0; i < pred.size(); ++i) right += pred[i] == truth[i];
    }
    return 100.0 * static_cast<double>(right) / static_cast<double>(test.size());
  };
  auto test_accuracy = [&] { return accuracy_of(nn::valid(model)); };
  std::string epoch_s, wait_s, accuracy;
  DType logits_dtype = DType::F32;
  for (int e = 0; e < epochs; ++e) {
    const auto start = Clock::now();
    Clock::duration wait{};
    auto it = loader.iter();
    while (true) {
      const auto t = Clock::now();
      std::optional<data::MnistBatch> b = it.next();
      wait += Clock::now() - t;
      if (!b) break;
      if (dp) {
        optim::GradientsParams grads = dp->backward(
            loss.forward(model.forward(bench::as_input(model, b->images)), b->targets), nn::ModuleRef(model));
        model = opt.step(1e-3, model, std::move(grads));
        continue;
      }
      logits_dtype =
          bench::train_step(model, b->images, b->targets, opt, loss, 1e-3, autocast, scaler ? &*scaler : nullptr)
              .logits_dtype;
    }
    epoch_s += (e ? "," : "") + std::to_string(seconds(Clock::now() - start));
    wait_s += (e ? "," : "") + std::to_string(seconds(wait));
    // Alone, the test set after every epoch; data-parallel, rank 0 tests once at the end (a test between
    // epochs would hold the other ranks at their first all-reduce).
    if (!dp && e + 1 < epochs) accuracy += std::to_string(test_accuracy()) + ",";
  }
  if (dp && dp->rank() != 0) return 0;  // the parameters are rank 0's: it tests and reports alone
  accuracy += std::to_string(test_accuracy());
  const std::string int8 =
      int8_accuracy ? ", \"test_accuracy_int8\": " + std::to_string(accuracy_of(nn::quantize_dynamic(nn::valid(model))))
                    : std::string();
  std::printf(
      "{\"side\": \"burn\", \"model\": \"%s\", \"autocast\": \"%s\", \"ranks\": %zu, \"epoch_seconds\": [%s], "
      "\"loader_wait_seconds\": [%s], \"logits_dtype\": \"%s\", \"test_accuracy_per_epoch\": [%s], "
      "\"test_accuracy\": %s%s}\n",
      name.c_str(), autocast ? std::string(dtype_name(*autocast)).c_str() : "off", ranks, epoch_s.c_str(),
      wait_s.c_str(), std::string(dtype_name(logits_dtype)).c_str(), accuracy.c_str(),
      accuracy.substr(accuracy.rfind(',') + 1).c_str(), int8.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string model = "cnn";
  int epochs = 1;
  size_t batch = 64, workers = 2;
  double epsilon = optim::AdamConfig{}.epsilon;
  uint64_t seed = 1;
  std::optional<DType> autocast;
  bool int8_accuracy = false;
  train::DataParallelConfig dp_config;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--model"))
      model = argv[i + 1];
    else if (!std::strcmp(argv[i], "--epochs"))
      epochs = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--batch-size"))
      batch = std::strtoul(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--workers"))
      workers = std::strtoul(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--epsilon"))
      epsilon = std::strtod(argv[i + 1], nullptr);
    else if (!std::strcmp(argv[i], "--seed"))
      seed = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--autocast") && !std::strcmp(argv[i + 1], "bf16"))
      autocast = DType::BF16;
    else if (!std::strcmp(argv[i], "--autocast") && !std::strcmp(argv[i + 1], "f16"))
      autocast = DType::F16;
    else if (!std::strcmp(argv[i], "--first-bucket-bytes"))
      dp_config.first_bucket_bytes = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--int8-accuracy"))
      int8_accuracy = std::strcmp(argv[i + 1], "0") != 0;
    else {
      std::fprintf(stderr,
                   "usage: %s [--model mlp|cnn] [--epochs N] [--batch-size B] [--workers W] [--epsilon E] [--seed S] "
                   "[--autocast bf16|f16] [--int8-accuracy 0|1] [--first-bucket-bytes N (data parallel)]\n",
                   argv[0]);
      return 2;
    }
  }
  if (int8_accuracy && autocast) {  // the int8 model is tested in f32 activations, as PyTorch's is
    std::fprintf(stderr, "burn-bench-train-epoch: --int8-accuracy is measured without --autocast\n");
    return 2;
  }
  Device::get("autodiff<cpu>").seed(seed);
  try {
    // Under `burn run`, data parallel; alone (no WORLD_SIZE) a job of one rank, and dp stays null.
    collective::Communicator comm = collective::Communicator::from_environment();
    std::unique_ptr<train::DataParallel> dp;
    if (comm.world_size() > 1) {
      if (autocast || batch % static_cast<size_t>(comm.world_size()) != 0) {
        std::fprintf(stderr,
                     "burn-bench-train-epoch: on %d ranks: --autocast is not measured data-parallel, and "
                     "--batch-size (the global batch, %zu) must be a multiple of the ranks\n",
                     comm.world_size(), batch);
        return 2;
      }
      dp = std::make_unique<train::DataParallel>(comm, dp_config);
    }
    if (model == "mlp")
      return run(bench::make_mlp(Device::get("autodiff<cpu>")), model, epochs, batch, workers, epsilon, seed, autocast,
                 int8_accuracy, dp.get());
    if (model == "cnn")
      return run(bench::make_small_cnn(Device::get("autodiff<cpu>")), model, epochs, batch, workers, epsilon, seed,
                 autocast, int8_accuracy, dp.get());
    std::fprintf(stderr, "unknown model '%s' (mlp or cnn)\n", model.c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "burn-bench-train-epoch: %s\n", e.what());
    return 1;
  }
}
