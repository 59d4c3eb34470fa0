// What the fusion test suites share: the inspector of a fusion device, failing the test when it has none.
#pragma once

#include <gtest/gtest.h>

#include "burn/fusion/fusion.hpp"

namespace burn::fusion_test {

inline fusion::Inspector& insp(const Device& d) {
  fusion::Inspector* i = fusion::inspector(d);
  EXPECT_NE(i, nullptr);
  return *i;
}

}  // namespace burn::fusion_test
