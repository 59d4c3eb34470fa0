// Elementwise ops on 16M and 64M f32 elements written as a user would (`a + b`, `x.exp()`), their bf16
// twins (`_bf16`) and the f32 -> bf16 cast, and the
// chain exp(relu(x*2+1)), whose temporaries the backend may reuse since only the chain owns them; the
// same chain on fusion<cpu> (`_fused`: recorded, then one pass by the cpu plugin's fused executor when
// sync() runs it), to compare with the unfused chain and with one memory pass (triad).
#include "common.hpp"

namespace {

using namespace burn;
using namespace burn::bench;

struct Size {
  const char* label;
  int64_t n;
};
constexpr Size kSizes[] = {{"16M", int64_t{16} << 20}, {"64M", int64_t{64} << 20}};

// x: uniform f32, cast to `dtype` before the timing (BF16: the cpu plugin's half route, storage 16-bit, f32
// math in tiles).
template <typename Op>
void add_unary(const std::string& name, int64_t n, DType dtype, Op op) {
  add_case(name, [n, op, dtype](benchmark::State& st) {
    auto x = input<1>({n}).cast(dtype);
    for (auto _ : st) {
      auto y = op(x);
      benchmark::DoNotOptimize(y);
    }
  });
}

template <typename Op>
void add_binary(const std::string& name, int64_t n, DType dtype, Op op) {
  add_case(name, [n, op, dtype](benchmark::State& st) {
    auto a = input<1>({n}).cast(dtype);
    auto b = input<1>({n}).cast(dtype);
    for (auto _ : st) {
      auto y = op(a, b);
      benchmark::DoNotOptimize(y);
    }
  });
}

template <typename Op>
void add_unary(const std::string& name, int64_t n, Op op) {
  add_unary(name, n, DType::F32, op);
}

template <typename Op>
void add_binary(const std::string& name, int64_t n, Op op) {
  add_binary(name, n, DType::F32, op);
}

void register_cases() {
  using T = Tensor<1>;
  for (const Size& s : kSizes) {
    const std::string sz = s.label;
    add_binary("add/" + sz, s.n, [](const T& a, const T& b) { return a + b; });
    add_binary("mul/" + sz, s.n, [](const T& a, const T& b) { return a * b; });
    add_unary("exp/" + sz, s.n, [](const T& x) { return x.exp(); });
    add_unary("gelu/" + sz, s.n, [](const T& x) { return x.gelu(); });
    add_unary("relu/" + sz, s.n, [](const T& x) { return x.relu(); });
    // bf16 twins (the bf16 section of the page, against these f32 rows): half the bytes of each.
    const DType bf = DType::BF16;
    add_binary("add_bf16/" + sz, s.n, bf, [](const T& a, const T& b) { return a + b; });
    add_binary("mul_bf16/" + sz, s.n, bf, [](const T& a, const T& b) { return a * b; });
    add_unary("exp_bf16/" + sz, s.n, bf, [](const T& x) { return x.exp(); });
    add_unary("gelu_bf16/" + sz, s.n, bf, [](const T& x) { return x.gelu(); });
    add_unary("relu_bf16/" + sz, s.n, bf, [](const T& x) { return x.relu(); });
    // f32 in, bf16 out: the conversion a mixed-precision model runs on every activation.
    add_unary("cast_f32_bf16/" + sz, s.n, [](const T& x) { return x.cast(DType::BF16); });
    // `x * 2.0f` copies x's handle, so the first op cannot reuse x; the rest may reuse temporaries.
    add_unary("chain_exp_relu_affine/" + sz, s.n, [](const T& x) { return (x * 2.0f + 1.0f).relu().exp(); });
    add_case("chain_exp_relu_affine_fused/" + sz, [n = s.n](benchmark::State& st) {
      const Device fused = Device::get("fusion<cpu>");  // libburn-fusion is loaded by name
      auto x = input<1>({n}).to_device(fused);
      fused.sync();
      for (auto _ : st) {
        auto y = (x * 2.0f + 1.0f).relu().exp();
        fused.sync();  // runs the recorded chain: y is alive, so it is written
        benchmark::DoNotOptimize(y);
      }
    });
  }
}

}  // namespace

int main(int argc, char** argv) { return burn::bench::run_main(argc, argv, register_cases); }
