// Element conversions between every DType (f16/bf16 included) for cast, full, arange and mask_fill.
// Private to the plugin.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "burn/tensor/data.hpp"
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

// Conv<D>: the storage type of D, load() to a C++ arithmetic value and store() back from one.
template <DType D> struct Conv;

template <> struct Conv<DType::F32> {
  using Storage = float;
  static float load(float v) { return v; }
  template <typename V> static float store(V v) { return static_cast<float>(v); }
};
template <> struct Conv<DType::F64> {
  using Storage = double;
  static double load(double v) { return v; }
  template <typename V> static double store(V v) { return static_cast<double>(v); }
};
template <> struct Conv<DType::F16> {
  using Storage = uint16_t;
  static float load(uint16_t v) { return f16_to_f32(v); }
  template <typename V> static uint16_t store(V v) { return f32_to_f16(static_cast<float>(v)); }
};
template <> struct Conv<DType::BF16> {
  using Storage = uint16_t;
  static float load(uint16_t v) { return bf16_to_f32(v); }
  template <typename V> static uint16_t store(V v) { return f32_to_bf16(static_cast<float>(v)); }
};
template <typename I> struct ConvInt {
  using Storage = I;
  static I load(I v) { return v; }
  template <typename V> static I store(V v) { return to_integer<I>(v); }
};
template <> struct Conv<DType::I64> : ConvInt<int64_t> {};
template <> struct Conv<DType::I32> : ConvInt<int32_t> {};
template <> struct Conv<DType::I8> : ConvInt<int8_t> {};
template <> struct Conv<DType::U8> : ConvInt<uint8_t> {};
template <> struct Conv<DType::Bool> {
  using Storage = uint8_t;
  static uint8_t load(uint8_t v) { return v != 0 ? 1 : 0; }
  template <typename V> static uint8_t store(V v) { return v != V(0) ? 1 : 0; }  // NaN is true, as in torch
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
