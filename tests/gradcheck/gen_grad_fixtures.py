#!/usr/bin/python3
# Writes the PyTorch gradient fixtures of burn-autodiff's gradcheck: fixtures/<group>.json, one file per
# op group of the op table. Run with Debian's python3-torch:
#   /usr/bin/python3 tests/gradcheck/gen_grad_fixtures.py [--no-fd]
#
# A case names a "call" of burn-conformance's call table (burn-tensor/conformance/calls*.cpp) with its
# "inputs" and "attrs", exactly as the conformance fixtures do (never "pre" views), and adds:
#   "wrt":   indices of the f32 inputs that require grad;
#   "seeds": one upstream gradient per output of the call (null for an Int/Bool output, and for the
#            running statistics of batch_norm, which torch does not differentiate);
#   "grads": dL/d inputs[wrt[j]] with L = sum_k sum(out_k * seed_k);
#   "grad2" (some cases): {"seeds": v_j per wrt entry, "grads": d/d inputs[wrt[j]] of
#            L2 = sum_j sum(g_j * v_j), g_j = dL/d inputs[wrt[j]] built with create_graph=True}, zeros
#            where torch returns None.
# Inputs and seeds are seeded normals/uniforms rounded to 1e-3 (short JSON), stored as f32; gradients are
# computed by torch in float64 from those exact f32 values and rounded to f32. Inputs stay away from
# kinks and jumps (abs/relu/clamp/max ties, remainder jumps, sqrt/log near 0, ...): every gradient and
# second-order gradient here is checked against central differences in float64 (eps 1e-6, and eps
# 1e-3 as a margin check that no kink lies within 1e-3 of an input); --no-fd skips that check.
#
# Tolerances: rtol 1e-4, atol 1e-5 (f32). A case gets wider ones only where PyTorch's own f32 gradient
# (same inputs, same seeds) misses the float64 reference by more than half of that budget: both are
# then scaled by a factor from 2, 5, 10, ... covering twice torch's worst miss. Such cases are printed.
import argparse
import json
import math
import os
import re
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures")
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
CONF = os.path.join(ROOT, "burn-tensor", "conformance")
sys.path.insert(0, CONF)
# The conformance generators only define helpers at import time (their main() is guarded).
from gen_fixtures import DT, NAME_RE, enc, enc_slices, num, ref_slice, slice_index_ref  # noqa: E402
from gen_fixtures_conv import conv_ref, deform_ref  # noqa: E402
from gen_fixtures_pool import ref_avg, ref_interp, ref_max  # noqa: E402
from gen_fixtures_norm import rms_ref  # noqa: E402

f32, f64, i64, i32, bool_ = torch.float32, torch.float64, torch.int64, torch.int32, torch.bool
RTOL, ATOL = 1e-4, 1e-5
DO_FD = True  # --no-fd turns the central-difference check off
torch.set_num_threads(1)  # reproducible f32 sums, and the build machine is shared

gin = torch.Generator().manual_seed(20240923)   # inputs
gseed = torch.Generator().manual_seed(5318008)  # seeds (upstream gradients and grad2 directions)


# ============================================================================ inputs
def q(x):
    """Rounded to 1e-3: short in JSON, and the f32 value is what every side computes from."""
    return torch.round(x * 1000) / 1000


def randn(*shape, scale=1.0, offset=0.0):
    return q(torch.randn(*shape, generator=gin, dtype=f64) * scale + offset).to(f32)


def uniform(*shape, lo=0.0, hi=1.0):
    return q(torch.rand(*shape, generator=gin, dtype=f64) * (hi - lo) + lo).to(f32)


def signed_uniform(*shape, lo, hi):
    """|x| in [lo, hi] with a random sign: away from zero."""
    s = torch.where(torch.rand(*shape, generator=gin) < 0.5, -1.0, 1.0)
    return uniform(*shape, lo=lo, hi=hi) * s


def distinct(*shape, step=0.05, offset=0.0):
    """A shuffled ramp: every pair of values differs by >= step (no ties for max, sort, pools)."""
    n = int(np.prod(shape))
    perm = torch.randperm(n, generator=gin).to(f64)
    return q((perm - (n - 1) / 2) * step + offset).reshape(shape).to(f32)


def resample_where(x, bad, sampler):
    """Redraws the elements of x where bad(x) holds until none does."""
    x = x.clone()
    for _ in range(1000):
        m = bad(x)
        if not bool(m.any()):
            return x
        x[m] = sampler(int(m.sum()))
    raise RuntimeError("resample_where: no valid draw")


def near_int(v, margin):
    """True where v is within margin of an integer (a floor/round/remainder jump)."""
    return (v - torch.round(v)).abs() < margin


def seed_like(shape, dtype):
    return q(torch.randn(*shape, generator=gseed, dtype=f64)).to(dtype)


def ints(values, dtype=i64):
    return torch.tensor(values, dtype=dtype)


# ============================================================================ encoding
def enc32(x):
    """enc() for f32 tensors with each value as its shortest decimal that reads back (double, then
    static_cast<float>, as fixtures.cpp does) to the same f32; other dtypes as enc()."""
    x = x.detach().contiguous()
    if x.dtype != f32:
        return enc(x)
    data = []
    for v in x.reshape(-1).tolist():
        if not math.isfinite(v):
            data.append(num(v, True))
            continue
        s = float(str(np.float32(v)))
        assert np.float32(s) == np.float32(v), v
        data.append(s)
    return {"dtype": DT[x.dtype], "shape": list(x.shape), "data": data}


# ============================================================================ gradients
def as_list(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


def loss(outs, seeds):
    terms = [(o * s.to(o.dtype)).sum() for o, s in zip(outs, seeds) if s is not None]
    return sum(terms[1:], terms[0])


def prepare(inputs, wrt, dt):
    return [x.detach().to(dt).requires_grad_(i in wrt) if x.is_floating_point() else x for i, x in enumerate(inputs)]


def zeros_for_none(gs, xs):
    return [torch.zeros_like(x) if g is None else g for g, x in zip(gs, xs)]


def first_and_second(fn, inputs, wrt, seeds, v2, dt):
    """(grads, grad2 grads or []) of fn at inputs computed in dtype dt."""
    xs = prepare(inputs, wrt, dt)
    leaves = [xs[j] for j in wrt]
    L = loss(as_list(fn(xs)), seeds)
    gs = torch.autograd.grad(L, leaves, allow_unused=True, create_graph=v2 is not None)
    gs = zeros_for_none(gs, leaves)
    hs = []
    if v2 is not None:
        terms = [(g * v.to(g.dtype)).sum() for g, v in zip(gs, v2) if g.requires_grad]
        if terms:
            hs = zeros_for_none(torch.autograd.grad(sum(terms[1:], terms[0]), leaves, allow_unused=True), leaves)
        else:
            hs = [torch.zeros_like(x) for x in leaves]
    return [g.detach() for g in gs], [h.detach() for h in hs]


def central_differences(f, xs, j, eps):
    """d f(xs) / d xs[j] by central differences (float64, one element at a time)."""
    x = xs[j]
    out = torch.empty(x.numel(), dtype=f64)
    for i in range(x.numel()):
        vals = []
        for sgn in (1.0, -1.0):
            xp = x.clone()
            xp.view(-1)[i] += sgn * eps
            ys = list(xs)
            ys[j] = xp
            vals.append(float(f(ys)))
        out[i] = (vals[0] - vals[1]) / (2 * eps)
    return out.reshape(x.shape)


def check_fd(name, fn, inputs, wrt, seeds, v2, g64, h64):
    """The float64 gradients against central differences with eps 1e-6 (tight) and 1e-3 (margin: no
    kink or jump within 1e-3 of an input)."""
    xs = [x.detach().to(f64) if x.is_floating_point() else x for x in inputs]

    def L(ys):
        with torch.no_grad():
            return loss(as_list(fn(ys)), seeds)

    def L2(ys):
        zs = [y.clone().requires_grad_(i in wrt) if y.is_floating_point() else y for i, y in enumerate(ys)]
        leaves = [zs[j] for j in wrt]
        gs = torch.autograd.grad(loss(as_list(fn(zs)), seeds), leaves, allow_unused=True)
        return sum(float((g * v.to(f64)).sum()) for g, v in zip(gs, v2) if g is not None)

    with torch.no_grad():
        scale = float(sum((o.abs() * s.to(o.dtype).abs()).sum() for o, s in zip(as_list(fn(xs)), seeds) if s is not None))
    checks = [(L, g64, "grad")] + ([(L2, h64, "grad2")] if v2 is not None else [])
    for f, ref, what in checks:
        for k, j in enumerate(wrt):
            r = ref[k]
            tight = central_differences(f, xs, j, 1e-6)
            err = (tight - r).abs() - (1e-6 + 1e-5 * r.abs() + 1e-9 * scale)
            assert float(err.max()) <= 0, \
                f"{name}: {what} wrt input {j} misses central differences (eps 1e-6) by {float(err.max())}"
            wide = central_differences(f, xs, j, 1e-3)
            err = (wide - r).abs() - 1e-3 * (1 + r.abs())
            assert float(err.max()) <= 0, \
                f"{name}: {what} wrt input {j}: a kink within 1e-3 of an input ({float(err.max())})"


def tolerance(name, ref, got):
    """RTOL/ATOL, widened only where torch's own f32 gradient needs it (see the file's header)."""
    worst = 0.0
    for r, g in zip(ref, got):
        ratio = ((g.to(f64) - r).abs() / (ATOL + RTOL * r.abs())).max() if r.numel() else torch.tensor(0.0)
        worst = max(worst, float(ratio))
    if worst <= 0.5:
        return RTOL, ATOL
    need = 2 * worst
    factor = next(f for f in [2, 5, 10, 20, 50, 100, 200, 500, 1000] if f >= need)
    print(f"  {name}: torch f32 gradient misses the f64 one by {worst:.2f}x the default tolerance; "
          f"rtol/atol x{factor}")
    return RTOL * factor, ATOL * factor


# ============================================================================ cases
class Group:
    def __init__(self, name):
        self.name = name
        self.cases = []
        self.names = set()

    def add(self, name, op, call, inputs, fn, attrs=None, wrt=None, expr="", grad2=False, no_seed=()):
        """fn(xs) -> output(s) of the call, in the call's order, from the list of inputs."""
        assert NAME_RE.match(name) and name not in self.names, name
        self.names.add(name)
        inputs = [x.detach() for x in inputs]
        wrt = [i for i, x in enumerate(inputs) if x.is_floating_point()] if wrt is None else list(wrt)
        assert all(inputs[j].dtype == f32 for j in wrt), name
        with torch.no_grad():
            outs = as_list(fn([x.clone() for x in inputs]))
        seeds = [seed_like(o.shape, o.dtype) if o.is_floating_point() and k not in no_seed else None
                 for k, o in enumerate(outs)]
        v2 = [seed_like(inputs[j].shape, f32) for j in wrt] if grad2 else None
        g64, h64 = first_and_second(fn, inputs, wrt, seeds, v2, f64)
        g32, h32 = first_and_second(fn, inputs, wrt, seeds, v2, f32)
        if DO_FD:
            check_fd(f"{self.name}/{name}", fn, inputs, wrt, seeds, v2, g64, h64)
        rtol, atol = tolerance(f"{self.name}/{name}", g64 + h64, g32 + h32)
        case = {"name": name, "op": op, "call": call, "inputs": [enc32(x) for x in inputs], "attrs": dict(attrs or {}),
                "torch": expr, "wrt": wrt, "seeds": [None if s is None else enc32(s) for s in seeds],
                "grads": [enc32(g.to(f32)) for g in g64], "rtol": rtol, "atol": atol}
        if grad2:
            case["grad2"] = {"seeds": [enc32(v) for v in v2], "grads": [enc32(h.to(f32)) for h in h64]}
        self.cases.append(case)

    def write(self):
        os.makedirs(OUT, exist_ok=True)
        path = os.path.join(OUT, self.name + ".json")
        head = json.dumps({"group": self.name, "torch_version": torch.__version__}, separators=(",", ":"))[:-1]
        lines = [json.dumps(c, separators=(",", ":"), allow_nan=False) for c in self.cases]
        with open(path, "w") as f:  # one case per line: readable diffs
            f.write(head + ',"cases":[\n' + ",\n".join(lines) + "\n]}\n")
        print(f"{os.path.relpath(path, ROOT)}: {len(self.cases)} cases, {os.path.getsize(path)} bytes")


def unary_fn(f):
    return lambda xs: f(xs[0])


def binary_fn(f):
    return lambda xs: f(xs[0], xs[1])


# ============================================================================ numeric
def gen_numeric():
    g = Group("numeric")
    shapes = [("same", [3, 4], [3, 4]), ("row", [3, 4], [4]), ("outer", [3, 1], [1, 4]), ("rank3", [2, 3, 4], [3, 1])]
    for op, fn in [("add", torch.add), ("sub", torch.sub), ("mul", torch.mul), ("div", torch.div)]:
        for sn, sa, sb in shapes:
            a = randn(*sa)
            b = signed_uniform(*sb, lo=0.4, hi=2.0) if op == "div" else randn(*sb)
            g.add(f"{op}_{sn}", op, op, [a, b], binary_fn(fn), expr=f"torch.{op}(a, b), a {sa}, b {sb}",
                  grad2=sn in ("same", "outer"))
    # remainder: d/da = 1, d/db = -floor(a / b); a / b away from the jumps at integers
    for sn, sa, sb in shapes[:2]:
        b = signed_uniform(*sb, lo=0.5, hi=1.5)
        a = resample_where(randn(*sa, scale=2.0), lambda a: near_int(a.double() / b.double(), 0.02),
                           lambda n: randn(n, scale=2.0))
        g.add(f"remainder_{sn}", "remainder", "remainder", [a, b], binary_fn(torch.remainder),
              expr=f"torch.remainder(a, b), a {sa}, b {sb}")
    for sn, sa, sb in shapes[:3]:
        a, b = uniform(*sa, lo=0.5, hi=2.0), randn(*sb)
        g.add(f"powf_{sn}", "powf", "powf", [a, b], binary_fn(torch.pow), expr="torch.pow(a, b), a in [0.5, 2]",
              grad2=True)
    e = ints([[2, 0, -1, 3], [1, -2, 2, 0], [3, 1, 0, -1]])
    a = signed_uniform(3, 4, lo=0.5, hi=1.5)
    g.add("powi", "powf", "powi", [a, e], lambda xs: torch.pow(xs[0], xs[1].to(xs[0].dtype)), wrt=[0],
          expr="torch.pow(x, e), e an Int tensor")
    # scalar ops (Scalar attrs: a JSON float is a float Scalar, a JSON int an int Scalar)
    x = randn(3, 4)
    xnz = signed_uniform(3, 4, lo=0.4, hi=2.0)
    xpos = uniform(3, 4, lo=0.5, hi=2.0)
    xrem = resample_where(randn(3, 4, scale=2.0), lambda v: near_int(v.double() / 1.5, 0.02), lambda n: randn(n, scale=2.0))
    scal = [
        ("add_scalar", "add_scalar", "add_scalar", x, 2.5, lambda v, s: v + s, "x + 2.5"),
        ("add_scalar_int", "add_scalar", "add_scalar", x, 3, lambda v, s: v + s, "x + 3 (int scalar)"),
        ("sub_scalar", "sub_scalar", "sub_scalar", x, 1.5, lambda v, s: v - s, "x - 1.5"),
        ("rsub_scalar", "sub_scalar", "rsub_scalar", x, 1.0, lambda v, s: s - v, "1.0 - x"),
        ("mul_scalar", "mul_scalar", "mul_scalar", x, -1.5, lambda v, s: v * s, "x * -1.5"),
        ("div_scalar", "div_scalar", "div_scalar", x, 2.5, lambda v, s: v / s, "x / 2.5"),
        ("rdiv_scalar", "div_scalar", "rdiv_scalar", xnz, 2.0, lambda v, s: s / v, "2.0 / x, |x| >= 0.4"),
        ("remainder_scalar", "remainder_scalar", "remainder_scalar", xrem, 1.5, lambda v, s: torch.remainder(v, s),
         "torch.remainder(x, 1.5), away from the jumps"),
        ("powf_scalar_2", "powf_scalar", "powf_scalar", xpos, 2.0, torch.pow, "torch.pow(x, 2.0)"),
        ("powf_scalar_0p5", "powf_scalar", "powf_scalar", xpos, 0.5, torch.pow, "torch.pow(x, 0.5)"),
        ("powf_scalar_m1p5", "powf_scalar", "powf_scalar", xpos, -1.5, torch.pow, "torch.pow(x, -1.5)"),
        ("powf_scalar_int3", "powf_scalar", "powf_scalar", xpos, 3, torch.pow, "torch.pow(x, 3) (int scalar)"),
        ("powf_scalar_2_negative_base", "powf_scalar", "powf_scalar", xnz, 2.0, torch.pow,
         "torch.pow(x, 2.0), x < 0 too: 2x, not NaN"),
    ]
    for name, op, call, xin, s, fn, expr in scal:
        g.add(name, op, call, [xin], lambda xs, fn=fn, s=s: fn(xs[0], s), attrs={"scalar": s}, expr=expr, grad2=True)
    for k in [2, 3, -2]:
        g.add(f"powi_scalar_{'m' if k < 0 else ''}{abs(k)}", "powf_scalar", "powi_scalar", [xnz],
              lambda xs, k=k: torch.pow(xs[0], k), attrs={"exponent": k}, expr=f"torch.pow(x, {k})")
    # maximum / minimum: |a - b| >= 0.05, no ties
    for op, fn in [("maximum", torch.maximum), ("minimum", torch.minimum)]:
        for sn, sa, sb in shapes[:2]:
            b = randn(*sb)
            a = resample_where(randn(*sa), lambda a: (a - b).abs() < 0.05, lambda n: randn(n))
            g.add(f"{op}_{sn}", op, op, [a, b], binary_fn(fn), expr=f"torch.{op}(a, b), no ties")
    g.add("neg", "neg", "unary", [x], unary_fn(torch.neg), attrs={"op": "neg"}, expr="-x")
    g.add("abs", "abs", "unary", [signed_uniform(3, 4, lo=0.05, hi=2.0)], unary_fn(torch.abs), attrs={"op": "abs"},
          expr="torch.abs(x), |x| >= 0.05")
    g.add("sign", "sign", "unary", [signed_uniform(3, 4, lo=0.05, hi=2.0)], unary_fn(torch.sign), attrs={"op": "sign"},
          expr="torch.sign(x): zero gradient")
    xc = resample_where(randn(4, 5, scale=1.5), lambda v: ((v + 1.0).abs() < 0.02) | ((v - 0.5).abs() < 0.02),
                        lambda n: randn(n, scale=1.5))
    g.add("clamp", "clamp", "clamp", [xc], unary_fn(lambda v: torch.clamp(v, -1.0, 0.5)), attrs={"min": -1.0, "max": 0.5},
          expr="torch.clamp(x, -1, 0.5)")
    xc = resample_where(randn(3, 4), lambda v: (v + 0.3).abs() < 0.02, lambda n: randn(n))
    g.add("clamp_min", "clamp_min", "clamp_min", [xc], unary_fn(lambda v: torch.clamp(v, min=-0.3)),
          attrs={"min": -0.3}, expr="torch.clamp(x, min=-0.3)")
    xc = resample_where(randn(3, 4), lambda v: (v - 0.4).abs() < 0.02, lambda n: randn(n))
    g.add("clamp_max", "clamp_max", "clamp_max", [xc], unary_fn(lambda v: torch.clamp(v, max=0.4)),
          attrs={"max": 0.4}, expr="torch.clamp(x, max=0.4)")
    for name, sa, sb, g2 in [("2d", [3, 4], [4, 5], True), ("batched", [2, 3, 4], [2, 4, 5], True),
                             ("broadcast_batch", [2, 1, 3, 4], [1, 3, 4, 5], False)]:
        g.add(f"matmul_{name}", "matmul", "matmul", [randn(*sa), randn(*sb)], binary_fn(torch.matmul),
              expr=f"torch.matmul(a {sa}, b {sb})", grad2=g2)
    return g


# ============================================================================ float_math
def gen_float_math():
    g = Group("float_math")
    # (op, torch fn, sampler of the input, grad2)
    ops = [
        ("exp", torch.exp, lambda: uniform(3, 4, lo=-3, hi=3), True),
        ("log", torch.log, lambda: uniform(3, 4, lo=0.2, hi=5), True),
        ("log1p", torch.log1p, lambda: uniform(3, 4, lo=-0.7, hi=4), False),
        ("sqrt", torch.sqrt, lambda: uniform(3, 4, lo=0.2, hi=5), True),
        ("sin", torch.sin, lambda: uniform(3, 4, lo=-3, hi=3), True),
        ("cos", torch.cos, lambda: uniform(3, 4, lo=-3, hi=3), True),
        ("tan", torch.tan, lambda: uniform(3, 4, lo=-1.3, hi=1.3), False),
        ("sinh", torch.sinh, lambda: uniform(3, 4, lo=-3, hi=3), False),
        ("cosh", torch.cosh, lambda: uniform(3, 4, lo=-3, hi=3), False),
        ("tanh", torch.tanh, lambda: uniform(3, 4, lo=-3, hi=3), True),
        ("asin", torch.asin, lambda: uniform(3, 4, lo=-0.9, hi=0.9), False),
        ("acos", torch.acos, lambda: uniform(3, 4, lo=-0.9, hi=0.9), False),
        ("atan", torch.atan, lambda: uniform(3, 4, lo=-4, hi=4), False),
        ("erf", torch.erf, lambda: uniform(3, 4, lo=-2.5, hi=2.5), False),
        ("recip", torch.reciprocal, lambda: signed_uniform(3, 4, lo=0.3, hi=3), True),
        ("square", torch.square, lambda: uniform(3, 4, lo=-3, hi=3), True),
    ]
    for op, fn, sample, g2 in ops:
        g.add(op, op, "unary", [sample()], unary_fn(fn), attrs={"op": op}, expr=f"torch.{fn.__name__}(x)", grad2=g2)
    # piecewise constant: zero gradients, inputs away from the jumps
    for op, shift in [("round", 0.5), ("floor", 0.0), ("ceil", 0.0), ("trunc", 0.0)]:
        x = resample_where(uniform(3, 4, lo=-4, hi=4), lambda v, s=shift: near_int(v.double() + s, 0.02),
                           lambda n: uniform(n, lo=-4, hi=4))
        g.add(op, op, "unary", [x], unary_fn(getattr(torch, op)), attrs={"op": op},
              expr=f"torch.{op}(x): zero gradient")
    for sn, sa, sb in [("same", [3, 4], [3, 4]), ("row", [3, 4], [4])]:
        a, b = randn(*sa), signed_uniform(*sb, lo=0.3, hi=2.0)
        g.add(f"atan2_{sn}", "atan2", "atan2", [a, b], binary_fn(torch.atan2), expr=f"torch.atan2(a {sa}, b {sb})")
    return g


# ============================================================================ activation
def gen_activation():
    g = Group("activation")
    away0 = lambda: signed_uniform(3, 4, lo=0.05, hi=3.0)  # noqa: E731  (relu-like kinks at 0)
    unary = [
        ("relu", F.relu, away0, True, "F.relu(x)"),
        ("gelu", F.gelu, lambda: randn(3, 4, scale=2.0), True, "F.gelu(x)"),
        ("gelu_tanh", lambda v: F.gelu(v, approximate="tanh"), lambda: randn(3, 4, scale=2.0), False,
         "F.gelu(x, approximate='tanh')"),
        ("sigmoid", torch.sigmoid, lambda: randn(3, 4, scale=2.0), True, "torch.sigmoid(x)"),
        ("log_sigmoid", F.logsigmoid, lambda: randn(3, 4, scale=2.0), False, "F.logsigmoid(x)"),
        ("silu", F.silu, lambda: randn(3, 4, scale=2.0), True, "F.silu(x)"),
        ("mish", F.mish, lambda: randn(3, 4, scale=2.0), False, "F.mish(x)"),
        ("selu", F.selu, away0, False, "F.selu(x)"),
    ]
    for op, fn, sample, g2, expr in unary:
        g.add(op, op, "unary", [sample()], unary_fn(fn), attrs={"op": op}, expr=expr, grad2=g2)
    for s in [0.01, 0.2]:
        g.add(f"leaky_relu_{str(s).replace('.', 'p')}", "leaky_relu", "leaky_relu", [away0()],
              unary_fn(lambda v, s=s: F.leaky_relu(v, s)), attrs={"negative_slope": s}, expr=f"F.leaky_relu(x, {s})")
    # softplus is linear above threshold / beta: inputs stay 0.05 away from that switch
    for beta, thr, g2 in [(1.0, 20.0, True), (2.0, 5.0, False)]:
        x = resample_where(uniform(3, 4, lo=-4, hi=6), lambda v: (v * beta - thr).abs() < 0.1,
                           lambda n: uniform(n, lo=-4, hi=6))
        g.add(f"softplus_b{int(beta)}_t{int(thr)}", "softplus", "softplus", [x],
              unary_fn(lambda v, beta=beta, thr=thr: F.softplus(v, beta, thr)), attrs={"beta": beta, "threshold": thr},
              expr=f"F.softplus(x, beta={beta}, threshold={thr})", grad2=g2)
    # hard_sigmoid = clamp(alpha * x + beta, 0, 1): kinks at -beta / alpha and (1 - beta) / alpha
    for alpha, beta in [(1.0 / 6.0, 0.5), (0.2, 0.5)]:
        lo, hi = -beta / alpha, (1 - beta) / alpha
        x = resample_where(uniform(3, 4, lo=-5, hi=5), lambda v: ((v - lo).abs() < 0.05) | ((v - hi).abs() < 0.05),
                           lambda n: uniform(n, lo=-5, hi=5))
        g.add(f"hard_sigmoid_a{str(round(alpha, 3)).replace('.', 'p')}", "hard_sigmoid", "hard_sigmoid", [x],
              unary_fn(lambda v, a=alpha, b=beta: torch.clamp(a * v + b, 0.0, 1.0)), attrs={"alpha": alpha, "beta": beta},
              expr=f"torch.clamp({alpha} * x + {beta}, 0, 1)")
    for alpha in [1.0, 0.5]:
        g.add(f"elu_a{str(alpha).replace('.', 'p')}", "elu", "elu", [away0()], unary_fn(lambda v, a=alpha: F.elu(v, a)),
              attrs={"alpha": alpha}, expr=f"F.elu(x, {alpha})")
    x3 = randn(2, 3, 4, scale=1.5)
    for d in [0, 1, -1]:
        dn = f"dim{d}" if d >= 0 else "dimm1"
        g.add(f"softmax_{dn}", "softmax", "softmax", [x3], unary_fn(lambda v, d=d: F.softmax(v, d)), attrs={"dim": d},
              expr=f"F.softmax(x, {d})", grad2=d != 0)
        g.add(f"log_softmax_{dn}", "log_softmax", "log_softmax", [x3], unary_fn(lambda v, d=d: F.log_softmax(v, d)),
              attrs={"dim": d}, expr=f"F.log_softmax(x, {d})", grad2=d != 0)
        g.add(f"softmin_{dn}", "api:softmin", "softmin", [x3], unary_fn(lambda v, d=d: F.softmin(v, d)),
              attrs={"dim": d}, expr=f"F.softmin(x, {d})")
    return g


# ============================================================================ reduce
def gen_reduce():
    g = Group("reduce")
    x = randn(3, 4, 5)
    xd = distinct(3, 4, 5)
    xp = uniform(2, 3, 4, lo=0.5, hi=1.5)
    xz = xp.clone()
    xz[1, 2, 1] = 0.0  # one exact zero: prod's gradient must not divide by x
    for op, fn, src, g2 in [("sum", torch.sum, x, True), ("mean", torch.mean, x, True), ("prod", torch.prod, xp, False),
                            ("max", torch.max, xd, False), ("min", torch.min, xd, False)]:
        g.add(op, op, "reduce_all", [src], unary_fn(lambda v, fn=fn: fn(v).reshape(1)), attrs={"op": op},
              expr=f"torch.{op}(x).reshape(1)", grad2=g2)
    g.add("prod_with_zero", "prod", "reduce_all", [xz], unary_fn(lambda v: torch.prod(v).reshape(1)), attrs={"op": "prod"},
          expr="torch.prod(x).reshape(1), one x is 0")
    dims = [("sum_dim", lambda v, d: torch.sum(v, d, keepdim=True), x, True),
            ("mean_dim", lambda v, d: torch.mean(v, d, keepdim=True), x, True),
            ("prod_dim", lambda v, d: torch.prod(v, d, keepdim=True), xp, False),
            ("max_dim", lambda v, d: torch.amax(v, d, keepdim=True), xd, True),
            ("min_dim", lambda v, d: torch.amin(v, d, keepdim=True), xd, False)]
    for op, fn, src, g2 in dims:
        for d in [0, -1]:
            g.add(f"{op}_dim{d if d >= 0 else 'm1'}", op, "reduce_dim", [src], unary_fn(lambda v, fn=fn, d=d: fn(v, d)),
                  attrs={"op": op, "dim": d}, expr=f"torch.{op[:-4]}(x, {d}, keepdim=True)", grad2=g2)
    g.add("prod_dim_with_zero", "prod_dim", "reduce_dim", [xz], unary_fn(lambda v: torch.prod(v, 1, keepdim=True)),
          attrs={"op": "prod_dim", "dim": 1}, expr="torch.prod(x, 1, keepdim=True), one x is 0")
    for op, fn in [("max_dim_with_indices", torch.max), ("min_dim_with_indices", torch.min)]:
        for d in [1, -1]:
            g.add(f"{op}_dim{d if d >= 0 else 'm1'}", op, "reduce_dim_with_indices", [xd],
                  unary_fn(lambda v, fn=fn, d=d: list(fn(v, d, keepdim=True))), attrs={"op": op, "dim": d},
                  expr=f"torch.{fn.__name__}(x, {d}, keepdim=True): (values, indices), indices not differentiated")
    for d in [0, -1]:
        for c in [0, 1]:
            g.add(f"var_dim{d if d >= 0 else 'm1'}_c{c}", "var", "var", [x],
                  unary_fn(lambda v, d=d, c=c: torch.var(v, d, correction=c, keepdim=True)),
                  attrs={"dim": d, "correction": c}, expr=f"torch.var(x, {d}, correction={c}, keepdim=True)")
    g.add("var_mean", "var", "var_mean", [x], unary_fn(lambda v: list(torch.var_mean(v, 1, correction=1, keepdim=True))),
          attrs={"dim": 1, "correction": 1}, expr="torch.var_mean(x, 1, correction=1, keepdim=True)")
    x2, xd2, xp2 = randn(3, 4), distinct(3, 4, step=0.1), uniform(3, 4, lo=0.5, hi=1.5)
    xz2 = xp2.clone()
    xz2[1, 1] = 0.0
    cum = [("cumsum", lambda v, d: torch.cumsum(v, d), x2), ("cumprod", lambda v, d: torch.cumprod(v, d), xp2),
           ("cummax", lambda v, d: torch.cummax(v, d).values, xd2), ("cummin", lambda v, d: torch.cummin(v, d).values, xd2)]
    for op, fn, src in cum:
        for d in [0, 1]:
            g.add(f"{op}_dim{d}", op, "reduce_dim", [src], unary_fn(lambda v, fn=fn, d=d: fn(v, d)),
                  attrs={"op": op, "dim": d}, expr=f"torch.{op}(x, {d})")
    g.add("cumprod_with_zero", "cumprod", "reduce_dim", [xz2], unary_fn(lambda v: torch.cumprod(v, 1)),
          attrs={"op": "cumprod", "dim": 1}, expr="torch.cumprod(x, 1), one x is 0")
    for d, desc in [(-1, False), (-1, True), (0, False)]:
        nm = f"sort_dim{d if d >= 0 else 'm1'}_{'desc' if desc else 'asc'}"
        g.add(nm, "sort", "sort_with_indices", [xd2], unary_fn(lambda v, d=d, desc=desc: list(torch.sort(v, d, desc))),
              attrs={"dim": d, "descending": desc, "stable": False},
              expr=f"torch.sort(x, {d}, descending={desc}): (values, indices)")
    for k, d, largest in [(2, -1, True), (2, 0, False)]:
        nm = f"topk_k{k}_dim{d if d >= 0 else 'm1'}_{'largest' if largest else 'smallest'}"
        g.add(nm, "topk", "topk_with_indices", [xd2], unary_fn(lambda v, k=k, d=d, lg=largest: list(torch.topk(v, k, d, lg))),
              attrs={"k": k, "dim": d, "largest": largest}, expr=f"torch.topk(x, {k}, {d}, largest={largest})")
    return g


# ============================================================================ layout
def gen_layout():
    g = Group("layout")
    x = randn(2, 3, 4)
    for k, dims in enumerate([[4, 6], [-1]]):
        g.add(f"reshape_{k}", "reshape", "reshape", [x], unary_fn(lambda v, d=dims: v.reshape(d)), attrs={"dims": dims},
              expr=f"x.reshape({dims})", grad2=k == 0)
    g.add("permute", "permute", "permute", [x], unary_fn(lambda v: v.permute(2, 0, 1)), attrs={"axes": [2, 0, 1]},
          expr="x.permute(2, 0, 1)", grad2=True)
    g.add("swap_dims", "permute", "swap_dims", [x], unary_fn(lambda v: v.transpose(0, 2)), attrs={"a": 0, "b": 2},
          expr="x.transpose(0, 2)")
    g.add("flatten_0_1", "reshape", "flatten", [x], unary_fn(lambda v: torch.flatten(v, 0, 1)),
          attrs={"start": 0, "end": 1}, expr="torch.flatten(x, 0, 1)")
    g.add("flatten_1_2", "reshape", "flatten", [x], unary_fn(lambda v: torch.flatten(v, 1, 2)),
          attrs={"start": 1, "end": 2}, expr="torch.flatten(x, 1, 2)")
    xs = randn(1, 3, 1, 2)
    g.add("squeeze_all", "reshape", "squeeze_dims", [xs], unary_fn(torch.squeeze), attrs={"dims": []}, expr="x.squeeze()")
    g.add("squeeze_dim2", "reshape", "squeeze_dims", [xs], unary_fn(lambda v: v.squeeze(2)), attrs={"dims": [2]},
          expr="x.squeeze(2)")
    x23 = randn(2, 3)
    g.add("unsqueeze_two", "reshape", "unsqueeze_dims", [x23], unary_fn(lambda v: v.unsqueeze(0).unsqueeze(2)),
          attrs={"dims": [0, 2]}, expr="x.unsqueeze(0).unsqueeze(2)")
    g.add("expand_column", "expand", "expand", [randn(3, 1)], unary_fn(lambda v: v.expand(3, 4)), attrs={"dims": [3, 4]},
          expr="x.expand(3, 4): gradient summed over the copies")
    g.add("expand_leading", "expand", "expand", [randn(1, 3)], unary_fn(lambda v: v.expand(2, 2, 3)),
          attrs={"dims": [2, 2, 3]}, expr="x.expand(2, 2, 3)")
    g.add("flip", "flip", "flip", [x], unary_fn(lambda v: v.flip([0, 2])), attrs={"axes": [0, 2]}, expr="x.flip([0, 2])")
    # slice (our Slice: a negative step walks [start, end) backwards from end - 1)
    x56 = randn(5, 6)
    for k, (nm, sl) in enumerate([("range", [(1, 4, 1)]), ("step2", [(0, 5, 2), (1, 6, 2)]),
                                  ("negative_step", [(1, 5, -2), (0, 6, -3)]), ("at", [(None, None, 1), 2])]):
        g.add(f"slice_{nm}", "slice", "slice", [x56], unary_fn(lambda v, sl=sl: ref_slice(v, sl)),
              attrs={"slices": enc_slices(sl)}, expr=f"our Slice {sl}", grad2=k == 1)
    g.add("narrow", "slice", "narrow", [x56], unary_fn(lambda v: v.narrow(1, 2, 3)), attrs={"dim": 1, "start": 2, "length": 3},
          expr="x.narrow(1, 2, 3)")

    def assign(v, sl, val):
        flat = slice_index_ref(list(v.shape), sl).reshape(-1)
        return v.reshape(-1).index_put((flat,), val.reshape(-1)).reshape(v.shape)

    xa = randn(4, 5)
    for nm, sl in [("block", [(1, 3, 1), (0, 2, 1)]), ("step2", [(0, 4, 2), (1, 5, 2)]), ("negative_step", [(0, 3, -1)])]:
        val = randn(*ref_slice(xa, sl).shape)
        g.add(f"slice_assign_{nm}", "slice_assign", "slice_assign", [xa, val],
              lambda xs, sl=sl: assign(xs[0], sl, xs[1]), attrs={"slices": enc_slices(sl)},
              expr=f"y = x.clone(); y[our Slice {sl}] = v: grads for x (zero in the slice) and v")
    sl = [(None, None, 1), (1, None, 2)]
    g.add("slice_fill", "slice_assign", "slice_fill", [xa],
          unary_fn(lambda v: v.reshape(-1).index_fill(0, slice_index_ref([4, 5], sl).reshape(-1), 5.0).reshape(4, 5)),
          attrs={"slices": enc_slices(sl), "value": 5.0}, expr="y = x.clone(); y[:, 1::2] = 5")
    a, b, c = randn(2, 3), randn(1, 3), randn(3, 3)
    g.add("cat_dim0", "cat", "cat", [a, b, c], lambda xs: torch.cat(xs, 0), attrs={"dim": 0}, expr="torch.cat([a, b, c], 0)")
    g.add("cat_dim1", "cat", "cat", [randn(2, 2), randn(2, 3)], lambda xs: torch.cat(xs, 1), attrs={"dim": 1},
          expr="torch.cat([a, b], 1)")
    s = [randn(2, 3) for _ in range(3)]
    for d in [0, -1]:
        g.add(f"stack_dim{d if d >= 0 else 'm1'}", "cat", "stack", s, lambda xs, d=d: torch.stack(xs, d), attrs={"dim": d},
              expr=f"torch.stack([a, b, c], {d})")
    g.add("repeat_2d", "repeat_dim", "repeat", [x23], unary_fn(lambda v: v.repeat(2, 1)), attrs={"sizes": [2, 1]},
          expr="x.repeat(2, 1)")
    g.add("repeat_3d", "repeat_dim", "repeat", [randn(2, 1, 2)], unary_fn(lambda v: v.repeat(1, 3, 2)),
          attrs={"sizes": [1, 3, 2]}, expr="x.repeat(1, 3, 2)")
    x54 = randn(5, 4)
    g.add("chunk_3_dim0", "slice", "chunk", [x54], unary_fn(lambda v: list(torch.chunk(v, 3, 0))),
          attrs={"chunks": 3, "dim": 0}, expr="torch.chunk(x, 3, 0): 3 outputs")
    g.add("split_3_dim1", "slice", "split", [x54], unary_fn(lambda v: list(torch.split(v, 3, 1))),
          attrs={"size": 3, "dim": 1}, expr="torch.split(x, 3, 1): 2 outputs")
    g.add("split_with_sizes", "slice", "split_with_sizes", [x54], unary_fn(lambda v: list(torch.split(v, [1, 3, 1], 0))),
          attrs={"sizes": [1, 3, 1], "dim": 0}, expr="torch.split(x, [1, 3, 1], 0)")
    for k, (sh, dm) in enumerate([([1], [0]), ([-1, 2], [0, 1])]):
        g.add(f"roll_{k}", "api:roll", "roll", [randn(3, 4)], unary_fn(lambda v, sh=sh, dm=dm: torch.roll(v, sh, dm)),
              attrs={"shifts": sh, "dims": dm}, expr=f"torch.roll(x, {sh}, {dm})")
    for nm, pads, mode, val in [("constant", [1, 2, 0, 1], "constant", 0.5), ("reflect", [2, 1, 1, 1], "reflect", 0.0),
                                ("replicate", [0, 3, 1, 0], "replicate", 0.0)]:
        fn = (lambda v, p=pads, val=val: F.pad(v, p, value=val)) if mode == "constant" else \
             (lambda v, p=pads, m=mode: F.pad(v, p, mode=m))
        g.add(f"pad_{nm}", "api:pad", "pad", [x], unary_fn(fn), attrs={"pads": pads, "mode": mode, "value": val},
              expr=f"F.pad(x, {pads}, mode='{mode}')")
    return g


# ============================================================================ indexing
def gen_indexing():
    g = Group("indexing")
    x = randn(3, 4)
    idx0 = ints([[0, 2, 2, 1], [2, 0, 2, 0]])
    idx1 = ints([[3, 3, 0, 1, 2], [0, 0, 0, 1, 1], [2, 3, 2, 1, 1]])
    g.add("gather_dim0", "gather", "gather", [x, idx0], lambda xs: torch.gather(xs[0], 0, xs[1]), attrs={"dim": 0},
          expr="torch.gather(x, 0, idx), repeated indices")
    g.add("gather_dim1", "gather", "gather", [x, idx1], lambda xs: torch.gather(xs[0], 1, xs[1]), attrs={"dim": 1},
          expr="torch.gather(x, 1, idx), repeated indices")
    v0 = randn(2, 4)
    g.add("scatter_add_dim0", "scatter_add", "scatter_add", [x, idx0, v0],
          lambda xs: torch.scatter_add(xs[0], 0, xs[1], xs[2]), attrs={"dim": 0},
          expr="torch.scatter_add(x, 0, idx, v), duplicates")
    idxd = ints([[0, 0, 1], [2, 2, 2], [3, 0, 3]])
    g.add("scatter_add_dim1", "scatter_add", "scatter_add", [x, idxd, randn(3, 3)],
          lambda xs: torch.scatter_add(xs[0], 1, xs[1], xs[2]), attrs={"dim": 1},
          expr="torch.scatter_add(x, 1, idx, v), duplicates")
    sel = ints([2, 0, 2])
    g.add("select_dim0", "select", "select", [x, sel], lambda xs: torch.index_select(xs[0], 0, xs[1]), attrs={"dim": 0},
          expr="torch.index_select(x, 0, [2, 0, 2])")
    g.add("select_dim1_i32_index", "select", "select", [x, ints([3, 1, 3, 3], i32)],
          lambda xs: torch.index_select(xs[0], 1, xs[1].long()), attrs={"dim": 1},
          expr="torch.index_select(x, 1, [3, 1, 3, 3])")
    g.add("select_assign_dim0", "select_add", "select_assign", [x, sel, randn(3, 4)],
          lambda xs: xs[0].index_add(0, xs[1], xs[2]), attrs={"dim": 0}, expr="x.index_add(0, [2, 0, 2], v)")
    g.add("select_assign_dim1", "select_add", "select_assign", [x, ints([1, 1]), randn(3, 2)],
          lambda xs: xs[0].index_add(1, xs[1], xs[2]), attrs={"dim": 1}, expr="x.index_add(1, [1, 1], v)")
    m = torch.tensor([[True, False, False, True], [False, True, True, False], [True, True, False, False]])
    mb = torch.tensor([False, True, True, False])
    g.add("mask_where", "mask_where", "mask_where", [x, m, randn(3, 4)], lambda xs: torch.where(xs[1], xs[2], xs[0]),
          expr="torch.where(mask, value, x): grads for both branches")
    g.add("mask_where_broadcast_mask", "mask_where", "mask_where", [x, mb, randn(3, 4)],
          lambda xs: torch.where(xs[1], xs[2], xs[0]), expr="torch.where(mask[4], value, x)")
    g.add("mask_where_broadcast_value", "mask_where", "mask_where", [x, m, randn(1, 4)],
          lambda xs: torch.where(xs[1], xs[2], xs[0]), expr="torch.where(mask, value[1, 4], x): value's grad summed")
    g.add("mask_fill", "mask_fill", "mask_fill", [x, m], lambda xs: xs[0].masked_fill(xs[1], 2.5), attrs={"value": 2.5},
          expr="x.masked_fill(mask, 2.5)")
    g.add("mask_fill_broadcast", "mask_fill", "mask_fill", [x, mb], lambda xs: xs[0].masked_fill(xs[1], -1.0),
          attrs={"value": -1.0}, expr="x.masked_fill(mask[4], -1)")
    for d in [0, 1, -1]:
        nm = f"m{-d}" if d < 0 else str(d)
        g.add(f"tril_{nm}", "api:tril", "tril", [x], unary_fn(lambda v, d=d: torch.tril(v, d)), attrs={"diagonal": d},
              expr=f"torch.tril(x, {d})")
        g.add(f"triu_{nm}", "api:triu", "triu", [x], unary_fn(lambda v, d=d: torch.triu(v, d)), attrs={"diagonal": d},
              expr=f"torch.triu(x, {d})")
    return g


# ============================================================================ creation
def gen_creation():
    g = Group("creation")
    g.add("cast_f32_to_f64", "cast", "cast", [randn(3, 4)], unary_fn(lambda v: v.to(f64)), attrs={"dtype": "f64"},
          expr="x.to(torch.float64): f64 seed, f32 gradient")
    g.add("cast_f32_to_f32", "cast", "cast", [randn(3, 4)], unary_fn(lambda v: v.to(v.dtype)), attrs={"dtype": "f32"},
          expr="x.to(torch.float32): identity")
    return g


# ============================================================================ conv
def expand_opt(v, n, default):
    if v is None or len(v) == 0:
        return [default] * n
    return list(v) * n if len(v) == 1 else list(v)


def deform_conv2d(x, off, w, mask, b, stride, padding, dilation, wg, og):
    """torchvision.ops.deform_conv2d, differentiable: the semantics of deform_ref (gen_fixtures_conv.py),
    vectorised. Each tap samples x bilinearly at its base position plus (dy, dx), zero outside."""
    n, c, h, wd = x.shape
    cout = w.shape[0]
    kh, kw = w.shape[2], w.shape[3]
    ho, wo = off.shape[2], off.shape[3]
    k = kh * kw
    ki = torch.arange(kh).repeat_interleave(kw).reshape(k, 1, 1)
    kj = torch.arange(kw).repeat(kh).reshape(k, 1, 1)
    by = (torch.arange(ho).reshape(1, ho, 1) * stride[0] - padding[0] + ki * dilation[0]).to(x.dtype)
    bx = (torch.arange(wo).reshape(1, 1, wo) * stride[1] - padding[1] + kj * dilation[1]).to(x.dtype)
    off = off.reshape(n, og, k, 2, ho, wo)
    py, px = by + off[:, :, :, 0], bx + off[:, :, :, 1]  # [n, og, k, ho, wo]
    y0, x0 = torch.floor(py.detach()), torch.floor(px.detach())
    ly, lx = py - y0, px - x0
    cpg = c // og
    xg = x.reshape(n, og, cpg, h * wd)
    cols = 0
    for dy, wy in ((0, 1 - ly), (1, ly)):
        for dx, wx in ((0, 1 - lx), (1, lx)):
            yy, xx = y0 + dy, x0 + dx
            valid = ((yy >= 0) & (yy < h) & (xx >= 0) & (xx < wd)).to(x.dtype)
            flat = (yy.clamp(0, h - 1) * wd + xx.clamp(0, wd - 1)).long().reshape(n, og, 1, k * ho * wo)
            s = torch.gather(xg, 3, flat.expand(n, og, cpg, k * ho * wo)).reshape(n, og, cpg, k, ho, wo)
            cols = cols + s * (wy * wx * valid).unsqueeze(2)
    if mask is not None:
        cols = cols * mask.reshape(n, og, 1, k, ho, wo)
    cols = cols.reshape(n, wg, (c // wg) * k, ho * wo)
    y = torch.einsum("gok,ngkl->ngol", w.reshape(wg, cout // wg, (c // wg) * k), cols).reshape(n, cout, ho, wo)
    return y if b is None else y + b.reshape(1, -1, 1, 1)


def gen_conv():
    g = Group("conv")
    CONVT = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}
    # (name, x shape, w shape, attrs, bias)
    specs = [
        ("1d_bias", [2, 3, 10], [4, 3, 3], {}, True),
        ("1d_nobias", [2, 3, 10], [4, 3, 3], {}, False),
        ("1d_stride_pad_dil_groups", [2, 4, 12], [6, 2, 3], dict(stride=[2], padding=[2], dilation=[2], groups=2), False),
        ("2d_bias", [1, 2, 6, 6], [3, 2, 3, 3], {}, True),
        ("2d_stride2_pad1", [2, 2, 7, 7], [3, 2, 3, 3], dict(stride=[2], padding=[1]), True),
        ("2d_dilation2_nobias", [1, 2, 8, 7], [2, 2, 3, 3], dict(dilation=[2], padding=[1]), False),
        ("2d_groups2", [1, 4, 5, 5], [4, 2, 3, 3], dict(padding=[1], groups=2), True),
        ("2d_depthwise", [1, 3, 6, 6], [6, 1, 3, 3], dict(padding=[1], stride=[2], groups=3), True),
        ("2d_per_dim_asym_pad", [1, 2, 6, 7], [2, 2, 3, 2], dict(stride=[2, 1], padding=[0, 1], padding_end=[1, 0]), True),
        ("3d_bias", [1, 2, 4, 4, 4], [2, 2, 2, 2, 2], dict(padding=[1]), True),
        ("3d_stride_nobias", [1, 2, 5, 4, 4], [3, 2, 3, 2, 2], dict(stride=[2]), False),
    ]
    for name, xs, ws, at, has_b in specs:
        sd = len(xs) - 2
        st, pa = expand_opt(at.get("stride"), sd, 1), expand_opt(at.get("padding"), sd, 0)
        pe = expand_opt(at.get("padding_end"), sd, 0) if "padding_end" in at else pa
        di, gr = expand_opt(at.get("dilation"), sd, 1), at.get("groups", 1)
        ins = [randn(*xs), randn(*ws, scale=0.5)] + ([randn(ws[0])] if has_b else [])
        g.add(f"conv_{name}", "conv", "conv", ins,
              lambda v, st=st, pa=pa, pe=pe, di=di, gr=gr: conv_ref(v[0], v[1], v[2] if len(v) > 2 else None, st, pa, pe, di, gr),
              attrs={**at, "bias": has_b}, expr=f"conv{sd}d(x, w, b, {at}) (padding_end: F.pad first)")
    tspecs = [
        ("1d_bias", [2, 3, 5], [3, 2, 3], {}, True),
        ("1d_stride_outpad_groups", [1, 4, 5], [4, 2, 3], dict(stride=[3], padding=[1], padding_out=[2], groups=2), True),
        ("2d_bias", [1, 2, 4, 4], [2, 3, 3, 3], {}, True),
        ("2d_stride2_pad1_outpad1", [1, 3, 4, 4], [3, 2, 3, 3], dict(stride=[2], padding=[1], padding_out=[1]), True),
        ("2d_groups_dilation_nobias", [1, 4, 3, 3], [4, 1, 2, 2], dict(stride=[2], groups=2, dilation=[2]), False),
        ("3d_bias", [1, 2, 3, 3, 2], [2, 2, 2, 2, 2], dict(stride=[2]), True),
    ]
    for name, xs, ws, at, has_b in tspecs:
        sd = len(xs) - 2
        kw = dict(stride=expand_opt(at.get("stride"), sd, 1), padding=expand_opt(at.get("padding"), sd, 0),
                  output_padding=expand_opt(at.get("padding_out"), sd, 0), groups=at.get("groups", 1),
                  dilation=expand_opt(at.get("dilation"), sd, 1))
        ins = [randn(*xs), randn(*ws, scale=0.5)] + ([randn(ws[1] * kw["groups"])] if has_b else [])
        g.add(f"conv_transpose_{name}", "conv_transpose", "conv_transpose", ins,
              lambda v, sd=sd, kw=kw: CONVT[sd](v[0], v[1], v[2] if len(v) > 2 else None, **kw),
              attrs={**at, "bias": has_b}, expr=f"conv_transpose{sd}d(x, w, b, {kw})")
    # deform_conv2d: offsets keep every sampling point >= 0.05 from integer rows/columns (bilinear kinks)
    dspecs = [
        ("bias", [1, 2, 5, 5], [3, 2, 3, 3], {}, True, False),
        ("mask_pad", [1, 2, 5, 4], [2, 2, 3, 3], dict(padding=[1]), True, True),
        ("groups_mask", [1, 4, 4, 4], [4, 2, 3, 3], dict(padding=[1], weight_groups=2, offset_groups=2), True, True),
        ("stride_dilation", [1, 2, 7, 6], [2, 2, 2, 2], dict(stride=[2], dilation=[2, 1]), False, False),
    ]
    for name, xs, ws, at, has_b, has_m in dspecs:
        st, pa = expand_opt(at.get("stride"), 2, 1), expand_opt(at.get("padding"), 2, 0)
        di = expand_opt(at.get("dilation"), 2, 1)
        wgr, ogr = at.get("weight_groups", 1), at.get("offset_groups", 1)
        ho = (xs[2] + 2 * pa[0] - di[0] * (ws[2] - 1) - 1) // st[0] + 1
        wo = (xs[3] + 2 * pa[1] - di[1] * (ws[3] - 1) - 1) // st[1] + 1
        k = ws[2] * ws[3]
        off = randn(xs[0], 2 * ogr * k, ho, wo, scale=1.2)
        frac = off - torch.floor(off)
        off = (torch.floor(off) + frac.clamp(0.05, 0.95)).to(f32)
        x, w = randn(*xs), randn(*ws, scale=0.5)
        m = uniform(xs[0], ogr * k, ho, wo, lo=0.2, hi=1.5) if has_m else None
        b = randn(ws[0]) if has_b else None
        ins = [x, off, w] + ([m] if has_m else []) + ([b] if has_b else [])

        def fn(v, has_m=has_m, has_b=has_b, st=st, pa=pa, di=di, wgr=wgr, ogr=ogr):
            mm = v[3] if has_m else None
            bb = v[3 + has_m] if has_b else None
            return deform_conv2d(v[0], v[1], v[2], mm, bb, st, pa, di, wgr, ogr)

        ref = deform_ref(x.double(), off.double(), w.double(), None if m is None else m.double(),
                         None if b is None else b.double(), st, pa, di, wgr, ogr)
        assert torch.allclose(fn([t.double() for t in ins]), ref, rtol=1e-12, atol=1e-12), name
        g.add(f"deform_conv2d_{name}", "deform_conv2d", "deform_conv2d", ins, fn,
              attrs={**at, "bias": has_b, "mask": has_m},
              expr=f"torchvision.ops.deform_conv2d(x, offset, w, b, {at}, mask) (vectorised reference)")
    for name, xs, at in [("basic", [1, 2, 5, 6], dict(kernel=[2, 3])),
                         ("stride_pad_dil", [1, 2, 7, 8], dict(kernel=[3], stride=[2, 1], padding=[1], dilation=[1, 2]))]:
        kw = dict(kernel_size=expand_opt(at["kernel"], 2, 1), stride=expand_opt(at.get("stride"), 2, 1),
                  padding=expand_opt(at.get("padding"), 2, 0), dilation=expand_opt(at.get("dilation"), 2, 1))
        x = randn(*xs)
        g.add(f"unfold_{name}", "unfold", "unfold", [x], unary_fn(lambda v, kw=kw: F.unfold(v, **kw)), attrs=dict(at),
              expr=f"F.unfold(x, {kw})")
        cols = randn(*F.unfold(x, **kw).shape)
        g.add(f"fold_{name}", "fold", "fold", [cols], unary_fn(lambda v, kw=kw, o=xs[2:]: F.fold(v, o, **kw)),
              attrs={**at, "output_size": xs[2:]}, expr=f"F.fold(cols, {xs[2:]}, {kw})")
    return g


# ============================================================================ pool
POOL_SHAPES = {1: (2, 2, 9), 2: (1, 2, 7, 8), 3: (1, 1, 4, 5, 5)}


def gen_pool():
    g = Group("pool")
    AAVG = {1: F.adaptive_avg_pool1d, 2: F.adaptive_avg_pool2d, 3: F.adaptive_avg_pool3d}
    AMAX = {1: F.adaptive_max_pool1d, 2: F.adaptive_max_pool2d}
    # (n, kernel, stride, pad_before, pad_after, dilation, ceil); inputs are distinct values: no ties
    maxcfg = [
        (1, 3, None, 0, None, 1, False), (1, 2, 2, 1, None, 1, True), (2, 2, None, 0, None, 1, False),
        (2, 3, 2, 1, None, 1, False), (2, [3, 2], [2, 1], [1, 0], None, 1, True), (2, 3, 1, 1, None, 2, False),
        (2, 3, 2, [1, 0], [0, 1], 1, False), (3, 2, None, 0, None, 1, False), (3, 3, 2, 1, None, 1, True),
    ]
    for ci, (n, k, s, pb, pe, d, ceil) in enumerate(maxcfg):
        K, S = expand_opt(k if isinstance(k, list) else [k], n, 1), expand_opt(s if isinstance(s, list) else [s or k], n, 1)
        PB = expand_opt(pb if isinstance(pb, list) else [pb], n, 0)
        PE = expand_opt(pe if isinstance(pe, list) else [pe], n, 0) if pe is not None else PB
        D = expand_opt([d], n, 1)
        attrs = {"kernel": k if isinstance(k, list) else [k], "padding": PB, "dilation": D, "ceil_mode": ceil}
        if s is not None:
            attrs["stride"] = S
        if pe is not None:
            attrs["padding_end"] = PE
        expr = f"F.max_pool{n}d(x, {K}, {S}, pad {PB}/{PE}, dilation {D}, ceil_mode={ceil}), distinct x"
        x = distinct(*POOL_SHAPES[n])
        fn = lambda v, n=n, K=K, S=S, PB=PB, PE=PE, D=D, c=ceil: ref_max(v[0], n, K, S, PB, PE, D, c)[0]  # noqa: E731
        g.add(f"max_pool_{n}d_c{ci}", "max_pool", "max_pool", [x], fn, attrs=attrs, expr=expr)
        if ci in (1, 3, 8):
            g.add(f"max_pool_with_indices_{n}d_c{ci}", "max_pool_with_indices", "max_pool_with_indices", [x],
                  lambda v, n=n, K=K, S=S, PB=PB, PE=PE, D=D, c=ceil: list(ref_max(v[0], n, K, S, PB, PE, D, c)),
                  attrs=attrs, expr=expr + ": (values, indices)")
    # (n, kernel, stride, pad_before, pad_after, ceil, count_include_pad)
    avgcfg = [
        (1, 3, None, 0, None, False, True), (1, 3, 2, 1, None, True, False), (2, 2, None, 0, None, False, True),
        (2, 3, 2, 1, None, False, True), (2, 3, 2, 1, None, False, False), (2, 3, 2, 1, None, True, True),
        (2, 3, 2, 1, None, True, False), (2, 3, 2, [1, 0], [0, 1], False, False), (3, 2, None, 0, None, False, True),
        (3, 3, 2, 1, None, True, False),
    ]
    for ci, (n, k, s, pb, pe, ceil, cip) in enumerate(avgcfg):
        K, S = expand_opt([k], n, 1), expand_opt([s or k], n, 1)
        PB = expand_opt(pb if isinstance(pb, list) else [pb], n, 0)
        PE = expand_opt(pe, n, 0) if pe is not None else PB
        attrs = {"kernel": [k], "padding": PB, "ceil_mode": ceil, "count_include_pad": cip}
        if s is not None:
            attrs["stride"] = S
        if pe is not None:
            attrs["padding_end"] = PE
        g.add(f"avg_pool_{n}d_c{ci}", "avg_pool", "avg_pool", [randn(*POOL_SHAPES[n])],
              lambda v, n=n, K=K, S=S, PB=PB, PE=PE, c=ceil, i=cip: ref_avg(v[0], n, K, S, PB, PE, c, i), attrs=attrs,
              expr=f"F.avg_pool{n}d(x, {K}, {S}, pad {PB}/{PE}, ceil_mode={ceil}, count_include_pad={cip})")
    for n, osz in [(1, [4]), (1, [11]), (2, [3, 4]), (2, [5, 7]), (3, [2, 3, 4])]:
        nm = f"{n}d_{'x'.join(map(str, osz))}"
        g.add(f"adaptive_avg_pool_{nm}", "adaptive_avg_pool", "adaptive_avg_pool", [randn(*POOL_SHAPES[n])],
              unary_fn(lambda v, n=n, o=osz: AAVG[n](v, o)), attrs={"output_size": osz},
              expr=f"F.adaptive_avg_pool{n}d(x, {osz})")
        if n in AMAX:
            g.add(f"adaptive_max_pool_{nm}", "adaptive_max_pool", "adaptive_max_pool", [distinct(*POOL_SHAPES[n])],
                  unary_fn(lambda v, n=n, o=osz: list(AMAX[n](v, o, return_indices=True))), attrs={"output_size": osz},
                  expr=f"F.adaptive_max_pool{n}d(x, {osz}, return_indices=True), distinct x")
    return g


# ============================================================================ resample
def gen_resample():
    g = Group("resample")
    shapes = {1: (2, 3, 7), 2: (1, 2, 5, 6), 3: (1, 2, 3, 4, 5)}
    cfg = [("nearest", 1, [14], [False]), ("nearest", 1, [3], [False]), ("nearest", 2, [10, 12], [False]),
           ("nearest", 2, [3, 4], [False]), ("nearest", 3, [4, 6, 7], [False]),
           ("linear", 1, [14], [False, True]), ("linear", 1, [4], [False]), ("linear", 2, [7, 9], [False, True]),
           ("linear", 2, [3, 4], [False, True]), ("linear", 3, [4, 5, 7], [False, True]),
           ("cubic", 1, [12], [False, True]), ("cubic", 2, [8, 9], [False, True]), ("cubic", 2, [3, 4], [False])]
    for mode, n, size, acs in cfg:
        for ac in acs:
            nm = f"{mode}_{n}d_{'x'.join(map(str, size))}{'_ac' if ac else ''}"
            g.add(f"interpolate_{nm}", "interpolate", "interpolate", [randn(*shapes[n])],
                  unary_fn(lambda v, n=n, s=size, m=mode, a=ac: ref_interp(v, n, s, m, a)),
                  attrs={"output_size": size, "mode": mode, "align_corners": ac},
                  expr=f"F.interpolate(x, {size}, mode={mode} ({n}-D), align_corners={ac})")
    for r, shp in [(2, (1, 8, 3, 3)), (3, (1, 9, 2, 2))]:
        g.add(f"pixel_shuffle_r{r}", "pixel_shuffle", "pixel_shuffle", [randn(*shp)],
              unary_fn(lambda v, r=r: F.pixel_shuffle(v, r)), attrs={"factor": r}, expr=f"F.pixel_shuffle(x, {r})")
    for r, shp in [(2, (1, 2, 6, 4)), (3, (1, 1, 6, 3))]:
        g.add(f"pixel_unshuffle_r{r}", "pixel_unshuffle", "pixel_unshuffle", [randn(*shp)],
              unary_fn(lambda v, r=r: F.pixel_unshuffle(v, r)), attrs={"factor": r}, expr=f"F.pixel_unshuffle(x, {r})")
    return g


# ============================================================================ embedding
def gen_embedding():
    g = Group("embedding")
    w = randn(10, 4)
    g.add("embedding_2x3_repeats", "embedding", "embedding", [w, ints([[1, 7, 1], [3, 7, 1]])],
          lambda v: F.embedding(v[1], v[0]), wrt=[0], expr="F.embedding(idx, w): repeated rows accumulate")
    g.add("embedding_5_i32", "embedding", "embedding", [w, ints([9, 0, 0, 4, 9], i32)],
          lambda v: F.embedding(v[1].long(), v[0]), wrt=[0], expr="F.embedding(idx.long(), w), Int32 indices")
    return g


# ============================================================================ norm
def gen_norm():
    g = Group("norm")
    for shape, nd, aff in [([4, 6], 1, "wb"), ([2, 3, 4], 2, "w"), ([3, 5], 1, "none")]:
        ws = shape[len(shape) - nd:]
        x = randn(*shape, scale=1.5, offset=0.3)
        w = randn(*ws) if aff != "none" else None
        b = randn(*ws) if aff == "wb" else None
        ins = [t for t in [x, w, b] if t is not None]

        def fn(v, ws=ws, aff=aff):
            return F.layer_norm(v[0], ws, v[1] if aff != "none" else None, v[2] if aff == "wb" else None, 1e-5)

        g.add(f"layer_norm_{'x'.join(map(str, shape))}_nd{nd}_{aff}", "layer_norm", "layer_norm", ins, fn,
              attrs={"normalized_dims": nd, "eps": 1e-5, "weight": w is not None, "bias": b is not None},
              expr=f"F.layer_norm(x, {ws}, w, b, 1e-5)")
    for shape, groups, aff in [([2, 6, 5], 3, "wb"), ([2, 4, 3, 3], 2, "none"), ([3, 4], 2, "wb")]:
        c = shape[1]
        x = randn(*shape, scale=1.5, offset=-0.3)
        w, b = (randn(c), randn(c)) if aff == "wb" else (None, None)
        ins = [t for t in [x, w, b] if t is not None]

        def fn(v, groups=groups, aff=aff):
            return F.group_norm(v[0], groups, v[1] if aff == "wb" else None, v[2] if aff == "wb" else None, 1e-5)

        g.add(f"group_norm_{'x'.join(map(str, shape))}_g{groups}_{aff}", "group_norm", "group_norm", ins, fn,
              attrs={"num_groups": groups, "eps": 1e-5, "weight": w is not None, "bias": b is not None},
              expr=f"F.group_norm(x, {groups}, w, b, 1e-5)")
    # batch_norm: the running statistics are inputs, never differentiated; in training with running
    # stats the call also returns the updated ones, seeded null
    for shape, mode, aff in [([4, 3], "train", "wb"), ([2, 3, 4], "train", "none"), ([2, 3, 2, 2], "train_running", "wb"),
                             ([4, 3, 3], "eval", "wb"), ([3, 2, 2, 2], "eval", "none")]:
        c = shape[1]
        x = randn(*shape, scale=1.3, offset=0.7)
        w, b = (randn(c), randn(c)) if aff == "wb" else (None, None)
        rm, rv = (randn(c, scale=0.2), uniform(c, lo=0.5, hi=1.5)) if mode != "train" else (None, None)
        ins = [t for t in [x, w, b, rm, rv] if t is not None]
        nwb = 2 if aff == "wb" else 0
        training = mode != "eval"

        def fn(v, nwb=nwb, mode=mode, training=training):
            w_, b_ = (v[1], v[2]) if nwb else (None, None)
            rm_, rv_ = (v[1 + nwb].clone(), v[2 + nwb].clone()) if mode != "train" else (None, None)
            y = F.batch_norm(v[0], rm_, rv_, w_, b_, training, 0.1, 1e-5)
            return [y, rm_, rv_] if mode == "train_running" else y

        g.add(f"batch_norm_{'x'.join(map(str, shape))}_{mode}_{aff}", "batch_norm", "batch_norm", ins, fn,
              attrs={"training": training, "momentum": 0.1, "eps": 1e-5, "weight": w is not None, "bias": b is not None,
                     "running": rm is not None},
              wrt=list(range(1 + nwb)), no_seed=(1, 2),
              expr=f"F.batch_norm(x, rm, rv, w, b, training={training}, momentum=0.1, eps=1e-5); grads for x, w, b")
    for shape, nd, aff in [([4, 6], 1, "w"), ([2, 3, 4], 2, "none"), ([3, 8], 1, "none")]:
        ws = shape[len(shape) - nd:]
        x = randn(*shape, scale=1.5)
        w = randn(*ws) if aff == "w" else None
        g.add(f"rms_norm_{'x'.join(map(str, shape))}_nd{nd}_{aff}", "rms_norm", "rms_norm", [t for t in [x, w] if t is not None],
              lambda v, nd=nd: rms_ref(v[0], v[1] if len(v) > 1 else None, nd, 1e-6),
              attrs={"normalized_dims": nd, "eps": 1e-6, "weight": w is not None},
              expr=f"x / sqrt(mean(x^2, last {nd} dims) + 1e-6) * w")
    return g


# ============================================================================ attention
def attention(q, k, v, mask, causal, scale):
    s = (q @ k.transpose(-2, -1)) * (scale if scale is not None else 1.0 / math.sqrt(q.shape[-1]))
    m = torch.zeros(1, 1, q.shape[2], k.shape[2], dtype=bool_)
    if causal:
        m = m | torch.triu(torch.ones(q.shape[2], k.shape[2], dtype=bool_), diagonal=1)
    if mask is not None:
        m = m | mask
    return torch.softmax(s.masked_fill(m, -math.inf), -1) @ v


def gen_attention():
    g = Group("attention")
    for (b, h, lq, lk, e, ev) in [(1, 2, 4, 5, 3, 2), (2, 1, 4, 4, 4, 3)]:
        sh = f"b{b}h{h}q{lq}k{lk}e{e}v{ev}"
        for mk, causal, scale in [("none", False, None), ("none", False, 0.3), ("full", False, None),
                                  ("keypad", False, None), ("none", True, None), ("full", True, None)]:
            q, k, v = randn(b, h, lq, e), randn(b, h, lk, e), randn(b, h, lk, ev)
            mask = None
            if mk == "full":
                mask = torch.rand(b, h, lq, lk, generator=gin) < 0.4
                mask[..., 0] = False  # every row keeps a key
            elif mk == "keypad":
                mask = torch.zeros(b, 1, 1, lk, dtype=bool_)
                mask[..., lk - 1] = True
            attrs = {"mask": mask is not None, "causal": causal}
            if scale is not None:
                attrs["scale"] = scale
            g.add(f"attention_{sh}_{mk}{'_causal' if causal else ''}{'_scale' if scale else ''}", "attention", "attention",
                  [q, k, v] + ([mask] if mask is not None else []),
                  lambda t, causal=causal, scale=scale: attention(t[0], t[1], t[2], t[3] if len(t) > 3 else None, causal, scale),
                  attrs=attrs, wrt=[0, 1, 2],
                  expr=f"softmax(q@k^T*scale masked_fill(mask{'|causal' if causal else ''}, -inf))@v; grads for q, k, v")
    return g


# ============================================================================ self-check
def known_calls_and_ops():
    calls = set()
    for fn in os.listdir(CONF):
        if fn.startswith("calls") and fn.endswith(".cpp"):
            calls |= set(re.findall(r't\["(\w+)"\]', open(os.path.join(CONF, fn)).read()))
    table = open(os.path.join(ROOT, "burn-tensor", "include", "burn", "tensor", "op_table.hpp")).read()
    return calls, set(re.findall(r"X\(\w+,\s+(\w+),", table))


def check_files(groups):
    """Reloads every written file: format, call and op names, wrt/seed/grad shapes and dtypes."""
    calls, ops = known_calls_and_ops()
    total = 0
    for name in groups:
        with open(os.path.join(OUT, name + ".json")) as f:
            doc = json.load(f)
        assert doc["group"] == name and doc["torch_version"] == torch.__version__
        seen = set()
        for c in doc["cases"]:
            where = f"{name}/{c['name']}"
            assert NAME_RE.match(c["name"]) and c["name"] not in seen, where
            seen.add(c["name"])
            assert c["call"] in calls, where
            assert c["op"] in ops or c["op"].startswith("api:"), where
            assert "pre" not in c["attrs"], where
            ins = c["inputs"]
            assert c["wrt"] and all(ins[j]["dtype"] == "f32" for j in c["wrt"]), where
            assert len(c["grads"]) == len(c["wrt"]), where
            for j, gr in zip(c["wrt"], c["grads"]):
                assert gr["dtype"] == "f32" and gr["shape"] == ins[j]["shape"], where
                assert len(gr["data"]) == int(np.prod(gr["shape"])), where
            assert any(s is not None for s in c["seeds"]), where
            if "grad2" in c:
                for key in ("seeds", "grads"):
                    assert [t["shape"] for t in c["grad2"][key]] == [ins[j]["shape"] for j in c["wrt"]], where
            assert c["rtol"] >= RTOL and c["atol"] >= ATOL, where
        total += len(doc["cases"])
    return total


def main():
    global DO_FD
    ap = argparse.ArgumentParser(description="Writes the PyTorch gradient fixtures of burn-autodiff's gradcheck.")
    ap.add_argument("--no-fd", action="store_true", help="skip the central-difference check of every gradient")
    DO_FD = not ap.parse_args().no_fd
    t0 = time.time()
    gens = [gen_numeric, gen_float_math, gen_activation, gen_reduce, gen_layout, gen_indexing, gen_creation,
            gen_conv, gen_pool, gen_resample, gen_embedding, gen_norm, gen_attention]
    names = []
    for gen_fn in gens:
        g = gen_fn()
        g.write()
        names.append(g.name)
    total = check_files(names)
    size = sum(os.path.getsize(os.path.join(OUT, n + ".json")) for n in names)
    assert size < 3_000_000, size
    print(f"{total} cases in {len(names)} files, {size} bytes, {time.time() - t0:.0f} s"
          f"{'' if DO_FD else ' (central differences skipped)'}")


if __name__ == "__main__":
    sys.exit(main())
