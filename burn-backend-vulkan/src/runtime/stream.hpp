// Submission: dispatches are recorded into a command buffer and submitted every `batch` dispatches and
// before any host read, each submission signalling the next value (serial) of one timeline semaphore.
// A barrier goes in only where a dispatch touches a slice written since the last barrier (or writes one
// read since it). A host read waits only for the serial that last wrote what it reads.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include <vulkan/vulkan.h>

namespace burn::vulkan {

class Context;
class Allocation;
struct Pipeline;

struct Access {
  Allocation* alloc;
  bool write;
};

class Stream {
 public:
  explicit Stream(Context& ctx);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  // Records one dispatch. Callers hold mutex().
  void dispatch(const Pipeline& p, const void* push, uint32_t push_bytes, std::array<uint32_t, 3> groups,
                std::initializer_list<Access> accesses);
  void dispatch(const Pipeline& p, const void* push, uint32_t push_bytes, std::array<uint32_t, 3> groups,
                const std::vector<Access>& accesses);
  // Records a buffer-to-buffer copy. Callers hold mutex().
  void copy(Allocation& src, uint64_t src_offset, Allocation& dst, uint64_t dst_offset, uint64_t bytes);
  // Submits the open command buffer (if it holds anything); returns the last submitted serial.
  uint64_t flush();
  // Waits until `serial` completed; DeviceError on a lost device or after the timeout (BURN_VULKAN_TIMEOUT_S).
  void wait(uint64_t serial);
  uint64_t completed() const;
  // The serial that the open command buffer will signal when submitted.
  uint64_t recording_serial() const { return recording_; }
  std::mutex& mutex() { return mutex_; }
  // Dispatches recorded since the stream was made (the fusion inspector and tests count them).
  uint64_t dispatch_count() const { return dispatches_; }
  uint64_t submit_count() const { return submits_; }
  uint64_t barrier_count() const { return barriers_; }

 private:
  void begin_if_needed();
  void track(std::initializer_list<Access> accesses);
  void track(const Access* begin, const Access* end);
  void after_record();
  void throw_if_lost() const;
  // Marks the device lost at `call` (the op that was running is named by the error) and throws.
  [[noreturn]] void lose(const char* call, bool injected);

  Context& ctx_;
  std::mutex mutex_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkSemaphore timeline_ = VK_NULL_HANDLE;
  struct Buffer {
    VkCommandBuffer cb;
    uint64_t serial;  // the serial it signals; reusable once completed
  };
  std::vector<Buffer> buffers_;
  VkCommandBuffer open_ = VK_NULL_HANDLE;
  uint32_t open_commands_ = 0;
  uint64_t recording_ = 1;
  uint32_t batch_ = 64;
  uint64_t timeout_ns_ = 120ull * 1000 * 1000 * 1000;
  std::unordered_set<uint64_t> written_, read_;  // slices (device addresses) since the last barrier
  uint64_t dispatches_ = 0, submits_ = 0, barriers_ = 0;
  std::atomic<bool> lost_{false};
  mutable std::mutex lost_mutex_;
  std::string lost_what_;  // where and in which op the device was first lost, repeated by every later error
};

}  // namespace burn::vulkan
