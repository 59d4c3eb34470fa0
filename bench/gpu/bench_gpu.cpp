// The GPU measurements: burn-bench-gpu CASE [options], one JSON line per result on stdout, on a Vulkan or
// an OpenCL device (--device: "vulkan", "vulkan:1", "opencl", "opencl:nvidia"; the decorators are put
// around it).
//   dispatch     the fixed cost of one dispatch: a tiny elementwise op (x * 1.0001 on 256 f32) repeated;
//                the host's recording cost per op (no wait) and the end-to-end cost with the final sync, in
//                microseconds (median and minimum of 7 rounds), and the latency of one op + sync. On Vulkan
//                the ops are recorded into the stream's batches (BURN_VULKAN_BATCH, default 64 dispatches a
//                submission; a batch above --ops records everything before the one submission at the sync:
//                the recording alone, with no device work beside it); on OpenCL each is one enqueue.
//   steps        dispatches (Vulkan) or kernel launches (OpenCL) of one training step, autodiff<DEVICE>
//                against autodiff<fusion<DEVICE>>: the MLP 784-512-512-10 Adam step and the transformer
//                encoder layer forward + backward, alone and with its Adam update (bench/nn_models.hpp),
//                counted by the plugin (vulkan-stats, opencl-stats).
//   gemm         C = A x B, N x N x N, --dtype f32|f16; TFLOP/s (the kernel is the one the device's
//                profile picks: BURN_VULKAN_DISABLE=cooperative_matrix turns Vulkan's cooperative-matrix
//                one off, BURN_OPENCL_BLAS=off OpenCL's CLBlast path).
//   gemm_clblast CLBlast's own SGEMM, N x N x N, on the OpenCL device burn picks by default (the peer of
//                the OpenCL f32 row; bench/gpu/clblast_gemm.cpp).
//   bandwidth    y = x * 2 over --mib MiB of f32 against a copy of the same bytes (cat of x with itself,
//                the copy kernel), GB/s read + written.
//   resnet       inference of examples/models/resnet.hpp's ResNet-50 (torchvision's Bottleneck network) at
//                --batch B, 224 x 224, batch norms folded; ms per batch (--smoke: one block a layer, width 16).
//   transformer  the transformer layer forward + backward, autodiff<DEVICE> against autodiff<fusion<DEVICE>>,
//                ms per step.
//   devices      the devices of --device's kind, one line each (as `burn devices`); exit 77 when there is
//                none.
// A case the backend cannot run (burn::Unsupported) prints {"case": "unsupported", ...} and exits 3.
// --smoke: tiny sizes, so that every case runs in seconds on lavapipe and PoCL (bench/gpu/run.sh --smoke).
#include <burn/backend/opencl/stats.hpp>
#include <burn/backend/vulkan/stats.hpp>
#include <burn/nn.hpp>
#include <burn/nn/loss.hpp>
#include <burn/optim.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "../nn_models.hpp"
#include "clblast_gemm.hpp"
#include "resnet.hpp"

using namespace burn;

namespace {

struct Options {
  std::string device = "vulkan";
  bool smoke = false;
  int64_t size = 4096;
  double mib = 256;
  int64_t batch = 1;
  int reps = 0;  // 0: the case's default
  int ops = 20000;
  DType dtype = DType::F32;
};

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The median time of `reps` calls of `step` (each ending with a sync), after one warm-up call that also
// compiles the pipelines.
double time_ms(int reps, const std::function<void()>& step) {
  step();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = Clock::now();
    step();
    t.push_back(ms_since(t0));
  }
  return median(t);
}

// The plugin's counters: dispatches and submissions on Vulkan, kernel launches on OpenCL.
struct Counters {
  uint64_t launches = 0;
  std::optional<uint64_t> submits, barriers;  // Vulkan's alone
};

Counters counters(const Device& d) {
  if (auto* v = static_cast<vulkan::VulkanStatsSource*>(d.backend()->query_interface(vulkan::kVulkanStatsInterface))) {
    const vulkan::VulkanStats s = v->stats();
    return {s.dispatches, s.submits, s.barriers};
  }
  if (auto* c = static_cast<const opencl::OpenClStats*>(d.backend()->query_interface(opencl::kOpenClStatsInterface)))
    return {c->launches, std::nullopt, std::nullopt};
  std::fprintf(stderr, "burn-bench-gpu: %s has no counters (not a Vulkan or OpenCL chain)\n", d.name().c_str());
  std::exit(1);
}

// A counter difference as JSON: null where the backend has no such counter.
std::string delta(const std::optional<uint64_t>& after, const std::optional<uint64_t>& before) {
  return after && before ? std::to_string(*after - *before) : "null";
}

std::string chain(const Options& o, const char* decorators) {
  const std::string d = decorators;
  if (d.empty()) return o.device;
  std::string open = d, close;
  for (char c : d)
    if (c == '<') close += '>';
  return open + o.device + close;
}

void dispatch_cost(const Options& o) {
  const Device d = Device::get(o.device);
  const char* batch_env = std::getenv("BURN_VULKAN_BATCH");
  const int batch = batch_env && *batch_env ? std::atoi(batch_env) : 64;
  const int n = o.smoke ? 500 : o.ops;
  Tensor<1> x = Tensor<1>::ones(Shape{256}, d);
  // Warm-up: the pipeline compiled, the pool holding the few slices the loop cycles through.
  for (int i = 0; i < 200; ++i) x = x.mul_scalar(1.0001);
  d.sync();
  const int rounds = o.smoke ? 2 : 7;
  std::vector<double> record_us, total_us, latency_us;
  uint64_t dispatches = 0;
  std::string submits = "null";
  for (int r = 0; r < rounds; ++r) {
    const Counters s0 = counters(d);
    const auto t0 = Clock::now();
    for (int i = 0; i < n; ++i) x = x.mul_scalar(1.0001);
    const double rec = ms_since(t0);
    d.sync();
    const double tot = ms_since(t0);
    const Counters s1 = counters(d);
    dispatches = s1.launches - s0.launches;
    submits = delta(s1.submits, s0.submits);
    record_us.push_back(rec * 1e3 / n);
    total_us.push_back(tot * 1e3 / n);
    std::vector<double> lat;
    for (int i = 0; i < 50; ++i) {
      const auto t1 = Clock::now();
      x = x.mul_scalar(1.0001);
      d.sync();
      lat.push_back(ms_since(t1) * 1e3);
    }
    latency_us.push_back(median(lat));
  }
  std::printf(
      "{\"case\": \"dispatch\", \"device\": \"%s\", \"batch\": %d, \"ops\": %d, \"dispatches\": %llu, \"submits\": "
      "%s, \"record_us_per_op\": %.3f, \"end_to_end_us_per_op\": %.3f, \"one_op_sync_us\": %.2f, "
      "\"record_us_min\": %.3f, \"end_to_end_us_min\": %.3f}\n",
      d.name().c_str(), batch, n, static_cast<unsigned long long>(dispatches), submits.c_str(), median(record_us),
      median(total_us), median(latency_us), *std::min_element(record_us.begin(), record_us.end()),
      *std::min_element(total_us.begin(), total_us.end()));
}

// Dispatches and submissions of the third step (the first two compile and warm the pool).
void count_step(const char* name, const std::string& spec, const Device& vk, const std::function<void()>& step) {
  for (int i = 0; i < 2; ++i) step();
  const Counters s0 = counters(vk);
  const auto t0 = Clock::now();
  step();
  const double ms = ms_since(t0);
  const Counters s1 = counters(vk);
  std::printf(
      "{\"case\": \"steps\", \"step\": \"%s\", \"chain\": \"%s\", \"dispatches\": %llu, \"submits\": %s, "
      "\"barriers\": %s, \"ms\": %.1f}\n",
      name, spec.c_str(), static_cast<unsigned long long>(s1.launches - s0.launches),
      delta(s1.submits, s0.submits).c_str(), delta(s1.barriers, s0.barriers).c_str(), ms);
  std::fflush(stdout);
}

void steps(const Options& o) {
  const Device vk = Device::get(o.device);
  const int64_t mlp_batch = o.smoke ? 8 : 128;
  const int64_t tf_batch = o.smoke ? 1 : 4, tf_seq = o.smoke ? 8 : 64;
  for (const char* decorators : {"autodiff<", "autodiff<fusion<"}) {
    const std::string spec = chain(o, decorators);
    const Device ad = Device::get(spec);
    vk.seed(1234);
    {
      const Tensor<2> x = Tensor<2>::random(Shape{mlp_batch, 784}, Distribution::uniform(-1.0, 1.0), ad);
      const Tensor<1, Int> y =
          Tensor<2>::random(Shape{mlp_batch, 1}, Distribution::uniform(0, 10), vk).to_int().squeeze<1>(1).to_device(ad);
      bench::Mlp m = bench::make_mlp(ad);
      optim::Optimizer opt = optim::AdamConfig{}.init();
      const nn::loss::CrossEntropyLoss loss = nn::loss::CrossEntropyLossConfig{}.init(ad);
      count_step(("mlp_adam/784-512-512-10_b" + std::to_string(mlp_batch)).c_str(), spec, vk, [&] {
        Gradients g = loss.forward(m.forward(x), y).backward();
        m = opt.step(1e-3, m, optim::GradientsParams::from_grads(g, m));
        ad.sync();
      });
    }
    {
      const nn::TransformerEncoder enc = bench::make_transformer_layer(ad);
      const Tensor<3> x =
          Tensor<3>::random(Shape{tf_batch, tf_seq, 256}, Distribution::uniform(-1.0, 1.0), ad).require_grad();
      const std::string name =
          "transformer_layer_fwd_bwd/d256_h4_s" + std::to_string(tf_seq) + "_b" + std::to_string(tf_batch);
      count_step(name.c_str(), spec, vk, [&] {
        Gradients g = enc.forward({x, std::nullopt, std::nullopt}).mean().backward();
        ad.sync();
      });
      // The same with the Adam update of its parameters: a whole training step.
      nn::TransformerEncoder trained = enc;
      optim::Optimizer opt = optim::AdamConfig{}.init();
      const std::string adam =
          "transformer_layer_train_adam/d256_h4_s" + std::to_string(tf_seq) + "_b" + std::to_string(tf_batch);
      count_step(adam.c_str(), spec, vk, [&] {
        Gradients g = trained.forward({x, std::nullopt, std::nullopt}).mean().backward();
        trained = opt.step(1e-3, trained, optim::GradientsParams::from_grads(g, trained));
        ad.sync();
      });
    }
  }
}

void gemm(const Options& o) {
  const Device d = Device::get(o.device);
  const int64_t n = o.smoke ? 64 : o.size;
  d.seed(7);
  const Tensor<2> a = Tensor<2>::random(Shape{n, n}, Distribution::uniform(-1.0, 1.0), d, o.dtype);
  const Tensor<2> b = Tensor<2>::random(Shape{n, n}, Distribution::uniform(-1.0, 1.0), d, o.dtype);
  const int inner = o.smoke ? 1 : 10;
  const double ms = time_ms(o.reps ? o.reps : 5,
                            [&] {
                              for (int i = 0; i < inner; ++i) (void)a.matmul(b);
                              d.sync();
                            }) /
                    inner;
  const char* disabled = std::getenv("BURN_VULKAN_DISABLE");
  const char* blas = std::getenv("BURN_OPENCL_BLAS");
  std::printf(
      "{\"case\": \"gemm\", \"dtype\": \"%s\", \"n\": %lld, \"disabled\": \"%s\", \"blas\": \"%s\", \"ms\": %.4f, "
      "\"tflops\": %.3f}\n",
      std::string(dtype_name(o.dtype)).c_str(), static_cast<long long>(n), disabled ? disabled : "", blas ? blas : "",
      ms, 2.0 * n * n * n / (ms * 1e-3) / 1e12);
}

void bandwidth(const Options& o) {
  const Device d = Device::get(o.device);
  const int64_t n = static_cast<int64_t>((o.smoke ? 1.0 : o.mib) * 1024 * 1024 / 4);
  const Tensor<1> x = Tensor<1>::ones(Shape{n}, d);
  const int reps = o.reps ? o.reps : (o.smoke ? 2 : 20);
  const double ew = time_ms(reps, [&] {
    (void)x.mul_scalar(2.0);
    d.sync();
  });
  const double cp = time_ms(reps, [&] {
    (void)Tensor<1>::cat({x, x}, 0);
    d.sync();
  });
  const double bytes = 8.0 * n;  // read + write, each side (the copy moves 2x the bytes in 2 copies)
  std::printf(
      "{\"case\": \"bandwidth\", \"mib\": %.1f, \"elementwise_ms\": %.4f, \"elementwise_gbs\": %.1f, "
      "\"copy_ms\": %.4f, \"copy_gbs\": %.1f}\n",
      n * 4.0 / (1024 * 1024), ew, bytes / (ew * 1e-3) / 1e9, cp, 2 * bytes / (cp * 1e-3) / 1e9);
}

void resnet(const Options& o) {
  const Device d = Device::get(o.device);
  d.seed(3);
  models::BottleneckResNetConfig cfg;  // ResNet-50
  if (o.smoke) cfg.blocks = {1, 1, 1, 1}, cfg.width = 16;
  const models::FoldedBottleneckResNet net = cfg.init(d).fold_batch_norms();
  const int64_t hw = o.smoke ? 32 : 224;
  const int64_t batch = o.smoke ? std::min<int64_t>(o.batch, 2) : o.batch;  // --smoke: a few seconds on lavapipe
  const Tensor<4> x = Tensor<4>::random(Shape{batch, 3, hw, hw}, Distribution::uniform(-1.0, 1.0), d);
  const double ms = time_ms(o.reps ? o.reps : (o.smoke ? 1 : 10), [&] {
    (void)net.forward(x);
    d.sync();
  });
  std::printf("{\"case\": \"resnet\", \"model\": \"%s\", \"batch\": %lld, \"hw\": %lld, \"ms\": %.3f}\n",
              o.smoke ? "resnet-14 (smoke)" : "resnet-50", static_cast<long long>(batch), static_cast<long long>(hw),
              ms);
}

void transformer(const Options& o) {
  const int64_t batch = o.smoke ? 1 : 16, seq = o.smoke ? 8 : 128;
  double out[2];
  int i = 0;
  for (const char* decorators : {"autodiff<", "autodiff<fusion<"}) {
    const Device ad = Device::get(chain(o, decorators));
    Device::get(o.device).seed(5);
    const nn::TransformerEncoder enc = bench::make_transformer_layer(ad);
    const Tensor<3> x = Tensor<3>::random(Shape{batch, seq, 256}, Distribution::uniform(-1.0, 1.0), ad).require_grad();
    out[i++] = time_ms(o.reps ? o.reps : (o.smoke ? 1 : 10), [&] {
      Gradients g = enc.forward({x, std::nullopt, std::nullopt}).mean().backward();
      ad.sync();
    });
  }
  std::printf(
      "{\"case\": \"transformer\", \"shape\": \"d256_h4_s%lld_b%lld\", \"unfused_ms\": %.3f, \"fused_ms\": "
      "%.3f}\n",
      static_cast<long long>(seq), static_cast<long long>(batch), out[0], out[1]);
}

int devices(const Options& o) {
  try {
    const Device d = Device::get(o.device);
    auto* sel = static_cast<DeviceSelector*>(d.backend()->query_interface(kDeviceSelectorInterface));
    for (const std::string& line : sel ? sel->list() : std::vector<std::string>{d.name()})
      std::printf("{\"case\": \"devices\", \"device\": \"%s\"}\n", line.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "burn-bench-gpu: no %s device: %s\n", o.device.c_str(), e.what());
    return 77;
  }
}

int usage() {
  std::fprintf(stderr,
               "usage: burn-bench-gpu devices|dispatch|steps|gemm|gemm_clblast|bandwidth|resnet|transformer [--smoke]\n"
               "       [--device SPEC] [--size N] [--dtype f32|f16] [--mib M] [--batch B] [--reps R] [--ops N]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string which = argv[1];
  Options o;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "burn-bench-gpu: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--smoke") {
      o.smoke = true;
    } else if (a == "--device") {
      o.device = value();
    } else if (a == "--size") {
      o.size = std::atoll(value().c_str());
    } else if (a == "--mib") {
      o.mib = std::atof(value().c_str());
    } else if (a == "--batch") {
      o.batch = std::atoll(value().c_str());
    } else if (a == "--reps") {
      o.reps = std::atoi(value().c_str());
    } else if (a == "--ops") {
      o.ops = std::atoi(value().c_str());
    } else if (a == "--dtype") {
      const std::string t = value();
      if (t != "f32" && t != "f16") return usage();
      o.dtype = t == "f16" ? DType::F16 : DType::F32;
    } else {
      std::fprintf(stderr, "burn-bench-gpu: unknown argument '%s'\n", a.c_str());
      return usage();
    }
  }
  if (o.size < 1 || o.batch < 1 || o.mib <= 0 || o.ops < 1 || o.reps < 0) return usage();
  try {
    if (which == "devices") return devices(o);
    if (which == "dispatch") {
      dispatch_cost(o);
    } else if (which == "steps") {
      steps(o);
    } else if (which == "gemm") {
      gemm(o);
    } else if (which == "gemm_clblast") {
      return bench::clblast_gemm(o.smoke ? 64 : o.size, o.smoke ? 1 : 10, o.reps ? o.reps : (o.smoke ? 1 : 5));
    } else if (which == "bandwidth") {
      bandwidth(o);
    } else if (which == "resnet") {
      resnet(o);
    } else if (which == "transformer") {
      transformer(o);
    } else {
      return usage();
    }
  } catch (const Unsupported& e) {
    // A feature the backend lacks is a row of the table that names it, not a failed run (exit 3).
    std::string why = e.what();
    std::replace(why.begin(), why.end(), '"', '\'');
    std::printf("{\"case\": \"unsupported\", \"args\": \"%s\", \"dtype\": \"%s\", \"why\": \"%s\"}\n", which.c_str(),
                std::string(dtype_name(o.dtype)).c_str(), why.c_str());
    return 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "burn-bench-gpu %s: %s\n", which.c_str(), e.what());
    return 1;
  }
  return 0;
}
