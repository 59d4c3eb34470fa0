#!/usr/bin/python3
# Writes the PyTorch reference fixtures of the pool, resample and embedding module-op groups:
# fixtures/{pool,resample,embedding}.json. Run with Debian's python3-torch:
#   /usr/bin/python3 burn-tensor/conformance/gen_fixtures_pool.py
# Asymmetric padding (burn's padding_end) has no torch counterpart: the reference pads with F.pad
# first (-inf for max, 0 for avg; count_include_pad=False divides by a pooled mask of ones) and
# maps max-pool indices back to the unpadded plane. 1-D cubic is torch's bicubic on a height-1 plane.
import sys

import numpy as np
import torch
import torch.nn.functional as F

from gen_fixtures import Gen, Group, apply_pre, enc, f32, f64, i32, i64, lbl, randint, randn, sampled

INF = float("inf")
MAXP = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}
AVGP = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}
AAVG = {1: F.adaptive_avg_pool1d, 2: F.adaptive_avg_pool2d, 3: F.adaptive_avg_pool3d}
AMAX = {1: F.adaptive_max_pool1d, 2: F.adaptive_max_pool2d, 3: F.adaptive_max_pool3d}


def full(v, n):
    return list(v) if isinstance(v, (list, tuple)) else [v] * n


def torch_pads(pb, pe):
    """F.pad's list (last dim first) from per-dim before/after pads."""
    out = []
    for b, e in reversed(list(zip(pb, pe))):
        out += [b, e]
    return out


def ref_max(x, n, k, s, pb, pe, d, ceil):
    """(values, flat indices in the unpadded plane) of a max pool with before/after padding."""
    if pb == pe and all(p <= kk // 2 for p, kk in zip(pb, k)):
        return MAXP[n](x, k, s, pb, d, ceil_mode=ceil, return_indices=True)
    xp = F.pad(x, torch_pads(pb, pe), value=-INF)
    v, ip = MAXP[n](xp, k, s, 0, d, ceil_mode=ceil, return_indices=True)
    psh = xp.shape[2:]
    coords = np.unravel_index(ip.numpy(), psh)
    coords = [c - b for c, b in zip(coords, pb)]
    flat = np.ravel_multi_index(coords, x.shape[2:])
    return v, torch.from_numpy(flat).to(i64)


def ref_avg(x, n, k, s, pb, pe, ceil, cip):
    if pb == pe:
        return AVGP[n](x, k, s, pb, ceil_mode=ceil, count_include_pad=cip)
    xp = F.pad(x, torch_pads(pb, pe))
    if cip:
        return AVGP[n](xp, k, s, 0, ceil_mode=ceil)
    ones = F.pad(torch.ones_like(x), torch_pads(pb, pe))
    return AVGP[n](xp, k, s, 0, ceil_mode=ceil) / AVGP[n](ones, k, s, 0, ceil_mode=ceil)


def grad_of(fn, x, gen_shape_dtype):
    xr = x.detach().clone().requires_grad_(True)
    y = fn(xr)
    go = randn(*y.shape, dtype=x.dtype)
    (gx,) = torch.autograd.grad(y, xr, go)
    return go, gx


SHAPES = {1: (2, 2, 9), 2: (1, 2, 7, 8), 3: (1, 1, 4, 5, 5)}


def gen_pool():
    g = Group("pool")
    # (n, kernel, stride, pad_before, pad_after, dilation, ceil)
    maxcfg = [
        (1, 3, None, 0, None, 1, False), (1, 2, 2, 1, None, 1, True), (1, 3, 2, 1, 0, 2, False),
        (2, 2, None, 0, None, 1, False), (2, 3, 2, 1, None, 1, False), (2, [3, 2], [2, 1], [1, 0], None, 1, True),
        (2, 3, 1, 1, None, 2, False), (2, 3, 2, [1, 0], [0, 1], 1, False), (2, 2, 3, 1, None, 1, True),
        (3, 2, None, 0, None, 1, False), (3, 3, 2, 1, None, 1, True), (3, [2, 3, 2], 1, 0, None, [1, 1, 2], False),
    ]
    for ci, (n, k, s, pb, pe, d, ceil) in enumerate(maxcfg):
        for dt in [f32, f64]:
            if dt == f64 and ci % 3 != 0:
                continue
            x = randn(*SHAPES[n], dtype=dt)
            K, S = full(k, n), full(s if s is not None else k, n)
            PB = full(pb, n)
            PE = full(pe if pe is not None else pb, n)
            D = full(d, n)
            attrs = {"kernel": full(k, n) if isinstance(k, list) else [k], "padding": PB, "dilation": D, "ceil_mode": ceil}
            if s is not None:
                attrs["stride"] = S
            if pe is not None:
                attrs["padding_end"] = PE
            v, idx = ref_max(x, n, K, S, PB, PE, D, ceil)
            nm = f"{n}d_c{ci}_{lbl(dt)}"
            expr = f"F.max_pool{n}d(x, {K}, {S}, pad {PB}/{PE}, dilation {D}, ceil_mode={ceil})"
            g.add(f"max_pool_{nm}", "max_pool", "max_pool", [x], v, attrs=attrs, torch_expr=expr)
            g.add(f"max_pool_with_indices_{nm}", "max_pool_with_indices", "max_pool_with_indices", [x], [v, idx],
                  attrs=attrs, torch_expr=expr + ", return_indices=True")
            go, gx = grad_of(lambda t: ref_max(t, n, K, S, PB, PE, D, ceil)[0], x, None)
            g.add(f"max_pool_backward_{nm}", "max_pool_backward", "max_pool_backward", [x, go, idx], gx, attrs=attrs,
                  torch_expr="autograd.grad of " + expr)
    # ties (relu'd input): first maximum in window order, as torch
    x = F.relu(randn(2, 2, 8, 8))
    v, idx = F.max_pool2d(x, 3, 2, 1, return_indices=True)
    g.add("max_pool_with_indices_ties_f32", "max_pool_with_indices", "max_pool_with_indices", [x], [v, idx],
          attrs={"kernel": [3], "stride": [2], "padding": [1]}, torch_expr="F.max_pool2d(relu(x), 3, 2, 1) with ties")
    x = randn(2, 3, 6, 6)
    x[0, 0, 1, 1] = float("nan")
    g.add("max_pool_nan_f32", "max_pool", "max_pool", [x], F.max_pool2d(x, 2), attrs={"kernel": [2]},
          torch_expr="F.max_pool2d(x, 2), NaN propagates")
    x = randn(2, 3, 10, 9)
    tr = [{"kind": "transpose", "a": 2, "b": 3}]
    xt = apply_pre(x, tr)
    g.add("max_pool_transposed_f32", "max_pool", "max_pool", [x], F.max_pool2d(xt, 3, 2, 1),
          attrs={"kernel": [3], "stride": [2], "padding": [1]}, pre={0: tr}, torch_expr="F.max_pool2d(x.transpose(2, 3), 3, 2, 1)")
    g.add("avg_pool_transposed_f32", "avg_pool", "avg_pool", [x], F.avg_pool2d(xt, 3, 2, 1),
          attrs={"kernel": [3], "stride": [2], "padding": [1]}, pre={0: tr}, torch_expr="F.avg_pool2d(x.transpose(2, 3), 3, 2, 1)")

    # (n, kernel, stride, pad_before, pad_after, ceil, count_include_pad)
    avgcfg = [
        (1, 3, None, 0, None, False, True), (1, 3, 2, 1, None, True, False), (1, 2, 1, [1], [0], False, False),
        (2, 2, None, 0, None, False, True), (2, 3, 2, 1, None, False, True), (2, 3, 2, 1, None, True, False),
        (2, [3, 2], [2, 1], [1, 0], None, True, True), (2, 3, 2, [1, 0], [0, 1], False, True),
        (2, 3, 2, [0, 1], [1, 1], False, False), (2, 2, 3, 1, None, True, True),
        (3, 2, None, 0, None, False, True), (3, 3, 2, 1, None, True, False),
    ]
    for ci, (n, k, s, pb, pe, ceil, cip) in enumerate(avgcfg):
        for dt in [f32, f64]:
            if dt == f64 and ci % 3 != 0:
                continue
            x = randn(*SHAPES[n], dtype=dt)
            K, S = full(k, n), full(s if s is not None else k, n)
            PB = full(pb, n)
            PE = full(pe if pe is not None else pb, n)
            attrs = {"kernel": full(k, n) if isinstance(k, list) else [k], "padding": PB, "ceil_mode": ceil,
                     "count_include_pad": cip}
            if s is not None:
                attrs["stride"] = S
            if pe is not None:
                attrs["padding_end"] = PE
            nm = f"{n}d_c{ci}_{lbl(dt)}"
            expr = f"F.avg_pool{n}d(x, {K}, {S}, pad {PB}/{PE}, ceil_mode={ceil}, count_include_pad={cip})"
            g.add(f"avg_pool_{nm}", "avg_pool", "avg_pool", [x], ref_avg(x, n, K, S, PB, PE, ceil, cip), attrs=attrs,
                  torch_expr=expr)
            go, gx = grad_of(lambda t: ref_avg(t, n, K, S, PB, PE, ceil, cip), x, None)
            g.add(f"avg_pool_backward_{nm}", "avg_pool_backward", "avg_pool_backward", [x, go], gx, attrs=attrs,
                  torch_expr="autograd.grad of " + expr)

    for n, osz in [(1, [4]), (1, [11]), (2, [3, 4]), (2, [5, 7]), (2, [1, 1]), (3, [2, 3, 4])]:
        for dt in [f32, f64]:
            x = randn(*SHAPES[n], dtype=dt)
            nm = f"{n}d_{'x'.join(map(str, osz))}_{lbl(dt)}"
            g.add(f"adaptive_avg_pool_{nm}", "adaptive_avg_pool", "adaptive_avg_pool", [x], AAVG[n](x, osz),
                  attrs={"output_size": osz}, torch_expr=f"F.adaptive_avg_pool{n}d(x, {osz})")
            go, gx = grad_of(lambda t: AAVG[n](t, osz), x, None)
            g.add(f"adaptive_avg_pool_backward_{nm}", "adaptive_avg_pool_backward", "adaptive_avg_pool_backward",
                  [x, go], gx, torch_expr=f"autograd.grad of F.adaptive_avg_pool{n}d(x, {osz})")
            v, idx = AMAX[n](x, osz, return_indices=True)
            g.add(f"adaptive_max_pool_{nm}", "adaptive_max_pool", "adaptive_max_pool", [x], [v, idx],
                  attrs={"output_size": osz}, torch_expr=f"F.adaptive_max_pool{n}d(x, {osz}, return_indices=True)")
            go, gx = grad_of(lambda t: AMAX[n](t, osz), x, None)
            g.add(f"adaptive_max_pool_backward_{nm}", "adaptive_max_pool_backward", "adaptive_max_pool_backward",
                  [x, go, idx], gx, torch_expr=f"autograd.grad of F.adaptive_max_pool{n}d(x, {osz})")
    x = randn(2, 3, 9, 10)
    g.add("adaptive_avg_pool_transposed_f32", "adaptive_avg_pool", "adaptive_avg_pool", [x],
          F.adaptive_avg_pool2d(apply_pre(x, tr), [4, 3]), attrs={"output_size": [4, 3]}, pre={0: tr},
          torch_expr="F.adaptive_avg_pool2d(x.transpose(2, 3), [4, 3])")

    # large: threaded and vectorised paths
    xl = Gen([2, 8, 67, 131], f32, 0.003)
    v, idx = F.max_pool2d(xl.tensor, 3, 2, 1, return_indices=True)
    g.add("max_pool_large_3x3s2p1_f32", "max_pool", "max_pool", [xl], sampled(v),
          attrs={"kernel": [3], "stride": [2], "padding": [1]}, torch_expr="F.max_pool2d(x, 3, 2, 1), [2, 8, 67, 131]")
    g.add("max_pool_with_indices_large_f32", "max_pool_with_indices", "max_pool_with_indices", [xl], [sampled(v), sampled(idx)],
          attrs={"kernel": [3], "stride": [2], "padding": [1]}, torch_expr="F.max_pool2d(x, 3, 2, 1, return_indices=True)")
    g.add("max_pool_large_2x2_f32", "max_pool", "max_pool", [xl], sampled(F.max_pool2d(xl.tensor, 2)),
          attrs={"kernel": [2]}, torch_expr="F.max_pool2d(x, 2), [2, 8, 67, 131]")
    g.add("avg_pool_large_3x3s2p1_f32", "avg_pool", "avg_pool", [xl], sampled(F.avg_pool2d(xl.tensor, 3, 2, 1)),
          attrs={"kernel": [3], "stride": [2], "padding": [1]}, torch_expr="F.avg_pool2d(x, 3, 2, 1), [2, 8, 67, 131]")

    # errors
    x = randn(1, 2, 4, 4)
    errs = [
        ("max_pool_kernel_too_big", "max_pool", {"kernel": [5]}, "ShapeError"),
        ("max_pool_zero_stride", "max_pool", {"kernel": [2], "stride": [0]}, "ValueError"),
        ("max_pool_negative_padding", "max_pool", {"kernel": [2], "padding": [-1]}, "ValueError"),
        ("max_pool_padding_over_half", "max_pool", {"kernel": [2], "padding": [2]}, "ValueError"),
        ("max_pool_zero_dilation", "max_pool", {"kernel": [2], "dilation": [0]}, "ValueError"),
        ("max_pool_kernel_len", "max_pool", {"kernel": [2, 2, 2]}, "ShapeError"),
        ("max_pool_no_kernel", "max_pool", {}, "ValueError"),
        ("avg_pool_dilation", "avg_pool", {"kernel": [2], "dilation": [2]}, "ValueError"),
        ("avg_pool_kernel_too_big", "avg_pool", {"kernel": [3, 6]}, "ShapeError"),
    ]
    for name, op, attrs, err in errs:
        g.add(name, op, op, [x], error=err, attrs=attrs, torch_expr=f"{op} {attrs} on [1, 2, 4, 4]")
    g.add("max_pool_rank2_error", "max_pool", "max_pool", [randn(4, 4)], error="ShapeError", attrs={"kernel": [2]},
          torch_expr="rank-2 input")
    g.add("max_pool_int_error", "max_pool", "max_pool", [randint(0, 5, 1, 1, 4, 4)], error="DTypeError",
          attrs={"kernel": [2]}, torch_expr="int input")
    g.add("adaptive_avg_pool_zero_size", "adaptive_avg_pool", "adaptive_avg_pool", [x], error="ValueError",
          attrs={"output_size": [0, 2]}, torch_expr="output size 0")
    g.add("adaptive_max_pool_size_len", "adaptive_max_pool", "adaptive_max_pool", [x], error="ShapeError",
          attrs={"output_size": [2]}, torch_expr="output size of 1 value for 2 spatial dims")
    v, idx = F.max_pool2d(x, 2, return_indices=True)
    g.add("max_pool_backward_float_indices", "max_pool_backward", "max_pool_backward", [x, v, idx.float()],
          error="DTypeError", attrs={"kernel": [2]}, torch_expr="f32 indices")
    g.add("max_pool_backward_grad_shape", "max_pool_backward", "max_pool_backward", [x, x, idx], error="ShapeError",
          attrs={"kernel": [2]}, torch_expr="grad_out of the input's shape")
    g.add("avg_pool_backward_dtype", "avg_pool_backward", "avg_pool_backward", [x, v.double()], error="DTypeError",
          attrs={"kernel": [2]}, torch_expr="f64 grad for f32 input")
    return g


MODES = {"nearest": {1: "nearest", 2: "nearest", 3: "nearest"}, "linear": {1: "linear", 2: "bilinear", 3: "trilinear"},
         "cubic": {2: "bicubic"}}


def ref_interp(x, n, size, mode, ac):
    tm = MODES[mode]
    kw = {} if mode == "nearest" else {"align_corners": ac}
    if mode == "cubic" and n == 1:
        return F.interpolate(x.unsqueeze(2), size=[1] + size, mode="bicubic", **kw).squeeze(2)
    return F.interpolate(x, size=size, mode=tm[n], **kw)


def gen_resample():
    g = Group("resample")
    shapes = {1: (2, 3, 7), 2: (2, 2, 5, 6), 3: (1, 2, 3, 4, 5)}
    sizes = {1: [[14], [3], [7], [1]], 2: [[10, 12], [3, 4], [7, 5], [1, 1]], 3: [[6, 5, 9], [2, 2, 3]]}
    for mode in ["nearest", "linear", "cubic"]:
        for n in [1, 2, 3]:
            if mode == "cubic" and n == 3:
                continue
            for si, size in enumerate(sizes[n]):
                for ac in ([False] if mode == "nearest" else [False, True]):
                    for dt in [f32, f64]:
                        if dt == f64 and (si % 2 or ac):
                            continue
                        x = randn(*shapes[n], dtype=dt)
                        attrs = {"output_size": size, "mode": mode, "align_corners": ac}
                        nm = f"{mode}_{n}d_{'x'.join(map(str, size))}{'_ac' if ac else ''}_{lbl(dt)}"
                        expr = f"F.interpolate(x, {size}, mode={mode} ({n}-D), align_corners={ac})"
                        tol = {"rtol": 1e-5, "atol": 1e-5} if dt == f32 else {}
                        g.add(f"interpolate_{nm}", "interpolate", "interpolate", [x], ref_interp(x, n, size, mode, ac),
                              attrs=attrs, torch_expr=expr, **tol)
                        go, gx = grad_of(lambda t: ref_interp(t, n, size, mode, ac), x, None)
                        g.add(f"interpolate_backward_{nm}", "interpolate_backward", "interpolate_backward", [x, go], gx,
                              attrs=attrs, torch_expr="autograd.grad of " + expr, **tol)
    tr = [{"kind": "transpose", "a": 2, "b": 3}]
    x = randn(2, 3, 6, 5)
    g.add("interpolate_bilinear_transposed_f32", "interpolate", "interpolate", [x],
          F.interpolate(apply_pre(x, tr), size=[9, 13], mode="bilinear", align_corners=False),
          attrs={"output_size": [9, 13], "mode": "linear", "align_corners": False}, pre={0: tr}, rtol=1e-5, atol=1e-5,
          torch_expr="F.interpolate(x.transpose(2, 3), [9, 13], mode='bilinear')")
    xl = Gen([2, 4, 64, 96], f32, 0.003)
    g.add("interpolate_bilinear_large_f32", "interpolate", "interpolate", [xl],
          sampled(F.interpolate(xl.tensor, size=[128, 192], mode="bilinear", align_corners=False)),
          attrs={"output_size": [128, 192], "mode": "linear", "align_corners": False}, rtol=1e-5, atol=1e-5,
          torch_expr="F.interpolate(x, [128, 192], mode='bilinear'), [2, 4, 64, 96]")
    for r, shp in [(2, (2, 8, 3, 4)), (3, (1, 9, 2, 2)), (2, (3, 2, 4, 1, 1))]:
        for dt in [f32, i64]:
            x = randn(*shp).mul(10).to(dt)
            nm = f"r{r}_{len(shp)}d_{lbl(dt)}"
            g.add(f"pixel_shuffle_{nm}", "pixel_shuffle", "pixel_shuffle", [x], F.pixel_shuffle(x, r), attrs={"factor": r},
                  torch_expr=f"F.pixel_shuffle(x, {r})")
            y = F.pixel_shuffle(x, r)
            g.add(f"pixel_unshuffle_{nm}", "pixel_unshuffle", "pixel_unshuffle", [y], x, attrs={"factor": r},
                  torch_expr=f"F.pixel_unshuffle(x, {r})")
    x = randn(2, 8, 4, 3)
    g.add("pixel_shuffle_transposed_f32", "pixel_shuffle", "pixel_shuffle", [x], F.pixel_shuffle(apply_pre(x, tr), 2),
          attrs={"factor": 2}, pre={0: tr}, torch_expr="F.pixel_shuffle(x.transpose(2, 3), 2)")
    # errors
    x = randn(1, 2, 4, 4)
    g.add("interpolate_zero_size", "interpolate", "interpolate", [x], error="ValueError",
          attrs={"output_size": [0, 3], "mode": "linear"}, torch_expr="output size 0")
    g.add("interpolate_size_len", "interpolate", "interpolate", [x], error="ShapeError",
          attrs={"output_size": [3], "mode": "nearest"}, torch_expr="1 size for 2 spatial dims")
    g.add("interpolate_int_error", "interpolate", "interpolate", [randint(0, 4, 1, 1, 3)], error="DTypeError",
          attrs={"output_size": [5], "mode": "nearest"}, torch_expr="int input")
    g.add("interpolate_cubic_3d", "interpolate", "interpolate", [randn(1, 1, 2, 2, 2)], error="Unsupported",
          attrs={"output_size": [3, 3, 3], "mode": "cubic"}, torch_expr="no tricubic in torch")
    g.add("interpolate_backward_grad_shape", "interpolate_backward", "interpolate_backward", [x, x], error="ShapeError",
          attrs={"output_size": [8, 8], "mode": "linear"}, torch_expr="grad_out of the wrong shape")
    g.add("pixel_shuffle_channels", "pixel_shuffle", "pixel_shuffle", [randn(1, 6, 2, 2)], error="ShapeError",
          attrs={"factor": 2}, torch_expr="6 channels, factor 2")
    g.add("pixel_shuffle_zero_factor", "pixel_shuffle", "pixel_shuffle", [x], error="ValueError",
          attrs={"factor": 0}, torch_expr="factor 0")
    g.add("pixel_unshuffle_indivisible", "pixel_unshuffle", "pixel_unshuffle", [randn(1, 1, 5, 4)], error="ShapeError",
          attrs={"factor": 2}, torch_expr="height 5, factor 2")
    return g


def gen_embedding():
    g = Group("embedding")
    for dt in [f32, f64]:
        w = randn(10, 4, dtype=dt)
        for ishape, idt in [((5,), i64), ((2, 3), i64), ((2, 2, 3), i32), ((), i64), ((0,), i64)]:
            idx = randint(0, 10, *ishape, dtype=idt)
            nm = f"{'x'.join(map(str, ishape)) or 'scalar'}_{lbl(idt)}_{lbl(dt)}"
            g.add(f"embedding_{nm}", "embedding", "embedding", [w, idx], F.embedding(idx.long(), w),
                  torch_expr="F.embedding(idx, w)")
            wr = w.clone().requires_grad_(True)
            y = F.embedding(idx.long(), wr)
            go = randn(*y.shape, dtype=dt)
            (gw,) = torch.autograd.grad(y, wr, go)
            g.add(f"embedding_backward_{nm}", "embedding_backward", "embedding_backward", [w, go, idx], gw,
                  torch_expr="autograd.grad of F.embedding(idx, w) (repeated indices accumulate)")
    w = randint(-9, 9, 6, 3)
    idx = t_idx = torch.tensor([[5, 0], [2, 2]], dtype=i64)
    g.add("embedding_i64_weight", "embedding", "embedding", [w, idx], F.embedding(t_idx, w), torch_expr="F.embedding(idx, w_int)")
    w = randn(7, 5)
    tr = [{"kind": "transpose", "a": 0, "b": 1}]
    g.add("embedding_transposed_weight_f32", "embedding", "embedding", [w, torch.tensor([0, 4, 3], dtype=i64)],
          F.embedding(torch.tensor([0, 4, 3]), w.t()), pre={0: tr}, torch_expr="F.embedding(idx, w.t())")
    wl = Gen([1000, 64], f32, 0.01)
    il = randint(0, 1000, 3000)
    g.add("embedding_large_f32", "embedding", "embedding", [wl, il], sampled(F.embedding(il, wl.tensor)),
          torch_expr="F.embedding(idx[3000], w[1000, 64])")
    w = randn(10, 4)
    g.add("embedding_index_out_of_range", "embedding", "embedding", [w, torch.tensor([1, 10])], error="IndexError",
          torch_expr="index 10 of 10 rows")
    g.add("embedding_negative_index", "embedding", "embedding", [w, torch.tensor([-1])], error="IndexError",
          torch_expr="index -1")
    g.add("embedding_float_indices", "embedding", "embedding", [w, torch.tensor([1.0])], error="DTypeError",
          torch_expr="f32 indices")
    g.add("embedding_weight_rank", "embedding", "embedding", [randn(10), torch.tensor([1])], error="ShapeError",
          torch_expr="1-D weight")
    g.add("embedding_backward_grad_shape", "embedding_backward", "embedding_backward",
          [w, randn(3, 5), torch.tensor([1, 2, 3])], error="ShapeError", torch_expr="grad dim 5 for weight dim 4")
    g.add("embedding_backward_out_of_range", "embedding_backward", "embedding_backward",
          [w, randn(2, 4), torch.tensor([1, 12])], error="IndexError", torch_expr="index 12 of 10 rows")
    return g


def main():
    for g in [gen_pool(), gen_resample(), gen_embedding()]:
        g.write()


if __name__ == "__main__":
    sys.exit(main())
