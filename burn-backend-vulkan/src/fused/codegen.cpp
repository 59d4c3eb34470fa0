// The vulkan plugin's side of the fusion code generator (burn-gpu/src/fused.cpp): what it can generate, the
// GLSL spelling of the shared generator's types, this device's folds for the shared reduce kernel, and the
// anchors' epilogue defines.
#include "fused/codegen.hpp"

#include "burn/gpu/fused.hpp"
#include "ops/reduce.hpp"

namespace burn::vulkan {

using gpu::program_scalars;
using gpu::special_index;

namespace {

// A reduce instruction the shared generator writes, whose eager fold this device has for its dtype.
bool reduce_ok(const FusedProgram& p, size_t k, const DeviceFeatures& f, const std::string& device) {
  if (!gpu::reduce_generatable(p, k)) return false;
  const FusedInstr& in = p.code[k];
  if (fused_reduce_keeps_shape(in.op)) return true;
  try {
    reduce_spec(in.op, p.reg_dtype[in.args[0]], f, device, "fusion");
  } catch (const Error&) {
    return false;
  }
  return true;
}

}  // namespace

gpu::FusedSpelling spelling(const DeviceFeatures& features, const std::string& device) {
  return {gpu::Dialect::Glsl,
          [features, device](DType d) { return std::string(glsl_type(d, features, device, "fusion").compute); }};
}

bool can_generate(const FusedProgram& p, const DeviceFeatures& features, const std::string& device) {
  if (p.code.empty() || p.reg_dtype.size() != p.num_inputs + p.code.size()) return false;
  try {
    for (DType d : p.reg_dtype) glsl_type(d, features, device, "fusion");
  } catch (const Error&) {
    return false;
  }
  const size_t sk = special_index(p);
  if (sk < p.code.size()) {
    const FusedInstr& sp = p.code[sk];
    if (is_fused_anchor(sp.op) ? !gpu::anchor_generatable(p, sk) : !reduce_ok(p, sk, features, device)) return false;
  }
  return gpu::instructions_generatable(p, sk);
}

std::string generate_elementwise(const FusedProgram& p, const DeviceFeatures& features, const std::string& device) {
  return gpu::generate_elementwise(p, spelling(features, device));
}

void add_fused_operand_defines(Defines& d, const FusedProgram& p, const DeviceFeatures& features,
                               const std::string& device) {
  for (size_t k = 0; k < p.num_inputs; ++k)
    add_operand_defines(d, gpu::fused_input(k), p.reg_dtype[k], features, device, "fusion");
  for (size_t m = 0; m < p.outputs.size(); ++m)
    add_operand_defines(d, gpu::fused_output(m), p.reg_dtype[p.outputs[m]], features, device, "fusion");
  const size_t sk = special_index(p);
  if (sk < p.code.size())
    add_operand_defines(d, gpu::fused_result(), p.reg_dtype[p.num_inputs + sk], features, device, "fusion");
}

std::string generate_reduce(const FusedProgram& p, const ReduceLaunch& l, const DeviceFeatures& f,
                            const std::string& device) {
  const FusedInstr& red = p.code[special_index(p)];
  gpu::FusedFold fold;
  if (!fused_reduce_keeps_shape(red.op)) {
    const ReduceSpec spec = reduce_spec(red.op, p.reg_dtype[red.args[0]], f, device, "fusion");
    fold = {spec.acc_glsl, spec.init, spec.step, spec.finish, spec.better};
  }
  return gpu::generate_reduce(p, l, fold, spelling(f, device));
}

AnchorEpilogue anchor_epilogue(const FusedProgram& p, size_t c_output, const std::vector<int>& input_modes, size_t rank,
                               const DeviceFeatures& features, const std::string& device) {
  AnchorEpilogue e;
  e.defines = gpu::generate_anchor_epilogue(p, c_output, input_modes, rank, spelling(features, device));
  add_fused_operand_defines(e.defines, p, features, device);
  return e;
}

}  // namespace burn::vulkan
