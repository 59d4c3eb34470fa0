// The remote protocol's frames, metas, errors and the supports bitmap.
#include "protocol.hpp"

#include <typeinfo>

namespace burn::remote {

void put(Writer& w, const Meta& m) {
  put(w, m.present);
  if (!m.present) return;
  put(w, m.dtype);
  put(w, m.shape);
}

Meta get_meta(Reader& r) {
  Meta m;
  m.present = r.boolean("meta");
  if (!m.present) return m;
  m.dtype = get<DType>(r);
  m.shape = get<Shape>(r);
  return m;
}

namespace {

// The error classes, in wire order; a new class of error.hpp goes at the end.
enum class ErrorKind : uint8_t {
  Error,
  ShapeError,
  DTypeError,
  IndexError,
  DeviceError,
  ValueError,
  Unsupported,
  PluginError,
  RecordError,
  OutOfMemory
};
constexpr uint8_t kLastErrorKind = static_cast<uint8_t>(ErrorKind::OutOfMemory);

template <typename E>
bool is(const std::exception& e) {
  return dynamic_cast<const E*>(&e) != nullptr;
}

ErrorKind kind_of(const std::exception& e) {
  if (is<ShapeError>(e)) return ErrorKind::ShapeError;
  if (is<DTypeError>(e)) return ErrorKind::DTypeError;
  if (is<IndexError>(e)) return ErrorKind::IndexError;
  if (is<DeviceError>(e)) return ErrorKind::DeviceError;
  if (is<ValueError>(e)) return ErrorKind::ValueError;
  if (is<Unsupported>(e)) return ErrorKind::Unsupported;
  if (is<PluginError>(e)) return ErrorKind::PluginError;
  if (is<RecordError>(e)) return ErrorKind::RecordError;
  if (is<OutOfMemory>(e)) return ErrorKind::OutOfMemory;
  return ErrorKind::Error;
}

}  // namespace

WireError capture_error(const std::exception& e) {
  WireError w;
  w.kind = static_cast<uint8_t>(kind_of(e));
  w.message = e.what();
  if (const auto* be = dynamic_cast<const Error*>(&e)) {
    w.op = be->op();
    const std::string prefix = "[" + w.op + "] ";
    if (w.message.rfind(prefix, 0) == 0) w.message.erase(0, prefix.size());
  } else {
    w.op = "remote";
    w.message = std::string("server error (") + typeid(e).name() + "): " + w.message;
  }
  // A message longer than a string may carry is cut, not refused.
  if (w.message.size() > kMaxStringBytes) w.message.resize(kMaxStringBytes);
  if (w.op.size() > kMaxStringBytes) w.op.resize(kMaxStringBytes);
  return w;
}

void put(Writer& w, const WireError& e) {
  w.u8(e.kind);
  w.str(e.op);
  w.str(e.message);
}

WireError get_error(Reader& r) {
  WireError e;
  e.kind = r.u8();
  if (e.kind > kLastErrorKind) throw ProtocolError("unknown error class " + std::to_string(e.kind));
  e.op = r.str("error op");
  e.message = r.str("error message");
  return e;
}

void rethrow(const WireError& e) {
  switch (static_cast<ErrorKind>(e.kind)) {
    case ErrorKind::ShapeError: throw ShapeError(e.op, e.message);
    case ErrorKind::DTypeError: throw DTypeError(e.op, e.message);
    case ErrorKind::IndexError: throw IndexError(e.op, e.message);
    case ErrorKind::DeviceError: throw DeviceError(e.op, e.message);
    case ErrorKind::ValueError: throw ValueError(e.op, e.message);
    case ErrorKind::Unsupported: throw Unsupported(e.op, e.message);
    case ErrorKind::PluginError: throw PluginError(e.op, e.message);
    case ErrorKind::RecordError: throw RecordError(e.op, e.message);
    case ErrorKind::OutOfMemory: throw OutOfMemory(e.op, e.message);
    case ErrorKind::Error: break;
  }
  throw Error(e.op, e.message);
}

size_t begin_frame(Writer& w, Frame kind) {
  const size_t start = w.size();
  w.u32(0);
  w.u8(static_cast<uint8_t>(kind));
  return start;
}

void end_frame(Writer& w, size_t start) { w.patch_u32(start, static_cast<uint32_t>(w.size() - start - 4)); }

size_t begin_record(Writer& w, Record kind) {
  w.u8(static_cast<uint8_t>(kind));
  const size_t start = w.size();
  w.u32(0);
  return start;
}

void end_record(Writer& w, size_t start) { w.patch_u32(start, static_cast<uint32_t>(w.size() - start - 4)); }

namespace {
constexpr size_t kDTypeCount = std::size(kAllDTypes);
}

std::vector<uint8_t> supports_bitmap(const Backend& b) {
  std::vector<uint8_t> bits((kOpCount * kDTypeCount + 7) / 8, 0);
  for (size_t op = 0; op < kOpCount; ++op) {
    for (size_t d = 0; d < kDTypeCount; ++d) {
      if (b.supports(static_cast<OpId>(op), kAllDTypes[d])) {
        const size_t bit = op * kDTypeCount + d;
        bits[bit / 8] |= static_cast<uint8_t>(1u << (bit % 8));
      }
    }
  }
  return bits;
}

bool bitmap_supports(const std::vector<uint8_t>& bitmap, OpId op, DType dtype) {
  const size_t bit = static_cast<size_t>(op) * kDTypeCount + static_cast<size_t>(dtype);
  return bit / 8 < bitmap.size() && (bitmap[bit / 8] >> (bit % 8)) & 1u;
}

}  // namespace burn::remote
