// Device memory: a pool of size classes carved from large blocks, each block one VkBuffer addressed by
// device address. A freed slice returns to its class only after the submission that last used it has
// completed (Allocation::last_use against the stream's completed serial), so reuse needs no barrier.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include <vulkan/vulkan.h>

#include "burn/tensor/backend.hpp"

namespace burn::vulkan {

class Context;

// Where a slice lives: tensors in device memory; staging (uploads, downloads) and kernel arguments in
// host-visible memory.
enum class MemoryKind : uint8_t { Device, Staging, Arguments };

struct Block {
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceAddress address = 0;
  void* mapped = nullptr;  // host pointer when the memory is host-visible
  uint64_t size = 0;
  MemoryKind kind = MemoryKind::Device;
  bool dedicated = false;  // one slice of its own size (large requests), freed to the driver under pressure
};

// One slice of a block. Shared by the tensors (views) over it; the last owner gives it back to the pool.
class Allocation {
 public:
  // `keep_alive` holds the context for tensor memory; the context's own slices (arguments, staging) hold
  // none, so the context holding them is no cycle.
  Allocation(Context* ctx, std::shared_ptr<Context> keep_alive, Block* block, uint64_t offset, uint64_t size,
             int32_t size_class);
  ~Allocation();
  Allocation(const Allocation&) = delete;
  Allocation& operator=(const Allocation&) = delete;

  VkDeviceAddress address() const { return block_->address + offset_; }
  VkBuffer buffer() const { return block_->buffer; }
  uint64_t offset() const { return offset_; }  // within buffer()
  uint64_t size() const { return size_; }
  void* mapped() const { return block_->mapped ? static_cast<uint8_t*>(block_->mapped) + offset_ : nullptr; }
  Context& context() const { return *ctx_; }

  // Serials of the last submission that used the slice and that wrote it (0: never).
  uint64_t last_use = 0;
  uint64_t last_write = 0;

 private:
  Context* ctx_;
  std::shared_ptr<Context> keep_alive_;
  Block* block_;
  uint64_t offset_, size_;
  int32_t size_class_;  // -1: a dedicated block of its own
};
using AllocationPtr = std::shared_ptr<Allocation>;

class MemoryPool final : public MemoryStats {
 public:
  MemoryPool(Context& ctx, VkPhysicalDevice physical);
  ~MemoryPool() override;

  // A slice of at least `bytes` (256-byte aligned). OutOfMemory naming the op and the bytes when the
  // device cannot give it (after freeing cached blocks); the pool stays usable.
  AllocationPtr allocate(uint64_t bytes, MemoryKind kind = MemoryKind::Device);
  // Called by ~Allocation.
  void release(Block* block, uint64_t offset, int32_t size_class, uint64_t last_use);
  // Moves slices whose last submission has completed back to their free lists.
  void collect(uint64_t completed_serial);
  // Whether tensor memory is host-visible (lavapipe, integrated GPUs): reads and writes map it directly.
  bool device_memory_mapped() const { return type_[static_cast<int>(MemoryKind::Device)].host_visible; }

  // MemoryStats: bytes of live slices (their class sizes).
  uint64_t bytes_in_use() const override;
  uint64_t peak_bytes_in_use() const override;
  void reset_peak() override;
  // Bytes held from the driver, in use or cached.
  uint64_t bytes_reserved() const;

  static constexpr uint64_t kBlockBytes = 64ull << 20;     // shared blocks that small classes are carved from
  static constexpr uint64_t kSmallClassMax = 16ull << 20;  // classes up to this share blocks
  static constexpr uint64_t kAlignment = 256;

 private:
  struct MemoryType {
    uint32_t index = UINT32_MAX;
    bool host_visible = false;
    uint64_t heap_bytes = 0;  // the size of the heap it draws from
  };
  struct Pending {
    Block* block;
    uint64_t offset;
    int32_t size_class;
  };
  static int32_t class_of(uint64_t bytes);
  static uint64_t class_bytes(int32_t size_class);
  Block* new_block(uint64_t bytes, MemoryKind kind, bool dedicated);
  void destroy_block(Block* b);
  // Frees cached dedicated blocks to the driver; true when any was freed.
  bool trim();

  Context& ctx_;
  MemoryType type_[3];
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Block>> blocks_;
  // Per kind: the shared block being carved and how far.
  Block* carving_[3] = {nullptr, nullptr, nullptr};
  uint64_t carved_[3] = {0, 0, 0};
  // Per kind and class: free slices (block, offset).
  std::map<std::pair<int, int32_t>, std::vector<std::pair<Block*, uint64_t>>> free_;
  std::multimap<uint64_t, Pending> pending_;  // by the serial that must complete first
  uint64_t in_use_ = 0, peak_ = 0, reserved_ = 0;
};

}  // namespace burn::vulkan
