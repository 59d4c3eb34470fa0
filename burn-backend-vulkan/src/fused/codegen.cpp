// The vulkan plugin's side of the fusion code generator (burn-gpu/src/fused.cpp): what it can generate, the
// GLSL spelling of the shared instruction emission, this device's folds for the shared reduce kernel, and the
// matmul and conv anchors' epilogues.
#include "fused/codegen.hpp"

#include <sstream>

#include "burn/gpu/fused.hpp"
#include "ops/matmul.hpp"
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

namespace codegen {

GlslType type_of(DType d, const DeviceFeatures& features, const std::string& device) {
  return glsl_type(d, features, device, "fusion");
}

std::string input_offset(int mode, size_t k, const std::string& rank, const std::string& lay, const std::string& i) {
  if (mode == 0) return i;
  if (mode == 1) return "idx_t(0)";
  return "strided_offset(IdxBuf(" + lay + "), 0, " + std::to_string(k + 1) + " * " + rank + ", " + rank + ", " + i +
         ")";
}

std::string load_input(const FusedProgram& p, size_t k, const std::string& offset, const DeviceFeatures& features,
                       const std::string& device) {
  const GlslType t = type_of(p.reg_dtype[k], features, device);
  const std::string at = std::string("AT(") + t.buffer + ", io.v[" + std::to_string(k) + "], " + offset + ", " +
                         std::to_string(dtype_size(p.reg_dtype[k])) + ")";
  return std::string("const ") + t.compute + " r" + std::to_string(k) + " = " + t.load(at) + ";";
}

std::string store_output(const FusedProgram& p, size_t m, const std::string& value, const std::string& i,
                         const DeviceFeatures& features, const std::string& device) {
  const DType d = p.reg_dtype[p.outputs[m]];
  const GlslType t = type_of(d, features, device);
  return std::string("AT(") + t.buffer + ", io.v[" + std::to_string(p.num_inputs + m) + "], " + i + ", " +
         std::to_string(dtype_size(d)) + ") = " + t.store(value) + ";";
}

void emit_instr(std::ostream& s, const FusedProgram& p, size_t j, const DeviceFeatures& features,
                const std::string& device) {
  gpu::emit_instr(s, p, j, spelling(features, device), [](size_t k) { return "sc.v[" + std::to_string(k) + "]"; });
}

}  // namespace codegen

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

ConvEpilogue conv_epilogue(const FusedProgram& p, size_t c_output, const std::vector<int>& input_modes, size_t rank,
                           const DeviceFeatures& features, const std::string& device) {
  const gpu::ConvEpilogueText t =
      gpu::generate_conv_epilogue(p, c_output, input_modes, rank, spelling(features, device));
  ConvEpilogue e;
  e.store = t.store;
  e.push = t.params;
  e.defines = t.slots;
  add_fused_operand_defines(e.defines, p, features, device);
  return e;
}

AnchorEpilogue anchor_epilogue(const FusedProgram& p, size_t c_output, const std::vector<int>& input_modes, size_t rank,
                               const DeviceFeatures& features, const std::string& device) {
  // The kernel's accumulator and output types: matmul.comp's A and C operands.
  const std::string acc_t = "A_C", out_t = "C_C";
  const uint16_t anchor = static_cast<uint16_t>(p.num_inputs);
  const GlslType at = codegen::type_of(p.reg_dtype[anchor], features, device);
  std::vector<bool> used(p.num_inputs, false);
  for (size_t k = 1; k < p.code.size(); ++k)
    for (uint8_t q = 0; q < p.code[k].n_args; ++q)
      if (p.code[k].args[q] < p.num_inputs) used[p.code[k].args[q]] = true;
  std::ostringstream s;
  s << out_t << " fused_epilogue(" << acc_t
    << " acc, idx_t i) { Addrs io = Addrs(pc.eio); Addrs sc = Addrs(pc.escal); ";
  for (size_t k = 0; k < p.num_inputs; ++k)
    if (used[k])
      s << codegen::load_input(p, k, codegen::input_offset(input_modes[k], k, std::to_string(rank), "pc.elay", "i"),
                               features, device)
        << " ";
  // The anchor's value as the eager matmul stored it (rounded to f16 for an f16 matmul).
  s << "const " << at.compute << " r" << anchor << " = " << at.load(at.store("acc")) << "; ";
  for (size_t j = 1; j < p.code.size(); ++j) {
    codegen::emit_instr(s, p, j, features, device);
    s << " ";
  }
  for (size_t m = 0; m < p.outputs.size(); ++m)
    if (m != c_output)
      s << codegen::store_output(p, m, "r" + std::to_string(p.outputs[m]), "i", features, device) << " ";
  s << "return " << out_t << "(r" << p.outputs[c_output] << "); }";
  AnchorEpilogue e;
  e.preamble = s.str();
  e.push = "ADDR eio; ADDR escal; ADDR elay; ADDR faults; uint tag;";
  e.expression = "fused_epilogue(acc, (idx_t(z) * idx_t(pc.M) + idx_t(row)) * idx_t(pc.N) + idx_t(col))";
  return e;
}

}  // namespace burn::vulkan
