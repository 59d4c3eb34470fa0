// The fused executor burn-fusion asks for through query_interface(kFusedElementwiseInterface): elementwise
// chains, reductions with their prologue and epilogue, and matmul, conv and conv_transpose with their epilogue as one
// kernel of burn-gpu's code generator (burn-gpu/src/fused.cpp, fused_reduce.cpp, fused_anchor.cpp), in the
// dialect.
#pragma once

#include "burn/tensor/backend.hpp"
#include "burn/tensor/fused.hpp"

namespace burn::opencl {

class OpenClBackend;

class OpenClFusedExecutor final : public FusedExecutor {
 public:
  explicit OpenClFusedExecutor(OpenClBackend& backend) : backend_(backend) {}
  bool can_run(const FusedProgram& program) const override;
  bool fits(const FusedProgram&) const override { return true; }
  bool owns(const Primitive& p) const override;
  Prims run(const FusedProgram& program, const Prims& inputs) override;

 private:
  Prims run_reduce(const FusedProgram& program, const Prims& inputs);
  Prims run_anchor(const FusedProgram& program, const Prims& inputs);
  OpenClBackend& backend_;
};

}  // namespace burn::opencl
