// Activations: one dispatch each, their expressions run by the elementwise launcher (the GPU backends'
// shared op glue, burn/gpu/elementwise_ops.hpp); the double parameters travel as the expression's scalars.
// softmax and log_softmax: burn-gpu/kernels/softmax.kernel (the opencl plugin's too).
#include "burn/gpu/elementwise_ops.hpp"
#include "burn/gpu/views.hpp"
#include "ops/elementwise.hpp"
#include "ops/nn.hpp"
#include "ops/nn_common.hpp"

namespace burn::vulkan {

BURN_GPU_ACTIVATION_OPS(VulkanBackend)

// ---- softmax and log_softmax (burn-gpu/kernels/softmax.kernel) ----

namespace {
Prim softmax_op(const VulkanBackend& be, Prim x, size_t dim, bool log) {
  const char* op = log ? "log_softmax" : "softmax";
  const VkPtr t = nn::float_operand(be, x, op);
  x.reset();
  const Shape& s = t->shape();
  const gpu::AroundDim a = gpu::around_dim(s, dim, op);
  const int64_t rows = a.rows, n = a.n, inner = a.inner;
  VkPtr out = be.alloc(s, t->dtype());
  if (s.num_elements() == 0) return out;
  const bool by_rows = a.by_rows;
  Context& ctx = be.context();
  Dispatch dp(ctx, "softmax", op);
  dp.use(softmax_defines(t->dtype(), log, by_rows, nn::needs_index64(s.num_elements()), ctx.profile().features,
                         ctx.profile().name));
  dp.address(*t, false).address(*out, true).push_i64(rows).push_i64(n).push_i64(inner);
  if (by_rows)
    nn::run_groups(dp, rows, nn::kRowWorkgroup);
  else
    dp.run_1d(rows * inner);
  return out;
}
}  // namespace

Defines softmax_defines(DType dtype, bool log, bool rows, bool index64, const DeviceFeatures& features,
                        const std::string& device) {
  const char* op = log ? "log_softmax" : "softmax";
  Defines d;
  add_operand_defines(d, "X", dtype, features, device, op);
  add_operand_defines(d, "Y", dtype, features, device, op);
  if (log) d.emplace_back("LOG", "1");
  if (rows) d.emplace_back("ROWS", "1");
  if (index64) d.emplace_back("INDEX64", "1");
  return d;
}

Prim VulkanBackend::softmax(Prim x, size_t dim) { return softmax_op(*this, std::move(x), dim, false); }
Prim VulkanBackend::log_softmax(Prim x, size_t dim) { return softmax_op(*this, std::move(x), dim, true); }

}  // namespace burn::vulkan
