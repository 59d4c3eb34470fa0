// The device a test suite runs on: $BURN_TEST_DEVICE (e.g. "trace<cpu>") or "cpu", so that ctest
// runs the same suite over a decorator chain as well as over the bare backend.
#pragma once

#include <cstdlib>

#include "burn/tensor/device.hpp"

namespace burn::testing {

inline Device test_device() {
  const char* spec = std::getenv("BURN_TEST_DEVICE");
  return Device::get(spec && *spec ? spec : "cpu");
}

}  // namespace burn::testing
