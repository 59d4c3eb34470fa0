// Collectives on Gloo's algorithms (ring allreduce, one-to-all broadcast, ring allgather, pairwise
// alltoall for reduce_scatter). Each op has a tag of its own (the ranks count ops in the same order)
// and its timeout; a failure is turned into a CollectiveError that names the dead peer when it can.
#include "gloo_transport.hpp"

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/math.h>
#include <signal.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "sigpipe.hpp"

namespace burn::collective::gloo_engine {

namespace {

using std::chrono::milliseconds;
using ReduceFn = void (*)(void*, const void*, const void*, size_t);

template <typename T>
ReduceFn reduce_fn(ReduceOp op) {
  switch (op) {
    case ReduceOp::Max: return &::gloo::max<T>;
    case ReduceOp::Min: return &::gloo::min<T>;
    default: return &::gloo::sum<T>;
  }
}

// The element size and reduction of an engine dtype (the Communicator stages the others).
struct Reduction {
  size_t element_size;
  ReduceFn fn;
};

Reduction reduction(DType d, ReduceOp op, const char* name) {
  if (op == ReduceOp::Mean)
    throw ValueError(name, "the engine is given sum, max or min (mean is a sum then a division)");
  switch (d) {
    case DType::F32: return {4, reduce_fn<float>(op)};
    case DType::F64: return {8, reduce_fn<double>(op)};
    case DType::I64: return {8, reduce_fn<int64_t>(op)};
    case DType::I32: return {4, reduce_fn<int32_t>(op)};
    case DType::I8: return {1, reduce_fn<int8_t>(op)};
    case DType::U8: return {1, reduce_fn<uint8_t>(op)};
    default:
      throw Unsupported(name, std::string("the gloo engine reduces f32, f64, i64, i32, i8 and u8, not ") +
                                  std::string(dtype_name(d)) + " (the Communicator stages f16, bf16 and bool)");
  }
}

// Whether a process of this host is gone (no such pid, or a zombie waiting for its parent).
bool process_gone(long pid) {
  if (pid <= 0) return false;
  if (::kill(static_cast<pid_t>(pid), 0) != 0) return errno == ESRCH;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && (line[close + 2] == 'Z' || line[close + 2] == 'X');
}

class GlooTransport final : public Transport {
 public:
  GlooTransport(const ConnectOptions& o, Joined joined)
      : rank_(o.rank),
        world_(o.world_size),
        context_(std::move(joined.context)),
        peers_(std::move(joined.peers)),
        host_(host_name()) {}

  int rank() const override { return rank_; }
  int world_size() const override { return world_; }

  void all_reduce(void* data, size_t count, DType dtype, ReduceOp op, milliseconds timeout) override {
    const char* name = "collective.all_reduce";
    const Reduction r = reduction(dtype, op, name);
    run(name, timeout, [&] {
      ::gloo::AllreduceOptions opts(context_);
      set_buffer(opts, data, count, r.element_size);
      opts.setReduceFunction(r.fn);
      opts.setTag(next_tag());
      opts.setTimeout(timeout);
      ::gloo::allreduce(opts);
    });
  }

  void broadcast(void* data, size_t bytes, int root, milliseconds timeout) override {
    run("collective.broadcast", timeout, [&] {
      ::gloo::BroadcastOptions opts(context_);
      opts.setOutput<uint8_t>(static_cast<uint8_t*>(data), bytes);
      opts.setRoot(root);
      opts.setTag(next_tag());
      opts.setTimeout(timeout);
      ::gloo::broadcast(opts);
    });
  }

  void all_gather(const void* in, void* out, size_t bytes_per_rank, milliseconds timeout) override {
    run("collective.all_gather", timeout, [&] {
      ::gloo::AllgatherOptions opts(context_);
      opts.setInput<uint8_t>(static_cast<uint8_t*>(const_cast<void*>(in)), bytes_per_rank);
      opts.setOutput<uint8_t>(static_cast<uint8_t*>(out), bytes_per_rank * static_cast<size_t>(world_));
      opts.setTag(next_tag());
      opts.setTimeout(timeout);
      ::gloo::allgather(opts);
    });
  }

  // Block r of every rank goes to rank r (one alltoall), which reduces the blocks in rank order: the
  // bytes a ring reduce-scatter moves, in one exchange.
  void reduce_scatter(const void* in, void* out, size_t count_per_rank, DType dtype, ReduceOp op,
                      milliseconds timeout) override {
    const char* name = "collective.reduce_scatter";
    const Reduction r = reduction(dtype, op, name);
    const size_t block = count_per_rank * r.element_size;
    std::vector<uint8_t> blocks(block * static_cast<size_t>(world_));
    run(name, timeout, [&] {
      ::gloo::AlltoallOptions opts(context_);
      opts.setInput<uint8_t>(static_cast<uint8_t*>(const_cast<void*>(in)), blocks.size());
      opts.setOutput<uint8_t>(blocks.data(), blocks.size());
      opts.setTag(next_tag());
      opts.setTimeout(timeout);
      ::gloo::alltoall(opts);
    });
    std::memcpy(out, blocks.data(), block);
    for (int p = 1; p < world_; ++p) r.fn(out, out, blocks.data() + block * static_cast<size_t>(p), count_per_rank);
  }

  void barrier(milliseconds timeout) override {
    run("collective.barrier", timeout, [&] {
      ::gloo::BarrierOptions opts(context_);
      opts.setTag(next_tag());
      opts.setTimeout(timeout);
      ::gloo::barrier(opts);
    });
  }

 private:
  // AllreduceOptions takes the element size from the pointer's type (the reduction is untyped).
  static void set_buffer(::gloo::AllreduceOptions& opts, void* data, size_t count, size_t element_size) {
    switch (element_size) {
      case 1: opts.setOutput(static_cast<uint8_t*>(data), count); break;
      case 4: opts.setOutput(static_cast<uint32_t*>(data), count); break;
      default: opts.setOutput(static_cast<uint64_t*>(data), count); break;
    }
  }

  uint32_t next_tag() { return tag_++; }

  template <typename F>
  void run(const char* name, milliseconds timeout, F&& f) {
    const SigpipeBlocked blocked;
    try {
      f();
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      throw CollectiveError(name, describe_failure(e.what(), timeout));
    }
  }

  // Names the peer whose process is gone when it ran on this host (its sockets close as it dies, a
  // moment before the process is reaped: look for up to a second), else says what Gloo saw.
  std::string describe_failure(const std::string& what, milliseconds timeout) const {
    const std::string me = "rank " + std::to_string(rank_) + " of " + std::to_string(world_);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    do {
      std::string gone;
      int count = 0;
      for (int p = 0; p < world_; ++p) {
        const PeerRecord& rec = peers_[static_cast<size_t>(p)];
        if (p == rank_ || rec.host != host_ || !process_gone(rec.pid)) continue;
        gone += (gone.empty() ? "" : ", ") + ("rank " + std::to_string(p) + " (pid " + std::to_string(rec.pid) + ")");
        ++count;
      }
      if (count == 1) return me + ": peer " + gone + " has exited (gloo: " + what + ")";
      if (count > 1) return me + ": peers " + gone + " have exited (gloo: " + what + ")";
      std::this_thread::sleep_for(milliseconds(20));
    } while (std::chrono::steady_clock::now() < until);
    if (what.find("imed out") != std::string::npos || what.find("imeout") != std::string::npos) {
      std::ostringstream s;
      s << me << ": timed out after " << static_cast<double>(timeout.count()) / 1000.0
        << " s: a peer did not take part in time (stopped, too slow, dead on another machine, or in another "
           "collective) (gloo: "
        << what << ")";
      return s.str();
    }
    return me + ": a peer failed or its connection broke (gloo: " + what + ")";
  }

  const int rank_;
  const int world_;
  std::shared_ptr<::gloo::rendezvous::Context> context_;
  std::vector<PeerRecord> peers_;
  std::string host_;
  uint32_t tag_ = 0;
};

}  // namespace

std::unique_ptr<Transport> make_transport(const ConnectOptions& options) {
  return std::make_unique<GlooTransport>(options, join(options));
}

}  // namespace burn::collective::gloo_engine
