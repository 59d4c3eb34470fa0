// remote<tcp://host:port>: a Backend whose every op of the table is an op record sent to the server.
// Ops whose outputs the client can predict (predict.hpp) are sent without waiting; the others, reads and
// syncs wait for the server's reply. The declarations and the forwarding bodies are generated from
// the op table.
#include <utility>

#include "burn/remote/remote.hpp"
#include "client.hpp"
#include "predict.hpp"

namespace burn::remote {
namespace {

class RemoteBackend final : public Backend, public RemoteStatsSource {
 public:
  explicit RemoteBackend(std::shared_ptr<Connection> c) : c_(std::move(c)) {}

  std::string name() const override { return "remote<" + c_->address() + ">"; }
  bool supports(OpId op, DType dtype) const override { return c_->supports(op, dtype); }
  void* query_interface(std::string_view name) override {
    return name == kRemoteStatsInterface ? static_cast<RemoteStatsSource*>(this) : nullptr;
  }
  RemoteStats stats() const override {
    std::lock_guard lock(c_->mutex);
    return c_->stats();
  }
  void sync() override {
    std::lock_guard lock(c_->mutex);
    c_->check_alive("sync");
    const uint64_t request = c_->next_request();
    const size_t start = c_->batch().size();
    const size_t rec = begin_record(c_->batch(), Record::Sync);
    c_->batch().u64(request);
    end_record(c_->batch(), rec);
    c_->record_done("sync", start);  // counted, then sent with the await below
    c_->await(request, "sync");
  }
  void seed(uint64_t seed) override {
    std::lock_guard lock(c_->mutex);
    c_->check_alive("seed");
    const size_t start = c_->batch().size();
    const size_t rec = begin_record(c_->batch(), Record::Seed);
    c_->batch().u64(seed);
    end_record(c_->batch(), rec);
    c_->record_done("seed", start);
  }

#define BURN_X_DECL(group, name, tier, grad, bound, ret, ...) ret name BURN_OP_PARAMS(__VA_ARGS__) override;
  BURN_OP_TABLE(BURN_X_DECL)
#undef BURN_X_DECL

 private:
  uint64_t handle_of(const Prim& p, const char* op) const {
    if (!p) return kNullHandle;
    const auto* r = dynamic_cast<const RemotePrim*>(p.get());
    if (!r || r->connection() != c_.get())
      throw DeviceError(op, "a tensor of another device given to " + name() + " (move it with to_device)");
    return r->handle();
  }

  template <typename T>
  void encode(Writer& w, const T& v, const char* op) const {
    if constexpr (std::is_same_v<T, Prim>) {
      w.u64(handle_of(v, op));
    } else if constexpr (std::is_same_v<T, Prims>) {
      w.u32(static_cast<uint32_t>(v.size()));
      for (const auto& p : v) w.u64(handle_of(p, op));
    } else {
      put(w, v);
    }
  }

  Prim make(const Meta& m, uint64_t handle) const {
    return m.present ? std::make_shared<RemotePrim>(c_, handle, m.shape, m.dtype) : nullptr;
  }

  TensorData read(const Prim& x) {
    std::lock_guard lock(c_->mutex);
    c_->check_alive("into_data");
    const uint64_t request = c_->next_request();
    const uint64_t handle = handle_of(x, "into_data");
    const size_t start = c_->batch().size();
    const size_t rec = begin_record(c_->batch(), Record::Read);
    c_->batch().u64(request);
    c_->batch().u64(handle);
    end_record(c_->batch(), rec);
    c_->record_done("into_data", start);
    const auto payload = c_->await(request, "into_data");
    Reader r(payload.data(), payload.size());
    return get_data(r, SIZE_MAX);
  }

  template <OpId Op, typename Ret, typename... A>
  Ret call(const A&... args) {
    const char* op = op_info(Op).name;
    if constexpr (Op == OpId::into_data) {
      return read(args...);
    } else {
      constexpr uint32_t handles = std::is_same_v<Ret, PrimPair> ? 2 : std::is_same_v<Ret, Prims> ? kMaxOutputs : 1;
      std::optional<std::vector<Meta>> metas;
      if constexpr (!std::is_same_v<Ret, Prims>) metas = predict::outputs<Op>(args...);
      std::lock_guard lock(c_->mutex);
      c_->check_alive(op);
      Writer& w = c_->batch();
      const uint64_t first = c_->reserve(handles);
      const uint64_t request = metas ? 0 : c_->next_request();
      const size_t start = w.size();
      const size_t rec = begin_record(w, Record::Op);
      w.u16(static_cast<uint16_t>(Op));
      w.u64(first);
      w.u64(request);
      w.u32(metas ? static_cast<uint32_t>(metas->size()) : 0);
      if (metas)
        for (const auto& m : *metas) put(w, m);
      try {
        (encode(w, args, op), ...);
      } catch (...) {
        w.bytes().resize(start);  // a tensor of another device: the record is taken back
        throw;
      }
      end_record(w, rec);
      c_->record_done(op, start);
      if (!metas) {
        std::vector<uint8_t> payload;
        try {
          payload = c_->await(request, op);
        } catch (const Error&) {
          // The server registered the failed outputs as poisoned; this client never made them.
          for (uint32_t i = 0; i < (handles == 2 ? 2u : 1u); ++i) c_->release(first + i);
          throw;
        }
        Reader r(payload.data(), payload.size());
        const size_t n = r.count("metas", 1, kMaxOutputs);
        metas.emplace(n);
        for (auto& m : *metas) m = get_meta(r);
      }
      if constexpr (std::is_same_v<Ret, Prim>) {
        if (metas->size() != 1)
          throw Error(op, "remote: the server answered " + std::to_string(metas->size()) + " outputs");
        return make((*metas)[0], first);
      } else if constexpr (std::is_same_v<Ret, PrimPair>) {
        if (metas->size() != 2)
          throw Error(op, "remote: the server answered " + std::to_string(metas->size()) + " outputs");
        return {make((*metas)[0], first), make((*metas)[1], first + 1)};
      } else {
        Prims out;
        for (size_t i = 0; i < metas->size(); ++i) out.push_back(make((*metas)[i], first + i));
        return out;
      }
    }
  }

  std::shared_ptr<Connection> c_;
};

#define BURN_REMOTE_FWD(group, name, tier, grad, bound, ret, ...)         \
  ret RemoteBackend::name BURN_OP_PARAMS(__VA_ARGS__) {                   \
    return call<OpId::name, ret>(BURN_PP_MAP(BURN_PP_NAME, __VA_ARGS__)); \
  }
BURN_OP_TABLE(BURN_REMOTE_FWD)
#undef BURN_REMOTE_FWD

// Registered when the library is loaded: by a link, or by burn-tensor for a spec naming `remote`.
const bool registered = [] {
  register_remote_decorator();
  return true;
}();

}  // namespace

BackendPtr make_remote_backend(const std::string& address) {
  return std::make_shared<RemoteBackend>(std::make_shared<Connection>(address, ClientSettings::from_environment()));
}

Device connect(const std::string& address) { return Device::from_backend(make_remote_backend(address)); }

void register_remote_decorator() {
  register_address_decorator("remote", make_remote_backend,
                             "runs every op on a burn server over the network (burn-remote)");
}

}  // namespace burn::remote
