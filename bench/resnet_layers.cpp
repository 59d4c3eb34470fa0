// Per-op times of the folded ResNet-18 or ResNet-50 forward on cpu, for comparison with ONNX Runtime's
// per-node profile (bench/onnxruntime/profile_ort.mjs): burn-bench-resnet-layers [BATCH] [ITERS] [ARCH]
// (ARCH: resnet18, the default, or resnet50). Runs the forward of FoldedResNet (FoldedBottleneckResNet)
// op by op (each op is eager on cpu and returns when done; as in the forward,
// ReLU and the residual add get their input's only reference and reuse its buffer), ITERS times after a
// warm-up, and prints per op the minimum and median wall time and the median and minimum CPU time of
// the calling thread, and their sums. Threads:
// BURN_NUM_THREADS.
#include <time.h>
#include <burn/nn.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "common.hpp"
#include "resnet.hpp"

using namespace burn;

namespace {

double thread_cpu_s() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

struct Timer {
  std::vector<std::string> order;
  std::map<std::string, std::vector<double>> wall, cpu;
  template <typename F>
  auto operator()(const std::string& name, F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = thread_cpu_s();
    auto r = f();
    const double c1 = thread_cpu_s();
    const auto t1 = std::chrono::steady_clock::now();
    if (!wall.count(name)) order.push_back(name);
    wall[name].push_back(std::chrono::duration<double>(t1 - t0).count());
    cpu[name].push_back(c1 - c0);
    return r;
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double minimum(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

// One basic block op by op, as FoldedBasicBlock::forward; names "layerL.B conv1" and the like.
Tensor<4> block_ops(Timer& t, const std::string& p, const models::FoldedBasicBlock& b, const Tensor<4>& h) {
  const Tensor<4> id = b.downsample ? t(p + "downsample", [&] { return b.downsample->forward(h); }) : h;
  Tensor<4> a = t(p + "conv1", [&] { return b.conv1.forward(h); });
  a = t(p + "relu1", [&] { return std::move(a).relu(); });
  a = t(p + "conv2", [&] { return b.conv2.forward(a); });
  a = t(p + "add", [&] { return std::move(a) + id; });
  return t(p + "relu2", [&] { return std::move(a).relu(); });
}

// One bottleneck op by op, as FoldedBottleneck::forward.
Tensor<4> block_ops(Timer& t, const std::string& p, const models::FoldedBottleneck& b, const Tensor<4>& h) {
  const Tensor<4> id = b.downsample ? t(p + "downsample", [&] { return b.downsample->forward(h); }) : h;
  Tensor<4> a = t(p + "conv1", [&] { return b.conv1.forward(h); });
  a = t(p + "relu1", [&] { return std::move(a).relu(); });
  a = t(p + "conv2", [&] { return b.conv2.forward(a); });
  a = t(p + "relu2", [&] { return std::move(a).relu(); });
  a = t(p + "conv3", [&] { return b.conv3.forward(a); });
  a = t(p + "add", [&] { return std::move(a) + id; });
  return t(p + "relu3", [&] { return std::move(a).relu(); });
}

template <class Net>
void run_forwards(const Net& net, int64_t batch, int iters, Timer& tm, Timer& tm1) {
  const Tensor<4> x = bench::input<4>({batch, 3, 224, 224});
  // BURN_AB_VAR=NAME: an A/B in one process, NAME set to "0" and "1" on alternate forwards (for a kernel
  // that reads NAME per call); the table then has one column set per value.
  const char* ab = std::getenv("BURN_AB_VAR");
  for (int it = 0; it < (ab ? 2 * iters : iters) + 2; ++it) {
    if (ab) setenv(ab, it % 2 ? "1" : "0", 1);
    Timer local;
    Timer& t = it < 2 ? local : ab && it % 2 ? tm1 : tm;
    Tensor<4> h = t("stem conv", [&] { return net.conv1.forward(x); });
    h = t("maxpool", [&] { return net.maxpool.forward(h); });
    h = t("stem relu", [&] { return std::move(h).relu(); });  // after the pool, as the folded forwards
    int li = 1;
    for (const auto* layer : {&net.layer1, &net.layer2, &net.layer3, &net.layer4}) {
      for (size_t bi = 0; bi < layer->size(); ++bi)
        h = block_ops(t, "layer" + std::to_string(li) + "." + std::to_string(bi) + " ", (*layer)[bi], h);
      ++li;
    }
    const Tensor<4> pooled = t("avgpool", [&] { return net.avgpool.forward(h); });
    const Tensor<2> logits = t("fc", [&] { return net.fc.forward(pooled.flatten<2>(1, 3)); });
    benchmark::DoNotOptimize(logits.into_data());
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t batch = argc > 1 ? std::atoll(argv[1]) : 8;
  const int iters = argc > 2 ? std::atoi(argv[2]) : 10;
  const std::string arch = argc > 3 ? argv[3] : "resnet18";
  const Device& dev = bench::cpu();
  const char* ab = std::getenv("BURN_AB_VAR");
  Timer tm, tm1;
  if (arch == "resnet18") {
    run_forwards(models::ResNetConfig{}.init(dev).fold_batch_norms(), batch, iters, tm, tm1);
  } else if (arch == "resnet50") {
    run_forwards(models::BottleneckResNetConfig{}.init(dev).fold_batch_norms(), batch, iters, tm, tm1);
  } else {
    std::fprintf(stderr, "unknown ARCH '%s': resnet18 or resnet50\n", arch.c_str());
    return 2;
  }
  for (Timer* timer : {&tm, &tm1}) {
    if (timer->order.empty()) continue;
    if (ab) std::printf("%s=%d\n", ab, timer == &tm1 ? 1 : 0);
    double tw = 0, tm_ = 0, tc = 0, tcm = 0;
    std::printf("%-22s %12s %12s %12s %12s\n", "op", "wall min ms", "wall med ms", "cpu med ms", "cpu min ms");
    for (const std::string& n : timer->order) {
      const double wm = 1e3 * minimum(timer->wall[n]), w = 1e3 * median(timer->wall[n]);
      const double c = 1e3 * median(timer->cpu[n]), cm = 1e3 * minimum(timer->cpu[n]);
      tw += w, tm_ += wm, tc += c, tcm += cm;
      std::printf("%-22s %12.3f %12.3f %12.3f %12.3f\n", n.c_str(), wm, w, c, cm);
    }
    std::printf("%-22s %12.3f %12.3f %12.3f %12.3f\n", "sum", tm_, tw, tc, tcm);
  }
  return 0;
}
