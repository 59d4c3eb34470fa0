// Tensor API: creation, data movement, casts and printing.
#include <sstream>

#include "checks.hpp"

namespace burn {

namespace api {
using namespace detail;

Kind kind_of(DType d) { return is_float(d) ? Kind::Float : is_bool(d) ? Kind::Bool : Kind::Int; }

DType default_dtype(Kind k) { return k == Kind::Float ? DType::F32 : k == Kind::Int ? DType::I64 : DType::Bool; }

void throw_empty_tensor(const char* op) {
  throw ValueError(op, "the tensor is empty (default-constructed or moved-from)");
}

void check_tensor(const H& h, size_t r, Kind kind, const char* op) {
  if (!h.prim) throw ValueError(op, "null tensor primitive");
  if (h.prim->shape().rank() != r)
    throw ShapeError(op, "a rank-" + std::to_string(r) + " tensor cannot hold shape " + h.prim->shape().to_string());
  if (kind_of(h.prim->dtype()) != kind) {
    static const char* names[] = {"Float", "Int", "Bool"};
    throw DTypeError(op, std::string("a ") + names[static_cast<int>(kind)] + " tensor cannot hold dtype " +
                             dt(h.prim->dtype()));
  }
}

H empty(const Device& d, const Shape& s, DType t) {
  Backend& b = dev(d, "empty");
  checked_bytes(s, dtype_size(t), "empty");
  return {d, b.empty(s, t)};
}

H full(const Device& d, const Shape& s, Scalar v, DType t) {
  Backend& b = dev(d, "full");
  checked_bytes(s, dtype_size(t), "full");
  return {d, b.full(s, v, t)};
}

H from_data(const Device& d, const TensorData& data, Kind kind) {
  Backend& b = dev(d, "from_data");
  if (kind_of(data.dtype()) == kind) return {d, b.from_data(data)};
  return {d, b.from_data(data.convert(default_dtype(kind)))};
}

H arange(const Device& d, int64_t start, int64_t end, int64_t step, DType t) {
  Backend& b = dev(d, "arange");
  checked_bytes(Shape{arange_length(start, end, step, t, "arange")}, dtype_size(t), "arange");
  return {d, b.arange(start, end, step, t)};
}

H eye(const Device& d, int64_t n, int64_t m, DType t) {
  Backend& b = dev(d, "eye");
  if (n < 0 || m < 0) throw ShapeError("eye", "negative size " + std::to_string(n) + " x " + std::to_string(m));
  checked_bytes(Shape{n, m}, dtype_size(t), "eye");
  Prim rows = b.reshape(b.arange(0, n, 1, DType::I64), Shape{n, 1});
  Prim cols = b.reshape(b.arange(0, m, 1, DType::I64), Shape{1, m});
  return {d, b.cast(b.equal(std::move(rows), std::move(cols)), t)};
}

H random(const Device& d, const Shape& s, const Distribution& dist, DType t) {
  Backend& b = dev(d, "random");
  checked_bytes(s, dtype_size(t), "random");
  return {d, b.random(s, dist, t)};
}

TensorData into_data(const H& h) { return be(h, "into_data").into_data(h.prim); }

H to_device(const H& h, const Device& d) {
  Backend& b = dev(d, "to_device");
  if (h.device == d) return h;
  return {d, b.from_data(into_data(h))};
}

H cast(H h, DType t) {
  Backend& b = be(h, "cast");
  if (h.prim->dtype() == t) return h;
  return with(h, b.cast(std::move(h.prim), t));
}

std::string to_string(const H& h) {
  be(h, "to_string");
  std::ostringstream os;
  os << "Tensor {\n  data:\n" << into_data(h).to_string() << ",\n  shape:  " << shape(h).to_string()
     << ",\n  device:  " << h.device.name() << ",\n  dtype:  " << dt(h.prim->dtype()) << ",\n}";
  return os.str();
}

}  // namespace api
}  // namespace burn
