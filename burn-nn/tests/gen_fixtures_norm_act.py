#!/usr/bin/python3
"""PyTorch values for burn-nn's norm, activation, resample and distance layer tests
(norm_act_test.cpp): forward and backward of each layer on fixed inputs, parameters under Burn's
names (gamma/beta for norms, alpha for PRelu). Run with Debian's /usr/bin/python3 (torch); writes
fixtures/norm_act.json. A case holds x (and x2 for two-input layers), y, grad_out (the weights of
sum(y * grad_out)), grad_x, and params/grads keyed by parameter path."""
import json, math, os
import torch
import torch.nn.functional as F

torch.manual_seed(20261127)
torch.set_default_dtype(torch.float64)
out = {}

def t(x):
    return {"shape": list(x.shape), "values": x.detach().double().flatten().tolist()}

def case(name, fn, x, params=None, x2=None):
    params = params or {}
    x = x.clone().requires_grad_(True)
    if x2 is not None:
        x2 = x2.clone().requires_grad_(True)
    for p in params.values():
        p.requires_grad_(True)
    y = fn(x, x2, **params) if x2 is not None else fn(x, **params)
    g = torch.randn_like(y)
    (y * g).sum().backward()
    c = {"x": t(x), "y": t(y), "grad_out": t(g), "grad_x": t(x.grad)}
    if x2 is not None:
        c["x2"] = t(x2)
        c["grad_x2"] = t(x2.grad)
    if params:
        c["params"] = {k: t(v) for k, v in params.items()}
        c["grads"] = {k: t(v.grad) for k, v in params.items()}
    out[name] = c

def affine(c):
    return {"gamma": 1 + 0.3 * torch.randn(c), "beta": 0.3 * torch.randn(c)}

# --- batch norm: a training step (batch statistics) with gradients, the running statistics after
# three training steps, and the eval output with them.
def batch_norm_case(name, shape, momentum, eps):
    c = shape[1]
    p = affine(c)
    steps = [torch.randn(*shape) * 2 + 0.5 for _ in range(3)]
    rm, rv = torch.zeros(c), torch.ones(c)
    x = steps[0].clone().requires_grad_(True)
    gamma, beta = p["gamma"].clone().requires_grad_(True), p["beta"].clone().requires_grad_(True)
    y = F.batch_norm(x, rm, rv, gamma, beta, training=True, momentum=momentum, eps=eps)
    g = torch.randn_like(y)
    (y * g).sum().backward()
    for s in steps[1:]:
        F.batch_norm(s, rm, rv, p["gamma"], p["beta"], training=True, momentum=momentum, eps=eps)
    x_eval = torch.randn(*shape)
    y_eval = F.batch_norm(x_eval, rm, rv, p["gamma"], p["beta"], training=False, eps=eps)
    out[name] = {"params": {k: t(v) for k, v in p.items()}, "steps": [t(s) for s in steps], "y": t(y),
                 "grad_out": t(g), "grad_x": t(x.grad), "grads": {"gamma": t(gamma.grad), "beta": t(beta.grad)},
                 "running_mean": t(rm), "running_var": t(rv), "x_eval": t(x_eval), "y_eval": t(y_eval)}

batch_norm_case("batch_norm_0d", [6, 4], 0.1, 1e-5)
batch_norm_case("batch_norm_1d", [4, 3, 7], 0.3, 1e-3)
batch_norm_case("batch_norm_2d", [3, 3, 4, 5], 0.1, 1e-5)
batch_norm_case("batch_norm_3d", [2, 2, 3, 4, 3], 0.1, 1e-5)

# --- layer, group, instance, rms, local response norms
case("layer_norm", lambda x, gamma, beta: F.layer_norm(x, (6,), gamma, beta, 1e-5), torch.randn(2, 3, 6), affine(6))
case("layer_norm_nobias", lambda x, gamma: F.layer_norm(x, (5,), gamma, None, 1e-3), torch.randn(4, 5),
     {"gamma": 1 + 0.3 * torch.randn(5)})
case("group_norm", lambda x, gamma, beta: F.group_norm(x, 3, gamma, beta, 1e-5), torch.randn(2, 6, 4, 3), affine(6))
case("group_norm_noaffine", lambda x: F.group_norm(x, 2, None, None, 1e-5), torch.randn(3, 4, 5))
case("instance_norm", lambda x, gamma, beta: F.instance_norm(x, weight=gamma, bias=beta, eps=1e-5),
     torch.randn(2, 3, 5, 4), affine(3))
case("instance_norm_noaffine", lambda x: F.instance_norm(x, eps=1e-5), torch.randn(2, 3, 6))
case("rms_norm", lambda x, gamma: x / torch.sqrt((x * x).mean(-1, keepdim=True) + 1e-5) * gamma,
     torch.randn(2, 3, 8), {"gamma": 1 + 0.3 * torch.randn(8)})
case("local_response_norm", lambda x: F.local_response_norm(x, 3, alpha=1e-2, beta=0.75, k=2.0),
     torch.randn(2, 7, 4, 3) * 3)
case("local_response_norm_1d_even", lambda x: F.local_response_norm(x, 4, alpha=0.5, beta=0.6, k=1.0),
     torch.randn(2, 6, 5))

# --- activations, on one input spanning the kinks
xa = torch.randn(3, 4, 5) * 2
acts = {
    "relu": F.relu, "sigmoid": torch.sigmoid, "tanh": torch.tanh, "silu": F.silu, "mish": F.mish,
    "selu": F.selu, "softsign": F.softsign, "hard_swish": F.hardswish, "tanhshrink": F.tanhshrink,
    "relu6": lambda x: F.relu6(x * 2),  # scaled in the test too, to reach 6
    "leaky_relu": lambda x: F.leaky_relu(x, 0.2), "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"), "elu": lambda x: F.elu(x, 1.5),
    "celu": lambda x: F.celu(x, 0.7), "softplus": lambda x: F.softplus(x, beta=2.0, threshold=3.0),
    "hard_sigmoid_pytorch": F.hardsigmoid,
    "hard_sigmoid_burn": lambda x: torch.clamp(0.2 * x + 0.5, 0, 1),  # Burn's defaults (ONNX's)
    "hardtanh": lambda x: F.hardtanh(x, -0.5, 1.5), "threshold": lambda x: F.threshold(x, 0.1, -2.0),
    "hard_shrink": lambda x: F.hardshrink(x, 0.7), "soft_shrink": lambda x: F.softshrink(x, 0.4),
    "softmax": lambda x: F.softmax(x, 1), "log_softmax": lambda x: F.log_softmax(x, -1),
    "glu": lambda x: F.glu(x, 1), "log_sigmoid": F.logsigmoid,
    "thresholded_relu": lambda x: F.threshold(x, 1.0, 0.0),
}
for name, fn in acts.items():
    case(name, fn, xa)
case("prelu_channels", lambda x, alpha: F.prelu(x, alpha), xa, {"alpha": 0.25 + 0.2 * torch.randn(4)})
case("prelu_single", lambda x, alpha: F.prelu(x, alpha), torch.randn(2, 3, 4, 5), {"alpha": torch.tensor([0.3])})

# SwiGlu: silu(x W1) * (x W2); Burn's Linear weight is [d_input, d_output] (PyTorch's transposed).
case("swiglu", lambda x, inner, outer: F.silu(x @ inner) * (x @ outer), torch.randn(2, 3, 6),
     {"inner": torch.randn(6, 4) * 0.4, "outer": torch.randn(6, 4) * 0.4})
out["swiglu"]["params"] = {"linear_inner.weight": out["swiglu"]["params"].pop("inner"),
                           "linear_outer.weight": out["swiglu"]["params"].pop("outer")}
out["swiglu"]["grads"] = {"linear_inner.weight": out["swiglu"]["grads"].pop("inner"),
                          "linear_outer.weight": out["swiglu"]["grads"].pop("outer")}

# --- interpolation: a scale factor gives the size floor(size * scale) (Burn), then PyTorch resizes to it
case("interpolate1d_nearest", lambda x: F.interpolate(x, size=7, mode="nearest"), torch.randn(2, 3, 5))
case("interpolate1d_linear_scale", lambda x: F.interpolate(x, size=7, mode="linear", align_corners=False),
     torch.randn(2, 3, 5))
case("interpolate2d_nearest", lambda x: F.interpolate(x, size=(5, 7), mode="nearest"), torch.randn(2, 3, 4, 5))
case("interpolate2d_bilinear_scale",
     lambda x: F.interpolate(x, size=(6, 3), mode="bilinear", align_corners=False), torch.randn(2, 3, 4, 5))
case("interpolate2d_bicubic_corners",
     lambda x: F.interpolate(x, size=(7, 6), mode="bicubic", align_corners=True), torch.randn(1, 2, 4, 5))

# --- distances
case("cosine_similarity", lambda x, x2: F.cosine_similarity(x, x2, 1, 1e-8), torch.randn(3, 5, 4),
     x2=torch.randn(3, 5, 4))
case("pairwise_distance", lambda x, x2: F.pairwise_distance(x, x2, 2.0, 1e-6), torch.randn(4, 6),
     x2=torch.randn(4, 6))
case("pairwise_distance_p1", lambda x, x2: F.pairwise_distance(x, x2, 1.0, 1e-6), torch.randn(2, 3, 5),
     x2=torch.randn(2, 3, 5))

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "fixtures", "norm_act.json"), "w") as f:
    json.dump(out, f)
