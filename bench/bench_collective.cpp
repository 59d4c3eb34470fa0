// burn-bench-collective: one rank of the distributed measurements of the benchmark page (bench/distributed.py
// starts it under `burn run`). Rank 0 prints one JSON line per measurement; the other ranks print nothing.
//
//   burn run --nproc-per-node 2 -- burn-bench-collective all_reduce BYTES:WARMUP... [--reps R] [--rep-seconds S]
//   [--host]
//     burn's Communicator::all_reduce (sum) of an f32 CPU tensor of BYTES (--host: of host data in place,
//     TensorData, as DataParallel's buckets): one untimed call, then WARMUP calls whose pace
//     sizes R repetitions of about S seconds (0.2) each (the ranks agree on the count), each after a
//     barrier. Its peer is bench/collective/gloo_allreduce.cpp (Gloo alone, the same procedure).
//   burn run --nproc-per-node 2 -- burn-bench-collective dp_step [--batch 64] [--rounds 5] [--steps 6]
//     one data-parallel Adam step (forward, DataParallel::backward, update) of the MLP 784-512-512-10
//     (2.7 MB of gradients) on random data, with the all-reduces overlapping backward and after it
//     (DataParallelConfig::overlap), with 25 MiB (the default: one bucket) and 1 MiB buckets; the four
//     variants alternate in rounds, each step timed alone.
#include <algorithm>
#include <burn/collective/communicator.hpp>
#include <burn/nn/loss.hpp>
#include <burn/optim.hpp>
#include <burn/train/data_parallel.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "nn_models.hpp"

namespace {

using namespace burn;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string json_list(const std::vector<double>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    char t[32];
    std::snprintf(t, sizeof(t), "%s%.9g", i ? ", " : "", v[i]);
    s += t;
  }
  return s + "]";
}

// The calls per repetition: enough for about `rep_seconds` at the warm-up's pace, the largest count
// of any rank (every rank must make the same calls).
int64_t calls_for(collective::Communicator& comm, double warm_per_call, double rep_seconds) {
  const auto mine = static_cast<int64_t>(std::clamp(rep_seconds / std::max(warm_per_call, 1e-9), 1.0, 20000.0));
  TensorData d = TensorData::from_vector<int64_t>({mine}, Shape{1});
  comm.all_reduce(d, collective::ReduceOp::Max);
  return *static_cast<const int64_t*>(d.raw());
}

// host: the Communicator's host-data all_reduce in place (what DataParallel's buckets use) instead of
// the tensor one, which reads the tensor to host memory and makes the result on its device.
int all_reduce(collective::Communicator& comm, const std::vector<std::string>& sizes, int reps, double rep_seconds,
               bool host) {
  const Device cpu = Device::get("cpu");
  for (const std::string& spec : sizes) {
    const size_t colon = spec.find(':');
    const int64_t bytes = std::stoll(spec.substr(0, colon));
    const int warm = colon == std::string::npos ? 10 : std::stoi(spec.substr(colon + 1));
    const Tensor<1> t = Tensor<1>::ones({bytes / 4}, cpu);
    TensorData data = t.to_data();
    Tensor<1> out;
    // The first element of the result (host: in place, each call starts again from 1 there; the other
    // elements double, then stay inf, which costs the adds the same).
    auto call = [&]() -> float {
      if (!host) {
        out = comm.all_reduce(t);
        return 0;
      }
      static_cast<float*>(data.raw())[0] = 1.0f;
      comm.all_reduce(data, collective::ReduceOp::Sum);
      return static_cast<const float*>(data.raw())[0];
    };
    call();  // untimed: first touches of the buffers, the first exchange
    std::vector<double> times;
    int64_t iters = warm;
    for (int r = 0; r <= reps; ++r) {  // repetition 0 is the warm-up, which sizes the others
      comm.barrier();
      const auto start = Clock::now();
      float first = 0;
      for (int64_t i = 0; i < iters; ++i) first = call();
      const double per_call = seconds_since(start) / static_cast<double>(iters);
      if (r > 0) times.push_back(per_call);
      if (!host) first = out.slice({Slice{0, 1}}).to_vec<float>().at(0);
      if (first != static_cast<float>(comm.world_size())) {
        std::fprintf(stderr, "burn-bench-collective: rank %d: the sum of ones over %d ranks is %g\n", comm.rank(),
                     comm.world_size(), static_cast<double>(first));
        return 1;
      }
      if (r == 0) iters = calls_for(comm, per_call, rep_seconds);
    }
    if (comm.rank() == 0) {
      std::printf(
          "{\"case\": \"all_reduce\", \"side\": \"burn\", \"host\": %s, \"bytes\": %lld, \"warmup_calls\": %d, "
          "\"iters\": %lld, \"ranks\": %d, \"times_s\": %s}\n",
          host ? "true" : "false", static_cast<long long>(bytes), warm, static_cast<long long>(iters),
          comm.world_size(), json_list(times).c_str());
      std::fflush(stdout);
    }
  }
  return 0;
}

struct Variant {
  train::DataParallelConfig config;
  std::unique_ptr<train::DataParallel> dp;
  bench::Mlp model;
  optim::Optimizer opt;
  std::vector<double> times;
};

int dp_step(collective::Communicator& comm, int64_t batch, int rounds, int steps) {
  const Device ad = Device::get("autodiff<cpu>");
  const Device cpu = Device::get("cpu");
  ad.seed(1);
  cpu.seed(static_cast<uint64_t>(7 + comm.rank()));  // each rank its own data, as a sharded loader gives
  const Tensor<2> x = Tensor<2>::random(Shape{batch, 784}, Distribution::normal(0, 1), cpu).to_device(ad);
  const Tensor<1, Int> y =
      Tensor<2>::random(Shape{batch, 1}, Distribution::uniform(0, 10), cpu).to_int().squeeze<1>(1).to_device(ad);
  const nn::loss::CrossEntropyLoss loss = nn::loss::CrossEntropyLossConfig{}.init(ad);
  std::vector<Variant> variants;
  for (const size_t bucket : {size_t{25u << 20}, size_t{1u << 20}}) {
    for (const bool overlap : {true, false}) {
      Variant v{
          {.bucket_bytes = bucket, .overlap = overlap}, nullptr, bench::make_mlp(ad), optim::AdamConfig{}.init(), {}};
      v.dp = std::make_unique<train::DataParallel>(comm, v.config);
      v.model = v.dp->broadcast(v.model);
      variants.push_back(std::move(v));
    }
  }
  auto step = [&](Variant& v) {
    optim::GradientsParams grads = v.dp->backward(loss.forward(v.model.forward(x), y), v.model);
    v.model = v.opt.step(1e-3, v.model, std::move(grads));
  };
  for (Variant& v : variants)
    for (int i = 0; i < 2; ++i) step(v);  // warm-up; the first step fixes the bucket layout
  for (int r = 0; r < rounds; ++r) {
    for (Variant& v : variants) {
      for (int i = 0; i < steps; ++i) {
        const auto start = Clock::now();
        step(v);
        v.times.push_back(seconds_since(start));
      }
    }
  }
  int64_t grad_bytes = 0;
  for (const auto& p : nn::named_params(variants[0].model)) grad_bytes += p.param->num_elements() * 4;
  if (comm.rank() == 0) {
    for (const Variant& v : variants) {
      const train::DataParallel::StepStats s = v.dp->last_step();
      std::printf(
          "{\"case\": \"dp_step\", \"model\": \"mlp\", \"batch\": %lld, \"ranks\": %d, \"grad_bytes\": %lld, "
          "\"bucket_bytes\": %zu, \"overlap\": %s, \"buckets\": %zu, \"sent_during_backward\": %zu, "
          "\"times_s\": %s}\n",
          static_cast<long long>(batch), comm.world_size(), static_cast<long long>(grad_bytes), v.config.bucket_bytes,
          v.config.overlap ? "true" : "false", s.buckets, s.sent_during_backward, json_list(v.times).c_str());
    }
    std::fflush(stdout);
  }
  return 0;
}

int usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s all_reduce BYTES:WARMUP... [--reps R] [--rep-seconds S] [--host]\n"
               "       %s dp_step [--batch B] [--rounds R] [--steps S]\n"
               "(one rank: start it with `burn run --nproc-per-node 2 -- ...`)\n",
               argv0, argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage(argv[0]);
  const std::string mode = argv[1];
  std::vector<std::string> sizes;
  int reps = 5, rounds = 5, steps = 6;
  bool host = false;
  double rep_seconds = 0.2;
  int64_t batch = 64;
  for (int i = 2; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (!std::strcmp(argv[i], "--reps") && has_value)
      reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--rep-seconds") && has_value)
      rep_seconds = std::atof(argv[++i]);
    else if (!std::strcmp(argv[i], "--host"))
      host = true;
    else if (!std::strcmp(argv[i], "--batch") && has_value)
      batch = std::atoll(argv[++i]);
    else if (!std::strcmp(argv[i], "--rounds") && has_value)
      rounds = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--steps") && has_value)
      steps = std::atoi(argv[++i]);
    else if (mode == "all_reduce" && argv[i][0] != '-')
      sizes.emplace_back(argv[i]);
    else
      return usage(argv[0]);
  }
  try {
    collective::Communicator comm = collective::Communicator::from_environment();
    if (mode == "all_reduce" && !sizes.empty()) return all_reduce(comm, sizes, reps, rep_seconds, host);
    if (mode == "dp_step") return dp_step(comm, batch, rounds, steps);
    return usage(argv[0]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "burn-bench-collective: %s\n", e.what());
    return 1;
  }
}
