// The random op's plan, shared by the GPU plugins (burn-gpu/kernels/random.kernel): from a distribution and
// a target dtype, the kernel's kind and switches and its scalar arguments, so that both plugins draw the
// same values for the same seed (the key is one draw of the backend's seeded generator per call).
#pragma once

#include <cstdint>

#include "burn/gpu/layout.hpp"
#include "burn/tensor/backend.hpp"

namespace burn::gpu {

// random.kernel's arguments after Y, n and the key, in its order; `kind` is its KIND define.
struct RandomPlan {
  const char* kind = "KIND_UNIFORM_FLOAT";
  bool r64 = false;  // draws computed in double (R_F64)
  uint64_t a_bits = 0, b_bits = 0, top_bits = 0;
  int64_t lo = 0;
  uint64_t range = 0, threshold = 0;
  int64_t sat_lo = 0, sat_hi = 0;
};

// The plan of Backend::random(shape, dist, dtype) (its checks done by the caller): draws in double for f64
// and, where the device has doubles (`device_f64`), for integer and bool targets. Semantics as
// Backend::random: float Default = Uniform(a, b) half-open in the target dtype; integer Uniform draws
// [ceil(a), ceil(b)); Normal on integers truncates toward zero (saturating); bool Default is a fair coin;
// Bernoulli 0/1.
RandomPlan random_plan(const Distribution& dist, DType dtype, bool device_f64);
// The kernel's defines but Y's operand defines: KIND, R_F64 (with HAS_F64), TO_BOOL or TO_INT.
Defines random_defines(DType dtype, const char* kind, bool r64);

}  // namespace burn::gpu
