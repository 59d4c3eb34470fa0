// The Vulkan runtime on whatever device the machine has (lavapipe in CI): profiles, the memory pool's
// deferred reuse, submission and reads, kernel compilation errors, and first elementwise ops.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "burn/tensor/error.hpp"
#include "device_support.hpp"
#include "runtime/instance.hpp"
#include "vulkan_backend.hpp"

namespace burn::vulkan {
namespace {

TEST(VulkanRuntime, ProfilesEveryDevice) {
  auto inst = instance_or_null();
  if (!inst) GTEST_SKIP() << "no usable Vulkan device";
  ASSERT_FALSE(inst->profiles().empty());
  for (const auto& p : inst->profiles()) {
    EXPECT_FALSE(p.name.empty());
    EXPECT_NE(p.describe().find("vulkan:" + std::to_string(p.index)), std::string::npos);
    if (!p.usable()) continue;
    EXPECT_GE(p.limits.max_push_constants_size, 128u);
    EXPECT_GT(p.limits.max_workgroup_invocations, 0u);
    EXPECT_GT(device_score(p), 0);
    if (p.cpu_type()) {
      EXPECT_LT(device_score(p), 10);
    }
  }
}

TEST(VulkanRuntime, ChoosingADeviceByIndexAndName) {
  auto inst = instance_or_null();
  if (!inst) GTEST_SKIP() << "no usable Vulkan device";
  const DeviceProfile& best = inst->choose("");
  EXPECT_EQ(&inst->choose(std::to_string(best.index)), &best);
  EXPECT_THROW(inst->choose("999"), DeviceError);
  EXPECT_THROW(inst->choose("no-such-gpu-name"), DeviceError);
  try {
    inst->choose("no-such-gpu-name");
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find(best.name), std::string::npos) << e.what();
  }
}

TEST(VulkanRuntime, DisableListSwitchesFeaturesOffAndNamesUnknownOnes) {
  DeviceProfile p;
  p.features.float64 = true;
  p.features.float16 = true;
  EXPECT_EQ(apply_disable_list(p, "float64, bogus", "test"), "bogus");
  EXPECT_FALSE(p.features.float64);
  EXPECT_TRUE(p.features.float16);
  ASSERT_EQ(p.disabled.size(), 1u);
  EXPECT_EQ(p.disabled[0], "float64: test");
}

TEST(VulkanRuntime, PoolReusesASliceOnlyAfterItsSubmissionCompleted) {
  REQUIRE_VULKAN_BACKEND();
  MemoryPool& pool = ctx->memory();
  VkDeviceAddress first;
  {
    AllocationPtr a = pool.allocate(1000);
    first = a->address();
    a->last_use = ctx->stream().recording_serial() + 5;  // "used by a submission not yet made"
  }
  AllocationPtr b = pool.allocate(1000);
  EXPECT_NE(b->address(), first) << "a slice still in use was handed out again";
  ctx->finish();
  {
    AllocationPtr c = pool.allocate(1000);
    c->last_use = 0;
  }
  ctx->collect();
  const uint64_t in_use = pool.bytes_in_use();
  AllocationPtr d = pool.allocate(1000);
  EXPECT_EQ(pool.bytes_in_use(), in_use + 1024u);
}

TEST(VulkanRuntime, WriteThenReadRoundTrips) {
  REQUIRE_VULKAN_BACKEND();
  std::vector<float> v(100000);
  std::iota(v.begin(), v.end(), 0.5f);
  AllocationPtr a = ctx->memory().allocate(v.size() * 4);
  ctx->write(*a, 0, v.data(), v.size() * 4);
  std::vector<float> back(v.size());
  ctx->read(*a, 0, back.data(), back.size() * 4);
  EXPECT_EQ(back, v);
}

TEST(VulkanRuntime, AKernelThatDoesNotCompileNamesItselfAndTheLine) {
  REQUIRE_VULKAN_BACKEND();
  try {
    ctx->pipelines().get("elementwise", {{"OP", "undefined_function(a)"}, {"ARITY", "1"}}, {64, 1, 1});
    FAIL() << "compiled";
  } catch (const DeviceError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("elementwise"), std::string::npos) << m;
    EXPECT_NE(m.find("undefined_function"), std::string::npos) << m;
  }
}

TEST(VulkanBackendOps, AddBroadcastsAndMatchesTheHost) {
  REQUIRE_VULKAN_BACKEND();
  TensorData a = TensorData::from_vector<float>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  TensorData b = TensorData::from_vector<float>({10, 20, 30}, Shape{3});
  Prim r = be.add(be.from_data(a), be.from_data(b));
  EXPECT_EQ(be.into_data(r).to_vec<float>(), (std::vector<float>{11, 22, 33, 14, 25, 36}));
}

TEST(VulkanBackendOps, IntDivisionByZeroIsRaisedAtTheNextRead) {
  REQUIRE_VULKAN_BACKEND();
  Prim a = be.from_data(TensorData::from_vector<int64_t>({7, 8, 9}, Shape{3}));
  Prim b = be.from_data(TensorData::from_vector<int64_t>({2, 0, 3}, Shape{3}));
  Prim q = be.div(a, b);
  EXPECT_THROW(be.into_data(q), ValueError);
  // The device stays usable and the fault is cleared.
  EXPECT_EQ(
      be.into_data(be.div(a, be.from_data(TensorData::from_vector<int64_t>({2, 2, 3}, Shape{3})))).to_vec<int64_t>(),
      (std::vector<int64_t>{3, 4, 3}));
}

TEST(VulkanBackendOps, ViewsAreReadThroughTheirStrides) {
  REQUIRE_VULKAN_BACKEND();
  Prim x = be.from_data(TensorData::from_vector<int32_t>({0, 1, 2, 3, 4, 5}, Shape{2, 3}));
  Prim t = be.permute(x, {1, 0});
  EXPECT_EQ(be.into_data(t).to_vec<int32_t>(), (std::vector<int32_t>{0, 3, 1, 4, 2, 5}));
  Prim f = be.flip(x, {1});
  EXPECT_EQ(be.into_data(be.cast(f, DType::F32)).to_vec<float>(), (std::vector<float>{2, 1, 0, 5, 4, 3}));
}

}  // namespace
}  // namespace burn::vulkan
