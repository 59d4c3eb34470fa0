// Collectives on Gloo's algorithms (ring allreduce, one-to-all broadcast, ring allgather, pairwise
// alltoall for reduce_scatter). Each op has a tag of its own (the ranks count ops in the same order)
// and its timeout; a failure is turned into a CollectiveError that names the dead peer when it can.
//
// The Communicator's call check travels in a frame of a fixed capacity that every rank sends every
// other (Gloo's unbound buffers, a slot sequence of its own): a receiver never gets more than it posted,
// whatever the peer called. An all_reduce puts its first kInlineBytes of data in the frame too: a small
// one is done in that one exchange, each rank reducing the frames in rank order (the same values on
// every rank). On 2 ranks the rest goes straight to the peer once the calls agree, in segments reduced
// as they arrive (the bytes of a 2-rank ring in one step instead of two); on more, Gloo's ring reduces it.
#include "gloo_transport.hpp"

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/math.h>
#include <gloo/types.h>
#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "sigpipe.hpp"

namespace burn::collective::gloo_engine {

namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;
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

// Slot prefixes of the call frames and of a 2-rank all-reduce's rest (Gloo's own prefixes are 0x01-0x08).
constexpr uint8_t kFrameSlotPrefix = 0x40;
constexpr uint8_t kRestSlotPrefix = 0x41;
// An all_reduce's data carried in its call frame (a multiple of every element size).
constexpr size_t kInlineBytes = 64u << 10;
// A 2-rank all_reduce's rest is sent in segments of this size, each reduced as it arrives.
constexpr size_t kSegmentBytes = 4u << 20;

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

  void exchange_calls(const void* call, void* calls, size_t call_bytes, milliseconds timeout) override {
    run("collective.call_check", timeout, [&] {
      exchange_frames(call, call_bytes, nullptr, 0, Clock::now() + timeout);
      for (int r = 0; r < world_; ++r)
        std::memcpy(static_cast<uint8_t*>(calls) + call_bytes * static_cast<size_t>(r), frame(r), call_bytes);
    });
  }

  bool all_reduce_checked(void* data, size_t count, DType dtype, ReduceOp op, const void* call, void* calls,
                          size_t call_bytes, const std::function<bool(const void*)>& agree,
                          milliseconds timeout) override {
    const char* name = "collective.all_reduce";
    const Reduction r = reduction(dtype, op, name);
    const size_t bytes = count * r.element_size;
    const size_t first = std::min(bytes, kInlineBytes);
    const auto deadline = Clock::now() + timeout;
    bool agreed = false;
    run(name, timeout, [&] {
      auto* d = static_cast<uint8_t*>(data);
      const bool direct = bytes > first && world_ == 2;
      // Posted before the calls are known to agree: the peer sends nothing into them unless they do.
      std::unique_ptr<::gloo::transport::UnboundBuffer> out;
      uint64_t rest_slot = 0;
      size_t segments = 0;
      if (direct) {
        rest_slot = ::gloo::Slot::build(kRestSlotPrefix, next_tag());
        if (inbox_.size() < bytes - first) {
          inbox_buf_.reset();
          inbox_ = std::vector<uint8_t>(bytes - first);
          inbox_buf_ = context_->createUnboundBuffer(inbox_.data(), inbox_.size());
        }
        segments = (bytes - first + kSegmentBytes - 1) / kSegmentBytes;
        for (size_t k = 0; k < segments; ++k)
          inbox_buf_->recv(1 - rank_, rest_slot, k * kSegmentBytes, segment_bytes(k, bytes - first));
      }
      exchange_frames(call, call_bytes, d, first, deadline);
      for (int q = 0; q < world_; ++q)
        std::memcpy(static_cast<uint8_t*>(calls) + call_bytes * static_cast<size_t>(q), frame(q), call_bytes);
      if (!agree(calls)) return;
      agreed = true;
      if (direct) {
        out = context_->createUnboundBuffer(d + first, bytes - first);
        for (size_t k = 0; k < segments; ++k)
          out->send(1 - rank_, rest_slot, k * kSegmentBytes, segment_bytes(k, bytes - first));
      }
      // The first part: the frames in rank order.
      const size_t n_first = first / r.element_size;
      if (first > 0) {
        r.fn(d, frame(0) + call_bytes_padded_, frame(1) + call_bytes_padded_, n_first);
        for (int q = 2; q < world_; ++q) r.fn(d, d, frame(q) + call_bytes_padded_, n_first);
      }
      if (bytes == first) return;
      if (!direct) {  // more than 2 ranks: Gloo's ring on the rest
        ::gloo::AllreduceOptions opts(context_);
        set_buffer(opts, d + first, count - n_first, r.element_size);
        opts.setReduceFunction(r.fn);
        opts.setTag(next_tag());
        opts.setTimeout(left(deadline));
        ::gloo::allreduce(opts);
        return;
      }
      // Segments complete in order (one pair, one slot): each is reduced once both sides are done with it.
      for (size_t k = 0; k < segments; ++k) {
        inbox_buf_->waitRecv(left(deadline));
        out->waitSend(left(deadline));
        const size_t off = k * kSegmentBytes;
        uint8_t* mine = d + first + off;
        const uint8_t* peer = inbox_.data() + off;
        const size_t n = segment_bytes(k, bytes - first) / r.element_size;
        if (rank_ == 0)
          r.fn(mine, mine, peer, n);
        else
          r.fn(mine, peer, mine, n);
      }
    });
    return agreed;
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

  static milliseconds left(Clock::time_point deadline) {
    return std::max(std::chrono::duration_cast<milliseconds>(deadline - Clock::now()), milliseconds(1));
  }

  static size_t segment_bytes(size_t k, size_t total) { return std::min(kSegmentBytes, total - k * kSegmentBytes); }

  // Rank q's frame: its call, padded to 8 bytes, then the data it carried.
  const uint8_t* frame(int q) const { return frames_.data() + frame_capacity_ * static_cast<size_t>(q); }

  // Sends this rank's frame (the call, then `data_bytes` of `data`) to every other rank and receives
  // theirs; every frame is at most frame_capacity_, which every rank posts for every peer.
  void exchange_frames(const void* call, size_t call_bytes, const void* data, size_t data_bytes,
                       Clock::time_point deadline) {
    const size_t padded = (call_bytes + 7) / 8 * 8;
    if (frames_buf_ == nullptr || padded != call_bytes_padded_) {
      call_bytes_padded_ = padded;
      frame_capacity_ = padded + kInlineBytes;
      frames_buf_.reset();
      frames_ = std::vector<uint8_t>(frame_capacity_ * static_cast<size_t>(world_));
      frames_buf_ = context_->createUnboundBuffer(frames_.data(), frames_.size());
    }
    const uint64_t slot = ::gloo::Slot::build(kFrameSlotPrefix, call_seq_++);
    const size_t mine = frame_capacity_ * static_cast<size_t>(rank_);
    for (int q = 0; q < world_; ++q)
      if (q != rank_) frames_buf_->recv(q, slot, frame_capacity_ * static_cast<size_t>(q), frame_capacity_);
    std::memcpy(frames_.data() + mine, call, call_bytes);
    if (data_bytes > 0) std::memcpy(frames_.data() + mine + padded, data, data_bytes);
    for (int q = 0; q < world_; ++q)
      if (q != rank_) frames_buf_->send(q, slot, mine, padded + data_bytes);
    for (int q = 1; q < world_; ++q) {
      frames_buf_->waitRecv(left(deadline));
      frames_buf_->waitSend(left(deadline));
    }
  }

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
  uint32_t call_seq_ = 0;  // the call frames' own sequence: one per checked collective, whatever its op
  // Kept across calls (fresh pages cost tens of µs each on some VMs): every rank's frame, and the
  // peer's rest of a 2-rank all_reduce (grown to the largest).
  size_t call_bytes_padded_ = 0;
  size_t frame_capacity_ = 0;
  std::vector<uint8_t> frames_;
  std::unique_ptr<::gloo::transport::UnboundBuffer> frames_buf_;
  std::vector<uint8_t> inbox_;
  std::unique_ptr<::gloo::transport::UnboundBuffer> inbox_buf_;
};

}  // namespace

std::unique_ptr<Transport> make_transport(const ConnectOptions& options) {
  return std::make_unique<GlooTransport>(options, join(options));
}

}  // namespace burn::collective::gloo_engine
