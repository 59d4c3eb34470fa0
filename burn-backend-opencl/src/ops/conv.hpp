// conv and conv_transpose with a fusion epilogue (the fused executor's conv anchor): burn-gpu/kernels/conv.kernel's
// EPILOGUE_STORE hook. Private to the plugin.
#pragma once

#include <functional>
#include <string>

#include "burn/gpu/layout.hpp"
#include "launch.hpp"
#include "opencl_backend.hpp"

namespace burn::opencl {

// What the fusion code generator adds to a conv or conv_transpose (burn-gpu's generate_conv_epilogue): the
// EPILOGUE_STORE(epi_v, epi_i) statement and EPILOGUE_PUSH arguments (single lines), the defines they read
// (operands, table slots), `bind` setting those arguments, `index64` when its own layout needs 64-bit indices.
struct ConvEpilogue {
  std::string store, params;
  gpu::Defines defines;
  std::function<void(Launch&)> bind;
  bool index64 = false;
};
// conv / conv_transpose as OpenClBackend's, each stored value passed through `e`.
Prim conv_with_epilogue(const OpenClBackend& be, Prim x, Prim weight, Prim bias, const ConvOptions& options,
                        const ConvEpilogue& e);
Prim conv_transpose_with_epilogue(const OpenClBackend& be, Prim x, Prim weight, Prim bias,
                                  const ConvTransposeOptions& options, const ConvEpilogue& e);

}  // namespace burn::opencl
