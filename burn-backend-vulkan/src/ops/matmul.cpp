// matmul on the device (torch.matmul semantics for operands of equal rank >= 2, as the cpu backend): one
// dispatch over every batch, operands read in place through their strides: burn-gpu/kernels/matmul.kernel
// (register-blocked or tiled, the opencl plugin's kernel too) or, f16 on cooperative matrices,
// kernels/matmul_coop.comp.
#include "ops/matmul.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "burn/gpu/views.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/shape_rules.hpp"
#include "dispatch.hpp"

namespace burn::vulkan {

namespace {

std::string shapes(const Shape& a, const Shape& b) { return "lhs " + a.to_string() + " and rhs " + b.to_string(); }

// Sizes the kernel indexes with 32-bit ints (tile loops, row and column numbers), with room for a tile.
constexpr int64_t kMaxDim = (int64_t{1} << 31) - 4096;

}  // namespace

const char* gemm_kernel_name(GemmKernel k) {
  switch (k) {
    case GemmKernel::shared_tiled: return "shared-memory tiled";
    case GemmKernel::cooperative_matrix: return "cooperative-matrix";
    default: return "register-blocked";
  }
}

const char* gemm_source(GemmKernel k) { return k == GemmKernel::cooperative_matrix ? "matmul_coop" : "matmul"; }

uint64_t GemmTiles::shared_bytes(uint32_t acc_bytes) const {
  if (cm[0]) return uint64_t{2} * bk * (block_rows() + block_cols()) + uint64_t{4} * block_rows() * block_cols();
  if (bk) return uint64_t{bk} * (wg_y * tm + 1 + wg_x * tn + 1) * acc_bytes;
  return 0;
}

GemmKernel gemm_kernel(const DeviceProfile& profile, DType dtype) {
  if (!profile.features.shared_memory_gemm) return GemmKernel::register_blocked;
  if (profile.features.cooperative_matrix && dtype == DType::F16 &&
      gemm_tiles(profile, GemmKernel::cooperative_matrix, 4).wg_x != 0)
    return GemmKernel::cooperative_matrix;
  return GemmKernel::shared_tiled;
}

namespace {

// 2 x 2 subgroups, each 64 x 32 of C (else 32 x 32 where shared memory is short), K staged 2 matrices deep.
GemmTiles coopmat_tiles(const DeviceProfile& profile) {
  const DeviceLimits& lim = profile.limits;
  const auto [cm_m, cm_n, cm_k] = lim.coopmat_f16;
  if (!profile.features.cooperative_matrix || cm_m == 0 || cm_n == 0 || cm_k == 0 || lim.subgroup_size == 0) return {};
  for (const uint32_t rows : {64u, 32u}) {
    GemmTiles t;
    t.cm = lim.coopmat_f16;
    t.sg_m = 2;
    t.sg_n = 2;
    t.wm = std::max<uint32_t>(1, rows / cm_m);
    t.wn = std::max<uint32_t>(1, 32 / cm_n);
    t.bk = 2 * cm_k;
    t.wg_x = t.sg_m * t.sg_n * lim.subgroup_size;
    t.wg_y = 1;
    if (t.wg_x <= lim.max_workgroup_invocations && t.wg_x <= lim.max_workgroup_size[0] &&
        t.shared_bytes(4) <= lim.max_shared_memory)
      return t;
  }
  return {};
}

}  // namespace

GemmTiles gemm_tiles(const DeviceProfile& profile, GemmKernel kernel, uint32_t acc_bytes) {
  const DeviceLimits& lim = profile.limits;
  if (kernel == GemmKernel::cooperative_matrix) return coopmat_tiles(profile);
  GemmTiles t;
  if (kernel == GemmKernel::register_blocked && profile.cpu_type()) {
    // One row of SIMD lanes per workgroup (lavapipe runs a workgroup on one thread, its invocations as the
    // lanes of a vector), so every invocation shares the rows and A's loads are uniform; 8 x 8 outputs
    // each: 2x the GFLOP/s of 4 x 4 on lavapipe for 3x the JIT time (about 1 s a pipeline, README).
    t = GemmTiles{std::clamp<uint32_t>(profile.limits.subgroup_size, 4, 64), 1, 8, 8, 0};
  } else if (kernel == GemmKernel::register_blocked) {
    t = GemmTiles{16, 16, 4, 4, 0};
  } else {
    t = GemmTiles{16, 16, 4, 4, 16};
  }
  // Fewer invocations while the device allows fewer (Vulkan guarantees 128, and 128 x 128 x 64 sizes).
  while (t.wg_x * t.wg_y > std::max<uint32_t>(lim.max_workgroup_invocations, 1) || t.wg_x > lim.max_workgroup_size[0] ||
         t.wg_y > lim.max_workgroup_size[1]) {
    if (t.wg_y >= t.wg_x && t.wg_y > 1) {
      t.wg_y /= 2;
    } else if (t.wg_x > 1) {
      t.wg_x /= 2;
    } else {
      break;
    }
  }
  if (kernel == GemmKernel::shared_tiled) {
    // Both padded tiles (burn-gpu/kernels/matmul.kernel: BK rows of BM + 1 and of BN + 1 sums) within the shared
    // memory.
    auto bytes = [&] { return t.shared_bytes(acc_bytes); };
    while (bytes() > lim.max_shared_memory && t.bk > 1) t.bk /= 2;
    while (bytes() > lim.max_shared_memory && (t.tm > 1 || t.tn > 1)) {
      if (t.tm >= t.tn) {
        t.tm /= 2;
      } else {
        t.tn /= 2;
      }
    }
  }
  return t;
}

void check_gemm_dtype(DType d, const DeviceFeatures& features, const std::string& device) {
  // bf16 is a matmul dtype (the cpu and opencl plugins run it, accumulating in f32); here it is storage only.
  if (d == DType::BF16)
    throw Unsupported("matmul", "dtype bf16 on Vulkan device " + device +
                                    ": bf16 is storage only here (cast to f32 or f16 for the matmul)");
  if (d != DType::F32 && d != DType::F64 && d != DType::F16 && d != DType::I64 && d != DType::I32)
    throw DTypeError("matmul",
                     "expected a numeric tensor (f32, f64, f16, i64 or i32), got " + std::string(dtype_name(d)));
  glsl_type(d, features, device, "matmul");  // Unsupported for a dtype the device lacks
}

Defines gemm_defines(DType d, GemmKernel kernel, const GemmTiles& t, const std::vector<int>& batch_modes,
                     size_t batch_rank, bool index64, const std::string& epilogue, const DeviceFeatures& features,
                     const std::string& device) {
  check_gemm_dtype(d, features, device);
  Defines out;
  add_operand_defines(out, "A", d, features, device, "matmul");
  add_operand_defines(out, "B", d, features, device, "matmul");
  add_operand_defines(out, "C", d, features, device, "matmul");
  add_layout_defines(out, batch_modes, batch_rank, index64, {"A", "B"});
  out.emplace_back("TM", std::to_string(t.tm));
  out.emplace_back("TN", std::to_string(t.tn));
  if (kernel == GemmKernel::shared_tiled) {
    out.emplace_back("GEMM_TILED", "1");
    out.emplace_back("BK", std::to_string(t.bk));
  } else if (kernel == GemmKernel::cooperative_matrix) {
    if (d != DType::F16 || t.cm[0] == 0)
      throw Unsupported("matmul", "the cooperative-matrix GEMM takes f16 on a device with an f16 shape, got " +
                                      std::string(dtype_name(d)) + " on Vulkan device " + device);
    out.emplace_back("HAS_COOPMAT_NV", "1");
    out.emplace_back("GEMM_COOP", "1");
    out.emplace_back("CM_M", std::to_string(t.cm[0]));
    out.emplace_back("CM_N", std::to_string(t.cm[1]));
    out.emplace_back("CM_K", std::to_string(t.cm[2]));
    out.emplace_back("SG_M", std::to_string(t.sg_m));
    out.emplace_back("SG_N", std::to_string(t.sg_n));
    out.emplace_back("WM", std::to_string(t.wm));
    out.emplace_back("WN", std::to_string(t.wn));
    out.emplace_back("BK", std::to_string(t.bk));
  }
  if (!epilogue.empty()) out.emplace_back("EPILOGUE(acc, z, row, col)", epilogue);
  return out;
}

Prim matmul_with(const VulkanBackend& be, Prim lhs, Prim rhs, GemmKernel kernel, const GemmOptions& options) {
  static constexpr const char* op = "matmul";
  Context& ctx = be.context();
  const VkPtr a = be.vk(lhs, op), b = be.vk(rhs, op);
  lhs.reset();
  rhs.reset();
  const DType d = a->dtype();
  if (b->dtype() != d)
    throw DTypeError(op, "lhs " + std::string(dtype_name(d)) + " and rhs " + std::string(dtype_name(b->dtype())) +
                             ": operands must have the same dtype");
  check_gemm_dtype(d, ctx.profile().features, ctx.profile().name);  // before anything else
  const Shape& sa = a->shape();
  const Shape& sb = b->shape();
  const Shape out_shape = shape_rules::matmul(sa, sb, op);
  const size_t rank = sa.rank();
  const int64_t m = sa[rank - 2], k = sa[rank - 1], n = sb[rank - 1];

  // Broadcast batch dims, read with stride 0 where an operand has size 1: nothing is copied.
  std::vector<int64_t> batch_dims(rank - 2), a_batch(rank - 2), b_batch(rank - 2);
  int64_t batch = 1;
  for (size_t i = 0; i + 2 < rank; ++i) {
    batch_dims[i] = out_shape[i];
    a_batch[i] = sa[i] == 1 ? 0 : a->strides()[i];
    b_batch[i] = sb[i] == 1 ? 0 : b->strides()[i];
    batch *= out_shape[i];
  }
  VkPtr out = be.alloc(out_shape, d);
  if (batch * m * n == 0) return out;
  // Each invocation walks K in one loop: a driver that stops loops early (lavapipe: 65535 iterations) would
  // leave the sums short, silently.
  if (const uint32_t cap = ctx.profile().limits.max_loop; cap && k > static_cast<int64_t>(cap))
    throw Unsupported(op, shapes(sa, sb) + ": K = " + std::to_string(k) + " is above the " + std::to_string(cap) +
                              " iterations a loop may run on Vulkan device " + ctx.profile().name);
  if (m > kMaxDim || n > kMaxDim || k > kMaxDim || batch > kMaxDim)
    throw Unsupported(op,
                      shapes(sa, sb) + ": a batch, M, N or K of 2^31 or more on Vulkan device " + ctx.profile().name);

  // The matrix strides, 0 along a dim of size 1 (it never steps, and then spans nothing).
  const auto& as = a->strides();
  const auto& bs = b->strides();
  const int64_t a_rs = m == 1 ? 0 : as[rank - 2], a_cs = k == 1 ? 0 : as[rank - 1];
  const int64_t b_rs = k == 1 ? 0 : bs[rank - 2], b_cs = n == 1 ? 0 : bs[rank - 1];
  Layout l = collapse(Shape(batch_dims), {a_batch, b_batch});
  // A fused epilogue's width is worked out with gpu::gemm_index64 too (anchor_index64), so the two agree.
  l.index64 = l.index64 || options.fused.index64 || gpu::gemm_index64(view_of(*a), view_of(*b), batch * m * n);

  const GemmTiles t = gemm_tiles(ctx.profile(), kernel, dtype_size(d) == 8 ? 8 : 4);
  if (t.wg_x == 0)
    throw Unsupported(op, std::string("the ") + gemm_kernel_name(kernel) + " GEMM on Vulkan device " +
                              ctx.profile().name + " (no cooperative-matrix shape that fits its limits)");
  Dispatch dp(ctx, gemm_source(kernel), op);
  Defines defs = gemm_defines(d, kernel, t, {l.mode(0), l.mode(1)}, l.rank(), l.index64, options.epilogue,
                              ctx.profile().features, ctx.profile().name);
  defs.insert(defs.end(), options.fused.defines.begin(), options.fused.defines.end());
  dp.use(defs);
  dp.address(*a, false).address(*b, false).address(*out, true).layout_block(l);
  dp.push_i64(a_rs).push_i64(a_cs).push_i64(b_rs).push_i64(b_cs);
  dp.push_i32(static_cast<int32_t>(m)).push_i32(static_cast<int32_t>(n)).push_i32(static_cast<int32_t>(k));
  dp.push_i32(static_cast<int32_t>(batch));
  if (options.fused.bind) options.fused.bind(dp);

  // One workgroup per tile and batch, up to the device's grid limits; the kernel walks the rest.
  const auto& count = ctx.profile().limits.max_workgroup_count;
  auto groups = [&](int64_t want, size_t axis) {
    const uint32_t cap = options.max_groups[axis] ? options.max_groups[axis] : count[axis];
    return static_cast<uint32_t>(std::min<int64_t>(want, std::max<uint32_t>(cap, 1)));
  };
  const int64_t tiles_n = (n + t.block_cols() - 1) / t.block_cols();
  const int64_t tiles_m = (m + t.block_rows() - 1) / t.block_rows();
  dp.run({groups(tiles_n, 0), groups(tiles_m, 1), groups(batch, 2)}, {t.wg_x, t.wg_y, 1});
  return out;
}

Prim VulkanBackend::matmul(Prim lhs, Prim rhs) {
  const DType d = lhs ? lhs->dtype() : DType::F32;
  return matmul_with(*this, std::move(lhs), std::move(rhs), gemm_kernel(ctx_->profile(), d));
}

}  // namespace burn::vulkan
