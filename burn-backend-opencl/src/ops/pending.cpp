// CORE ops whose kernels are not written yet (argwhere, sort): Unsupported
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

Prim OpenClBackend::argwhere(Prim) { pending("argwhere", *ctx_); }
PrimPair OpenClBackend::sort(Prim, size_t, bool, bool) { pending("sort", *ctx_); }

}  // namespace burn::opencl
