// What the fusion test suites share (one definition, so CMake's unity build may merge their files): the
// inspector of a fusion device, failing the test when it has none, and bitwise equality of two results.
#pragma once

#include <gtest/gtest.h>

#include <cstring>

#include "burn/fusion/fusion.hpp"

namespace burn::fusion_test {

inline fusion::Inspector& insp(const Device& d) {
  fusion::Inspector* i = fusion::inspector(d);
  EXPECT_NE(i, nullptr);
  return *i;
}

// Same shape, dtype and bytes: NaN payloads and the sign of zero included.
inline bool same_bits(const TensorData& a, const TensorData& b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() &&
         std::memcmp(a.raw(), b.raw(), static_cast<size_t>(a.num_elements()) * dtype_size(a.dtype())) == 0;
}

}  // namespace burn::fusion_test
