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

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "fixtures", "norm_act.json"), "w") as f:
    json.dump(out, f)
