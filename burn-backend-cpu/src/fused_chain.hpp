// A fused program (or a reduce's prologue) that is one chain of f32 ops, each instruction reading the
// one before it plus program inputs and scalars, evaluated in registers: 64 elements are loaded once,
// every op of the chain runs on them in ymm registers, and only the registers that must reach memory
// are stored. The tile interpreter (fused_executor.cpp) runs one instruction at a time over a tile
// instead, with a load and a store per op; on an exp chain that costs as much as the exp and keeps
// the memory reads from overlapping the compute. Same bits as the eager ops (the same IEEE operations,
// exp8 for exp). AVX2/FMA CPUs only; BURN_CPU_FUSED_CHAIN=off turns it off (comparisons, tests).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "burn/tensor/fused.hpp"

namespace burn::cpu {

struct ChainStep {
  uint8_t kind = 0;            // a ChainOp (fused_chain.cpp)
  bool chain_lhs = true;       // a binary op's left operand is the chain (else its right one)
  int32_t operand = -1;        // a binary op's other operand: an input register, or -1 for the chain itself
  int32_t store = -1;          // the register stored after this step, or -1
  bool stream = false;         // stored with streaming stores (a large output nobody reads in this program)
  float c0 = 0.0f, c1 = 0.0f;  // scalars
  void (*kernel)(const float*, float*, int64_t) = nullptr;  // an op run through its eager f32 loop
};

struct ChainPlan {
  uint16_t source = 0;  // the input register the chain starts from
  std::vector<ChainStep> steps;
  std::vector<uint16_t> inputs;  // every input register the chain reads (the source first), once each
  bool streams = false;          // some step streams: the caller fences (_mm_sfence) before its task reports done
};

// The plan for instructions [0, ncode) of `p` when they form such a chain over f32; `stored[r]` says
// whether register r must reach memory (an output, or the register a reduce reads after them).
std::optional<ChainPlan> plan_chain(const FusedProgram& p, size_t ncode, const std::vector<uint8_t>& stored);

// Elements [0, n) of one tile, or of a task's whole range when every input is flat: ptr[r] is register
// r's pointer there (the inputs the chain reads and the registers it stores). Its streaming stores are not fenced here
// (a fence per tile stalls until the write-combining buffers drain): the caller calls finish_chain once after its last
// tile.
void run_chain(const ChainPlan& plan, void* const* ptr, int64_t n);
// Makes the chain's streaming stores visible to other threads (a store fence when plan.streams); due
// before the task that ran run_chain reports done.
void finish_chain(const ChainPlan& plan);

}  // namespace burn::cpu
