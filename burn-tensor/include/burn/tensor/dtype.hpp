// Runtime element types. A tensor's kind (Float, Int, Bool) is static; its DType is not.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "burn/tensor/export.hpp"

namespace burn {

enum class DType : uint8_t { F32, F64, F16, BF16, I64, I32, I8, U8, Bool };

inline constexpr DType kAllDTypes[] = {DType::F32, DType::F64, DType::F16, DType::BF16, DType::I64,
                                       DType::I32, DType::I8,  DType::U8,  DType::Bool};

constexpr size_t dtype_size(DType d) {
  switch (d) {
    case DType::F64:
    case DType::I64: return 8;
    case DType::F32:
    case DType::I32: return 4;
    case DType::F16:
    case DType::BF16: return 2;
    case DType::I8:
    case DType::U8:
    case DType::Bool: return 1;
  }
  return 0;
}
constexpr bool is_float(DType d) { return d == DType::F32 || d == DType::F64 || d == DType::F16 || d == DType::BF16; }
constexpr bool is_int(DType d) { return d == DType::I64 || d == DType::I32 || d == DType::I8 || d == DType::U8; }
constexpr bool is_bool(DType d) { return d == DType::Bool; }

BURN_TENSOR_API std::string_view dtype_name(DType d);
// Parses "f32", "float32", "i64", "bool", ...; throws DTypeError on an unknown name.
BURN_TENSOR_API DType parse_dtype(std::string_view name);

}  // namespace burn
