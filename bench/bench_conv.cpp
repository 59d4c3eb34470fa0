// conv through the public module API: conv2d forward, and forward + backward (conv_backward with
// the bias gradient), on a ResNet body layer (N16 64->64 56x56 3x3 p1) and stem (N1 3->64 224x224 7x7 s2 p3).
#include "burn/tensor/module.hpp"
#include "common.hpp"

namespace {

using namespace burn;
using namespace burn::bench;

struct ConvCase {
  const char* name;
  Shape x, w;
  ConvOptions options;
};

void register_cases() {
  const ConvCase cases[] = {
      {"n16_c64_56x56_k3_p1", {16, 64, 56, 56}, {64, 64, 3, 3}, ConvOptions{{1}, {1}, {}, {1}, 1}},
      {"n1_c3_224x224_k7_s2_p3", {1, 3, 224, 224}, {64, 3, 7, 7}, ConvOptions{{2}, {3}, {}, {1}, 1}},
  };
  for (const ConvCase& c : cases) {
    add_case(std::string("conv2d/") + c.name, [c](benchmark::State& st) {
      auto x = input<4>(c.x);
      auto w = input<4>(c.w);
      auto b = input<1>({c.w[0]});
      for (auto _ : st) {
        auto y = module::conv2d(x, w, b, c.options);
        benchmark::DoNotOptimize(y);
      }
    });
    add_case(std::string("conv2d_fwd_bwd/") + c.name, [c](benchmark::State& st) {
      auto x = input<4>(c.x);
      auto w = input<4>(c.w);
      auto b = input<1>({c.w[0]});
      auto y0 = module::conv2d(x, w, b, c.options);
      auto gy = input<4>(y0.shape());
      for (auto _ : st) {
        auto y = module::conv2d(x, w, b, c.options);
        auto g = api::conv_backward(x.handle(), w.handle(), gy.handle(), c.options, true);
        benchmark::DoNotOptimize(y);
        benchmark::DoNotOptimize(g);
      }
    });
  }
}

}  // namespace

int main(int argc, char** argv) { return burn::bench::run_main(argc, argv, register_cases); }
