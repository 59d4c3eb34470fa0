// The CPU backend: overrides every op of the table; definitions live in src/ops/<group>.cpp.
#pragma once

#include "burn/tensor/backend.hpp"

namespace burn::cpu {

class CpuBackend final : public Backend {
 public:
  std::string name() const override { return "cpu"; }
  bool supports(OpId op, DType dtype) const override;
  // "memory": the MemoryStats of every Storage of the process (see cpu_tensor.hpp).
  void* query_interface(std::string_view name) override;

#define BURN_X_CPU(group, name, ret, params, args, tier) ret name params override;
  BURN_OP_TABLE(BURN_X_CPU)
#undef BURN_X_CPU
};

}  // namespace burn::cpu
