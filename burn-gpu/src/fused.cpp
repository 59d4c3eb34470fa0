// The fusion code generator's shared part: instruction emission from the expression table and the
// elementwise kernel, in the dialect.
#include "burn/gpu/fused.hpp"

#include <cctype>
#include <cstring>
#include <sstream>

#include "burn/gpu/views.hpp"
#include "burn/tensor/error.hpp"

namespace burn::gpu {

namespace {

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

std::optional<Expr> fused_expr(const FusedInstr& in, const std::vector<DType>& reg) {
  const DType a = reg[in.args[0]];
  if (in.op == OpId::cast) {
    const DType to = in.param_dtype;
    if (to == DType::Bool) return Expr{"(a != CVT(A_C, 0)) ? 1u : 0u", to, 1};
    if (is_float(a) && is_int(to)) return Expr{"CVT(R_C, b_to_int(a))", to, 1};  // as the copy kernel
    return Expr{"CVT(R_C, a)", to, 1};
  }
  return elementwise_expr(in.op, a);
}

size_t special_index(const FusedProgram& p) {
  for (size_t k = 0; k < p.code.size(); ++k)
    if (is_fused_reduce(p.code[k].op) || is_fused_anchor(p.code[k].op)) return k;
  return p.code.size();
}

namespace {
bool gpu_float(DType d) { return d == DType::F32 || d == DType::F64 || d == DType::F16; }
bool is_numeric(DType d) { return gpu_float(d) || d == DType::I64 || d == DType::I32; }
}  // namespace

bool reduce_generatable(const FusedProgram& p, size_t k) {
  const FusedInstr& in = p.code[k];
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
  // Outputs are registers computed here (an input stored again has no place in the kernel).
  for (uint16_t o : p.outputs)
    if (o < p.num_inputs || o >= p.reg_dtype.size()) return false;
  return true;
}

bool anchor_generatable(const FusedProgram& p, size_t sk) {
  if (sk != 0) return false;
  const FusedInstr& in = p.code[0];
  if (in.n_args != (in.op == OpId::matmul ? 2 : 3)) return false;
  const DType r = p.reg_dtype[p.num_inputs];
  if (!gpu_float(r)) return false;
  for (size_t q = 0; q < in.n_args; ++q) {
    if (q == 2 && in.args[q] == kNoRegister) continue;
    if (in.args[q] >= p.num_inputs || p.reg_dtype[in.args[q]] != r) return false;
  }
  for (uint16_t o : p.outputs)
    if (o < p.num_inputs || o >= p.reg_dtype.size()) return false;
  // The kernel's own output is one of the anchor's dtype.
  for (uint16_t o : p.outputs)
    if (p.reg_dtype[o] == r) return true;
  return false;
}

int64_t reduce_line_length(const FusedProgram& p, const FusedInstr& red) {
  const char* name = op_info(red.op).name;
  const Shape& shape = p.shape;
  const size_t rank = shape.rank();
  if (red.op == OpId::layer_norm || red.op == OpId::rms_norm) {
    if (red.dim == 0 || red.dim > rank)
      throw Error(name, "internal: a fused norm over " + std::to_string(red.dim) + " dims of a program of shape " +
                            shape.to_string());
    int64_t n = 1;
    for (size_t d = rank - red.dim; d < rank; ++d) n *= shape[d];
    return n;
  }
  check_dim(name, shape, red.dim);
  return shape[red.dim];
}

bool instructions_generatable(const FusedProgram& p, size_t sk) {
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
    const std::optional<Expr> e = fused_expr(in, p.reg_dtype);
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
    const std::optional<Expr> e = fused_expr(in, p.reg_dtype);
    const DType sd = e && e->scalar_i64 ? DType::I64 : a;
    for (int k = 0; k < 2; ++k) {
      const Scalar s = kernel_scalar(in, a, k).value_or(Scalar());
      const uint64_t bits = scalar_bits(s, sd);
      std::memcpy(out.data() + j * 16 + k * 8, &bits, 8);
    }
  }
  return out;
}

std::string decode_scalar(DType d, const std::string& bits) { return replace_all(scalar_decoder(d), "bits", bits); }

void emit_instr(std::ostream& s, const FusedProgram& p, size_t j, const FusedSpelling& sp,
                const std::function<std::string(size_t)>& word) {
  const FusedInstr& in = p.code[j];
  const size_t r = p.num_inputs + j;
  const DType a = p.reg_dtype[in.args[0]];
  const std::optional<Expr> e = fused_expr(in, p.reg_dtype);
  const DType sd = e->scalar_i64 ? DType::I64 : a;
  const std::string rt = sp.compute(p.reg_dtype[r]), at = sp.compute(a), st = sp.compute(sd);
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
    s << " const " << sp.compute(p.reg_dtype[in.args[k]]) << " " << kNames[k] << " = r" << in.args[k] << ";";
  for (int k = 0; k < e->scalars; ++k)
    s << " const " << st << " s" << k << " = CVT(" << st << ", " << decode_scalar(sd, word(j * 2 + k)) << ");";
  s << " r" << r << " = CVT(" << rt << ", " << concrete(with_literals(e->text, a, sp.dialect)) << "); }";
}

std::string fused_input(size_t k) { return "IN" + std::to_string(k); }
std::string fused_output(size_t m) { return "OUT" + std::to_string(m); }
std::string fused_result() { return "RES"; }

std::string fused_input_offset(int mode, size_t k, size_t rank, const std::string& lay, const std::string& i) {
  if (mode == 0) return i;
  if (mode == 1) return "CVT(idx_t, 0)";
  return "strided_offset(INDEX_BLOCK(" + lay + "), 0, " + std::to_string((k + 1) * rank) + ", " + std::to_string(rank) +
         ", " + i + ")";
}

std::string generate_elementwise(const FusedProgram& p, const FusedSpelling& sp) {
  std::ostringstream s;
  s << "// generated by burn-gpu/src/fused.cpp\n";
  for (size_t k = 0; k < p.num_inputs; ++k) s << "#define " << fused_input(k) << "_SLOT " << k << "\n";
  for (size_t m = 0; m < p.outputs.size(); ++m)
    s << "#define " << fused_output(m) << "_SLOT " << p.num_inputs + m << "\n";
  s << "KERNEL_PARAMS\n  PARAM_TENSOR_TABLE(io)\n";
  for (size_t k = 0; k < p.num_inputs; ++k) s << "  TABLE_TENSOR(" << fused_input(k) << ")\n";
  for (size_t m = 0; m < p.outputs.size(); ++m) s << "  TABLE_TENSOR(" << fused_output(m) << ")\n";
  s << "  PARAM_WORDS(scal)\n  PARAM_FAULTS(faults)\n  PARAM(int64_t, n)\n  PARAM_INDEX(lay)\n  PARAM(uint, tag)\n"
       "KERNEL_MAIN {\n"
       "  for (idx_t i = gid(); i < CVT(idx_t, ARG(n)); i += gstride()) {\n";
  // Loads of the inputs some instruction reads or an output stores again.
  std::vector<bool> used(p.num_inputs, false);
  for (const FusedInstr& in : p.code)
    for (uint8_t k = 0; k < in.n_args; ++k)
      if (in.args[k] < p.num_inputs) used[in.args[k]] = true;
  for (uint16_t o : p.outputs)
    if (o < p.num_inputs) used[o] = true;
  for (size_t k = 0; k < p.num_inputs; ++k)
    if (used[k]) {
      const std::string x = fused_input(k);
      s << "    const " << sp.compute(p.reg_dtype[k]) << " r" << k << " = TLOAD(" << x << ", OFFSET(" << x
        << ", i));\n";
    }
  auto word = [](size_t k) { return "WORD_AT(scal, " + std::to_string(k) + ")"; };
  for (size_t j = 0; j < p.code.size(); ++j) {
    s << "    ";
    emit_instr(s, p, j, sp, word);
    s << "\n";
  }
  for (size_t m = 0; m < p.outputs.size(); ++m)
    s << "    TSTORE(" << fused_output(m) << ", i, r" << p.outputs[m] << ");\n";
  s << "  }\n}\n";
  return s.str();
}

}  // namespace burn::gpu
