// Reductions on 4096x4096 f32: sum of all, of the last dim, of the first dim, and argmax of the last dim.
#include "common.hpp"

namespace {

using namespace burn;
using namespace burn::bench;

template <typename Op>
void add_reduce(const std::string& name, Op op) {
  add_case(name, [op](benchmark::State& st) {
    auto x = input<2>({4096, 4096});
    for (auto _ : st) {
      auto y = op(x);
      benchmark::DoNotOptimize(y);
    }
  });
}

void register_cases() {
  using T = Tensor<2>;
  add_reduce("sum/4096x4096", [](const T& x) { return x.sum(); });
  add_reduce("sum_dim_last/4096x4096", [](const T& x) { return x.sum_dim(1); });
  add_reduce("sum_dim_first/4096x4096", [](const T& x) { return x.sum_dim(0); });
  add_reduce("argmax_last/4096x4096", [](const T& x) { return x.argmax(1); });
}

}  // namespace

int main(int argc, char** argv) { return burn::bench::run_main(argc, argv, register_cases); }
