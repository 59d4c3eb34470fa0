// The remote protocol's byte layer: a little-endian writer and a reader that checks every size against
// the bytes left (and the caller's caps) before it allocates, and the codecs of the op table's parameter
// types. Shared by the client, the server and the fuzz target. Malformed input is a ProtocolError.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "burn/tensor/backend.hpp"
#include "burn/tensor/error.hpp"

namespace burn::remote {

// A message that breaks the protocol (truncated, oversized, unknown ids): the server closes that
// connection, the client its own.
class ProtocolError : public ValueError {
 public:
  explicit ProtocolError(const std::string& message) : ValueError("remote", message) {}
};

// Caps a reader applies beyond "no more than the bytes left", so that no count is trusted.
inline constexpr size_t kMaxRank = 16;             // dims of one shape
inline constexpr size_t kMaxListLength = 1 << 16;  // entries of an axes, slices, prims or option list
inline constexpr size_t kMaxStringBytes = 1 << 16;

class Writer {
 public:
  std::vector<uint8_t>& bytes() { return buf_; }
  size_t size() const { return buf_.size(); }
  void clear() { buf_.clear(); }

  void u8(uint8_t v) { buf_.push_back(v); }
  void u16(uint16_t v) { raw(&v, 2); }
  void u32(uint32_t v) { raw(&v, 4); }
  void u64(uint64_t v) { raw(&v, 8); }
  void i64(int64_t v) { raw(&v, 8); }
  void f64(double v) { raw(&v, 8); }
  void str(std::string_view s) {
    u32(static_cast<uint32_t>(s.size()));
    raw(s.data(), s.size());
  }
  void raw(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    buf_.insert(buf_.end(), b, b + n);
  }
  // Patches a u32 written earlier at `offset` (a count known only at the end).
  void patch_u32(size_t offset, uint32_t v) { std::memcpy(buf_.data() + offset, &v, 4); }

 private:
  std::vector<uint8_t> buf_;
};

class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}
  size_t left() const { return static_cast<size_t>(end_ - p_); }
  bool done() const { return p_ == end_; }

  uint8_t u8() { return fixed<uint8_t>(); }
  uint16_t u16() { return fixed<uint16_t>(); }
  uint32_t u32() { return fixed<uint32_t>(); }
  uint64_t u64() { return fixed<uint64_t>(); }
  int64_t i64() { return fixed<int64_t>(); }
  double f64() { return fixed<double>(); }
  bool boolean(const char* what);
  std::string str(const char* what);
  // A count of entries of at least `min_entry_bytes` each: refused beyond `cap` or the bytes left.
  size_t count(const char* what, size_t min_entry_bytes, size_t cap = kMaxListLength);
  const uint8_t* take(size_t n, const char* what);

 private:
  template <typename T>
  T fixed() {
    T v;
    std::memcpy(&v, take(sizeof(T), "a number"), sizeof(T));
    return v;
  }
  const uint8_t* p_;
  const uint8_t* end_;
};

// ---- codecs of the op table's value types (Prim and Prims are handles: client and server own them) ----

void put(Writer& w, DType d);
void put(Writer& w, const Shape& s);
void put(Writer& w, const Scalar& s);
void put(Writer& w, const TensorData& d);
void put(Writer& w, const Distribution& d);
void put(Writer& w, const Axes& a);
void put(Writer& w, const Slices& s);
void put(Writer& w, const ConvOptions& o);
void put(Writer& w, const ConvTransposeOptions& o);
void put(Writer& w, const DeformConvOptions& o);
void put(Writer& w, const UnfoldOptions& o);
void put(Writer& w, const PoolOptions& o);
void put(Writer& w, const InterpolateOptions& o);
void put(Writer& w, const GridSampleOptions& o);
void put(Writer& w, const ConvGradMask& m);
void put(Writer& w, const AttentionOptions& o);
inline void put(Writer& w, bool v) { w.u8(v ? 1 : 0); }
inline void put(Writer& w, int64_t v) { w.i64(v); }
inline void put(Writer& w, size_t v) { w.u64(v); }
inline void put(Writer& w, double v) { w.f64(v); }

// get<T>(r): the value of a parameter of type T. TensorData's bytes are checked against `max_bytes`
// (the caller's memory budget) before they are allocated.
template <typename T>
T get(Reader& r);
template <>
DType get<DType>(Reader& r);
template <>
Shape get<Shape>(Reader& r);
template <>
Scalar get<Scalar>(Reader& r);
template <>
Distribution get<Distribution>(Reader& r);
template <>
Axes get<Axes>(Reader& r);
template <>
Slices get<Slices>(Reader& r);
template <>
ConvOptions get<ConvOptions>(Reader& r);
template <>
ConvTransposeOptions get<ConvTransposeOptions>(Reader& r);
template <>
DeformConvOptions get<DeformConvOptions>(Reader& r);
template <>
UnfoldOptions get<UnfoldOptions>(Reader& r);
template <>
PoolOptions get<PoolOptions>(Reader& r);
template <>
InterpolateOptions get<InterpolateOptions>(Reader& r);
template <>
GridSampleOptions get<GridSampleOptions>(Reader& r);
template <>
ConvGradMask get<ConvGradMask>(Reader& r);
template <>
AttentionOptions get<AttentionOptions>(Reader& r);
template <>
bool get<bool>(Reader& r);
template <>
int64_t get<int64_t>(Reader& r);
template <>
size_t get<size_t>(Reader& r);
template <>
double get<double>(Reader& r);
TensorData get_data(Reader& r, size_t max_bytes);

// A shape whose element count and byte size (of `dtype`) are computed without overflow; ProtocolError
// for a negative dim or a product beyond int64.
size_t checked_shape_bytes(const Shape& s, DType dtype);

}  // namespace burn::remote
