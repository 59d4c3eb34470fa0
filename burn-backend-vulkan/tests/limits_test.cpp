// Work longer than a driver lets one shader loop run: lavapipe stops every loop after 65535 iterations
// without a word, so launchers split such walks (DeviceLimits::max_loop) or refuse them by name.
#include <gtest/gtest.h>

#include <numeric>

#include "burn/tensor/error.hpp"
#include "device_support.hpp"
#include "runtime/instance.hpp"
#include "vulkan_backend.hpp"

namespace burn::vulkan {
namespace {

TEST(VulkanLimits, AScatterLineLongerThanALoopAddsEveryEntry) {
  auto ctx = context_or_null();
  if (!ctx) GTEST_SKIP() << "no usable Vulkan device";
  VulkanBackend be(ctx, "vulkan");
  const int64_t n = 3 * 65535 + 7;  // three full parts and a remainder where the limit applies
  std::vector<int64_t> idx(static_cast<size_t>(n)), vals(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    idx[static_cast<size_t>(i)] = (n - 1 - i) / 2;  // pairs land on one element, in reverse
    vals[static_cast<size_t>(i)] = i;
  }
  Prim out = be.scatter_add(be.full(Shape{1, n}, Scalar(int64_t{0}), DType::I64), 1,
                            be.from_data(TensorData::from_vector(idx, Shape{1, n})),
                            be.from_data(TensorData::from_vector(vals, Shape{1, n})));
  const std::vector<int64_t> got = be.into_data(out).to_vec<int64_t>();
  std::vector<int64_t> want(static_cast<size_t>(n), 0);
  for (int64_t i = 0; i < n; ++i) want[static_cast<size_t>(idx[static_cast<size_t>(i)])] += i;
  EXPECT_EQ(got, want);
}

TEST(VulkanLimits, AMatmulWhoseKExceedsALoopIsRefusedByName) {
  auto ctx = context_or_null();
  if (!ctx) GTEST_SKIP() << "no usable Vulkan device";
  const uint32_t cap = ctx->profile().limits.max_loop;
  if (cap == 0) GTEST_SKIP() << ctx->profile().name << " runs loops of any length";
  VulkanBackend be(ctx, "vulkan");
  const int64_t k = int64_t{cap} + 1;
  Prim a = be.full(Shape{1, k}, Scalar(1.0), DType::F32);
  Prim b = be.full(Shape{k, 1}, Scalar(1.0), DType::F32);
  try {
    be.matmul(a, b);
    FAIL() << "K above the loop limit ran";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("K = " + std::to_string(k)), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace burn::vulkan
