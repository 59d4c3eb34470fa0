// The device-memory pool: size classes (powers of two and 1.5x between), shared 64 MiB blocks for the
// small classes, dedicated blocks above, deferred reuse by submission serial.
#include "runtime/memory.hpp"

#include <algorithm>
#include <string>

#include "burn/tensor/error.hpp"
#include "runtime/context.hpp"
#include "runtime/fault_injection.hpp"
#include "runtime/vk_error.hpp"

namespace burn::vulkan {

namespace {

constexpr int32_t kMaxClass = 44;  // class_bytes(44) = 1 GiB; larger requests get a block of their exact size

uint32_t find_type(const VkPhysicalDeviceMemoryProperties& mem, VkMemoryPropertyFlags want,
                   VkMemoryPropertyFlags avoid = 0) {
  for (uint32_t t = 0; t < mem.memoryTypeCount; ++t) {
    const VkMemoryPropertyFlags f = mem.memoryTypes[t].propertyFlags;
    if ((f & want) == want && !(f & avoid)) return t;
  }
  return UINT32_MAX;
}

}  // namespace

// ---- Allocation ----

Allocation::Allocation(Context* ctx, std::shared_ptr<Context> keep_alive, Block* block, uint64_t offset, uint64_t size,
                       int32_t size_class)
    : ctx_(ctx),
      keep_alive_(std::move(keep_alive)),
      block_(block),
      offset_(offset),
      size_(size),
      size_class_(size_class) {}

Allocation::~Allocation() { ctx_->memory().release(block_, offset_, size_class_, last_use); }

// ---- MemoryPool ----

MemoryPool::MemoryPool(Context& ctx, VkPhysicalDevice physical) : ctx_(ctx) {
  VkPhysicalDeviceMemoryProperties mem{};
  vkGetPhysicalDeviceMemoryProperties(physical, &mem);
  const VkMemoryPropertyFlags dl = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  const VkMemoryPropertyFlags hv = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  auto pick = [&](std::initializer_list<std::pair<VkMemoryPropertyFlags, VkMemoryPropertyFlags>> prefs) {
    for (auto [want, avoid] : prefs) {
      const uint32_t t = find_type(mem, want, avoid);
      if (t != UINT32_MAX)
        return MemoryType{t, (mem.memoryTypes[t].propertyFlags & hv) == hv,
                          mem.memoryHeaps[mem.memoryTypes[t].heapIndex].size};
    }
    return MemoryType{};
  };
  // Tensors: device-local; mapped too where the device shares memory with the host (lavapipe, iGPUs) and
  // the heap is the device's main one, which profile().unified_memory says.
  type_[0] = ctx.profile().unified_memory ? pick({{dl | hv, 0}, {dl, 0}}) : pick({{dl, hv}, {dl, 0}});
  // Staging: host memory, cached for reads back where offered.
  type_[1] = pick({{hv | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 0}, {hv, 0}});
  // Kernel arguments: written by the host every dispatch, read by every workgroup: device-local when mappable.
  type_[2] = pick({{dl | hv, 0}, {hv, 0}});
  for (const auto& t : type_)
    if (t.index == UINT32_MAX) throw Unsupported("vulkan", "the device has no suitable memory type");
}

MemoryPool::~MemoryPool() {
  for (auto& b : blocks_) destroy_block(b.get());
}

int32_t MemoryPool::class_of(uint64_t bytes) {
  for (int32_t c = 0; c <= kMaxClass; ++c)
    if (class_bytes(c) >= bytes) return c;
  return -1;
}

uint64_t MemoryPool::class_bytes(int32_t c) { return (c % 2 == 0 ? 256ull : 384ull) << (c / 2); }

Block* MemoryPool::new_block(uint64_t bytes, MemoryKind kind, bool dedicated) {
  const MemoryType& type = type_[static_cast<int>(kind)];
  const uint64_t limit = ctx_.profile().limits.max_memory_allocation_size;
  if (limit && bytes > limit)
    throw OutOfMemory(op_name(), "a buffer of " + std::to_string(bytes) + " bytes is larger than one allocation of " +
                                     ctx_.profile().name + " can be (maxMemoryAllocationSize " + std::to_string(limit) +
                                     " bytes)");
  if (type.heap_bytes && bytes > type.heap_bytes)
    throw OutOfMemory(op_name(), "a buffer of " + std::to_string(bytes) + " bytes is larger than the memory heap of " +
                                     ctx_.profile().name + " (" + std::to_string(type.heap_bytes) + " bytes)");
  auto b = std::make_unique<Block>();
  b->size = bytes;
  b->kind = kind;
  b->dedicated = dedicated;
  VkDevice dev = ctx_.device();
  VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bi.size = bytes;
  bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
             VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  check_vk(vkCreateBuffer(dev, &bi, nullptr, &b->buffer), "vkCreateBuffer", bytes);
  VkMemoryRequirements req{};
  vkGetBufferMemoryRequirements(dev, b->buffer, &req);
  VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &flags};
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = type.index;
  const bool injected = dedicated && fault_injected(Fault::alloc);
  auto allocate_memory = [&] {
    return injected ? VK_ERROR_OUT_OF_DEVICE_MEMORY : vkAllocateMemory(dev, &ai, nullptr, &b->memory);
  };
  VkResult r = allocate_memory();
  if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY) {
    if (trim()) r = allocate_memory();
  }
  if (r != VK_SUCCESS) {
    vkDestroyBuffer(dev, b->buffer, nullptr);
    if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY)
      throw OutOfMemory(op_name(), ctx_.profile().name + " cannot give " + std::to_string(bytes) +
                                       " bytes (vkAllocateMemory: " + result_name(r) + "; burn holds " +
                                       std::to_string(reserved_) + " bytes of its " + std::to_string(type.heap_bytes) +
                                       "-byte heap)" + (injected ? injected_note() : ""));
    throw_vk(r, "vkAllocateMemory", bytes);
  }
  r = vkBindBufferMemory(dev, b->buffer, b->memory, 0);
  if (r == VK_SUCCESS && type.host_visible) r = vkMapMemory(dev, b->memory, 0, VK_WHOLE_SIZE, 0, &b->mapped);
  if (r != VK_SUCCESS) {
    destroy_block(b.get());
    throw_vk(r, "vkBindBufferMemory/vkMapMemory", bytes);
  }
  VkBufferDeviceAddressInfo addr{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
  addr.buffer = b->buffer;
  b->address = vkGetBufferDeviceAddress(dev, &addr);
  reserved_ += bytes;
  blocks_.push_back(std::move(b));
  return blocks_.back().get();
}

void MemoryPool::destroy_block(Block* b) {
  VkDevice dev = ctx_.device();
  if (b->mapped) vkUnmapMemory(dev, b->memory);
  if (b->buffer) vkDestroyBuffer(dev, b->buffer, nullptr);
  if (b->memory) vkFreeMemory(dev, b->memory, nullptr);
  b->mapped = nullptr;
  b->buffer = VK_NULL_HANDLE;
  b->memory = VK_NULL_HANDLE;
}

bool MemoryPool::trim() {
  bool any = false;
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    auto& slices = it->second;
    for (size_t i = 0; i < slices.size();) {
      Block* b = slices[i].first;
      if (!b->dedicated) {
        ++i;
        continue;
      }
      reserved_ -= b->size;
      destroy_block(b);
      blocks_.erase(std::find_if(blocks_.begin(), blocks_.end(), [&](const auto& p) { return p.get() == b; }));
      slices[i] = slices.back();
      slices.pop_back();
      any = true;
    }
  }
  return any;
}

AllocationPtr MemoryPool::allocate(uint64_t bytes, MemoryKind kind) {
  if (bytes == 0) bytes = 1;
  const int k = static_cast<int>(kind);
  ctx_.collect();
  std::lock_guard lock(mutex_);
  const int32_t c = class_of(bytes);
  const uint64_t size = c >= 0 ? class_bytes(c) : (bytes + kAlignment - 1) / kAlignment * kAlignment;
  Block* block = nullptr;
  uint64_t offset = 0;
  if (c >= 0) {
    auto& list = free_[{k, c}];
    if (!list.empty()) {
      std::tie(block, offset) = list.back();
      list.pop_back();
    }
  }
  if (!block) {
    if (c >= 0 && size <= kSmallClassMax) {
      if (!carving_[k] || carved_[k] + size > carving_[k]->size) {
        carving_[k] = new_block(kBlockBytes, kind, false);
        carved_[k] = 0;
      }
      block = carving_[k];
      offset = carved_[k];
      carved_[k] += size;
    } else {
      block = new_block(size, kind, true);
    }
  }
  if (kind == MemoryKind::Device) {
    in_use_ += size;
    peak_ = std::max(peak_, in_use_);
  }
  return std::make_shared<Allocation>(&ctx_, kind == MemoryKind::Device ? ctx_.shared_from_this() : nullptr, block,
                                      offset, size, c);
}

void MemoryPool::release(Block* block, uint64_t offset, int32_t size_class, uint64_t last_use) {
  std::lock_guard lock(mutex_);
  if (block->kind == MemoryKind::Device) in_use_ -= size_class >= 0 ? class_bytes(size_class) : block->size;
  pending_.emplace(last_use, Pending{block, offset, size_class});
}

void MemoryPool::collect(uint64_t completed) {
  std::lock_guard lock(mutex_);
  while (!pending_.empty() && pending_.begin()->first <= completed) {
    const Pending p = pending_.begin()->second;
    pending_.erase(pending_.begin());
    if (p.size_class < 0) {  // an exact-size block: back to the driver
      reserved_ -= p.block->size;
      destroy_block(p.block);
      blocks_.erase(std::find_if(blocks_.begin(), blocks_.end(), [&](const auto& b) { return b.get() == p.block; }));
      continue;
    }
    free_[{static_cast<int>(p.block->kind), p.size_class}].emplace_back(p.block, p.offset);
  }
}

uint64_t MemoryPool::bytes_in_use() const {
  std::lock_guard lock(mutex_);
  return in_use_;
}

uint64_t MemoryPool::peak_bytes_in_use() const {
  std::lock_guard lock(mutex_);
  return peak_;
}

void MemoryPool::reset_peak() {
  std::lock_guard lock(mutex_);
  peak_ = in_use_;
}

uint64_t MemoryPool::bytes_reserved() const {
  std::lock_guard lock(mutex_);
  return reserved_;
}

}  // namespace burn::vulkan
