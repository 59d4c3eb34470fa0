// Creating the logical device and moving bytes between host and device.
#include "runtime/context.hpp"

#include <cstring>
#include <vector>

#include "burn/tensor/error.hpp"
#include "runtime/fault_injection.hpp"
#include "runtime/vk_error.hpp"

namespace burn::vulkan {

namespace {
constexpr uint64_t kArgumentChunk = 64 * 1024;
}

std::shared_ptr<Context> Context::create(std::shared_ptr<Instance> instance, const DeviceProfile& profile) {
  std::shared_ptr<Context> ctx(new Context(std::move(instance), profile));
  ctx->init();
  return ctx;
}

Context::Context(std::shared_ptr<Instance> instance, const DeviceProfile& profile)
    : instance_(std::move(instance)), profile_(profile) {}

void Context::init() {
  if (!profile_.usable()) throw DeviceError("vulkan", "cannot use " + profile_.describe());
  const DeviceFeatures& f = profile_.features;
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  f12.bufferDeviceAddress = VK_TRUE;
  f12.timelineSemaphore = VK_TRUE;
  f12.shaderInt8 = VK_TRUE;
  f12.storageBuffer8BitAccess = VK_TRUE;
  f12.shaderFloat16 = f.float16;
  VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, &f12};
  f11.storageBuffer16BitAccess = f.float16 || f.storage16;
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f11};
  f2.features.shaderInt64 = VK_TRUE;
  f2.features.shaderFloat64 = f.float64;
  f2.features.shaderInt16 = f.int16 || f.storage16;

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qi.queueFamilyIndex = profile_.compute_queue_family;
  qi.queueCount = 1;
  qi.pQueuePriorities = &priority;
  // The f16 GEMM on cooperative matrices (kernels/matmul_coop.comp) when the profile found a shape.
  VkPhysicalDeviceCooperativeMatrixFeaturesNV cm{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
  std::vector<const char*> extensions;
  if (f.cooperative_matrix) {
    cm.cooperativeMatrix = VK_TRUE;
    f12.pNext = &cm;
    extensions.push_back(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
  }
  VkDeviceCreateInfo di{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &f2};
  di.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  di.ppEnabledExtensionNames = extensions.data();
  di.queueCreateInfoCount = 1;
  di.pQueueCreateInfos = &qi;
  const bool injected = fault_injected(Fault::device);
  const VkResult r = injected ? VK_ERROR_INITIALIZATION_FAILED
                              : vkCreateDevice(instance_->physical(profile_.index), &di, nullptr, &device_);
  // The driver lists the device but will not open it (reset, in use exclusively, a broken driver).
  if (r < 0)
    throw DeviceError("vulkan", "the Vulkan driver refused to open vulkan:" + std::to_string(profile_.index) + " (" +
                                    profile_.name + ")" + ": vkCreateDevice failed: " + result_name(r) + " (" +
                                    std::to_string(static_cast<int>(r)) + ")" + (injected ? injected_note() : ""));
  vkGetDeviceQueue(device_, profile_.compute_queue_family, 0, &queue_);

  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, kPushBytes};
  VkPipelineLayoutCreateInfo li{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  li.pushConstantRangeCount = 1;
  li.pPushConstantRanges = &range;
  check_vk(vkCreatePipelineLayout(device_, &li, nullptr, &layout_), "vkCreatePipelineLayout");

  memory_ = std::make_unique<MemoryPool>(*this, instance_->physical(profile_.index));
  stream_ = std::make_unique<Stream>(*this);
  pipelines_ = std::make_unique<Pipelines>(*this);
}

Context::~Context() {
  args_.reset();
  faults_.reset();
  if (stream_) stream_.reset();  // waits for the last submission
  pipelines_.reset();
  memory_.reset();
  if (layout_) vkDestroyPipelineLayout(device_, layout_, nullptr);
  if (device_) vkDestroyDevice(device_, nullptr);
}

void Context::collect() { memory_->collect(stream_->completed()); }

namespace {
constexpr uint32_t kFaultTags = 4096;  // tags are reused round-robin; a fault names one of the last 4096 ops
struct FaultBlock {
  uint32_t code, tag;
  int64_t value, limit;
};
}  // namespace

VkDeviceAddress Context::faults_address() {
  std::lock_guard lock(fault_mutex_);
  if (!faults_) {
    faults_ = memory_->allocate(sizeof(FaultBlock), MemoryKind::Arguments);
    std::memset(faults_->mapped(), 0, sizeof(FaultBlock));
    fault_ops_.resize(kFaultTags);
  }
  return faults_->address();
}

uint32_t Context::fault_tag(const char* op, const std::string& what) {
  faults_address();
  std::lock_guard lock(fault_mutex_);
  const uint32_t tag = next_tag_++ % kFaultTags;
  fault_ops_[tag] = {op, what};
  return tag;
}

void Context::check_faults() {
  std::lock_guard lock(fault_mutex_);
  if (!faults_) return;
  FaultBlock f;
  std::memcpy(&f, faults_->mapped(), sizeof f);
  if (f.code == 0) return;
  std::memset(faults_->mapped(), 0, sizeof f);
  const auto& [op, what] = fault_ops_[f.tag % kFaultTags];
  const std::string where = " (found by the Vulkan kernel, raised at the next read)";
  if (f.code == 1)
    throw IndexError(op, "index " + std::to_string(f.value) + " is out of range for " + what + " of size " +
                             std::to_string(f.limit) + where);
  if (f.code == 2) throw ValueError(op, "integer division by zero" + where);
  throw DeviceError(op, "a Vulkan kernel reported fault " + std::to_string(f.code) + where);
}

void Context::finish() {
  uint64_t serial;
  {
    std::lock_guard lock(stream_->mutex());
    serial = stream_->flush();
  }
  stream_->wait(serial);
  collect();
  check_faults();
}

VkDeviceAddress Context::arguments(const void* data, uint32_t bytes) {
  const uint64_t size = (bytes + 15) / 16 * 16;
  if (!args_ || args_used_ + size > args_->size()) {
    args_ = memory_->allocate(std::max<uint64_t>(kArgumentChunk, size), MemoryKind::Arguments);
    args_used_ = 0;
  }
  std::memcpy(static_cast<uint8_t*>(args_->mapped()) + args_used_, data, bytes);
  // The chunk goes back to the pool only after the dispatches reading it have completed.
  args_->last_use = stream_->recording_serial();
  const VkDeviceAddress addr = args_->address() + args_used_;
  args_used_ += size;
  return addr;
}

void Context::write(Allocation& a, uint64_t offset, const void* src, uint64_t bytes) {
  if (bytes == 0) return;
  if (a.mapped()) {
    // The slice may be read by work still queued (an in-place write): wait for its last use first.
    uint64_t serial = a.last_use;
    {
      std::lock_guard lock(stream_->mutex());
      if (serial >= stream_->recording_serial()) serial = stream_->flush();
    }
    stream_->wait(serial);
    std::memcpy(static_cast<uint8_t*>(a.mapped()) + offset, src, bytes);
    return;
  }
  AllocationPtr staging = memory_->allocate(bytes, MemoryKind::Staging);
  std::memcpy(staging->mapped(), src, bytes);
  std::lock_guard lock(stream_->mutex());
  stream_->copy(*staging, 0, a, offset, bytes);
}

void Context::read(Allocation& a, uint64_t offset, void* dst, uint64_t bytes) {
  if (bytes == 0) return;
  if (a.mapped()) {
    uint64_t serial = a.last_write;
    {
      std::lock_guard lock(stream_->mutex());
      if (serial >= stream_->recording_serial()) serial = stream_->flush();
    }
    stream_->wait(serial);
    check_faults();
    std::memcpy(dst, static_cast<const uint8_t*>(a.mapped()) + offset, bytes);
    return;
  }
  AllocationPtr staging = memory_->allocate(bytes, MemoryKind::Staging);
  uint64_t serial;
  {
    std::lock_guard lock(stream_->mutex());
    stream_->copy(a, offset, *staging, 0, bytes);
    serial = stream_->flush();
  }
  stream_->wait(serial);
  check_faults();
  std::memcpy(dst, staging->mapped(), bytes);
}

}  // namespace burn::vulkan
