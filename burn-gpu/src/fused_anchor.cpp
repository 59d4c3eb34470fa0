// A conv or conv_transpose anchor's epilogue, in the dialect: statements burn-gpu/kernels/conv.kernel runs at
// each element it stores (its EPILOGUE_STORE hook), so the bias add, activation, residual add, ... after the
// conv run in its launch. Statements, not a function: an OpenCL C function does not see the kernel's
// arguments.
#include <sstream>

#include "burn/gpu/fused.hpp"

namespace burn::gpu {

ConvEpilogueText generate_conv_epilogue(const FusedProgram& p, size_t c_output, const std::vector<int>& input_modes,
                                        size_t rank, const FusedSpelling& sp) {
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
  s << " STORE(Y, e, r" << p.outputs[c_output] << "); }";
  ConvEpilogueText t;
  t.store = s.str();
  std::ostringstream a;
  a << "PARAM_TENSOR_TABLE(io)";
  for (size_t k = 0; k < p.num_inputs; ++k) a << " TABLE_TENSOR(" << fused_input(k) << ")";
  for (size_t m = 0; m < p.outputs.size(); ++m) a << " TABLE_TENSOR(" << fused_output(m) << ")";
  a << " PARAM_WORDS(escal) PARAM_INDEX(elay) PARAM_FAULTS(faults) PARAM(uint, tag)";
  t.params = a.str();
  for (size_t k = 0; k < p.num_inputs; ++k) t.slots.emplace_back(fused_input(k) + "_SLOT", std::to_string(k));
  for (size_t m = 0; m < p.outputs.size(); ++m)
    t.slots.emplace_back(fused_output(m) + "_SLOT", std::to_string(p.num_inputs + m));
  return t;
}

}  // namespace burn::gpu
