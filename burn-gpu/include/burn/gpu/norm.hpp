// The norm module ops' plan, shared by the GPU plugins (burn-gpu/kernels/norm.kernel): rows of layer, rms and
// group norms, the [N, C, S] view of batch norm, the parameter sums of the backward ops, the passes and the
// kernel's flags.
#pragma once

#include <cstdint>

#include "burn/tensor/backend.hpp"

namespace burn::gpu {

// The kernel's passes (its defines), in norm.kernel's order.
enum class NormPass { rows_fwd, rows_bwd, param_sums, ch_stats, ch_apply, ch_grad };
const char* norm_pass_define(NormPass pass);
// The kernel's `flags` argument.
struct NormFlags {
  bool rms = false, has_w = false, has_b = false, training = false, running = false;
  bool has_gw = false, has_gb = false, has_su = false;
  uint32_t bits() const;
};
// Rows (and parameter sums) shorter than this take an invocation each (LANES) instead of a workgroup.
inline constexpr int64_t kNormLaneMax = 128;
// LANES for a pass folding `len` values per item: short folds, and the passes that fold nothing (batch
// norm's inference statistics, the elementwise passes).
bool norm_lanes(NormPass pass, bool training, int64_t len);

// A norm over rows of n: the weight index of row r, position j is (r % groups) * cg + j / inner.
struct NormRows {
  int64_t rows = 0, n = 0, cg = 1, inner = 1, groups = 1;
};
// The rows of a layer or rms norm over the trailing `nd` dims (the rule checks nd).
NormRows trailing_rows(const Shape& s, size_t nd, const char* op);
// [N, C, S] of an NC<spatial> shape (batch and group norm; the batch norm rule checks it).
struct NormNcs {
  int64_t n = 0, c = 0, s = 1;
};
NormNcs ncs_of(const Shape& s, const char* op);
// The rows of a group norm: (n, group) rows of C / groups x S.
NormRows group_rows(const Shape& s, int64_t groups, const char* op);
// The parameter sums of a backward op (PARAM_SUMS): params, elements (o * params + p) * inner + s for o <
// outer, the statistics row o * so + p / cg.
struct NormSums {
  int64_t params = 0, outer = 0, inner = 1, so = 0, cg = 1;
};
NormSums trailing_sums(const NormRows& r);
NormSums group_sums(const NormNcs& d, const NormRows& r);
NormSums channel_sums(const NormNcs& d);

}  // namespace burn::gpu
