// The kernel variants of each launcher family, for the compile-everything test.
#include "kernel_variants.hpp"

#include <set>
#include <string_view>

#include "burn/gpu/exprs.hpp"
#include "burn/gpu/views.hpp"
#include "burn/tensor/fused.hpp"
#include "dispatch.hpp"
#include "fused/codegen.hpp"
#include "ops/creation.hpp"
#include "ops/elementwise.hpp"
#include "ops/indexing.hpp"
#include "ops/matmul.hpp"
#include "ops/nn.hpp"
#include "ops/reduce.hpp"

namespace burn::vulkan {

using gpu::elementwise_expr;
using gpu::Expr;
using gpu::scalar_bits;
using gpu::scalar_decoder;

namespace {

constexpr DType kDtypes[] = {DType::F32, DType::F64, DType::F16, DType::BF16, DType::I64,
                             DType::I32, DType::I8,  DType::U8,  DType::Bool};
const std::string kDevice = "compile test";

Defines with_workgroup(Defines d, uint32_t x = 256) {
  d.emplace_back("WG_X", std::to_string(x));
  d.emplace_back("WG_Y", "1");
  d.emplace_back("WG_Z", "1");
  return d;
}

bool supported(DType d, const DeviceFeatures& f) {
  try {
    glsl_type(d, f, kDevice, "compile test");
    return true;
  } catch (const Error&) {
    return false;
  }
}

void elementwise(std::vector<KernelVariant>& out, const DeviceFeatures& f) {
  for (size_t i = 0; i < kOpCount; ++i) {
    const OpId op = static_cast<OpId>(i);
    for (DType d : kDtypes) {
      const std::optional<Expr> e = elementwise_expr(op, d);
      if (!e || !supported(d, f)) continue;
      const size_t n = static_cast<size_t>(e->arity);
      // Every operand strided over rank 3, and the contiguous / broadcast-scalar paths over rank 1.
      std::vector<int> strided(n, 2), direct(n, 0);
      if (n > 1) direct[1] = 1;
      out.push_back({"elementwise", with_workgroup(elementwise_defines(op, d, strided, 3, false, f, kDevice)), {}});
      out.push_back({"elementwise", with_workgroup(elementwise_defines(op, d, direct, 1, true, f, kDevice)), {}});
    }
  }
}

void copies(std::vector<KernelVariant>& out, const DeviceFeatures& f) {
  for (DType from : kDtypes)
    for (DType to : kDtypes) {
      if (!supported(from, f) || !supported(to, f)) continue;
      for (int mode : {0, 2}) {
        Defines d;
        add_operand_defines(d, "X", from, f, kDevice, "cast");
        add_operand_defines(d, "Y", to, f, kDevice, "cast");
        add_layout_defines(d, {mode, mode}, 2, false, {"X", "Y"});
        d.emplace_back("ITEMS", std::to_string(gpu::kItemsPerInvocation));
        if (to == DType::Bool && from != DType::Bool) d.emplace_back("TO_BOOL", "1");
        if (is_float(from) && is_int(to)) d.emplace_back("TO_INT", "1");
        out.push_back({"copy", with_workgroup(std::move(d)), {}});
      }
    }
  for (DType to : kDtypes) {
    if (!supported(to, f)) continue;
    Defines d;
    add_operand_defines(d, "Y", to, f, kDevice, "full");
    d.emplace_back("SCALAR(bits)", scalar_decoder(to));
    out.push_back({"fill", with_workgroup(std::move(d)), {}});
  }
}

FusedInstr fused_instr(OpId op, uint16_t a, uint16_t b, uint8_t n, uint32_t dim = 0) {
  FusedInstr in;
  in.op = op;
  in.args[0] = a;
  in.args[1] = b;
  in.n_args = n;
  in.dim = dim;
  return in;
}

// Every reduce a fused program may hold, for each dtype it takes, in both kernel modes (an invocation per
// line, a workgroup per line), as the executor launches them (fused/executor.cpp): a prologue over a
// strided and a broadcast input, an epilogue reading a broadcast input, every register stored.
void fused_reduces(std::vector<KernelVariant>& out, const DeviceFeatures& f) {
  const OpId ops[] = {OpId::sum_dim, OpId::mean_dim, OpId::max_dim,     OpId::min_dim,    OpId::argmax,
                      OpId::argmin,  OpId::softmax,  OpId::log_softmax, OpId::layer_norm, OpId::rms_norm};
  for (DType d : {DType::F32, DType::F64, DType::F16, DType::I64, DType::I32}) {
    if (!supported(d, f)) continue;
    for (OpId op : ops) {
      const bool keeps = fused_reduce_keeps_shape(op), norm = op == OpId::layer_norm || op == OpId::rms_norm;
      const bool arg = op == OpId::argmax || op == OpId::argmin;
      if (keeps && (d == DType::I64 || d == DType::I32)) continue;
      FusedProgram p;
      p.shape = Shape{4, 3, 8};
      p.num_inputs = norm ? 5 : 3;  // x, a broadcast operand, an epilogue operand (norms: weight, bias)
      p.reg_dtype.assign(p.num_inputs, d);
      p.code.push_back(fused_instr(OpId::mul, 0, 1, 2));  // r_n
      const uint16_t pre = static_cast<uint16_t>(p.num_inputs);
      FusedInstr r = fused_instr(op, pre, 0, 1, norm ? 2 : 1);
      if (norm) {
        r.args[1] = 3;
        r.args[2] = op == OpId::layer_norm ? 4 : kNoRegister;
        r.n_args = op == OpId::layer_norm ? 3 : 2;
        r.params[0] = 1e-5;
      }
      p.code.push_back(r);
      const uint16_t rr = static_cast<uint16_t>(pre + 1);
      p.reg_dtype.push_back(d);
      p.reg_dtype.push_back(arg ? DType::I64 : d);
      p.outputs = {pre, rr};
      if (!arg) {
        p.code.push_back(fused_instr(OpId::add, rr, 2, 2));
        p.reg_dtype.push_back(d);
        p.outputs.push_back(static_cast<uint16_t>(rr + 1));
      }
      for (bool tree : {false, true}) {
        ReduceLaunch l;
        l.modes.assign(p.num_inputs, -1);
        l.modes[0] = 2;
        l.modes[1] = 1;
        l.rank = 3;
        l.tree = tree;
        if (keeps) {
          l.modes[2] = 2;
        } else {
          l.emodes.assign(p.num_inputs, -1);
          l.emodes[2] = 2;
          l.erank = 2;
        }
        Defines defs;
        add_fused_operand_defines(defs, p, f, kDevice);
        if (tree) defs.emplace_back("INDEX64", "1");
        out.push_back(
            {"fused", with_workgroup(std::move(defs), tree ? kFusedTreeGroup : 64), generate_reduce(p, l, f, kDevice)});
      }
    }
  }
}

// A matmul anchor with an epilogue (+ a broadcast bias, gelu, the product kept as a second output) through the
// EPILOGUE_STORE hook, on every GEMM kernel (matmul.kernel's two for each float dtype, matmul_coop.comp's f16).
void fused_matmuls(std::vector<KernelVariant>& out, const DeviceFeatures& f) {
  DeviceProfile cpu, gpu;
  cpu.type = VK_PHYSICAL_DEVICE_TYPE_CPU;
  cpu.limits.max_workgroup_invocations = 1024;
  cpu.limits.max_workgroup_size = {1024, 1024, 64};
  cpu.limits.max_shared_memory = 32768;
  gpu = cpu;
  gpu.type = VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
  gpu.limits.max_shared_memory = 49152;
  gpu.limits.subgroup_size = 32;
  DeviceProfile coop = gpu;
  coop.features = f;
  coop.features.cooperative_matrix = true;
  coop.limits.coopmat_f16 = {16, 16, 16};
  for (DType d : {DType::F32, DType::F64, DType::F16}) {
    if (!supported(d, f)) continue;
    FusedProgram p;
    p.shape = Shape{2, 7, 5};
    p.num_inputs = 3;
    p.reg_dtype = {d, d, d, d, d, d};
    p.code = {fused_instr(OpId::matmul, 0, 1, 2), fused_instr(OpId::add, 3, 2, 2), fused_instr(OpId::gelu, 4, 0, 1)};
    p.outputs = {5, 3};
    const AnchorEpilogue e = anchor_epilogue(p, 0, {-1, -1, 2}, 2, f, kDevice);
    std::vector<std::pair<const DeviceProfile*, GemmKernel>> kernels{{&cpu, GemmKernel::register_blocked},
                                                                     {&gpu, GemmKernel::shared_tiled}};
    if (d == DType::F16) kernels.emplace_back(&coop, GemmKernel::cooperative_matrix);
    for (auto [profile, kernel] : kernels) {
      const GemmTiles t = gemm_tiles(*profile, kernel, dtype_size(d) == 8 ? 8 : 4);
      Defines g = gemm_defines(d, kernel, t, {0, 2}, 1, false, "", f, kDevice);
      g.insert(g.end(), e.defines.begin(), e.defines.end());
      g.emplace_back("WG_X", std::to_string(t.wg_x));
      g.emplace_back("WG_Y", std::to_string(t.wg_y));
      g.emplace_back("WG_Z", "1");
      out.push_back({gemm_source(kernel), std::move(g), {}});
    }
  }
}

void fused(std::vector<KernelVariant>& out, const DeviceFeatures& f) {
  // A chain over two broadcast inputs with a scalar op, a comparison, a mask and a cast: one kernel per
  // float dtype the device has.
  for (DType d : {DType::F32, DType::F64, DType::F16}) {
    if (!supported(d, f)) continue;
    FusedProgram p;
    p.shape = Shape{4, 3};
    p.num_inputs = 2;
    p.reg_dtype = {d, d, d, d, DType::Bool, d, DType::I32};
    auto instr = [](OpId op, uint16_t a, uint16_t b, uint16_t c, uint8_t n) {
      FusedInstr in;
      in.op = op;
      in.args[0] = a;
      in.args[1] = b;
      in.args[2] = c;
      in.n_args = n;
      return in;
    };
    p.code.push_back(instr(OpId::mul, 0, 1, 0, 2));           // r2
    p.code.push_back(instr(OpId::gelu, 2, 0, 0, 1));          // r3
    p.code.push_back(instr(OpId::greater_elem, 3, 0, 0, 1));  // r4
    p.code.push_back(instr(OpId::mask_where, 3, 4, 0, 3));    // r5 = r4 ? r0 : r3
    FusedInstr cast = instr(OpId::cast, 5, 0, 0, 1);
    cast.param_dtype = DType::I32;
    p.code.push_back(cast);  // r6
    p.outputs = {5, 6};
    Defines defs;
    add_layout_defines(defs, {2, 1}, 2, false, {"IN0", "IN1"});
    add_fused_operand_defines(defs, p, f, kDevice);
    out.push_back({"fused", with_workgroup(std::move(defs)), generate_elementwise(p, f, kDevice)});
  }
  fused_reduces(out, f);
  fused_matmuls(out, f);
}

// Whether `f` runs without a burn::Error: a launcher's check accepting a dtype.
template <class F>
bool accepts(F&& f) {
  try {
    f();
    return true;
  } catch (const Error&) {
    return false;
  }
}

// The indexing launchers (ops/indexing.cpp, ops/creation.cpp): gathers move raw bits (one pipeline per
// element width), scatters sum per dtype, argwhere's three passes, arange and random per target dtype.
// Each over i64 and i32 indices, contiguous with 32-bit and strided with 64-bit offsets.
void indexing(std::vector<KernelVariant>& out, const DeviceFeatures& f) {
  for (DType d : kDtypes) {
    if (!supported(d, f)) continue;
    for (DType index : {DType::I64, DType::I32})
      for (int mode : {0, 2}) {
        const bool wide = mode == 2;
        out.push_back(
            {"indexing", with_workgroup(gather_defines(d, index, {mode, mode}, 2, wide, f, kDevice, "gather")), {}});
        if (accepts([&] { scatter_defines(d, index, {0, 0, 0}, 1, false, f, kDevice, "scatter_add"); }))
          out.push_back({"indexing",
                         with_workgroup(scatter_defines(d, index, {mode, 1, mode}, 2, wide, f, kDevice, "scatter_add"),
                                        kScatterGroup),
                         {}});
      }
    for (ArgwherePass pass : {ArgwherePass::count, ArgwherePass::write}) {
      out.push_back(
          {"argwhere", with_workgroup(argwhere_defines(pass, d, 2, 3, false, f, kDevice), kArgwhereGroup), {}});
      out.push_back(
          {"argwhere", with_workgroup(argwhere_defines(pass, d, 0, 1, true, f, kDevice), kArgwhereGroup), {}});
    }
    if (accepts([&] { arange_length(0, 1, 1, d, "arange"); }))
      out.push_back({"arange", with_workgroup(arange_defines(d, f, kDevice)), {}});
    if (accepts([&] { check_random_dtype(d, f, kDevice); })) {
      const bool fl = d == DType::F32 || d == DType::F64 || d == DType::F16;
      for (const char* kind : {"KIND_UNIFORM_FLOAT", "KIND_UNIFORM_INT", "KIND_NORMAL", "KIND_BERNOULLI"}) {
        const std::string_view k = kind;
        if ((k == "KIND_UNIFORM_FLOAT" && !fl) || (k == "KIND_UNIFORM_INT" && fl)) continue;
        // Integer and bool draws in double where the device has shaderFloat64, else in float.
        for (bool r64 : {true, false})
          if (r64 == (d == DType::F64) || !fl)
            out.push_back({"random", with_workgroup(random_defines(d, kind, r64, f, kDevice)), {}});
      }
    }
  }
  for (bool wide : {false, true})
    out.push_back(
        {"argwhere",
         with_workgroup(argwhere_defines(ArgwherePass::scan, DType::F32, 0, 0, wide, f, kDevice), kArgwhereGroup),
         {}});
}

// The reduce family (ops/reduce.cpp, scan.cpp, sort.cpp). Every fold on every dtype it takes, in each
// pass kind (first or later, last or partial, a workgroup or an invocation per chunk), the layouts, the
// reduced dims' rank and the index width spread over those passes; scans blocked and by lines; the sort's
// bitonic network at a CPU-type device's and a GPU's shared-memory capacity, its runs and merges.
void reduce_family(std::vector<KernelVariant>& out, const DeviceFeatures& f) {
  struct PassLayout {
    int x_mode;
    size_t rank;
    bool index64;
  };
  // Passes after the first read partial states along contiguous rows of `chunks` (mode 2 over one dim,
  // or mode 1 for a single line); first passes read any view.
  const PassLayout first_shapes[] = {{2, 2, false}, {0, 1, true}, {1, 0, false}, {2, 3, true}};
  const PassLayout later_shapes[] = {{2, 1, false}, {1, 0, true}};
  constexpr OpId kFolds[] = {OpId::sum, OpId::mean, OpId::prod,   OpId::max,    OpId::min,
                             OpId::any, OpId::all,  OpId::argmax, OpId::argmin, OpId::var};
  // Every pass kind of a spec (row passes only, for features that change nothing else).
  auto passes = [&](const ReduceSpec& spec, const DeviceFeatures& feats, bool rows_only) {
    size_t k = 0;
    for (bool first : {true, false})
      for (bool last : {true, false})
        for (bool row : {false, true}) {
          if (rows_only && !row) continue;
          const PassLayout& l = first ? first_shapes[k++ % 4] : later_shapes[k++ % 2];
          // An arg reduction's last passes alternate writing the values or not.
          const ReducePassKind kind{first, last, row, (k & 1) == 0};
          const Defines defs = reduce_pass_defines(spec, kind, l.x_mode, l.rank, l.index64, feats, kDevice);
          out.push_back({"reduce", with_workgroup(defs, kReduceGroup), {}});
        }
  };
  DeviceFeatures no_subgroups = f;
  no_subgroups.subgroup_arithmetic = false;
  for (OpId op : kFolds)
    for (DType d : kDtypes) {
      const char* name = op_info(op).name;
      if (!accepts([&] { reduce_spec(op, d, f, kDevice, name); })) continue;
      const ReduceSpec spec = reduce_spec(op, d, f, kDevice, name);
      passes(spec, f, false);
      // A device without subgroup arithmetic folds its rows with the shared-memory tree alone.
      if (!spec.subgroup.empty()) passes(reduce_spec(op, d, no_subgroups, kDevice, name), no_subgroups, true);
    }
  for (OpId scan : {OpId::cumsum, OpId::cumprod, OpId::cummax, OpId::cummin})
    for (DType d : kDtypes) {
      const char* name = op_info(scan).name;
      const OpId fold = scan_fold(scan);
      if (!accepts([&] { reduce_spec(fold, d, f, kDevice, name); })) continue;
      const ReduceSpec spec = reduce_spec(fold, d, f, kDevice, name);
      out.push_back({"scan", with_workgroup(scan_defines(spec, true, {0, 0}, 1, false, f, kDevice), kReduceGroup), {}});
      out.push_back(
          {"scan", with_workgroup(scan_defines(spec, false, {2, 0}, 2, true, f, kDevice), kScanLineGroup), {}});
    }
  DeviceLimits cpu, gpu;
  cpu.max_shared_memory = 32768;  // lavapipe
  gpu.max_shared_memory = 49152;
  for (DType d : kDtypes) {
    if (!accepts([&] { check_sortable(d, f, kDevice, "sort"); })) continue;
    for (const DeviceLimits* limits : {&cpu, &gpu}) {
      const uint32_t cap = sort_capacity(*limits, d);
      out.push_back(
          {"sort",
           with_workgroup(sort_defines(d, SortPass::bitonic, cap, {2, 0}, 2, limits == &gpu, f, kDevice, "sort"),
                          kSortGroup),
           {}});
    }
    for (SortPass pass : {SortPass::runs, SortPass::merge})
      for (bool wide : {false, true})
        out.push_back(
            {"sort",
             with_workgroup(sort_defines(d, pass, 0, {wide ? 2 : 0, 0}, wide ? 3 : 1, wide, f, kDevice, "sort"),
                            kSortLineGroup),
             {}});
  }
}

// Both GEMM kernels for every dtype matmul takes, with the tiles a CPU-type device and a GPU get, plain and
// with an epilogue, batch layouts contiguous and strided.
void gemm(std::vector<KernelVariant>& out, const DeviceFeatures& f) {
  DeviceProfile cpu, gpu;
  cpu.type = VK_PHYSICAL_DEVICE_TYPE_CPU;
  cpu.limits.max_workgroup_invocations = 1024;
  cpu.limits.max_workgroup_size = {1024, 1024, 64};
  cpu.limits.max_shared_memory = 32768;
  cpu.limits.subgroup_size = 8;
  gpu = cpu;
  gpu.type = VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
  gpu.limits.max_shared_memory = 49152;
  gpu.limits.subgroup_size = 32;
  for (DType d : kDtypes) {
    if (!accepts([&] { check_gemm_dtype(d, f, kDevice); })) continue;
    for (auto [profile, kernel] : {std::pair{&cpu, GemmKernel::register_blocked}, {&gpu, GemmKernel::shared_tiled}}) {
      const GemmTiles t = gemm_tiles(*profile, kernel, dtype_size(d) == 8 ? 8 : 4);
      const std::array<uint32_t, 3> local{t.wg_x, t.wg_y, 1};
      for (int mode : {0, 2}) {
        Defines g = gemm_defines(d, kernel, t, {mode, mode}, 2, mode == 2, mode == 2 ? "acc + 1" : "", f, kDevice);
        g.emplace_back("WG_X", std::to_string(local[0]));
        g.emplace_back("WG_Y", std::to_string(local[1]));
        g.emplace_back("WG_Z", "1");
        out.push_back({"matmul", std::move(g), {}});
      }
    }
  }
  // The cooperative-matrix kernel (f16) with the shapes NVIDIA lists for f16 x f16 + f32 (16 x 16 x 16,
  // 16 x 8 x 16), as the profile would give them.
  if (!supported(DType::F16, f)) return;
  DeviceProfile coop = gpu;
  coop.features = f;
  coop.features.cooperative_matrix = true;
  for (const std::array<uint32_t, 3> shape : {std::array<uint32_t, 3>{16, 16, 16}, {16, 8, 16}}) {
    coop.limits.coopmat_f16 = shape;
    const GemmTiles t = gemm_tiles(coop, GemmKernel::cooperative_matrix, 4);
    for (int mode : {0, 2}) {
      Defines g = gemm_defines(DType::F16, GemmKernel::cooperative_matrix, t, {mode, mode}, 2, mode == 2,
                               mode == 2 ? "acc + 1" : "", f, kDevice);
      out.push_back({gemm_source(GemmKernel::cooperative_matrix), with_workgroup(std::move(g), t.wg_x), {}});
    }
  }
}

void add(std::vector<KernelVariant>& out, const char* kernel, Defines d, uint32_t wg_x = nn::kRowWorkgroup,
         uint32_t wg_y = 1) {
  d = with_workgroup(std::move(d), wg_x);
  if (wg_y != 1)
    for (auto& [k, v] : d)
      if (k == "WG_Y") v = std::to_string(wg_y);
  out.push_back({kernel, std::move(d), {}});
}

void softmaxes(std::vector<KernelVariant>& out, const DeviceFeatures& f, DType d) {
  for (bool log : {false, true})
    for (bool rows : {false, true}) add(out, "softmax", softmax_defines(d, log, rows, rows, f, kDevice));
}

// burn-gpu/kernels/norm.kernel: each pass by rows and by lanes where both occur (the switches are its flags
// argument: one program each), and 64-bit indices.
void norms(std::vector<KernelVariant>& out, const DeviceFeatures& f, DType d) {
  auto norm = [&](const NormVariant& v) { add(out, "norm", norm_defines(v, f, kDevice)); };
  for (bool lanes : {false, true})
    for (NormMode m : {NormMode::rows_fwd, NormMode::rows_bwd, NormMode::param_sums, NormMode::ch_stats}) {
      NormVariant v{m, d};
      v.lanes = lanes;
      norm(v);
    }
  NormVariant wide{NormMode::rows_fwd, d};
  wide.lanes = true;
  wide.index64 = true;
  norm(wide);
  for (NormMode m : {NormMode::ch_apply, NormMode::ch_grad}) {
    NormVariant v{m, d};
    v.lanes = true;
    norm(v);
  }
}

// pool.kernel: every pass, pooled and adaptive, with each switch (the switches are arguments: one program each).
void pools(std::vector<KernelVariant>& out, const DeviceFeatures& f, DType d) {
  for (bool adaptive : {false, true}) {
    for (PoolMode m : {PoolMode::max_fwd, PoolMode::avg_fwd, PoolMode::avg_bwd, PoolMode::max_bwd_check,
                       PoolMode::max_bwd, PoolMode::max_bwd_serial}) {
      PoolVariant v{m, d};
      v.adaptive = adaptive;
      add(out, "pool", pool_defines(v, f, kDevice), 256);
    }
    PoolVariant v{PoolMode::max_fwd, d};
    v.adaptive = adaptive;
    v.with_indices = v.index64 = true;
    add(out, "pool", pool_defines(v, f, kDevice), 256);
    v.mode = PoolMode::max_bwd;
    v.with_indices = false;
    v.index_dtype = DType::I32;
    add(out, "pool", pool_defines(v, f, kDevice), 256);
    v.mode = PoolMode::max_bwd_check;
    add(out, "pool", pool_defines(v, f, kDevice), 256);
  }
  for (PoolMode m : {PoolMode::avg_fwd, PoolMode::avg_bwd}) {
    PoolVariant v{m, d};
    v.count_pad = true;
    add(out, "pool", pool_defines(v, f, kDevice), 256);
  }
}

// burn-gpu/kernels/conv.kernel: every product on both GEMM shapes, with the tile sizes of a wide and a narrow product
// on a GPU-like and a CPU-like profile, and the bias gradient.
void convs(std::vector<KernelVariant>& out, const DeviceFeatures& f, DType d) {
  DeviceProfile gpu, cpu_like;
  gpu.type = VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
  cpu_like.type = VK_PHYSICAL_DEVICE_TYPE_CPU;
  for (DeviceProfile* p : {&gpu, &cpu_like}) {
    p->limits.max_workgroup_invocations = 1024;
    p->limits.max_workgroup_size = {1024, 1024, 64};
    p->limits.max_shared_memory = 32768;
  }
  const uint32_t acc = d == DType::F64 ? 8 : 4;
  for (ConvMode m : {ConvMode::forward, ConvMode::grad_input, ConvMode::grad_weight})
    for (bool tiled : {false, true})
      for (int64_t cols : {64, 3, 9}) {
        ConvVariant v{m, d};
        v.tiled = tiled;
        v.tiles = conv_tiles(tiled ? gpu : cpu_like, tiled, cols == 9 ? 1 : 1000, cols, acc);
        v.index64 = cols == 3;
        add(out, "conv", conv_defines(v, f, kDevice), v.tiles.wg_x, v.tiles.wg_y);
      }
  add(out, "conv", conv_defines(ConvVariant{ConvMode::bias_grad, d}, f, kDevice));
  // A fused conv (forward) and conv_transpose (grad_input) with an epilogue (+ a broadcast operand, relu,
  // the conv's value kept as a second output), as the fused executor launches them.
  for (ConvMode m : {ConvMode::forward, ConvMode::grad_input})
    for (bool tiled : {false, true}) {
      FusedProgram p;
      p.shape = Shape{2, 4, 5, 5};
      p.num_inputs = 4;
      p.reg_dtype = {d, d, d, d, d, d, d};
      FusedInstr c;
      c.op = m == ConvMode::forward ? OpId::conv : OpId::conv_transpose;
      c.args[0] = 0;
      c.args[1] = 1;
      c.args[2] = 2;
      c.n_args = 3;
      FusedInstr add_in;
      add_in.op = OpId::add;
      add_in.args[0] = 4;
      add_in.args[1] = 3;
      add_in.n_args = 2;
      FusedInstr relu;
      relu.op = OpId::relu;
      relu.args[0] = 5;
      relu.n_args = 1;
      p.code = {c, add_in, relu};
      p.outputs = {6, 4};
      const AnchorEpilogue e = anchor_epilogue(p, 0, {-1, -1, -1, 2}, 4, f, kDevice);
      ConvVariant v{m, d};
      v.tiled = tiled;
      v.tiles = conv_tiles(tiled ? gpu : cpu_like, tiled, 1000, 64, acc);
      Defines defs = conv_defines(v, f, kDevice);
      defs.insert(defs.end(), e.defines.begin(), e.defines.end());
      add(out, "conv", std::move(defs), v.tiles.wg_x, v.tiles.wg_y);
    }
}

// burn-gpu/kernels/attention.kernel: narrow and wide heads, a query wider than the registers, on a GPU-like and a
// CPU-like profile.
void attentions(std::vector<KernelVariant>& out, const DeviceFeatures& f, DType d) {
  DeviceProfile gpu, cpu_like;
  gpu.type = VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
  cpu_like.type = VK_PHYSICAL_DEVICE_TYPE_CPU;
  for (DeviceProfile* p : {&gpu, &cpu_like}) {
    p->limits.max_workgroup_invocations = 1024;
    p->limits.max_shared_memory = 32768;
  }
  for (const DeviceProfile* p : {&gpu, &cpu_like})
    for (auto [e, ev] : {std::pair<int64_t, int64_t>{16, 16}, {64, 200}, {200, 8}}) {
      const AttentionShape a = attention_shape(*p, e, ev, d);
      add(out, "attention", attention_defines(d, a, e == 200, f, kDevice), a.workgroup);
    }
}

// The module-op families (ops/nn.hpp): every float dtype the device has.
void module_ops(std::vector<KernelVariant>& out, const DeviceFeatures& f) {
  for (DType d : {DType::F32, DType::F64, DType::F16}) {
    if (!supported(d, f)) continue;
    softmaxes(out, f, d);
    norms(out, f, d);
    pools(out, f, d);
    convs(out, f, d);
    attentions(out, f, d);
    for (bool backward : {false, true})
      for (bool wide : {false, true}) add(out, "resample", resample_defines(d, backward, wide, f, kDevice), 256);
  }
}

}  // namespace

std::vector<KernelVariant> kernel_variants(const DeviceFeatures& features) {
  std::vector<KernelVariant> out;
  elementwise(out, features);
  copies(out, features);
  indexing(out, features);
  reduce_family(out, features);
  gemm(out, features);
  fused(out, features);
  module_ops(out, features);
  // Launchers that share a pipeline (a gather of f32 and of i32, sum and sum_dim) give one variant.
  std::set<std::string> seen;
  std::vector<KernelVariant> unique;
  for (KernelVariant& v : out) {
    std::string key = v.kernel + '\n' + v.generated;
    for (const auto& [name, value] : v.defines) key += '\n' + name + '=' + value;
    if (seen.insert(std::move(key)).second) unique.push_back(std::move(v));
  }
  return unique;
}

}  // namespace burn::vulkan
