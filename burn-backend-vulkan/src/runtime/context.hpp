// One logical Vulkan device: the VkDevice with the features the kernels use, its compute queue, the one
// pipeline layout (no descriptor sets: kernels take device addresses in 128 bytes of push constants),
// the memory pool, the stream, the pipelines, and host <-> device copies.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

#include "runtime/instance.hpp"
#include "runtime/memory.hpp"
#include "runtime/pipelines.hpp"
#include "runtime/stream.hpp"

namespace burn::vulkan {

// Push constants every kernel may use (the Vulkan minimum of maxPushConstantsSize).
inline constexpr uint32_t kPushBytes = 128;

class Context : public std::enable_shared_from_this<Context> {
 public:
  static std::shared_ptr<Context> create(std::shared_ptr<Instance> instance, const DeviceProfile& profile);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  VkDevice device() const { return device_; }
  VkQueue queue() const { return queue_; }
  VkPipelineLayout layout() const { return layout_; }
  const DeviceProfile& profile() const { return profile_; }
  const Instance& instance() const { return *instance_; }
  MemoryPool& memory() { return *memory_; }
  Stream& stream() { return *stream_; }
  Pipelines& pipelines() { return *pipelines_; }

  // Returns slices whose last submission completed to the pool.
  void collect();
  // Host <-> device copies of `bytes` at `offset` in `a`. A read waits only for the submission that last
  // wrote `a`; a write into a slice still in use waits for its last use (fresh slices never wait).
  void write(Allocation& a, uint64_t offset, const void* src, uint64_t bytes);
  void read(Allocation& a, uint64_t offset, void* dst, uint64_t bytes);
  // Copies `bytes` of kernel arguments into host-visible memory the kernels read; returns their device
  // address, valid for dispatches recorded before the next flush's completion. Callers hold stream().mutex().
  VkDeviceAddress arguments(const void* data, uint32_t bytes);
  // Submits everything and waits for it; raises a fault a kernel reported.
  void finish();

  // Kernel faults (an index out of range, an integer division by zero): kernels write the first one to
  // a small host-visible block at faults_address(), naming the dispatch by the tag fault_tag() gave its op;
  // read() and finish() raise it as IndexError or ValueError naming the op, then clear it.
  VkDeviceAddress faults_address();
  uint32_t fault_tag(const char* op, const std::string& what);
  void check_faults();

 private:
  Context(std::shared_ptr<Instance> instance, const DeviceProfile& profile);
  void init();

  std::shared_ptr<Instance> instance_;
  DeviceProfile profile_;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  std::unique_ptr<MemoryPool> memory_;
  std::unique_ptr<Stream> stream_;
  std::unique_ptr<Pipelines> pipelines_;
  AllocationPtr args_;  // the arguments chunk being filled
  uint64_t args_used_ = 0;
  AllocationPtr faults_;
  std::mutex fault_mutex_;
  std::vector<std::pair<std::string, std::string>> fault_ops_;  // by tag % size: op and what it checked
  uint32_t next_tag_ = 0;
};

}  // namespace burn::vulkan
