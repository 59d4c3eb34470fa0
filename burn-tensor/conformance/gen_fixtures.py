#!/usr/bin/python3
# Writes the PyTorch reference fixtures of burn-conformance: fixtures/<group>.json, one file per op
# group of the op table. Run with Debian's python3-torch: /usr/bin/python3 gen_fixtures.py
#
# A case: {"name", "op" (op-table name or "api:<fn>"), "call" (the burn::api function), "inputs",
# "attrs", "expected" | "error", "rtol", "atol", "torch" (the reference expression, for the reader)}.
# Burn conventions encoded here: reductions over a dim keep it; full reductions return shape [1];
# int div truncates; results keep the input dtype (torch promotes int32 sums to int64: cast back).
import json
import math
import os
import re
import sys

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures")

DT = {torch.float32: "f32", torch.float64: "f64", torch.float16: "f16", torch.bfloat16: "bf16",
      torch.int64: "i64", torch.int32: "i32", torch.int8: "i8", torch.uint8: "u8", torch.bool: "bool"}
TOL = {"f32": (1e-5, 1e-6), "f64": (1e-10, 1e-12), "f16": (1e-3, 1e-3), "bf16": (1e-2, 1e-2)}
NAME_RE = re.compile(r"^[A-Za-z0-9_]+$")

gen = torch.Generator().manual_seed(20240611)
f32, f64, i64, i32, bool_ = torch.float32, torch.float64, torch.int64, torch.int32, torch.bool
NAN, INF = float("nan"), float("inf")


def randn(*shape, dtype=f32, scale=1.0):
    return (torch.randn(*shape, generator=gen, dtype=f64) * scale).to(dtype)


def rand(*shape, lo=0.0, hi=1.0, dtype=f32):
    return (torch.rand(*shape, generator=gen, dtype=f64) * (hi - lo) + lo).to(dtype)


def randint(lo, hi, *shape, dtype=i64):
    return torch.randint(lo, hi, shape, generator=gen, dtype=i64).to(dtype)


def randbool(*shape):
    return torch.rand(*shape, generator=gen) < 0.5


def t(values, dtype):
    return torch.tensor(values, dtype=dtype)


def num(v, is_float):
    if is_float:
        v = float(v)
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return v
    return int(v)


def enc(x):
    """A tensor as {"dtype","shape","data"} with row-major data; nan/inf as strings."""
    x = x.detach().contiguous()
    dt = DT[x.dtype]
    flat = x.reshape(-1)
    if x.dtype == torch.bool:
        data = [bool(v) for v in flat.tolist()]
    elif x.dtype.is_floating_point:
        data = [num(v, True) for v in flat.to(f64).tolist()]
    else:
        data = [int(v) for v in flat.tolist()]
    return {"dtype": dt, "shape": list(x.shape), "data": data}


def enc_meta(shape, dtype):
    return {"dtype": DT[dtype], "shape": list(shape)}


def scalar(v):
    """A scalar attr: JSON int -> Scalar(int64), float -> Scalar(double), bool -> Scalar(bool)."""
    if isinstance(v, bool) or isinstance(v, int):
        return v
    return num(v, True)


# ---- large cases: formula inputs (exact in Python and C++) and sampled expected outputs ----

class Gen:
    """A large input made by the runner: v[i] = ((i * 7919 + 13) % 2001 - 1000) * scale + offset, cast to dtype."""

    def __init__(self, shape, dtype, scale, offset=0.0):
        self.shape, self.dtype, self.scale, self.offset = list(shape), dtype, scale, offset
        n = int(np.prod(self.shape))
        i = np.arange(n, dtype=np.int64)
        v = ((i * 7919 + 13) % 2001 - 1000).astype(np.float64) * scale + offset
        self.tensor = torch.from_numpy(v).to(dtype).reshape(self.shape)

    def spec(self):
        return {"dtype": DT[self.dtype], "shape": self.shape, "gen": {"kind": "lcg", "scale": self.scale, "offset": self.offset}}


sample_rng = np.random.default_rng(7)


def sampled(out):
    """Expected output compared at ~300 positions: both ends, thread-chunk and lane boundaries, random."""
    out = out.detach().contiguous()
    n = out.numel()
    idx = set(range(min(n, 40))) | set(range(max(0, n - 40), n))
    for b in range(0, n, 4096):
        idx |= {j for j in range(b - 17, b + 17) if 0 <= j < n}
    idx |= set(int(j) for j in sample_rng.integers(0, n, size=min(n, 160)))
    idx = sorted(idx)
    e = enc(out.reshape(-1)[torch.tensor(idx, dtype=torch.int64)])
    return {"dtype": DT[out.dtype], "shape": list(out.shape), "sample_index": idx, "sample_data": e["data"]}


# ---- pre-transforms: made in the runner through api calls, mirrored here in torch ----

def apply_pre(x, pre):
    for p in pre:
        k = p["kind"]
        if k == "transpose":
            x = x.transpose(p["a"], p["b"])
        elif k == "permute":
            x = x.permute(*p["axes"])
        elif k == "expand":
            x = x.expand(*p["dims"])
        elif k == "flip":
            x = x.flip(p["axes"])
        elif k == "slice":
            idx = tuple(slice(s[0], s[1], s[2]) for s in p["ranges"])
            x = x[idx]
        else:
            raise ValueError(k)
    return x


class Group:
    def __init__(self, name):
        self.name = name
        self.cases = []
        self.names = set()

    def add(self, name, op, call, inputs, expected=None, attrs=None, error=None, torch_expr="",
            rtol=None, atol=None, pre=None, check=None):
        """inputs: base tensors; pre: {input index: [transforms]} applied before the op."""
        assert NAME_RE.match(name), name
        assert name not in self.names, name
        self.names.add(name)
        attrs = dict(attrs or {})
        if pre:
            attrs["pre"] = [dict(p, input=i) for i, ps in pre.items() for p in ps]
        case = {"name": name, "op": op, "call": call,
                "inputs": [x.spec() if isinstance(x, Gen) else enc(x) for x in inputs],
                "attrs": attrs, "torch": torch_expr}
        if error:
            case["error"] = error
        else:
            outs = expected if isinstance(expected, (list, tuple)) else [expected]
            case["expected"] = [o if isinstance(o, dict) else enc(o) for o in outs]
            if check:
                case["check"] = check
            dts = [o["dtype"] for o in case["expected"]]
            fl = [TOL[d] for d in dts if d in TOL]
            dr, da = (max(x[0] for x in fl), max(x[1] for x in fl)) if fl else (0.0, 0.0)
            case["rtol"] = dr if rtol is None else rtol
            case["atol"] = da if atol is None else atol
        self.cases.append(case)

    def write(self):
        os.makedirs(OUT, exist_ok=True)
        path = os.path.join(OUT, self.name + ".json")
        with open(path, "w") as f:
            json.dump({"group": self.name, "torch_version": torch.__version__, "cases": self.cases},
                      f, separators=(",", ":"), allow_nan=False)
            f.write("\n")
        size = os.path.getsize(path)
        assert size < 1_000_000, (path, size)
        print(f"{path}: {len(self.cases)} cases, {size} bytes")


def pre_x(x, pre_list):
    return apply_pre(x, pre_list)


TRANS = [{"kind": "transpose", "a": 0, "b": 1}]


def lbl(dtype):
    return DT[dtype]


# ============================================================================ creation
def gen_creation():
    g = Group("creation")
    for sh, dt in [([2, 3], f32), ([0, 4], i64), ([3], bool_), ([2, 1, 2], f64)]:
        g.add(f"empty_{lbl(dt)}_{'x'.join(map(str, sh))}", "empty", "empty", [],
              enc_meta(sh, dt), attrs={"shape": sh, "dtype": DT[dt]}, check="shape_dtype",
              torch_expr=f"torch.empty({sh}, dtype={dt})")
    fulls = [([2, 3], 1.5, f32), ([4], 7, i64), ([2, 2], True, bool_), ([3], -2, i32),
             ([2], 0.25, f64), ([2, 2], NAN, f32), ([0, 2], 3.0, f32), ([3], -INF, f64),
             ([2], 2, f32), ([2], 0, bool_)]
    for k, (sh, v, dt) in enumerate(fulls):
        g.add(f"full_{k}_{lbl(dt)}", "full", "full", [], torch.full(sh, v, dtype=dt),
              attrs={"shape": sh, "value": scalar(v), "dtype": DT[dt]},
              torch_expr=f"torch.full({sh}, {v}, dtype={dt})")
    datas = [randn(2, 3), randn(3, 2, dtype=f64), randint(-100, 100, 5), randint(-9, 9, 2, 2, dtype=i32),
             randbool(2, 3), t([NAN, INF, -INF, 0.0, -0.0, 1e-30, 3e38], f32), torch.zeros(0, 3),
             t([2**62, -2**62, 2**53 + 1], i64), t([1e300, -1e-300, NAN], f64)]
    for k, x in enumerate(datas):
        g.add(f"from_data_{k}_{lbl(x.dtype)}", "from_data", "identity", [x], x, torch_expr="x")
    # into_data of views must read logically, not the underlying buffer
    x = randn(3, 4)
    g.add("into_data_transposed_f32", "into_data", "identity", [x], x.t(), pre={0: TRANS}, torch_expr="x.t()")
    x = randint(0, 50, 2, 3, 4)
    p = [{"kind": "permute", "axes": [2, 0, 1]}]
    g.add("into_data_permuted_i64", "into_data", "identity", [x], apply_pre(x, p), pre={0: p},
          torch_expr="x.permute(2, 0, 1)")
    p = [{"kind": "slice", "ranges": [[1, 4, 2], [0, 5, 3]]}]
    x = randn(5, 5, dtype=f64)
    g.add("into_data_strided_slice_f64", "into_data", "identity", [x], apply_pre(x, p), pre={0: p},
          torch_expr="x[1:4:2, 0:5:3]")
    p = [{"kind": "expand", "dims": [3, 4]}]
    x = randbool(1, 4)
    g.add("into_data_expanded_bool", "into_data", "identity", [x], apply_pre(x, p), pre={0: p},
          torch_expr="x.expand(3, 4)")
    p = [{"kind": "flip", "axes": [0, 1]}]
    x = randint(-5, 5, 2, 3, dtype=i32)
    g.add("into_data_flipped_i32", "into_data", "identity", [x], apply_pre(x, p), pre={0: p},
          torch_expr="x.flip([0, 1])")
    # cast
    casts = [(randn(2, 3), f64), (randn(2, 3, dtype=f64), f32), (t([1.7, -1.7, 0.4, -0.4, 100.9], f32), i64),
             (randint(-1000, 1000, 6), f32), (randint(-50, 50, 4, dtype=i32), i64),
             (t([5, -5, 2**31 - 1], i64), i32), (t([0.0, -0.0, 0.5, NAN, -2.0], f32), bool_),
             (t([0, 3, -1], i64), bool_), (randbool(5), f32), (randbool(5), i64),
             (t([1.0, 0.1, -2.5, 65504.0, 1e-4], f32), torch.float16),
             (t([1.0, 0.1, -2.5, 3e38], f32), torch.bfloat16), (t([1.5, -2.25, 3.0], torch.float16), f32),
             (t([NAN, INF], f32), f64)]
    for k, (x, to) in enumerate(casts):
        g.add(f"cast_{k}_{lbl(x.dtype)}_to_{lbl(to)}", "cast", "cast", [x], x.to(to), attrs={"dtype": DT[to]},
              torch_expr=f"x.to({to})")
    x = randn(3, 2)
    g.add("cast_transposed_f32_to_i64", "cast", "cast", [x * 10], (x * 10).t().to(i64), attrs={"dtype": "i64"},
          pre={0: TRANS}, torch_expr="x.t().to(torch.int64)")
    # random: no reference values; statistical checks only
    g.add("random_uniform_f32", "random", "random", [], enc_meta([4000], f32),
          attrs={"shape": [4000], "dist": {"kind": "uniform", "a": 2.0, "b": 3.0}, "dtype": "f32"},
          check={"range": [2.0, 3.0], "mean": [2.5, 0.03]}, torch_expr="torch.empty(4000).uniform_(2, 3)")
    g.add("random_default_f64", "random", "random", [], enc_meta([50, 40], f64),
          attrs={"shape": [50, 40], "dist": {"kind": "default"}, "dtype": "f64"},
          check={"range": [0.0, 1.0], "mean": [0.5, 0.04]}, torch_expr="torch.rand(50, 40, dtype=torch.float64)")
    g.add("random_normal_f32", "random", "random", [], enc_meta([5000], f32),
          attrs={"shape": [5000], "dist": {"kind": "normal", "a": 1.0, "b": 2.0}, "dtype": "f32"},
          check={"mean": [1.0, 0.15], "std": [2.0, 0.15]}, torch_expr="torch.normal(1.0, 2.0, (5000,))")
    g.add("random_bernoulli_f32", "random", "random", [], enc_meta([4000], f32),
          attrs={"shape": [4000], "dist": {"kind": "bernoulli", "a": 0.3}, "dtype": "f32"},
          check={"values_in": [0.0, 1.0], "mean": [0.3, 0.04]},
          torch_expr="torch.bernoulli(torch.full((4000,), 0.3))")
    # arange
    for k, (a, b, s, dt) in enumerate([(0, 5, 1, i64), (2, 11, 3, i64), (-3, 3, 2, i32), (0, 5, 1, f32),
                                       (5, 5, 1, i64), (-10, -2, 4, f64), (0, 7, 10, i64)]):
        g.add(f"arange_{k}_{lbl(dt)}", "arange", "arange", [], torch.arange(a, b, s, dtype=dt),
              attrs={"start": a, "end": b, "step": s, "dtype": DT[dt]},
              torch_expr=f"torch.arange({a}, {b}, {s}, dtype={dt})")
    g.add("arange_zero_step_error", "arange", "arange", [], error="ValueError",
          attrs={"start": 0, "end": 5, "step": 0, "dtype": "i64"}, torch_expr="torch.arange(0, 5, 0) raises")
    for k, (n, m, dt) in enumerate([(3, 3, f32), (2, 4, i64), (4, 2, f64), (1, 1, bool_)]):
        g.add(f"eye_{k}_{lbl(dt)}", "api:eye", "eye", [], torch.eye(n, m, dtype=dt),
              attrs={"n": n, "m": m, "dtype": DT[dt]}, torch_expr=f"torch.eye({n}, {m}, dtype={dt})")
    return g


# ============================================================================ layout
def norm_slice(s, size):
    """Our Slice (start, end, step) as (torch slice of [start, end), flip?, |step|)."""
    start, end, step = s
    start = 0 if start is None else (start + size if start < 0 else start)
    end = size if end is None else (end + size if end < 0 else end)
    return start, end, step


def ref_slice(x, slices):
    """Reference for api::slice: a negative step walks [start, end) backwards from end - 1."""
    for d, s in enumerate(slices):
        if isinstance(s, int):  # Slice::at
            i = s + x.shape[d] if s < 0 else s
            x = x.narrow(d, i, 1)
            continue
        a, b, st = norm_slice(s, x.shape[d])
        x = x.narrow(d, a, max(b - a, 0))
        if st < 0:
            x = x.flip(d)
        idx = [slice(None)] * x.dim()
        idx[d] = slice(None, None, abs(st))
        x = x[tuple(idx)]
    return x


def enc_slices(slices):
    out = []
    for s in slices:
        if isinstance(s, int):
            out.append({"at": s})
        else:
            out.append({"start": s[0], "end": s[1], "step": s[2]})
    return out


def slice_index_ref(shape, slices):
    """The element positions api::slice selects, as a tensor of flat indices (for slice_assign)."""
    n = int(np.prod(shape)) if shape else 1
    return ref_slice(torch.arange(n).reshape(shape), slices)


def gen_layout():
    g = Group("layout")
    # reshape
    x = randn(2, 3, 4)
    for k, dims in enumerate([[4, 6], [-1, 2], [2, -1, 3], [24], [1, 24, 1]]):
        g.add(f"reshape_{k}_f32", "reshape", "reshape", [x], x.reshape(dims), attrs={"dims": dims},
              torch_expr=f"x.reshape({dims})")
    xi = randint(-9, 9, 3, 4)
    g.add("reshape_transposed_i64", "reshape", "reshape", [xi], xi.t().reshape(-1), attrs={"dims": [-1]},
          pre={0: TRANS}, torch_expr="x.t().reshape(-1)")
    xb = randbool(2, 6)
    g.add("reshape_bool", "reshape", "reshape", [xb], xb.reshape(3, 4), attrs={"dims": [3, 4]},
          torch_expr="x.reshape(3, 4)")
    g.add("reshape_empty", "reshape", "reshape", [torch.zeros(0, 3)], torch.zeros(3, 0), attrs={"dims": [3, 0]},
          torch_expr="x.reshape(3, 0)")
    g.add("reshape_size_mismatch_error", "reshape", "reshape", [randn(2, 3)], error="ShapeError",
          attrs={"dims": [4, 2]}, torch_expr="x.reshape(4, 2) raises")
    # permute, swap_dims, flatten, squeeze/unsqueeze
    for k, axes in enumerate([[2, 0, 1], [-1, 0, 1], [0, 2, 1], [0, 1, 2]]):
        g.add(f"permute_{k}_f32", "permute", "permute", [x], x.permute(*axes), attrs={"axes": axes},
              torch_expr=f"x.permute({axes})")
    xi3 = randint(0, 100, 2, 3, 4, dtype=i32)
    g.add("permute_i32", "permute", "permute", [xi3], xi3.permute(1, 2, 0), attrs={"axes": [1, 2, 0]},
          torch_expr="x.permute(1, 2, 0)")
    xx = randn(2, 3, 4, dtype=f64)
    p = [{"kind": "permute", "axes": [1, 0, 2]}]
    g.add("permute_of_view_f64", "permute", "permute", [xx], xx.permute(1, 0, 2).permute(2, 1, 0),
          attrs={"axes": [2, 1, 0]}, pre={0: p}, torch_expr="x.permute(1, 0, 2).permute(2, 1, 0)")
    g.add("swap_dims_f32", "permute", "swap_dims", [x], x.transpose(0, 2), attrs={"a": 0, "b": 2},
          torch_expr="x.transpose(0, 2)")
    xb2 = randbool(2, 3)
    g.add("swap_dims_negative_bool", "permute", "swap_dims", [xb2], xb2.transpose(-1, -2),
          attrs={"a": -1, "b": -2}, torch_expr="x.transpose(-1, -2)")
    for k, (a, b) in enumerate([(0, 1), (1, 2), (0, -1)]):
        g.add(f"flatten_{k}", "reshape", "flatten", [x], torch.flatten(x, a, b), attrs={"start": a, "end": b},
              torch_expr=f"torch.flatten(x, {a}, {b})")
    g.add("flatten_transposed", "reshape", "flatten", [xi], xi.t().flatten(), attrs={"start": 0, "end": 1},
          pre={0: TRANS}, torch_expr="x.t().flatten()")
    xs = randn(1, 3, 1, 2)
    g.add("squeeze_all", "reshape", "squeeze_dims", [xs], xs.squeeze(), attrs={"dims": []},
          torch_expr="x.squeeze()")
    g.add("squeeze_dim2", "reshape", "squeeze_dims", [xs], xs.squeeze(2), attrs={"dims": [2]},
          torch_expr="x.squeeze(2)")
    g.add("squeeze_negative", "reshape", "squeeze_dims", [xs], xs.squeeze(-4), attrs={"dims": [-4]},
          torch_expr="x.squeeze(-4)")
    g.add("squeeze_non_one_error", "reshape", "squeeze_dims", [xs], error="ShapeError", attrs={"dims": [1]},
          torch_expr="burn refuses to squeeze a dim of size 3")
    xu = randint(0, 9, 2, 3)
    g.add("unsqueeze_front", "reshape", "unsqueeze_dims", [xu], xu.unsqueeze(0), attrs={"dims": [0]},
          torch_expr="x.unsqueeze(0)")
    g.add("unsqueeze_last_negative", "reshape", "unsqueeze_dims", [xu], xu.unsqueeze(-1), attrs={"dims": [-1]},
          torch_expr="x.unsqueeze(-1)")
    g.add("unsqueeze_two", "reshape", "unsqueeze_dims", [xu], xu.unsqueeze(0).unsqueeze(2),
          attrs={"dims": [0, 2]}, torch_expr="x.unsqueeze(0).unsqueeze(2)")
    # expand
    xe = randn(3, 1)
    g.add("expand_f32", "expand", "expand", [xe], xe.expand(3, 4), attrs={"dims": [3, 4]},
          torch_expr="x.expand(3, 4)")
    g.add("expand_keep_dim", "expand", "expand", [xe], xe.expand(-1, 5), attrs={"dims": [-1, 5]},
          torch_expr="x.expand(-1, 5)")
    xe2 = randint(0, 9, 1, 3)
    g.add("expand_leading_i64", "expand", "expand", [xe2], xe2.expand(2, 2, 3), attrs={"dims": [2, 2, 3]},
          torch_expr="x.expand(2, 2, 3)")
    xe3 = randbool(2, 1, 3)
    g.add("expand_middle_bool", "expand", "expand", [xe3], xe3.expand(2, 4, 3), attrs={"dims": [2, 4, 3]},
          torch_expr="x.expand(2, 4, 3)")
    g.add("expand_bad_error", "expand", "expand", [randn(3, 2)], error="ShapeError", attrs={"dims": [3, 4]},
          torch_expr="x.expand(3, 4) raises")
    # flip
    xf = randn(2, 3, 4)
    for k, axes in enumerate([[0], [0, 1], [-1], [0, 1, 2]]):
        g.add(f"flip_{k}_f32", "flip", "flip", [xf], xf.flip(axes), attrs={"axes": axes},
              torch_expr=f"x.flip({axes})")
    xfi = randint(0, 9, 3, 4, dtype=i32)
    g.add("flip_transposed_i32", "flip", "flip", [xfi], xfi.t().flip([1]), attrs={"axes": [1]}, pre={0: TRANS},
          torch_expr="x.t().flip(1)")
    xfb = randbool(5)
    g.add("flip_bool", "flip", "flip", [xfb], xfb.flip(0), attrs={"axes": [0]}, torch_expr="x.flip(0)")
    # slice (our negative steps: x[start:end].flip(d)[::|step|])
    xs = randn(5, 6)
    slices_list = [
        ("range", [(1, 4, 1)]), ("two_dims", [(1, 4, 1), (2, 5, 1)]), ("negative_indices", [(-3, -1, 1)]),
        ("open_end", [(2, None, 1), (None, -2, 1)]), ("step2", [(0, 5, 2), (1, 6, 2)]),
        ("negative_step", [(None, None, -1)]), ("negative_step2", [(1, 5, -2), (0, 6, -3)]),
        ("at", [2]), ("at_negative", [(None, None, 1), -1]), ("empty", [(2, 2, 1)]),
        ("negative_step_negative_bounds", [(-4, -1, -1), (None, None, -2)]),
    ]
    for nm, sl in slices_list:
        g.add(f"slice_{nm}_f32", "slice", "slice", [xs], ref_slice(xs, sl), attrs={"slices": enc_slices(sl)},
              torch_expr="x[start:end][::-1][::|step|] per dim (our Slice)" if any(
                  not isinstance(s, int) and s[2] < 0 for s in sl) else f"x[{sl}]")
    xsi = randint(-50, 50, 4, 3, 5)
    sl = [(1, 3, 1), (None, None, 1), (0, 5, 2)]
    g.add("slice_3d_i64", "slice", "slice", [xsi], ref_slice(xsi, sl), attrs={"slices": enc_slices(sl)},
          torch_expr="x[1:3, :, 0:5:2]")
    sl = [(1, 3, 1)]
    xsb = randbool(4, 3)
    g.add("slice_bool", "slice", "slice", [xsb], ref_slice(xsb, sl), attrs={"slices": enc_slices(sl)},
          torch_expr="x[1:3]")
    xst = randn(4, 6, dtype=f64)
    sl = [(1, 5, 2), (1, 3, 1)]
    g.add("slice_of_transposed_f64", "slice", "slice", [xst], ref_slice(xst.t(), sl),
          attrs={"slices": enc_slices(sl)}, pre={0: TRANS}, torch_expr="x.t()[1:5:2, 1:3]")
    # ranges clamp like Python; more slices than dims is an error
    xc = randn(3, 4)
    g.add("slice_out_of_range_clamps_f32", "slice", "slice", [xc], xc[1:100, -100:2],
          attrs={"slices": enc_slices([(1, 100, 1), (-100, 2, 1)])}, torch_expr="x[1:100, -100:2]")
    g.add("slice_past_end_is_empty_f32", "slice", "slice", [xc], xc[5:7],
          attrs={"slices": enc_slices([(5, 7, 1)])}, torch_expr="x[5:7]")
    g.add("slice_too_many_error", "slice", "slice", [xc], error="IndexError",
          attrs={"slices": enc_slices([(0, 1, 1), (0, 1, 1), (0, 1, 1)])}, torch_expr="x[0:1, 0:1, 0:1] raises")
    g.add("narrow_f32", "slice", "narrow", [xs], xs.narrow(1, 2, 3), attrs={"dim": 1, "start": 2, "length": 3},
          torch_expr="x.narrow(1, 2, 3)")
    g.add("narrow_negative_dim_i64", "slice", "narrow", [xsi], xsi.narrow(-1, 1, 2),
          attrs={"dim": -1, "start": 1, "length": 2}, torch_expr="x.narrow(-1, 1, 2)")
    # slice_assign / slice_fill
    def assign_ref(x, sl, v):
        out = x.clone().reshape(-1)
        idx = slice_index_ref(list(x.shape), sl)
        out[idx.reshape(-1)] = v.reshape(-1).to(x.dtype)
        return out.reshape(x.shape)

    xa = randn(4, 5)
    for nm, sl in [("block", [(1, 3, 1), (0, 2, 1)]), ("negative_indices", [(-2, None, 1), (-3, -1, 1)]),
                   ("step2", [(0, 4, 2), (1, 5, 2)]), ("negative_step", [(0, 3, -1)]),
                   ("at", [(None, None, 1), 2])]:
        vshape = list(ref_slice(xa, sl).shape)
        v = randn(*vshape)
        g.add(f"slice_assign_{nm}_f32", "slice_assign", "slice_assign", [xa, v], assign_ref(xa, sl, v),
              attrs={"slices": enc_slices(sl)}, torch_expr="y = x.clone(); y[slices] = v")
    xai = randint(0, 9, 3, 4)
    sl = [(None, None, 1), (1, 3, 1)]
    v = randint(-9, 0, 3, 2)
    g.add("slice_assign_i64", "slice_assign", "slice_assign", [xai, v], assign_ref(xai, sl, v),
          attrs={"slices": enc_slices(sl)}, torch_expr="y = x.clone(); y[:, 1:3] = v")
    xat = randn(3, 4, dtype=f64)
    sl = [(0, 2, 1)]
    v = randn(2, 3, dtype=f64)
    g.add("slice_assign_transposed_f64", "slice_assign", "slice_assign", [xat, v], assign_ref(xat.t(), sl, v),
          attrs={"slices": enc_slices(sl)}, pre={0: TRANS}, torch_expr="y = x.t().clone(); y[0:2] = v")
    xab = torch.zeros(3, 3, dtype=bool_)
    sl = [(1, 2, 1)]
    v = torch.ones(1, 3, dtype=bool_)
    g.add("slice_assign_bool", "slice_assign", "slice_assign", [xab, v], assign_ref(xab, sl, v),
          attrs={"slices": enc_slices(sl)}, torch_expr="y = x.clone(); y[1:2] = v")
    g.add("slice_assign_shape_error", "slice_assign", "slice_assign", [randn(4, 5), randn(2, 3)],
          error="ShapeError", attrs={"slices": enc_slices([(0, 2, 1), (0, 2, 1)])},
          torch_expr="x[0:2, 0:2] = v of [2, 3] raises")
    for nm, sl, val, x0 in [("f32", [(None, None, 1), (1, None, 1)], 5.0, randn(3, 4)),
                            ("i64_negative", [(-1, None, 1)], -7, randint(0, 9, 3, 2)),
                            ("nan_step", [(0, 4, 2)], NAN, randn(4, dtype=f64))]:
        out = x0.clone().reshape(-1)
        out[slice_index_ref(list(x0.shape), sl).reshape(-1)] = val
        g.add(f"slice_fill_{nm}", "slice_assign", "slice_fill", [x0], out.reshape(x0.shape),
              attrs={"slices": enc_slices(sl), "value": scalar(val)}, torch_expr=f"y = x.clone(); y[slices] = {val}")
    # cat / stack / repeat / split / chunk / roll
    a, b, c = randn(2, 3), randn(1, 3), randn(4, 3)
    g.add("cat_dim0_f32", "cat", "cat", [a, b, c], torch.cat([a, b, c], 0), attrs={"dim": 0},
          torch_expr="torch.cat([a, b, c], 0)")
    a2, b2 = randint(0, 9, 2, 2), randint(0, 9, 2, 3)
    g.add("cat_dim1_i64", "cat", "cat", [a2, b2], torch.cat([a2, b2], 1), attrs={"dim": 1},
          torch_expr="torch.cat([a, b], 1)")
    a3, b3 = randbool(2, 2, 1), randbool(2, 2, 2)
    g.add("cat_negative_dim_bool", "cat", "cat", [a3, b3], torch.cat([a3, b3], -1), attrs={"dim": -1},
          torch_expr="torch.cat([a, b], -1)")
    a4, b4 = randn(2, 3, dtype=f64), randn(3, 2, dtype=f64)
    g.add("cat_transposed_f64", "cat", "cat", [a4, b4], torch.cat([a4, b4.t()], 0), attrs={"dim": 0},
          pre={1: TRANS}, torch_expr="torch.cat([a, b.t()], 0)")
    e = torch.zeros(0, 3)
    g.add("cat_with_empty_f32", "cat", "cat", [a, e], torch.cat([a, e], 0), attrs={"dim": 0},
          torch_expr="torch.cat([a, empty], 0)")
    g.add("cat_single_i32", "cat", "cat", [a2.to(i32)], a2.to(i32), attrs={"dim": 0}, torch_expr="torch.cat([a])")
    g.add("cat_dtype_mismatch_error", "cat", "cat", [a, a.to(f64)], error="DTypeError", attrs={"dim": 0},
          torch_expr="cat of f32 and f64: burn refuses")
    g.add("cat_shape_mismatch_error", "cat", "cat", [a, randn(2, 4)], error="ShapeError", attrs={"dim": 0},
          torch_expr="torch.cat([a[2,3], b[2,4]], 0) raises")
    s1, s2, s3 = randn(2, 3), randn(2, 3), randn(2, 3)
    for k, d in enumerate([0, 1, 2, -1]):
        g.add(f"stack_{k}_f32", "cat", "stack", [s1, s2, s3], torch.stack([s1, s2, s3], d), attrs={"dim": d},
              torch_expr=f"torch.stack([a, b, c], {d})")
    si1, si2 = randint(0, 9, 3), randint(0, 9, 3)
    g.add("stack_i64", "cat", "stack", [si1, si2], torch.stack([si1, si2], 0), attrs={"dim": 0},
          torch_expr="torch.stack([a, b], 0)")
    xr = randn(2, 3)
    for k, sizes in enumerate([[2, 1], [1, 3], [2, 2], [1, 1]]):
        g.add(f"repeat_{k}_f32", "repeat_dim", "repeat", [xr], xr.repeat(*sizes), attrs={"sizes": sizes},
              torch_expr=f"x.repeat({sizes})")
    xri = randint(0, 9, 2, 1, 2, dtype=i32)
    g.add("repeat_i32_3d", "repeat_dim", "repeat", [xri], xri.repeat(1, 3, 2), attrs={"sizes": [1, 3, 2]},
          torch_expr="x.repeat(1, 3, 2)")
    xrb = randbool(3)
    g.add("repeat_bool", "repeat_dim", "repeat", [xrb], xrb.repeat(3), attrs={"sizes": [3]},
          torch_expr="x.repeat(3)")
    g.add("repeat_transposed_f64", "repeat_dim", "repeat", [xat], xat.t().repeat(2, 1), attrs={"sizes": [2, 1]},
          pre={0: TRANS}, torch_expr="x.t().repeat(2, 1)")
    xc = randn(5, 4)
    for k, (n, d) in enumerate([(3, 0), (2, 1), (4, -1), (5, 0)]):
        g.add(f"chunk_{k}", "slice", "chunk", [xc], list(torch.chunk(xc, n, d)), attrs={"chunks": n, "dim": d},
              torch_expr=f"torch.chunk(x, {n}, {d})")
    for k, (s, d) in enumerate([(2, 0), (3, 1), (5, 0)]):
        g.add(f"split_{k}", "slice", "split", [xc], list(torch.split(xc, s, d)), attrs={"size": s, "dim": d},
              torch_expr=f"torch.split(x, {s}, {d})")
    g.add("split_with_sizes", "slice", "split_with_sizes", [xc], list(torch.split(xc, [1, 3, 1], 0)),
          attrs={"sizes": [1, 3, 1], "dim": 0}, torch_expr="torch.split(x, [1, 3, 1], 0)")
    xo = randint(0, 99, 3, 4)
    for k, (sh, dm) in enumerate([([1], [0]), ([-1, 2], [0, 1]), ([7], [1]), ([-5], [-1])]):
        g.add(f"roll_{k}_i64", "api:roll", "roll", [xo], torch.roll(xo, sh, dm), attrs={"shifts": sh, "dims": dm},
              torch_expr=f"torch.roll(x, {sh}, {dm})")
    # pad: (left, right) pairs from the last dim, as torch.nn.functional.pad
    xp = randn(2, 3, 4)
    cases = [("constant_last", [1, 2], "constant", 0.0), ("constant_two_dims", [1, 1, 2, 0], "constant", 3.5),
             ("reflect_last", [2, 1], "reflect", 0.0), ("reflect_two_dims", [1, 1, 2, 2], "reflect", 0.0),
             ("replicate_last", [2, 2], "replicate", 0.0), ("replicate_two_dims", [0, 3, 1, 0], "replicate", 0.0)]
    for nm, pads, mode, val in cases:
        ref = F.pad(xp, pads, mode=mode, value=val) if mode == "constant" else F.pad(xp, pads, mode=mode)
        g.add(f"pad_{nm}_f32", "api:pad", "pad", [xp], ref, attrs={"pads": pads, "mode": mode, "value": val},
              torch_expr=f"F.pad(x, {pads}, mode='{mode}')")
    xpi = randint(0, 9, 2, 3)
    g.add("pad_constant_i64", "api:pad", "pad", [xpi], F.pad(xpi, [1, 0, 0, 1], value=-1),
          attrs={"pads": [1, 0, 0, 1], "mode": "constant", "value": -1}, torch_expr="F.pad(x, [1, 0, 0, 1], value=-1)")
    xpd = randn(3, 5, dtype=f64)
    ref = torch.from_numpy(np.pad(xpd.numpy(), [(0, 0), (3, 2)], mode="reflect"))
    assert torch.equal(ref, F.pad(xpd.unsqueeze(0), [3, 2], mode="reflect").squeeze(0))
    g.add("pad_reflect_2d_f64", "api:pad", "pad", [xpd], ref, attrs={"pads": [3, 2], "mode": "reflect", "value": 0.0},
          torch_expr="F.pad(x[None], [3, 2], mode='reflect')[0]")
    return g


# ============================================================================ indexing
def gen_indexing():
    g = Group("indexing")
    x = randn(3, 4)
    idx0 = randint(0, 3, 2, 4)
    g.add("gather_dim0_f32", "gather", "gather", [x, idx0], torch.gather(x, 0, idx0), attrs={"dim": 0},
          torch_expr="torch.gather(x, 0, idx)")
    idx1 = randint(0, 4, 3, 5)
    g.add("gather_dim1_f32", "gather", "gather", [x, idx1], torch.gather(x, 1, idx1), attrs={"dim": 1},
          torch_expr="torch.gather(x, 1, idx)")
    g.add("gather_negative_dim_i32_index", "gather", "gather", [x, idx1.to(i32)], torch.gather(x, -1, idx1),
          attrs={"dim": -1}, torch_expr="torch.gather(x, -1, idx.int())")
    xi = randint(-9, 9, 2, 3, 4)
    idx = randint(0, 3, 2, 2, 4)
    g.add("gather_3d_i64", "gather", "gather", [xi, idx], torch.gather(xi, 1, idx), attrs={"dim": 1},
          torch_expr="torch.gather(x, 1, idx)")
    xt = randn(4, 3, dtype=f64)
    g.add("gather_transposed_f64", "gather", "gather", [xt, idx1], torch.gather(xt.t(), 1, idx1), attrs={"dim": 1},
          pre={0: TRANS}, torch_expr="torch.gather(x.t(), 1, idx)")
    g.add("gather_out_of_range_error", "gather", "gather", [x, t([[0, 4]], i64)], error="IndexError",
          attrs={"dim": 1}, torch_expr="torch.gather(x, 1, [[0, 4]]) raises")
    # scatter_add (Burn's scatter adds)
    v = randn(2, 4)
    g.add("scatter_add_dim0_f32", "scatter_add", "scatter_add", [x, idx0, v], torch.scatter_add(x, 0, idx0, v),
          attrs={"dim": 0}, torch_expr="torch.scatter_add(x, 0, idx, v)")
    idxd = t([[0, 0, 1], [2, 2, 2], [3, 0, 3]], i64)
    vd = randn(3, 3)
    g.add("scatter_add_duplicates_f32", "scatter_add", "scatter_add", [x, idxd, vd],
          torch.scatter_add(x, 1, idxd, vd), attrs={"dim": 1}, torch_expr="torch.scatter_add(x, 1, idx, v)")
    xs = randint(0, 9, 3, 4)
    vs = randint(-5, 5, 3, 3)
    g.add("scatter_add_i64_i32_index", "scatter_add", "scatter_add", [xs, idxd.to(i32), vs],
          torch.scatter_add(xs, -1, idxd, vs), attrs={"dim": -1}, torch_expr="torch.scatter_add(x, -1, idx, v)")
    g.add("scatter_add_f64", "scatter_add", "scatter_add", [x.to(f64), idx0, v.to(f64)],
          torch.scatter_add(x.to(f64), 0, idx0, v.to(f64)), attrs={"dim": 0},
          torch_expr="torch.scatter_add(x, 0, idx, v)")
    g.add("scatter_add_out_of_range_error", "scatter_add", "scatter_add", [x, t([[5, 0, 0, 0]], i64), randn(1, 4)],
          error="IndexError", attrs={"dim": 0}, torch_expr="index 5 >= 3 raises")
    # select (index_select) and select_add (index_add)
    sel = t([2, 0, 2], i64)
    g.add("select_dim0_f32", "select", "select", [x, sel], torch.index_select(x, 0, sel), attrs={"dim": 0},
          torch_expr="torch.index_select(x, 0, idx)")
    sel1 = t([3, 1], i64)
    g.add("select_dim1_i64", "select", "select", [xs, sel1], torch.index_select(xs, 1, sel1), attrs={"dim": 1},
          torch_expr="torch.index_select(x, 1, idx)")
    g.add("select_negative_dim_i32_index", "select", "select", [xi, sel1.to(i32)], torch.index_select(xi, -1, sel1),
          attrs={"dim": -1}, torch_expr="torch.index_select(x, -1, idx)")
    xb = randbool(4, 2)
    g.add("select_bool", "select", "select", [xb, sel], torch.index_select(xb, 0, sel), attrs={"dim": 0},
          torch_expr="torch.index_select(x, 0, idx)")
    g.add("select_transposed_f32", "select", "select", [x, sel], torch.index_select(x.t(), 1, sel), attrs={"dim": 1},
          pre={0: TRANS}, torch_expr="torch.index_select(x.t(), 1, idx)")
    g.add("select_out_of_range_error", "select", "select", [x, t([0, 3], i64)], error="IndexError",
          attrs={"dim": 0}, torch_expr="index 3 >= 3 raises")
    va = randn(3, 4)
    g.add("select_add_duplicates_f32", "select_add", "select_assign", [x, sel, va], x.index_add(0, sel, va),
          attrs={"dim": 0}, torch_expr="x.index_add(0, idx, v)")
    vai = randint(-3, 3, 3, 2)
    g.add("select_add_dim1_i64", "select_add", "select_assign", [xs, sel1, vai], xs.index_add(1, sel1, vai),
          attrs={"dim": 1}, torch_expr="x.index_add(1, idx, v)")
    g.add("select_add_f64", "select_add", "select_assign", [x.to(f64), t([1], i64), randn(3, 1, dtype=f64) * 0],
          x.to(f64), attrs={"dim": 1}, torch_expr="x.index_add(1, [1], zeros)")
    g.add("select_add_out_of_range_error", "select_add", "select_assign", [x, t([7], i64), randn(1, 4)],
          error="IndexError", attrs={"dim": 0}, torch_expr="index 7 >= 3 raises")
    # mask_where: where(mask, value, x)
    m = randbool(3, 4)
    val = randn(3, 4)
    g.add("mask_where_f32", "mask_where", "mask_where", [x, m, val], torch.where(m, val, x),
          torch_expr="torch.where(mask, value, x)")
    mb = randbool(4)
    g.add("mask_where_broadcast_mask", "mask_where", "mask_where", [x, mb, val], torch.where(mb, val, x),
          torch_expr="torch.where(mask[4], value, x)")
    vb = randn(1, 4, dtype=f64)
    g.add("mask_where_broadcast_value_f64", "mask_where", "mask_where", [x.to(f64), m, vb],
          torch.where(m, vb, x.to(f64)), torch_expr="torch.where(mask, value[1, 4], x)")
    vi = randint(100, 200, 3, 4)
    g.add("mask_where_i64", "mask_where", "mask_where", [xs, m, vi], torch.where(m, vi, xs),
          torch_expr="torch.where(mask, value, x)")
    g.add("mask_where_transposed_mask", "mask_where", "mask_where", [x, m.t().contiguous(), val],
          torch.where(m, val, x), pre={1: TRANS}, torch_expr="torch.where(mask.t().t(), value, x)")
    g.add("mask_where_shape_error", "mask_where", "mask_where", [x, randbool(3, 3), val], error="ShapeError",
          torch_expr="mask [3, 3] does not broadcast to [3, 4]")
    # mask_fill
    g.add("mask_fill_f32", "mask_fill", "mask_fill", [x, m], x.masked_fill(m, 2.5), attrs={"value": 2.5},
          torch_expr="x.masked_fill(mask, 2.5)")
    g.add("mask_fill_broadcast_nan_f64", "mask_fill", "mask_fill", [x.to(f64), mb], x.to(f64).masked_fill(mb, NAN),
          attrs={"value": "nan"}, torch_expr="x.masked_fill(mask[4], nan)")
    g.add("mask_fill_i64", "mask_fill", "mask_fill", [xs, m], xs.masked_fill(m, -3), attrs={"value": -3},
          torch_expr="x.masked_fill(mask, -3)")
    g.add("mask_fill_i32_transposed", "mask_fill", "mask_fill", [xs.to(i32), m.t().contiguous()],
          xs.to(i32).t().masked_fill(m.t(), 9), attrs={"value": 9}, pre={0: TRANS},
          torch_expr="x.t().masked_fill(mask, 9)")
    g.add("mask_fill_bool", "mask_fill", "mask_fill", [xb, randbool(4, 2) & False], xb, attrs={"value": True},
          torch_expr="x.masked_fill(all-false mask, True)")
    # argwhere / nonzero
    xa = t([[0.0, 1.5, NAN], [0.0, 0.0, -2.0]], f32)
    g.add("argwhere_f32_nan", "argwhere", "argwhere", [xa], torch.argwhere(xa), torch_expr="torch.argwhere(x)")
    xai = t([[[0, 1], [2, 0]], [[0, 0], [3, 4]]], i64)
    g.add("argwhere_i64_3d", "argwhere", "argwhere", [xai], torch.argwhere(xai), torch_expr="torch.argwhere(x)")
    xab = randbool(3, 5)
    g.add("argwhere_bool", "argwhere", "argwhere", [xab], torch.argwhere(xab), torch_expr="torch.argwhere(x)")
    xz = torch.zeros(2, 3, dtype=bool_)
    g.add("argwhere_none", "argwhere", "argwhere", [xz], torch.argwhere(xz), torch_expr="torch.argwhere(zeros)")
    x1 = t([0, 3, 0, -1, 5], i32)
    g.add("argwhere_1d_i32", "argwhere", "argwhere", [x1], torch.argwhere(x1), torch_expr="torch.argwhere(x)")
    g.add("argwhere_transposed", "argwhere", "argwhere", [xab], torch.argwhere(xab.t()), pre={0: TRANS},
          torch_expr="torch.argwhere(x.t())")
    g.add("nonzero_bool", "argwhere", "nonzero", [xab], list(torch.nonzero(xab, as_tuple=True)),
          torch_expr="torch.nonzero(x, as_tuple=True)")
    g.add("nonzero_f32", "argwhere", "nonzero", [xa], list(torch.nonzero(xa, as_tuple=True)),
          torch_expr="torch.nonzero(x, as_tuple=True)")
    # one_hot, tril/triu and their masks
    lab = t([0, 2, 1, 3], i64)
    g.add("one_hot_i64", "api:one_hot", "one_hot", [lab], F.one_hot(lab, 4), attrs={"num_classes": 4, "dtype": "i64"},
          torch_expr="F.one_hot(x, 4)")
    lab2 = t([[1, 0], [2, 2]], i64)
    g.add("one_hot_2d_f32", "api:one_hot", "one_hot", [lab2], F.one_hot(lab2, 3).to(f32),
          attrs={"num_classes": 3, "dtype": "f32"}, torch_expr="F.one_hot(x, 3).float()")
    g.add("one_hot_out_of_range_error", "api:one_hot", "one_hot", [t([0, 5], i64)], error="IndexError",
          attrs={"num_classes": 3, "dtype": "i64"}, torch_expr="F.one_hot([0, 5], 3) raises")
    xt2 = randn(3, 4)
    for d in [0, 1, -1]:
        nm = f"m{-d}" if d < 0 else str(d)
        g.add(f"tril_{nm}_f32", "api:tril", "tril", [xt2], torch.tril(xt2, d), attrs={"diagonal": d},
              torch_expr=f"torch.tril(x, {d})")
        g.add(f"triu_{nm}_f32", "api:triu", "triu", [xt2], torch.triu(xt2, d), attrs={"diagonal": d},
              torch_expr=f"torch.triu(x, {d})")
    xt3 = randint(1, 9, 2, 3, 3)
    g.add("tril_batched_i64", "api:tril", "tril", [xt3], torch.tril(xt3), attrs={"diagonal": 0},
          torch_expr="torch.tril(x)")
    g.add("triu_batched_i64", "api:triu", "triu", [xt3], torch.triu(xt3, 1), attrs={"diagonal": 1},
          torch_expr="torch.triu(x, 1)")
    # Burn's masks are true where tril/triu would zero (ready for mask_fill)
    for sh, d in [([3, 3], 0), ([2, 4], 1), ([4, 3], -1)]:
        ones = torch.ones(sh, dtype=bool_)
        nm = f"{sh[0]}x{sh[1]}_{'m1' if d < 0 else d}"
        g.add(f"tril_mask_{nm}", "api:tril_mask", "tril_mask", [], ~torch.tril(ones, d),
              attrs={"shape": sh, "diagonal": d}, torch_expr=f"~torch.tril(ones({sh}), {d})")
        g.add(f"triu_mask_{nm}", "api:triu_mask", "triu_mask", [], ~torch.triu(ones, d),
              attrs={"shape": sh, "diagonal": d}, torch_expr=f"~torch.triu(ones({sh}), {d})")
    return g


# ============================================================================ numeric
def int_div(a, b):
    return torch.div(a, b, rounding_mode="trunc")


def gen_numeric():
    g = Group("numeric")
    ops = {"add": (torch.add, "torch.add(a, b)"), "sub": (torch.sub, "torch.sub(a, b)"),
           "mul": (torch.mul, "torch.mul(a, b)"), "div": (torch.div, "torch.div(a, b)"),
           "remainder": (torch.remainder, "torch.remainder(a, b)"), "maximum": (torch.maximum, "torch.maximum(a, b)"),
           "minimum": (torch.minimum, "torch.minimum(a, b)")}
    shapes = [("same", [2, 3], [2, 3]), ("row", [2, 3], [3]), ("outer", [2, 1], [1, 3]), ("rank3", [4, 1, 3], [2, 1])]
    for op, (fn, expr) in ops.items():
        for sn, sa, sb in shapes:
            for dt in [f32, f64]:
                a, b = randn(*sa, dtype=dt), randn(*sb, dtype=dt)
                if op in ("div", "remainder"):
                    b = b.sign() * (b.abs() + 0.5)  # keep away from zero
                g.add(f"{op}_{sn}_{lbl(dt)}", op, op, [a, b], fn(a, b), torch_expr=expr)
            for dt in [i64, i32]:
                a, b = randint(-20, 20, *sa, dtype=dt), randint(-6, 7, *sb, dtype=dt)
                if op in ("div", "remainder"):
                    b = torch.where(b == 0, torch.ones_like(b), b)
                ref = int_div(a, b) if op == "div" else fn(a, b)
                g.add(f"{op}_{sn}_{lbl(dt)}", op, op, [a, b], ref.to(dt),
                      torch_expr="torch.div(a, b, rounding_mode='trunc')" if op == "div" else expr)
        a, b = randn(3, 2), randn(2, 3)
        if op in ("div", "remainder"):
            b = b.sign() * (b.abs() + 0.5)
        g.add(f"{op}_transposed_lhs_f32", op, op, [a, b], fn(a.t(), b), pre={0: TRANS}, torch_expr=expr + " with a.t()")
        a, b = randn(1, 3), randn(2, 3)
        if op in ("div", "remainder"):
            b = b.sign() * (b.abs() + 0.5)
        pe = [{"kind": "expand", "dims": [2, 3]}]
        g.add(f"{op}_expanded_lhs_f32", op, op, [a, b], fn(a.expand(2, 3), b), pre={0: pe},
              torch_expr=expr + " with a.expand(2, 3)")
        g.add(f"{op}_dtype_mismatch_error", op, op, [randn(2), randn(2, dtype=f64)], error="DTypeError",
              torch_expr="f32 with f64: burn refuses")
        g.add(f"{op}_shape_mismatch_error", op, op, [randn(2, 3), randn(4)], error="ShapeError",
              torch_expr="[2, 3] with [4] does not broadcast")
        g.add(f"{op}_empty_f32", op, op, [torch.zeros(0, 3), torch.ones(1, 3)], fn(torch.zeros(0, 3), torch.ones(1, 3)),
              torch_expr=expr + " on [0, 3] and [1, 3]")
    # semantics edges
    a, b = t([7, -7, 7, -7, 0, 1, -1], i64), t([2, 2, -2, -2, 3, -3, 3], i64)
    g.add("div_trunc_negative_i64", "div", "div", [a, b], int_div(a, b), torch_expr="torch.div(a, b, rounding_mode='trunc')")
    g.add("remainder_negative_i64", "remainder", "remainder", [a, b], torch.remainder(a, b),
          torch_expr="torch.remainder(a, b)")
    g.add("div_trunc_negative_i32", "div", "div", [a.to(i32), b.to(i32)], int_div(a, b).to(i32),
          torch_expr="torch.div(a, b, rounding_mode='trunc')")
    g.add("remainder_negative_i32", "remainder", "remainder", [a.to(i32), b.to(i32)], torch.remainder(a, b).to(i32),
          torch_expr="torch.remainder(a, b)")
    af, bf = t([5.5, -5.5, 5.5, -5.5, 1.0, 0.0], f32), t([2.0, 2.0, -2.0, -2.0, 0.0, 0.0], f32)
    g.add("remainder_negative_f32", "remainder", "remainder", [af, bf], torch.remainder(af, bf),
          torch_expr="torch.remainder(a, b)")
    g.add("div_by_zero_f32", "div", "div", [af, bf], torch.div(af, bf), torch_expr="torch.div(a, b)")
    g.add("div_by_zero_i64_error", "div", "div", [t([1, 2], i64), t([1, 0], i64)], error="ValueError",
          torch_expr="int division by zero")
    g.add("remainder_by_zero_i64_error", "remainder", "remainder", [t([1, 2], i64), t([1, 0], i64)],
          error="ValueError", torch_expr="int remainder by zero")
    an, bn = t([1.0, NAN, 3.0, -INF], f32), t([NAN, 2.0, 1.0, 0.0], f32)
    g.add("maximum_nan_f32", "maximum", "maximum", [an, bn], torch.maximum(an, bn), torch_expr="torch.maximum(a, b)")
    g.add("minimum_nan_f32", "minimum", "minimum", [an, bn], torch.minimum(an, bn), torch_expr="torch.minimum(a, b)")
    g.add("add_inf_f32", "add", "add", [an, bn], an + bn, torch_expr="a + b")
    g.add("mul_large_i64", "mul", "mul", [t([3037000499, -2**31], i64), t([3037000499, 2**31], i64)],
          t([3037000499 * 3037000499, -2**62], i64), torch_expr="a * b (no overflow)")
    # powf
    for dt in [f32, f64]:
        a, b = rand(2, 3, lo=0.1, hi=3.0, dtype=dt), randn(2, 3, dtype=dt)
        g.add(f"powf_{lbl(dt)}", "powf", "powf", [a, b], torch.pow(a, b), torch_expr="torch.pow(a, b)")
        b2 = randn(3, dtype=dt)
        g.add(f"powf_broadcast_{lbl(dt)}", "powf", "powf", [a, b2], torch.pow(a, b2), torch_expr="torch.pow(a, b)")
    a, b = t([-2.0, -2.0, 0.0, 0.0, 2.0, NAN, 1.0], f32), t([2.0, 0.5, 0.0, -1.0, -2.0, 0.0, NAN], f32)
    g.add("powf_edges_f32", "powf", "powf", [a, b], torch.pow(a, b), torch_expr="torch.pow(a, b)")
    a = rand(3, 2, lo=0.5, hi=2.0)
    b = randn(2, 3)
    g.add("powf_transposed_f32", "powf", "powf", [a, b], torch.pow(a.t(), b), pre={0: TRANS}, torch_expr="torch.pow(a.t(), b)")
    g.add("powf_dtype_mismatch_error", "powf", "powf", [randn(2), randn(2, dtype=f64)], error="DTypeError",
          torch_expr="f32 with f64: burn refuses")
    # scalar ops
    x = randn(2, 3)
    xd = randn(2, 3, dtype=f64)
    xi = randint(-20, 20, 2, 3)
    xi32 = randint(-20, 20, 2, 3, dtype=i32)
    for op, fn in [("add_scalar", lambda a, s: a + s), ("sub_scalar", lambda a, s: a - s),
                   ("mul_scalar", lambda a, s: a * s), ("div_scalar", lambda a, s: a / s),
                   ("remainder_scalar", lambda a, s: torch.remainder(a, s))]:
        call = op
        g.add(f"{op}_f32", op, call, [x], fn(x, 2.5), attrs={"scalar": 2.5}, torch_expr=f"x {op} 2.5")
        g.add(f"{op}_f64_negative", op, call, [xd], fn(xd, -1.5), attrs={"scalar": -1.5}, torch_expr=f"x {op} -1.5")
        g.add(f"{op}_f32_int_scalar", op, call, [x], fn(x, 3.0), attrs={"scalar": 3}, torch_expr=f"x {op} 3")
        ifn = (lambda a, s: int_div(a, s)) if op == "div_scalar" else fn
        g.add(f"{op}_i64_negative", op, call, [xi], ifn(xi, -3).to(i64), attrs={"scalar": -3},
              torch_expr=f"x {op} -3" + (" (trunc)" if op == "div_scalar" else ""))
        g.add(f"{op}_i32", op, call, [xi32], ifn(xi32, 4).to(i32), attrs={"scalar": 4}, torch_expr=f"x {op} 4")
        g.add(f"{op}_transposed_f32", op, call, [x], fn(x.t(), 2.0), attrs={"scalar": 2.0}, pre={0: TRANS},
              torch_expr=f"x.t() {op} 2")
    g.add("div_scalar_zero_i64_error", "div_scalar", "div_scalar", [xi], error="ValueError", attrs={"scalar": 0},
          torch_expr="int division by zero")
    g.add("div_scalar_zero_f32", "div_scalar", "div_scalar", [t([1.0, -1.0, 0.0], f32)], t([INF, -INF, NAN], f32),
          attrs={"scalar": 0.0}, torch_expr="x / 0.0")
    g.add("rsub_scalar_f32", "sub_scalar", "rsub_scalar", [x], 1.0 - x, attrs={"scalar": 1.0}, torch_expr="1 - x")
    g.add("rsub_scalar_i64", "sub_scalar", "rsub_scalar", [xi], 10 - xi, attrs={"scalar": 10}, torch_expr="10 - x")
    xnz = x.sign() * (x.abs() + 0.5)
    g.add("rdiv_scalar_f32", "div_scalar", "rdiv_scalar", [xnz], 2.0 / xnz, attrs={"scalar": 2.0}, torch_expr="2 / x")
    xp = rand(2, 3, lo=0.1, hi=4.0)
    for k, s in enumerate([2.0, 0.5, -1.0, 3]):
        g.add(f"powf_scalar_{k}_f32", "powf_scalar", "powf_scalar", [xp], torch.pow(xp, float(s)),
              attrs={"scalar": s}, torch_expr=f"torch.pow(x, {s})")
    g.add("powf_scalar_f64_negative_base", "powf_scalar", "powf_scalar", [xd], torch.pow(xd, 2.0),
          attrs={"scalar": 2.0}, torch_expr="torch.pow(x, 2.0)")
    g.add("powf_scalar_f64_sqrt_negative", "powf_scalar", "powf_scalar", [t([-4.0, 4.0], f64)],
          t([NAN, 2.0], f64), attrs={"scalar": 0.5}, torch_expr="torch.pow(x, 0.5)")
    for k, e in enumerate([2, 3, 0, -2]):
        g.add(f"powi_scalar_{k}_f32", "powf_scalar", "powi_scalar", [x], torch.pow(x.to(f64), e).to(f32),
              attrs={"exponent": e}, torch_expr=f"torch.pow(x, {e})", rtol=1e-5, atol=1e-5)
    g.add("powi_scalar_i64", "powf_scalar", "powi_scalar", [xi], torch.pow(xi, 3), attrs={"exponent": 3},
          torch_expr="torch.pow(x, 3)")
    ex = randint(-2, 4, 2, 3)
    g.add("powi_f32", "powf", "powi", [x, ex], torch.pow(x.to(f64), ex).to(f32), torch_expr="torch.pow(x, e)",
          rtol=1e-5, atol=1e-5)
    g.add("powi_i64", "powf", "powi", [xi, ex.clamp(min=0)], torch.pow(xi, ex.clamp(min=0)),
          torch_expr="torch.pow(x, e) with e >= 0")
    g.add("powi_broadcast_f64", "powf", "powi", [xd, t([1, 2, 3], i64)], torch.pow(xd, t([1, 2, 3], i64)),
          torch_expr="torch.pow(x, e[3])")
    # unary numeric
    xs = t([-2.5, -0.0, 0.0, 1.5, -INF, INF, 3.0], f32)
    for op in ["neg", "abs", "sign"]:
        fn = getattr(torch, op)
        g.add(f"{op}_f32", op, "unary", [xs], fn(xs), attrs={"op": op}, torch_expr=f"torch.{op}(x)")
        g.add(f"{op}_f64", op, "unary", [xd], fn(xd), attrs={"op": op}, torch_expr=f"torch.{op}(x)")
        g.add(f"{op}_i64", op, "unary", [xi], fn(xi), attrs={"op": op}, torch_expr=f"torch.{op}(x)")
        g.add(f"{op}_i32", op, "unary", [xi32], fn(xi32), attrs={"op": op}, torch_expr=f"torch.{op}(x)")
        g.add(f"{op}_transposed_f32", op, "unary", [x], fn(x.t()), attrs={"op": op}, pre={0: TRANS},
              torch_expr=f"torch.{op}(x.t())")
    g.add("neg_nan_f32", "neg", "unary", [t([NAN], f32)], t([NAN], f32), attrs={"op": "neg"}, torch_expr="-nan")
    g.add("abs_nan_f64", "abs", "unary", [t([NAN, -1.0], f64)], t([NAN, 1.0], f64), attrs={"op": "abs"},
          torch_expr="torch.abs(x)")
    # clamp
    xc = randn(3, 4, scale=2.0)
    g.add("clamp_f32", "clamp", "clamp", [xc], torch.clamp(xc, -1.0, 0.5), attrs={"min": -1.0, "max": 0.5},
          torch_expr="torch.clamp(x, -1, 0.5)")
    g.add("clamp_nan_f32", "clamp", "clamp", [t([NAN, -5.0, 5.0], f32)], t([NAN, -1.0, 1.0], f32),
          attrs={"min": -1.0, "max": 1.0}, torch_expr="torch.clamp(x, -1, 1)")
    g.add("clamp_i64", "clamp", "clamp", [xi], torch.clamp(xi, -5, 5), attrs={"min": -5, "max": 5},
          torch_expr="torch.clamp(x, -5, 5)")
    g.add("clamp_i32", "clamp", "clamp", [xi32], torch.clamp(xi32, 0, 10), attrs={"min": 0, "max": 10},
          torch_expr="torch.clamp(x, 0, 10)")
    g.add("clamp_f64_transposed", "clamp", "clamp", [xd], torch.clamp(xd.t(), -0.5, 0.5),
          attrs={"min": -0.5, "max": 0.5}, pre={0: TRANS}, torch_expr="torch.clamp(x.t(), -0.5, 0.5)")
    g.add("clamp_min_f32", "clamp_min", "clamp_min", [xc], torch.clamp(xc, min=0.0), attrs={"min": 0.0},
          torch_expr="torch.clamp(x, min=0)")
    g.add("clamp_min_i64", "clamp_min", "clamp_min", [xi], torch.clamp(xi, min=-2), attrs={"min": -2},
          torch_expr="torch.clamp(x, min=-2)")
    g.add("clamp_min_f64", "clamp_min", "clamp_min", [xd], torch.clamp(xd, min=0.1), attrs={"min": 0.1},
          torch_expr="torch.clamp(x, min=0.1)")
    g.add("clamp_max_f32", "clamp_max", "clamp_max", [xc], torch.clamp(xc, max=0.0), attrs={"max": 0.0},
          torch_expr="torch.clamp(x, max=0)")
    g.add("clamp_max_i32", "clamp_max", "clamp_max", [xi32], torch.clamp(xi32, max=3), attrs={"max": 3},
          torch_expr="torch.clamp(x, max=3)")
    g.add("clamp_max_f64", "clamp_max", "clamp_max", [xd], torch.clamp(xd, max=-0.1), attrs={"max": -0.1},
          torch_expr="torch.clamp(x, max=-0.1)")
    # matmul
    for dt in [f32, f64]:
        a, b = randn(2, 3, dtype=dt), randn(3, 4, dtype=dt)
        g.add(f"matmul_2d_{lbl(dt)}", "matmul", "matmul", [a, b], a @ b, torch_expr="a @ b")
        a, b = randn(2, 2, 3, dtype=dt), randn(2, 3, 4, dtype=dt)
        g.add(f"matmul_batched_{lbl(dt)}", "matmul", "matmul", [a, b], a @ b, torch_expr="a @ b")
        a, b = randn(2, 2, 3, dtype=dt), randn(1, 3, 4, dtype=dt)
        g.add(f"matmul_broadcast_batch_{lbl(dt)}", "matmul", "matmul", [a, b], a @ b, torch_expr="a @ b")
    a, b = randn(2, 1, 3, 5), randn(1, 3, 5, 2)
    g.add("matmul_4d_broadcast_f32", "matmul", "matmul", [a, b], a @ b, torch_expr="a @ b")
    a, b = randn(16, 33), randn(33, 9)
    g.add("matmul_larger_f32", "matmul", "matmul", [a, b], a @ b, torch_expr="a @ b", rtol=1e-4, atol=1e-4)
    a, b = randn(3, 4), randn(5, 4)
    g.add("matmul_transposed_rhs_f32", "matmul", "matmul", [a, b], a @ b.t(), pre={1: TRANS}, torch_expr="a @ b.t()")
    g.add("matmul_transposed_lhs_f32", "matmul", "matmul", [a.t().contiguous(), b.t().contiguous()], a @ b.t(),
          pre={0: TRANS}, torch_expr="a.t() @ b")
    a, b = randint(-5, 5, 2, 3), randint(-5, 5, 3, 2)
    g.add("matmul_i64", "matmul", "matmul", [a, b], a @ b, torch_expr="a @ b")
    g.add("matmul_i32", "matmul", "matmul", [a.to(i32), b.to(i32)], (a @ b).to(i32), torch_expr="a @ b")
    g.add("matmul_inner_zero_f32", "matmul", "matmul", [torch.zeros(2, 0), torch.zeros(0, 3)], torch.zeros(2, 3),
          torch_expr="zeros(2, 0) @ zeros(0, 3)")
    g.add("matmul_inner_mismatch_error", "matmul", "matmul", [randn(3, 4), randn(5, 6)], error="ShapeError",
          torch_expr="[3, 4] @ [5, 6] raises")
    g.add("matmul_dtype_mismatch_error", "matmul", "matmul", [randn(3, 4), randn(4, 2, dtype=f64)],
          error="DTypeError", torch_expr="f32 @ f64: burn refuses")
    return g


# ============================================================================ compare
def gen_compare():
    g = Group("compare")
    ops = {"equal": torch.eq, "not_equal": torch.ne, "greater": torch.gt, "greater_equal": torch.ge,
           "lower": torch.lt, "lower_equal": torch.le}
    for op, fn in ops.items():
        a = randint(-2, 3, 3, 4).to(f32) * 0.5
        b = randint(-2, 3, 3, 4).to(f32) * 0.5
        g.add(f"{op}_f32", op, "compare", [a, b], fn(a, b), attrs={"op": op}, torch_expr=f"torch.{fn.__name__}(a, b)")
        g.add(f"{op}_f64_broadcast", op, "compare", [a.to(f64), b[0].to(f64)], fn(a, b[0]), attrs={"op": op},
              torch_expr=f"torch.{fn.__name__}(a, b[4])")
        ai, bi = randint(-3, 3, 2, 3), randint(-3, 3, 2, 1)
        g.add(f"{op}_i64_broadcast", op, "compare", [ai, bi], fn(ai, bi), attrs={"op": op},
              torch_expr=f"torch.{fn.__name__}(a, b)")
        g.add(f"{op}_i32", op, "compare", [ai.to(i32), bi.expand(2, 3).to(i32).contiguous()], fn(ai, bi),
              attrs={"op": op}, torch_expr=f"torch.{fn.__name__}(a, b)")
        an, bn = t([NAN, 1.0, NAN, INF, -INF], f32), t([NAN, NAN, 1.0, INF, 0.0], f32)
        g.add(f"{op}_nan_f32", op, "compare", [an, bn], fn(an, bn), attrs={"op": op},
              torch_expr=f"torch.{fn.__name__}(a, b) with nan")
        at = randint(-2, 3, 4, 3).to(f32)
        g.add(f"{op}_transposed_f32", op, "compare", [at, a], fn(at.t(), a), attrs={"op": op}, pre={0: TRANS},
              torch_expr=f"torch.{fn.__name__}(a.t(), b)")
        g.add(f"{op}_dtype_mismatch_error", op, "compare", [a, a.to(f64)], error="DTypeError", attrs={"op": op},
              torch_expr="f32 with f64: burn refuses")
        eop = op + "_elem"
        g.add(f"{eop}_f32", eop, "compare_elem", [a], fn(a, 0.5), attrs={"op": eop, "scalar": 0.5},
              torch_expr=f"torch.{fn.__name__}(x, 0.5)")
        g.add(f"{eop}_f64_nan", eop, "compare_elem", [an.to(f64)], fn(an.to(f64), 1.0),
              attrs={"op": eop, "scalar": 1.0}, torch_expr=f"torch.{fn.__name__}(x, 1.0)")
        g.add(f"{eop}_i64", eop, "compare_elem", [ai], fn(ai, 1), attrs={"op": eop, "scalar": 1},
              torch_expr=f"torch.{fn.__name__}(x, 1)")
        g.add(f"{eop}_i32_transposed", eop, "compare_elem", [ai.to(i32)], fn(ai.t(), 0),
              attrs={"op": eop, "scalar": 0}, pre={0: TRANS}, torch_expr=f"torch.{fn.__name__}(x.t(), 0)")
        g.add(f"{eop}_f32_nan_scalar", eop, "compare_elem", [a], fn(a, NAN), attrs={"op": eop, "scalar": "nan"},
              torch_expr=f"torch.{fn.__name__}(x, nan)")
    ab, bb = randbool(2, 3), randbool(2, 3)
    g.add("equal_bool", "equal", "compare", [ab, bb], torch.eq(ab, bb), attrs={"op": "equal"}, torch_expr="a == b")
    g.add("not_equal_bool", "not_equal", "compare", [ab, bb], torch.ne(ab, bb), attrs={"op": "not_equal"},
          torch_expr="a != b")
    g.add("equal_shape_error", "equal", "compare", [randn(2, 3), randn(3, 2)], error="ShapeError",
          attrs={"op": "equal"}, torch_expr="[2, 3] == [3, 2] raises")
    return g


# ============================================================================ boolean
def gen_boolean():
    g = Group("boolean")
    a, b = randbool(3, 4), randbool(3, 4)
    g.add("bool_not", "bool_not", "unary", [a], ~a, attrs={"op": "bool_not"}, torch_expr="~x")
    g.add("bool_not_transposed", "bool_not", "unary", [a], ~a.t(), attrs={"op": "bool_not"}, pre={0: TRANS},
          torch_expr="~x.t()")
    g.add("bool_not_empty", "bool_not", "unary", [torch.zeros(0, 2, dtype=bool_)], torch.ones(0, 2, dtype=bool_),
          attrs={"op": "bool_not"}, torch_expr="~x")
    pe = [{"kind": "expand", "dims": [3, 4]}]
    r = randbool(1, 4)
    g.add("bool_not_expanded", "bool_not", "unary", [r], ~r.expand(3, 4), attrs={"op": "bool_not"}, pre={0: pe},
          torch_expr="~x.expand(3, 4)")
    for op, fn, sym in [("bool_and", torch.logical_and, "&"), ("bool_or", torch.logical_or, "|"),
                        ("bool_xor", torch.logical_xor, "^")]:
        g.add(f"{op}_same", op, "bool_binary", [a, b], fn(a, b), attrs={"op": op}, torch_expr=f"a {sym} b")
        c = randbool(4)
        g.add(f"{op}_broadcast_row", op, "bool_binary", [a, c], fn(a, c), attrs={"op": op}, torch_expr=f"a {sym} b[4]")
        d, e = randbool(3, 1), randbool(1, 4)
        g.add(f"{op}_broadcast_outer", op, "bool_binary", [d, e], fn(d, e), attrs={"op": op}, torch_expr=f"a {sym} b")
        g.add(f"{op}_transposed", op, "bool_binary", [b.t().contiguous(), a], fn(b, a), attrs={"op": op},
              pre={0: TRANS}, torch_expr=f"a.t() {sym} b")
        tt = t([True, True, False, False], bool_)
        ff = t([True, False, True, False], bool_)
        g.add(f"{op}_truth_table", op, "bool_binary", [tt, ff], fn(tt, ff), attrs={"op": op}, torch_expr=f"a {sym} b")
        g.add(f"{op}_shape_error", op, "bool_binary", [a, randbool(3)], error="ShapeError", attrs={"op": op},
              torch_expr="[3, 4] with [3] raises")
    return g


# ============================================================================ reduce
def gen_reduce():
    g = Group("reduce")
    xs = {"f32": randn(3, 4, 5), "f64": randn(3, 4, 5, dtype=f64), "i64": randint(-9, 10, 3, 4, 5),
          "i32": randint(-9, 10, 3, 4, 5, dtype=i32)}
    small = {"f32": rand(2, 3, lo=0.5, hi=1.5), "f64": rand(2, 3, lo=0.5, hi=1.5, dtype=f64),
             "i64": randint(-3, 4, 2, 3), "i32": randint(-3, 4, 2, 3, dtype=i32)}
    full = {"sum": torch.sum, "mean": torch.mean, "prod": torch.prod, "max": torch.max, "min": torch.min}
    for op, fn in full.items():
        for k, x in xs.items():
            if op == "mean" and k.startswith("i"):
                continue
            src = small[k] if op == "prod" else x
            ref = fn(src.to(f64) if op in ("sum", "prod") and k.startswith("f") else src).reshape(1).to(src.dtype)
            g.add(f"{op}_{k}", op, "reduce_all", [src], ref, attrs={"op": op}, torch_expr=f"torch.{op}(x).reshape(1)",
                  rtol=1e-4 if k == "f32" else None)
        xt = randn(3, 4)
        g.add(f"{op}_transposed_f32", op, "reduce_all", [xt], fn(xt.t()).reshape(1), attrs={"op": op}, pre={0: TRANS},
              torch_expr=f"torch.{op}(x.t()).reshape(1)", rtol=1e-4)
    g.add("sum_empty_f32", "sum", "reduce_all", [torch.zeros(0, 3)], t([0.0], f32), attrs={"op": "sum"},
          torch_expr="torch.sum(empty).reshape(1)")
    g.add("prod_empty_i64", "prod", "reduce_all", [torch.zeros(0, dtype=i64)], t([1], i64), attrs={"op": "prod"},
          torch_expr="torch.prod(empty).reshape(1)")
    xn = t([1.0, NAN, 3.0], f32)
    for op in ["sum", "max", "min", "mean"]:
        g.add(f"{op}_nan_f32", op, "reduce_all", [xn], t([NAN], f32), attrs={"op": op},
              torch_expr=f"torch.{op}(x) with nan")
    g.add("sum_large_i64", "sum", "reduce_all", [t([2**40, 2**40, -5], i64)], t([2**41 - 5], i64),
          attrs={"op": "sum"}, torch_expr="torch.sum(x)")
    # dim reductions, keepdim=True
    dims = {"sum_dim": lambda x, d: torch.sum(x, d, keepdim=True),
            "mean_dim": lambda x, d: torch.mean(x, d, keepdim=True),
            "prod_dim": lambda x, d: torch.prod(x, d, keepdim=True),
            "max_dim": lambda x, d: torch.amax(x, d, keepdim=True),
            "min_dim": lambda x, d: torch.amin(x, d, keepdim=True)}
    for op, fn in dims.items():
        for k, x in xs.items():
            if op == "mean_dim" and k.startswith("i"):
                continue
            for d in [0, 1, -1]:
                src = x[:, :, :3] if op == "prod_dim" else x
                g.add(f"{op}_{k}_dim{d if d >= 0 else 'm1'}", op, "reduce_dim", [src], fn(src, d).to(src.dtype),
                      attrs={"op": op, "dim": d}, torch_expr=f"{fn.__name__}: torch.{op[:-4]}(x, {d}, keepdim=True)")
        xt = randn(4, 3)
        g.add(f"{op}_transposed_f32", op, "reduce_dim", [xt], fn(xt.t(), 1), attrs={"op": op, "dim": 1},
              pre={0: TRANS}, torch_expr=f"torch.{op[:-4]}(x.t(), 1, keepdim=True)")
        g.add(f"{op}_dim_out_of_range_error", op, "reduce_dim", [randn(2, 3)], error="IndexError",
              attrs={"op": op, "dim": 2}, torch_expr="dim 2 of a rank-2 tensor")
        g.add(f"{op}_1d_f32", op, "reduce_dim", [xn[:1].clone() * 0 + t([2.0], f32)], fn(t([2.0], f32), 0),
              attrs={"op": op, "dim": 0}, torch_expr=f"torch.{op[:-4]}(x[1], 0, keepdim=True)")
    xe = torch.zeros(0, 3)
    g.add("sum_dim_empty_f32", "sum_dim", "reduce_dim", [xe], torch.sum(xe, 0, keepdim=True),
          attrs={"op": "sum_dim", "dim": 0}, torch_expr="torch.sum(zeros(0, 3), 0, keepdim=True)")
    g.add("prod_dim_empty_f32", "prod_dim", "reduce_dim", [xe], torch.prod(xe, 0, keepdim=True),
          attrs={"op": "prod_dim", "dim": 0}, torch_expr="torch.prod(zeros(0, 3), 0, keepdim=True)")
    g.add("sum_dim_over_nonempty_of_empty", "sum_dim", "reduce_dim", [xe], torch.sum(xe, 1, keepdim=True),
          attrs={"op": "sum_dim", "dim": 1}, torch_expr="torch.sum(zeros(0, 3), 1, keepdim=True)")
    xnn = t([[1.0, NAN, 3.0], [4.0, 5.0, 6.0]], f32)
    for op in ["max_dim", "min_dim", "sum_dim"]:
        g.add(f"{op}_nan_f32", op, "reduce_dim", [xnn], dims[op](xnn, 1), attrs={"op": op, "dim": 1},
              torch_expr=f"torch.{op[:-4]}(x, 1, keepdim=True) with nan")
    # with indices; ties pick the first index
    xtie = t([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, -1.0, -1.0], [5.0, 4.0, 5.0, 4.0]], f32)
    for op, fn, np_arg in [("max_dim_with_indices", torch.max, np.argmax), ("min_dim_with_indices", torch.min, np.argmin)]:
        for k, x in [("f32", xs["f32"]), ("f64", xs["f64"]), ("i64", xs["i64"]), ("i32", xs["i32"]), ("ties_f32", xtie)]:
            for d in ([1] if k == "ties_f32" else [0, -1]):
                v, i = fn(x, d, keepdim=True)
                first = torch.from_numpy(np.expand_dims(np_arg(x.numpy(), axis=d), d)).to(i64)
                assert torch.equal(i, first), (op, k)
                g.add(f"{op}_{k}_dim{d if d >= 0 else 'm1'}", op, "reduce_dim_with_indices", [x], [v, i],
                      attrs={"op": op, "dim": d}, torch_expr=f"torch.{fn.__name__}(x, {d}, keepdim=True)")
        xt = randn(4, 3)
        v, i = fn(xt.t(), 1, keepdim=True)
        g.add(f"{op}_transposed_f32", op, "reduce_dim_with_indices", [xt], [v, i], attrs={"op": op, "dim": 1},
              pre={0: TRANS}, torch_expr=f"torch.{fn.__name__}(x.t(), 1, keepdim=True)")
    for op, fn, np_arg in [("argmax", torch.argmax, np.argmax), ("argmin", torch.argmin, np.argmin)]:
        for k, x in [("f32", xs["f32"]), ("f64", xs["f64"]), ("i64", xs["i64"]), ("i32", xs["i32"]), ("ties_f32", xtie)]:
            for d in ([1, 0] if k == "ties_f32" else [0, 1, -1]):
                ref = torch.from_numpy(np.expand_dims(np_arg(x.numpy(), axis=d), d)).to(i64)
                assert torch.equal(ref, fn(x, d, keepdim=True)), (op, k, d)
                g.add(f"{op}_{k}_dim{d if d >= 0 else 'm1'}", op, "reduce_dim", [x], ref, attrs={"op": op, "dim": d},
                      torch_expr=f"torch.{op}(x, {d}, keepdim=True) (first index on ties)")
        g.add(f"{op}_nan_f32", op, "reduce_dim", [xnn], fn(xnn, 1, keepdim=True), attrs={"op": op, "dim": 1},
              torch_expr=f"torch.{op}(x, 1, keepdim=True): nan wins")
        xb = t([[False, True, True], [False, False, False]], bool_)
        xt = randn(4, 3)
        g.add(f"{op}_transposed_f32", op, "reduce_dim", [xt], fn(xt.t(), 1, keepdim=True), attrs={"op": op, "dim": 1},
              pre={0: TRANS}, torch_expr=f"torch.{op}(x.t(), 1, keepdim=True)")
    # any / all
    for op, fn in [("any", torch.any), ("all", torch.all)]:
        xb = randbool(3, 4)
        g.add(f"{op}_bool", op, "reduce_all", [xb], fn(xb).reshape(1), attrs={"op": op}, torch_expr=f"torch.{op}(x)")
        g.add(f"{op}_all_true", op, "reduce_all", [torch.ones(2, 2, dtype=bool_)], t([True], bool_), attrs={"op": op},
              torch_expr=f"torch.{op}(ones)")
        g.add(f"{op}_all_false", op, "reduce_all", [torch.zeros(2, 2, dtype=bool_)], t([False], bool_),
              attrs={"op": op}, torch_expr=f"torch.{op}(zeros)")
        xf = t([[0.0, 1.0, NAN], [0.0, 0.0, 2.0]], f32)
        g.add(f"{op}_f32", op, "reduce_all", [xf], fn(xf).reshape(1), attrs={"op": op}, torch_expr=f"torch.{op}(x)")
        xi = t([[0, 3], [1, 2]], i64)
        g.add(f"{op}_i64", op, "reduce_all", [xi], fn(xi).reshape(1), attrs={"op": op}, torch_expr=f"torch.{op}(x)")
        g.add(f"{op}_empty", op, "reduce_all", [torch.zeros(0, dtype=bool_)], fn(torch.zeros(0, dtype=bool_)).reshape(1),
              attrs={"op": op}, torch_expr=f"torch.{op}(empty)")
        dop = op + "_dim"
        for d in [0, 1, -1]:
            g.add(f"{dop}_bool_dim{d if d >= 0 else 'm1'}", dop, "reduce_dim", [xb], fn(xb, d, keepdim=True),
                  attrs={"op": dop, "dim": d}, torch_expr=f"torch.{op}(x, {d}, keepdim=True)")
        g.add(f"{dop}_f32", dop, "reduce_dim", [xf], fn(xf, 1, keepdim=True), attrs={"op": dop, "dim": 1},
              torch_expr=f"torch.{op}(x, 1, keepdim=True)")
        g.add(f"{dop}_i32", dop, "reduce_dim", [xi.to(i32)], fn(xi, 0, keepdim=True), attrs={"op": dop, "dim": 0},
              torch_expr=f"torch.{op}(x, 0, keepdim=True)")
        g.add(f"{dop}_transposed", dop, "reduce_dim", [xb], fn(xb.t(), 1, keepdim=True), attrs={"op": dop, "dim": 1},
              pre={0: TRANS}, torch_expr=f"torch.{op}(x.t(), 1, keepdim=True)")
    # var and var_mean
    for k in ["f32", "f64"]:
        x = xs[k]
        for d in [0, -1]:
            for c in [0, 1]:
                g.add(f"var_{k}_dim{d if d >= 0 else 'm1'}_c{c}", "var", "var", [x],
                      torch.var(x, d, correction=c, keepdim=True), attrs={"dim": d, "correction": c},
                      torch_expr=f"torch.var(x, {d}, correction={c}, keepdim=True)", rtol=1e-4 if k == "f32" else None)
        v, m = torch.var_mean(x, 1, correction=1, keepdim=True)
        g.add(f"var_mean_{k}", "var", "var_mean", [x], [v, m], attrs={"dim": 1, "correction": 1},
              torch_expr="torch.var_mean(x, 1, correction=1, keepdim=True)", rtol=1e-4 if k == "f32" else None)
    xt = randn(4, 3)
    g.add("var_transposed_f32", "var", "var", [xt], torch.var(xt.t(), 1, keepdim=True), attrs={"dim": 1, "correction": 1},
          pre={0: TRANS}, torch_expr="torch.var(x.t(), 1, keepdim=True)", rtol=1e-4)
    g.add("var_constant_f32", "var", "var", [torch.full((2, 5), 3.25)], torch.zeros(2, 1),
          attrs={"dim": 1, "correction": 1}, torch_expr="torch.var(const, 1, keepdim=True)")
    # cumulative
    cum = {"cumsum": lambda x, d: torch.cumsum(x, d), "cumprod": lambda x, d: torch.cumprod(x, d),
           "cummax": lambda x, d: torch.cummax(x, d).values, "cummin": lambda x, d: torch.cummin(x, d).values}
    for op, fn in cum.items():
        for k in ["f32", "f64", "i64", "i32"]:
            x = small[k] if op == "cumprod" else xs[k][:2, :3]
            for d in [0, 1, -1]:
                g.add(f"{op}_{k}_dim{d if d >= 0 else 'm1'}", op, "reduce_dim", [x], fn(x, d).to(x.dtype),
                      attrs={"op": op, "dim": d}, torch_expr=f"torch.{op}(x, {d})")
        xt = randn(4, 3)
        g.add(f"{op}_transposed_f32", op, "reduce_dim", [xt], fn(xt.t(), 1), attrs={"op": op, "dim": 1},
              pre={0: TRANS}, torch_expr=f"torch.{op}(x.t(), 1)")
        xn1 = t([1.0, NAN, 0.5, 3.0], f32)
        g.add(f"{op}_nan_f32", op, "reduce_dim", [xn1], fn(xn1, 0), attrs={"op": op, "dim": 0},
              torch_expr=f"torch.{op}(x, 0): nan propagates")
        g.add(f"{op}_error_dim", op, "reduce_dim", [xn1], error="IndexError", attrs={"op": op, "dim": 1},
              torch_expr="dim 1 of a rank-1 tensor")
    # sort / argsort / topk
    xu = torch.randperm(24, generator=gen).to(f32).reshape(2, 3, 4) - 12  # no ties
    for k, x in [("f32", xu), ("f64", xu.to(f64)), ("i64", xu.to(i64)), ("i32", xu.to(i32))]:
        for d in [0, -1]:
            for desc in [False, True]:
                v, i = torch.sort(x, d, descending=desc)
                nm = f"{k}_dim{d if d >= 0 else 'm1'}_{'desc' if desc else 'asc'}"
                g.add(f"sort_{nm}", "sort", "sort_with_indices", [x], [v, i],
                      attrs={"dim": d, "descending": desc, "stable": False},
                      torch_expr=f"torch.sort(x, {d}, descending={desc})")
                g.add(f"argsort_{nm}", "argsort", "argsort", [x], i, attrs={"dim": d, "descending": desc, "stable": False},
                      torch_expr=f"torch.argsort(x, {d}, descending={desc})")
    xtie = t([[3.0, 1.0, 3.0, 2.0, 1.0, 3.0], [0.0, 0.0, 0.0, -1.0, 5.0, -1.0]], f32)
    for desc in [False, True]:
        v, i = torch.sort(xtie, dim=1, descending=desc, stable=True)
        g.add(f"sort_stable_ties_{'desc' if desc else 'asc'}", "sort", "sort_with_indices", [xtie], [v, i],
              attrs={"dim": 1, "descending": desc, "stable": True},
              torch_expr=f"torch.sort(x, 1, descending={desc}, stable=True)")
        g.add(f"argsort_stable_ties_{'desc' if desc else 'asc'}", "argsort", "argsort", [xtie.to(i64)], i,
              attrs={"dim": 1, "descending": desc, "stable": True},
              torch_expr=f"torch.argsort(x, 1, descending={desc}, stable=True)")
    xsn = t([2.0, NAN, -1.0, INF, -INF, 0.5], f32)
    for desc in [False, True]:
        v, i = torch.sort(xsn, dim=0, descending=desc, stable=True)
        g.add(f"sort_nan_{'desc' if desc else 'asc'}", "sort", "sort_with_indices", [xsn], [v, i],
              attrs={"dim": 0, "descending": desc, "stable": True}, torch_expr=f"torch.sort(x, descending={desc}): nan largest")
    xbt = t([True, False, True, False], bool_)
    xst = randn(4, 3)
    v, i = torch.sort(xst.t(), 1)
    g.add("sort_transposed_f32", "sort", "sort_with_indices", [xst], [v, i],
          attrs={"dim": 1, "descending": False, "stable": False}, pre={0: TRANS}, torch_expr="torch.sort(x.t(), 1)")
    g.add("argsort_transposed_f32", "argsort", "argsort", [xst], i,
          attrs={"dim": 1, "descending": False, "stable": False}, pre={0: TRANS}, torch_expr="torch.argsort(x.t(), 1)")
    g.add("sort_empty_f32", "sort", "sort_with_indices", [torch.zeros(0)], [torch.zeros(0), torch.zeros(0, dtype=i64)],
          attrs={"dim": 0, "descending": False, "stable": False}, torch_expr="torch.sort(empty)")
    for k, x in [("f32", xu), ("i64", xu.to(i64)), ("f64", xu.to(f64))]:
        for kk, d, largest in [(2, -1, True), (3, 1, False), (1, 0, True), (4, -1, False)]:
            v, i = torch.topk(x, kk, d, largest=largest)
            g.add(f"topk_{k}_k{kk}_dim{d if d >= 0 else 'm1'}_{'largest' if largest else 'smallest'}", "topk",
                  "topk_with_indices", [x], [v, i], attrs={"k": kk, "dim": d, "largest": largest},
                  torch_expr=f"torch.topk(x, {kk}, {d}, largest={largest})")
    v, i = torch.topk(xst.t(), 2, 1)
    g.add("topk_transposed_f32", "topk", "topk_with_indices", [xst], [v, i], attrs={"k": 2, "dim": 1, "largest": True},
          pre={0: TRANS}, torch_expr="torch.topk(x.t(), 2, 1)")
    return g


# ============================================================================ float_math
def gen_float_math():
    g = Group("float_math")
    special = [0.0, -0.0, NAN, INF, -INF]
    domains = {
        "exp": (-5, 5, [88.0, -104.0, 0.0, NAN, INF, -INF]), "log": (0.01, 10, [0.0, -1.0, INF, NAN, 1.0]),
        "log1p": (-0.9, 5, [-1.0, -2.0, 1e-10, INF, NAN]), "sqrt": (0, 10, [0.0, -1.0, INF, NAN, 4.0]),
        "sin": (-6, 6, [0.0, NAN, INF, 1e4]), "cos": (-6, 6, [0.0, NAN, INF, 1e4]), "tan": (-1.4, 1.4, [0.0, NAN, INF]),
        "sinh": (-5, 5, [0.0, NAN, INF, -INF]), "cosh": (-5, 5, [0.0, NAN, INF, -INF]),
        "tanh": (-5, 5, [0.0, NAN, INF, -INF, 50.0, -50.0]), "asin": (-1, 1, [1.0, -1.0, 1.5, NAN]),
        "acos": (-1, 1, [1.0, -1.0, -1.5, NAN]), "atan": (-10, 10, [INF, -INF, NAN, 0.0]),
        "erf": (-3, 3, [INF, -INF, NAN, 0.0, 10.0]),
        "round": (-5, 5, [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, NAN, INF]),
        "floor": (-5, 5, [-0.5, 0.5, -1.0, NAN, INF, -INF]), "ceil": (-5, 5, [-0.5, 0.5, 1.0, NAN, INF, -INF]),
        "trunc": (-5, 5, [-0.5, 0.5, -1.7, 1.7, NAN, INF]), "recip": (0.1, 5, [0.0, -0.0, INF, NAN, -2.0]),
        "square": (-5, 5, [NAN, INF, -INF, -3.0]), "is_nan": (-5, 5, special + [1.0]),
        "is_inf": (-5, 5, special + [1.0]), "is_finite": (-5, 5, special + [1.0]),
    }
    ref = {"recip": torch.reciprocal, "square": torch.square, "is_nan": torch.isnan, "is_inf": torch.isinf,
           "is_finite": torch.isfinite}
    for op, (lo, hi, edges) in domains.items():
        fn = ref.get(op) or getattr(torch, op)
        tname = fn.__name__
        for dt in [f32, f64]:
            x = rand(3, 4, lo=lo, hi=hi, dtype=dt)
            if op == "recip":
                x = x * torch.where(randbool(3, 4), 1.0, -1.0).to(dt)
            g.add(f"{op}_{lbl(dt)}", op, "unary", [x], fn(x), attrs={"op": op}, torch_expr=f"torch.{tname}(x)")
            e = t(edges, dt)
            g.add(f"{op}_edges_{lbl(dt)}", op, "unary", [e], fn(e), attrs={"op": op}, torch_expr=f"torch.{tname}(x)")
        x = rand(4, 3, lo=lo, hi=hi)
        g.add(f"{op}_transposed_f32", op, "unary", [x], fn(x.t()), attrs={"op": op}, pre={0: TRANS},
              torch_expr=f"torch.{tname}(x.t())")
        x = rand(1, 3, lo=lo, hi=hi, dtype=f64)
        pe = [{"kind": "expand", "dims": [2, 3]}]
        g.add(f"{op}_expanded_f64", op, "unary", [x], fn(x.expand(2, 3)), attrs={"op": op}, pre={0: pe},
              torch_expr=f"torch.{tname}(x.expand(2, 3))")
        g.add(f"{op}_empty_f32", op, "unary", [torch.zeros(0, 2)], fn(torch.zeros(0, 2)), attrs={"op": op},
              torch_expr=f"torch.{tname}(empty)")
    # exp of a large f32 overflows to inf as torch does
    for dt in [f32, f64]:
        a, b = randn(3, 4, dtype=dt), randn(3, 4, dtype=dt)
        g.add(f"atan2_{lbl(dt)}", "atan2", "atan2", [a, b], torch.atan2(a, b), torch_expr="torch.atan2(a, b)")
        g.add(f"atan2_broadcast_{lbl(dt)}", "atan2", "atan2", [a, b[0]], torch.atan2(a, b[0]),
              torch_expr="torch.atan2(a, b[4])")
    a = t([0.0, -0.0, 1.0, -1.0, 0.0, NAN, INF, INF], f32)
    b = t([0.0, -1.0, 0.0, 0.0, -1.0, 1.0, INF, -INF], f32)
    g.add("atan2_edges_f32", "atan2", "atan2", [a, b], torch.atan2(a, b), torch_expr="torch.atan2(a, b)")
    a, b = randn(4, 3), randn(3, 4)
    g.add("atan2_transposed_f32", "atan2", "atan2", [a, b], torch.atan2(a.t(), b), pre={0: TRANS},
          torch_expr="torch.atan2(a.t(), b)")
    g.add("atan2_dtype_mismatch_error", "atan2", "atan2", [randn(2), randn(2, dtype=f64)], error="DTypeError",
          torch_expr="f32 with f64: burn refuses")
    return g


# ============================================================================ activation
def gen_activation():
    g = Group("activation")
    unary = {"relu": F.relu, "gelu": F.gelu, "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
             "sigmoid": torch.sigmoid, "log_sigmoid": F.logsigmoid, "silu": F.silu, "mish": F.mish, "selu": F.selu}
    texpr = {"gelu_tanh": "F.gelu(x, approximate='tanh')", "sigmoid": "torch.sigmoid(x)", "log_sigmoid": "F.logsigmoid(x)"}
    big = [-1000.0, -100.0, -20.0, 0.0, 20.0, 100.0, 1000.0]
    for op, fn in unary.items():
        expr = texpr.get(op, f"F.{op}(x)")
        for dt in [f32, f64]:
            x = randn(3, 4, dtype=dt, scale=3.0)
            g.add(f"{op}_{lbl(dt)}", op, "unary", [x], fn(x), attrs={"op": op}, torch_expr=expr)
            xb = t(big + [NAN], dt)
            g.add(f"{op}_large_{lbl(dt)}", op, "unary", [xb], fn(xb), attrs={"op": op}, torch_expr=expr + " (large |x|)")
        x = randn(4, 3)
        g.add(f"{op}_transposed_f32", op, "unary", [x], fn(x.t()), attrs={"op": op}, pre={0: TRANS},
              torch_expr=expr.replace("(x", "(x.t()"))
    for dt in [f32, f64]:
        x = randn(3, 4, dtype=dt, scale=3.0)
        for s in [0.01, 0.2]:
            g.add(f"leaky_relu_{str(s).replace('.', 'p')}_{lbl(dt)}", "leaky_relu", "leaky_relu", [x],
                  F.leaky_relu(x, s), attrs={"negative_slope": s}, torch_expr=f"F.leaky_relu(x, {s})")
        xs = t([-30.0, -5.0, -1.0, 0.0, 1.0, 5.0, 9.0, 11.0, 19.9, 20.1, 30.0, 100.0, NAN], dt)
        for beta, thr in [(1.0, 20.0), (2.0, 20.0), (0.5, 5.0), (1.0, 10.0)]:
            g.add(f"softplus_b{str(beta).replace('.', 'p')}_t{int(thr)}_{lbl(dt)}", "softplus", "softplus", [xs],
                  F.softplus(xs, beta, thr), attrs={"beta": beta, "threshold": thr},
                  torch_expr=f"F.softplus(x, beta={beta}, threshold={thr})")
        xh = t([-10.0, -3.0, -1.0, 0.0, 1.0, 2.9, 3.0, 10.0], dt)
        for alpha, beta in [(1.0 / 6.0, 0.5), (0.2, 0.5)]:
            g.add(f"hard_sigmoid_a{str(round(alpha, 3)).replace('.', 'p')}_{lbl(dt)}", "hard_sigmoid", "hard_sigmoid",
                  [xh], torch.clamp(alpha * xh + beta, 0.0, 1.0), attrs={"alpha": alpha, "beta": beta},
                  torch_expr=f"torch.clamp({alpha} * x + {beta}, 0, 1)")
        for alpha in [1.0, 0.5]:
            g.add(f"elu_a{str(alpha).replace('.', 'p')}_{lbl(dt)}", "elu", "elu", [x], F.elu(x, alpha),
                  attrs={"alpha": alpha}, torch_expr=f"F.elu(x, {alpha})")
        x3 = randn(2, 3, 4, dtype=dt, scale=2.0)
        for d in [0, 1, -1]:
            dn = f"dim{d}" if d >= 0 else "dimm1"
            g.add(f"softmax_{dn}_{lbl(dt)}", "softmax", "softmax", [x3], F.softmax(x3, d), attrs={"dim": d},
                  torch_expr=f"F.softmax(x, {d})")
            g.add(f"log_softmax_{dn}_{lbl(dt)}", "log_softmax", "log_softmax", [x3], F.log_softmax(x3, d),
                  attrs={"dim": d}, torch_expr=f"F.log_softmax(x, {d})")
            g.add(f"softmin_{dn}_{lbl(dt)}", "api:softmin", "softmin", [x3], F.softmin(x3, d), attrs={"dim": d},
                  torch_expr=f"F.softmin(x, {d})")
        xl = t([[1000.0, 1001.0, 999.0], [-1000.0, -1001.0, -1002.0], [0.0, 0.0, 0.0]], dt)
        g.add(f"softmax_large_{lbl(dt)}", "softmax", "softmax", [xl], F.softmax(xl, 1), attrs={"dim": 1},
              torch_expr="F.softmax(x, 1) with |x| ~ 1000")
        g.add(f"log_softmax_large_{lbl(dt)}", "log_softmax", "log_softmax", [xl], F.log_softmax(xl, 1), attrs={"dim": 1},
              torch_expr="F.log_softmax(x, 1) with |x| ~ 1000")
        g.add(f"log_softmax_large_dim0_{lbl(dt)}", "log_softmax", "log_softmax", [xl.t().contiguous()],
              F.log_softmax(xl.t(), 0), attrs={"dim": 0}, torch_expr="F.log_softmax(x, 0) with |x| ~ 1000")
        xl2 = t([[100.0, 0.0, -100.0]], dt)
        g.add(f"log_softmax_tiny_prob_{lbl(dt)}", "log_softmax", "log_softmax", [xl2], F.log_softmax(xl2, 1),
              attrs={"dim": 1}, torch_expr="F.log_softmax(x, 1): tiny probabilities stay finite")
    x = randn(4, 3)
    g.add("softmax_transposed_f32", "softmax", "softmax", [x], F.softmax(x.t(), 1), attrs={"dim": 1}, pre={0: TRANS},
          torch_expr="F.softmax(x.t(), 1)")
    g.add("log_softmax_transposed_f32", "log_softmax", "log_softmax", [x], F.log_softmax(x.t(), 0), attrs={"dim": 0},
          pre={0: TRANS}, torch_expr="F.log_softmax(x.t(), 0)")
    g.add("softmax_dim_error", "softmax", "softmax", [x], error="IndexError", attrs={"dim": 2},
          torch_expr="dim 2 of a rank-2 tensor")
    g.add("leaky_relu_transposed_f32", "leaky_relu", "leaky_relu", [x], F.leaky_relu(x.t(), 0.1),
          attrs={"negative_slope": 0.1}, pre={0: TRANS}, torch_expr="F.leaky_relu(x.t(), 0.1)")
    g.add("elu_transposed_f32", "elu", "elu", [x], F.elu(x.t()), attrs={"alpha": 1.0}, pre={0: TRANS},
          torch_expr="F.elu(x.t())")
    g.add("softplus_transposed_f32", "softplus", "softplus", [x], F.softplus(x.t()), attrs={"beta": 1.0, "threshold": 20.0},
          pre={0: TRANS}, torch_expr="F.softplus(x.t())")
    g.add("hard_sigmoid_transposed_f32", "hard_sigmoid", "hard_sigmoid", [x * 4], torch.clamp((x * 4).t() / 6 + 0.5, 0, 1),
          attrs={"alpha": 1.0 / 6.0, "beta": 0.5}, pre={0: TRANS}, torch_expr="F.hardsigmoid(x.t())")
    return g


# ============================================================================ large (SIMD and threaded paths)
def add_large(groups):
    num, fm, act, red, cmp_ = groups["numeric"], groups["float_math"], groups["activation"], groups["reduce"], groups["compare"]
    a = Gen([300, 257], f32, 0.004)
    b = Gen([257], f32, 0.003)
    num.add("add_large_broadcast_f32", "add", "add", [a, b], sampled(a.tensor + b.tensor), torch_expr="a + b, 77k elements")
    num.add("mul_large_f64", "mul", "mul", [Gen([70001], f64, 0.01), Gen([70001], f64, 0.002)],
            sampled(Gen([70001], f64, 0.01).tensor * Gen([70001], f64, 0.002).tensor), torch_expr="a * b, 70k elements")
    ai = Gen([70001], i64, 1)
    bi = Gen([70001], i64, 2, offset=1)  # odd numbers: no zero divisor
    num.add("div_large_i64", "div", "div", [ai, bi], sampled(torch.div(ai.tensor, bi.tensor, rounding_mode="trunc")),
            torch_expr="torch.div(a, b, rounding_mode='trunc'), 70k elements")
    num.add("mul_scalar_large_i32", "mul_scalar", "mul_scalar", [Gen([70001], i32, 1)],
            sampled(Gen([70001], i32, 1).tensor * 3), attrs={"scalar": 3}, torch_expr="x * 3, 70k elements")
    num.add("clamp_large_f32", "clamp", "clamp", [a], sampled(torch.clamp(a.tensor, -0.5, 0.7)),
            attrs={"min": -0.5, "max": 0.7}, torch_expr="torch.clamp(x, -0.5, 0.7), 77k elements")
    m1, m2 = Gen([96, 130], f32, 0.003), Gen([130, 75], f32, 0.002)
    num.add("matmul_large_f32", "matmul", "matmul", [m1, m2], sampled((m1.tensor.double() @ m2.tensor.double()).float()),
            rtol=1e-4, atol=1e-4, torch_expr="a @ b, 96x130 @ 130x75")
    for op in ["exp", "tanh", "erf", "sin", "floor"]:
        x = Gen([300, 257], f32, 0.002)
        fm.add(f"{op}_large_f32", op, "unary", [x], sampled(getattr(torch, op)(x.tensor)), attrs={"op": op},
               torch_expr=f"torch.{op}(x), 77k elements")
    for op in ["log", "sqrt"]:
        x = Gen([300, 257], f32, 0.002, offset=2.5)
        fm.add(f"{op}_large_f32", op, "unary", [x], sampled(getattr(torch, op)(x.tensor)), attrs={"op": op},
               torch_expr=f"torch.{op}(x), x in [0.5, 4.5], 77k elements")
    for op, fn in [("sigmoid", torch.sigmoid), ("silu", F.silu), ("mish", F.mish),
                   ("gelu_tanh", lambda v: F.gelu(v, approximate="tanh")), ("gelu", F.gelu), ("relu", F.relu)]:
        x = Gen([300, 257], f32, 0.01)
        act.add(f"{op}_large_tensor_f32", op, "unary", [x], sampled(fn(x.tensor)), attrs={"op": op},
                torch_expr=f"{op}(x), 77k elements")
    for dt in [f32, f64]:
        x = Gen([70, 1001], dt, 0.01)
        act.add(f"softmax_rows_large_{lbl(dt)}", "softmax", "softmax", [x], sampled(F.softmax(x.tensor, 1)),
                attrs={"dim": 1}, torch_expr="F.softmax(x, 1), rows of 1001")
        act.add(f"log_softmax_cols_large_{lbl(dt)}", "log_softmax", "log_softmax", [x], sampled(F.log_softmax(x.tensor, 0)),
                attrs={"dim": 0}, torch_expr="F.log_softmax(x, 0), 1001 columns")
        red.add(f"sum_large_{lbl(dt)}", "sum", "reduce_all", [Gen([70001], dt, 0.01)],
                torch.sum(Gen([70001], f64, 0.01).tensor).reshape(1).to(dt), attrs={"op": "sum"},
                torch_expr="torch.sum(x), 70k elements", rtol=1e-4 if dt == f32 else 1e-10, atol=1e-3 if dt == f32 else 1e-9)
    x = Gen([300, 257], f32, 0.01)
    xd = x.tensor.double()
    for op, fn in [("sum_dim", lambda v, d: v.sum(d, keepdim=True)), ("max_dim", lambda v, d: v.amax(d, keepdim=True)),
                   ("mean_dim", lambda v, d: v.mean(d, keepdim=True))]:
        for d in [0, 1]:
            red.add(f"{op}_large_dim{d}_f32", op, "reduce_dim", [x], fn(xd, d).float(), attrs={"op": op, "dim": d},
                    torch_expr=f"torch.{op[:-4]}(x, {d}, keepdim=True), [300, 257]", rtol=1e-4, atol=1e-4)
    for d in [0, 1]:
        red.add(f"argmax_large_dim{d}_f32", "argmax", "reduce_dim", [x],
                torch.from_numpy(np.expand_dims(np.argmax(x.tensor.numpy(), axis=d), d)).to(i64),
                attrs={"op": "argmax", "dim": d}, torch_expr=f"torch.argmax(x, {d}, keepdim=True) (first on ties)")
    xi = Gen([300, 257], i64, 1)
    red.add("sum_dim_large_i64", "sum_dim", "reduce_dim", [xi], xi.tensor.sum(0, keepdim=True), attrs={"op": "sum_dim", "dim": 0},
            torch_expr="torch.sum(x, 0, keepdim=True)")
    red.add("cumsum_large_i64", "cumsum", "reduce_dim", [Gen([70001], i64, 1)],
            sampled(torch.cumsum(Gen([70001], i64, 1).tensor, 0)), attrs={"op": "cumsum", "dim": 0},
            torch_expr="torch.cumsum(x, 0), 70k elements")
    xs = Gen([5003], f32, 0.01)
    v, i = torch.sort(xs.tensor, stable=True)
    red.add("sort_large_stable_f32", "sort", "sort_with_indices", [xs], [sampled(v), sampled(i)],
            attrs={"dim": 0, "descending": False, "stable": True}, torch_expr="torch.sort(x, stable=True), 5003 elements")
    cmp_.add("greater_large_broadcast_f32", "greater", "compare", [a, b], sampled(a.tensor > b.tensor), attrs={"op": "greater"},
             torch_expr="a > b, 77k elements")


def main():
    groups = [gen_creation(), gen_layout(), gen_indexing(), gen_numeric(), gen_compare(), gen_boolean(),
              gen_reduce(), gen_float_math(), gen_activation()]
    add_large({g.name: g for g in groups})
    for g in groups:
        g.write()


if __name__ == "__main__":
    sys.exit(main())
