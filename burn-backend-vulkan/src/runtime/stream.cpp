// Recording, barriers, batching and waiting on the timeline semaphore.
#include "runtime/stream.hpp"

#include <cstdlib>
#include <string>

#include "burn/tensor/error.hpp"
#include "runtime/context.hpp"
#include "runtime/fault_injection.hpp"
#include "runtime/memory.hpp"
#include "runtime/pipelines.hpp"
#include "runtime/vk_error.hpp"

namespace burn::vulkan {

namespace {

uint64_t env_u64(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const unsigned long long x = std::strtoull(v, &end, 10);
  return end && *end == '\0' && x > 0 ? x : fallback;
}

constexpr VkPipelineStageFlags kWork = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;

}  // namespace

Stream::Stream(Context& ctx) : ctx_(ctx) {
  batch_ = static_cast<uint32_t>(env_u64("BURN_VULKAN_BATCH", 64));
  timeout_ns_ = env_u64("BURN_VULKAN_TIMEOUT_S", 120) * 1000ull * 1000 * 1000;
  VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pi.queueFamilyIndex = ctx.profile().compute_queue_family;
  check_vk(vkCreateCommandPool(ctx.device(), &pi, nullptr, &pool_), "vkCreateCommandPool");
  VkSemaphoreTypeCreateInfo ti{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  ti.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  ti.initialValue = 0;
  VkSemaphoreCreateInfo si{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &ti};
  check_vk(vkCreateSemaphore(ctx.device(), &si, nullptr, &timeline_), "vkCreateSemaphore");
}

Stream::~Stream() {
  VkDevice dev = ctx_.device();
  if (!lost_) {
    try {
      flush();
      wait(recording_ - 1);
    } catch (...) {  // a lost device at exit: nothing left to wait for
    }
  }
  if (timeline_) vkDestroySemaphore(dev, timeline_, nullptr);
  if (pool_) vkDestroyCommandPool(dev, pool_, nullptr);
}

namespace {
constexpr const char* kLostAdvice =
    "; the device runs nothing more and its tensors are gone (restart the process; other devices and backends "
    "keep working)";
}

void Stream::throw_if_lost() const {
  if (!lost_) return;
  std::lock_guard lock(lost_mutex_);
  throw DeviceError(op_name(), lost_what_ + kLostAdvice);
}

void Stream::lose(const char* call, bool injected) {
  {
    std::lock_guard lock(lost_mutex_);
    if (lost_what_.empty())  // another thread may have lost it first: its cause stands
      lost_what_ = "the Vulkan device " + ctx_.profile().name + " was lost (" + call +
                   ": VK_ERROR_DEVICE_LOST, in op '" + op_name() + "')" + (injected ? injected_note() : "");
  }
  lost_ = true;
  std::lock_guard lock(lost_mutex_);
  throw DeviceError(op_name(), lost_what_ + kLostAdvice);
}

uint64_t Stream::completed() const {
  uint64_t v = 0;
  if (vkGetSemaphoreCounterValue(ctx_.device(), timeline_, &v) != VK_SUCCESS) return 0;
  return v;
}

void Stream::begin_if_needed() {
  throw_if_lost();
  if (open_) return;
  const uint64_t done = completed();
  for (auto& b : buffers_) {
    if (b.serial > done) continue;
    open_ = b.cb;
    b.serial = recording_;
    check_vk(vkResetCommandBuffer(open_, 0), "vkResetCommandBuffer");
    break;
  }
  if (!open_) {
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = pool_;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    check_vk(vkAllocateCommandBuffers(ctx_.device(), &ai, &open_), "vkAllocateCommandBuffers");
    buffers_.push_back({open_, recording_});
  }
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  check_vk(vkBeginCommandBuffer(open_, &bi), "vkBeginCommandBuffer");
  open_commands_ = 0;
  written_.clear();
  read_.clear();
}

void Stream::track(const Access* begin, const Access* end) {
  bool hazard = false;
  for (const Access* a = begin; a != end && !hazard; ++a) {
    const uint64_t key = a->alloc->address();
    hazard = written_.count(key) || (a->write && read_.count(key));
  }
  if (hazard) {
    VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                       VK_ACCESS_TRANSFER_WRITE_BIT;
    vkCmdPipelineBarrier(open_, kWork, kWork, 0, 1, &mb, 0, nullptr, 0, nullptr);
    written_.clear();
    read_.clear();
    ++barriers_;
  }
  for (const Access* a = begin; a != end; ++a) {
    const uint64_t key = a->alloc->address();
    a->alloc->last_use = recording_;
    if (a->write) {
      a->alloc->last_write = recording_;
      written_.insert(key);
    } else {
      read_.insert(key);
    }
  }
}

void Stream::track(std::initializer_list<Access> accesses) { track(accesses.begin(), accesses.end()); }

void Stream::after_record() {
  ++open_commands_;
  if (open_commands_ >= batch_) flush();
}

void Stream::dispatch(const Pipeline& p, const void* push, uint32_t push_bytes, std::array<uint32_t, 3> groups,
                      std::initializer_list<Access> accesses) {
  begin_if_needed();
  track(accesses);
  vkCmdBindPipeline(open_, VK_PIPELINE_BIND_POINT_COMPUTE, p.handle);
  if (push_bytes) vkCmdPushConstants(open_, ctx_.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes, push);
  vkCmdDispatch(open_, groups[0], groups[1], groups[2]);
  ++dispatches_;
  after_record();
}

void Stream::dispatch(const Pipeline& p, const void* push, uint32_t push_bytes, std::array<uint32_t, 3> groups,
                      const std::vector<Access>& accesses) {
  begin_if_needed();
  track(accesses.data(), accesses.data() + accesses.size());
  vkCmdBindPipeline(open_, VK_PIPELINE_BIND_POINT_COMPUTE, p.handle);
  if (push_bytes) vkCmdPushConstants(open_, ctx_.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes, push);
  vkCmdDispatch(open_, groups[0], groups[1], groups[2]);
  ++dispatches_;
  after_record();
}

void Stream::copy(Allocation& src, uint64_t src_offset, Allocation& dst, uint64_t dst_offset, uint64_t bytes) {
  if (bytes == 0) return;
  begin_if_needed();
  track({{&src, false}, {&dst, true}});
  VkBufferCopy region{src.offset() + src_offset, dst.offset() + dst_offset, bytes};
  vkCmdCopyBuffer(open_, src.buffer(), dst.buffer(), 1, &region);
  after_record();
}

uint64_t Stream::flush() {
  throw_if_lost();
  if (!open_) return recording_ - 1;
  // Makes this submission's writes visible to host reads after the semaphore wait.
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(open_, kWork, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
  check_vk(vkEndCommandBuffer(open_), "vkEndCommandBuffer");
  VkTimelineSemaphoreSubmitInfo ts{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  ts.signalSemaphoreValueCount = 1;
  ts.pSignalSemaphoreValues = &recording_;
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO, &ts};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &open_;
  si.signalSemaphoreCount = 1;
  si.pSignalSemaphores = &timeline_;
  const bool injected = fault_injected(Fault::device_lost);
  const VkResult r = injected ? VK_ERROR_DEVICE_LOST : vkQueueSubmit(ctx_.queue(), 1, &si, VK_NULL_HANDLE);
  open_ = VK_NULL_HANDLE;
  if (r == VK_ERROR_DEVICE_LOST) lose("vkQueueSubmit", injected);
  check_vk(r, "vkQueueSubmit");
  ++submits_;
  return recording_++;
}

void Stream::wait(uint64_t serial) {
  if (serial == 0) return;
  const bool inject = fault_injected(Fault::device_lost_wait);
  if (completed() >= serial && !inject) return;
  throw_if_lost();
  VkSemaphoreWaitInfo wi{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
  wi.semaphoreCount = 1;
  wi.pSemaphores = &timeline_;
  wi.pValues = &serial;
  VkResult r = vkWaitSemaphores(ctx_.device(), &wi, timeout_ns_);
  // Injected after the real wait, so that nothing is still running when the device is torn down.
  const bool injected = r == VK_SUCCESS && inject;
  if (injected) r = VK_ERROR_DEVICE_LOST;
  if (r == VK_TIMEOUT)
    throw DeviceError(op_name(), "a Vulkan submission did not complete within " +
                                     std::to_string(timeout_ns_ / 1000000000ull) + " s (BURN_VULKAN_TIMEOUT_S) on " +
                                     ctx_.profile().name);
  if (r == VK_ERROR_DEVICE_LOST) lose("vkWaitSemaphores", injected);
  check_vk(r, "vkWaitSemaphores");
}

}  // namespace burn::vulkan
