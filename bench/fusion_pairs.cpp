// The nn steps on autodiff<cpu> and autodiff<fusion<cpu>> in one process, alternating step by step
// (ABBA), so that a drifting host slows both sides alike: burn-bench-fusion-pairs [PAIRS] [CASE].
// Separate processes on this shared host move 10-30% between runs, more than fusion changes a
// GEMM-bound step; paired steps resolve about 1%. Each step ends with sync() (on fusion, gradients
// nobody reads would otherwise never be computed). Cases: the MLP 784-512-512-10 Adam step at batch
// 128 and the transformer encoder layer forward + backward (d 256, 4 heads, ff 1024, seq 128, batch
// 16), as bench_nn.cpp's nn_mlp_train_adam and nn_transformer_layer_fwd_bwd; both sides start from
// the same weights. Prints one JSON line per case: the median step times, the median of the paired
// ratios fused / unfused with a 95% confidence interval (order statistics of the median), and in how
// many pairs the fused step was faster.
#include <burn/fusion/fusion.hpp>
#include <burn/nn.hpp>
#include <burn/nn/loss.hpp>
#include <burn/optim.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "nn_models.hpp"

using namespace burn;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Times `pairs` alternating steps of each side after two warm-up steps each.
void run_pairs(const char* name, int pairs, const std::function<void()>& unfused, const std::function<void()>& fused) {
  const auto time_ms = [](const std::function<void()>& step) {
    const auto t0 = std::chrono::steady_clock::now();
    step();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  for (int w = 0; w < 2; ++w) {
    unfused();
    fused();
  }
  std::vector<double> tu, tf, ratio;
  for (int i = 0; i < pairs; ++i) {
    double u, f;
    if (i % 2 == 0) {
      u = time_ms(unfused);
      f = time_ms(fused);
    } else {
      f = time_ms(fused);
      u = time_ms(unfused);
    }
    tu.push_back(u);
    tf.push_back(f);
    ratio.push_back(f / u);
  }
  std::vector<double> sorted = ratio;
  std::sort(sorted.begin(), sorted.end());
  // The median's 95% interval: the order statistics n/2 -+ 0.98 sqrt(n) (normal approximation).
  const double n = static_cast<double>(pairs);
  const auto lo = static_cast<size_t>(std::max(0.0, std::floor(n / 2 - 0.98 * std::sqrt(n))));
  const size_t hi = std::min(static_cast<size_t>(pairs) - 1, static_cast<size_t>(pairs) - 1 - lo);
  const auto faster = std::count_if(ratio.begin(), ratio.end(), [](double r) { return r < 1.0; });
  std::printf(
      "{\"case\": \"%s\", \"pairs\": %d, \"unfused_ms\": %.3f, \"fused_ms\": %.3f, \"ratio\": %.4f, "
      "\"ratio_ci\": [%.4f, %.4f], \"fused_faster\": %ld}\n",
      name, pairs, median(tu), median(tf), median(ratio), sorted[lo], sorted[hi], static_cast<long>(faster));
  std::fflush(stdout);
}

void mlp(int pairs) {
  const Device ad = Device::get("autodiff<cpu>"), fad = Device::get("autodiff<fusion<cpu>>");
  Device::get("cpu").seed(1234);
  const Tensor<2> x0 = Tensor<2>::random(Shape{128, 784}, Distribution::uniform(-1.0, 1.0), Device::get("cpu"));
  const Tensor<1, Int> y0 =
      Tensor<2>::random(Shape{128, 1}, Distribution::uniform(0, 10), Device::get("cpu")).to_int().squeeze<1>(1);
  bench::Mlp ma = bench::make_mlp(ad);
  bench::Mlp mb = nn::to_device(ma, fad);
  const Tensor<2> xa = x0.to_device(ad), xb = x0.to_device(fad);
  const Tensor<1, Int> ya = y0.to_device(ad), yb = y0.to_device(fad);
  optim::Optimizer oa = optim::AdamConfig{}.init(), ob = optim::AdamConfig{}.init();
  const nn::loss::CrossEntropyLoss la = nn::loss::CrossEntropyLossConfig{}.init(ad),
                                   lb = nn::loss::CrossEntropyLossConfig{}.init(fad);
  run_pairs(
      "nn_mlp_train_adam/784-512-512-10_b128", pairs,
      [&] {
        Gradients g = la.forward(ma.forward(xa), ya).backward();
        ma = oa.step(1e-3, ma, optim::GradientsParams::from_grads(g, ma));
        ad.sync();
      },
      [&] {
        Gradients g = lb.forward(mb.forward(xb), yb).backward();
        mb = ob.step(1e-3, mb, optim::GradientsParams::from_grads(g, mb));
        fad.sync();
      });
}

void transformer(int pairs) {
  const Device ad = Device::get("autodiff<cpu>"), fad = Device::get("autodiff<fusion<cpu>>");
  Device::get("cpu").seed(1234);
  const nn::TransformerEncoder ea = bench::make_transformer_layer(ad);
  const nn::TransformerEncoder eb = nn::to_device(ea, fad);
  const Tensor<3> x0 = Tensor<3>::random(Shape{16, 128, 256}, Distribution::uniform(-1.0, 1.0), Device::get("cpu"));
  const Tensor<3> xa = Tensor<3>::from_inner(x0, ad).require_grad();
  const Tensor<3> xb = Tensor<3>::from_inner(x0.to_device(Device::get("fusion<cpu>")), fad).require_grad();
  run_pairs(
      "nn_transformer_layer_fwd_bwd/d256_h4_s128_b16", pairs,
      [&] {
        Gradients g = ea.forward({xa, std::nullopt, std::nullopt}).mean().backward();
        ad.sync();
      },
      [&] {
        Gradients g = eb.forward({xb, std::nullopt, std::nullopt}).mean().backward();
        fad.sync();
      });
}

}  // namespace

int main(int argc, char** argv) {
  const int pairs = argc > 1 ? std::atoi(argv[1]) : 20;
  const std::string only = argc > 2 ? argv[2] : "";
  if (pairs < 1) {
    std::fprintf(stderr, "usage: burn-bench-fusion-pairs [PAIRS >= 1] [mlp|transformer]\n");
    return 2;
  }
  if (only.empty() || only == "mlp") mlp(pairs * 4);  // a 7 ms step: more pairs for the same time
  if (only.empty() || only == "transformer") transformer(pairs);
  return 0;
}
