// What burn_vulkan_test's files share (one definition, so CMake's unity build may merge them): the machine's
// Vulkan instance and the best device's context, null where no usable device is (the tests then skip), and
// the best device's backend next to the cpu plugin's as reference, made once per process.
#pragma once

#include <gtest/gtest.h>

#include <exception>
#include <memory>

#include "burn/tensor/plugin.hpp"
#include "runtime/instance.hpp"
#include "vulkan_backend.hpp"

namespace burn::vulkan {

inline std::shared_ptr<Instance> instance_or_null() {
  try {
    auto inst = Instance::get();
    return inst->best_score() > 0 ? inst : nullptr;
  } catch (const std::exception&) {
    return nullptr;
  }
}

// The shared context of the best device (context_for's).
inline std::shared_ptr<Context> context_or_null() {
  try {
    auto inst = instance_or_null();
    return inst ? context_for(inst->choose("")) : nullptr;
  } catch (const std::exception&) {
    return nullptr;
  }
}

#define BURN_NO_VULKAN_DEVICE "no usable Vulkan device (install mesa-vulkan-drivers for lavapipe)"

// `ctx` and a VulkanBackend `be` on it, or the test skips.
#define REQUIRE_VULKAN_BACKEND()                   \
  auto ctx = context_or_null();                    \
  if (!ctx) GTEST_SKIP() << BURN_NO_VULKAN_DEVICE; \
  VulkanBackend be(ctx, "vulkan")

// The Vulkan backend of the best device and the cpu reference; null without a device.
struct DeviceAndCpu {
  std::shared_ptr<Context> ctx;
  std::unique_ptr<VulkanBackend> vk;
  BackendPtr cpu;
};

inline DeviceAndCpu* device_and_cpu() {
  static DeviceAndCpu* b = []() -> DeviceAndCpu* {
    auto ctx = context_or_null();
    if (!ctx) return nullptr;
    try {
      auto* r = new DeviceAndCpu;
      r->ctx = ctx;
      r->vk = std::make_unique<VulkanBackend>(r->ctx, "vulkan");
      r->cpu = plugins::create_backend("cpu");
      return r;
    } catch (const std::exception&) {
      return nullptr;
    }
  }();
  return b;
}

// `bk` (the DeviceAndCpu), `vk` and `cpu`, or the test skips.
#define REQUIRE_DEVICE_AND_CPU()                  \
  DeviceAndCpu* bk = device_and_cpu();            \
  if (!bk) GTEST_SKIP() << BURN_NO_VULKAN_DEVICE; \
  VulkanBackend& vk = *bk->vk;                    \
  Backend& cpu = *bk->cpu;                        \
  (void)vk;                                       \
  (void)cpu

// Whether the best device computes in `d` (f64 and f16 are optional features).
inline bool device_has(DType d) {
  const DeviceFeatures& f = device_and_cpu()->ctx->profile().features;
  return (d != DType::F64 || f.float64) && (d != DType::F16 || f.float16);
}

}  // namespace burn::vulkan
