// The fused executor burn-fusion asks for through query_interface(kFusedElementwiseInterface).
#pragma once

#include "burn/gpu/views.hpp"
#include "burn/tensor/backend.hpp"
#include "burn/tensor/fused.hpp"

namespace burn::vulkan {

class VulkanBackend;

// The index width of an anchor's launch (matmul, conv, conv_transpose), worked out before anything is written:
// 64-bit where the epilogue's layout needs it (`epilogue_index64`) or the anchor's kernel does for its operands
// a and b (lhs and rhs; x and weight, contiguous) and its result, as that kernel's launcher decides. Both the
// epilogue's layout block and the kernel take it, so the two cannot disagree.
bool anchor_index64(OpId op, bool epilogue_index64, const gpu::View& a, const gpu::View& b, const Shape& result);

class VulkanFusedExecutor final : public FusedExecutor {
 public:
  explicit VulkanFusedExecutor(VulkanBackend& backend) : backend_(backend) {}
  bool can_run(const FusedProgram& program) const override;
  bool fits(const FusedProgram& program) const override;
  bool owns(const Primitive& p) const override;
  Prims run(const FusedProgram& program, const Prims& inputs) override;

 private:
  Prims run_reduce(const FusedProgram& program, const Prims& inputs);
  Prims run_anchor(const FusedProgram& program, const Prims& inputs);
  VulkanBackend& backend_;
};

}  // namespace burn::vulkan
