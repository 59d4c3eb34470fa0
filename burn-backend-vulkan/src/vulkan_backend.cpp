// The Vulkan backend object: interfaces, device selection, allocation and copies (dtype support:
// supports.cpp).
#include "vulkan_backend.hpp"

#include <map>
#include <mutex>

#include "burn/gpu/views.hpp"
#include "burn/tensor/error.hpp"
#include "dispatch.hpp"
#include "runtime/vk_error.hpp"

namespace burn::vulkan {

std::shared_ptr<Context> context_for(const DeviceProfile& profile) {
  static std::mutex mutex;
  static std::map<uint32_t, std::weak_ptr<Context>> contexts;
  std::lock_guard lock(mutex);
  if (auto c = contexts[profile.index].lock()) return c;
  auto c = Context::create(Instance::get(), profile);
  contexts[profile.index] = c;
  return c;
}

namespace {

class Selector final : public DeviceSelector {
 public:
  BackendPtr select(std::string_view arg) override {
    const DeviceProfile& p = Instance::get()->choose(arg);
    return std::make_shared<VulkanBackend>(context_for(p), "vulkan:" + std::string(arg));
  }
  std::vector<std::string> list() override {
    std::vector<std::string> out;
    for (const auto& p : Instance::get()->profiles()) out.push_back(p.describe());
    return out;
  }
};

class Stats final : public VulkanStatsSource {
 public:
  explicit Stats(Context& ctx) : ctx_(ctx) {}
  VulkanStats stats() const override {
    VulkanStats s;
    s.dispatches = ctx_.stream().dispatch_count();
    s.submits = ctx_.stream().submit_count();
    s.barriers = ctx_.stream().barrier_count();
    s.pipelines = ctx_.pipelines().count();
    s.compiled = ctx_.pipelines().compiled();
    s.spirv_from_disk = ctx_.pipelines().spirv_from_disk();
    return s;
  }

 private:
  Context& ctx_;
};

}  // namespace

VulkanBackend::VulkanBackend(std::shared_ptr<Context> ctx, std::string spec)
    : ctx_(std::move(ctx)), spec_(std::move(spec)) {}

VulkanBackend::~VulkanBackend() = default;

void* VulkanBackend::query_interface(std::string_view name) {
  if (name == "memory") return &ctx_->memory();
  if (name == kFusedElementwiseInterface) return static_cast<FusedExecutor*>(&fused_);
  if (name == kDeviceSelectorInterface) {
    static Selector selector;
    return &selector;
  }
  if (name == kVulkanStatsInterface) {
    static std::mutex mutex;
    static std::map<Context*, std::unique_ptr<Stats>> stats;
    std::lock_guard lock(mutex);
    auto& s = stats[ctx_.get()];
    if (!s) s = std::make_unique<Stats>(*ctx_);
    return static_cast<VulkanStatsSource*>(s.get());
  }
  return Backend::query_interface(name);
}

void VulkanBackend::sync() { ctx_->finish(); }

VkPtr VulkanBackend::alloc(const Shape& shape, DType dtype) const {
  glsl_type(dtype, *ctx_, op_name());  // Unsupported for a dtype the device lacks, before allocating
  const size_t bytes = checked_bytes(shape, dtype_size(dtype), op_name());
  return std::make_shared<VulkanTensor>(shape, dtype, ctx_->memory().allocate(bytes), contiguous_strides(shape), 0);
}

void VulkanBackend::copy_into(const VulkanTensor& src, const VulkanTensor& dst, const char* op) const {
  const int64_t n = dst.shape().num_elements();
  if (n == 0) return;
  const Layout l = collapse(dst.shape(), {broadcast_strides(src, dst.shape()), dst.strides()});
  Dispatch dp(*ctx_, "copy", op);
  dp.tensor("X", src, false).tensor("Y", dst, true).push_i64(n).layout(l, {"X", "Y"});
  if (dst.dtype() == DType::Bool && src.dtype() != DType::Bool) dp.define("TO_BOOL");
  if (is_float(src.dtype()) && is_int(dst.dtype())) dp.define("TO_INT");
  dp.define("ITEMS", std::to_string(gpu::kItemsPerInvocation)).run_1d(gpu::items_invocations(n));
}

VkPtr VulkanBackend::contiguous(const VkPtr& x, const char* op) const {
  if (x->is_contiguous()) return x;
  VkPtr out = alloc(x->shape(), x->dtype());
  copy_into(*x, *out, op);
  return out;
}

}  // namespace burn::vulkan
