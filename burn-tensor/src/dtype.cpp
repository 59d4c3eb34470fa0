// DType names and parsing.
#include "burn/tensor/dtype.hpp"

#include <string>

#include "burn/tensor/error.hpp"

namespace burn {

std::string_view dtype_name(DType d) {
  switch (d) {
    case DType::F32: return "f32";
    case DType::F64: return "f64";
    case DType::F16: return "f16";
    case DType::BF16: return "bf16";
    case DType::I64: return "i64";
    case DType::I32: return "i32";
    case DType::I8: return "i8";
    case DType::U8: return "u8";
    case DType::Bool: return "bool";
  }
  return "?";
}

DType parse_dtype(std::string_view name) {
  struct Alias {
    std::string_view name;
    DType dtype;
  };
  static constexpr Alias kAliases[] = {
      {"f32", DType::F32},     {"float32", DType::F32}, {"float", DType::F32},     {"f64", DType::F64},
      {"float64", DType::F64}, {"double", DType::F64},  {"f16", DType::F16},       {"float16", DType::F16},
      {"half", DType::F16},    {"bf16", DType::BF16},   {"bfloat16", DType::BF16}, {"i64", DType::I64},
      {"int64", DType::I64},   {"long", DType::I64},    {"i32", DType::I32},       {"int32", DType::I32},
      {"int", DType::I32},     {"i8", DType::I8},       {"int8", DType::I8},       {"u8", DType::U8},
      {"uint8", DType::U8},    {"bool", DType::Bool}};
  for (const auto& a : kAliases)
    if (a.name == name) return a.dtype;
  throw DTypeError("parse_dtype", "unknown dtype '" + std::string(name) +
                                      "'; expected one of f32, f64, f16, bf16, i64, i32, i8, u8, bool");
}

}  // namespace burn
