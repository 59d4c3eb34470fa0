#!/usr/bin/python3
# Writes fixtures-half/half.json (group half): PyTorch's own f16 and bf16 results on CPU for a few ops of each
# kind (elementwise, reductions, softmax, layer_norm, matmul), which compute in f32 and round once as the
# cpu plugin does (docs/decisions.md, "f16 and bf16 compute"). Tolerances come from the format: one unit in its last place
# (2^-7 for bf16, 2^-10 for f16) relative, and a small absolute one for sums that cancel. torch 1.13 lacks
# some f16 CPU kernels (exp, softmax, matmul...); those cases are bf16 only.
# torch 1.13's own bf16 gelu, layer_norm and matmul keep bf16 intermediates (its matmul accumulates in bf16:
# element [8, 1] of matmul_bf16 is -5.90625 there, -6.1132 in f64, -6.125 computed in f32 and rounded once),
# so those three expect torch's f32 result on the same bf16 values, rounded once (`via_f32`).
# Run with Debian's python3-torch: /usr/bin/python3 burn-tensor/conformance/gen_fixtures_half.py
# A folder of its own, not fixtures/: every backend chain runs fixtures/ (vulkan and opencl have no bf16
# compute, defaults<...> composites round after each op), while these are for chains that compute in f32
# and round once; ctest runs them on cpu chains (conformance.cpu_half_torch, ...).
import os

import torch
import torch.nn.functional as F

import gen_fixtures
from gen_fixtures import Group, randn

gen_fixtures.OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures-half")

bf16, f16 = torch.bfloat16, torch.float16
ULP = {bf16: 2.0**-7, f16: 2.0**-10}
NAME = {bf16: "bf16", f16: "f16"}


def supported(fn, *xs):
    try:
        fn(*xs)
        return True
    except RuntimeError:
        return False


def via_f32(fn, *xs):
    """fn on the values widened to f32, rounded once to their format."""
    return fn(*[x.float() for x in xs]).to(xs[0].dtype)


def main():
    g = Group("half")
    for dt in (bf16, f16):
        n, u = NAME[dt], ULP[dt]
        tol = {"rtol": u, "atol": u * 1e-3}
        a, b = randn(4, 33, dtype=dt, scale=3.0), randn(4, 33, dtype=dt, scale=3.0)
        for op, fn in {"add": torch.add, "mul": torch.mul, "div": torch.div}.items():
            g.add(f"{op}_{n}", op, op, [a, b], fn(a, b), torch_expr=f"torch.{op}(a, b)", **tol)
        x = randn(5, 40, dtype=dt, scale=2.0)
        unary = {"exp": torch.exp, "tanh": torch.tanh, "sigmoid": torch.sigmoid, "gelu": F.gelu, "silu": F.silu,
                 "sqrt": lambda v: torch.sqrt(v.abs()), "log": lambda v: torch.log(v.abs())}
        for op, fn in unary.items():
            if not supported(fn, x):
                continue
            arg = x.abs() if op in ("sqrt", "log") else x
            want, expr = (via_f32(fn, x), f"{op}(x.float()).to(x.dtype)") if op == "gelu" else (fn(x), f"{op}(x)")
            g.add(f"{op}_{n}", op, "unary", [arg], want, attrs={"op": op}, torch_expr=expr, **tol)
        # Sums accumulate in f32 on both sides (in different orders), so results agree to one ulp.
        r = randn(6, 300, dtype=dt)
        if supported(lambda v: torch.sum(v, 1), r):
            g.add(f"sum_dim_{n}", "sum_dim", "reduce_dim", [r], torch.sum(r, 1, keepdim=True),
                  attrs={"op": "sum_dim", "dim": 1}, torch_expr="torch.sum(x, 1, keepdim=True)", rtol=u, atol=u * 0.1)
        if supported(lambda v: torch.mean(v, 1), r):
            g.add(f"mean_dim_{n}", "mean_dim", "reduce_dim", [r], torch.mean(r, 1, keepdim=True),
                  attrs={"op": "mean_dim", "dim": 1}, torch_expr="torch.mean(x, 1, keepdim=True)", rtol=u, atol=u * 0.01)
        s = randn(3, 4, 50, dtype=dt, scale=3.0)
        if supported(lambda v: F.softmax(v, 2), s):
            g.add(f"softmax_{n}", "softmax", "softmax", [s], F.softmax(s, 2), attrs={"dim": 2},
                  torch_expr="F.softmax(x, 2)", rtol=u, atol=u * 1e-3)
        ln_x, ln_w, ln_b = randn(4, 64, dtype=dt), randn(64, dtype=dt), randn(64, dtype=dt)
        if supported(lambda v: F.layer_norm(v, [64], ln_w, ln_b, 1e-5), ln_x):
            g.add(f"layer_norm_{n}", "layer_norm", "layer_norm", [ln_x, ln_w, ln_b],
                  via_f32(lambda v, w, b: F.layer_norm(v, [64], w, b, 1e-5), ln_x, ln_w, ln_b),
                  attrs={"normalized_dims": 1, "eps": 1e-05, "weight": True, "bias": True, "running": False},
                  torch_expr="F.layer_norm(x.float(), [64], w.float(), b.float(), 1e-05).to(x.dtype)", rtol=u, atol=u * 0.1)
        m1, m2 = randn(17, 130, dtype=dt, scale=0.5), randn(130, 23, dtype=dt, scale=0.5)
        if supported(torch.matmul, m1, m2):
            g.add(f"matmul_{n}", "matmul", "matmul", [m1, m2], via_f32(torch.matmul, m1, m2),
                  torch_expr="(a.float() @ b.float()).to(a.dtype)", rtol=u, atol=u * 0.1)
    g.write()


if __name__ == "__main__":
    main()
