// interpolate and interpolate_backward on the device (kernels/resample.comp): the tap tables come from
// sampling_taps.hpp's interp_taps, the builder the default composite and the cpu backend use, so every
// backend reads the same input positions with the same weights (PyTorch's rules); the backward gets each
// dim's table inverted (input position -> the outputs that read it) and gathers, deterministic.
#include <algorithm>
#include <string>
#include <vector>

#include "burn/tensor/detail/sampling_taps.hpp"
#include "burn/tensor/shape_rules.hpp"
#include "ops/nn.hpp"
#include "ops/nn_common.hpp"

namespace burn::vulkan {

namespace {

// The (D, H, W) taps of an interpolation, unit taps on missing leading dims.
std::vector<module_detail::DimTaps> taps3(const Shape& in, const Shape& out, const InterpolateOptions& o) {
  std::vector<module_detail::DimTaps> t(3);
  const size_t n = in.rank() - 2, lead = 3 - n;
  for (size_t a = 0; a < lead; ++a) {
    t[a].in = t[a].out = t[a].k = 1;
    t[a].pos = {0};
    t[a].weight = {1.0};
  }
  for (size_t i = 0; i < n; ++i) t[lead + i] = module_detail::interp_taps(in[i + 2], out[i], o);
  return t;
}

// The parallel int and weight arrays of kernels/resample.comp (its header says the layout).
struct Tables {
  std::vector<int32_t> ints;
  std::vector<double> weights;
  void push(int64_t i, double w, const char* op) {
    ints.push_back(nn::i32(i, op, "a tap table entry"));
    weights.push_back(w);
  }
};

Tables forward_tables(const std::vector<module_detail::DimTaps>& t, const char* op) {
  Tables tb;
  for (int a = 0; a < 3; ++a) tb.push(t[a].k, 0, op);
  for (int a = 0; a < 3; ++a) tb.push(0, 0, op);  // where each dim's taps start, set below
  for (int a = 0; a < 3; ++a) {
    tb.ints[3 + a] = nn::i32(static_cast<int64_t>(tb.ints.size()), op, "a tap table");
    for (size_t j = 0; j < t[a].pos.size(); ++j) tb.push(t[a].pos[j], t[a].weight[j], op);
  }
  return tb;
}

Tables backward_tables(const std::vector<module_detail::DimTaps>& t, const char* op) {
  Tables tb;
  for (int a = 0; a < 6; ++a) tb.push(0, 0, op);
  for (int a = 0; a < 3; ++a) {
    const module_detail::DimTaps& d = t[a];
    // Entries grouped by input position, each group in output order.
    std::vector<std::vector<std::pair<int64_t, double>>> by_input(static_cast<size_t>(d.in));
    for (int64_t o = 0; o < d.out; ++o)
      for (int64_t j = 0; j < d.k; ++j) {
        const size_t e = static_cast<size_t>(o * d.k + j);
        by_input[static_cast<size_t>(d.pos[e])].emplace_back(o, d.weight[e]);
      }
    tb.ints[a] = nn::i32(static_cast<int64_t>(tb.ints.size()), op, "a tap table");
    int64_t at = 0;
    for (const auto& row : by_input) {
      tb.push(at, 0, op);
      at += static_cast<int64_t>(row.size());
    }
    tb.push(at, 0, op);
    tb.ints[3 + a] = nn::i32(static_cast<int64_t>(tb.ints.size()), op, "a tap table");
    for (const auto& row : by_input)
      for (const auto& [o, w] : row) tb.push(o, w, op);
  }
  return tb;
}

Prim run(const VulkanBackend& be, const VkPtr& x, const VkPtr& g, const Shape& output_size,
         const InterpolateOptions& options, bool backward, const char* op) {
  const Shape& s = x->shape();
  const Shape os = shape_rules::interpolate(s, output_size.dims(), options, op);
  const std::vector<module_detail::DimTaps> t = taps3(s, output_size, options);
  if (backward && g->shape() != os)
    throw ShapeError(op, "grad_out " + g->shape().to_string() + " does not match the output " + os.to_string());
  VkPtr y = be.alloc(backward ? s : os, x->dtype());
  if (y->shape().num_elements() == 0 || os.num_elements() == 0 || s.num_elements() == 0) return y;
  nn::i32(t[0].in * t[1].in * t[2].in, op, "an input plane of");  // the kernel indexes planes in 32 bits
  nn::i32(t[0].out * t[1].out * t[2].out, op, "an output plane of");
  const Tables tb = backward ? backward_tables(t, op) : forward_tables(t, op);
  Context& ctx = be.context();
  Dispatch dp(ctx, "resample", op);
  dp.use(resample_defines(x->dtype(), backward, nn::needs_index64(std::max(s.num_elements(), os.num_elements())),
                          ctx.profile().features, ctx.profile().name));
  if (backward)
    dp.push_u64(0).address(*g, false);
  else
    dp.address(*x, false).push_u64(0);
  dp.address(*y, true).args(nn::bytes_of(tb.ints)).args(nn::acc_bytes(tb.weights, x->dtype()));
  dp.push_i64(s[0] * s[1]);
  for (int a = 0; a < 3; ++a) dp.push_i32(nn::i32(t[a].in, op, "an input size"));
  for (int a = 0; a < 3; ++a) dp.push_i32(nn::i32(t[a].out, op, "an output size"));
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
