// The record layout of a quantized tensor that the writer (quant.cpp) and the checks (quant_check.cpp) share:
// burn/record/quant.hpp describes it.
#pragma once

#include <array>
#include <string_view>

#include "burn/record/quant.hpp"

namespace burn::record::quant_layout {

inline constexpr size_t kSchemeFields = 7;  // version, value, mode, level, axis, block size, scale dtype
inline constexpr std::array<DType, 3> kScaleDTypes{DType::F32, DType::F16, DType::BF16};
inline constexpr std::array<std::string_view, 4> kParts{kQuantSchemeEntry, "values", "scales", "zero_points"};

}  // namespace burn::record::quant_layout
