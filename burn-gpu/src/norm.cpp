// The norm ops' plan (norm.hpp).
#include "burn/gpu/norm.hpp"

#include "burn/tensor/shape_rules.hpp"

namespace burn::gpu {

const char* norm_pass_define(NormPass pass) {
  static const char* const kPasses[] = {"ROWS_FWD", "ROWS_BWD", "PARAM_SUMS", "CH_STATS", "CH_APPLY", "CH_GRAD"};
  return kPasses[static_cast<int>(pass)];
}

uint32_t NormFlags::bits() const {
  return (rms ? 1u : 0u) | (has_w ? 2u : 0u) | (has_b ? 4u : 0u) | (training ? 8u : 0u) | (running ? 16u : 0u) |
         (has_gw ? 32u : 0u) | (has_gb ? 64u : 0u) | (has_su ? 128u : 0u);
}

bool norm_lanes(NormPass pass, bool training, int64_t len) {
  switch (pass) {
    case NormPass::rows_fwd:
    case NormPass::rows_bwd:
    case NormPass::param_sums: return len < kNormLaneMax;
    case NormPass::ch_stats: return !training || len < kNormLaneMax;
    case NormPass::ch_apply:
    case NormPass::ch_grad: break;
  }
  return true;
}

NormRows trailing_rows(const Shape& s, size_t nd, const char* op) {
  shape_rules::layer_norm_params(s, nd, op);
  NormRows r;
  r.rows = 1;
  r.n = 1;
  for (size_t i = 0; i < s.rank(); ++i) (i + nd < s.rank() ? r.rows : r.n) *= s[i];
  r.cg = r.n;
  return r;
}

NormNcs ncs_of(const Shape& s, const char* op) {
  shape_rules::batch_norm_params(s, op);
  NormNcs d{s[0], s[1], 1};
  for (size_t i = 2; i < s.rank(); ++i) d.s *= s[i];
  return d;
}

NormRows group_rows(const Shape& s, int64_t groups, const char* op) {
  shape_rules::group_norm_params(s, groups, op);
  const NormNcs d = ncs_of(s, op);
  NormRows r;
  r.rows = d.n * groups;
  r.cg = d.c / groups;
  r.inner = d.s;
  r.n = r.cg * d.s;
  r.groups = groups;
  return r;
}

NormSums trailing_sums(const NormRows& r) { return {r.n, r.rows, 1, 1, r.n}; }
NormSums group_sums(const NormNcs& d, const NormRows& r) { return {d.c, d.n, d.s, r.groups, r.cg}; }
NormSums channel_sums(const NormNcs& d) { return {d.c, d.n, d.s, 0, 1}; }

}  // namespace burn::gpu
