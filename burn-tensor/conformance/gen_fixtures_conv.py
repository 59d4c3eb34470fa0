#!/usr/bin/python3
# Writes fixtures/conv.json: PyTorch reference cases of the conv group (conv, conv_backward,
# conv_transpose, conv_transpose_backward, deform_conv2d, unfold, fold).
# Run with Debian's python3-torch: /usr/bin/python3 burn-tensor/conformance/gen_fixtures_conv.py
# Asymmetric padding (padding_end) is referenced as F.pad then an unpadded conv; gradients come
# from torch.autograd.grad with a random grad_out; deform_conv2d (torchvision is not installed) is
# checked against deform_ref below, a direct loop over torchvision's documented semantics.
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_fixtures import DT, Gen, Group, apply_pre, f32, f64, i64, sampled  # noqa: E402
from gen_fixtures import randn as _randn  # noqa: E402


def randn(*shape, dtype=f32, scale=1.0):
    """Seeded normal values rounded to 1e-3: exact in f32/f64 JSON up to rounding, and short."""
    return (torch.round(_randn(*shape, dtype=f64, scale=scale) * 1000) / 1000).to(dtype)

TOL32 = dict(rtol=1e-4, atol=1e-5)
CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
CONVT = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}


def tol(dt):
    return TOL32 if dt == f32 else {}


def conv_ref(x, w, b, stride, padding, padding_end, dilation, groups):
    sd = x.dim() - 2
    pads = []
    for i in reversed(range(sd)):
        pads += [padding[i], padding_end[i]]
    return CONV[sd](F.pad(x, pads), w, b, stride=stride, dilation=dilation, groups=groups)


def full(v, sd, default):
    if v is None or len(v) == 0:
        return [default] * sd
    return list(v) * sd if len(v) == 1 else list(v)


def conv_attrs(stride=None, padding=None, padding_end=None, dilation=None, groups=1):
    a = {}
    for k, v in [("stride", stride), ("padding", padding), ("padding_end", padding_end), ("dilation", dilation)]:
        if v is not None:
            a[k] = v
    if groups != 1:
        a["groups"] = groups
    return a


def gen_conv(g):
    # (name, x shape, w shape, attrs, bias, dtype, pre on x)
    specs = [
        ("1d_basic", [2, 3, 11], [4, 3, 3], {}, True, f32),
        ("1d_stride_pad_dil", [2, 4, 17], [6, 2, 3], dict(stride=[2], padding=[2], dilation=[2], groups=2), False, f64),
        ("1d_asym_pad", [1, 2, 9], [3, 2, 4], dict(padding=[3], padding_end=[1]), True, f32),
        ("2d_basic", [2, 3, 6, 6], [5, 3, 3, 3], {}, True, f32),
        ("2d_pad1", [2, 3, 5, 6], [5, 3, 3, 3], dict(padding=[1]), True, f64),
        ("2d_stride2_pad3_7x7", [1, 2, 11, 10], [3, 2, 7, 7], dict(stride=[2], padding=[3]), True, f32),
        ("2d_per_dim", [2, 2, 9, 10], [3, 2, 3, 2], dict(stride=[2, 1], padding=[1, 0], dilation=[1, 2]), False, f32),
        ("2d_groups", [1, 6, 5, 5], [6, 2, 3, 3], dict(padding=[1], groups=3), True, f32),
        ("2d_depthwise", [1, 4, 8, 8], [8, 1, 3, 3], dict(padding=[1], stride=[2], groups=4), True, f64),
        ("2d_pointwise", [2, 5, 6, 7], [4, 5, 1, 1], {}, True, f32),
        ("2d_pointwise_stride", [2, 5, 6, 7], [4, 5, 1, 1], dict(stride=[2]), False, f32),
        ("2d_asym_pad", [1, 3, 6, 7], [2, 3, 3, 3], dict(padding=[0, 2], padding_end=[2, 1], stride=[2]), True, f64),
        ("2d_dilation3", [1, 2, 10, 9], [3, 2, 3, 3], dict(dilation=[3], padding=[2]), True, f32),
        ("2d_stride_gt_kernel", [1, 2, 11, 11], [3, 2, 2, 2], dict(stride=[4]), True, f32),
        ("2d_batch0", [0, 3, 5, 5], [4, 3, 3, 3], {}, True, f32),
        ("3d_basic", [1, 2, 4, 5, 5], [2, 2, 3, 3, 3], dict(padding=[1]), True, f32),
        ("3d_stride_groups", [1, 4, 5, 4, 5], [4, 2, 2, 3, 2], dict(stride=[2, 1, 2], padding=[1, 0, 1], groups=2), False, f64),
        ("3d_dilation_asym", [1, 1, 7, 7, 7], [2, 1, 2, 2, 2], dict(dilation=[2], padding=[1], padding_end=[0]), True, f32),
    ]
    for name, xs, ws, at, has_b, dt in specs:
        sd = len(xs) - 2
        x, w = randn(*xs, dtype=dt), randn(*ws, dtype=dt, scale=0.5)
        b = randn(ws[0], dtype=dt) if has_b else None
        st, pa = full(at.get("stride"), sd, 1), full(at.get("padding"), sd, 0)
        pe = full(at.get("padding_end"), sd, 0) if "padding_end" in at else pa
        di, gr = full(at.get("dilation"), sd, 1), at.get("groups", 1)
        y = conv_ref(x, w, b, st, pa, pe, di, gr)
        attrs = conv_attrs(**at)
        attrs["bias"] = has_b
        g.add(f"conv_{name}_{DT[dt]}", "conv", "conv", [x, w] + ([b] if has_b else []), y, attrs=attrs,
              torch_expr=f"conv{sd}d(F.pad(x, padding/padding_end), w, b, {at})", **tol(dt))
        # backward of the same case
        xr, wr = x.clone().requires_grad_(), w.clone().requires_grad_()
        br = b.clone().requires_grad_() if has_b else None
        yr = conv_ref(xr, wr, br, st, pa, pe, di, gr)
        go = randn(*yr.shape, dtype=dt)
        ins = [xr, wr] + ([br] if has_b else [])
        grads = torch.autograd.grad(yr, ins, go, allow_unused=True) if yr.numel() else [torch.zeros_like(i) for i in ins]
        ba = conv_attrs(**at)
        ba["bias_grad"] = has_b
        g.add(f"conv_backward_{name}_{DT[dt]}", "conv_backward", "conv_backward", [x, w, go], list(grads),
              attrs=ba, torch_expr=f"autograd.grad(conv{sd}d(x, w, b, {at}), (x, w[, b]), grad_out)", **tol(dt))
    # non-contiguous inputs: x transposed in its spatial dims, weight flipped
    base = randn(1, 3, 7, 6)
    pre = {0: [{"kind": "transpose", "a": 2, "b": 3}]}
    w = randn(4, 3, 3, 3, scale=0.5)
    x = apply_pre(base, pre[0])
    g.add("conv_2d_transposed_input_f32", "conv", "conv", [base, w], F.conv2d(x, w, padding=1),
          attrs={"padding": [1]}, pre=pre, torch_expr="conv2d(x.transpose(2, 3), w, padding=1)", **TOL32)
    wb = randn(4, 3, 3, 3, scale=0.5)
    prew = {1: [{"kind": "flip", "axes": [2, 3]}]}
    xb = randn(2, 3, 6, 6)
    g.add("conv_2d_flipped_weight_f32", "conv", "conv", [xb, wb], F.conv2d(xb, wb.flip([2, 3]), stride=2),
          attrs={"stride": [2]}, pre=prew, torch_expr="conv2d(x, w.flip([2, 3]), stride=2)", **TOL32)
    go = randn(1, 4, 6, 7)
    xr, wr = x.clone().requires_grad_(), w.clone().requires_grad_()
    gr = torch.autograd.grad(F.conv2d(xr, wr, padding=1), (xr, wr), go)
    g.add("conv_backward_transposed_input_f32", "conv_backward", "conv_backward", [base, w, go], list(gr),
          attrs={"padding": [1], "bias_grad": False}, pre=pre, torch_expr="grad of conv2d(x.transpose(2, 3), w, padding=1)",
          **TOL32)
    # large: threaded paths (im2col over channels, GEMM on the BLAS threads)
    xg = Gen([2, 16, 40, 40], f32, 0.001)
    wg = Gen([32, 16, 3, 3], f32, 0.0005, 0.0001)
    yg = F.conv2d(xg.tensor, wg.tensor, padding=1)
    g.add("conv_large_2d_f32", "conv", "conv", [xg, wg], sampled(yg), attrs={"padding": [1]},
          torch_expr="conv2d(x, w, padding=1), [2, 16, 40, 40] x [32, 16, 3, 3]", rtol=1e-4, atol=1e-4)
    xr, wr = xg.tensor.clone().requires_grad_(), wg.tensor.clone().requires_grad_()
    gog = Gen([2, 32, 40, 40], f32, 0.001, 0.01)
    gx, gw, = torch.autograd.grad(F.conv2d(xr, wr, padding=1), (xr, wr), gog.tensor)
    gb = gog.tensor.sum((0, 2, 3))
    g.add("conv_backward_large_2d_f32", "conv_backward", "conv_backward", [xg, wg, gog], [sampled(gx), sampled(gw), sampled(gb)],
          attrs={"padding": [1], "bias_grad": True}, torch_expr="grads of conv2d(x, w, padding=1), large",
          rtol=1e-3, atol=1e-3)
    # errors
    x, w = randn(2, 3, 8, 8), randn(4, 3, 3, 3)
    errs = [
        ("rank2", [randn(3, 8), randn(4, 3)], {}, "ShapeError"),
        ("weight_rank", [x, randn(4, 3, 3)], {}, "ShapeError"),
        ("channel_mismatch", [x, randn(4, 2, 3, 3)], {}, "ShapeError"),
        ("groups_not_dividing", [x, randn(4, 1, 3, 3)], {"groups": 2}, "ShapeError"),
        ("groups_out_channels", [randn(2, 4, 8, 8), randn(3, 2, 3, 3)], {"groups": 2}, "ShapeError"),
        ("groups_zero", [x, w], {"groups": 0}, "ValueError"),
        ("kernel_too_large", [randn(1, 3, 2, 8), w], {}, "ShapeError"),
        ("stride_zero", [x, w], {"stride": [0]}, "ValueError"),
        ("dilation_negative", [x, w], {"dilation": [-1]}, "ValueError"),
        ("padding_negative", [x, w], {"padding": [-1]}, "ValueError"),
        ("option_length", [x, w], {"stride": [1, 1, 1]}, "ShapeError"),
        ("dtype_mismatch", [x, w.double()], {}, "DTypeError"),
        ("int_input", [x.to(i64), w.to(i64)], {}, "DTypeError"),
        ("bias_shape", [x, w, randn(3)], {"bias": True}, "ShapeError"),
    ]
    for name, ins, at, err in errs:
        g.add(f"conv_error_{name}", "conv", "conv", ins, attrs=at, error=err, torch_expr="")
    g.add("conv_backward_error_grad_shape", "conv_backward", "conv_backward", [x, w, randn(2, 4, 5, 5)],
          attrs={"bias_grad": True}, error="ShapeError", torch_expr="")


def convt_out(xs, ws, st, pa, po, di, gr):
    return [(xs[i + 2] - 1) * st[i] - 2 * pa[i] + di[i] * (ws[i + 2] - 1) + po[i] + 1 for i in range(len(xs) - 2)]


def gen_conv_transpose(g):
    specs = [
        ("1d_basic", [2, 3, 7], [3, 4, 3], {}, True, f32),
        ("1d_stride_outpad", [1, 4, 6], [4, 2, 3], dict(stride=[3], padding=[1], padding_out=[2], groups=2), True, f64),
        ("2d_basic", [2, 3, 5, 4], [3, 2, 3, 3], {}, True, f32),
        ("2d_stride2_pad1_outpad1", [2, 4, 5, 5], [4, 3, 3, 3], dict(stride=[2], padding=[1], padding_out=[1]), True, f32),
        ("2d_per_dim", [1, 2, 4, 6], [2, 3, 2, 3], dict(stride=[2, 1], padding=[0, 1], dilation=[1, 2]), False, f64),
        ("2d_groups", [2, 6, 4, 4], [6, 2, 3, 3], dict(stride=[2], groups=3), True, f32),
        ("2d_dilation_outpad", [1, 2, 5, 5], [2, 2, 3, 3], dict(stride=[1], dilation=[3], padding_out=[2]), True, f32),
        ("2d_outpad_gt_pad", [1, 2, 4, 4], [2, 3, 2, 2], dict(stride=[3], padding_out=[2]), True, f64),
        ("2d_pointwise", [2, 5, 4, 3], [5, 4, 1, 1], {}, True, f32),
        ("3d_basic", [1, 2, 3, 4, 3], [2, 3, 3, 3, 3], dict(stride=[2], padding=[1]), True, f32),
        ("3d_groups_outpad", [1, 4, 3, 3, 2], [4, 1, 2, 2, 2], dict(stride=[2], padding_out=[1], groups=2), False, f64),
    ]
    for name, xs, ws, at, has_b, dt in specs:
        sd = len(xs) - 2
        x, w = randn(*xs, dtype=dt), randn(*ws, dtype=dt, scale=0.5)
        b = randn(ws[1] * at.get("groups", 1), dtype=dt) if has_b else None
        kw = dict(stride=full(at.get("stride"), sd, 1), padding=full(at.get("padding"), sd, 0),
                  output_padding=full(at.get("padding_out"), sd, 0), groups=at.get("groups", 1),
                  dilation=full(at.get("dilation"), sd, 1))
        y = CONVT[sd](x, w, b, **kw)
        attrs = dict(at)
        attrs["bias"] = has_b
        g.add(f"conv_transpose_{name}_{DT[dt]}", "conv_transpose", "conv_transpose", [x, w] + ([b] if has_b else []), y,
              attrs=attrs, torch_expr=f"conv_transpose{sd}d(x, w, b, {kw})", **tol(dt))
        xr, wr = x.clone().requires_grad_(), w.clone().requires_grad_()
        br = b.clone().requires_grad_() if has_b else None
        yr = CONVT[sd](xr, wr, br, **kw)
        go = randn(*yr.shape, dtype=dt)
        grads = torch.autograd.grad(yr, [xr, wr] + ([br] if has_b else []), go)
        ba = dict(at)
        ba["bias_grad"] = has_b
        g.add(f"conv_transpose_backward_{name}_{DT[dt]}", "conv_transpose_backward", "conv_transpose_backward",
              [x, w, go], list(grads), attrs=ba, torch_expr=f"autograd.grad(conv_transpose{sd}d(x, w, b, {kw}))", **tol(dt))
    base = randn(2, 3, 5, 4)
    pre = {0: [{"kind": "permute", "axes": [0, 1, 3, 2]}]}
    w = randn(3, 2, 3, 3, scale=0.5)
    x = apply_pre(base, pre[0])
    g.add("conv_transpose_permuted_input_f32", "conv_transpose", "conv_transpose", [base, w],
          F.conv_transpose2d(x, w, stride=2), attrs={"stride": [2]}, pre=pre,
          torch_expr="conv_transpose2d(x.permute(0, 1, 3, 2), w, stride=2)", **TOL32)
    x, w = randn(1, 4, 5, 5), randn(4, 2, 3, 3)
    errs = [
        ("channel_mismatch", [x, randn(3, 2, 3, 3)], {}, "ShapeError"),
        ("groups_not_dividing", [x, w], {"groups": 3}, "ShapeError"),
        ("outpad_too_large", [x, w], {"stride": [2], "padding_out": [2]}, "ValueError"),
        ("output_nonpositive", [randn(1, 4, 1, 1), randn(4, 2, 1, 1)], {"padding": [1]}, "ShapeError"),
        ("stride_zero", [x, w], {"stride": [0]}, "ValueError"),
        ("dtype_mismatch", [x, w.double()], {}, "DTypeError"),
        ("bias_shape", [x, w, randn(4)], {"bias": True}, "ShapeError"),
    ]
    for name, ins, at, err in errs:
        g.add(f"conv_transpose_error_{name}", "conv_transpose", "conv_transpose", ins, attrs=at, error=err, torch_expr="")
    g.add("conv_transpose_backward_error_grad_shape", "conv_transpose_backward", "conv_transpose_backward",
          [x, w, randn(1, 2, 5, 5)], attrs={"bias_grad": False}, error="ShapeError", torch_expr="")


def bilinear_ref(plane, y, x):
    h, w = plane.shape
    if y <= -1 or y >= h or x <= -1 or x >= w:
        return 0.0
    y0, x0 = math.floor(y), math.floor(x)
    ly, lx = y - y0, x - x0
    v = 0.0
    for yy, wy in ((y0, 1 - ly), (y0 + 1, ly)):
        for xx, wx in ((x0, 1 - lx), (x0 + 1, lx)):
            if 0 <= yy < h and 0 <= xx < w:
                v += wy * wx * float(plane[yy, xx])
    return v


def deform_ref(x, offset, w, mask, b, stride, padding, dilation, wg, og):
    """torchvision.ops.deform_conv2d by definition: offset channel (g, k) holds (dy, dx) at 2 * (g * K + k),
    mask channel g * K + k; each tap samples x bilinearly (zero outside) and the grouped weights sum the taps."""
    n, c, h, wd = x.shape
    cout, cpw, kh, kw = w.shape
    ho, wo = offset.shape[2], offset.shape[3]
    k = kh * kw
    cols = torch.zeros(n, c, k, ho, wo, dtype=f64)
    xd, od = x.to(f64), offset.to(f64)
    for ni in range(n):
        for ch in range(c):
            grp = ch // (c // og)
            for i in range(kh):
                for j in range(kw):
                    t = i * kw + j
                    for oy in range(ho):
                        for ox in range(wo):
                            dy = float(od[ni, grp * 2 * k + 2 * t, oy, ox])
                            dx = float(od[ni, grp * 2 * k + 2 * t + 1, oy, ox])
                            yy = oy * stride[0] - padding[0] + i * dilation[0] + dy
                            xx = ox * stride[1] - padding[1] + j * dilation[1] + dx
                            v = bilinear_ref(xd[ni, ch], yy, xx)
                            if mask is not None:
                                v *= float(mask[ni, grp * k + t, oy, ox])
                            cols[ni, ch, t, oy, ox] = v
    cols = cols.reshape(n, wg, (c // wg) * k, ho * wo)
    wm = w.to(f64).reshape(wg, cout // wg, (c // wg) * k)
    y = torch.einsum("gok,ngkl->ngol", wm, cols).reshape(n, cout, ho, wo)
    if b is not None:
        y = y + b.to(f64).reshape(1, -1, 1, 1)
    return y.to(x.dtype)


def gen_deform(g):
    mask_gen = torch.Generator().manual_seed(20261127)  # its own stream, so the masks are the same on every run
    specs = [
        ("basic", [1, 2, 5, 5], [3, 2, 3, 3], {}, True, False, f32),
        ("mask_pad", [1, 2, 6, 5], [2, 2, 3, 3], dict(padding=[1]), True, True, f64),
        ("stride_dil", [1, 3, 7, 8], [2, 3, 2, 3], dict(stride=[2, 1], dilation=[2, 1], padding=[1, 0]), False, True, f32),
        ("groups", [1, 4, 4, 4], [4, 2, 3, 3], dict(padding=[1], weight_groups=2, offset_groups=2), True, True, f32),
        ("offset_groups4", [1, 4, 4, 4], [2, 4, 2, 2], dict(offset_groups=4), False, False, f64),
    ]
    for name, xs, ws, at, has_b, has_m, dt in specs:
        st, pa, di = full(at.get("stride"), 2, 1), full(at.get("padding"), 2, 0), full(at.get("dilation"), 2, 1)
        wgr, ogr = at.get("weight_groups", 1), at.get("offset_groups", 1)
        ho = (xs[2] + 2 * pa[0] - di[0] * (ws[2] - 1) - 1) // st[0] + 1
        wo = (xs[3] + 2 * pa[1] - di[1] * (ws[3] - 1) - 1) // st[1] + 1
        k = ws[2] * ws[3]
        x, w = randn(*xs, dtype=dt), randn(*ws, dtype=dt, scale=0.5)
        off = randn(xs[0], 2 * ogr * k, ho, wo, dtype=dt, scale=1.5)
        if name == "basic":  # integer and out-of-range displacements too
            off[0, 0, 0, 0], off[0, 1, 0, 0], off[0, 2, 1, 1], off[0, 3, 2, 2] = 1.0, -1.0, 10.0, -3.5
        m = (torch.rand(xs[0], ogr * k, ho, wo, generator=mask_gen, dtype=f64) * 1.5).to(dt) if has_m else None
        b = randn(ws[0], dtype=dt) if has_b else None
        y = deform_ref(x, off, w, m, b, st, pa, di, wgr, ogr)
        attrs = dict(at)
        attrs["bias"], attrs["mask"] = has_b, has_m
        ins = [x, off, w] + ([m] if has_m else []) + ([b] if has_b else [])
        g.add(f"deform_conv2d_{name}_{DT[dt]}", "deform_conv2d", "deform_conv2d", ins, y, attrs=attrs,
              torch_expr=f"torchvision.ops.deform_conv2d(x, offset, w, b, {at}, mask) (reference loop)", **tol(dt))
    x, w = randn(1, 2, 5, 5), randn(3, 2, 3, 3)
    g.add("deform_conv2d_error_offset_shape", "deform_conv2d", "deform_conv2d", [x, randn(1, 9, 3, 3), w],
          attrs={}, error="ShapeError", torch_expr="")
    g.add("deform_conv2d_error_mask_shape", "deform_conv2d", "deform_conv2d", [x, randn(1, 18, 3, 3), w, randn(1, 8, 3, 3)],
          attrs={"mask": True}, error="ShapeError", torch_expr="")
    g.add("deform_conv2d_error_rank", "deform_conv2d", "deform_conv2d", [randn(2, 5, 5), randn(1, 18, 3, 3), randn(3, 2, 3)],
          attrs={}, error="ShapeError", torch_expr="")


def gen_unfold_fold(g):
    specs = [
        ("basic", [2, 3, 5, 6], dict(kernel=[2, 3]), f32),
        ("stride_pad_dil", [1, 2, 7, 8], dict(kernel=[3], stride=[2, 1], padding=[1], dilation=[1, 2]), f64),
        ("kernel1", [2, 2, 3, 3], dict(kernel=[1]), f32),
        ("stride3", [1, 1, 8, 9], dict(kernel=[2], stride=[3], padding=[1, 0]), f32),
    ]
    for name, xs, at, dt in specs:
        x = randn(*xs, dtype=dt)
        kw = dict(kernel_size=full(at["kernel"], 2, 1), stride=full(at.get("stride"), 2, 1),
                  padding=full(at.get("padding"), 2, 0), dilation=full(at.get("dilation"), 2, 1))
        cols = F.unfold(x, **kw)
        g.add(f"unfold_{name}_{DT[dt]}", "unfold", "unfold", [x], cols, attrs=dict(at), torch_expr=f"F.unfold(x, {kw})")
        c2 = randn(*cols.shape, dtype=dt)
        attrs = dict(at)
        attrs["output_size"] = xs[2:]
        g.add(f"fold_{name}_{DT[dt]}", "fold", "fold", [c2], F.fold(c2, xs[2:], **kw), attrs=attrs,
              torch_expr=f"F.fold(cols, {xs[2:]}, {kw})", **tol(dt))
    base = randn(1, 2, 6, 5)
    pre = {0: [{"kind": "transpose", "a": 2, "b": 3}]}
    g.add("unfold_transposed_f32", "unfold", "unfold", [base], F.unfold(apply_pre(base, pre[0]), 3, padding=1),
          attrs={"kernel": [3], "padding": [1]}, pre=pre, torch_expr="F.unfold(x.transpose(2, 3), 3, padding=1)")
    g.add("unfold_error_rank", "unfold", "unfold", [randn(2, 5, 5)], attrs={"kernel": [2]}, error="ShapeError", torch_expr="")
    g.add("unfold_error_no_kernel", "unfold", "unfold", [randn(1, 2, 5, 5)], attrs={}, error="ValueError", torch_expr="")
    g.add("unfold_error_kernel_too_large", "unfold", "unfold", [randn(1, 2, 3, 3)], attrs={"kernel": [4]},
          error="ShapeError", torch_expr="")
    g.add("fold_error_blocks", "fold", "fold", [randn(1, 8, 5)], attrs={"kernel": [2], "output_size": [3, 3]},
          error="ShapeError", torch_expr="")
    g.add("fold_error_channels", "fold", "fold", [randn(1, 7, 4)], attrs={"kernel": [2], "output_size": [3, 3]},
          error="ShapeError", torch_expr="")


def gen_conv_winograd(g):
    # 3x3 stride-1 convs with at least 64 input channels and enough 2x2 output blocks for the cpu backend's
    # Winograd F(2x2, 3x3) forward: asymmetric padding on odd sizes, two images, a bias; and a backward
    # whose input gradient (64 -> 16 channels, a forward of grad_out) takes it. Last in the file so that
    # the samples of the cases before them stay as they were.
    xg = Gen([2, 64, 20, 21], f32, 0.001)
    wg = Gen([24, 64, 3, 3], f32, 0.0005, 0.0001)
    bg = Gen([24], f32, 0.01)
    y = conv_ref(xg.tensor, wg.tensor, bg.tensor, [1, 1], [0, 2], [1, 0], [1, 1], 1)
    g.add("conv_large_2d_asym_pad_bias_f32", "conv", "conv", [xg, wg, bg], sampled(y),
          attrs={"padding": [0, 2], "padding_end": [1, 0], "bias": True},
          torch_expr="conv2d(F.pad(x, (2, 0, 0, 1)), w, b), [2, 64, 20, 21] x [24, 64, 3, 3]", rtol=1e-4, atol=1e-4)
    xb = Gen([2, 16, 20, 21], f32, 0.001)
    wb = Gen([64, 16, 3, 3], f32, 0.0005, 0.0001)
    gob = Gen([2, 64, 20, 21], f32, 0.001, 0.01)
    xr, wr = xb.tensor.clone().requires_grad_(), wb.tensor.clone().requires_grad_()
    gx, gw = torch.autograd.grad(F.conv2d(xr, wr, padding=1), (xr, wr), gob.tensor)
    g.add("conv_backward_large_2d_winograd_f32", "conv_backward", "conv_backward", [xb, wb, gob],
          [sampled(gx), sampled(gw)], attrs={"padding": [1], "bias_grad": False},
          torch_expr="grads of conv2d(x, w, padding=1), [2, 16, 20, 21] x [64, 16, 3, 3]", rtol=1e-3, atol=1e-3)


def main():
    g = Group("conv")
    gen_conv(g)
    gen_conv_transpose(g)
    gen_deform(g)
    gen_unfold_fold(g)
    gen_conv_winograd(g)
    g.write()


if __name__ == "__main__":
    sys.exit(main())
