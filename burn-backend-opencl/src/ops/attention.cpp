// Scaled dot-product attention on the device (burn-gpu/kernels/attention.kernel, the vulkan plugin's kernel
// too; the plan is burn/gpu/attention.hpp): one launch, a work-group per block of queries with an online
// softmax over blocks of keys staged in local memory, so no [Lq, Lk] matrix exists in memory. Query, key,
// value and mask are read in place through their strides. Semantics as the cpu backend: mask true = masked
// out, causal masks key j > query i (top-left), a fully masked row is NaN, scale defaults to 1/sqrt(E).
// f32 and f64.
#include <algorithm>
#include <string>

#include "burn/gpu/attention.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/shape_rules.hpp"
#include "launch.hpp"
#include "opencl_backend.hpp"

namespace burn::opencl {

Prim OpenClBackend::attention(Prim query, Prim key, Prim value, Prim mask, const AttentionOptions& options) {
  static constexpr const char* op = "attention";
  if (!query || !key || !value) throw ValueError(op, "a tensor argument is missing");
  const ClPtr q = cl(query, op), k = cl(key, op), v = cl(value, op);
  const DType dt = q->dtype();
  if (!is_float(dt))
    throw DTypeError(op, "expected float tensors (f32, f64, f16 or bf16), got " + std::string(dtype_name(dt)));
  if (k->dtype() != dt || v->dtype() != dt)
    throw DTypeError(op, "query, key and value must share a dtype, got " + std::string(dtype_name(dt)) + ", " +
                             std::string(dtype_name(k->dtype())) + " and " + std::string(dtype_name(v->dtype())));
  const DeviceProfile& prof = ctx_->profile();
  cl_type(dt, prof, op);
  const Shape os = shape_rules::attention(q->shape(), k->shape(), v->shape(), mask ? &mask->shape() : nullptr, op);
  ClPtr m;
  if (mask) {
    if (mask->dtype() != DType::Bool)
      throw DTypeError(op, "the mask must be a bool tensor, got " + std::string(dtype_name(mask->dtype())));
    // The api gives rank 4; a direct caller's lower rank broadcasts from the right (stride 0).
    m = cl(mask->shape().rank() < 4 ? reshape(mask, shape_rules::attention_mask_4d(mask->shape())) : mask, op);
  }
  ClPtr out = alloc(os, dt, op);
  if (os.num_elements() == 0) return out;
  const gpu::View mv = m ? view_of(*m) : gpu::View{};
  const gpu::AttentionPlan p = gpu::attention_plan(view_of(*q), view_of(*k), view_of(*v), m ? &mv : nullptr, options,
                                                   op, "the OpenCL device " + prof.name);
  const gpu::AttentionTiles a = gpu::attention_tiles(prof.is_cpu(), prof.max_work_group, prof.local_mem, p.e, p.ev, dt);
  Launch lc(*ctx_, "attention", op);
  gpu::Defines d;
  for (const char* name : {"Q", "K", "V", "O"}) add_operand_defines(d, name, dt, prof, op);
  add_operand_defines(d, "M", DType::Bool, prof, op);
  d.emplace_back("D", std::to_string(a.d));
  d.emplace_back("KB", std::to_string(a.kb));
  if (a.q_global) d.emplace_back("QGLOBAL", "1");
  if (p.index64) d.emplace_back("INDEX64", "1");
  lc.use(d);
  lc.buffer(*q, false).buffer(*k, false).buffer(*v, false);
  if (m)
    lc.buffer(*m, false);
  else
    lc.no_tensor();
  lc.buffer(*out, true).index_block(p.strides, p.index64);
  for (int64_t x : {p.batch, p.heads, p.lq, p.lk, p.e, p.ev}) lc.i32(static_cast<int32_t>(x));
  lc.i32(options.causal ? 1 : 0).i32(m ? 1 : 0);
  if (dt == DType::F64)
    lc.f64(p.scale);
  else
    lc.f32(static_cast<float>(p.scale));
  const int64_t qblocks = (p.lq + a.workgroup - 1) / a.workgroup;
  lc.run_grid({static_cast<size_t>(std::min<int64_t>(qblocks, 65535)),
               static_cast<size_t>(std::min<int64_t>(p.batch * p.heads, 65535)), 1},
              a.workgroup, 1);
  return out;
}

}  // namespace burn::opencl
