#!/usr/bin/python3
"""PyTorch values for burn-nn's loss tests: each loss under each reduction, its value and the
gradient w.r.t. its inputs (of the loss itself for mean/sum/batchmean, of sum(loss * gout) for
none). Run with Debian's /usr/bin/python3 (torch, float64); writes fixtures/loss.json."""
import json, os
import torch
import torch.nn.functional as F

torch.manual_seed(20261125)
out = {}

def t(x):
    x = x.detach()
    d = {"shape": list(x.shape) if x.dim() > 0 else [1], "values": x.double().flatten().tolist()}
    if not x.is_floating_point():
        d["int"] = True
    return d

def case(name, fn, inputs, grads, reductions=("mean", "sum", "none")):
    """fn(reduction, **inputs) -> loss; grads: the float inputs whose gradient is recorded."""
    entry = {"inputs": {k: t(v) for k, v in inputs.items()}}
    for red in reductions:
        xs = {k: (v.clone().requires_grad_(True) if k in grads else v.clone()) for k, v in inputs.items()}
        y = fn(red, **xs)
        res = {"value": t(y)}
        if red == "none":
            g = torch.randn_like(y)
            (y * g).sum().backward()
            res["gout"] = t(g)
        else:
            y.backward()
        res["grad"] = {k: t(xs[k].grad) for k in grads}
        entry[red] = res
    out[name] = entry

f64 = torch.float64
randn = lambda *s: torch.randn(*s, dtype=f64)
rand = lambda *s: torch.rand(*s, dtype=f64)

# ---- classification ----
ce_x = randn(6, 5) * 2
ce_t = torch.tensor([0, 4, 2, 1, 2, 3])
case("ce_logits", lambda r, x, t: F.cross_entropy(x, t, reduction=r), {"x": ce_x, "t": ce_t}, ["x"])
ce_w = torch.tensor([0.5, 1.0, 2.0, 0.25, 1.5], dtype=f64)
case("ce_weights_smoothing_pad",
     lambda r, x, t, w: F.cross_entropy(x, t, weight=w, ignore_index=2, label_smoothing=0.1, reduction=r),
     {"x": ce_x, "t": ce_t, "w": ce_w}, ["x"])
ce_t2 = torch.tensor([3, -100, 1, 0, -100, 4])
case("ce_smoothing_pad_neg",
     lambda r, x, t: F.cross_entropy(x, t, ignore_index=-100, label_smoothing=0.25, reduction=r),
     {"x": ce_x, "t": ce_t2}, ["x"])
ce_p = torch.softmax(randn(6, 5), 1)
case("ce_probs_weights", lambda r, x, t, w: F.nll_loss(x.log(), t, weight=w, reduction=r),
     {"x": ce_p, "t": ce_t, "w": ce_w}, ["x"])

bce_w = torch.tensor([0.5, 1.0, 2.0, 1.5], dtype=f64)
case("bce_probs_weights", lambda r, x, y, w: F.binary_cross_entropy(x, y, weight=w.expand_as(x), reduction=r),
     {"x": torch.sigmoid(randn(2, 3, 4)), "y": rand(2, 3, 4), "w": bce_w}, ["x"])
bl_x = randn(5, 4) * 3
bl_x[0, 0], bl_x[1, 2], bl_x[3, 1] = 40.0, -45.0, 30.0  # saturated logits: the stable form stays finite
bl_y = (rand(5, 4) > 0.5).double()
bce_pw = torch.tensor([3.0, 0.5, 1.0, 2.0], dtype=f64)
case("bce_logits_weights_pos_weight",
     lambda r, x, y, w, pw: F.binary_cross_entropy_with_logits(x, y, weight=w, pos_weight=pw, reduction=r),
     {"x": bl_x, "y": bl_y, "w": bce_w, "pw": bce_pw}, ["x"])
case("bce_logits_smoothing",
     lambda r, x, y: F.binary_cross_entropy_with_logits(x, y * 0.8 + 0.1, reduction=r),
     {"x": bl_x, "y": bl_y}, ["x"])

mm_x = randn(5, 4)
mm_t = torch.tensor([0, 3, 1, 1, 2])
case("multi_margin_p1", lambda r, x, t: F.multi_margin_loss(x, t, p=1, margin=1.0, reduction=r),
     {"x": mm_x, "t": mm_t}, ["x"])
case("multi_margin_p2_weights",
     lambda r, x, t, w: F.multi_margin_loss(x, t, p=2, margin=0.5, weight=w, reduction=r),
     {"x": mm_x, "t": mm_t, "w": bce_w}, ["x"])
case("soft_margin", lambda r, x, y: F.soft_margin_loss(x, y, reduction=r),
     {"x": randn(3, 4) * 2, "y": torch.where(rand(3, 4) > 0.5, 1.0, -1.0).double()}, ["x"])

# ---- regression ----
rx, ry = randn(3, 4) * 2, randn(3, 4)
case("mse", lambda r, x, y: F.mse_loss(x, y, reduction=r), {"x": rx, "y": ry}, ["x", "y"])
case("l1", lambda r, x, y: F.l1_loss(x, y, reduction=r), {"x": rx, "y": ry}, ["x", "y"])
case("huber", lambda r, x, y: F.huber_loss(x, y, delta=0.7, reduction=r), {"x": rx, "y": ry}, ["x", "y"])
case("smooth_l1", lambda r, x, y: F.smooth_l1_loss(x, y, beta=0.5, reduction=r), {"x": rx, "y": ry}, ["x", "y"])
case("smooth_l1_beta0", lambda r, x, y: F.smooth_l1_loss(x, y, beta=0.0, reduction=r), {"x": rx, "y": ry}, ["x"])

kl_x = torch.log_softmax(randn(4, 5), 1)
kl_y = torch.softmax(randn(4, 5), 1)
kl_y[1, 2] = 0.0  # 0 log 0 is 0
kl_y[3, 0] = 0.0
case("kl_div", lambda r, x, y: F.kl_div(x, y, reduction=r, log_target=False), {"x": kl_x, "y": kl_y}, ["x"],
     ("mean", "sum", "batchmean", "none"))
case("kl_div_log_target", lambda r, x, y: F.kl_div(x, y, reduction=r, log_target=True),
     {"x": kl_x, "y": torch.log_softmax(randn(4, 5), 1)}, ["x", "y"], ("batchmean", "sum", "none"))

pn_y = torch.tensor([[0., 1., 2., 5.], [3., 0., 7., 1.], [2., 4., 0., 12.]], dtype=f64)
case("poisson_log_input", lambda r, x, y: F.poisson_nll_loss(x, y, log_input=True, full=False, reduction=r),
     {"x": randn(3, 4), "y": pn_y}, ["x"])
case("poisson_rate_full", lambda r, x, y: F.poisson_nll_loss(x, y, log_input=False, full=True, reduction=r),
     {"x": rand(3, 4) * 4 + 0.1, "y": pn_y}, ["x"])

gv = rand(4, 3) + 0.2
gv[1, 1] = 1e-8  # below eps: clamped for the value, the gradient passes
case("gaussian_nll", lambda r, x, y, v: F.gaussian_nll_loss(x, y, v, full=False, reduction=r),
     {"x": randn(4, 3), "y": randn(4, 3), "v": gv}, ["x", "v"])
case("gaussian_nll_full_row_var", lambda r, x, y, v: F.gaussian_nll_loss(x, y, v, full=True, reduction=r),
     {"x": randn(4, 3), "y": randn(4, 3), "v": rand(4) + 0.5}, ["x", "v"])
case("gaussian_nll_last_dim_1", lambda r, x, y, v: F.gaussian_nll_loss(x, y, v, full=False, reduction=r),
     {"x": randn(4, 3), "y": randn(4, 3), "v": rand(4, 1) + 0.5}, ["x", "v"])

# ---- embedding / ranking ----
ce1 = randn(6, 4)
ce2 = randn(6, 4)
ce2[1] = ce1[1] * 0.9 + randn(4) * 0.1  # cos > margin for a dissimilar pair
ce2[4] = ce1[4] + randn(4) * 0.2
case("cosine_embedding", lambda r, a, b, y: F.cosine_embedding_loss(a, b, y, margin=0.2, reduction=r),
     {"a": ce1, "b": ce2, "y": torch.tensor([1, -1, -1, 1, -1, 1])}, ["a", "b"])
case("hinge_embedding", lambda r, x, y: F.hinge_embedding_loss(x, y, margin=0.8, reduction=r),
     {"x": randn(3, 4) * 1.5, "y": torch.where(rand(3, 4) > 0.5, 1.0, -1.0).double()}, ["x"])
case("margin_ranking", lambda r, a, b, y: F.margin_ranking_loss(a, b, y, margin=0.3, reduction=r),
     {"a": randn(7), "b": randn(7), "y": torch.tensor([1., -1., 1., 1., -1., -1., 1.], dtype=f64)}, ["a", "b"])
ta, tp, tn = randn(5, 4), randn(5, 4), randn(5, 4)
tp[0] = ta[0] + 0.1 * randn(4)
case("triplet", lambda r, a, p, n: F.triplet_margin_loss(a, p, n, margin=1.0, p=2, reduction=r),
     {"a": ta, "p": tp, "n": tn}, ["a", "p", "n"])
case("triplet_p1_swap", lambda r, a, p, n: F.triplet_margin_loss(a, p, n, margin=0.5, p=1, swap=True, reduction=r),
     {"a": ta, "p": tp, "n": tn}, ["a", "p", "n"])
case("triplet_p3", lambda r, a, p, n: F.triplet_margin_loss(a, p, n, margin=2.0, p=3, eps=1e-4, reduction=r),
     {"a": ta, "p": tp, "n": tn}, ["a", "p", "n"])

# ---- CTC: the gradient w.r.t. the logits x of log_probs = log_softmax(x) ----
ctc_x = randn(12, 3, 5)
ctc_t = torch.tensor([[1, 1, 2, 3], [2, 4, 4, 0], [0, 0, 0, 0]])
case("ctc", lambda r, x, t, il, tl: F.ctc_loss(torch.log_softmax(x, 2), t, il, tl, blank=0, reduction=r),
     {"x": ctc_x, "t": ctc_t, "il": torch.tensor([12, 10, 9]), "tl": torch.tensor([4, 3, 0])}, ["x"])
# blank 4; the third sequence (1, 1, 2 in 3 steps) has no alignment: infinite, zeroed.
ctc_t2 = torch.tensor([[1, 2, 3], [3, 3, 0], [1, 1, 2]])
case("ctc_blank4_zero_inf",
     lambda r, x, t, il, tl: F.ctc_loss(torch.log_softmax(x, 2), t, il, tl, blank=4, reduction=r, zero_infinity=True),
     {"x": ctc_x[:8], "t": ctc_t2, "il": torch.tensor([8, 7, 3]), "tl": torch.tensor([3, 2, 3])}, ["x"])
# Longer sequences: 40 steps, 7 classes, targets up to 12 labels with repeats.
ctc_lx = randn(40, 4, 7) * 2
ctc_lt = torch.randint(1, 7, (4, 12))
ctc_lt[0, 3] = ctc_lt[0, 2]
case("ctc_long", lambda r, x, t, il, tl: F.ctc_loss(torch.log_softmax(x, 2), t, il, tl, blank=0, reduction=r),
     {"x": ctc_lx, "t": ctc_lt, "il": torch.tensor([40, 33, 38, 25]), "tl": torch.tensor([12, 9, 11, 5])}, ["x"])
# Probabilities with smoothing, weights and a pad token: torch's label-smoothing formula on log p
# (F.cross_entropy would put a log_softmax in front, which changes the gradient w.r.t. p).
def ce_probs_smooth(r, x, t, w, s=0.2, pad=3):
    lp = x.log()
    keep = t != pad
    tt = torch.where(keep, t, torch.zeros_like(t))
    wt = w[tt] * keep
    nll = -lp.gather(1, tt[:, None])[:, 0] * wt
    smooth = -(lp * w).sum(1) * keep
    loss = (1 - s) * nll + s / x.shape[1] * smooth
    return {"none": loss, "sum": loss.sum(), "mean": loss.sum() / wt.sum()}[r]
case("ce_probs_smoothing_pad", ce_probs_smooth,
     {"x": torch.softmax(randn(6, 5), 1), "t": torch.tensor([3, 1, 0, 3, 4, 2]), "w": ce_w}, ["x"])

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "fixtures", "loss.json"), "w") as f:
    json.dump(out, f, allow_nan=False)
