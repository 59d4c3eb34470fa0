// Pipeline creation and the two disk caches (SPIR-V by source hash, the driver's VkPipelineCache).
#include "runtime/pipelines.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "burn/gpu/disk_cache.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/log.hpp"
#include "runtime/context.hpp"
#include "runtime/fault_injection.hpp"
#include "runtime/vk_error.hpp"

namespace burn::vulkan {

using gpu::fnv1a;
using gpu::hex;
using gpu::read_file;
using gpu::write_file_atomically;

Pipelines::Pipelines(Context& ctx) : ctx_(ctx), dir_(gpu::cache_dir("BURN_VULKAN_CACHE_DIR", "vulkan")) {
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir_ + "/spirv", ec);
    if (ec) {
      log::warn("vulkan: no kernel cache: cannot create " + dir_ + ": " + ec.message());
      dir_.clear();
    }
  }
  std::vector<char> data;
  if (!dir_.empty()) {
    data = read_file(pipeline_cache_path());
    // The header (VkPipelineCacheHeaderVersionOne) must be this device's, or the driver gets nothing.
    const DeviceProfile& p = ctx_.profile();
    VkPipelineCacheHeaderVersionOne h{};
    if (data.size() >= sizeof h) std::memcpy(&h, data.data(), sizeof h);
    const bool ok = data.size() >= sizeof h && h.headerSize >= sizeof h && h.headerSize <= data.size() &&
                    h.headerVersion == VK_PIPELINE_CACHE_HEADER_VERSION_ONE && h.vendorID == p.vendor_id &&
                    h.deviceID == p.device_id &&
                    std::memcmp(h.pipelineCacheUUID, p.pipeline_cache_uuid.data(), VK_UUID_SIZE) == 0;
    if (!data.empty() && !ok) {
      log::info("vulkan: ignoring the pipeline cache " + pipeline_cache_path() + ": made by another device or driver");
      data.clear();
    }
  }
  VkPipelineCacheCreateInfo ci{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  ci.initialDataSize = data.size();
  ci.pInitialData = data.empty() ? nullptr : data.data();
  if (vkCreatePipelineCache(ctx_.device(), &ci, nullptr, &cache_) != VK_SUCCESS) {
    ci.initialDataSize = 0;
    ci.pInitialData = nullptr;
    check_vk(vkCreatePipelineCache(ctx_.device(), &ci, nullptr, &cache_), "vkCreatePipelineCache");
  }
}

Pipelines::~Pipelines() {
  save();
  for (auto& [key, p] : pipelines_) vkDestroyPipeline(ctx_.device(), p->handle, nullptr);
  if (cache_) vkDestroyPipelineCache(ctx_.device(), cache_, nullptr);
}

std::string Pipelines::pipeline_cache_path() const {
  const DeviceProfile& p = ctx_.profile();
  std::string uuid;
  for (uint8_t b : p.pipeline_cache_uuid) uuid += hex(b, 2);
  return dir_ + "/pipelines-" + hex(p.vendor_id, 4) + "-" + hex(p.device_id, 4) + "-" + hex(p.driver_version, 8) + "-" +
         uuid + ".bin";
}

size_t Pipelines::count() const {
  std::lock_guard lock(mutex_);
  return pipelines_.size();
}

std::vector<uint32_t> Pipelines::spirv_for(std::string_view kernel, const std::string& source, const Defines& defines) {
  std::string path;
  if (!dir_.empty()) {
    path = dir_ + "/spirv/" + hex(fnv1a(source, fnv1a(compiler_version()))) + ".spv";
    const std::vector<char> bytes = read_file(path);
    if (bytes.size() >= 20 && bytes.size() % 4 == 0) {
      std::vector<uint32_t> words(bytes.size() / 4);
      std::memcpy(words.data(), bytes.data(), bytes.size());
      if (words[0] == 0x07230203u) {  // the SPIR-V magic; anything else is recompiled and rewritten
        ++spirv_hits_;
        return words;
      }
    }
  }
  std::vector<uint32_t> spirv = compile_glsl(kernel, source, defines);
  ++compiled_;
  if (!path.empty()) write_file_atomically(path, spirv.data(), spirv.size() * 4);
  return spirv;
}

namespace {
// The in-memory cache key: the kernel (or the generated text's hash), every define and the workgroup size.
std::string key_of(std::string key, const Defines& defines, std::array<uint32_t, 3> local) {
  for (const auto& [k, v] : defines) key.append("|").append(k).append("=").append(v);
  for (uint32_t l : local) key.append("|").append(std::to_string(l));
  return key;
}
}  // namespace

const Pipeline& Pipelines::get(std::string_view kernel, const Defines& defines, std::array<uint32_t, 3> local) {
  std::string key = key_of(std::string(kernel), defines, local);
  std::lock_guard lock(mutex_);
  if (auto it = pipelines_.find(key); it != pipelines_.end()) return *it->second;
  return get_locked(kernel, std::move(key), {}, defines, local);
}

const Pipeline& Pipelines::get_generated(std::string_view name, const std::string& text, const Defines& defines,
                                         std::array<uint32_t, 3> local) {
  std::string key = key_of("generated|" + hex(fnv1a(text)), defines, local);
  std::lock_guard lock(mutex_);
  if (auto it = pipelines_.find(key); it != pipelines_.end()) return *it->second;
  return get_locked(name, std::move(key), text, defines, local);
}

const Pipeline& Pipelines::get_locked(std::string_view kernel, std::string key, const std::string& text,
                                      const Defines& defines, std::array<uint32_t, 3> local) {
  Defines all = defines;
  all.emplace_back("WG_X", std::to_string(local[0]));
  all.emplace_back("WG_Y", std::to_string(local[1]));
  all.emplace_back("WG_Z", std::to_string(local[2]));
  const auto t0 = std::chrono::steady_clock::now();
  std::string source = assemble_source(kernel, all, text);
  // A line glslang rejects, so that the error path is the real one (the log, the kernel, its defines).
  if (fault_injected(Fault::compile)) source += "\nfloat burn_injected_fault = injected_by_BURN_VULKAN_FAULT;\n";
  const std::vector<uint32_t> spirv = spirv_for(kernel, source, all);
  const auto t1 = std::chrono::steady_clock::now();

  VkDevice dev = ctx_.device();
  VkShaderModuleCreateInfo mi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  mi.codeSize = spirv.size() * 4;
  mi.pCode = spirv.data();
  VkShaderModule module = VK_NULL_HANDLE;
  check_vk(vkCreateShaderModule(dev, &mi, nullptr, &module), "vkCreateShaderModule");
  VkComputePipelineCreateInfo pi{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  pi.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  pi.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pi.stage.module = module;
  pi.stage.pName = "main";
  pi.layout = ctx_.layout();
  auto p = std::make_unique<Pipeline>();
  p->local = local;
  const VkResult r = vkCreateComputePipelines(dev, cache_, 1, &pi, nullptr, &p->handle);
  vkDestroyShaderModule(dev, module, nullptr);
  check_vk(r, ("vkCreateComputePipelines for kernel '" + std::string(kernel) + "'").c_str());
  if (log::enabled(log::Level::debug)) {
    const auto ms = [](auto d) { return std::chrono::duration<double, std::milli>(d).count(); };
    log::debug("vulkan: pipeline " + key + ": SPIR-V " + std::to_string(ms(t1 - t0)) + " ms, driver " +
               std::to_string(ms(std::chrono::steady_clock::now() - t1)) + " ms");
  }
  dirty_ = true;
  // Saved now and then rather than only at exit, which a killed process never reaches.
  if (std::chrono::steady_clock::now() - last_save_ > std::chrono::seconds(2)) save_locked();
  return *pipelines_.emplace(std::move(key), std::move(p)).first->second;
}

void Pipelines::save() {
  std::lock_guard lock(mutex_);
  save_locked();
}

void Pipelines::save_locked() {
  last_save_ = std::chrono::steady_clock::now();
  if (!dirty_ || dir_.empty() || !cache_) return;
  size_t size = 0;
  if (vkGetPipelineCacheData(ctx_.device(), cache_, &size, nullptr) != VK_SUCCESS || size == 0) return;
  std::vector<char> data(size);
  if (vkGetPipelineCacheData(ctx_.device(), cache_, &size, data.data()) != VK_SUCCESS) return;
  if (write_file_atomically(pipeline_cache_path(), data.data(), size)) dirty_ = false;
}

}  // namespace burn::vulkan
