// CORE ops whose kernels are not written yet (indexing, reductions, scans, sort, matmul): Unsupported
// naming the op and the device until then; supports() answers false for them. This file shrinks to
// nothing as the op files grow.
#include "burn/tensor/error.hpp"
#include "opencl_backend.hpp"

namespace burn::opencl {

namespace {
[[noreturn]] void pending(const char* op, const Context& ctx) {
  throw Unsupported(op, "not yet implemented on the OpenCL backend (device " + ctx.profile().name + ")");
}
}  // namespace

Prim OpenClBackend::gather(Prim, size_t, Prim) { pending("gather", *ctx_); }
Prim OpenClBackend::scatter_add(Prim, size_t, Prim, Prim) { pending("scatter_add", *ctx_); }
Prim OpenClBackend::argwhere(Prim) { pending("argwhere", *ctx_); }
Prim OpenClBackend::matmul(Prim, Prim) { pending("matmul", *ctx_); }
Prim OpenClBackend::sum_dim(Prim, size_t) { pending("sum_dim", *ctx_); }
Prim OpenClBackend::prod_dim(Prim, size_t) { pending("prod_dim", *ctx_); }
Prim OpenClBackend::max_dim(Prim, size_t) { pending("max_dim", *ctx_); }
Prim OpenClBackend::min_dim(Prim, size_t) { pending("min_dim", *ctx_); }
Prim OpenClBackend::argmax(Prim, size_t) { pending("argmax", *ctx_); }
Prim OpenClBackend::argmin(Prim, size_t) { pending("argmin", *ctx_); }
Prim OpenClBackend::cumsum(Prim, size_t) { pending("cumsum", *ctx_); }
Prim OpenClBackend::cumprod(Prim, size_t) { pending("cumprod", *ctx_); }
Prim OpenClBackend::cummax(Prim, size_t) { pending("cummax", *ctx_); }
Prim OpenClBackend::cummin(Prim, size_t) { pending("cummin", *ctx_); }
PrimPair OpenClBackend::sort(Prim, size_t, bool, bool) { pending("sort", *ctx_); }

}  // namespace burn::opencl
