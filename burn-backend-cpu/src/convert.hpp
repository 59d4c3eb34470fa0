// Element conversions between every DType (f16/bf16 included) for cast, full, arange and mask_fill, and
// the plugin's one dtype dispatch (visit_dtype, and dispatch<Dtypes> built on it). Private to the plugin.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "burn/tensor/data.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/scalar.hpp"

namespace burn::cpu {

// A float to an integer type: truncates toward zero like torch; NaN gives 0 and out-of-range values
// saturate to the i64 range before the (modular) narrowing, so no conversion is undefined.
template <typename I, typename V>
inline I to_integer(V v) {
  if constexpr (std::is_floating_point_v<V>) {
    if (std::isnan(v)) return 0;
    if (v >= 9.223372036854775807e18) return static_cast<I>(std::numeric_limits<int64_t>::max());
    if (v <= -9.223372036854775808e18) return static_cast<I>(std::numeric_limits<int64_t>::min());
    return static_cast<I>(static_cast<int64_t>(v));
  } else {
    return static_cast<I>(v);
  }
}

// Inline IEEE half conversions (round to nearest even; NaN stays NaN, overflow goes to inf): the same
// results as burn's f16_to_f32/f32_to_f16 but for NaN payloads, which follow F16C (see half_convert.hpp);
// branch-light and inlinable so cast loops run fast. The scalar path of half_convert.cpp.
inline float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  const uint32_t em = h & 0x7fff;
  // Payload kept; a signalling NaN comes out quiet, as F16C's vcvtph2ps does.
  const uint32_t infnan = 0x7f800000u | ((em & 0x3ff) << 13) | (em > 0x7c00 ? 0x00400000u : 0u);
  const uint32_t normal = (em << 13) + 0x38000000u;  // rebias the exponent by 127 - 15
  const uint32_t sub = std::bit_cast<uint32_t>(static_cast<float>(static_cast<int32_t>(em)) * 5.9604644775390625e-8f);
  const uint32_t r = em >= 0x7c00 ? infnan : (em >= 0x400 ? normal : sub);
  return std::bit_cast<float>(sign | r);
}

inline uint16_t float_to_half(float f) {
  // All three cases are computed and picked with integer selects, so cast loops vectorise.
  uint32_t u = std::bit_cast<uint32_t>(f);
  const uint32_t sign = (u >> 16) & 0x8000;
  u &= 0x7fffffffu;
  const uint32_t infnan = u > 0x7f800000u ? 0x7e00u | ((u >> 13) & 0x3ffu) : 0x7c00u;  // NaN: quiet, top payload kept
  // Below 2^-14 the result is subnormal: adding 0.5 lines the half's ulp up with the float's, so
  // the FPU does the round-to-nearest-even.
  const uint32_t sub = std::bit_cast<uint32_t>(std::bit_cast<float>(u) + 0.5f) - 0x3f000000u;
  const uint32_t normal = (u + 0xc8000fffu + ((u >> 13) & 1)) >> 13;  // rebias (15 - 127) << 23, round
  const uint32_t r = u >= 0x47800000u ? infnan : (u < 0x38800000u ? sub : normal);
  return static_cast<uint16_t>(sign | r);
}

inline float bfloat_to_float(uint16_t h) { return std::bit_cast<float>(static_cast<uint32_t>(h) << 16); }

inline uint16_t float_to_bfloat(float f) {
  const uint32_t u = std::bit_cast<uint32_t>(f);
  const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1)) >> 16;
  return static_cast<uint16_t>((u & 0x7fffffffu) > 0x7f800000u ? ((u >> 16) | 0x40) : rounded);  // NaN stays quiet NaN
}

// Conv<D>: the storage type of D, load() to a C++ arithmetic value and store() back from one.
template <DType D>
struct Conv;

template <>
struct Conv<DType::F32> {
  using Storage = float;
  static float load(float v) { return v; }
  template <typename V>
  static float store(V v) {
    return static_cast<float>(v);
  }
};
template <>
struct Conv<DType::F64> {
  using Storage = double;
  static double load(double v) { return v; }
  template <typename V>
  static double store(V v) {
    return static_cast<double>(v);
  }
};
template <>
struct Conv<DType::F16> {
  using Storage = uint16_t;
  static float load(uint16_t v) { return half_to_float(v); }
  template <typename V>
  static uint16_t store(V v) {
    return float_to_half(static_cast<float>(v));
  }
};
template <>
struct Conv<DType::BF16> {
  using Storage = uint16_t;
  static float load(uint16_t v) { return bfloat_to_float(v); }
  template <typename V>
  static uint16_t store(V v) {
    return float_to_bfloat(static_cast<float>(v));
  }
};
template <typename I>
struct ConvInt {
  using Storage = I;
  static I load(I v) { return v; }
  template <typename V>
  static I store(V v) {
    return to_integer<I>(v);
  }
};
template <>
struct Conv<DType::I64> : ConvInt<int64_t> {};
template <>
struct Conv<DType::I32> : ConvInt<int32_t> {};
template <>
struct Conv<DType::I8> : ConvInt<int8_t> {};
template <>
struct Conv<DType::U8> : ConvInt<uint8_t> {};
template <>
struct Conv<DType::Bool> {
  using Storage = uint8_t;
  static uint8_t load(uint8_t v) { return v != 0 ? 1 : 0; }
  template <typename V>
  static uint8_t store(V v) {
    return v != V(0) ? 1 : 0;
  }  // NaN is true, as in torch
};

// Calls f.template operator()<D>() with D the runtime dtype `d`.
template <typename F>
decltype(auto) visit_dtype(DType d, F&& f) {
  switch (d) {
    case DType::F32: return f.template operator()<DType::F32>();
    case DType::F64: return f.template operator()<DType::F64>();
    case DType::F16: return f.template operator()<DType::F16>();
    case DType::BF16: return f.template operator()<DType::BF16>();
    case DType::I64: return f.template operator()<DType::I64>();
    case DType::I32: return f.template operator()<DType::I32>();
    case DType::I8: return f.template operator()<DType::I8>();
    case DType::U8: return f.template operator()<DType::U8>();
    case DType::Bool: break;
  }
  return f.template operator()<DType::Bool>();
}

// The dtype sets a kernel accepts. No set holds f16/bf16: the plugin computes them through the f32 kernels
// (half_backend.cpp).
enum class Dtypes : uint8_t {
  Float,      // f32, f64: float math, activations, conv, norm
  Numeric,    // f32, f64, i64, i32: arithmetic and reductions
  Int,        // i64, i32, i8, u8: bitwise ops
  Addable,    // numeric, i8, u8: accumulating scatters
  Computing,  // numeric, i8, u8 and bool (u8 storage): comparisons, scatter
};

template <Dtypes S>
constexpr bool accepts(DType d) {
  const bool f = d == DType::F32 || d == DType::F64;
  const bool i = d == DType::I64 || d == DType::I32;
  switch (S) {
    case Dtypes::Float: return f;
    case Dtypes::Numeric: return f || i;
    case Dtypes::Int: return i || d == DType::I8 || d == DType::U8;
    case Dtypes::Addable: return f || i || d == DType::I8 || d == DType::U8;
    case Dtypes::Computing: return f || i || d == DType::I8 || d == DType::U8 || d == DType::Bool;
  }
  return false;
}

constexpr const char* dtypes_name(Dtypes s) {
  switch (s) {
    case Dtypes::Float: return "float tensor (f32 or f64)";
    case Dtypes::Numeric: return "numeric tensor (f32, f64, i64 or i32)";
    case Dtypes::Int: return "integer tensor (i64, i32, i8 or u8)";
    case Dtypes::Addable: return "numeric tensor (f32, f64, i64, i32, i8 or u8)";
    case Dtypes::Computing: return "tensor of a computing dtype";
  }
  return "";
}

// Unsupported for f16/bf16 (the kernels take f32; make_cpu_backend's decorator widens them), DTypeError naming the op
// and the accepted set otherwise.
[[noreturn]] inline void throw_dtype(const char* op, const char* want, DType got) {
  if (got == DType::F16 || got == DType::BF16)
    throw Unsupported(
        op, "dtype " + std::string(dtype_name(got)) +
                " reaches the cpu kernels only through the plugin's f32 route (make_cpu_backend, half_backend.cpp)");
  throw DTypeError(op, std::string("expected a ") + want + ", got " + std::string(dtype_name(got)));
}

// The plugin's dtype dispatch: calls f.template operator()<T>() with T the element type (the storage
// type: uint8_t for bool) of `d` when `d` is in set S, else throws as throw_dtype. Every branch must
// return the same type. A template, not a macro, so the kernel is an ordinary generic lambda:
//   dispatch<Dtypes::Float>(dt, "exp", [&]<typename T>() { return unary_op<T, T>(...); });
template <Dtypes S, typename F>
decltype(auto) dispatch(DType d, const char* op, F&& f) {
  using First = std::conditional_t<S == Dtypes::Int, int64_t, float>;
  using R = decltype(f.template operator()<First>());
  return visit_dtype(d, [&]<DType D>() -> R {
    if constexpr (accepts<S>(D))
      return f.template operator()<typename Conv<D>::Storage>();
    else
      throw_dtype(op, dtypes_name(S), d);
  });
}

// A scalar stored as dtype D: ints stay exact for int dtypes, everything else goes through double.
template <DType D>
inline typename Conv<D>::Storage scalar_to(const Scalar& s) {
  using S = typename Conv<D>::Storage;
  constexpr bool int_dtype = D == DType::I64 || D == DType::I32 || D == DType::I8 || D == DType::U8;
  if constexpr (int_dtype) {
    if (s.kind != Scalar::Kind::Float) return static_cast<S>(s.i);
  }
  if constexpr (D == DType::Bool) return s.as_bool() ? 1 : 0;
  return Conv<D>::store(s.as_double());
}

}  // namespace burn::cpu
