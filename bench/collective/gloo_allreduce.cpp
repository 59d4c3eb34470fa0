// burn-bench-gloo-allreduce: Gloo's own allreduce, the peer of burn-bench-collective's all_reduce rows,
// linked against Debian's libgloo alone (no burn library). One rank of a job started the same way, by
// `burn run` (RANK, WORLD_SIZE and BURN_RENDEZVOUS=file:///dir from its environment), and connected as
// burn's gloo plugin connects (burn-collective/plugins/gloo/rendezvous.cpp): Gloo's FileStore in that
// directory under a prefix, a TCP device on 127.0.0.1, a full mesh. Each call is what the plugin runs
// for an f32 sum (gloo_transport.cpp): gloo::allreduce (the ring algorithm, Gloo's default) in place
// with gloo::sum<float>, a tag of its own and a timeout. Rank 0 prints one JSON line per size.
//
//   burn run --nproc-per-node 2 -- burn-bench-gloo-allreduce BYTES:WARMUP... [--reps R] [--rep-seconds S]
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::chrono::milliseconds kTimeout(300000);  // the Communicator's default (300 s)

int env_int(const char* name) {
  const char* v = std::getenv(name);
  if (!v) throw std::runtime_error(std::string(name) + " is not set: start the ranks with `burn run`");
  return std::atoi(v);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> sizes;
  int reps = 5;
  double rep_seconds = 0.2;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--rep-seconds") && i + 1 < argc) {
      rep_seconds = std::atof(argv[++i]);
    } else if (argv[i][0] != '-') {
      sizes.emplace_back(argv[i]);
    } else {
      std::fprintf(stderr, "usage: %s BYTES:WARMUP... [--reps R] [--rep-seconds S] (under burn run)\n", argv[0]);
      return 2;
    }
  }
  try {
    const int rank = env_int("RANK"), world = env_int("WORLD_SIZE");
    const char* rdzv = std::getenv("BURN_RENDEZVOUS");
    if (!rdzv || std::strncmp(rdzv, "file://", 7) != 0)
      throw std::runtime_error("BURN_RENDEZVOUS must be file:///dir (as burn run sets it on one machine)");
    const char* run_id = std::getenv("BURN_RUN_ID");
    ::gloo::rendezvous::FileStore file_store(rdzv + 7);
    ::gloo::rendezvous::PrefixStore store(std::string(run_id ? run_id : "burn") + "-gloo-bench", file_store);
    ::gloo::transport::tcp::attr attr;
    attr.hostname = "127.0.0.1";
    auto device = ::gloo::transport::tcp::CreateDevice(attr);
    auto context = std::make_shared<::gloo::rendezvous::Context>(rank, world);
    context->setTimeout(kTimeout);
    context->connectFullMesh(store, device);

    uint32_t tag = 0;
    // The plugin's f32 sum: gloo::allreduce in place, options made per call, a tag of its own.
    auto allreduce = [&](void* data, size_t count, void (*fn)(void*, const void*, const void*, size_t), bool wide) {
      ::gloo::AllreduceOptions opts(context);
      if (wide)
        opts.setOutput(static_cast<uint64_t*>(data), count);
      else
        opts.setOutput(static_cast<uint32_t*>(data), count);
      opts.setReduceFunction(fn);
      opts.setTag(tag++);
      opts.setTimeout(kTimeout);
      ::gloo::allreduce(opts);
    };
    for (const std::string& spec : sizes) {
      const size_t colon = spec.find(':');
      const size_t bytes = std::stoull(spec.substr(0, colon));
      const int warm = colon == std::string::npos ? 10 : std::stoi(spec.substr(colon + 1));
      std::vector<float> buf(bytes / 4);
      std::vector<double> times;
      allreduce(buf.data(), buf.size(), &::gloo::sum<float>, false);  // untimed: first touches, first exchange
      int64_t iters = warm;
      for (int r = 0; r <= reps; ++r) {  // repetition 0 is the warm-up, which sizes the others
        ::gloo::BarrierOptions b(context);
        b.setTag(tag++);
        b.setTimeout(kTimeout);
        ::gloo::barrier(b);
        const auto start = Clock::now();
        for (int64_t i = 0; i < iters; ++i) {
          if (!buf.empty()) buf[0] = 1.0f;  // checked after the repetition (the rest stays 0 + 0)
          allreduce(buf.data(), buf.size(), &::gloo::sum<float>, false);
        }
        const double per_call =
            std::chrono::duration<double>(Clock::now() - start).count() / static_cast<double>(iters);
        if (r > 0) times.push_back(per_call);
        if (!buf.empty() && buf[0] != static_cast<float>(world)) {
          std::fprintf(stderr, "burn-bench-gloo-allreduce: rank %d: the sum over %d ranks is %g\n", rank, world,
                       static_cast<double>(buf[0]));
          return 1;
        }
        if (r == 0) {  // as burn-bench-collective: about rep_seconds a repetition, the ranks' largest count
          int64_t n = static_cast<int64_t>(std::clamp(rep_seconds / std::max(per_call, 1e-9), 1.0, 20000.0));
          allreduce(&n, 1, &::gloo::max<int64_t>, true);
          iters = n;
        }
      }
      if (rank == 0) {
        std::string list = "[";
        for (size_t i = 0; i < times.size(); ++i) {
          char t[32];
          std::snprintf(t, sizeof(t), "%s%.9g", i ? ", " : "", times[i]);
          list += t;
        }
        list += "]";
        std::printf(
            "{\"case\": \"all_reduce\", \"side\": \"gloo\", \"bytes\": %zu, \"warmup_calls\": %d, "
            "\"iters\": %lld, \"ranks\": %d, \"times_s\": %s}\n",
            bytes, warm, static_cast<long long>(iters), world, list.c_str());
        std::fflush(stdout);
      }
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "burn-bench-gloo-allreduce: %s\n", e.what());
    return 1;
  }
}
