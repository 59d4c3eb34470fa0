// Precision policies and the float casts of save (policy) and load (requested dtype).
#include <cstring>

#include "internal.hpp"

namespace burn::record {

std::string_view precision_name(Precision p) {
  switch (p) {
    case Precision::Keep: return "keep";
    case Precision::F32: return "f32";
    case Precision::F16: return "f16";
    case Precision::BF16: return "bf16";
    case Precision::F64: return "f64";
  }
  return "unknown";
}

Precision parse_precision(std::string_view name) {
  for (Precision p : {Precision::Keep, Precision::F32, Precision::F16, Precision::BF16, Precision::F64}) {
    if (precision_name(p) == name) return p;
  }
  throw ValueError("record.precision",
                   "unknown precision '" + std::string(name) + "'; expected keep, f32, f16, bf16 or f64");
}

namespace detail {

std::optional<DType> precision_dtype(Precision p) {
  switch (p) {
    case Precision::F32: return DType::F32;
    case Precision::F16: return DType::F16;
    case Precision::BF16: return DType::BF16;
    case Precision::F64: return DType::F64;
    case Precision::Keep: break;
  }
  return std::nullopt;
}

// Float tensors to `to`, with direct loops for the common pairs (TensorData::convert goes through f64
// per element, ten times slower on a large checkpoint).
TensorData cast_float(const TensorData& t, DType to) {
  if (!is_float(t.dtype()) || t.dtype() == to) return t;
  const size_t n = static_cast<size_t>(t.num_elements());
  TensorData out(t.shape(), to);
  const uint8_t* src = t.bytes().data();
  uint8_t* dst = out.bytes().data();
  auto loop = [&](auto read, auto write) {
    for (size_t i = 0; i < n; ++i) write(i, read(i));
  };
  auto f32_at = [&](size_t i) {
    float v;
    std::memcpy(&v, src + 4 * i, 4);
    return v;
  };
  auto u16_at = [&](size_t i) {
    uint16_t v;
    std::memcpy(&v, src + 2 * i, 2);
    return v;
  };
  auto put_f32 = [&](size_t i, float v) { std::memcpy(dst + 4 * i, &v, 4); };
  auto put_u16 = [&](size_t i, uint16_t v) { std::memcpy(dst + 2 * i, &v, 2); };
  const DType from = t.dtype();
  if (from == DType::F32 && to == DType::F16) {
    loop(f32_at, [&](size_t i, float v) { put_u16(i, f32_to_f16(v)); });
  } else if (from == DType::F32 && to == DType::BF16) {
    loop(f32_at, [&](size_t i, float v) { put_u16(i, f32_to_bf16(v)); });
  } else if (from == DType::F16 && to == DType::F32) {
    loop(u16_at, [&](size_t i, uint16_t v) { put_f32(i, f16_to_f32(v)); });
  } else if (from == DType::BF16 && to == DType::F32) {
    loop(u16_at, [&](size_t i, uint16_t v) { put_f32(i, bf16_to_f32(v)); });
  } else if (from == DType::F32 && to == DType::F64) {
    loop(f32_at, [&](size_t i, float v) {
      const double d = v;
      std::memcpy(dst + 8 * i, &d, 8);
    });
  } else if (from == DType::F64 && to == DType::F32) {
    loop(
        [&](size_t i) {
          double v;
          std::memcpy(&v, src + 8 * i, 8);
          return v;
        },
        [&](size_t i, double v) { put_f32(i, static_cast<float>(v)); });
  } else {
    return t.convert(to);
  }
  return out;
}

}  // namespace detail
}  // namespace burn::record
