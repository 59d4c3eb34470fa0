// The remote protocol's byte layer: every count and size is checked against the bytes left before
// anything is allocated for it.
#include "wire.hpp"

#include <limits>

namespace burn::remote {

const uint8_t* Reader::take(size_t n, const char* what) {
  if (n > left()) {
    throw ProtocolError(std::string("truncated message: ") + what + " needs " + std::to_string(n) + " bytes, " +
                        std::to_string(left()) + " left");
  }
  const uint8_t* p = p_;
  p_ += n;
  return p;
}

bool Reader::boolean(const char* what) {
  const uint8_t v = u8();
  if (v > 1) throw ProtocolError(std::string(what) + ": a bool byte is 0 or 1, got " + std::to_string(v));
  return v == 1;
}

size_t Reader::count(const char* what, size_t min_entry_bytes, size_t cap) {
  const uint32_t n = u32();
  if (n > cap) {
    throw ProtocolError(std::string(what) + ": " + std::to_string(n) + " entries, at most " + std::to_string(cap));
  }
  if (min_entry_bytes > 0 && n > left() / min_entry_bytes) {
    throw ProtocolError(std::string(what) + ": " + std::to_string(n) + " entries cannot fit in the " +
                        std::to_string(left()) + " bytes left");
  }
  return n;
}

std::string Reader::str(const char* what) {
  const size_t n = count(what, 1, kMaxStringBytes);
  const uint8_t* p = take(n, what);
  return std::string(reinterpret_cast<const char*>(p), n);
}

namespace {

void put_i64s(Writer& w, const std::vector<int64_t>& v) {
  w.u32(static_cast<uint32_t>(v.size()));
  for (int64_t x : v) w.i64(x);
}

std::vector<int64_t> get_i64s(Reader& r, const char* what) {
  const size_t n = r.count(what, 8);
  std::vector<int64_t> v(n);
  for (auto& x : v) x = r.i64();
  return v;
}

template <typename E>
E get_enum(Reader& r, uint8_t last, const char* what) {
  const uint8_t v = r.u8();
  if (v > last) throw ProtocolError(std::string("unknown ") + what + " " + std::to_string(v));
  return static_cast<E>(v);
}

}  // namespace

size_t checked_shape_bytes(const Shape& s, DType dtype) {
  uint64_t n = 1;
  for (int64_t d : s) {
    if (d < 0) throw ProtocolError("shape " + s.to_string() + " has a negative dim");
    if (d != 0 && n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / static_cast<uint64_t>(d))
      throw ProtocolError("shape " + s.to_string() + " has more elements than int64 holds");
    n *= static_cast<uint64_t>(d);
  }
  if (n > std::numeric_limits<size_t>::max() / dtype_size(dtype))
    throw ProtocolError("shape " + s.to_string() + " has more bytes than size_t holds");
  return static_cast<size_t>(n) * dtype_size(dtype);
}

void put(Writer& w, DType d) { w.u8(static_cast<uint8_t>(d)); }
void put(Writer& w, const Shape& s) { put_i64s(w, s.dims()); }
void put(Writer& w, const Scalar& s) {
  w.u8(static_cast<uint8_t>(s.kind));
  w.f64(s.f);
  w.i64(s.i);
}
void put(Writer& w, const TensorData& d) {
  put(w, d.dtype());
  put(w, d.shape());
  w.u64(d.bytes().size());
  w.raw(d.bytes().data(), d.bytes().size());
}
void put(Writer& w, const Distribution& d) {
  w.u8(static_cast<uint8_t>(d.kind));
  w.f64(d.a);
  w.f64(d.b);
}
void put(Writer& w, const Axes& a) { put_i64s(w, a); }
void put(Writer& w, const Slices& s) {
  w.u32(static_cast<uint32_t>(s.size()));
  for (const auto& r : s) {
    w.i64(r.start);
    w.i64(r.end);
    w.i64(r.step);
  }
}
void put(Writer& w, const ConvOptions& o) {
  put_i64s(w, o.stride);
  put_i64s(w, o.padding);
  put_i64s(w, o.padding_end);
  put_i64s(w, o.dilation);
  w.i64(o.groups);
}
void put(Writer& w, const ConvTransposeOptions& o) {
  put_i64s(w, o.stride);
  put_i64s(w, o.padding);
  put_i64s(w, o.padding_out);
  put_i64s(w, o.dilation);
  w.i64(o.groups);
}
void put(Writer& w, const DeformConvOptions& o) {
  put_i64s(w, o.stride);
  put_i64s(w, o.padding);
  put_i64s(w, o.dilation);
  w.i64(o.weight_groups);
  w.i64(o.offset_groups);
}
void put(Writer& w, const UnfoldOptions& o) {
  put_i64s(w, o.kernel);
  put_i64s(w, o.stride);
  put_i64s(w, o.padding);
  put_i64s(w, o.dilation);
}
void put(Writer& w, const PoolOptions& o) {
  put_i64s(w, o.kernel);
  put_i64s(w, o.stride);
  put_i64s(w, o.padding);
  put_i64s(w, o.padding_end);
  put_i64s(w, o.dilation);
  put(w, o.ceil_mode);
  put(w, o.count_include_pad);
}
void put(Writer& w, const InterpolateOptions& o) {
  w.u8(static_cast<uint8_t>(o.mode));
  put(w, o.align_corners);
}
void put(Writer& w, const GridSampleOptions& o) {
  w.u8(static_cast<uint8_t>(o.mode));
  w.u8(static_cast<uint8_t>(o.padding));
  put(w, o.align_corners);
}
void put(Writer& w, const ConvGradMask& m) {
  put(w, m.x);
  put(w, m.weight);
  put(w, m.bias);
}
void put(Writer& w, const AttentionOptions& o) {
  put(w, o.causal);
  put(w, o.scale.has_value());
  w.f64(o.scale.value_or(0.0));
}

template <>
DType get<DType>(Reader& r) {
  return get_enum<DType>(r, static_cast<uint8_t>(DType::Bool), "dtype");
}
template <>
Shape get<Shape>(Reader& r) {
  const size_t n = r.count("shape", 8, kMaxRank);
  std::vector<int64_t> dims(n);
  for (auto& d : dims) d = r.i64();
  return Shape(std::move(dims));
}
template <>
Scalar get<Scalar>(Reader& r) {
  Scalar s;
  s.kind = get_enum<Scalar::Kind>(r, static_cast<uint8_t>(Scalar::Kind::Bool), "scalar kind");
  s.f = r.f64();
  s.i = r.i64();
  return s;
}
template <>
Distribution get<Distribution>(Reader& r) {
  Distribution d;
  d.kind = get_enum<Distribution::Kind>(r, static_cast<uint8_t>(Distribution::Kind::Bernoulli), "distribution");
  d.a = r.f64();
  d.b = r.f64();
  return d;
}
template <>
Axes get<Axes>(Reader& r) {
  return get_i64s(r, "axes");
}
template <>
Slices get<Slices>(Reader& r) {
  const size_t n = r.count("slices", 24, kMaxRank);
  Slices s(n);
  for (auto& x : s) {
    x.start = r.i64();
    x.end = r.i64();
    x.step = r.i64();
  }
  return s;
}
template <>
ConvOptions get<ConvOptions>(Reader& r) {
  ConvOptions o;
  o.stride = get_i64s(r, "stride");
  o.padding = get_i64s(r, "padding");
  o.padding_end = get_i64s(r, "padding_end");
  o.dilation = get_i64s(r, "dilation");
  o.groups = r.i64();
  return o;
}
template <>
ConvTransposeOptions get<ConvTransposeOptions>(Reader& r) {
  ConvTransposeOptions o;
  o.stride = get_i64s(r, "stride");
  o.padding = get_i64s(r, "padding");
  o.padding_out = get_i64s(r, "padding_out");
  o.dilation = get_i64s(r, "dilation");
  o.groups = r.i64();
  return o;
}
template <>
DeformConvOptions get<DeformConvOptions>(Reader& r) {
  DeformConvOptions o;
  o.stride = get_i64s(r, "stride");
  o.padding = get_i64s(r, "padding");
  o.dilation = get_i64s(r, "dilation");
  o.weight_groups = r.i64();
  o.offset_groups = r.i64();
  return o;
}
template <>
UnfoldOptions get<UnfoldOptions>(Reader& r) {
  UnfoldOptions o;
  o.kernel = get_i64s(r, "kernel");
  o.stride = get_i64s(r, "stride");
  o.padding = get_i64s(r, "padding");
  o.dilation = get_i64s(r, "dilation");
  return o;
}
template <>
PoolOptions get<PoolOptions>(Reader& r) {
  PoolOptions o;
  o.kernel = get_i64s(r, "kernel");
  o.stride = get_i64s(r, "stride");
  o.padding = get_i64s(r, "padding");
  o.padding_end = get_i64s(r, "padding_end");
  o.dilation = get_i64s(r, "dilation");
  o.ceil_mode = r.boolean("ceil_mode");
  o.count_include_pad = r.boolean("count_include_pad");
  return o;
}
template <>
InterpolateOptions get<InterpolateOptions>(Reader& r) {
  InterpolateOptions o;
  o.mode = get_enum<InterpolateMode>(r, static_cast<uint8_t>(InterpolateMode::Cubic), "interpolate mode");
  o.align_corners = r.boolean("align_corners");
  return o;
}
template <>
GridSampleOptions get<GridSampleOptions>(Reader& r) {
  GridSampleOptions o;
  o.mode = get_enum<GridSampleMode>(r, static_cast<uint8_t>(GridSampleMode::Nearest), "grid sample mode");
  o.padding =
      get_enum<GridSamplePadding>(r, static_cast<uint8_t>(GridSamplePadding::Reflection), "grid sample padding");
  o.align_corners = r.boolean("align_corners");
  return o;
}
template <>
ConvGradMask get<ConvGradMask>(Reader& r) {
  ConvGradMask m;
  m.x = r.boolean("conv grad mask x");
  m.weight = r.boolean("conv grad mask weight");
  m.bias = r.boolean("conv grad mask bias");
  return m;
}
template <>
AttentionOptions get<AttentionOptions>(Reader& r) {
  AttentionOptions o;
  o.causal = r.boolean("causal");
  const bool has_scale = r.boolean("scale");
  const double scale = r.f64();
  if (has_scale) o.scale = scale;
  return o;
}
template <>
bool get<bool>(Reader& r) {
  return r.boolean("bool parameter");
}
template <>
int64_t get<int64_t>(Reader& r) {
  return r.i64();
}
template <>
size_t get<size_t>(Reader& r) {
  return r.u64();
}
template <>
double get<double>(Reader& r) {
  return r.f64();
}

TensorData get_data(Reader& r, size_t max_bytes) {
  const DType dtype = get<DType>(r);
  Shape shape = get<Shape>(r);
  const size_t want = checked_shape_bytes(shape, dtype);
  const uint64_t n = r.u64();
  if (n != want) {
    throw ProtocolError("tensor data of shape " + shape.to_string() + " and dtype " + std::string(dtype_name(dtype)) +
                        " has " + std::to_string(n) + " bytes, expected " + std::to_string(want));
  }
  const uint8_t* bytes = r.take(n, "tensor data");
  if (n > max_bytes) {
    throw OutOfMemory("remote", "tensor data of " + std::to_string(n) + " bytes exceeds the " +
                                    std::to_string(max_bytes) + " bytes this client may still hold");
  }
  TensorData d = TensorData::uninitialized(std::move(shape), dtype);
  if (n) std::memcpy(d.raw(), bytes, n);
  return d;
}

}  // namespace burn::remote
