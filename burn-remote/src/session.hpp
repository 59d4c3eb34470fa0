// One client of burn server: its handle table, its limits, and the decoder that runs its batches on the
// server's backend. Independent of the network, so that tests and the fuzz target drive it directly.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "burn/remote/remote.hpp"
#include "protocol.hpp"

namespace burn::remote {

class Session {
 public:
  Session(BackendPtr backend, ServerLimits limits);
  ~Session();

  // Checks a hello frame's body: the refusal's text, or nullopt when the client may proceed.
  // `token` empty: no authentication.
  static std::optional<std::string> check_hello(const std::vector<uint8_t>& body, const std::string& token);
  // The welcome frame for an accepted client.
  void welcome(Writer& out) const;

  // Runs one batch frame's body; replies (for reads, syncs and ops that asked for their metas) are
  // appended to `out` as frames. ProtocolError for a malformed batch: the connection must be closed.
  void handle(const uint8_t* body, size_t size, Writer& out);

  size_t tensors() const { return table_.size(); }
  uint64_t bytes_in_use() const { return bytes_; }

 private:
  struct Entry {
    Prim prim;                          // null when poisoned
    std::shared_ptr<WireError> poison;  // the failure that should have made it
  };

  void record(Record kind, Reader& r, Writer& out);
  void run_op(Reader& r, Writer& out);
  template <typename R, typename... P>
  std::vector<Prim> execute(OpId op, R (Backend::*fn)(P...), Reader& r, const char* const* names);
  template <typename R, typename... P, size_t... I>
  std::vector<Prim> execute(OpId op, R (Backend::*fn)(P...), Reader& r, const char* const* names,
                            std::index_sequence<I...>);
  template <typename T>
  T decode(Reader& r, OpId op, const char* name);
  Prim lookup(uint64_t handle);
  void add(uint64_t handle, Entry e);
  void erase(uint64_t handle);
  void reply_error(Writer& out, uint64_t request, const std::shared_ptr<WireError>& e);

  BackendPtr backend_;
  ServerLimits limits_;
  std::unordered_map<uint64_t, Entry> table_;
  uint64_t bytes_ = 0;
  uint64_t next_handle_ = 1;                 // handles only grow: an op cannot overwrite a tensor
  std::shared_ptr<WireError> first_error_;   // of a fire-and-forget op, until a reply reports it
  std::shared_ptr<WireError> input_poison_;  // set by decode<Prim> for a poisoned input
};

// Bytes of storage a primitive stands for (shape × dtype), what the memory limit counts.
uint64_t prim_bytes(const Primitive& p);

}  // namespace burn::remote
