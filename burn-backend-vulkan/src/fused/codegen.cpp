// Generating one kernel per fused program from the expression table: the shared instruction emission, the
// elementwise kernel and the matmul anchor's epilogue (the reduce kernel is codegen_reduce.cpp).
#include "fused/codegen.hpp"

#include <cstring>
#include <sstream>

#include "burn/gpu/exprs.hpp"
#include "ops/elementwise.hpp"
#include "ops/matmul.hpp"
#include "ops/reduce.hpp"

namespace burn::vulkan {

using gpu::elementwise_expr;
using gpu::Expr;
using gpu::scalar_bits;
using gpu::scalar_decoder;

namespace {

// The expression of one instruction (cast included), or nothing.
std::optional<Expr> instr_expr(const FusedInstr& in, const std::vector<DType>& reg) {
  const DType a = reg[in.args[0]];
  if (in.op == OpId::cast) {
    const DType to = in.param_dtype;
    if (to == DType::Bool) return Expr{"(a != A_C(0)) ? 1u : 0u", to, 1};
    if (is_float(reg[in.args[0]]) && is_int(to)) return Expr{"R_C(b_to_int(a))", to, 1};  // as the copy kernel
    return Expr{"R_C(a)", to, 1};
  }
  return elementwise_expr(in.op, a);
}

// Activations take doubles (FusedInstr::params); the other ops take Scalars.
bool takes_params(OpId op) { return op_info(op).group == OpGroup::activation; }

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// `s` with the identifier `name` (whole tokens only) replaced by `to`: the expressions' A_C, R_C and S_C
// become concrete types, so a generated body needs no #define and fits a single-line define.
std::string replace_token(const std::string& s, const std::string& name, const std::string& to) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    const size_t at = s.find(name, i);
    if (at == std::string::npos) break;
    const bool left = at == 0 || !ident_char(s[at - 1]);
    const bool right = at + name.size() >= s.size() || !ident_char(s[at + name.size()]);
    out.append(s, i, at - i);
    out += left && right ? to : name;
    i = at + name.size();
  }
  out.append(s, i, std::string::npos);
  return out;
}

bool gpu_float(DType d) { return d == DType::F32 || d == DType::F64 || d == DType::F16; }
bool is_numeric(DType d) { return gpu_float(d) || d == DType::I64 || d == DType::I32; }

// A reduce instruction this generator writes: its operands and result dtypes as the eager op's.
bool reduce_ok(const FusedProgram& p, const FusedInstr& in, size_t k, const DeviceFeatures& f,
               const std::string& device) {
  const bool norm = in.op == OpId::layer_norm || in.op == OpId::rms_norm;
  if (in.n_args != (in.op == OpId::layer_norm ? 3 : in.op == OpId::rms_norm ? 2 : 1)) return false;
  if (in.args[0] >= p.num_inputs + k) return false;
  const DType a = p.reg_dtype[in.args[0]], r = p.reg_dtype[p.num_inputs + k];
  for (size_t q = 1; norm && q < in.n_args; ++q)
    if (in.args[q] != kNoRegister && (in.args[q] >= p.num_inputs || p.reg_dtype[in.args[q]] != a)) return false;
  // (The program's shape is not known yet: burn-fusion asks while planning; run() checks the dims.)
  if (norm && in.dim == 0) return false;
  switch (in.op) {
    case OpId::sum_dim:
    case OpId::mean_dim:
    case OpId::max_dim:
    case OpId::min_dim:
      if (!is_numeric(a) || r != a) return false;
      break;
    case OpId::argmax:
    case OpId::argmin:
      if (!is_numeric(a) || r != DType::I64) return false;
      break;
    default:
      if (!gpu_float(a) || r != a) return false;
  }
  if (!fused_reduce_keeps_shape(in.op)) {
    try {
      reduce_spec(in.op, a, f, device, "fusion");
    } catch (const Error&) {
      return false;
    }
  }
  return true;
}

// A matmul anchor (lhs, rhs) or a conv / conv_transpose (x, weight, bias or none): inputs of the result's
// float dtype.
bool anchor_ok(const FusedProgram& p, const FusedInstr& in) {
  if (in.n_args != (in.op == OpId::matmul ? 2 : 3)) return false;
  const DType r = p.reg_dtype[p.num_inputs];
  if (!gpu_float(r)) return false;
  for (size_t q = 0; q < in.n_args; ++q) {
    if (q == 2 && in.args[q] == kNoRegister) continue;
    if (in.args[q] >= p.num_inputs || p.reg_dtype[in.args[q]] != r) return false;
  }
  // The kernel's C is an output of the anchor's dtype.
  for (uint16_t o : p.outputs)
    if (p.reg_dtype[o] == r) return true;
  return false;
}

}  // namespace

namespace codegen {

std::string decode_scalar(DType d, const std::string& bits) { return replace_all(scalar_decoder(d), "bits", bits); }

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
  auto type = [&](DType d) { return std::string(type_of(d, features, device).compute); };
  const FusedInstr& in = p.code[j];
  const size_t r = p.num_inputs + j;
  const DType a = p.reg_dtype[in.args[0]];
  const std::optional<Expr> e = instr_expr(in, p.reg_dtype);
  const DType sd = e->scalar_i64 ? DType::I64 : a;
  const std::string rt = type(p.reg_dtype[r]), at = type(a), st = type(sd);
  auto concrete = [&](std::string text) {
    text = replace_token(text, "S_C", st);
    text = replace_token(text, "A_C", at);
    return replace_token(text, "R_C", rt);
  };
  // PRECISE: the driver may not rewrite across instructions what the eager ops computed apart (x - x is
  // NaN for an infinite x, not 0).
  s << "PRECISE " << rt << " r" << r << "; {";
  static const char* const kNames[] = {"a", "b", "c"};
  for (uint8_t k = 0; k < in.n_args; ++k)
    s << " const " << type(p.reg_dtype[in.args[k]]) << " " << kNames[k] << " = r" << in.args[k] << ";";
  for (int k = 0; k < e->scalars; ++k)
    s << " const " << st << " s" << k << " = " << st << "("
      << decode_scalar(sd, "sc.v[" + std::to_string(j * 2 + k) + "]") << ");";
  s << " r" << r << " = " << rt << "(" << concrete(gpu::with_literals(e->text, a, gpu::Dialect::Glsl)) << "); }";
}

}  // namespace codegen

size_t special_index(const FusedProgram& p) {
  for (size_t k = 0; k < p.code.size(); ++k)
    if (is_fused_reduce(p.code[k].op) || is_fused_anchor(p.code[k].op)) return k;
  return p.code.size();
}

namespace {

bool is_compare_elem(OpId op) {
  return op == OpId::equal_elem || op == OpId::not_equal_elem || op == OpId::greater_elem ||
         op == OpId::greater_equal_elem || op == OpId::lower_elem || op == OpId::lower_equal_elem;
}

// The scalar k of instruction `in` as its kernel reads it: an int compare against a float scalar takes the
// exact int threshold of the eager compare (nullopt: an answer constant for every int, left to the eager op).
std::optional<Scalar> kernel_scalar(const FusedInstr& in, DType a, int k) {
  const Scalar s = takes_params(in.op) ? Scalar(in.params[k]) : in.scalars[k];
  if (k != 0 || !is_compare_elem(in.op) || !is_int(a) || s.kind != Scalar::Kind::Float) return s;
  bool constant = false;
  const std::optional<int64_t> v = int_compare_scalar(in.op, s.f, constant);
  if (!v) return std::nullopt;
  return Scalar(*v);
}

}  // namespace

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
    if (is_fused_anchor(sp.op) ? (sk != 0 || !anchor_ok(p, sp)) : !reduce_ok(p, sp, sk, features, device)) return false;
    // Outputs are registers computed here (an input stored again has no place in these kernels).
    for (uint16_t o : p.outputs)
      if (o < p.num_inputs || o >= p.reg_dtype.size()) return false;
  }
  for (size_t k = 0; k < p.code.size(); ++k) {
    if (k == sk) continue;
    const FusedInstr& in = p.code[k];
    if (is_fused_reduce(in.op) || is_fused_anchor(in.op)) return false;  // a second one
    if (in.n_args == 0 || in.n_args > 3) return false;
    for (uint8_t q = 0; q < in.n_args; ++q) {
      if (in.args[q] >= p.num_inputs + k) return false;
      // The epilogue reads inputs, the reduce's or anchor's result and itself: the prologue's registers are gone.
      if (k > sk && in.args[q] >= p.num_inputs && in.args[q] < p.num_inputs + sk) return false;
    }
    const std::optional<Expr> e = instr_expr(in, p.reg_dtype);
    if (!e || e->arity != in.n_args) return false;
    for (uint8_t q = 0; q < in.n_args; ++q) {
      const DType want = q == e->bool_operand ? DType::Bool : p.reg_dtype[in.args[0]];
      if (p.reg_dtype[in.args[q]] != want) return false;
    }
    if (e->result != p.reg_dtype[p.num_inputs + k]) return false;
    if (!kernel_scalar(in, p.reg_dtype[in.args[0]], 0)) return false;
  }
  return true;
}

std::vector<uint8_t> program_scalars(const FusedProgram& p) {
  std::vector<uint8_t> out(std::max<size_t>(p.code.size(), 1) * 16, 0);
  for (size_t j = 0; j < p.code.size(); ++j) {
    const FusedInstr& in = p.code[j];
    const DType a = p.reg_dtype[in.args[0]];
    if (is_fused_anchor(in.op)) continue;
    if (is_fused_reduce(in.op)) {  // a norm's eps, in its operand's dtype
      const uint64_t bits = scalar_bits(Scalar(in.params[0]), a);
      std::memcpy(out.data() + j * 16, &bits, 8);
      continue;
    }
    const std::optional<Expr> e = instr_expr(in, p.reg_dtype);
    const DType sd = e && e->scalar_i64 ? DType::I64 : a;
    for (int k = 0; k < 2; ++k) {
      const Scalar s = kernel_scalar(in, a, k).value_or(Scalar());
      const uint64_t bits = scalar_bits(s, sd);
      std::memcpy(out.data() + j * 16 + k * 8, &bits, 8);
    }
  }
  return out;
}

std::string generate_elementwise(const FusedProgram& p, const std::vector<int>& input_modes,
                                 const DeviceFeatures& features, const std::string& device) {
  std::ostringstream s;
  s << "// generated by burn-backend-vulkan/src/fused/codegen.cpp\n"
       "layout(push_constant) uniform Push { ADDR io; ADDR scal; ADDR faults; int64_t n; ADDR lay; uint tag; } pc;\n"
       "layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer Addrs { uint64_t v[]; };\n"
       "void main() {\n"
       "  Addrs io = Addrs(pc.io);\n"
       "  Addrs sc = Addrs(pc.scal);\n"
       "  for (idx_t i = gid(); i < idx_t(pc.n); i += gstride()) {\n";
  // Loads of the inputs some instruction reads.
  std::vector<bool> used(p.num_inputs, false);
  for (const FusedInstr& in : p.code)
    for (uint8_t k = 0; k < in.n_args; ++k)
      if (in.args[k] < p.num_inputs) used[in.args[k]] = true;
  for (uint16_t o : p.outputs)
    if (o < p.num_inputs) used[o] = true;
  for (size_t k = 0; k < p.num_inputs; ++k)
    if (used[k])
      s << "    "
        << codegen::load_input(p, k, codegen::input_offset(input_modes[k], k, "RANK", "pc.lay", "i"), features, device)
        << "\n";
  for (size_t j = 0; j < p.code.size(); ++j) {
    s << "    ";
    codegen::emit_instr(s, p, j, features, device);
    s << "\n";
  }
  for (size_t m = 0; m < p.outputs.size(); ++m)
    s << "    " << codegen::store_output(p, m, "r" + std::to_string(p.outputs[m]), "i", features, device) << "\n";
  s << "  }\n}\n";
  return s.str();
}

AnchorEpilogue anchor_epilogue(const FusedProgram& p, size_t c_output, const std::vector<int>& input_modes, size_t rank,
                               const DeviceFeatures& features, const std::string& device) {
  const bool mm = p.code[0].op == OpId::matmul;
  // The kernel's accumulator and output types: matmul.comp's A and C operands, burn-gpu/kernels/conv.kernel's X and Y.
  const std::string acc_t = mm ? "A_C" : "X_C", out_t = mm ? "C_C" : "Y_C";
  const uint16_t anchor = static_cast<uint16_t>(p.num_inputs);
  const GlslType at = codegen::type_of(p.reg_dtype[anchor], features, device);
  std::vector<bool> used(p.num_inputs, false);
  for (size_t k = 1; k < p.code.size(); ++k)
    for (uint8_t q = 0; q < p.code[k].n_args; ++q)
      if (p.code[k].args[q] < p.num_inputs) used[p.code[k].args[q]] = true;
  std::ostringstream s;
  s << "layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer Addrs { uint64_t v[]; }; ";
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
  e.expression = mm ? "fused_epilogue(acc, (idx_t(z) * idx_t(pc.M) + idx_t(row)) * idx_t(pc.N) + idx_t(col))"
                    : "fused_epilogue(v, i)";
  return e;
}

}  // namespace burn::vulkan
