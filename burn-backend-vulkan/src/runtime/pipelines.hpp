// Compute pipelines by kernel and defines: compiled once per process (in memory), SPIR-V and the driver's
// VkPipelineCache kept on disk (keyed by the glslang version and source hash, and by the device's vendor,
// device, driver version and pipelineCacheUUID), written atomically, so a second process pays neither
// the GLSL compile nor the driver's. BURN_VULKAN_CACHE_DIR moves the folder; "off" disables it.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include <vulkan/vulkan.h>

#include "burn/gpu/disk_cache.hpp"
#include "runtime/compiler.hpp"

namespace burn::vulkan {

class Context;

struct Pipeline {
  VkPipeline handle = VK_NULL_HANDLE;
  std::array<uint32_t, 3> local{1, 1, 1};
};

class Pipelines {
 public:
  explicit Pipelines(Context& ctx);
  ~Pipelines();
  Pipelines(const Pipelines&) = delete;
  Pipelines& operator=(const Pipelines&) = delete;

  // The pipeline of kernels/<kernel>.comp with these defines and workgroup size (given to the source as
  // WG_X, WG_Y, WG_Z). DeviceError naming the kernel when it does not compile.
  const Pipeline& get(std::string_view kernel, const Defines& defines, std::array<uint32_t, 3> local);
  // The same for a generated kernel (the fusion code generator): `text` takes the place of the .comp file,
  // `name` only labels errors; cached by the text.
  const Pipeline& get_generated(std::string_view name, const std::string& text, const Defines& defines,
                                std::array<uint32_t, 3> local);
  // Writes the driver's pipeline cache to disk (atomically) if it changed.
  void save();

  size_t count() const;
  uint64_t compiled() const { return compiled_; }           // GLSL compiles this process
  uint64_t spirv_from_disk() const { return spirv_hits_; }  // SPIR-V read from the disk cache
  const std::string& cache_dir() const { return dir_; }     // empty: no disk cache

 private:
  const Pipeline& get_locked(std::string_view kernel, std::string key, const std::string& text, const Defines& defines,
                             std::array<uint32_t, 3> local);
  std::vector<uint32_t> spirv_for(std::string_view kernel, const std::string& source, const Defines& defines);
  std::string pipeline_cache_path() const;
  void save_locked();  // mutex_ held

  Context& ctx_;
  mutable std::mutex mutex_;
  std::map<std::string, std::unique_ptr<Pipeline>, std::less<>> pipelines_;
  VkPipelineCache cache_ = VK_NULL_HANDLE;
  std::string dir_;
  bool dirty_ = false;
  std::chrono::steady_clock::time_point last_save_{};
  uint64_t compiled_ = 0, spirv_hits_ = 0;
};

// Writes `bytes` to `path` atomically (burn-gpu's disk cache helpers).
using gpu::write_file_atomically;

}  // namespace burn::vulkan
