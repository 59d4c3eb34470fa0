// The OpenCL backend object: interfaces, device selection, allocation and copies (dtype support:
// supports.cpp).
#include "opencl_backend.hpp"

#include <map>
#include <mutex>

#include "burn/gpu/layout.hpp"
#include "burn/gpu/views.hpp"
#include "burn/tensor/error.hpp"
#include "launch.hpp"

namespace burn::opencl {

std::shared_ptr<Context> context_for(const DeviceProfile& profile) {
  static std::mutex mutex;
  static std::map<uint32_t, std::weak_ptr<Context>> contexts;
  std::lock_guard lock(mutex);
  if (auto c = contexts[profile.index].lock()) return c;
  auto c = Context::create(profile);
  contexts[profile.index] = c;
  return c;
}

namespace {

class Selector final : public DeviceSelector {
 public:
  BackendPtr select(std::string_view arg) override {
    const DeviceProfile& p = Platforms::get()->choose(arg);
    return std::make_shared<OpenClBackend>(context_for(p), "opencl:" + std::string(arg));
  }
  std::vector<std::string> list() override {
    std::vector<std::string> out;
    for (const auto& p : Platforms::get()->profiles()) out.push_back(p.describe());
    return out;
  }
};

}  // namespace

OpenClBackend::OpenClBackend(std::shared_ptr<Context> ctx, std::string spec)
    : ctx_(std::move(ctx)), spec_(std::move(spec)) {}

OpenClBackend::~OpenClBackend() = default;

void* OpenClBackend::query_interface(std::string_view name) {
  if (name == kDeviceSelectorInterface) {
    static Selector selector;
    return &selector;
  }
  if (name == kOpenClStatsInterface) return &ctx_->counters();
  if (name == kFusedElementwiseInterface) return static_cast<FusedExecutor*>(&fused_);
  return Backend::query_interface(name);
}

void OpenClBackend::sync() { ctx_->finish("sync"); }

ClPtr OpenClBackend::alloc(const Shape& shape, DType dtype, const char* op) const {
  cl_type(dtype, ctx_->profile(), op);  // Unsupported for a dtype the device lacks, before allocating
  const size_t bytes = checked_bytes(shape, dtype_size(dtype), op);
  return std::make_shared<OpenClTensor>(shape, dtype, ctx_->allocate(bytes, op), contiguous_strides(shape), 0);
}

void OpenClBackend::copy_into(const OpenClTensor& src, const OpenClTensor& dst, const char* op) const {
  const int64_t n = dst.shape().num_elements();
  if (n == 0) return;
  const gpu::Layout l =
      gpu::collapse(dst.shape(), {gpu::broadcast_strides(src.shape(), src.strides(), dst.shape()), dst.strides()});
  // A copy within a dtype moves bits as the int of its size (add_bits_defines): one program per element size.
  const bool same = src.dtype() == dst.dtype();
  gpu::Defines d;
  if (same) {
    add_bits_defines(d, "X", src.dtype(), ctx_->profile(), op);
    add_bits_defines(d, "Y", dst.dtype(), ctx_->profile(), op);
  } else {
    add_operand_defines(d, "X", src.dtype(), ctx_->profile(), op);
    add_operand_defines(d, "Y", dst.dtype(), ctx_->profile(), op);
  }
  Launch lc(*ctx_, "copy", op);
  lc.use(d).buffer(src, false).buffer(dst, true).i64(n).layout(l, {"X", "Y"});
  if (dst.dtype() == DType::Bool && src.dtype() != DType::Bool) lc.define("TO_BOOL");
  if (is_float(src.dtype()) && is_int(dst.dtype())) lc.define("TO_INT");
  lc.define("ITEMS", std::to_string(gpu::kItemsPerInvocation)).run_1d(gpu::items_invocations(n));
}

ClPtr OpenClBackend::contiguous(const ClPtr& x, const char* op) const {
  if (x->is_contiguous()) return x;
  ClPtr out = alloc(x->shape(), x->dtype(), op);
  copy_into(*x, *out, op);
  return out;
}

}  // namespace burn::opencl
