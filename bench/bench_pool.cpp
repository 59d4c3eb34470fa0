// Pooling and resampling on image-sized NCHW f32 tensors: max/avg pool 2x2 s2 and 3x3 s2 p1 on
// (2, 32|128, 512, 512), max pool 3x3 s2 p1 on ResNet's (1, 64, 112, 112), max pool 2x2 s2 with indices on
// the small CNN's two pools at batch 32 (28x28 and 14x14 planes: rows of 14 and 7 outputs), and 2x bilinear /
// nearest upsampling of (2, 32, 256, 256).
#include "burn/tensor/module.hpp"
#include "common.hpp"

namespace {

using namespace burn;
using namespace burn::bench;

PoolOptions pool(int64_t k, int64_t s, int64_t p) {
  PoolOptions o;
  o.kernel = {k};
  o.stride = {s};
  o.padding = {p};
  return o;
}

void register_cases() {
  for (int64_t c : {32, 128}) {
    const std::string sz = "2x" + std::to_string(c) + "x512x512";
    for (auto [label, k, s, p] : {std::tuple{"2x2s2", 2, 2, 0}, std::tuple{"3x3s2p1", 3, 2, 1}}) {
      const PoolOptions o = pool(k, s, p);
      add_case(std::string("max_pool2d_") + label + "/" + sz, [c, o](benchmark::State& st) {
        auto x = input<4>({2, c, 512, 512});
        for (auto _ : st) benchmark::DoNotOptimize(module::max_pool2d(x, o));
      });
      add_case(std::string("max_pool2d_with_indices_") + label + "/" + sz, [c, o](benchmark::State& st) {
        auto x = input<4>({2, c, 512, 512});
        for (auto _ : st) benchmark::DoNotOptimize(module::max_pool_with_indices<4>(x, o));
      });
      add_case(std::string("avg_pool2d_") + label + "/" + sz, [c, o](benchmark::State& st) {
        auto x = input<4>({2, c, 512, 512});
        for (auto _ : st) benchmark::DoNotOptimize(module::avg_pool2d(x, o));
      });
    }
  }
  // ResNet's stem pool at batch 1: cache-resident, so the kernel's arithmetic, not memory, sets its time.
  add_case("max_pool2d_3x3s2p1/1x64x112x112", [](benchmark::State& st) {
    auto x = input<4>({1, 64, 112, 112});
    for (auto _ : st) benchmark::DoNotOptimize(module::max_pool2d(x, pool(3, 2, 1)));
  });
  // The small CNN's pools in training (bench/nn_models.hpp, batch 32): short rows, cache-resident.
  for (auto [c, hw] : {std::pair{32, 28}, std::pair{64, 14}}) {
    add_case(
        "max_pool2d_with_indices_2x2s2/32x" + std::to_string(c) + "x" + std::to_string(hw) + "x" + std::to_string(hw),
        [c, hw](benchmark::State& st) {
          auto x = input<4>({32, c, hw, hw});
          for (auto _ : st) benchmark::DoNotOptimize(module::max_pool_with_indices<4>(x, pool(2, 2, 0)));
        });
  }
  for (auto [label, mode] :
       {std::pair{"bilinear", InterpolateMode::Linear}, std::pair{"nearest", InterpolateMode::Nearest},
        std::pair{"bicubic", InterpolateMode::Cubic}}) {
    const InterpolateOptions o{mode, false};
    add_case(std::string("interpolate_") + label + "_2x/2x32x256x256", [o](benchmark::State& st) {
      auto x = input<4>({2, 32, 256, 256});
      for (auto _ : st) benchmark::DoNotOptimize(module::interpolate<4>(x, {512, 512}, o));
    });
  }
}

}  // namespace

int main(int argc, char** argv) { return burn::bench::run_main(argc, argv, register_cases); }
