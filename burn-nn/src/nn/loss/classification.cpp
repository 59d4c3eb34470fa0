// Classification losses as composites of tensor ops, so autodiff differentiates them.
#include "burn/nn/loss/classification.hpp"

#include "../config_json.hpp"
#include "common.hpp"

namespace burn::nn::loss {

BURN_CONFIG_JSON(CrossEntropyLossConfig, pad_tokens, weights, smoothing, logits)
BURN_CONFIG_JSON(BinaryCrossEntropyLossConfig, weights, pos_weight, smoothing, logits)
BURN_CONFIG_JSON(MultiMarginLossConfig, p, margin, weights)

namespace detail {

namespace {

// Per-class weights as [classes] like the input; ShapeError naming the loss otherwise.
H class_weights(const H* w, const H& input, int64_t classes, const char* op, const char* what) {
  if (!w) return {};
  require_float(*w, op, what, 1);
  if (w->prim->shape()[0] != classes)
    throw ShapeError(op, std::string(what) + " " + w->prim->shape().to_string() + " must have one value per class (" +
                             std::to_string(classes) + ")");
  return like(*w, input);
}

// Every target a class in [0, classes); IndexError naming the loss, the row and the value.
void check_classes(const H& targets, int64_t classes, const char* op, const char* also = "") {
  const std::vector<int64_t> t = int_values(targets);
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i] < 0 || t[i] >= classes)
      throw IndexError(op, "target " + std::to_string(t[i]) + " of row " + std::to_string(i) + " is not a class of " +
                               std::to_string(classes) + also);
}

void check_rows(const H& input, const H& targets, const char* op) {
  require_float(input, op, "input", 2);
  require_int(targets, op, "targets", 1);
  if (targets.prim->shape()[0] != input.prim->shape()[0])
    throw ShapeError(op, "targets " + targets.prim->shape().to_string() +
                             " must have one class index per row of input " + input.prim->shape().to_string());
}

}  // namespace

H cross_entropy(const H& input, const H& targets, const std::vector<int64_t>& pad_tokens, const H* weights,
                double smoothing, bool logits, Red r) {
  const char* op = "CrossEntropyLoss";
  check_rows(input, targets, op);
  const int64_t n = input.prim->shape()[0], c = input.prim->shape()[1];
  if (!(smoothing >= 0.0 && smoothing <= 1.0))
    throw ValueError(op, "smoothing must be in [0, 1], got " + num(smoothing));
  refuse_batch_mean(r, op);
  const H w = class_weights(weights, input, c, op, "weights");

  // Rows whose target is a pad token count nowhere: their class is replaced by 0 to be gathered.
  H pad;
  for (int64_t p : pad_tokens) {
    H m = api::compare_elem(OpId::equal_elem, targets, p);
    pad = pad.prim ? api::bool_binary(OpId::bool_or, pad, m) : m;
  }
  const H t = pad.prim ? api::mask_fill(targets, pad, 0) : targets;
  check_classes(t, c, op, pad.prim ? " nor a pad token" : "");

  const H logp = logits ? api::log_softmax(input, 1) : api::unary(OpId::log, input);
  const H nll = api::unary(OpId::neg, api::reshape(api::gather(logp, 1, api::unsqueeze_dims(t, {1})), {n}));
  H wt = w.prim ? api::select(w, 0, t) : api::full(input.device, Shape{n}, 1.0, input.prim->dtype());
  if (pad.prim) wt = api::mask_fill(wt, pad, 0.0);
  H loss = api::mul(nll, wt);
  if (smoothing > 0.0) {
    // torch's label smoothing: (1 - s) nll + s / C * sum_c w_c (-log p_c).
    const H lw = w.prim ? api::mul(logp, api::unsqueeze_dims(w, {0})) : logp;
    H smooth = api::unary(OpId::neg, api::reshape(api::reduce_dim(OpId::sum_dim, lw, 1), {n}));
    if (pad.prim) smooth = api::mask_fill(smooth, pad, 0.0);
    loss =
        api::add(api::mul_scalar(loss, 1.0 - smoothing), api::mul_scalar(smooth, smoothing / static_cast<double>(c)));
  }
  if (pad.prim) loss = api::mask_fill(loss, pad, 0.0);  // a 0 probability must not leak a NaN
  if (!r || *r == Reduction::Sum) return reduce(loss, r, op);
  // As nll_loss: the mean weighs each row by its target's weight (1 each without weights).
  return api::div(api::reduce_all(OpId::sum, loss), api::reduce_all(OpId::sum, wt));
}

H binary_cross_entropy(const H& input, const H& targets, const H* weights, const H* pos_weight, double smoothing,
                       bool logits, Red r) {
  const char* op = "BinaryCrossEntropyLoss";
  require_float(input, op, "input");
  require_float(targets, op, "targets");
  require_same_shape(input, targets, op, "input", "targets");
  if (!(smoothing >= 0.0 && smoothing <= 1.0))
    throw ValueError(op, "smoothing must be in [0, 1], got " + num(smoothing));
  if (pos_weight && !logits) throw ValueError(op, "pos_weight needs logits = true (torch's BCEWithLogitsLoss)");
  const Shape& s = input.prim->shape();
  const int64_t c = s[s.rank() - 1];
  const H w = class_weights(weights, input, c, op, "weights");
  const H pw = class_weights(pos_weight, input, c, op, "pos_weight");
  if (!logits) {
    auto [lo, hi] = min_max(input);
    if (!(lo >= 0.0 && hi <= 1.0))
      throw ValueError(op, "input probabilities must be in [0, 1], got values in [" + num(lo) + ", " + num(hi) +
                               "] (logits = true takes logits)");
  }
  const H y = smoothing > 0.0 ? api::add_scalar(api::mul_scalar(targets, 1.0 - smoothing), smoothing / 2.0) : targets;
  H loss;
  if (logits) {
    // (1 - y) x + (1 + (pw - 1) y) softplus(-x), with softplus(-x) = -log_sigmoid(x): no overflow.
    H ls = api::unary(OpId::log_sigmoid, input);
    if (pw.prim) ls = api::mul(ls, api::add_scalar(api::mul(y, api::sub_scalar(pw, 1.0)), 1.0));
    loss = api::sub(api::mul(api::rsub_scalar(y, 1.0), input), ls);
  } else {
    // PyTorch clamps the logs at -100 so that a probability of 0 or 1 gives a finite loss.
    const H lp = api::clamp_min(api::unary(OpId::log, input), -100.0);
    const H l1p = api::clamp_min(api::unary(OpId::log, api::rsub_scalar(input, 1.0)), -100.0);
    loss = api::unary(OpId::neg, api::add(api::mul(y, lp), api::mul(api::rsub_scalar(y, 1.0), l1p)));
  }
  if (w.prim) loss = api::mul(loss, w);
  return reduce(loss, r, op);
}

H multi_margin(const H& input, const H& targets, int p, double margin, const H* weights, Red r) {
  const char* op = "MultiMarginLoss";
  check_rows(input, targets, op);
  if (p != 1 && p != 2) throw ValueError(op, "p must be 1 or 2, got " + std::to_string(p));
  const int64_t n = input.prim->shape()[0], c = input.prim->shape()[1];
  const H w = class_weights(weights, input, c, op, "weights");
  check_classes(targets, c, op);
  const H t = api::unsqueeze_dims(targets, {1});
  // max(0, margin - x[y] + x[j]) for every j, then the target's own column dropped.
  H z = api::clamp_min(api::add(input, api::rsub_scalar(api::gather(input, 1, t), margin)), 0.0);
  if (p == 2) z = api::unary(OpId::square, z);
  const H own = api::compare_elem(OpId::equal_elem, api::one_hot(targets, c, DType::I64), 1);
  z = api::mask_fill(z, own, 0.0);
  if (w.prim) z = api::mul(z, api::unsqueeze_dims(api::select(w, 0, targets), {1}));
  const H loss = api::div_scalar(api::reshape(api::reduce_dim(OpId::sum_dim, z, 1), {n}), static_cast<double>(c));
  return reduce(loss, r, op);
}

H soft_margin(const H& input, const H& targets, Red r) {
  const char* op = "SoftMarginLoss";
  require_float(input, op, "input");
  require_float(targets, op, "targets");
  require_same_shape(input, targets, op, "input", "targets");
  return reduce(api::unary(OpId::neg, api::unary(OpId::log_sigmoid, api::mul(targets, input))), r, op);
}

}  // namespace detail

CrossEntropyLoss CrossEntropyLossConfig::init(const Device& device) const {
  if (!(smoothing >= 0.0 && smoothing <= 1.0))
    throw ValueError("CrossEntropyLossConfig::init", "smoothing must be in [0, 1], got " + detail::num(smoothing));
  CrossEntropyLoss l;
  l.pad_tokens = pad_tokens;
  l.weights = detail::class_vector(weights, device);
  l.smoothing = smoothing;
  l.logits = logits;
  return l;
}

BinaryCrossEntropyLoss BinaryCrossEntropyLossConfig::init(const Device& device) const {
  const char* op = "BinaryCrossEntropyLossConfig::init";
  if (!(smoothing >= 0.0 && smoothing <= 1.0))
    throw ValueError(op, "smoothing must be in [0, 1], got " + detail::num(smoothing));
  if (!pos_weight.empty() && !logits) throw ValueError(op, "pos_weight needs logits = true");
  BinaryCrossEntropyLoss l;
  l.weights = detail::class_vector(weights, device);
  l.pos_weight = detail::class_vector(pos_weight, device);
  l.smoothing = smoothing;
  l.logits = logits;
  return l;
}

MultiMarginLoss MultiMarginLossConfig::init(const Device& device) const {
  if (p != 1 && p != 2) throw ValueError("MultiMarginLossConfig::init", "p must be 1 or 2, got " + std::to_string(p));
  MultiMarginLoss l;
  l.p = p;
  l.margin = margin;
  l.weights = detail::class_vector(weights, device);
  return l;
}

}  // namespace burn::nn::loss
