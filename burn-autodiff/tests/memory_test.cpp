// Memory behaviour of autodiff<cpu>, read from the cpu backend's storage counters: a training loop
// keeps a flat footprint, an abandoned graph frees everything, and balanced checkpointing lowers the
// peak of a memory-bound chain while giving bit-identical gradients.
#include <gtest/gtest.h>

#include "burn/autodiff/autodiff.hpp"

namespace burn {
namespace {

MemoryStats& cpu_memory() {
  auto* m = static_cast<MemoryStats*>(Device::get("cpu")->query_interface("memory"));
  if (!m) throw std::runtime_error("the cpu backend exposes no memory stats");
  return *m;
}

struct Mlp {
  Tensor<2> w1, w2;
};

// One SGD step of a two-layer MLP with a cross-entropy-like loss; returns the new parameters.
Mlp step(const Mlp& p, const Device& ad, float lr) {
  auto x = Tensor<2>::random(Shape{32, 64}, Distribution::normal(0, 1), ad);
  auto logits = (x.matmul(p.w1)).relu().matmul(p.w2);
  auto loss = -logits.log_softmax(1).slice({Slice::all(), Slice::at(0)}).mean();
  Gradients grads = loss.backward();
  auto update = [&](const Tensor<2>& w) {
    Tensor<2> inner = w.inner() - *w.grad(grads) * lr;
    return Tensor<2>::from_inner(inner, ad).require_grad();
  };
  return {update(p.w1), update(p.w2)};
}

TEST(AutodiffMemory, ThousandTrainingStepsKeepAFlatFootprint) {
  Device ad = Device::get("autodiff<cpu>");
  ad.seed(7);
  Mlp p{Tensor<2>::random(Shape{64, 128}, Distribution::normal(0, 0.1), ad).require_grad(),
        Tensor<2>::random(Shape{128, 10}, Distribution::normal(0, 0.1), ad).require_grad()};
  for (int i = 0; i < 10; ++i) p = step(p, ad, 0.01f);
  const uint64_t after_warmup = cpu_memory().bytes_in_use();
  for (int i = 0; i < 1000; ++i) p = step(p, ad, 0.01f);
  const uint64_t after_run = cpu_memory().bytes_in_use();
  // The parameters are the only tensors that survive a step: nothing accumulates.
  EXPECT_EQ(after_run, after_warmup) << "bytes in use grew from " << after_warmup << " to " << after_run;
}

TEST(AutodiffMemory, AnAbandonedGraphIsFreed) {
  Device ad = Device::get("autodiff<cpu>");
  const uint64_t before = cpu_memory().bytes_in_use();
  {
    auto x = Tensor<2>::ones(Shape{256, 256}, ad).require_grad();
    auto y = x;
    for (int i = 0; i < 20; ++i) y = (y * 1.5f).exp().sin();  // each op saves tensors for backward
    EXPECT_GT(cpu_memory().bytes_in_use(), before + 20u * 256 * 256 * 4);
  }
  EXPECT_EQ(cpu_memory().bytes_in_use(), before);
}

// Four layers of matmul followed by a chain of memory-bound ops, then a squared mean. Returns the
// peak bytes of forward + backward, and the gradients of the first and last weights. Keep-all holds
// every sigmoid and tanh output of every layer until backward; balanced holds one matmul output per
// layer and recomputes one layer's chain at a time.
struct ChainRun {
  uint64_t peak = 0;
  std::vector<float> g1, g2;
};

ChainRun run_chain(const Device& ad) {
  auto data = [&](uint64_t seed, Shape s) {
    Device cpu = Device::get("cpu");
    cpu.seed(seed);
    return Tensor<2>::from_inner(Tensor<2>::random(s, Distribution::normal(0, 0.05), cpu), ad);
  };
  std::vector<Tensor<2>> ws;
  for (uint64_t k = 0; k < 4; ++k) ws.push_back(data(k + 1, Shape{256, 256}).require_grad());
  auto x = data(9, Shape{512, 256});
  cpu_memory().reset_peak();
  const uint64_t base = cpu_memory().bytes_in_use();
  ChainRun r;
  {
    auto h = x;
    for (const auto& w : ws) {
      h = h.matmul(w) * 8.0f;
      for (int i = 0; i < 3; ++i) h = (h.sigmoid() * 2.0f - 0.5f).tanh();
    }
    auto loss = h.square().mean();
    Gradients grads = loss.backward();
    r.g1 = ws.front().grad(grads)->to_vec<float>();
    r.g2 = ws.back().grad(grads)->to_vec<float>();
  }
  r.peak = cpu_memory().peak_bytes_in_use() - base;
  return r;
}

TEST(AutodiffMemory, BalancedCheckpointingLowersThePeakWithIdenticalGradients) {
  ChainRun keep = run_chain(Device::get("cpu").autodiff());
  ChainRun balanced = run_chain(Device::get("cpu").autodiff(Checkpointing::Balanced));
  EXPECT_EQ(keep.g1, balanced.g1);
  EXPECT_EQ(keep.g2, balanced.g2);
  std::printf("peak bytes of forward+backward: keep-all %llu, balanced %llu (%.0f%%)\n",
              static_cast<unsigned long long>(keep.peak), static_cast<unsigned long long>(balanced.peak),
              100.0 * static_cast<double>(balanced.peak) / static_cast<double>(keep.peak));
  EXPECT_LT(balanced.peak, keep.peak * 3 / 4);
}

}  // namespace
}  // namespace burn
