// CTC loss: the alpha recursion of Graves et al. in log space over the extended label sequence
// (blanks around every label), one step per time step, composed from tensor ops so that autodiff
// gives the gradient (the beta recursion is its backward pass).
#include "burn/nn/loss/ctc.hpp"

#include <limits>

#include "../config_json.hpp"
#include "common.hpp"

namespace burn::nn::loss {

BURN_CONFIG_JSON(CtcLossConfig, blank, zero_infinity)

namespace detail {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

H int_tensor(const std::vector<int64_t>& v, const Shape& s, const Device& d) {
  return api::from_data(d, TensorData::from_vector(v, s), Kind::Int);
}
H bool_tensor(const std::vector<int64_t>& v, const Shape& s, const Device& d) {
  return api::compare_elem(OpId::equal_elem, int_tensor(v, s, d), 1);
}

// log(sum exp) of the last dim of [n, k] -> [n, 1], or of the elementwise terms; positions whose
// terms are all -inf give -inf with a zero (not NaN) gradient. The max is detached: the gradient of
// logsumexp does not depend on the shift.
H log_sum_exp(const std::vector<H>& terms) {
  H m = terms[0];
  for (size_t i = 1; i < terms.size(); ++i) m = api::maximum(m, terms[i]);
  m = api::detach(m);
  const H dead = api::compare_elem(OpId::equal_elem, m, kNegInf);
  const H ms = api::mask_fill(m, dead, 0.0);
  H sum = api::unary(OpId::exp, api::sub(terms[0], ms));
  for (size_t i = 1; i < terms.size(); ++i) sum = api::add(sum, api::unary(OpId::exp, api::sub(terms[i], ms)));
  sum = api::mask_fill(sum, dead, 1.0);
  return api::mask_fill(api::add(api::unary(OpId::log, sum), ms), dead, kNegInf);
}

// The [n, l] tensor shifted right by k along dim 1, -inf coming in.
H shift_right(const H& a, int64_t k, int64_t n, int64_t l) {
  const H fill = api::full(a.device, Shape{n, std::min(k, l)}, kNegInf, a.prim->dtype());
  if (k >= l) return api::full(a.device, Shape{n, l}, kNegInf, a.prim->dtype());
  return api::cat({fill, api::narrow(a, 1, 0, l - k)}, 1);
}

}  // namespace

H ctc(const H& log_probs, const H& targets, const H& input_lengths, const H& target_lengths, int64_t blank,
      bool zero_infinity, Red r) {
  const char* op = "CtcLoss";
  require_float(log_probs, op, "log_probs", 3);
  require_int(targets, op, "targets", 2);
  require_int(input_lengths, op, "input_lengths", 1);
  require_int(target_lengths, op, "target_lengths", 1);
  refuse_batch_mean(r, op);
  const Shape& ls = log_probs.prim->shape();
  const int64_t tmax = ls[0], n = ls[1], c = ls[2];
  const int64_t smax = targets.prim->shape()[1];
  if (targets.prim->shape()[0] != n || input_lengths.prim->shape()[0] != n || target_lengths.prim->shape()[0] != n)
    throw ShapeError(op, "targets " + targets.prim->shape().to_string() + ", input_lengths " +
                             input_lengths.prim->shape().to_string() + " and target_lengths " +
                             target_lengths.prim->shape().to_string() + " must have the batch size of log_probs " +
                             ls.to_string() + " (dim 1)");
  if (blank < 0 || blank >= c)
    throw ValueError(op, "blank " + std::to_string(blank) + " is not a class of " + std::to_string(c));
  const std::vector<int64_t> in_len = int_values(input_lengths), tg_len = int_values(target_lengths);
  const std::vector<int64_t> tg = int_values(targets);
  const Device& d = log_probs.device;
  const int64_t l = 2 * smax + 1;  // the extended sequence: blank, y1, blank, y2, ..., blank
  std::vector<int64_t> ext(n * l, blank), skip(n * l, 0), active(n * tmax, 0), last(n * 2, 0), single(n * 2, 0);
  for (int64_t b = 0; b < n; ++b) {
    if (in_len[b] < 1 || in_len[b] > tmax)
      throw ValueError(op, "input_lengths[" + std::to_string(b) + "] = " + std::to_string(in_len[b]) +
                               " is not in [1, " + std::to_string(tmax) + "]");
    if (tg_len[b] < 0 || tg_len[b] > smax)
      throw ValueError(op, "target_lengths[" + std::to_string(b) + "] = " + std::to_string(tg_len[b]) +
                               " is not in [0, " + std::to_string(smax) + "]");
    for (int64_t k = 0; k < tg_len[b]; ++k) {
      const int64_t y = tg[b * smax + k];
      if (y < 0 || y >= c || y == blank)
        throw ValueError(op, "targets[" + std::to_string(b) + ", " + std::to_string(k) + "] = " + std::to_string(y) +
                                 " is not a class of " + std::to_string(c) + " other than the blank " +
                                 std::to_string(blank));
      ext[b * l + 2 * k + 1] = y;
      // A label may be reached from two back unless it repeats the label before it.
      if (k > 0 && y != tg[b * smax + k - 1]) skip[b * l + 2 * k + 1] = 1;
    }
    for (int64_t t = 0; t < in_len[b]; ++t) active[b * tmax + t] = 1;
    const int64_t lb = 2 * tg_len[b] + 1;
    last[b * 2] = lb - 1;
    last[b * 2 + 1] = lb >= 2 ? lb - 2 : 0;
    single[b * 2 + 1] = lb >= 2 ? 0 : 1;  // an empty target ends only in its one blank
  }
  const H ext_t = int_tensor(ext, Shape{n, l}, d);
  const H no_skip = api::unary(OpId::bool_not, bool_tensor(skip, Shape{n, l}, d));
  const H act = bool_tensor(active, Shape{n, tmax}, d);

  // Emissions [n, tmax, l]: log_probs[t, b, ext[b, s]].
  const H lp = api::permute(log_probs, {1, 0, 2});
  const H em = api::gather(lp, 2, api::repeat(api::reshape(ext_t, {n, 1, l}), {1, tmax, 1}));
  auto emission = [&](int64_t t) { return api::reshape(api::narrow(em, 1, t, 1), {n, l}); };

  // alpha_0: the first blank or the first label.
  std::vector<int64_t> first(n * l, 0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t s = 0; s < std::min<int64_t>(l, 2); ++s) first[b * l + s] = 1;
  const H neg_inf = api::full(d, Shape{n, l}, kNegInf, log_probs.prim->dtype());
  H alpha = api::mask_where(neg_inf, bool_tensor(first, Shape{n, l}, d), emission(0));
  for (int64_t t = 1; t < tmax; ++t) {
    const H a1 = shift_right(alpha, 1, n, l);
    const H a2 = api::mask_fill(shift_right(alpha, 2, n, l), no_skip, kNegInf);
    const H next = api::add(log_sum_exp({alpha, a1, a2}), emission(t));
    // Sequences already past their input length keep their last alpha.
    alpha = api::mask_where(alpha, api::narrow(act, 1, t, 1), next);
  }
  // The path ends in the last label or the blank after it.
  H ends = api::gather(alpha, 1, int_tensor(last, Shape{n, 2}, d));
  ends = api::mask_fill(ends, bool_tensor(single, Shape{n, 2}, d), kNegInf);
  H nll =
      api::unary(OpId::neg, api::reshape(log_sum_exp({api::narrow(ends, 1, 0, 1), api::narrow(ends, 1, 1, 1)}), {n}));
  if (zero_infinity) nll = api::mask_fill(nll, api::unary(OpId::is_inf, nll), 0.0);
  if (!r || *r == Reduction::Sum) return reduce(nll, r, op);
  // PyTorch's mean: each loss over its target length (at least 1), then the batch mean.
  const H lens = api::clamp_min(like(target_lengths, log_probs), 1.0);
  return api::reduce_all(OpId::mean, api::div(nll, lens));
}

}  // namespace detail

CtcLoss CtcLossConfig::init() const {
  if (blank < 0) throw ValueError("CtcLossConfig::init", "blank must be >= 0, got " + std::to_string(blank));
  return CtcLoss{blank, zero_infinity};
}

}  // namespace burn::nn::loss
