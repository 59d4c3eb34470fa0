// The kernel variants of each launcher family, for the compile-everything test.
#include "kernel_variants.hpp"

#include "burn/tensor/fused.hpp"
#include "dispatch.hpp"
#include "exprs.hpp"
#include "fused/codegen.hpp"
#include "ops/creation.hpp"
#include "ops/elementwise.hpp"
#include "ops/matmul.hpp"

namespace burn::vulkan {

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
        if (to == DType::Bool && from != DType::Bool) d.emplace_back("TO_BOOL", "1");
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
    if (d == DType::F64) defs.emplace_back("HAS_F64", "1");
    if (d == DType::F16) defs.emplace_back("HAS_F16", "1");
    out.push_back({"fused", with_workgroup(std::move(defs)), generate_elementwise(p, {2, 1}, f, kDevice)});
  }
}

// The indexing launchers (ops/indexing.cpp, ops/creation.cpp): gather and scatter move raw bits (one
// pipeline per element width), argwhere's three passes, arange and random per target dtype.
void indexing(std::vector<KernelVariant>& out, const DeviceFeatures& f) {
  for (DType bits : {DType::U8, DType::F16, DType::I32, DType::I64})
    for (DType index : {DType::I64, DType::I32})
      for (int mode : {0, 2}) {
        if (!supported(bits, f)) continue;
        Defines g{{"GATHER", "1"}};
        add_operand_defines(g, "X", bits, f, kDevice, "gather");
        add_operand_defines(g, "I", index, f, kDevice, "gather");
        add_operand_defines(g, "Y", bits, f, kDevice, "gather");
        add_layout_defines(g, {mode, mode}, 2, mode == 2, {"I", "X"});
        out.push_back({"indexing", with_workgroup(std::move(g)), {}});
      }
  for (DType d : kDtypes)
    for (DType index : {DType::I64, DType::I32}) {
      if (!supported(d, f)) continue;
      Defines s{{"SCATTER", "1"}};
      add_operand_defines(s, "I", index, f, kDevice, "scatter_add");
      add_operand_defines(s, "V", d, f, kDevice, "scatter_add");
      add_operand_defines(s, "Y", d, f, kDevice, "scatter_add");
      add_layout_defines(s, {2, 2, 2}, 2, false, {"I", "V", "Y"});
      out.push_back({"indexing", with_workgroup(std::move(s), 64), {}});
    }
  for (DType d : kDtypes) {
    if (!supported(d, f)) continue;
    for (const char* pass : {"COUNT", "WRITE"}) {
      Defines a{{pass, "1"}, {"PER", "4"}, {"DIMS", "3"}};
      add_operand_defines(a, "X", d, f, kDevice, "argwhere");
      add_operand_defines(a, "C", DType::I64, f, kDevice, "argwhere");
      add_operand_defines(a, "Y", DType::I64, f, kDevice, "argwhere");
      add_layout_defines(a, {2}, 3, false, {"X"});
      out.push_back({"argwhere", with_workgroup(std::move(a)), {}});
    }
    Defines r{{"TO_BOOL", "1"}};
    add_operand_defines(r, "Y", d, f, kDevice, "arange");
    if (d != DType::Bool) r.erase(r.begin());
    out.push_back({"arange", with_workgroup(std::move(r)), {}});
  }
  for (DType d : kDtypes) {
    if (!supported(d, f) || d == DType::BF16) continue;
    const bool fl = d == DType::F32 || d == DType::F64 || d == DType::F16;
    for (const char* kind : {"KIND_UNIFORM_FLOAT", "KIND_UNIFORM_INT", "KIND_NORMAL", "KIND_BERNOULLI"}) {
      const std::string_view k = kind;
      if ((k == "KIND_UNIFORM_FLOAT" && !fl) || (k == "KIND_UNIFORM_INT" && fl)) continue;
      out.push_back({"random", with_workgroup(random_defines(d, kind, d == DType::F64 || !fl, f, kDevice)), {}});
    }
  }
  {
    Defines scan{{"SCAN", "1"}, {"PER", "4"}, {"DIMS", "1"}};
    add_operand_defines(scan, "C", DType::I64, f, kDevice, "argwhere");
    add_operand_defines(scan, "Y", DType::I64, f, kDevice, "argwhere");
    out.push_back({"argwhere", with_workgroup(std::move(scan)), {}});
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
  for (DType d : {DType::F32, DType::F64, DType::F16, DType::I64, DType::I32}) {
    if (!supported(d, f)) continue;
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
}

}  // namespace

std::vector<KernelVariant> kernel_variants(const DeviceFeatures& features) {
  std::vector<KernelVariant> out;
  elementwise(out, features);
  copies(out, features);
  indexing(out, features);
  gemm(out, features);
  fused(out, features);
  return out;
}

}  // namespace burn::vulkan
