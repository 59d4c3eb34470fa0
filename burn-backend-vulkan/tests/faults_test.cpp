// Faults of the Vulkan runtime through the tensor api: an allocation the device cannot
// give (too large for one allocation, or refused by the driver), a driver that refuses the device, a device
// lost at submit or at wait, a kernel that does not compile. Each is a clear burn::Error naming the op, and
// whatever was not lost keeps working. The driver's failures are injected by BURN_VULKAN_FAULT (tests only),
// since lavapipe cannot be made to give them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "burn/tensor/api.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/plugin.hpp"
#include "device_support.hpp"
#include "runtime/fault_injection.hpp"
#include "runtime/instance.hpp"
#include "vulkan_backend.hpp"

namespace burn::vulkan {
namespace {

// Sets BURN_VULKAN_FAULT for one scope.
struct InjectFault {
  explicit InjectFault(const char* what) { ::setenv("BURN_VULKAN_FAULT", what, 1); }
  ~InjectFault() { ::unsetenv("BURN_VULKAN_FAULT"); }
  InjectFault(const InjectFault&) = delete;
  InjectFault& operator=(const InjectFault&) = delete;
};

// A device of its own (not context_for's shared one), so that losing it harms no other test.
Device own_device(const std::shared_ptr<Instance>& inst) {
  return Device::from_backend(std::make_shared<VulkanBackend>(Context::create(inst, inst->choose("")), "vulkan"));
}

std::vector<float> values(const TensorHandle& h) { return api::into_data(h).to_vec<float>(); }

TensorHandle small(const Device& d) {
  return api::from_data(d, TensorData::from_vector<float>({1, 2, 3}, Shape{3}), Kind::Float);
}

#define EXPECT_CONTAINS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

TEST(VulkanFaults, TheFaultListIsParsedByName) {
  InjectFault f(" alloc ,compile");
  EXPECT_TRUE(fault_injected(Fault::alloc));
  EXPECT_TRUE(fault_injected(Fault::compile));
  EXPECT_FALSE(fault_injected(Fault::device_lost));
  ::setenv("BURN_VULKAN_FAULT", "device-lost-wait", 1);
  EXPECT_FALSE(fault_injected(Fault::device_lost));
  EXPECT_TRUE(fault_injected(Fault::device_lost_wait));
}

TEST(VulkanFaults, ATensorLargerThanOneAllocationIsOutOfMemoryNamingTheOpAndTheBytes) {
  auto inst = instance_or_null();
  if (!inst) GTEST_SKIP() << "no usable Vulkan device";
  auto ctx = context_for(inst->choose(""));
  const uint64_t limit = ctx->profile().limits.max_memory_allocation_size;
  if (limit == 0 || limit > (uint64_t{16} << 30)) GTEST_SKIP() << "maxMemoryAllocationSize " << limit;
  Device d = Device::from_backend(std::make_shared<VulkanBackend>(ctx, "vulkan"));
  const int64_t n = static_cast<int64_t>(limit / 4) + 64;  // 256 bytes over the limit
  try {
    api::full(d, Shape{n}, Scalar(1.0), DType::F32);
    FAIL() << "a tensor over maxMemoryAllocationSize was made";
  } catch (const OutOfMemory& e) {
    EXPECT_CONTAINS(e.what(), "[full]");
    EXPECT_CONTAINS(e.what(), std::to_string(uint64_t(n) * 4) + " bytes");
    EXPECT_CONTAINS(e.what(), "maxMemoryAllocationSize " + std::to_string(limit));
  }
  // The device stays usable.
  EXPECT_EQ(values(api::add(small(d), small(d))), (std::vector<float>{2, 4, 6}));
}

TEST(VulkanFaults, AnAllocationTheDriverRefusesIsOutOfMemoryAndTheDeviceStaysUsable) {
  auto inst = instance_or_null();
  if (!inst) GTEST_SKIP() << "no usable Vulkan device";
  Device d = own_device(inst);
  const int64_t n = 8 << 20;  // 32 MiB of f32: a block of its own
  {
    InjectFault f("alloc");
    try {
      api::full(d, Shape{n}, Scalar(2.0), DType::F32);
      FAIL() << "the injected allocation failure was ignored";
    } catch (const OutOfMemory& e) {
      EXPECT_CONTAINS(e.what(), "[full]");
      EXPECT_CONTAINS(e.what(), "cannot give " + std::to_string(n * 4) + " bytes");
      EXPECT_CONTAINS(e.what(), "VK_ERROR_OUT_OF_DEVICE_MEMORY");
      EXPECT_CONTAINS(e.what(), "injected by BURN_VULKAN_FAULT=alloc");
    }
    // Small tensors come from the shared blocks, which still work.
    EXPECT_EQ(values(api::mul(small(d), small(d))), (std::vector<float>{1, 4, 9}));
  }
  TensorHandle big = api::full(d, Shape{n}, Scalar(2.0), DType::F32);
  EXPECT_EQ(values(api::reduce_all(OpId::sum, big)), (std::vector<float>{2.0f * n}));
}

TEST(VulkanFaults, ADriverThatRefusesTheDeviceIsADeviceErrorNamingIt) {
  auto inst = instance_or_null();
  if (!inst) GTEST_SKIP() << "no usable Vulkan device";
  const DeviceProfile& p = inst->choose("");
  InjectFault f("device");
  try {
    Context::create(inst, p);
    FAIL() << "the injected vkCreateDevice failure was ignored";
  } catch (const DeviceError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("[vulkan] ", 0), 0u) << e.what();  // not a stale op's name
    EXPECT_CONTAINS(e.what(), "refused to open vulkan:" + std::to_string(p.index) + " (" + p.name + ")");
    EXPECT_CONTAINS(e.what(), "vkCreateDevice failed: VK_ERROR_INITIALIZATION_FAILED");
  }
}

// Loses a device at `fault`, then checks the error of that op and of every later one on the device, and
// that the cpu backend and another Vulkan device still work.
void lose_device_at(const char* fault, const char* call) {
  auto inst = instance_or_null();
  if (!inst) GTEST_SKIP() << "no usable Vulkan device";
  Device d = own_device(inst);
  TensorHandle x = small(d);
  EXPECT_EQ(values(api::unary(OpId::exp, api::sub(x, x))), (std::vector<float>{1, 1, 1}));
  std::string first;
  {
    InjectFault f(fault);
    TensorHandle y = api::unary(OpId::exp, x);
    try {
      api::into_data(y);
      FAIL() << "the injected device loss was ignored";
    } catch (const DeviceError& e) {
      first = e.what();
      EXPECT_CONTAINS(first, "was lost (" + std::string(call) + ": VK_ERROR_DEVICE_LOST, in op 'into_data')");
      EXPECT_CONTAINS(first, std::string("injected by BURN_VULKAN_FAULT=") + fault);
    }
  }
  // Later calls on that device fail with the same cause, naming their own op.
  try {
    api::into_data(api::add(x, x));
    FAIL() << "a lost device ran an op";
  } catch (const DeviceError& e) {
    EXPECT_CONTAINS(e.what(), "[add]");
    EXPECT_CONTAINS(e.what(), "was lost (" + std::string(call) + ": VK_ERROR_DEVICE_LOST, in op 'into_data')");
  }
  Device cpu = Device::get("cpu");
  EXPECT_EQ(values(api::add(small(cpu), small(cpu))), (std::vector<float>{2, 4, 6}));
  Device other = own_device(inst);
  EXPECT_EQ(values(api::add(small(other), small(other))), (std::vector<float>{2, 4, 6}));
}

TEST(VulkanFaults, ADeviceLostAtSubmitFailsThisAndEveryLaterOpWithOneCause) {
  lose_device_at("device-lost", "vkQueueSubmit");
}

TEST(VulkanFaults, ADeviceLostAtWaitFailsThisAndEveryLaterOpWithOneCause) {
  lose_device_at("device-lost-wait", "vkWaitSemaphores");
}

TEST(VulkanFaults, AKernelThatDoesNotCompileGivesTheGlslangLogAndTheKernelName) {
  auto inst = instance_or_null();
  if (!inst) GTEST_SKIP() << "no usable Vulkan device";
  Device d = own_device(inst);  // no pipeline compiled yet
  TensorHandle x = small(d);
  {
    InjectFault f("compile");
    try {
      api::into_data(api::unary(OpId::sqrt, x));
      FAIL() << "the injected compile error was ignored";
    } catch (const DeviceError& e) {
      EXPECT_CONTAINS(e.what(), "[sqrt]");
      EXPECT_CONTAINS(e.what(), "Vulkan kernel 'elementwise'");
      EXPECT_CONTAINS(e.what(), "does not compile");
      EXPECT_CONTAINS(e.what(), "'injected_by_BURN_VULKAN_FAULT' : undeclared identifier");  // glslang's log
    }
  }
  // Nothing was cached from the failure: the same op compiles and runs now.
  const std::vector<float> got = values(api::unary(OpId::sqrt, x));
  EXPECT_FLOAT_EQ(got[3 - 1], std::sqrt(3.0f));
}

}  // namespace
}  // namespace burn::vulkan
