#!/usr/bin/python3
# Writes tests/gradcheck/fixtures/elementwise_composites.json: the PyTorch gradients of the differentiable ops
# built from the core table (hypot, fmod, fmod_scalar, asinh/acosh/atanh, deg2rad/rad2deg, max_abs,
# max_abs_dim and the composite activations). Same case format, helpers and central-difference checks as
# gen_grad_fixtures.py. Run with Debian's python3-torch:
#   /usr/bin/python3 tests/gradcheck/gen_grad_fixtures_elementwise_composites.py [--no-fd]
#
# Inputs stay away from every kink and jump: fmod's at integer a / b, the shrinks' at +-lambda,
# hardtanh/relu6/threshold at their bounds, hard_swish at +-3, prelu/celu/softsign at 0 (second order).
import argparse
import sys

import torch
import torch.nn.functional as F

import gen_grad_fixtures as base
from gen_grad_fixtures import (Group, binary_fn, check_files, distinct, f32, near_int, randn, resample_where,
                               signed_uniform, uniform, unary_fn)


def away_from(x, points, margin, sampler):
    """x redrawn until every element is at least margin from each of points."""
    return resample_where(x, lambda v: torch.stack([(v - p).abs() < margin for p in points]).any(0), sampler)


def quiet_softmax(x, d):
    m = x.detach().amax(d, keepdim=True)
    e = (x - m).exp()
    return e / (e.sum(d, keepdim=True) + (-m).exp())


def gen():
    g = Group("elementwise_composites")
    shapes = [("same", [3, 4], [3, 4]), ("row", [3, 4], [4]), ("outer", [3, 1], [1, 4])]
    # hypot: operands away from 0 (the gradient a / h is 0 / 0 at the origin)
    for sn, sa, sb in shapes:
        a, b = signed_uniform(*sa, lo=0.2, hi=3.0), signed_uniform(*sb, lo=0.2, hi=3.0)
        g.add(f"hypot_{sn}", "hypot", "hypot", [a, b], binary_fn(torch.hypot), expr=f"torch.hypot(a {sa}, b {sb})",
              grad2=sn != "outer")
    # fmod: d/da = 1, d/db = -trunc(a / b); a / b away from the integers where trunc jumps
    for sn, sa, sb in shapes[:2]:
        b = signed_uniform(*sb, lo=0.5, hi=1.5)
        a = resample_where(randn(*sa, scale=2.5), lambda a: near_int(a.double() / b.double(), 0.02),
                           lambda n: randn(n, scale=2.5))
        g.add(f"fmod_{sn}", "fmod", "fmod", [a, b], binary_fn(torch.fmod), expr=f"torch.fmod(a {sa}, b {sb})",
              grad2=sn == "same")
    x = resample_where(randn(3, 4, scale=3.0), lambda v: near_int(v.double() / 1.5, 0.02), lambda n: randn(n, scale=3.0))
    g.add("fmod_scalar", "fmod_scalar", "fmod_scalar", [x], unary_fn(lambda v: torch.fmod(v, 1.5)), attrs={"scalar": 1.5},
          expr="torch.fmod(x, 1.5), away from the jumps", grad2=True)
    x = resample_where(randn(3, 4, scale=3.0), lambda v: near_int(v.double() / -2.0, 0.02), lambda n: randn(n, scale=3.0))
    g.add("fmod_scalar_negative", "fmod_scalar", "fmod_scalar", [x], unary_fn(lambda v: torch.fmod(v, -2.0)),
          attrs={"scalar": -2.0}, expr="torch.fmod(x, -2.0)")
    # inverse hyperbolics, on both sides of their branch points (asinh's small/large split is at 2^28)
    for op, fn, sample in [("asinh", torch.asinh, lambda: randn(3, 4, scale=3.0)),
                           ("acosh", torch.acosh, lambda: uniform(3, 4, lo=1.1, hi=8.0)),
                           ("atanh", torch.atanh, lambda: uniform(3, 4, lo=-0.9, hi=0.9))]:
        g.add(op, op, "unary", [sample()], unary_fn(fn), attrs={"op": op}, expr=f"torch.{op}(x)", grad2=True)
    g.add("asinh_small", "asinh", "unary", [uniform(3, 4, lo=-0.05, hi=0.05)], unary_fn(torch.asinh),
          attrs={"op": "asinh"}, expr="torch.asinh(x), |x| < 0.05")
    g.add("atanh_near_one", "atanh", "unary", [signed_uniform(2, 3, lo=0.9, hi=0.95)], unary_fn(torch.atanh),
          attrs={"op": "atanh"}, expr="torch.atanh(x), 0.9 < |x| < 0.95")
    g.add("deg2rad", "api:deg2rad", "deg2rad", [randn(3, 4, scale=90.0)], unary_fn(torch.deg2rad),
          expr="torch.deg2rad(x)")
    g.add("rad2deg", "api:rad2deg", "rad2deg", [randn(3, 4)], unary_fn(torch.rad2deg), expr="torch.rad2deg(x)")
    # max_abs: distinct |x|, none near 0 (abs's kink)
    x = distinct(3, 4, step=0.13, offset=0.065)
    g.add("max_abs", "api:max_abs", "max_abs", [x], unary_fn(lambda v: v.abs().max().reshape(1)),
          expr="x.abs().max(), distinct |x|")
    for d in [0, 1]:
        g.add(f"max_abs_dim{d}", "api:max_abs_dim", "max_abs_dim", [x],
              unary_fn(lambda v, d=d: v.abs().amax(d, keepdim=True)), attrs={"dim": d},
              expr=f"x.abs().amax({d}, keepdim=True)")
    # activations
    away0 = lambda: signed_uniform(3, 4, lo=0.05, hi=3.0)  # noqa: E731
    for alpha in [1.0, 2.0]:
        g.add(f"celu_a{int(alpha)}", "api:celu", "celu", [away0()], unary_fn(lambda v, a=alpha: F.celu(v, a)),
              attrs={"alpha": alpha}, expr=f"F.celu(x, {alpha})", grad2=True)
    x3 = randn(2, 4, 3)
    for d in [1, -1]:
        xg = x3 if d == 1 else randn(2, 3, 4)
        g.add(f"glu_dim{d if d >= 0 else 'm1'}", "api:glu", "glu", [xg], unary_fn(lambda v, d=d: F.glu(v, d)),
              attrs={"dim": d}, expr=f"F.glu(x, {d})", grad2=True)
    for lam in [0.5, 1.0]:
        x = away_from(randn(3, 4, scale=2.0), [lam, -lam], 0.05, lambda n: randn(n, scale=2.0))
        ln = str(lam).replace(".", "p")
        g.add(f"hard_shrink_l{ln}", "api:hard_shrink", "hard_shrink", [x], unary_fn(lambda v, l=lam: F.hardshrink(v, l)),
              attrs={"lambda": lam}, expr=f"F.hardshrink(x, {lam})")
        g.add(f"soft_shrink_l{ln}", "api:soft_shrink", "soft_shrink", [x], unary_fn(lambda v, l=lam: F.softshrink(v, l)),
              attrs={"lambda": lam}, expr=f"F.softshrink(x, {lam})")
    x = away_from(randn(3, 4, scale=3.0), [-3.0, 3.0], 0.05, lambda n: randn(n, scale=3.0))
    g.add("hard_swish", "api:hard_swish", "hard_swish", [x], unary_fn(F.hardswish), expr="F.hardswish(x)", grad2=True)
    x = away_from(randn(3, 4, scale=1.5), [-1.0, 0.5], 0.05, lambda n: randn(n, scale=1.5))
    g.add("hardtanh", "api:hardtanh", "hardtanh", [x], unary_fn(lambda v: F.hardtanh(v, -1.0, 0.5)),
          attrs={"min": -1.0, "max": 0.5}, expr="F.hardtanh(x, -1, 0.5)")
    x = away_from(randn(3, 4, scale=4.0, offset=3.0), [0.0, 6.0], 0.05, lambda n: randn(n, scale=4.0, offset=3.0))
    g.add("relu6", "api:relu6", "relu6", [x], unary_fn(F.relu6), expr="F.relu6(x)")
    x4 = signed_uniform(2, 3, 2, 2, lo=0.05, hi=2.0)
    g.add("prelu_channels", "api:prelu", "prelu", [x4, torch.tensor([0.25, -0.5, 1.5])], binary_fn(F.prelu),
          expr="F.prelu(x [2, 3, 2, 2], w [3]); grads for x and w", grad2=True)
    g.add("prelu_single", "api:prelu", "prelu", [away0(), torch.tensor([0.2])], binary_fn(F.prelu),
          expr="F.prelu(x [3, 4], w [1])")
    g.add("softsign", "api:softsign", "softsign", [away0()], unary_fn(F.softsign), expr="F.softsign(x)", grad2=True)
    g.add("tanhshrink", "api:tanhshrink", "tanhshrink", [randn(3, 4, scale=2.0)], unary_fn(F.tanhshrink),
          expr="F.tanhshrink(x)", grad2=True)
    x = away_from(randn(3, 4), [0.1], 0.05, lambda n: randn(n))
    g.add("threshold", "api:threshold", "threshold", [x], unary_fn(lambda v: F.threshold(v, 0.1, 20.0)),
          attrs={"threshold": 0.1, "value": 20.0}, expr="F.threshold(x, 0.1, 20)")
    x3 = randn(2, 3, 4, scale=1.5)
    for d in [0, 1, -1]:
        dn = f"dim{d}" if d >= 0 else "dimm1"
        g.add(f"quiet_softmax_{dn}", "api:quiet_softmax", "quiet_softmax", [x3],
              unary_fn(lambda v, d=d: quiet_softmax(v, d)), attrs={"dim": d},
              expr=f"exp(x - m) / (exp(-m) + sum exp(x - m)) along {d}, m = max detached", grad2=d != 0)
    return g


def main():
    ap = argparse.ArgumentParser(description="Writes the gradient fixtures of the elementwise_composites ops.")
    ap.add_argument("--no-fd", action="store_true", help="skip the central-difference check of every gradient")
    base.DO_FD = not ap.parse_args().no_fd
    g = gen()
    g.write()
    print(f"{check_files([g.name])} cases checked")


if __name__ == "__main__":
    sys.exit(main())
