// Losses: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss, composed from gathers and sums.
#include "engine.hpp"

namespace burn::onnx {
namespace {

using Hs = std::vector<H>;

// NLL over log-probabilities [N, C, d...] and targets [N, d...], with optional class weights and an
// ignored target value; reduction "none", "sum" or "mean" (divided by the summed weights).
H nll(OpContext& c, const H& logp, const H& target, const std::optional<H>& weight) {
  std::string red = c.attr_s("reduction", "mean");
  H t = target.prim->dtype() == DType::I64 ? target : api::cast(target, DType::I64);
  std::optional<H> ignored;
  if (c.has_attr("ignore_index")) {
    ignored = api::compare_elem(OpId::equal_elem, t, Scalar(c.attr_i("ignore_index", -100)));
    t = api::mask_fill(t, *ignored, Scalar(int64_t{0}));
  }
  H picked = api::squeeze_dims(api::gather(logp, 1, api::unsqueeze_dims(t, {1})), {1});
  DType dt = logp.prim->dtype();
  H w = weight ? api::reshape(api::select(*weight, 0, api::reshape(t, {-1})), shape_of(t).dims())
               : api::full(logp.device, shape_of(t), Scalar(1.0), dt);
  if (ignored) w = api::mask_fill(w, *ignored, Scalar(0.0));
  H loss = api::mul(api::unary(OpId::neg, picked), w);
  if (red == "none") return loss;
  H total = api::reshape(api::reduce_all(OpId::sum, loss), std::vector<int64_t>{});
  if (red == "sum") return total;
  if (red != "mean") c.invalid("reduction '" + red + "'");
  return api::div(total, api::reshape(api::reduce_all(OpId::sum, w), std::vector<int64_t>{}));
}

Hs nll_loss(OpContext& c) { return {nll(c, c.in(0), c.in(1), c.has(2) ? std::optional<H>(c.in(2)) : std::nullopt)}; }

Hs softmax_cross_entropy(OpContext& c) {
  H logp = api::log_softmax(c.in(0), 1);
  H loss = nll(c, logp, c.in(1), c.has(2) ? std::optional<H>(c.in(2)) : std::nullopt);
  if (c.wants_output(1)) return {loss, logp};
  return {loss};
}

}  // namespace

void add_loss_ops(std::vector<OpRow>& r) {
  const int k = kMaxOpset;
  r.insert(r.end(), {
                        {"NegativeLogLikelihoodLoss", 12, k, nll_loss},
                        {"SoftmaxCrossEntropyLoss", 12, k, softmax_cross_entropy},
                    });
}

}  // namespace burn::onnx
