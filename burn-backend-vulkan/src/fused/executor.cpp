// The Vulkan backend's fused executor (burn/tensor/fused.hpp): programs the code generator can write run
// as one dispatch; the rest (for now reductions and matmul/conv anchors) are refused, so burn-fusion runs
// them op by op on this backend.
#include "fused/executor.hpp"

#include <cstring>

#include "burn/tensor/error.hpp"
#include "fused/codegen.hpp"
#include "vulkan_backend.hpp"

namespace burn::vulkan {

bool VulkanFusedExecutor::can_run(const FusedProgram& program) const {
  const DeviceProfile& p = backend_.context().profile();
  return can_generate(program, p.features, p.name);
}

bool VulkanFusedExecutor::owns(const Primitive& p) const {
  const auto* t = dynamic_cast<const VulkanTensor*>(&p);
  return t && &t->context() == &backend_.context();
}

Prims VulkanFusedExecutor::run(const FusedProgram& program, const Prims& inputs) {
  Context& ctx = backend_.context();
  if (inputs.size() != program.num_inputs)
    throw Error("fusion", "a fused program of " + std::to_string(program.num_inputs) + " inputs got " +
                              std::to_string(inputs.size()));
  std::vector<VkPtr> in;
  std::vector<std::vector<int64_t>> strides;
  for (const Prim& p : inputs) {
    in.push_back(backend_.vk(p, "fusion"));
    strides.push_back(broadcast_strides(*in.back(), program.shape));
  }
  Prims outs;
  std::vector<VkPtr> out;
  for (uint16_t o : program.outputs) {
    out.push_back(backend_.alloc(program.shape, program.reg_dtype[o]));
    outs.push_back(out.back());
  }
  const int64_t n = program.shape.num_elements();
  if (n == 0) return outs;

  const Layout l = collapse(program.shape, strides);
  std::vector<int> modes;
  for (size_t k = 0; k < in.size(); ++k) modes.push_back(l.mode(k));
  std::vector<uint8_t> io((in.size() + out.size()) * 8);
  size_t at = 0;
  for (const VkPtr& t : in) {
    const uint64_t a = t->address();
    std::memcpy(io.data() + 8 * at++, &a, 8);
  }
  for (const VkPtr& t : out) {
    const uint64_t a = t->address();
    std::memcpy(io.data() + 8 * at++, &a, 8);
  }
  Dispatch dp(ctx, "fused", "fusion");
  for (const VkPtr& t : in) dp.access(&t->allocation(), false);
  for (const VkPtr& t : out) dp.access(&t->allocation(), true);
  for (DType d : program.reg_dtype) {
    if (d == DType::F64) dp.define("HAS_F64");
    if (d == DType::F16) dp.define("HAS_F16");
    if (d == DType::BF16) dp.define("HAS_BF16");
  }
  dp.args(std::move(io)).args(program_scalars(program)).push_u64(ctx.faults_address()).push_i64(n);
  std::vector<std::string> names;
  for (size_t k = 0; k < in.size(); ++k) names.push_back("IN" + std::to_string(k));
  dp.layout(l, names);
  dp.push_i32(static_cast<int32_t>(ctx.fault_tag("fusion", "a divisor")));
  dp.generated(generate_elementwise(program, modes, ctx.profile().features, ctx.profile().name));
  dp.run_1d(n);
  return outs;
}

}  // namespace burn::vulkan
