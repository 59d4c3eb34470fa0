// The kernel of a fused reduce program, in the dialect: line j of the reduce (its elements k at flat index
// (j / inner) * total * inner + k * inner + j % inner of the program's shape) folds the prologue computed
// per element, pro(f), then the epilogue runs per result, epi(e, value): at e = j for sum_dim, mean_dim,
// max_dim, min_dim, argmax and argmin (the result shape has dim of size 1, so the line index is its flat
// index), at every f of the line for softmax, log_softmax, layer_norm and rms_norm. The folds are the eager
// kernels' (the plugins' reduce folds, kernels/softmax.kernel, kernels/norm.kernel) with the same init, step,
// finish and NaN rules: an invocation per line folding in order (CPU-type devices), or a workgroup per line
// striding it with a workgroup tree (GPUs). Multi-pass folds (softmax's max then sum, a norm's mean then
// variance) compute the prologue again in each pass: it is elementwise, so it gives the same values.
// pro and epi are blocks written out at each use, not functions: an OpenCL C function does not see the
// kernel's arguments.
#include <sstream>

#include "burn/gpu/fused.hpp"
#include "burn/tensor/error.hpp"

namespace burn::gpu {

namespace {

// Input k's offset for flat index i: its mode (0 contiguous, 1 broadcast, 2 strided) over the layout block
// `lay` of `rank` dims (its strides after the shape, a block of rank entries per input).
std::string input_offset(int mode, size_t k, size_t rank, const std::string& lay, const std::string& i) {
  if (mode == 0) return i;
  if (mode == 1) return "CVT(idx_t, 0)";
  return "strided_offset(INDEX_BLOCK(" + lay + "), 0, " + std::to_string((k + 1) * rank) + ", " +
         std::to_string(rank) + ", " + i + ")";
}

// The strides over `shape` of the inputs in `used` (zeros for the others, which that layout never reads).
Layout layout_of(const std::vector<View>& in, const std::vector<bool>& used, const Shape& shape) {
  std::vector<std::vector<int64_t>> strides;
  for (size_t k = 0; k < in.size(); ++k)
    strides.push_back(used[k] ? broadcast_strides(in[k].shape, in[k].strides, shape)
                              : std::vector<int64_t>(shape.rank(), 0));
  return collapse(shape, strides);
}

}  // namespace

std::vector<bool> inputs_read(const FusedProgram& p, size_t from, size_t to) {
  std::vector<bool> used(p.num_inputs, false);
  for (size_t k = from; k < to; ++k)
    for (uint8_t q = 0; q < p.code[k].n_args; ++q)
      if (p.code[k].args[q] < p.num_inputs) used[p.code[k].args[q]] = true;
  return used;
}

std::vector<int> modes_of(const Layout& l, const std::vector<bool>& used) {
  std::vector<int> m;
  for (size_t k = 0; k < used.size(); ++k) m.push_back(used[k] ? l.mode(k) : -1);
  return m;
}

ReducePlan plan_reduce(const FusedProgram& p, const std::vector<View>& in) {
  const size_t rk = special_index(p);
  const FusedInstr& red = p.code[rk];
  const char* name = op_info(red.op).name;
  const bool keeps = fused_reduce_keeps_shape(red.op);
  const bool norm = red.op == OpId::layer_norm || red.op == OpId::rms_norm;
  const Shape& shape = p.shape;
  ReducePlan r;
  r.n = reduce_line_length(p, red);
  for (size_t d = red.dim + 1; !norm && d < shape.rank(); ++d) r.inner *= shape[d];
  const int64_t total = shape.num_elements();
  // The fusion stream records no reduction of an empty tensor (it runs them eagerly, for their errors).
  if (total == 0) throw Error(name, "internal: a fused reduction over an empty tensor of shape " + shape.to_string());
  r.lines = r.n == 0 ? 0 : total / r.n;
  r.result_shape = keeps ? shape : with_dim(shape, red.dim, 1);
  // A norm's weight and bias are read whole, element k of the line at k.
  for (size_t q = 1; norm && q < red.n_args; ++q) {
    const uint16_t w = red.args[q];
    if (w != kNoRegister && in[w].shape.num_elements() != r.n)
      throw Error(name, "internal: a fused norm's weight or bias of shape " + in[w].shape.to_string() +
                            " does not match the " + std::to_string(r.n) + " normalized elements");
  }
  std::vector<bool> over_shape = inputs_read(p, 0, rk), epi_in = inputs_read(p, rk + 1, p.code.size());
  if (red.args[0] < p.num_inputs) over_shape[red.args[0]] = true;
  if (keeps)
    for (size_t k = 0; k < p.num_inputs; ++k) over_shape[k] = over_shape[k] || epi_in[k];
  r.lay = layout_of(in, over_shape, shape);
  r.elay = keeps ? collapse(Shape{}, {std::vector<int64_t>{}}) : layout_of(in, epi_in, r.result_shape);
  const bool index64 = r.lay.index64 || r.elay.index64 || total >= (int64_t{1} << 31);
  r.lay.index64 = r.elay.index64 = index64;
  r.launch.modes = modes_of(r.lay, over_shape);
  r.launch.rank = r.lay.rank();
  if (!keeps) {
    r.launch.emodes = modes_of(r.elay, epi_in);
    r.launch.erank = r.elay.rank();
  }
  return r;
}

std::string generate_reduce(const FusedProgram& p, const ReduceLaunch& l, const FusedFold& fold,
                            const FusedSpelling& sp) {
  const size_t rk = special_index(p);
  const FusedInstr& red = p.code[rk];
  const uint16_t rr = static_cast<uint16_t>(p.num_inputs + rk);
  const DType a = p.reg_dtype[red.args[0]];
  const std::string at = sp.compute(a), rt = sp.compute(p.reg_dtype[rr]);
  const bool keeps = fused_reduce_keeps_shape(red.op);
  const bool norm = red.op == OpId::layer_norm || red.op == OpId::rms_norm;
  const bool arg = red.op == OpId::argmax || red.op == OpId::argmin;

  std::ostringstream s;
  s << "// generated by burn-gpu/src/fused_reduce.cpp\n";
  for (size_t k = 0; k < p.num_inputs; ++k) s << "#define " << fused_input(k) << "_SLOT " << k << "\n";
  for (size_t m = 0; m < p.outputs.size(); ++m)
    s << "#define " << fused_output(m) << "_SLOT " << p.num_inputs + m << "\n";
  // The fold's accumulator: the eager reduction's, the float compute type for softmax and the norms.
  if (!keeps) {
    s << "#define ACC " << fold.acc << "\n#define INIT " << fold.init << "\n";
    if (arg)
      s << "#define BETTER(v, w) " << fold.better << "\n";
    else
      s << "#define STEP(a, b) " << fold.step << "\n#define FINISH(a) " << fold.finish << "\n";
  } else {
    s << "#define ACC " << at << "\n";
  }
  // The line walk: an invocation per line (J0 0, JS 1) or a workgroup per line (J0 its invocation, JS WG_X).
  if (l.tree)
    s << "#define J0 CVT(idx_t, lid())\n#define JS CVT(idx_t, WG_X)\n#define LINE_FIRST group_id()\n"
         "#define LINE_STEP group_stride()\n#define LEADER (lid() == 0u)\n";
  else
    s << "#define J0 CVT(idx_t, 0)\n#define JS CVT(idx_t, 1)\n#define LINE_FIRST gid()\n#define LINE_STEP gstride()\n"
         "#define LEADER true\n";
  std::string arrays;
  if (arg) {
    // The eager argmax's order: strictly better, or equal (both NaN included) with the lower index.
    s << "bool arg_wins(ACC av, int64_t ai, ACC bv, int64_t bi) {\n"
         "  if (BETTER(av, bv)) return true;\n  if (BETTER(bv, av)) return false;\n  return ai < bi;\n}\n";
    if (l.tree) arrays = "SHARED_ARRAY(ACC, s_v, WG_X) SHARED_ARRAY(int64_t, s_i, WG_X)";
  } else if (l.tree) {
    arrays = "SHARED_ARRAY(ACC, s_a, WG_X)";
    if (keeps) s << "ACC fused_add(ACC x, ACC y) { return x + y; }\n";
  }
  if (!arrays.empty()) s << "SHARED_ARRAYS_FILE(" << arrays << ")\n";

  s << "KERNEL_PARAMS\n  PARAM_TENSOR_TABLE(io)\n";
  for (size_t k = 0; k < p.num_inputs; ++k) s << "  TABLE_TENSOR(" << fused_input(k) << ")\n";
  for (size_t m = 0; m < p.outputs.size(); ++m) s << "  TABLE_TENSOR(" << fused_output(m) << ")\n";
  s << "  PARAM_WORDS(scal)\n  PARAM_FAULTS(faults)\n  PARAM_INDEX(lay)\n  PARAM_INDEX(elay)\n"
       "  PARAM(int64_t, lines)\n  PARAM(int64_t, total)\n  PARAM(int64_t, inner)\n  PARAM(uint, tag)\n"
       "KERNEL_MAIN {\n";
  if (!arrays.empty()) s << "  SHARED_ARRAYS_KERNEL(" << arrays << ")\n";

  std::vector<bool> pro_in(p.num_inputs, false), epi_in(p.num_inputs, false);
  for (size_t k = 0; k < p.code.size(); ++k) {
    if (k == rk) continue;
    for (uint8_t q = 0; q < p.code[k].n_args; ++q)
      if (p.code[k].args[q] < p.num_inputs) (k < rk ? pro_in : epi_in)[p.code[k].args[q]] = true;
  }
  if (red.args[0] < p.num_inputs) pro_in[red.args[0]] = true;
  auto word = [](size_t k) { return "WORD_AT(scal, " + std::to_string(k) + ")"; };
  auto load = [&](size_t k, const std::string& off) {
    return "const " + sp.compute(p.reg_dtype[k]) + " r" + std::to_string(k) + " = TLOAD(" + fused_input(k) + ", " +
           off + ");";
  };

  // pro: `target = ` the reduce's operand at flat index `f` (as ACC); store: the prologue's outputs are
  // written too.
  auto pro = [&](const std::string& f, bool store, const std::string& target) {
    std::ostringstream b;
    b << "{ const idx_t f = " << f << ";";
    for (size_t k = 0; k < p.num_inputs; ++k)
      if (pro_in[k]) b << " " << load(k, input_offset(l.modes[k], k, l.rank, "lay", "f"));
    for (size_t j = 0; j < rk; ++j) {
      b << " ";
      emit_instr(b, p, j, sp, word);
    }
    for (size_t m = 0; store && m < p.outputs.size(); ++m)
      if (p.outputs[m] < rr) b << " TSTORE(" << fused_output(m) << ", f, r" << p.outputs[m] << ");";
    b << " " << target << " = CVT(ACC, r" << red.args[0] << "); }";
    return b.str();
  };
  // epi: the reduce's result `v` at index `e` of its shape, then the epilogue and the stores.
  auto epi = [&](const std::string& e, const std::string& v) {
    std::ostringstream b;
    b << "{ const idx_t e = " << e << ";";
    for (size_t k = 0; k < p.num_inputs; ++k)
      if (epi_in[k])
        b << " "
          << load(k, keeps ? input_offset(l.modes[k], k, l.rank, "lay", "e")
                           : input_offset(l.emodes[k], k, l.erank, "elay", "e"));
    // As the eager op stored it (an f16 result rounded to f16).
    b << " const " << rt << " r" << rr << " = " << fused_result() << "_FROM(" << fused_result() << "_TO(" << v
      << "));";
    for (size_t j = rk + 1; j < p.code.size(); ++j) {
      b << " ";
      emit_instr(b, p, j, sp, word);
    }
    for (size_t m = 0; m < p.outputs.size(); ++m)
      if (p.outputs[m] >= rr) b << " TSTORE(" << fused_output(m) << ", e, r" << p.outputs[m] << ");";
    b << " }";
    return b.str();
  };

  // (Locals never take an argument's name: in OpenCL C the arguments are the kernel's parameters.)
  s << "  const idx_t len = CVT(idx_t, ARG(total)), istride = CVT(idx_t, ARG(inner));\n"
       "  for (idx_t j = LINE_FIRST; j < CVT(idx_t, ARG(lines)); j += LINE_STEP) {\n"
       "    const idx_t base = (j / istride) * len * istride + j % istride;\n";
  const std::string at_k = "base + k * istride";
  if (arg) {
    s << "    ACC bv = INIT;\n    int64_t bi = 0x7fffffffffffffffl;\n"
         "    for (idx_t k = J0; k < len; k += JS) {\n      ACC v;\n      "
      << pro(at_k, true, "v")
      << "\n      if (arg_wins(v, CVT(int64_t, k), bv, bi)) { bv = v; bi = CVT(int64_t, k); }\n    }\n";
    if (l.tree)
      s << "    const uint t = lid();\n    s_v[t] = bv;\n    s_i[t] = bi;\n    BARRIER();\n"
           "    for (uint w = CVT(uint, WG_X) / 2u; w > 0u; w >>= 1) {\n"
           "      if (t < w && arg_wins(s_v[t + w], s_i[t + w], s_v[t], s_i[t])) { s_v[t] = s_v[t + w]; s_i[t] = "
           "s_i[t + w]; }\n      BARRIER();\n    }\n    bi = s_i[0];\n";
    s << "    if (LEADER) " << epi("j", "bi") << "\n";
    if (l.tree) s << "    BARRIER();\n";
  } else if (!keeps) {
    s << "    ACC acc = INIT;\n    for (idx_t k = J0; k < len; k += JS) {\n      ACC v;\n      " << pro(at_k, true, "v")
      << "\n      acc = STEP(acc, v);\n    }\n";
    if (l.tree) s << "    const uint t = lid();\n    WG_REDUCE(s_a, t, acc, acc, STEP)\n";
    s << "    if (LEADER) " << epi("j", "CVT(" + rt + ", FINISH(acc))") << "\n";
  } else {
    auto wg = [&](const std::string& v, const char* combine) {
      return l.tree ? "    WG_REDUCE(s_a, lid(), " + v + ", " + v + ", " + combine + ")\n" : std::string();
    };
    if (!norm) {
      const bool log = red.op == OpId::log_softmax;
      s << "    ACC m = -CVT(ACC, F32_INF);\n    for (idx_t k = J0; k < len; k += JS) {\n      ACC v;\n      "
        << pro(at_k, true, "v") << "\n      m = b_max(m, v);\n    }\n"
        << wg("m", "b_max") << "    ACC se = CVT(ACC, 0);\n    for (idx_t k = J0; k < len; k += JS) {\n      ACC v;\n      "
        << pro(at_k, false, "v") << "\n      se += b_exp(v - m);\n    }\n"
        << wg("se", "fused_add") << "    const ACC q = " << (log ? "b_log(se)" : "CVT(ACC, 1) / se")
        << ";\n    for (idx_t k = J0; k < len; k += JS) {\n      ACC x;\n      " << pro(at_k, false, "x")
        << "\n      " << epi(at_k, log ? "(x - m) - q" : "b_exp(x - m) * q") << "\n    }\n";
    } else {
      const bool rms = red.op == OpId::rms_norm;
      auto param = [&](size_t q) -> std::string {
        if (q >= red.n_args || red.args[q] == kNoRegister) return "";
        return "CVT(ACC, TLOAD(" + fused_input(red.args[q]) + ", k))";
      };
      s << "    const ACC eps = CVT(ACC, " << decode_scalar(a, word(2 * rk)) << ");\n    ACC mean = CVT(ACC, 0);\n";
      if (!rms)
        s << "    ACC sx = CVT(ACC, 0);\n    for (idx_t k = J0; k < len; k += JS) {\n      ACC v;\n      "
          << pro(at_k, true, "v") << "\n      sx += v;\n    }\n"
          << wg("sx", "fused_add") << "    mean = sx / CVT(ACC, len);\n";
      s << "    ACC sq = CVT(ACC, 0);\n    for (idx_t k = J0; k < len; k += JS) {\n      ACC v;\n      "
        << pro(at_k, rms, "v") << "\n      const ACC d = v - mean;\n      sq += d * d;\n    }\n"
        << wg("sq", "fused_add") << "    const ACC rstd = CVT(ACC, 1) / sqrt(sq / CVT(ACC, len) + eps);\n"
        << "    for (idx_t k = J0; k < len; k += JS) {\n      ACC x;\n      " << pro(at_k, false, "x")
        << "\n      ACC y = (x - mean) * rstd;\n";
      if (const std::string w = param(1); !w.empty()) s << "      y *= " << w << ";\n";
      if (const std::string b = param(2); !b.empty()) s << "      y += " << b << ";\n";
      s << "      " << epi(at_k, "y") << "\n    }\n";
    }
  }
  s << "  }\n}\n";
  return s.str();
}

}  // namespace burn::gpu
