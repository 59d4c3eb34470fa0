// The remote protocol: frames, records and replies (docs in burn-remote/README.md#protocol). Its
// version is the op table's fingerprint mixed with the layout version below, so a client and a server
// of different builds refuse each other at the handshake.
#pragma once

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "wire.hpp"

namespace burn::remote {

// Bump when the layout of frames, records or codecs changes (the op table changes the hash itself).
inline constexpr uint64_t kLayoutVersion = 1;
inline constexpr uint64_t kProtocolVersion = detail::fnv1a("burn-remote-layout", kOpTableHash) ^ kLayoutVersion;
inline constexpr char kMagic[8] = {'b', 'u', 'r', 'n', '-', 'r', 'm', 't'};

// A frame is a u32 body length and the body; the body starts with its kind.
enum class Frame : uint8_t {
  Hello = 1,    // client: magic, version, token
  Batch = 2,    // client: u32 record count, records
  Welcome = 3,  // server: backend name, max message bytes, supports bitmap
  Refused = 4,  // server: why; then it closes
  Reply = 5,    // server: request id, status, payload
};

// A record of a batch is its kind, a u32 body length and the body, so that a record whose execution
// fails is skipped whole and the next one read.
enum class Record : uint8_t {
  Op = 1,    // u16 op id, u64 first output handle, predicted metas, the op's parameters
  Free = 2,  // u64 handle
  Seed = 3,  // u64 seed
  Read = 4,  // u64 request id, u64 handle -> the tensor's data
  Sync = 5,  // u64 request id -> the first error since the last sync, or ok
  Meta = 6,  // u64 request id, u64 first handle, u32 count -> each output's shape and dtype
};
inline constexpr uint8_t kLastRecord = static_cast<uint8_t>(Record::Meta);

// An op's outputs take handles first, first + 1, ...: one for a Prim, two for a PrimPair, and this
// many reserved for a Prims result (the server reports how many there are).
inline constexpr uint32_t kMaxOutputs = 8;
inline constexpr uint64_t kNullHandle = 0;  // an absent optional Prim (a conv's bias)

// What an output is: absent (a null Prim of a Prims result) or a tensor of this shape and dtype.
struct Meta {
  bool present = false;
  Shape shape;
  DType dtype = DType::F32;
  bool operator==(const Meta&) const = default;
};
void put(Writer& w, const Meta& m);
Meta get_meta(Reader& r);

// A burn::Error as it crosses the wire: its class, its op and its message without the "[op] " prefix.
struct WireError {
  uint8_t kind = 0;
  std::string op, message;
};
WireError capture_error(const std::exception& e);
void put(Writer& w, const WireError& e);
WireError get_error(Reader& r);
// Throws the same burn::Error subclass with the same op and message.
[[noreturn]] void rethrow(const WireError& e);

// Frames and records are written with their length first; these patch it when the body is complete.
size_t begin_frame(Writer& w, Frame kind);
void end_frame(Writer& w, size_t start);
size_t begin_record(Writer& w, Record kind);
void end_record(Writer& w, size_t start);

// The supports(op, dtype) answers of a backend, one bit per (op, dtype), for the welcome.
std::vector<uint8_t> supports_bitmap(const Backend& b);
bool bitmap_supports(const std::vector<uint8_t>& bitmap, OpId op, DType dtype);

}  // namespace burn::remote
