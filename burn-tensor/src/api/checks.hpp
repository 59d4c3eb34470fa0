// Private helpers shared by the api/*.cpp files: argument checks that produce the tagged errors.
#pragma once

#include <new>
#include <string>
#include <vector>

#include "burn/tensor/api.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/shape_rules.hpp"

namespace burn::api::detail {

inline std::string dt(DType d) { return std::string(dtype_name(d)); }

// The backend of a handle; a default-constructed tensor has none. Every api entry passes here (or
// through dev), which records the op for errors raised inside the backend (see current_op).
inline Backend& be(const H& h, const char* op) {
  set_current_op(op);
  if (!h.prim || !h.device.backend()) throw_empty_tensor(op);
  return *h.device.backend();
}

// The backend of a device given to a creation function; a default-constructed Device has none.
inline Backend& dev(const Device& d, const char* op) {
  set_current_op(op);
  if (!d.backend()) throw DeviceError(op, "no device (a default-constructed Device); use Device::get(\"cpu\")");
  return *d.backend();
}

inline void same_device(const H& a, const H& b, const char* op) {
  be(a, op);
  be(b, op);
  if (a.device != b.device)
    throw DeviceError(op, "tensors are on different devices: " + a.device.name() + " and " + b.device.name() +
                              "; move one with to_device");
}

inline void same_dtype(const H& a, const H& b, const char* op) {
  if (a.prim->dtype() != b.prim->dtype())
    throw DTypeError(
        op, "lhs is " + dt(a.prim->dtype()) + " and rhs is " + dt(b.prim->dtype()) + "; cast one of them first");
}

inline void require_float(const H& h, const char* op) {
  if (!is_float(h.prim->dtype())) throw DTypeError(op, "expected a float tensor, got " + dt(h.prim->dtype()));
}
inline void require_numeric(const H& h, const char* op) {
  if (is_bool(h.prim->dtype())) throw DTypeError(op, "expected a float or int tensor, got bool");
}
inline void require_bool(const H& h, const char* op) {
  if (!is_bool(h.prim->dtype())) throw DTypeError(op, "expected a bool tensor, got " + dt(h.prim->dtype()));
}
inline void require_int(const H& h, const char* op) {
  const DType d = h.prim->dtype();
  if (!is_int(d))
    throw DTypeError(op, "expected an integer tensor (i64, i32, i8 or u8), got " + dt(d) +
                             (is_bool(d) ? "; bool tensors take bool_and, bool_or, bool_xor and bool_not" : ""));
}
inline void require_index(const H& h, const char* op) {
  DType d = h.prim->dtype();
  if (d != DType::I64 && d != DType::I32) throw DTypeError(op, "indices must be i64 or i32, got " + dt(d));
}
// A shape asked for by the caller: no negative dim, an element count that int64 holds.
inline void check_shape(const Shape& s, const char* op) { checked_num_elements(s, op); }

// Shape and rank of a handle; checked, since some ops read them before they reach be().
inline const Shape& shape(const H& h) {
  if (!h.prim) throw_empty_tensor("shape");
  return h.prim->shape();
}
inline size_t rank(const H& h) { return shape(h).rank(); }
inline H with(const H& like, Prim p) { return H{like.device, std::move(p)}; }

// A host buffer of n elements for a composite's tables and index lists: OutOfMemory naming `op`
// and the bytes past max_alloc_bytes() or when the system refuses them, never std::bad_alloc.
template <typename T>
std::vector<T> host_vector(int64_t n, const char* op, T fill = T()) {
  const size_t bytes = checked_bytes(Shape{n}, sizeof(T), op);
  try {
    return std::vector<T>(static_cast<size_t>(n), fill);
  } catch (const std::bad_alloc&) {
    throw OutOfMemory(op, "the system refused " + std::to_string(bytes) + " bytes of host memory");
  }
}

inline const char* name_of(OpId op) { return op_info(op).name; }

// Checks shared by every elementwise binary op: one device, one dtype, broadcastable shapes.
inline Backend& binary_checks(const H& a, const H& b, const char* op) {
  Backend& be_ = be(a, op);
  same_device(a, b, op);
  same_dtype(a, b, op);
  shape_rules::broadcast(shape(a), shape(b), op);
  return be_;
}

inline Backend& numeric_unary(const H& a, const char* op) {
  Backend& be_ = be(a, op);
  require_numeric(a, op);
  return be_;
}

inline Backend& float_unary(const H& a, const char* op) {
  Backend& be_ = be(a, op);
  require_float(a, op);
  return be_;
}

}  // namespace burn::api::detail
