// Autodiff through the public Tensor API on autodiff<cpu>: one training step (forward + backward,
// gradients of every parameter) of an MLP 784-512-512-10 at batch 128 and of a conv block, and the
// fixed cost of recording one op on tiny tensors. PyTorch runs the same with autograd.
#include "burn/autodiff/autodiff.hpp"
#include "burn/tensor/module.hpp"
#include "common.hpp"

namespace {

using namespace burn;
using namespace burn::bench;

template <size_t D>
Tensor<D> param(const Shape& s, double scale) {
  return Tensor<D>::from_inner(Tensor<D>::random(s, Distribution::uniform(-scale, scale), cpu()), ad()).require_grad();
}

// -log_softmax(logits)[target] averaged over the batch: cross-entropy, written the same way on both sides.
Tensor<1> cross_entropy(const Tensor<2>& logits, const Tensor<2, Int>& targets) {
  return -logits.log_softmax(1).gather(1, targets).mean();
}

void register_cases() {
  add_case("mlp_step/784-512-512-10_b128", [](benchmark::State& st) {
    auto w1 = param<2>({784, 512}, 0.05), w2 = param<2>({512, 512}, 0.05), w3 = param<2>({512, 10}, 0.05);
    auto b1 = param<1>({512}, 0.05), b2 = param<1>({512}, 0.05), b3 = param<1>({10}, 0.05);
    auto x = Tensor<2>::from_inner(input<2>({128, 784}), ad());
    auto y = Tensor<2, Int>::from_data(
        Tensor<2>::random(Shape{128, 1}, Distribution::uniform(0, 10), cpu()).to_int().into_data(), ad());
    for (auto _ : st) {
      auto h1 = (x.matmul(w1) + b1.unsqueeze<2>()).relu();
      auto h2 = (h1.matmul(w2) + b2.unsqueeze<2>()).relu();
      auto loss = cross_entropy(h2.matmul(w3) + b3.unsqueeze<2>(), y);
      Gradients grads = loss.backward();
      benchmark::DoNotOptimize(grads);
    }
  });
  add_case("conv_block_step/n8_c32_32x32", [](benchmark::State& st) {
    ConvOptions same{{1}, {1}, {}, {1}, 1};
    auto w1 = param<4>({32, 32, 3, 3}, 0.05), w2 = param<4>({32, 32, 3, 3}, 0.05);
    auto b1 = param<1>({32}, 0.05), b2 = param<1>({32}, 0.05);
    auto x = Tensor<4>::from_inner(input<4>({8, 32, 32, 32}), ad());
    for (auto _ : st) {
      auto h = module::conv2d(x, w1, b1, same).relu();
      auto loss = module::conv2d(h, w2, b2, same).relu().mean();
      Gradients grads = loss.backward();
      benchmark::DoNotOptimize(grads);
    }
  });
  // What autodiff adds to one op: a + b where a requires grad (the node is recorded, no backward).
  add_case("autodiff_tiny_add/1x8", [](benchmark::State& st) {
    time_add(st, Tensor<2>::from_inner(input<2>({1, 8}), ad()).require_grad(),
             Tensor<2>::from_inner(input<2>({1, 8}), ad()));
  });
}

}  // namespace

int main(int argc, char** argv) { return burn::bench::run_main(argc, argv, register_cases); }
