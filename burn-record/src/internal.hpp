// burn-record's private helpers shared by its sources (not installed).
#pragma once

#include <optional>

#include "burn/record/recorder.hpp"

namespace burn::record::detail {

// The dtype a policy converts float tensors to; nullopt for Precision::Keep.
std::optional<DType> precision_dtype(Precision p);
// A float tensor as `to` (direct loops for the common pairs); any other tensor unchanged.
TensorData cast_float(const TensorData& t, DType to);

}  // namespace burn::record::detail
