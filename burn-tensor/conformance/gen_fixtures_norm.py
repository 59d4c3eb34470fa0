#!/usr/bin/python3
# Writes the PyTorch reference fixtures of the norm and attention module ops: fixtures/norm.json and
# fixtures/attention.json. Run with Debian's python3-torch: /usr/bin/python3 gen_fixtures_norm.py
#
# References are computed in float64 and cast to the case's dtype. Conventions encoded here:
# - calls take x, then the optional inputs present per attrs ("weight", "bias", "running"), then grad_out;
# - *_backward return {grad_x, grad_weight (when a weight is given), grad_bias} (layer/group/batch: grad_bias
#   is always returned since it does not depend on the bias; rms_norm has none); gradients come from
#   torch.autograd.grad with a random grad_out;
# - batch_norm returns [y, new running_mean, new running_var] when training with running stats (updated
#   with momentum and the unbiased batch variance, as torch), else [y];
# - rms_norm(x) = x / sqrt(mean(x^2 over the last dims) + eps) * weight (torch 1.13 has no F.rms_norm);
# - attention: softmax(q @ k^T * scale masked_fill(mask, -inf)) @ v with mask true = masked out (Burn's
#   convention); causal masks j > i (top-left alignment, as torch's is_causal); a fully masked row is NaN.
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_fixtures import Gen, Group, apply_pre, lbl, randbool, randn, sampled, f32, f64, i64  # noqa: E402

BWD_TOL = {f32: (1e-4, 2e-5), f64: (1e-9, 1e-11)}


def d(x):
    return None if x is None else x.detach().to(f64)


def inputs_of(x, w, b, rm=None, rv=None, go=None):
    return [t for t in [x, w, b, rm, rv, go] if t is not None]


def flags(w, b, rm=None):
    return {"weight": w is not None, "bias": b is not None, "running": rm is not None}


def grads(fn, x, w, go, dt):
    """{grad_x, grad_weight (if w), grad_bias} of fn(x, w, b) with a zero bias, in f64, cast to dt."""
    xd = d(x).requires_grad_(True)
    wd = d(w).requires_grad_(True) if w is not None else None
    bd = torch.zeros(fn.bias_shape, dtype=f64, requires_grad=True) if fn.bias_shape is not None else None
    # A weight of ones stands in for an absent one (torch 1.13's group_norm backward needs one with a bias).
    wf = wd if wd is not None or fn.bias_shape is None else torch.ones(fn.bias_shape, dtype=f64)
    y = fn(xd, wf, bd)
    want = [xd] + ([wd] if wd is not None else []) + ([bd] if bd is not None else [])
    gs = torch.autograd.grad(y, want, d(go))
    return [g.to(dt) for g in gs]


class Fn:
    def __init__(self, f, bias_shape):
        self.f, self.bias_shape = f, bias_shape

    def __call__(self, *a):
        return self.f(*a)


def rms_ref(x, w, nd, eps):
    dims = tuple(range(x.dim() - nd, x.dim()))
    y = x / torch.sqrt(x.pow(2).mean(dims, keepdim=True) + eps)
    return y * w if w is not None else y


# ============================================================================ norm
def gen_norm():
    g = Group("norm")

    # ---- layer_norm
    for dt in [f32, f64]:
        for shape, nd in [([4, 6], 1), ([2, 3, 4, 5], 2), ([3, 2, 5], 3), ([7], 1)]:
            wshape = shape[len(shape) - nd:]
            for aff in ["wb", "w", "none"]:
                x = randn(*shape, dtype=dt, scale=2.0) + 0.5
                w = randn(*wshape, dtype=dt) if aff in ("wb", "w") else None
                b = randn(*wshape, dtype=dt) if aff == "wb" else None
                for eps in [1e-5] if aff != "none" else [1e-5, 0.1]:
                    y = F.layer_norm(d(x), wshape, d(w), d(b), eps).to(dt)
                    name = f"layer_norm_{lbl(dt)}_{'x'.join(map(str, shape))}_nd{nd}_{aff}_eps{eps:g}".replace(".", "p").replace("-", "m")
                    g.add(name, "layer_norm", "layer_norm", inputs_of(x, w, b), y,
                          attrs={"normalized_dims": nd, "eps": eps, **flags(w, b)},
                          torch_expr=f"F.layer_norm(x, {wshape}, w, b, {eps})")
                go = randn(*shape, dtype=dt)
                fn = Fn(lambda xx, ww, bb, wshape=wshape: F.layer_norm(xx, wshape, ww, bb, 1e-5), wshape)
                g.add(f"layer_norm_backward_{lbl(dt)}_{'x'.join(map(str, shape))}_nd{nd}_{aff}", "layer_norm_backward",
                      "layer_norm_backward", inputs_of(x, w, None, go=go), grads(fn, x, w, go, dt),
                      attrs={"normalized_dims": nd, "eps": 1e-5, **flags(w, None)}, rtol=BWD_TOL[dt][0], atol=BWD_TOL[dt][1],
                      torch_expr="autograd.grad(F.layer_norm(x, shape, w, b), (x, w, b), go)")
    # non-contiguous x (transposed) with weight and bias
    for dt in [f32, f64]:
        x = randn(6, 4, dtype=dt)
        w, b = randn(6, dtype=dt), randn(6, dtype=dt)
        xt = x.t()
        g.add(f"layer_norm_transposed_{lbl(dt)}", "layer_norm", "layer_norm", [x, w, b],
              F.layer_norm(d(xt), [6], d(w), d(b), 1e-5).to(dt), pre={0: [{"kind": "transpose", "a": 0, "b": 1}]},
              attrs={"normalized_dims": 1, "eps": 1e-5, **flags(w, b)}, torch_expr="F.layer_norm(x.t(), [6], w, b)")
        go = randn(4, 6, dtype=dt)
        fn = Fn(lambda xx, ww, bb: F.layer_norm(xx, [6], ww, bb, 1e-5), [6])
        g.add(f"layer_norm_backward_transposed_{lbl(dt)}", "layer_norm_backward", "layer_norm_backward", [x, w, go],
              grads(fn, xt, w, go, dt), pre={0: [{"kind": "transpose", "a": 0, "b": 1}]},
              attrs={"normalized_dims": 1, "eps": 1e-5, **flags(w, None)}, rtol=BWD_TOL[dt][0], atol=BWD_TOL[dt][1],
              torch_expr="autograd.grad(F.layer_norm(x.t(), [6], w, b), (x, w, b), go)")
    # large: many rows, threaded paths
    xl = Gen([300, 257], f32, 0.003, offset=0.2)
    g.add("layer_norm_large_f32", "layer_norm", "layer_norm", [xl], sampled(F.layer_norm(d(xl.tensor), [257]).float()),
          attrs={"normalized_dims": 1, "eps": 1e-5, **flags(None, None)}, rtol=1e-4, atol=1e-4,
          torch_expr="F.layer_norm(x, [257]), [300, 257]")
    x = randn(2, 3, dtype=f32)
    g.add("layer_norm_error_weight_shape", "layer_norm", "layer_norm", [x, randn(2, dtype=f32)], error="ShapeError",
          attrs={"normalized_dims": 1, "eps": 1e-5, "weight": True})
    g.add("layer_norm_error_zero_dims", "layer_norm", "layer_norm", [x], error="ValueError",
          attrs={"normalized_dims": 0, "eps": 1e-5})
    g.add("layer_norm_error_dims_exceed_rank", "layer_norm", "layer_norm", [x], error="ShapeError",
          attrs={"normalized_dims": 3, "eps": 1e-5})
    g.add("layer_norm_error_int", "layer_norm", "layer_norm", [torch.ones(2, 3, dtype=i64)], error="DTypeError",
          attrs={"normalized_dims": 1, "eps": 1e-5})
    g.add("layer_norm_error_weight_dtype", "layer_norm", "layer_norm", [x, randn(3, dtype=f64)], error="DTypeError",
          attrs={"normalized_dims": 1, "eps": 1e-5, "weight": True})
    g.add("layer_norm_backward_error_grad_shape", "layer_norm_backward", "layer_norm_backward", [x, randn(3, 2, dtype=f32)],
          error="ShapeError", attrs={"normalized_dims": 1, "eps": 1e-5})

    # ---- group_norm
    for dt in [f32, f64]:
        for shape, groups in [([2, 6, 5], 3), ([2, 4, 3, 3], 2), ([3, 4], 4), ([2, 4, 2, 1, 3], 1), ([1, 6, 4], 6)]:
            for aff in ["wb", "w", "none"]:
                c = shape[1]
                x = randn(*shape, dtype=dt, scale=1.5) - 0.3
                w = randn(c, dtype=dt) if aff in ("wb", "w") else None
                b = randn(c, dtype=dt) if aff == "wb" else None
                y = F.group_norm(d(x), groups, d(w), d(b), 1e-5).to(dt)
                sh = 'x'.join(map(str, shape))
                g.add(f"group_norm_{lbl(dt)}_{sh}_g{groups}_{aff}", "group_norm", "group_norm", inputs_of(x, w, b), y,
                      attrs={"num_groups": groups, "eps": 1e-5, **flags(w, b)},
                      torch_expr=f"F.group_norm(x, {groups}, w, b, 1e-5)")
                go = randn(*shape, dtype=dt)
                fn = Fn(lambda xx, ww, bb, groups=groups: F.group_norm(xx, groups, ww, bb, 1e-5), [c])
                g.add(f"group_norm_backward_{lbl(dt)}_{sh}_g{groups}_{aff}", "group_norm_backward", "group_norm_backward",
                      inputs_of(x, w, None, go=go), grads(fn, x, w, go, dt),
                      attrs={"num_groups": groups, "eps": 1e-5, **flags(w, None)}, rtol=BWD_TOL[dt][0], atol=BWD_TOL[dt][1],
                      torch_expr=f"autograd.grad(F.group_norm(x, {groups}, w, b), (x, w, b), go)")
    # non-contiguous: NHWC storage permuted to NCHW
    x = randn(2, 3, 3, 4, dtype=f32)
    p = [{"kind": "permute", "axes": [0, 3, 1, 2]}]
    xp = apply_pre(x, p)
    w, b = randn(4, dtype=f32), randn(4, dtype=f32)
    g.add("group_norm_permuted_f32", "group_norm", "group_norm", [x, w, b], F.group_norm(d(xp), 2, d(w), d(b), 0.01).float(),
          pre={0: p}, attrs={"num_groups": 2, "eps": 0.01, **flags(w, b)}, torch_expr="F.group_norm(x.permute(0,3,1,2), 2, w, b, 0.01)")
    xl = Gen([4, 32, 24, 24], f32, 0.002, offset=-0.1)
    g.add("group_norm_large_f32", "group_norm", "group_norm", [xl], sampled(F.group_norm(d(xl.tensor), 8).float()),
          attrs={"num_groups": 8, "eps": 1e-5, **flags(None, None)}, rtol=1e-4, atol=1e-4,
          torch_expr="F.group_norm(x, 8), [4, 32, 24, 24]")
    x = randn(2, 6, 3, dtype=f32)
    g.add("group_norm_error_groups_not_dividing", "group_norm", "group_norm", [x], error="ValueError",
          attrs={"num_groups": 4, "eps": 1e-5})
    g.add("group_norm_error_zero_groups", "group_norm", "group_norm", [x], error="ValueError",
          attrs={"num_groups": 0, "eps": 1e-5})
    g.add("group_norm_error_weight_shape", "group_norm", "group_norm", [x, randn(3, dtype=f32)], error="ShapeError",
          attrs={"num_groups": 3, "eps": 1e-5, "weight": True})
    g.add("group_norm_error_rank1", "group_norm", "group_norm", [randn(6, dtype=f32)], error="ShapeError",
          attrs={"num_groups": 3, "eps": 1e-5})
    g.add("group_norm_backward_error_groups", "group_norm_backward", "group_norm_backward", [x, randn(2, 6, 3, dtype=f32)],
          error="ValueError", attrs={"num_groups": 5, "eps": 1e-5})

    # ---- batch_norm
    for dt in [f32, f64]:
        for shape in [[5, 3], [4, 3, 6], [2, 4, 3, 3], [2, 2, 2, 2, 2]]:
            c = shape[1]
            sh = 'x'.join(map(str, shape))
            for mode in ["train_running", "train", "eval"]:
                for aff in ["wb", "none"]:
                    x = randn(*shape, dtype=dt, scale=1.3) + 0.7
                    w = randn(c, dtype=dt) if aff == "wb" else None
                    b = randn(c, dtype=dt) if aff == "wb" else None
                    rm = randn(c, dtype=dt, scale=0.2) if mode != "train" else None
                    rv = (randn(c, dtype=dt, scale=0.2).abs() + 0.5) if mode != "train" else None
                    training = mode != "eval"
                    mom = 0.1 if shape[0] != 2 else 0.3
                    rmd, rvd = (d(rm).clone(), d(rv).clone()) if rm is not None else (None, None)
                    y = F.batch_norm(d(x), rmd, rvd, d(w), d(b), training, mom, 1e-5)
                    outs = [y.to(dt)] + ([rmd.to(dt), rvd.to(dt)] if mode == "train_running" else [])
                    g.add(f"batch_norm_{lbl(dt)}_{sh}_{mode}_{aff}", "batch_norm", "batch_norm", inputs_of(x, w, b, rm, rv), outs,
                          attrs={"training": training, "momentum": mom, "eps": 1e-5, **flags(w, b, rm)},
                          torch_expr=f"F.batch_norm(x, rm, rv, w, b, training={training}, momentum={mom}) (+ updated rm, rv)")
                    go = randn(*shape, dtype=dt)
                    fn = Fn(lambda xx, ww, bb, rm=rm, rv=rv, training=training: F.batch_norm(
                        xx, d(rm).clone() if rm is not None else None, d(rv).clone() if rv is not None else None,
                        ww, bb, training, 0.1, 1e-5), [c])
                    g.add(f"batch_norm_backward_{lbl(dt)}_{sh}_{mode}_{aff}", "batch_norm_backward", "batch_norm_backward",
                          inputs_of(x, w, None, rm, rv, go), grads(fn, x, w, go, dt),
                          attrs={"training": training, "eps": 1e-5, **flags(w, None, rm)},
                          rtol=BWD_TOL[dt][0], atol=BWD_TOL[dt][1],
                          torch_expr=f"autograd.grad(F.batch_norm(x, rm, rv, w, b, training={training}), (x, w, b), go)")
    x = randn(3, 4, 2, 2, dtype=f32)
    p = [{"kind": "permute", "axes": [0, 3, 1, 2]}]
    xp = apply_pre(x, p)
    w, b = randn(2, dtype=f32), randn(2, dtype=f32)
    rm, rv = randn(2, dtype=f32), randn(2, dtype=f32).abs() + 0.5
    rmd, rvd = d(rm).clone(), d(rv).clone()
    y = F.batch_norm(d(xp), rmd, rvd, d(w), d(b), True, 0.2, 1e-3)
    g.add("batch_norm_permuted_train_running_f32", "batch_norm", "batch_norm", [x, w, b, rm, rv],
          [y.float(), rmd.float(), rvd.float()], pre={0: p},
          attrs={"training": True, "momentum": 0.2, "eps": 1e-3, **flags(w, b, rm)},
          torch_expr="F.batch_norm(x.permute(0,3,1,2), rm, rv, w, b, True, 0.2, 1e-3)")
    xl = Gen([8, 16, 20, 20], f32, 0.002, offset=0.3)
    g.add("batch_norm_large_train_f32", "batch_norm", "batch_norm", [xl],
          sampled(F.batch_norm(d(xl.tensor), None, None, None, None, True, 0.1, 1e-5).float()),
          attrs={"training": True, "momentum": 0.1, "eps": 1e-5, **flags(None, None)}, rtol=1e-4, atol=1e-4,
          torch_expr="F.batch_norm(x, None, None, training=True), [8, 16, 20, 20]")
    x = randn(4, 3, 2, dtype=f32)
    c3 = randn(3, dtype=f32)
    g.add("batch_norm_error_eval_without_running", "batch_norm", "batch_norm", [x], error="ValueError",
          attrs={"training": False, "momentum": 0.1, "eps": 1e-5})
    g.add("batch_norm_error_one_value_per_channel", "batch_norm", "batch_norm", [randn(1, 3, dtype=f32)], error="ValueError",
          attrs={"training": True, "momentum": 0.1, "eps": 1e-5})
    g.add("batch_norm_error_running_shape", "batch_norm", "batch_norm", [x, randn(4, dtype=f32), randn(4, dtype=f32)],
          error="ShapeError", attrs={"training": True, "momentum": 0.1, "eps": 1e-5, "running": True})
    g.add("batch_norm_backward_error_eval_without_running", "batch_norm_backward", "batch_norm_backward",
          [x, randn(4, 3, 2, dtype=f32)], error="ValueError", attrs={"training": False, "eps": 1e-5})

    # ---- rms_norm
    for dt in [f32, f64]:
        for shape, nd in [([4, 6], 1), ([2, 3, 4, 5], 2), ([3, 8], 2)]:
            wshape = shape[len(shape) - nd:]
            for aff in ["w", "none"]:
                for eps in [1e-6, 0.5]:
                    x = randn(*shape, dtype=dt, scale=1.5)
                    w = randn(*wshape, dtype=dt) if aff == "w" else None
                    y = rms_ref(d(x), d(w), nd, eps).to(dt)
                    name = f"rms_norm_{lbl(dt)}_{'x'.join(map(str, shape))}_nd{nd}_{aff}_eps{eps:g}".replace(".", "p").replace("-", "m")
                    g.add(name, "rms_norm", "rms_norm", inputs_of(x, w, None), y,
                          attrs={"normalized_dims": nd, "eps": eps, **flags(w, None)},
                          torch_expr=f"x / sqrt(mean(x^2, last {nd} dims) + {eps}) * w")
                go = randn(*shape, dtype=dt)
                fn = Fn(lambda xx, ww, bb, nd=nd: rms_ref(xx, ww, nd, 1e-6), None)
                g.add(f"rms_norm_backward_{lbl(dt)}_{'x'.join(map(str, shape))}_nd{nd}_{aff}", "rms_norm_backward",
                      "rms_norm_backward", inputs_of(x, w, None, go=go), grads(fn, x, w, go, dt),
                      attrs={"normalized_dims": nd, "eps": 1e-6, **flags(w, None)}, rtol=BWD_TOL[dt][0], atol=BWD_TOL[dt][1],
                      torch_expr="autograd.grad(rms_norm(x, w), (x, w), go)")
    x = randn(6, 4, dtype=f32)
    w = randn(6, dtype=f32)
    g.add("rms_norm_transposed_f32", "rms_norm", "rms_norm", [x, w], rms_ref(d(x.t()), d(w), 1, 1e-6).float(),
          pre={0: [{"kind": "transpose", "a": 0, "b": 1}]}, attrs={"normalized_dims": 1, "eps": 1e-6, "weight": True},
          torch_expr="rms_norm(x.t(), w)")
    xl = Gen([300, 257], f32, 0.003, offset=0.2)
    g.add("rms_norm_large_f32", "rms_norm", "rms_norm", [xl], sampled(rms_ref(d(xl.tensor), None, 1, 1e-6).float()),
          attrs={"normalized_dims": 1, "eps": 1e-6}, rtol=1e-4, atol=1e-4, torch_expr="rms_norm(x), [300, 257]")
    g.add("rms_norm_error_weight_shape", "rms_norm", "rms_norm", [x, randn(6, dtype=f32)], error="ShapeError",
          attrs={"normalized_dims": 1, "eps": 1e-6, "weight": True})
    g.add("rms_norm_error_negative_eps", "rms_norm", "rms_norm", [x], error="ValueError",
          attrs={"normalized_dims": 1, "eps": -1.0})
    return g


# ============================================================================ attention
def attn_ref(q, k, v, mask, causal, scale):
    q, k, v = d(q), d(k), d(v)
    lq, lk, e = q.shape[2], k.shape[2], q.shape[3]
    s = (q @ k.transpose(-2, -1)) * (scale if scale is not None else 1.0 / math.sqrt(e))
    m = torch.zeros(1, 1, lq, lk, dtype=torch.bool)
    if causal:
        m = m | torch.triu(torch.ones(lq, lk, dtype=torch.bool), diagonal=1)
    if mask is not None:
        m = m | mask
    s = s.masked_fill(m, -math.inf)
    return torch.softmax(s, -1) @ v


def gen_attention():
    g = Group("attention")
    for dt in [f32, f64]:
        for (b, h, lq, lk, e, ev) in [(2, 3, 5, 5, 4, 4), (1, 2, 4, 7, 8, 3), (2, 1, 6, 3, 5, 6), (1, 1, 1, 9, 16, 16)]:
            sh = f"b{b}h{h}q{lq}k{lk}e{e}v{ev}"
            for mk in ["none", "full", "keypad", "2d"]:
                for causal in [False, True]:
                    for scale in [None, 0.3] if mk == "none" and not causal else [None]:
                        q, k, v = randn(b, h, lq, e, dtype=dt), randn(b, h, lk, e, dtype=dt), randn(b, h, lk, ev, dtype=dt)
                        mask = None
                        if mk == "full":
                            mask = randbool(b, h, lq, lk)
                            mask[..., 0] = False  # keep every row alive (fully masked rows have their own case)
                        elif mk == "keypad":
                            mask = torch.zeros(b, 1, 1, lk, dtype=torch.bool)
                            mask[..., lk - 1] = True
                        elif mk == "2d":
                            mask = randbool(lq, lk)
                            mask[:, 0] = False
                        ins = [q, k, v] + ([mask] if mask is not None else [])
                        name = f"attention_{lbl(dt)}_{sh}_{mk}{'_causal' if causal else ''}{'_scale' if scale else ''}"
                        attrs = {"mask": mask is not None, "causal": causal}
                        if scale is not None:
                            attrs["scale"] = scale
                        g.add(name, "attention", "attention", ins, attn_ref(q, k, v, mask, causal, scale).to(dt), attrs=attrs,
                              torch_expr=f"softmax(q@k^T*scale masked_fill(mask{'|causal' if causal else ''}, -inf))@v")
    # non-contiguous q/k/v: [B, L, H, E] storage viewed as [B, H, L, E]
    for dt in [f32, f64]:
        p = [{"kind": "permute", "axes": [0, 2, 1, 3]}]
        q, k, v = randn(2, 5, 3, 4, dtype=dt), randn(2, 6, 3, 4, dtype=dt), randn(2, 6, 3, 2, dtype=dt)
        g.add(f"attention_permuted_{lbl(dt)}", "attention", "attention", [q, k, v],
              attn_ref(apply_pre(q, p), apply_pre(k, p), apply_pre(v, p), None, True, None).to(dt),
              pre={0: p, 1: p, 2: p}, attrs={"mask": False, "causal": True},
              torch_expr="attention(q.permute(0,2,1,3), ...) causal")
    # a fully masked row gives NaN (reference math)
    q, k, v = randn(1, 1, 3, 4, dtype=f32), randn(1, 1, 4, 4, dtype=f32), randn(1, 1, 4, 2, dtype=f32)
    mask = torch.zeros(1, 1, 3, 4, dtype=torch.bool)
    mask[0, 0, 1, :] = True
    g.add("attention_fully_masked_row_nan_f32", "attention", "attention", [q, k, v, mask],
          attn_ref(q, k, v, mask, False, None).float(), attrs={"mask": True, "causal": False},
          torch_expr="softmax(all -inf row) = NaN, as the reference math")
    # large: several key blocks, causal and a key-padding mask
    for causal in [False, True]:
        q, k, v = Gen([1, 2, 300, 32], f32, 0.002), Gen([1, 2, 600, 32], f32, 0.0021, offset=0.1), Gen([1, 2, 600, 24], f32, 0.003)
        g.add(f"attention_large_f32{'_causal' if causal else ''}", "attention", "attention", [q, k, v],
              sampled(attn_ref(q.tensor, k.tensor, v.tensor, None, causal, None).float()),
              attrs={"mask": False, "causal": causal}, rtol=1e-4, atol=1e-5, torch_expr="attention, Lq 300, Lk 600")
    q, k, v = Gen([2, 1, 129, 16], f64, 0.003), Gen([2, 1, 517, 16], f64, 0.002), Gen([2, 1, 517, 8], f64, 0.001)
    mask = torch.zeros(2, 1, 1, 517, dtype=torch.bool)
    mask[0, ..., 300:] = True
    mask[1, ..., :5] = True
    g.add("attention_large_keypad_f64", "attention", "attention", [q, k, v, mask],
          sampled(attn_ref(q.tensor, k.tensor, v.tensor, mask, False, None)), attrs={"mask": True, "causal": False},
          torch_expr="attention with key padding, Lq 129, Lk 517")
    # errors
    q, k, v = randn(1, 2, 3, 4), randn(1, 2, 5, 4), randn(1, 2, 5, 6)
    g.add("attention_error_rank3", "attention", "attention", [randn(2, 3, 4), randn(2, 5, 4), randn(2, 5, 6)],
          error="ShapeError", attrs={"mask": False, "causal": False})
    g.add("attention_error_embed_dims", "attention", "attention", [q, randn(1, 2, 5, 3), v], error="ShapeError",
          attrs={"mask": False, "causal": False})
    g.add("attention_error_value_length", "attention", "attention", [q, k, randn(1, 2, 4, 6)], error="ShapeError",
          attrs={"mask": False, "causal": False})
    g.add("attention_error_heads", "attention", "attention", [q, randn(1, 3, 5, 4), randn(1, 3, 5, 6)], error="ShapeError",
          attrs={"mask": False, "causal": False})
    g.add("attention_error_mask_dtype", "attention", "attention", [q, k, v, randn(1, 2, 3, 5)], error="DTypeError",
          attrs={"mask": True, "causal": False})
    g.add("attention_error_mask_shape", "attention", "attention", [q, k, v, randbool(3, 4)], error="ShapeError",
          attrs={"mask": True, "causal": False})
    g.add("attention_error_dtype_mismatch", "attention", "attention", [q, k.double(), v], error="DTypeError",
          attrs={"mask": False, "causal": False})
    g.add("attention_error_int", "attention", "attention", [torch.ones(1, 1, 2, 2, dtype=i64)] * 3, error="DTypeError",
          attrs={"mask": False, "causal": False})
    return g


def main():
    for g in [gen_norm(), gen_attention()]:
        g.write()


if __name__ == "__main__":
    sys.exit(main())
