// Reductions on 4096x4096 f32: sum of all, of the last dim, of the first dim, and argmax of the last dim;
// sum and sum_dim(1) of the same values in bf16 (`_bf16`); (x * 2 + 1).exp().sum_dim(1) unfused and on
// fusion<cpu> (`_fused`, sync() per iteration).
#include "common.hpp"

namespace {

using namespace burn;
using namespace burn::bench;

template <typename Op>
void add_reduce(const std::string& name, DType dtype, Op op) {
  add_case(name, [op, dtype](benchmark::State& st) {
    auto x = input<2>({4096, 4096}).cast(dtype);
    for (auto _ : st) {
      auto y = op(x);
      benchmark::DoNotOptimize(y);
    }
  });
}

template <typename Op>
void add_reduce(const std::string& name, Op op) {
  add_reduce(name, DType::F32, op);
}

void register_cases() {
  using T = Tensor<2>;
  add_reduce("sum/4096x4096", [](const T& x) { return x.sum(); });
  add_reduce("sum_dim_last/4096x4096", [](const T& x) { return x.sum_dim(1); });
  add_reduce("sum_dim_first/4096x4096", [](const T& x) { return x.sum_dim(0); });
  add_reduce("argmax_last/4096x4096", [](const T& x) { return x.argmax(1); });
  // bf16 input (the bf16 section of the page): the f32 kernel reads it widened span by span.
  add_reduce("sum_bf16/4096x4096", DType::BF16, [](const T& x) { return x.sum(); });
  add_reduce("sum_dim_last_bf16/4096x4096", DType::BF16, [](const T& x) { return x.sum_dim(1); });
  add_reduce("exp_affine_sum_dim_last/4096x4096", [](const T& x) { return (x * 2.0f + 1.0f).exp().sum_dim(1); });
  add_case("exp_affine_sum_dim_last_fused/4096x4096", [](benchmark::State& st) {
    const Device fused = Device::get("fusion<cpu>");  // libburn-fusion is loaded by name
    auto x = input<2>({4096, 4096}).to_device(fused);
    fused.sync();
    for (auto _ : st) {
      auto y = (x * 2.0f + 1.0f).exp().sum_dim(1);
      fused.sync();
      benchmark::DoNotOptimize(y);
    }
  });
}

}  // namespace

int main(int argc, char** argv) { return burn::bench::run_main(argc, argv, register_cases); }
