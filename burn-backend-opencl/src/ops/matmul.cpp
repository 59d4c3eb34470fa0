// matmul on the device (torch.matmul semantics for operands of equal rank >= 2, batch dims broadcast as
// shape_rules::matmul says): f32 and f64 through CLBlast's strided-batched GEMM where both operands are
// row- or column-major matrices and the batch is one stride each; everything else (i64, i32, other
// layouts, a device where CLBlast failed its self-test) through burn-gpu/kernels/matmul.kernel, which
// reads the operands in place through their strides: register-blocked on CPU-type devices, tiled in local
// memory on GPUs (the tile shapes of the conv kernel's GEMMs, gpu::conv_tiles). The fused executor's matmul
// anchor runs that kernel with its epilogue (matmul_with_epilogue) where CLBlast does not run the dtype.
#include <clblast_c.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "burn/gpu/conv.hpp"
#include "burn/gpu/views.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/log.hpp"
#include "burn/tensor/shape_rules.hpp"
#include "launch.hpp"
#include "opencl_backend.hpp"
#include "ops/anchors.hpp"

namespace burn::opencl {

namespace {

constexpr const char* kOp = "matmul";

// One matmul, its operands seen as batches of matrices: batch z of A starts at OFFSET(A, z) of the batch
// layout, element (i, p) is i * a_rs + p * a_cs further (strides 0 along a dim of size 1).
struct Gemm {
  ClPtr a, b, c;
  gpu::Layout batch;  // over the broadcast batch dims, operands A and B
  int64_t m = 0, n = 0, k = 0, count = 0;
  int64_t a_rs = 0, a_cs = 0, b_rs = 0, b_cs = 0;
};

Gemm plan(const ClPtr& a, const ClPtr& b, const ClPtr& c) {
  const Shape& sa = a->shape();
  const Shape& sb = b->shape();
  const size_t rank = sa.rank();
  Gemm g{a, b, c, {}, sa[rank - 2], sb[rank - 1], sa[rank - 1], 1};
  std::vector<int64_t> dims(rank - 2), a_batch(rank - 2), b_batch(rank - 2);
  for (size_t i = 0; i + 2 < rank; ++i) {
    dims[i] = c->shape()[i];
    a_batch[i] = sa[i] == 1 ? 0 : a->strides()[i];
    b_batch[i] = sb[i] == 1 ? 0 : b->strides()[i];
    g.count *= dims[i];
  }
  g.batch = gpu::collapse(Shape(dims), {a_batch, b_batch});
  const auto& as = a->strides();
  const auto& bs = b->strides();
  g.a_rs = g.m == 1 ? 0 : as[rank - 2];
  g.a_cs = g.k == 1 ? 0 : as[rank - 1];
  g.b_rs = g.k == 1 ? 0 : bs[rank - 2];
  g.b_cs = g.n == 1 ? 0 : bs[rank - 1];
  g.batch.index64 = g.batch.index64 || gpu::gemm_index64(view_of(*a), view_of(*b), c->shape().num_elements());
  return g;
}

// Sizes the kernel indexes with 32-bit ints (tile loops, row and column numbers), with room for a tile.
constexpr int64_t kMaxDim = (int64_t{1} << 31) - 4096;

// The project's kernel: every dtype, every layout; with a fusion epilogue, at its index width.
void run_kernel(const OpenClBackend& be, Gemm g, const AnchorEpilogue* epilogue = nullptr) {
  Context& ctx = be.context();
  const DeviceProfile& prof = ctx.profile();
  if (g.m > kMaxDim || g.n > kMaxDim || g.k > kMaxDim || g.count > kMaxDim)
    throw Unsupported(kOp, "a batch, M, N or K of 2^31 or more on the OpenCL device " + prof.name);
  const DType dt = g.c->dtype();
  const auto wg = static_cast<uint32_t>(std::min<size_t>(prof.max_work_group, UINT32_MAX));
  const bool tiled = prof.is_gpu();
  const gpu::ConvTiles t =
      gpu::conv_tiles({!tiled, wg, wg, wg, prof.local_mem}, tiled, g.m, g.n, dtype_size(dt) == 8 ? 8 : 4);
  if (epilogue) g.batch.index64 = g.batch.index64 || epilogue->index64;
  Launch lc(ctx, "matmul", kOp);
  gpu::Defines d;
  add_operand_defines(d, "A", dt, prof, kOp);
  add_operand_defines(d, "B", dt, prof, kOp);
  add_operand_defines(d, "C", dt, prof, kOp);
  d.emplace_back("TM", std::to_string(t.tm));
  d.emplace_back("TN", std::to_string(t.tn));
  if (tiled) {
    d.emplace_back("GEMM_TILED", "1");
    d.emplace_back("BK", std::to_string(t.bk));
  }
  if (epilogue) d.insert(d.end(), epilogue->defines.begin(), epilogue->defines.end());
  lc.use(d);
  lc.layout_args({g.batch.mode(0), g.batch.mode(1)}, g.batch.rank(), g.batch.index64, {"A", "B"});
  lc.buffer(*g.a, false).buffer(*g.b, false).buffer(*g.c, true).layout_block(g.batch);
  lc.i64(g.a_rs).i64(g.a_cs).i64(g.b_rs).i64(g.b_cs);
  lc.i32(static_cast<int32_t>(g.m)).i32(static_cast<int32_t>(g.n)).i32(static_cast<int32_t>(g.k));
  lc.i32(static_cast<int32_t>(g.count));
  if (epilogue) epilogue->bind(lc);
  const uint32_t max[3] = {kMaxGroups, kMaxGroups, kMaxGroups};
  const gpu::ConvGrid grid = gpu::conv_grid(t, gpu::ConvGemm{g.m, g.n, g.k}, g.count, max);
  lc.run_grid({grid.x, grid.y, grid.z}, t.wg_x, t.wg_y);
}

// A matrix of rows x cols with these strides as CLBlast reads it (row-major, maybe transposed).
struct BlasMatrix {
  CLBlastTranspose trans = CLBlastTransposeNo;
  size_t ld = 0;
};
std::optional<BlasMatrix> blas_matrix(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  if (rs < 0 || cs < 0) return std::nullopt;
  if (cols == 1 || cs == 1) {
    const int64_t ld = rows == 1 ? cols : rs;
    if (ld >= cols) return BlasMatrix{CLBlastTransposeNo, static_cast<size_t>(ld)};
  }
  if (rows == 1 || rs == 1) {
    const int64_t ld = cols == 1 ? rows : cs;
    if (ld >= rows) return BlasMatrix{CLBlastTransposeYes, static_cast<size_t>(ld)};
  }
  return std::nullopt;
}

// CLBlast's strided-batched GEMM for g, or the reason it cannot take it (nothing is enqueued then).
std::string try_clblast(Context& ctx, const Gemm& g) {
  const auto am = blas_matrix(g.m, g.k, g.a_rs, g.a_cs);
  const auto bm = blas_matrix(g.k, g.n, g.b_rs, g.b_cs);
  if (!am || !bm) return "an operand is not a row- or column-major matrix";
  if (g.batch.rank() > 1) return "the batch dims do not merge into one stride";
  const int64_t a_stride = g.batch.rank() == 1 ? g.batch.strides[0][0] : 0;
  const int64_t b_stride = g.batch.rank() == 1 ? g.batch.strides[1][0] : 0;
  if (a_stride < 0 || b_stride < 0) return "a batch stride is negative";
  const auto sz = [](int64_t v) { return static_cast<size_t>(v); };
  std::lock_guard lock(ctx.launch_mutex());
  ctx.submit_locked();  // CLBlast may wait for the queue
  cl_command_queue q = ctx.queue();
  cl_event e = nullptr;
  CLBlastStatusCode st;
  if (g.c->dtype() == DType::F32)
    st = CLBlastSgemmStridedBatched(
        CLBlastLayoutRowMajor, am->trans, bm->trans, sz(g.m), sz(g.n), sz(g.k), 1.0f, g.a->allocation().mem(),
        sz(g.a->offset()), am->ld, sz(a_stride), g.b->allocation().mem(), sz(g.b->offset()), bm->ld, sz(b_stride), 0.0f,
        g.c->allocation().mem(), sz(g.c->offset()), sz(g.n), sz(g.m * g.n), sz(g.count), &q, &e);
  else
    st = CLBlastDgemmStridedBatched(
        CLBlastLayoutRowMajor, am->trans, bm->trans, sz(g.m), sz(g.n), sz(g.k), 1.0, g.a->allocation().mem(),
        sz(g.a->offset()), am->ld, sz(a_stride), g.b->allocation().mem(), sz(g.b->offset()), bm->ld, sz(b_stride), 0.0,
        g.c->allocation().mem(), sz(g.c->offset()), sz(g.n), sz(g.m * g.n), sz(g.count), &q, &e);
  if (st != CLBlastSuccess) return "CLBlast returned status " + std::to_string(static_cast<int>(st));
  if (e) {
    g.c->allocation().set_last_write(e);
    clReleaseEvent(e);
  }
  ++ctx.counters().launches;
  return {};
}

// CLBlast's first GEMM on this device and dtype: two batches of [3, 5] x [5, 4], one operand transposed,
// compared with the project's kernel. The reason it is refused, or empty.
std::string self_test(OpenClBackend& be, DType d) {
  Context& ctx = be.context();
  std::vector<double> av(2 * 3 * 5), bv(2 * 5 * 4);
  for (size_t i = 0; i < av.size(); ++i) av[i] = static_cast<double>((i * 7) % 11) - 5.0;
  for (size_t i = 0; i < bv.size(); ++i) bv[i] = static_cast<double>((i * 5) % 13) * 0.25 - 1.5;
  auto upload = [&](const std::vector<double>& v, const Shape& s) {
    return be.cl(be.from_data(TensorData::from_vector(v, s).convert(d)), kOp);
  };
  const ClPtr a = upload(av, Shape{2, 3, 5});
  const ClPtr b_t = upload(bv, Shape{2, 4, 5});
  const ClPtr b = make_view(b_t, Shape{2, 5, 4}, {20, 1, 5}, b_t->offset());  // column-major rows
  const ClPtr want = be.alloc(Shape{2, 3, 4}, d, kOp), got = be.alloc(Shape{2, 3, 4}, d, kOp);
  run_kernel(be, plan(a, b, want));
  if (std::string why = try_clblast(ctx, plan(a, b, got)); !why.empty()) return why;
  const auto wv = be.into_data(want).convert(DType::F64).to_vec<double>();
  const auto gv = be.into_data(got).convert(DType::F64).to_vec<double>();
  for (size_t i = 0; i < wv.size(); ++i)
    if (!(std::abs(wv[i] - gv[i]) <= 1e-4 * (1.0 + std::abs(wv[i]))))
      return "its result " + std::to_string(gv[i]) + " at " + std::to_string(i) + " differs from " +
             std::to_string(wv[i]);
  return {};
}

// Whether CLBlast may run this dtype on this device: the self-test at first use, its refusal logged once.
bool clblast_usable(OpenClBackend& be, DType d) {
  if (d != DType::F32 && d != DType::F64) return false;
  if (const char* env = std::getenv("BURN_OPENCL_BLAS"); env && std::string_view(env) == "off") return false;
  Context::Blas& blas = be.context().blas();
  std::lock_guard lock(blas.mutex);
  auto& state = d == DType::F32 ? blas.f32 : blas.f64;
  auto& reason = d == DType::F32 ? blas.f32_reason : blas.f64_reason;
  if (state == Context::Blas::untested) {
    try {
      reason = self_test(be, d);
    } catch (const std::exception& e) {
      reason = e.what();
    }
    state = reason.empty() ? Context::Blas::usable : Context::Blas::refused;
    if (!reason.empty())
      log::warn("opencl: CLBlast's " + std::string(dtype_name(d)) + " GEMM is not used on " +
                be.context().profile().name + " (its self-test failed: " + reason + "); the plugin's kernel runs");
  }
  return state == Context::Blas::usable;
}

// The checked operands of a matmul and its allocated result.
struct Operands {
  ClPtr a, b, out;
};
Operands operands(const OpenClBackend& be, Prim& lhs, Prim& rhs) {
  Operands o{be.cl(lhs, kOp), be.cl(rhs, kOp), nullptr};
  lhs.reset();
  rhs.reset();
  const DType d = o.a->dtype();
  if (o.b->dtype() != d)
    throw DTypeError(kOp, "lhs " + std::string(dtype_name(d)) + " and rhs " + std::string(dtype_name(o.b->dtype())) +
                              ": operands must have the same dtype");
  if (!is_float(d) && d != DType::I64 && d != DType::I32)
    throw DTypeError(kOp,
                     "expected a numeric tensor (f32, f64, f16, bf16, i64 or i32), got " + std::string(dtype_name(d)));
  cl_type(d, be.context().profile(), kOp);  // Unsupported for f64 without cl_khr_fp64
  o.out = be.alloc(shape_rules::matmul(o.a->shape(), o.b->shape(), kOp), d, kOp);
  return o;
}

}  // namespace

bool clblast_runs(OpenClBackend& be, DType d) { return clblast_usable(be, d); }

std::string clblast_refusal(OpenClBackend& be, DType d) {
  clblast_usable(be, d);
  Context::Blas& blas = be.context().blas();
  std::lock_guard lock(blas.mutex);
  return d == DType::F32 ? blas.f32_reason : blas.f64_reason;
}

Prim OpenClBackend::matmul(Prim lhs, Prim rhs) {
  const auto [a, b, out] = operands(*this, lhs, rhs);
  if (out->shape().num_elements() == 0) return out;
  const Gemm g = plan(a, b, out);
  // K = 0 leaves zeros, which the kernel writes.
  if (g.k > 0 && clblast_usable(*this, out->dtype()) && try_clblast(*ctx_, g).empty()) return out;
  run_kernel(*this, g);
  return out;
}

Prim matmul_with_epilogue(const OpenClBackend& be, Prim lhs, Prim rhs, const AnchorEpilogue& e) {
  const auto [a, b, out] = operands(be, lhs, rhs);
  if (out->shape().num_elements() == 0) return out;
  run_kernel(be, plan(a, b, out), &e);
  return out;
}

}  // namespace burn::opencl
