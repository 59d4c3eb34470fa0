// A kernel family's run-time choice among its instruction-set variants (the blocked convs' ISA, the int8 GEMM's
// path, the f16/bf16 conversions): the widest variant the CPU can run, unless an environment variable names one
// (read once, at the first kernel that asks), and a test hook that forces one. Private to the plugin.
#pragma once

#include <atomic>
#include <cstdint>

namespace burn::cpu {

// What a family tells the choice about its variants, numbered 0..count-1 from the narrowest to the widest.
struct KernelChoiceSpec {
  const char* env;      // the variable that forces a variant, e.g. "BURN_CPU_CONV_ISA"
  const char* setter;   // the test hook's name, for its errors
  const char* choice;   // what the variable names, e.g. "conv kernel ISA"
  const char* kernels;  // what a variant is, e.g. "conv kernels"
  int count;
  const char* (*name)(int variant);         // the variable's spelling of a variant
  bool (*available)(int variant);           // whether this CPU can run it
  const char* (*requirement)(int variant);  // what the CPU needs for it, e.g. "AVX2 and FMA"
};

class KernelChoice {
 public:
  explicit constexpr KernelChoice(const KernelChoiceSpec& spec) : spec_(spec) {}

  // The variant in use: the variable's when set (ValueError for an unknown name, Unsupported for a variant this
  // CPU lacks), else the widest available one (0 when none is).
  int get();
  // Forces `variant` (Unsupported when the CPU lacks it); returns the variant that was in use.
  int set(int variant);

 private:
  int from_env() const;

  const KernelChoiceSpec& spec_;
  std::atomic<int> variant_{-1};  // -1 until the first get()
};

}  // namespace burn::cpu
