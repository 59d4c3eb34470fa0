// What the examples share: the warm-up + cosine schedule, a classification training loop over
// in-memory batches, and accuracy. (burn-train's Learner and DataLoader will replace the loop.)
#pragma once

#include <burn/nn.hpp>
#include <burn/optim.hpp>
#include <cstdio>
#include <functional>
#include <memory>
#include <vector>

namespace examples {

using namespace burn;

// Linear warm-up from lr / 10 to lr over `warmup` steps, then half a cosine down to lr / 100.
inline optim::SequentialLr warmup_cosine(double lr, int64_t warmup, int64_t total) {
  auto up = std::make_shared<optim::LinearLrScheduler>(optim::LinearLrSchedulerConfig{lr / 10, lr, warmup});
  auto down = std::make_shared<optim::CosineAnnealingLrScheduler>(
      optim::CosineAnnealingLrSchedulerConfig{lr, lr / 100, total - warmup});
  return optim::SequentialLr({up, down}, {warmup});
}

template <class X>
struct Batch {
  X inputs;
  Tensor<1, Int> targets;
};

// Epochs of Adam over the batches (on their autodiff device); prints the mean loss of each epoch.
template <class M, class X>
M train_classifier(M model, const std::vector<Batch<X>>& batches, int epochs, double lr) {
  optim::Optimizer opt = optim::AdamConfig{}.init();
  optim::SequentialLr schedule = warmup_cosine(lr, static_cast<int64_t>(batches.size()), epochs * batches.size());
  const nn::loss::CrossEntropyLoss loss = nn::loss::CrossEntropyLossConfig{}.init(batches[0].targets.device());
  for (int epoch = 0; epoch < epochs; ++epoch) {
    double total = 0;
    for (const Batch<X>& b : batches) {
      const Tensor<1> l = loss.forward(model.forward(b.inputs), b.targets);
      Gradients grads = l.backward();
      total += l.template item<float>();
      model = opt.step(schedule.step(), model, optim::GradientsParams::from_grads(grads, model));
    }
    std::printf("epoch %d: loss %.4f\n", epoch + 1, total / batches.size());
  }
  return model;
}

// Share of correct argmax predictions of the model on the inner (evaluation) device.
template <class M, class X>
double accuracy(const M& model, const std::vector<Batch<X>>& batches) {
  const M eval = model.valid();
  int64_t right = 0, count = 0;
  for (const Batch<X>& b : batches) {
    const std::vector<int64_t> p =
        eval.forward(b.inputs.inner()).argmax(1).template squeeze<1>(1).template to_vec<int64_t>();
    const std::vector<int64_t> t = b.targets.template to_vec<int64_t>();
    for (size_t i = 0; i < p.size(); ++i) right += p[i] == t[i];
    count += static_cast<int64_t>(p.size());
  }
  return static_cast<double>(right) / count;
}

}  // namespace examples
