// Uses an installed burn from outside the monorepo: loads the cpu plugin, adds two tensors and
// checks the values; exits non-zero on any mismatch or error.
#include <cmath>
#include <cstdio>
#include <exception>
#include <vector>

#include <burn/tensor/data.hpp>
#include <burn/tensor/device.hpp>
#include <burn/tensor/error.hpp>

int main() {
  try {
    burn::Device dev = burn::Device::get("cpu");
    std::printf("device: %s\n", dev.name().c_str());

    const burn::Shape shape{2, 3};
    auto a = dev->from_data(burn::TensorData::from_vector<float>({1, 2, 3, 4, 5, 6}, shape));
    auto b = dev->from_data(burn::TensorData::from_vector<float>({10, 20, 30, 40, 50, 60}, shape));
    burn::TensorData sum = dev->into_data(dev->add(a, b));
    std::printf("a + b = %s\n", sum.to_string().c_str());

    if (sum.shape() != shape || sum.dtype() != burn::DType::F32) {
      std::fprintf(stderr, "FAIL: result shape %s, expected %s\n", sum.shape().to_string().c_str(),
                   shape.to_string().c_str());
      return 1;
    }
    const std::vector<float> expected{11, 22, 33, 44, 55, 66};
    const std::vector<float> got = sum.to_vec<float>();
    for (size_t i = 0; i < expected.size(); ++i) {
      if (std::fabs(got[i] - expected[i]) > 1e-6f) {
        std::fprintf(stderr, "FAIL: element %zu is %g, expected %g\n", i, got[i], expected[i]);
        return 1;
      }
    }
    std::printf("OK\n");
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAIL: %s\n", e.what());
    return 2;
  }
}
