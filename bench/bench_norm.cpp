// layer_norm over the last dim of a (64, 1024, 768) f32 tensor, and scaled dot-product attention
// (B2 H8 L1024 E64, f32, without and with the causal mask).
#include "common.hpp"

namespace {

using namespace burn;
using namespace burn::bench;

void register_cases() {
  add_case("layer_norm/64x1024x768", [](benchmark::State& st) {
    auto x = input<3>({64, 1024, 768});
    auto w = input<1>({768});
    auto b = input<1>({768});
    for (auto _ : st) {
      auto y = module::layer_norm(x, w, std::optional<Tensor<1>>(b));
      benchmark::DoNotOptimize(y);
    }
  });
  for (bool causal : {false, true}) {
    add_case(causal ? "attention_causal/b2h8l1024e64" : "attention/b2h8l1024e64", [causal](benchmark::State& st) {
      auto q = input<4>({2, 8, 1024, 64});
      auto k = input<4>({2, 8, 1024, 64});
      auto v = input<4>({2, 8, 1024, 64});
      AttentionOptions o;
      o.causal = causal;
      for (auto _ : st) {
        auto y = module::attention(q, k, v, std::nullopt, o);
        benchmark::DoNotOptimize(y);
      }
    });
  }
}

}  // namespace

int main(int argc, char** argv) { return burn::bench::run_main(argc, argv, register_cases); }
