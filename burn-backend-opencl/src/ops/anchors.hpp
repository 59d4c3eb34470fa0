// matmul, conv and conv_transpose with a fusion epilogue (the fused executor's anchors): the EPILOGUE_STORE hook
// of burn-gpu/kernels/matmul.kernel and conv.kernel. Private to the plugin.
#pragma once

#include "launch.hpp"
#include "opencl_backend.hpp"

namespace burn::opencl {

// conv / conv_transpose as OpenClBackend's, each stored value passed through `e`.
Prim conv_with_epilogue(const OpenClBackend& be, Prim x, Prim weight, Prim bias, const ConvOptions& options,
                        const AnchorEpilogue& e);
Prim conv_transpose_with_epilogue(const OpenClBackend& be, Prim x, Prim weight, Prim bias,
                                  const ConvTransposeOptions& options, const AnchorEpilogue& e);

// matmul as OpenClBackend's on the plugin's kernel (never CLBlast, which has no epilogue hook), each stored
// value passed through `e`.
Prim matmul_with_epilogue(const OpenClBackend& be, Prim lhs, Prim rhs, const AnchorEpilogue& e);

}  // namespace burn::opencl
