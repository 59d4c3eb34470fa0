// interpolate and interpolate_backward on the device (burn-gpu/kernels/resample.kernel, the opencl plugin's
// kernel too; the plan is burn/gpu/resample.hpp): the tap tables come from sampling_taps.hpp's interp_taps,
// the builder the default composite and the cpu backend use, so every backend reads the same input
// positions with the same weights (PyTorch's rules); the backward gets each dim's table inverted (input
// position -> the outputs that read it) and gathers, deterministic.
#include <algorithm>
#include <string>
#include <vector>

#include "burn/gpu/resample.hpp"
#include "ops/nn.hpp"
#include "ops/nn_common.hpp"

namespace burn::vulkan {

namespace {

Prim run(const VulkanBackend& be, const VkPtr& x, const VkPtr& g, const Shape& output_size,
         const InterpolateOptions& options, bool backward, const char* op) {
  Context& ctx = be.context();
  const Shape& s = x->shape();
  const gpu::ResamplePlan p =
      gpu::resample_plan(s, output_size, options, backward, op, "the Vulkan device " + ctx.profile().name);
  if (backward && g->shape() != p.out)
    throw ShapeError(op, "grad_out " + g->shape().to_string() + " does not match the output " + p.out.to_string());
  VkPtr y = be.alloc(p.result, x->dtype());
  if (p.ints.empty()) return y;
  const bool index64 = nn::needs_index64(std::max(s.num_elements(), p.out.num_elements()));
  Dispatch dp(ctx, "resample", op);
  dp.use(resample_defines(x->dtype(), backward, index64, ctx.profile().features, ctx.profile().name));
  if (backward)
    dp.push_u64(0).address(*g, false);
  else
    dp.address(*x, false).push_u64(0);
  dp.address(*y, true)
      .args(Dispatch::index_array(p.ints, index64))
      .args(p.weight_bytes(nn::acc_dtype(x->dtype()) == DType::F64));
  dp.push_i64(p.planes);
  for (int a = 0; a < 3; ++a) dp.push_i32(static_cast<int32_t>(p.in[a]));
  for (int a = 0; a < 3; ++a) dp.push_i32(static_cast<int32_t>(p.out_dims[a]));
  dp.run_1d(y->shape().num_elements());
  return y;
}

}  // namespace

Defines resample_defines(DType dtype, bool backward, bool index64, const DeviceFeatures& features,
                         const std::string& device) {
  const char* op = backward ? "interpolate_backward" : "interpolate";
  Defines d;
  for (const char* name : {"X", "G", "Y"}) add_operand_defines(d, name, dtype, features, device, op);
  add_operand_defines(d, "W", nn::acc_dtype(dtype), features, device, op);
  if (!backward) d.emplace_back("FORWARD", "1");
  if (index64) d.emplace_back("INDEX64", "1");
  return d;
}

Prim VulkanBackend::interpolate(Prim x, const Shape& output_size, const InterpolateOptions& options) {
  const VkPtr t = nn::float_operand(*this, x, "interpolate");
  x.reset();
  return run(*this, t, nullptr, output_size, options, false, "interpolate");
}

Prim VulkanBackend::interpolate_backward(Prim x, Prim grad_out, const Shape& output_size,
                                         const InterpolateOptions& options) {
  static constexpr const char* op = "interpolate_backward";
  const VkPtr t = vk(x, op);  // its shape and dtype only
  x.reset();
  const VkPtr g = nn::optional_operand(*this, grad_out, t->dtype(), op, "grad_out");
  return run(*this, t, g, output_size, options, true, op);
}

}  // namespace burn::vulkan
