// The Communicator: tensors staged through host memory (f16/bf16 as f32, bool as u8) and handed to
// the engine's Transport, one collective at a time, each with its timeout.
#include "burn/collective/communicator.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>

#include "burn/tensor/api.hpp"

namespace burn::collective {

struct Communicator::State {
  std::shared_ptr<const Engine> engine;  // declared first: destroyed after the transport it made
  std::unique_ptr<Transport> transport;  // null for a job of one rank
  std::string engine_name;
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  Timeout timeout{0};
  bool check_calls = true;  // exchange each call first (CommunicatorConfig::check_calls)
  std::mutex mutex;         // one collective at a time
  std::string broken;       // the first collective error; every later call repeats it
};

namespace {

using Timeout = Communicator::Timeout;

// The host copy of a tensor in the dtype the engine reduces: f16/bf16 widened to f32 (one rounding
// at the end, as burn computes them), bool as u8 (0/1).
struct Staged {
  TensorData data;
  DType dtype;
};

Staged stage_for_reduce(const TensorData& d) {
  if (d.dtype() == DType::F16 || d.dtype() == DType::BF16) return {d.convert(DType::F32), DType::F32};
  if (d.dtype() == DType::Bool) return {d, DType::U8};
  return {d, d.dtype()};
}

TensorData unstage(Staged s, DType original) {
  if (s.data.dtype() != original) return s.data.convert(original);
  return std::move(s.data);
}

// Mean is a sum divided by the world size; or and and are max and min of 0/1.
ReduceOp engine_op(ReduceOp op, DType original, const char* name) {
  if (op == ReduceOp::Mean && !is_float(original)) {
    throw DTypeError(name, std::string("mean of a ") + std::string(dtype_name(original)) +
                               " tensor: mean is for float dtypes (sum, max and min work on every dtype)");
  }
  if (original == DType::Bool && op == ReduceOp::Sum) return ReduceOp::Max;
  return op == ReduceOp::Mean ? ReduceOp::Sum : op;
}

// By a power of two the product with its inverse is the quotient exactly, and it vectorises (a
// scalar division per gradient was 1-2% of a data-parallel CNN step).
template <typename T>
void divide_as(T* p, int64_t n, int world) {
  if ((world & (world - 1)) == 0) {
    const T inverse = T(1) / static_cast<T>(world);
    for (int64_t i = 0; i < n; ++i) p[i] *= inverse;
  } else {
    for (int64_t i = 0; i < n; ++i) p[i] /= static_cast<T>(world);
  }
}

void divide(TensorData& d, int world) {
  if (d.dtype() == DType::F32)
    divide_as(static_cast<float*>(d.raw()), d.num_elements(), world);
  else
    divide_as(static_cast<double*>(d.raw()), d.num_elements(), world);
}

TensorData checked_data(const TensorHandle& t, const char* name) {
  if (!t.prim) throw ValueError(name, "empty tensor handle (a default-constructed or moved-from tensor)");
  return api::into_data(t);
}

TensorHandle to_device(const TensorHandle& like, const TensorData& d) {
  return api::from_data(like.device, d, api::kind_of(d.dtype()));
}

}  // namespace

Communicator Communicator::connect(const CommunicatorConfig& config) {
  const ConnectOptions& o = config.connect;
  if (o.world_size < 1 || o.rank < 0 || o.rank >= o.world_size) {
    throw ValueError("collective.connect", "rank " + std::to_string(o.rank) + " is outside [0, " +
                                               std::to_string(o.world_size) + ") (world size " +
                                               std::to_string(o.world_size) + ")");
  }
  if (o.timeout.count() <= 0) {
    throw ValueError("collective.connect", "timeout " + std::to_string(o.timeout.count()) + " ms: must be positive");
  }
  auto s = std::make_shared<State>();
  s->rank = o.rank;
  s->world_size = o.world_size;
  s->local_rank = config.local_rank;
  s->timeout = o.timeout;
  s->check_calls = config.check_calls;
  if (o.world_size == 1) {
    s->engine_name = "local";  // nothing to exchange: no plugin, no rendezvous
  } else {
    s->engine = engine(config.engine);
    s->transport = s->engine->connect(o);
    s->engine_name = s->engine->name();
  }
  return Communicator(std::move(s));
}

Communicator Communicator::from_environment() { return connect(CommunicatorConfig::from_environment()); }

int Communicator::rank() const { return s_->rank; }
int Communicator::world_size() const { return s_->world_size; }
int Communicator::local_rank() const { return s_->local_rank; }
std::string Communicator::engine_name() const { return s_->engine_name; }
Timeout Communicator::default_timeout() const { return s_->timeout; }

namespace {

// What a rank is about to do, exchanged (one small all_gather) before every collective: ranks that
// disagree get an error naming every rank's call, instead of Gloo overflowing a buffer (an abort in
// its I/O thread) or waiting for the timeout. Plain int64 fields: the same bytes on every machine.
struct OpCall {
  int64_t kind = 0;  // 1 all_reduce, 2 broadcast, 3 all_gather, 4 reduce_scatter, 5 barrier
  int64_t reduce = -1;
  int64_t dtype = -1;
  int64_t root = -1;
  int64_t rank = 0;  // dims
  int64_t dims[8] = {};
};
constexpr const char* kKindNames[] = {"?", "all_reduce", "broadcast", "all_gather", "reduce_scatter", "barrier"};

OpCall op_call(int64_t kind, const TensorData* d, int64_t reduce = -1, int64_t root = -1) {
  OpCall c;
  c.kind = kind;
  c.reduce = reduce;
  c.root = root;
  if (d) {
    c.dtype = static_cast<int64_t>(d->dtype());
    c.rank = static_cast<int64_t>(d->shape().rank());
    for (size_t i = 0; i < d->shape().rank() && i < 8; ++i) c.dims[i] = d->shape()[i];
  }
  return c;
}

std::string describe(const OpCall& c) {
  std::string s = c.kind >= 1 && c.kind <= 5 ? kKindNames[c.kind] : "unknown op " + std::to_string(c.kind);
  if (c.reduce >= 0) s += std::string("(") + reduce_op_name(static_cast<ReduceOp>(c.reduce)) + ")";
  if (c.root >= 0) s += "(root " + std::to_string(c.root) + ")";
  if (c.dtype >= 0 && c.dtype < static_cast<int64_t>(std::size(kAllDTypes))) {
    s += " " + std::string(dtype_name(static_cast<DType>(c.dtype))) + " [";
    for (int64_t i = 0; i < c.rank && i < 8; ++i) s += (i ? ", " : "") + std::to_string(c.dims[i]);
    s += c.rank > 8 ? ", ...]" : "]";
  }
  return s;
}

bool same(const OpCall& a, const OpCall& b) { return std::memcmp(&a, &b, sizeof(OpCall)) == 0; }

std::string who(const Communicator::State& s) {
  return "rank " + std::to_string(s.rank) + " of " + std::to_string(s.world_size);
}

// The ranks' calls, exchanged before the collective: an error naming every rank's call when they differ.
void require_same_calls(const Communicator::State& s, const char* name, const OpCall& call,
                        const std::vector<OpCall>& all) {
  bool agree = true;
  for (const OpCall& c : all) agree = agree && same(c, call);
  if (agree) return;
  std::string calls;
  for (size_t r = 0; r < all.size(); ++r)
    calls += (r ? ", rank " : "rank ") + std::to_string(r) + " " + describe(all[r]);
  throw CollectiveError(name, who(s) + ": the ranks called different collectives: " + calls);
}

// Runs f under the communicator's lock; a CollectiveError breaks the communicator, and one raised by
// the call exchange carries the caller's op (the exchange is part of the caller's collective).
template <typename F>
void locked(Communicator::State& s, const char* name, F&& f) {
  std::lock_guard lock(s.mutex);
  if (!s.broken.empty()) {
    throw CollectiveError(name, who(s) + ": the communicator is broken by an earlier error: " + s.broken);
  }
  try {
    f();
  } catch (const CollectiveError& e) {
    const std::string what = e.what();
    const std::string prefix = std::string("[") + name + "] ";
    if (what.rfind(prefix, 0) == 0) {
      s.broken = what;
      throw;
    }
    const size_t at = what.find("] ");
    const CollectiveError renamed(name, at == std::string::npos ? what : what.substr(at + 2));
    s.broken = renamed.what();
    throw renamed;
  }
}

// Runs one collective under the communicator's lock, after the ranks have agreed on the call.
template <typename F>
void run_collective(Communicator::State& s, const char* name, const OpCall& call, Timeout timeout, F&& f) {
  locked(s, name, [&] {
    const auto start = std::chrono::steady_clock::now();
    if (s.check_calls) {
      std::vector<OpCall> all(static_cast<size_t>(s.world_size));
      s.transport->exchange_calls(&call, all.data(), sizeof(OpCall), timeout);
      require_same_calls(s, name, call, all);
    }
    // The timeout bounds the exchange and the collective together.
    const auto spent = std::chrono::duration_cast<Timeout>(std::chrono::steady_clock::now() - start);
    f(std::max(timeout - spent, Timeout(1)));
  });
}

Timeout or_default(Timeout t, const Communicator::State& s) { return t.count() > 0 ? t : s.timeout; }

}  // namespace

void Communicator::all_reduce(TensorData& data, ReduceOp op, Timeout timeout) {
  constexpr const char* kName = "collective.all_reduce";
  const DType original = data.dtype();
  const ReduceOp eop = engine_op(op, original, kName);
  // In place, except for the half types, which are reduced in an f32 copy: a copy of the whole
  // buffer would cost as much as the exchange itself on a fast link (BENCHMARKS.md, "Distributed").
  const bool widen = original == DType::F16 || original == DType::BF16;
  TensorData widened = widen ? data.convert(DType::F32) : TensorData();
  TensorData& buffer = widen ? widened : data;
  const DType engine_dtype = widen ? DType::F32 : original == DType::Bool ? DType::U8 : original;
  const size_t n = static_cast<size_t>(buffer.num_elements());
  if (s_->transport) {
    const Timeout to = or_default(timeout, *s_);
    const OpCall call = op_call(1, &data, static_cast<int64_t>(op));
    locked(*s_, kName, [&] {
      if (!s_->check_calls) {
        if (n > 0) s_->transport->all_reduce(buffer.raw(), n, engine_dtype, eop, to);
        return;
      }
      // The calls travel with the data where the engine can (one exchange for a small buffer).
      std::vector<OpCall> all(static_cast<size_t>(s_->world_size));
      const auto same_calls = [&](const void*) {
        for (const OpCall& c : all)
          if (!same(c, call)) return false;
        return true;
      };
      if (!s_->transport->all_reduce_checked(buffer.raw(), n, engine_dtype, eop, &call, all.data(), sizeof(OpCall),
                                             same_calls, to)) {
        require_same_calls(*s_, kName, call, all);
        throw CollectiveError(kName, who(*s_) + ": the engine refused calls that agree");
      }
    });
  }
  if (op == ReduceOp::Mean) divide(buffer, s_->world_size);
  if (widen) data = widened.convert(original);
}

TensorHandle Communicator::all_reduce(const TensorHandle& t, ReduceOp op, Timeout timeout) {
  TensorData data = checked_data(t, "collective.all_reduce");
  all_reduce(data, op, timeout);
  return to_device(t, data);
}

TensorHandle Communicator::broadcast(const TensorHandle& t, int root, Timeout timeout) {
  constexpr const char* kName = "collective.broadcast";
  if (root < 0 || root >= s_->world_size) {
    throw ValueError(kName, "root " + std::to_string(root) + " is outside [0, " + std::to_string(s_->world_size) +
                                ") (world size " + std::to_string(s_->world_size) + ")");
  }
  TensorData data = checked_data(t, kName);
  const size_t bytes = data.bytes().size();
  if (s_->transport) {
    const Timeout to = or_default(timeout, *s_);
    run_collective(*s_, kName, op_call(2, &data, -1, root), to, [&](Timeout left) {
      if (bytes > 0) s_->transport->broadcast(data.raw(), bytes, root, left);
    });
  }
  return to_device(t, data);
}

TensorHandle Communicator::all_gather(const TensorHandle& t, Timeout timeout) {
  constexpr const char* kName = "collective.all_gather";
  const TensorData data = checked_data(t, kName);
  std::vector<int64_t> dims = data.shape().dims();
  dims.at(0) *= s_->world_size;
  TensorData out = TensorData::uninitialized(Shape(dims), data.dtype());
  const size_t bytes = data.bytes().size();
  if (s_->transport) {
    const Timeout to = or_default(timeout, *s_);
    run_collective(*s_, kName, op_call(3, &data), to, [&](Timeout left) {
      if (bytes > 0) s_->transport->all_gather(data.raw(), out.raw(), bytes, left);
    });
  } else if (bytes > 0) {
    std::memcpy(out.raw(), data.raw(), bytes);
  }
  return to_device(t, out);
}

TensorHandle Communicator::reduce_scatter(const TensorHandle& t, ReduceOp op, Timeout timeout) {
  constexpr const char* kName = "collective.reduce_scatter";
  const TensorData data = checked_data(t, kName);
  const DType original = data.dtype();
  const ReduceOp eop = engine_op(op, original, kName);
  std::vector<int64_t> dims = data.shape().dims();
  if (dims.at(0) % s_->world_size != 0) {
    throw ShapeError(kName, "shape " + data.shape().to_string() + ": dim 0 (" + std::to_string(dims[0]) +
                                ") must be a multiple of the world size (" + std::to_string(s_->world_size) + ")");
  }
  dims[0] /= s_->world_size;
  Staged in = stage_for_reduce(data);
  Staged out{TensorData::uninitialized(Shape(dims), in.data.dtype()), in.dtype};
  const size_t count = static_cast<size_t>(out.data.num_elements());
  if (s_->transport) {
    const Timeout to = or_default(timeout, *s_);
    run_collective(*s_, kName, op_call(4, &data, static_cast<int64_t>(op)), to, [&](Timeout left) {
      if (count > 0) s_->transport->reduce_scatter(in.data.raw(), out.data.raw(), count, in.dtype, eop, left);
    });
  } else if (count > 0) {
    std::memcpy(out.data.raw(), in.data.raw(), out.data.bytes().size());
  }
  if (op == ReduceOp::Mean) divide(out.data, s_->world_size);
  return to_device(t, unstage(std::move(out), original));
}

void Communicator::barrier(Timeout timeout) {
  if (!s_->transport) return;
  const Timeout to = or_default(timeout, *s_);
  run_collective(*s_, "collective.barrier", op_call(5, nullptr), to,
                 [&](Timeout left) { s_->transport->barrier(left); });
}

}  // namespace burn::collective
