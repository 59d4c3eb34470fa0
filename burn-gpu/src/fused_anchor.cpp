// A matmul, conv or conv_transpose anchor's epilogue, in the dialect: statements the anchor's kernel
// (burn-gpu/kernels/matmul.kernel, conv.kernel; the vulkan plugin's matmul_coop.comp) runs at each element it
// stores (its EPILOGUE_STORE hook), so the bias add, activation, residual add, ... after the product run in its
// launch. Statements, not a function: an OpenCL C function does not see the kernel's arguments.
#include <sstream>

#include "burn/gpu/fused.hpp"

namespace burn::gpu {

Defines generate_anchor_epilogue(const FusedProgram& p, size_t c_output, const std::vector<int>& input_modes,
                                 size_t rank, const FusedSpelling& sp) {
  // What differs between the anchors' kernels: the name of the operand they store.
  const char* kernel_out = p.code[0].op == OpId::matmul ? "C" : "Y";
  const uint16_t anchor = static_cast<uint16_t>(p.num_inputs);
  const std::vector<bool> used = inputs_read(p, 1, p.code.size());
  auto word = [](size_t k) { return "WORD_AT(escal, " + std::to_string(k) + ")"; };
  std::ostringstream s;
  s << "{ const idx_t e = epi_i;";
  for (size_t k = 0; k < p.num_inputs; ++k)
    if (used[k])
      s << " const " << sp.compute(p.reg_dtype[k]) << " r" << k << " = TLOAD(" << fused_input(k) << ", "
        << fused_input_offset(input_modes[k], k, rank, "elay", "e") << ");";
  // The anchor's value as the eager conv stored it (rounded to f16 for an f16 conv).
  s << " const " << sp.compute(p.reg_dtype[anchor]) << " r" << anchor << " = " << fused_result() << "_FROM("
    << fused_result() << "_TO(epi_v));";
  for (size_t j = 1; j < p.code.size(); ++j) {
    s << " ";
    emit_instr(s, p, j, sp, word);
  }
  for (size_t m = 0; m < p.outputs.size(); ++m)
    if (m != c_output) s << " TSTORE(" << fused_output(m) << ", e, r" << p.outputs[m] << ");";
  s << " STORE(" << kernel_out << ", e, r" << p.outputs[c_output] << "); }";
  Defines d;
  std::ostringstream a;
  a << "PARAM_TENSOR_TABLE(io)";
  for (size_t k = 0; k < p.num_inputs; ++k) a << " TABLE_TENSOR(" << fused_input(k) << ")";
  for (size_t m = 0; m < p.outputs.size(); ++m) a << " TABLE_TENSOR(" << fused_output(m) << ")";
  a << " PARAM_WORDS(escal) PARAM_INDEX(elay) PARAM_FAULTS(faults) PARAM(uint, tag)";
  for (size_t k = 0; k < p.num_inputs; ++k) d.emplace_back(fused_input(k) + "_SLOT", std::to_string(k));
  for (size_t m = 0; m < p.outputs.size(); ++m)
    d.emplace_back(fused_output(m) + "_SLOT", std::to_string(p.num_inputs + m));
  d.emplace_back("EPILOGUE_PUSH", a.str());
  d.emplace_back("EPILOGUE_STORE(epi_v, epi_i)", s.str());
  // One inlined copy of the epilogue: a long one unrolled TM x TN times takes a JIT minutes to compile.
  d.emplace_back("EPILOGUE_ONCE", "1");
  return d;
}

}  // namespace burn::gpu
