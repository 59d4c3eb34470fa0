#!/usr/bin/python3
"""PyTorch values for burn-nn's layer tests: forward and backward of each layer on fixed inputs.
Run with Debian's /usr/bin/python3 (torch); writes fixtures/layers.json. Burn's Linear stores its
weight as [d_input, d_output], PyTorch's as [d_output, d_input]: the fixture holds Burn's layout."""
import json, os
import torch

torch.manual_seed(20261125)
out = {}

def t(x):
    return {"shape": list(x.shape), "values": x.detach().double().flatten().tolist()}

def linear_case(name, lead, d_in, d_out, bias):
    lin = torch.nn.Linear(d_in, d_out, bias=bias).double()
    x = torch.randn(*lead, d_in, dtype=torch.float64, requires_grad=True)
    y = lin(x)
    g = torch.randn_like(y)
    (y * g).sum().backward()
    case = {"weight": t(lin.weight.T), "x": t(x), "y": t(y), "grad_out": t(g),
            "grad_x": t(x.grad), "grad_weight": t(lin.weight.grad.T)}
    if bias:
        case["bias"] = t(lin.bias)
        case["grad_bias"] = t(lin.bias.grad)
    out[name] = case

linear_case("linear_2d", [5], 4, 3, True)
linear_case("linear_3d", [2, 3], 4, 6, True)
linear_case("linear_1d_nobias", [], 7, 2, False)

emb = torch.nn.Embedding(10, 4).double()
idx = torch.tensor([[1, 3, 3], [9, 0, 2]])
y = emb(idx)
g = torch.randn_like(y)
(y * g).sum().backward()
out["embedding"] = {"weight": t(emb.weight), "indices": {"shape": [2, 3], "values": idx.flatten().tolist()},
                    "y": t(y), "grad_out": t(g), "grad_weight": t(emb.weight.grad)}

# PositionWiseFeedForward: Linear(d_model, d_ff) -> GELU -> Linear(d_ff, d_model), params in Burn's layout.
inner, outer = torch.nn.Linear(6, 10).double(), torch.nn.Linear(10, 6).double()
x = torch.randn(2, 3, 6, dtype=torch.float64, requires_grad=True)
y = outer(torch.nn.functional.gelu(inner(x)))
g = torch.randn_like(y)
(y * g).sum().backward()
out["feed_forward"] = {"params": {"linear_inner.weight": t(inner.weight.T), "linear_inner.bias": t(inner.bias),
                                  "linear_outer.weight": t(outer.weight.T), "linear_outer.bias": t(outer.bias)},
                       "x": t(x), "y": t(y), "grad_out": t(g), "grad_x": t(x.grad)}

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "fixtures", "layers.json"), "w") as f:
    json.dump(out, f)
