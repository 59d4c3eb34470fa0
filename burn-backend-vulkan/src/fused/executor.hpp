// The fused executor burn-fusion asks for through query_interface(kFusedElementwiseInterface).
#pragma once

#include "burn/tensor/backend.hpp"
#include "burn/tensor/fused.hpp"

namespace burn::vulkan {

class VulkanBackend;

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
