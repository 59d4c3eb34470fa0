// Activations: one dispatch each, their expressions (exprs.cpp) run by the elementwise launcher; the
// double parameters travel as the expression's scalars. softmax and log_softmax: kernels/softmax.comp.
#include "ops/elementwise.hpp"
#include "ops/nn.hpp"
#include "ops/nn_common.hpp"

namespace burn::vulkan {

#define BURN_VK_UNARY(name) \
  Prim VulkanBackend::name(Prim x) { return elementwise(*this, OpId::name, {std::move(x)}); }

BURN_VK_UNARY(relu)
BURN_VK_UNARY(gelu)
BURN_VK_UNARY(gelu_tanh)
BURN_VK_UNARY(sigmoid)
BURN_VK_UNARY(log_sigmoid)
BURN_VK_UNARY(silu)
BURN_VK_UNARY(mish)
BURN_VK_UNARY(selu)

Prim VulkanBackend::leaky_relu(Prim x, double negative_slope) {
  return elementwise(*this, OpId::leaky_relu, {std::move(x)}, Scalar(negative_slope));
}
Prim VulkanBackend::softplus(Prim x, double beta, double threshold) {
  return elementwise(*this, OpId::softplus, {std::move(x)}, Scalar(beta), Scalar(threshold));
}
Prim VulkanBackend::hard_sigmoid(Prim x, double alpha, double beta) {
  return elementwise(*this, OpId::hard_sigmoid, {std::move(x)}, Scalar(alpha), Scalar(beta));
}
Prim VulkanBackend::elu(Prim x, double alpha) { return elementwise(*this, OpId::elu, {std::move(x)}, Scalar(alpha)); }

// ---- softmax and log_softmax (kernels/softmax.comp) ----

namespace {
// Rows at least this long get a workgroup each; shorter ones (and any dim but the last) an invocation.
constexpr int64_t kSoftmaxRowMin = 128;

Prim softmax_op(const VulkanBackend& be, Prim x, size_t dim, bool log) {
  const char* op = log ? "log_softmax" : "softmax";
  const VkPtr t = nn::float_operand(be, x, op);
  x.reset();
  const Shape& s = t->shape();
  if (dim >= s.rank())
    throw IndexError(op, "dim " + std::to_string(dim) + " is out of range for shape " + s.to_string());
  int64_t rows = 1, inner = 1;
  for (size_t i = 0; i < s.rank(); ++i) {
    if (i < dim) rows *= s[i];
    if (i > dim) inner *= s[i];
  }
  const int64_t n = s[dim];
  VkPtr out = be.alloc(s, t->dtype());
  if (s.num_elements() == 0) return out;
  const bool by_rows = inner == 1 && n >= kSoftmaxRowMin;
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
  if (rows) {
    d.emplace_back("ROWS", "1");
    d.emplace_back("WG_REDUCE_T", glsl_type(dtype, features, device, op).compute);
  }
  if (index64) d.emplace_back("INDEX64", "1");
  return d;
}

Prim VulkanBackend::softmax(Prim x, size_t dim) { return softmax_op(*this, std::move(x), dim, false); }
Prim VulkanBackend::log_softmax(Prim x, size_t dim) { return softmax_op(*this, std::move(x), dim, true); }

}  // namespace burn::vulkan
