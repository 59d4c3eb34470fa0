// Scaled dot-product attention on the device (burn-gpu/kernels/attention.kernel, the opencl plugin's kernel
// too; the plan is burn/gpu/attention.hpp): one dispatch, a workgroup per block
// of queries with an online softmax over blocks of keys staged in shared memory, so no [Lq, Lk] matrix
// exists in memory. Query, key, value and mask are read in place through their strides (a transposed
// [B, L, H, E] view costs no copy). Semantics as the cpu backend: mask true = masked out, causal masks key
// j > query i (top-left), a fully masked row is NaN, scale defaults to 1/sqrt(E) (the api fills it in).
#include <algorithm>
#include <string>
#include <vector>

#include "burn/gpu/attention.hpp"
#include "burn/tensor/shape_rules.hpp"
#include "ops/nn.hpp"
#include "ops/nn_common.hpp"

namespace burn::vulkan {

AttentionShape attention_shape(const DeviceProfile& profile, int64_t e, int64_t ev, DType dtype) {
  return gpu::attention_tiles(profile.cpu_type(), profile.limits.max_workgroup_invocations,
                              profile.limits.max_shared_memory, e, ev, dtype);
}

Defines attention_defines(DType dtype, const AttentionShape& a, bool index64, const DeviceFeatures& features,
                          const std::string& device) {
  const char* op = "attention";
  Defines d;
  for (const char* name : {"Q", "K", "V", "O"}) add_operand_defines(d, name, dtype, features, device, op);
  add_operand_defines(d, "M", DType::Bool, features, device, op);
  d.emplace_back("D", std::to_string(a.d));
  d.emplace_back("KB", std::to_string(a.kb));
  if (a.q_global) d.emplace_back("QGLOBAL", "1");
  if (index64) d.emplace_back("INDEX64", "1");
  return d;
}

Prim VulkanBackend::attention(Prim query, Prim key, Prim value, Prim mask, const AttentionOptions& options) {
  static constexpr const char* op = "attention";
  const VkPtr q = vk(query, op), k = vk(key, op), v = vk(value, op);
  query.reset();
  const DType dt = q->dtype();
  if (dt != DType::F32 && dt != DType::F64 && dt != DType::F16)
    throw DTypeError(op, "expected float tensors (f32, f64 or f16), got " + std::string(dtype_name(dt)));
  if (k->dtype() != dt || v->dtype() != dt)
    throw DTypeError(op, "query, key and value must share a dtype, got " + std::string(dtype_name(dt)) + ", " +
                             std::string(dtype_name(k->dtype())) + " and " + std::string(dtype_name(v->dtype())));
  glsl_type(dt, *ctx_, op);
  const Shape &qs = q->shape(), &ks = k->shape(), &vs = v->shape();
  const Shape os = shape_rules::attention(qs, ks, vs, mask ? &mask->shape() : nullptr, op);
  VkPtr m;
  if (mask) {
    if (mask->dtype() != DType::Bool)
      throw DTypeError(op, "the mask must be a bool tensor, got " + std::string(dtype_name(mask->dtype())));
    // The api gives rank 4; a direct caller's lower rank broadcasts from the right (gpu::attention_plan: stride 0).
    m = vk(mask->shape().rank() < 4 ? reshape(mask, shape_rules::attention_mask_4d(mask->shape())) : mask, op);
  }
  VkPtr out = alloc(os, dt);
  if (out->shape().num_elements() == 0) return out;
  const gpu::View mv = m ? view_of(*m) : gpu::View{};
  const gpu::AttentionPlan p = gpu::attention_plan(view_of(*q), view_of(*k), view_of(*v), m ? &mv : nullptr, options,
                                                   op, "the Vulkan device " + ctx_->profile().name);
  const AttentionShape a = attention_shape(ctx_->profile(), p.e, p.ev, dt);
  Dispatch dp(*ctx_, "attention", op);
  dp.use(attention_defines(dt, a, p.index64, ctx_->profile().features, ctx_->profile().name));
  dp.address(*q, false).address(*k, false).address(*v, false);
  if (m)
    dp.address(*m, false);
  else
    dp.push_u64(0);
  dp.address(*out, true).args(Dispatch::index_array(p.strides, p.index64));
  for (int64_t x : {p.batch, p.heads, p.lq, p.lk, p.e, p.ev}) dp.push_i32(static_cast<int32_t>(x));
  dp.push_i32(options.causal ? 1 : 0).push_i32(m ? 1 : 0);
  nn::push_acc(dp, dt, p.scale);
  const auto& count = ctx_->profile().limits.max_workgroup_count;
  const int64_t qblocks = (p.lq + a.workgroup - 1) / a.workgroup;
  dp.run({static_cast<uint32_t>(std::min<int64_t>(qblocks, std::min<uint32_t>(count[0], 65535))),
          static_cast<uint32_t>(std::min<int64_t>(p.batch * p.heads, std::min<uint32_t>(count[1], 65535))), 1},
         {a.workgroup, 1, 1});
  return out;
}

}  // namespace burn::vulkan
