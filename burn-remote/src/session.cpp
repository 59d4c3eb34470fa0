// A client's session on the server: decodes its records (every size validated before allocation),
// runs ops on the backend through a dispatch generated from the op table, and keeps its handle table.
// An op that fails poisons its outputs: later ops over them fail the same way, and the failure is
// reported on the next read of them, or sync.
#include "session.hpp"

#include <algorithm>
#include <cstring>
#include <tuple>
#include <type_traits>

namespace burn::remote {

uint64_t prim_bytes(const Primitive& p) {
  uint64_t n = 1;
  for (int64_t d : p.shape()) n *= static_cast<uint64_t>(std::max<int64_t>(d, 0));
  return n * dtype_size(p.dtype());
}

Session::Session(BackendPtr backend, ServerLimits limits) : backend_(std::move(backend)), limits_(limits) {}

Session::~Session() = default;

std::optional<std::string> Session::check_hello(const std::vector<uint8_t>& body, const std::string& token) {
  Reader r(body.data(), body.size());
  if (r.u8() != static_cast<uint8_t>(Frame::Hello)) return "the first message must be a hello";
  const uint8_t* magic = r.take(sizeof(kMagic), "magic");
  if (std::memcmp(magic, kMagic, sizeof(kMagic)) != 0) return "not a burn remote client (bad magic)";
  const uint64_t version = r.u64();
  const std::string given = r.str("token");
  if (version != kProtocolVersion) {
    return "protocol version " + std::to_string(version) + " of the client differs from the server's " +
           std::to_string(kProtocolVersion) +
           ": client and server are different builds of burn (their op tables differ)";
  }
  if (!token.empty()) {
    // Constant time in the token's contents: every byte of the longer one is looked at.
    const size_t n = std::max(given.size(), token.size());
    unsigned diff = given.size() == token.size() ? 0u : 1u;
    for (size_t i = 0; i < n; ++i) {
      const unsigned char a = i < given.size() ? static_cast<unsigned char>(given[i]) : 0;
      const unsigned char b = i < token.size() ? static_cast<unsigned char>(token[i]) : 0;
      diff |= static_cast<unsigned>(a ^ b);
    }
    if (diff != 0) return "authentication failed: wrong or missing BURN_REMOTE_TOKEN";
  }
  return std::nullopt;
}

void Session::welcome(Writer& out) const {
  const size_t f = begin_frame(out, Frame::Welcome);
  out.str(backend_->name());
  out.u64(limits_.max_message_bytes);
  const auto bits = supports_bitmap(*backend_);
  out.u32(static_cast<uint32_t>(bits.size()));
  out.raw(bits.data(), bits.size());
  end_frame(out, f);
}

void Session::handle(const uint8_t* body, size_t size, Writer& out) {
  Reader r(body, size);
  if (r.u8() != static_cast<uint8_t>(Frame::Batch)) throw ProtocolError("expected a batch frame");
  const size_t n = r.count("batch", 5, SIZE_MAX);
  for (size_t i = 0; i < n; ++i) {
    const uint8_t kind = r.u8();
    if (kind == 0 || kind > kLastRecord) throw ProtocolError("unknown record kind " + std::to_string(kind));
    const uint32_t len = r.u32();
    Reader rec(r.take(len, "record"), len);
    record(static_cast<Record>(kind), rec, out);
    if (!rec.done()) throw ProtocolError("record of kind " + std::to_string(kind) + " has trailing bytes");
  }
  if (!r.done()) throw ProtocolError("batch has trailing bytes");
}

void Session::reply_error(Writer& out, uint64_t request, const std::shared_ptr<WireError>& e) {
  const size_t f = begin_frame(out, Frame::Reply);
  out.u64(request);
  out.u8(1);
  put(out, *e);
  end_frame(out, f);
  if (first_error_ == e) first_error_.reset();  // reported: a later sync does not report it again
}

void Session::record(Record kind, Reader& r, Writer& out) {
  switch (kind) {
    case Record::Op: return run_op(r, out);
    case Record::Free: return erase(r.u64());
    case Record::Seed: return backend_->seed(r.u64());
    case Record::Sync: {
      const uint64_t request = r.u64();
      try {
        backend_->sync();
      } catch (const std::exception& e) {
        if (!first_error_) first_error_ = std::make_shared<WireError>(capture_error(e));
      }
      if (first_error_) return reply_error(out, request, first_error_);
      const size_t f = begin_frame(out, Frame::Reply);
      out.u64(request);
      out.u8(0);
      return end_frame(out, f);
    }
    case Record::Read: {
      const uint64_t request = r.u64();
      const uint64_t handle = r.u64();
      const auto it = table_.find(handle);
      if (it == table_.end()) throw ProtocolError("read of unknown handle " + std::to_string(handle));
      if (it->second.poison) return reply_error(out, request, it->second.poison);
      TensorData data;
      try {
        data = backend_->into_data(it->second.prim);
      } catch (const std::exception& e) {
        return reply_error(out, request, std::make_shared<WireError>(capture_error(e)));
      }
      const size_t f = begin_frame(out, Frame::Reply);
      out.u64(request);
      out.u8(0);
      put(out, data);
      return end_frame(out, f);
    }
    case Record::Meta: throw ProtocolError("meta records are answered with their op");
  }
}

Prim Session::lookup(uint64_t handle) {
  if (handle == kNullHandle) return nullptr;
  const auto it = table_.find(handle);
  if (it == table_.end()) throw ProtocolError("unknown handle " + std::to_string(handle));
  if (it->second.poison && !input_poison_) input_poison_ = it->second.poison;
  return it->second.prim;
}

void Session::add(uint64_t handle, Entry e) {
  if (e.prim) bytes_ += prim_bytes(*e.prim);
  table_[handle] = std::move(e);
}

void Session::erase(uint64_t handle) {
  const auto it = table_.find(handle);
  if (it == table_.end()) throw ProtocolError("free of unknown handle " + std::to_string(handle));
  if (it->second.prim) bytes_ -= prim_bytes(*it->second.prim);
  table_.erase(it);
}

namespace {

// Whether a tensor parameter may be absent: the module ops' optional bias and mask, the norms' weight
// and running statistics, the quant ops' zero points (absent: symmetric; the op table's comments). Backends
// dereference every other one unchecked.
bool may_be_null(OpId op, std::string_view name) {
  if (name == "bias" || name == "mask") return true;
  const OpGroup group = op_info(op).group;
  if (group == OpGroup::quant) return name.ends_with("zero_points");
  return group == OpGroup::norm && (name == "weight" || name == "running_mean" || name == "running_var");
}

// The argument checks of the tensor API that backends rely on and that a shape rule does not repeat:
// a dim parameter names a dim of the first tensor; batch_norm in eval mode has its running statistics.
template <typename Tuple>
void check_arguments(OpId op, const Tuple& args, const char* const* names) {
  const Primitive* first = nullptr;
  std::apply(
      [&](const auto&... a) {
        size_t i = 0;
        auto visit = [&](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          const std::string_view name = names[i++];
          if constexpr (std::is_same_v<T, Prim>) {
            if (!first && x) first = x.get();
          } else if constexpr (std::is_same_v<T, size_t>) {
            if (name == "dim" && first && x >= first->shape().rank() && op != OpId::cat)
              throw IndexError(op_info(op).name, "dim " + std::to_string(x) + " of a tensor of rank " +
                                                     std::to_string(first->shape().rank()));
          }
        };
        (visit(a), ...);
      },
      args);
  if constexpr (std::tuple_size_v<Tuple> >= 6) {
    if constexpr (std::is_same_v<std::decay_t<std::tuple_element_t<5, Tuple>>, bool>)
      if (op == OpId::batch_norm && !std::get<5>(args) && (!std::get<3>(args) || !std::get<4>(args)))
        throw ValueError("batch_norm", "eval mode needs the running mean and variance");
  }
  if (op == OpId::cat) {
    if constexpr (std::is_same_v<std::decay_t<std::tuple_element_t<0, Tuple>>, Prims>) {
      const auto& xs = std::get<0>(args);
      if (xs.empty()) throw ValueError("cat", "no tensors");
      if (std::get<1>(args) >= xs.front()->shape().rank()) throw IndexError("cat", "dim out of range");
    }
  }
}

}  // namespace

template <typename T>
T Session::decode(Reader& r, OpId op, const char* name) {
  if constexpr (std::is_same_v<T, Prim>) {
    Prim p = lookup(r.u64());
    if (!p && !input_poison_ && !may_be_null(op, name))
      throw ProtocolError(std::string(op_info(op).name) + ": tensor parameter '" + name + "' is null");
    return p;
  } else if constexpr (std::is_same_v<T, Prims>) {
    const size_t n = r.count("prims", 8);
    Prims xs(n);
    for (auto& x : xs) {
      x = lookup(r.u64());
      if (!x && !input_poison_)
        throw ProtocolError(std::string(op_info(op).name) + ": a null tensor in '" + name + "'");
    }
    return xs;
  } else if constexpr (std::is_same_v<T, TensorData>) {
    return get_data(r, limits_.max_bytes > bytes_ ? limits_.max_bytes - bytes_ : 0);
  } else {
    return get<T>(r);
  }
}

template <typename R, typename... P>
std::vector<Prim> Session::execute(OpId op, R (Backend::*fn)(P...), Reader& r, const char* const* names) {
  return execute(op, fn, r, names, std::index_sequence_for<P...>{});
}

// Decodes the parameters in order (a braced list is evaluated left to right), then calls the op.
template <typename R, typename... P, size_t... I>
std::vector<Prim> Session::execute(OpId op, R (Backend::*fn)(P...), Reader& r, const char* const* names,
                                   std::index_sequence<I...>) {
  if constexpr (std::is_same_v<R, TensorData>) {
    throw ProtocolError(std::string(op_info(op).name) + " is a read, not an op record");
  } else {
    std::tuple<std::decay_t<P>...> args{decode<std::decay_t<P>>(r, op, names[I])...};
    if (!r.done()) throw ProtocolError(std::string(op_info(op).name) + ": trailing bytes after the parameters");
    if (input_poison_) return {};
    check_arguments(op, args, names);
    R result = std::apply([&](auto&... a) { return ((*backend_).*fn)(std::move(a)...); }, args);
    if constexpr (std::is_same_v<R, Prim>) {
      return {std::move(result)};
    } else if constexpr (std::is_same_v<R, PrimPair>) {
      return {std::move(result.first), std::move(result.second)};
    } else {
      static_assert(std::is_same_v<R, Prims>);
      if (result.size() > kMaxOutputs)
        throw Unsupported(op_info(op).name, "returns " + std::to_string(result.size()) +
                                                " tensors, the protocol carries " + std::to_string(kMaxOutputs));
      return result;
    }
  }
}

namespace {
// How many handles an op's outputs take: one per Prim, two for a pair, kMaxOutputs reserved for Prims.
#define BURN_REMOTE_OUTPUTS(group, name, tier, grad, bound, ret, ...) \
  std::is_same_v<ret, PrimPair> ? 2u : std::is_same_v<ret, Prims> ? kMaxOutputs : std::is_same_v<ret, Prim> ? 1u : 0u,
constexpr uint32_t kOutputHandles[kOpCount] = {BURN_OP_TABLE(BURN_REMOTE_OUTPUTS)};
#undef BURN_REMOTE_OUTPUTS
}  // namespace

void Session::run_op(Reader& r, Writer& out) {
  const uint16_t id = r.u16();
  if (id >= kOpCount) throw ProtocolError("unknown op id " + std::to_string(id));
  const auto op = static_cast<OpId>(id);
  const uint64_t first = r.u64();
  const uint64_t request = r.u64();
  const uint32_t handles = kOutputHandles[id];
  if (first < next_handle_ || first > UINT64_MAX - kMaxOutputs) {
    throw ProtocolError("output handle " + std::to_string(first) + " of " + op_info(op).name + " reuses a handle");
  }
  next_handle_ = first + std::max(handles, 1u);
  const size_t n_predicted = r.count("predicted metas", 1, kMaxOutputs);
  std::vector<Meta> predicted(n_predicted);
  for (auto& m : predicted) m = get_meta(r);
  if (table_.size() + handles > limits_.max_tensors + 1024) {
    throw ProtocolError("the client holds " + std::to_string(table_.size()) + " tensors, far past its limit of " +
                        std::to_string(limits_.max_tensors));
  }

  std::vector<Prim> results;
  std::shared_ptr<WireError> failure;
  input_poison_.reset();
  try {
    switch (op) {
#define BURN_REMOTE_PARAM_NAME(type, name) #name
#define BURN_REMOTE_RUN(group, name, tier, grad, bound, ret, ...)                              \
  case OpId::name: {                                                                           \
    static constexpr const char* names[] = {BURN_PP_MAP(BURN_REMOTE_PARAM_NAME, __VA_ARGS__)}; \
    results = execute(op, &Backend::name, r, names);                                           \
    break;                                                                                     \
  }
      BURN_OP_TABLE(BURN_REMOTE_RUN)
#undef BURN_REMOTE_RUN
#undef BURN_REMOTE_PARAM_NAME
    }
    if (input_poison_) {
      failure = input_poison_;
    } else {
      uint64_t add_bytes = 0;
      for (const auto& p : results) add_bytes += p ? prim_bytes(*p) : 0;
      if (table_.size() + results.size() > limits_.max_tensors)
        throw OutOfMemory(op_info(op).name, "the client holds " + std::to_string(table_.size()) +
                                                " tensors on the server, its limit is " +
                                                std::to_string(limits_.max_tensors));
      if (bytes_ + add_bytes > limits_.max_bytes)
        throw OutOfMemory(op_info(op).name, "the client would hold " + std::to_string(bytes_ + add_bytes) +
                                                " bytes of tensors on the server, its limit is " +
                                                std::to_string(limits_.max_bytes));
      if (!predicted.empty()) {
        bool same = predicted.size() == results.size();
        for (size_t i = 0; same && i < results.size(); ++i) {
          const Meta m = results[i] ? Meta{true, results[i]->shape(), results[i]->dtype()} : Meta{};
          same = m == predicted[i];
        }
        if (!same)
          throw Error(op_info(op).name,
                      "remote: the client predicted other output shapes or dtypes than the server's "
                      "backend produced (a bug of burn-remote's shape prediction)");
      }
    }
  } catch (const ProtocolError&) {
    throw;
  } catch (const std::exception& e) {
    failure = std::make_shared<WireError>(capture_error(e));
    results.clear();
  }

  if (failure) {
    // The client frees every handle it was given: one, two, or the first of a Prims result.
    for (uint32_t i = 0; i < (handles == 2 ? 2u : 1u); ++i) add(first + i, Entry{nullptr, failure});
    if (request != 0) return reply_error(out, request, failure);
    if (!first_error_) first_error_ = failure;
    return;
  }
  for (size_t i = 0; i < results.size(); ++i)
    if (results[i]) add(first + i, Entry{std::move(results[i]), nullptr});
  if (request == 0) return;
  const size_t f = begin_frame(out, Frame::Reply);
  out.u64(request);
  out.u8(0);
  out.u32(static_cast<uint32_t>(results.size()));
  for (size_t i = 0; i < results.size(); ++i) {
    const auto it = table_.find(first + i);
    put(out, it == table_.end() ? Meta{} : Meta{true, it->second.prim->shape(), it->second.prim->dtype()});
  }
  end_frame(out, f);
}

}  // namespace burn::remote
