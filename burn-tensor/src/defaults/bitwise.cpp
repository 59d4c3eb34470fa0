// The DEFAULT ops of the bitwise group (and, or, xor, not, shifts on i64, i32, i8 and u8 tensors).
//
// Their bodies compute on the host: the operands are broadcast (views), read with into_data, combined
// element by element and written back with from_data. Two's-complement bit operations cannot be
// composed from the arithmetic ops of the table short of one division and remainder per bit (64 per
// i64 element for and/or/xor), and the shift-count rules (detail/bitwise.hpp) would need masks of their
// own, so the round trip is both the shortest body that is exact on any backend and faster than such a
// composition. A backend that needs them fast overrides them (the cpu plugin does).
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "burn/tensor/detail/bitwise.hpp"
#include "helpers.hpp"

namespace burn {
using namespace detail;

namespace {

void require_int(const Prim& x, const char* op) {
  if (!is_int(x->dtype()))
    throw DTypeError(op, "expected an integer tensor (i64, i32, i8 or u8), got " + std::string(dtype_name(x->dtype())));
}

// Calls f.template operator()<T>() with T the element type of an integer dtype.
template <typename F>
decltype(auto) with_int_type(DType d, F&& f) {
  switch (d) {
    case DType::I32: return f.template operator()<int32_t>();
    case DType::I8: return f.template operator()<int8_t>();
    case DType::U8: return f.template operator()<uint8_t>();
    default: return f.template operator()<int64_t>();
  }
}

// out[i] = f(lhs[i], rhs[i]) over the broadcast shape, on the host.
template <typename F>
Prim host_binary(Backend& b, Prim lhs, Prim rhs, const char* op, F f) {
  require_int(lhs, op);
  check_same_dtype(lhs, rhs, op);
  const Shape shape = shape_rules::broadcast(lhs->shape(), rhs->shape(), op);
  const DType dt = lhs->dtype();
  const TensorData a = b.into_data(broadcast_to(b, std::move(lhs), shape));
  const TensorData c = b.into_data(broadcast_to(b, std::move(rhs), shape));
  TensorData out(shape, dt);
  with_int_type(dt, [&]<typename T>() {
    const size_t n = static_cast<size_t>(shape.num_elements());
    for (size_t i = 0; i < n; ++i) {
      T x, y;
      std::memcpy(&x, a.bytes().data() + i * sizeof(T), sizeof(T));
      std::memcpy(&y, c.bytes().data() + i * sizeof(T), sizeof(T));
      const T r = f(x, y);
      std::memcpy(out.bytes().data() + i * sizeof(T), &r, sizeof(T));
    }
  });
  return b.from_data(out);
}

}  // namespace

// ---- bitwise ---------------------------------------------------------------------------------

Prim Backend::bitwise_and(Prim lhs, Prim rhs) {
  return host_binary(*this, std::move(lhs), std::move(rhs), "bitwise_and",
                     []<typename T>(T a, T b) { return static_cast<T>(a & b); });
}

Prim Backend::bitwise_or(Prim lhs, Prim rhs) {
  return host_binary(*this, std::move(lhs), std::move(rhs), "bitwise_or",
                     []<typename T>(T a, T b) { return static_cast<T>(a | b); });
}

Prim Backend::bitwise_xor(Prim lhs, Prim rhs) {
  return host_binary(*this, std::move(lhs), std::move(rhs), "bitwise_xor",
                     []<typename T>(T a, T b) { return static_cast<T>(a ^ b); });
}

// Unary, as the binary loop with x on both sides.
Prim Backend::bitwise_not(Prim x) {
  require_int(x, "bitwise_not");
  Prim y = x;
  return host_binary(*this, std::move(x), std::move(y), "bitwise_not",
                     []<typename T>(T a, T) { return static_cast<T>(~a); });
}

Prim Backend::bitwise_left_shift(Prim lhs, Prim rhs) {
  return host_binary(*this, std::move(lhs), std::move(rhs), "bitwise_left_shift",
                     []<typename T>(T a, T b) { return shift_left(a, b); });
}

Prim Backend::bitwise_right_shift(Prim lhs, Prim rhs) {
  return host_binary(*this, std::move(lhs), std::move(rhs), "bitwise_right_shift",
                     []<typename T>(T a, T b) { return shift_right(a, b); });
}

}  // namespace burn
