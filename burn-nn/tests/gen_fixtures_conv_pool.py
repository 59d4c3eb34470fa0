#!/usr/bin/python3
"""PyTorch values for burn-nn's conv and pool layer tests (conv_pool_test.cpp): forward and backward
of each layer on fixed inputs, with its parameters under Burn's names. Run with Debian's
/usr/bin/python3 (torch); writes fixtures/conv_pool.json. Each case holds x, y, grad_out (the
weights of sum(y * grad_out)), grad_x, and params/grads keyed by parameter path."""
import json, math, os
import torch
import torch.nn.functional as F

torch.manual_seed(20261126)
torch.set_default_dtype(torch.float64)
out = {}

def t(x):
    return {"shape": list(x.shape), "values": x.detach().double().flatten().tolist()}

def case(name, fn, x, params=None):
    params = params or {}
    x = x.clone().requires_grad_(True)
    for p in params.values():
        p.requires_grad_(True)
    y = fn(x, **params)
    g = torch.randn_like(y)
    (y * g).sum().backward()
    c = {"x": t(x), "y": t(y), "grad_out": t(g), "grad_x": t(x.grad)}
    if params:
        c["params"] = {k: t(v) for k, v in params.items()}
        c["grads"] = {k: t(v.grad) for k, v in params.items()}
    out[name] = c

def same_pad(size, k, s, d):
    """TensorFlow's SAME: (before, after) for ceil(size / s) outputs, the odd one after (Burn's)."""
    o = (size + s - 1) // s
    total = max((o - 1) * s + d * (k - 1) + 1 - size, 0)
    return total // 2, total - total // 2

def conv_params(c_out, c_in_per_group, kernel, bias):
    p = {"weight": torch.randn(c_out, c_in_per_group, *kernel) * 0.5}
    if bias:
        p["bias"] = torch.randn(c_out) * 0.5
    return p

# --- convolutions
case("conv1d", lambda x, weight, bias: F.conv1d(x, weight, bias, stride=2, padding=1, groups=2),
     torch.randn(2, 4, 9), conv_params(6, 2, [3], True))
case("conv1d_same", lambda x, weight: F.conv1d(x, weight, None, padding="same", dilation=2),
     torch.randn(2, 3, 8), conv_params(2, 3, [4], False))
case("conv2d", lambda x, weight, bias: F.conv2d(x, weight, bias, stride=(2, 1), padding=(1, 0), dilation=(1, 2)),
     torch.randn(2, 3, 7, 6), conv_params(4, 3, [3, 2], True))

def conv2d_same_s2(x, weight, bias):
    ph, pw = same_pad(x.shape[2], 3, 2, 1), same_pad(x.shape[3], 3, 2, 1)
    return F.conv2d(F.pad(x, [pw[0], pw[1], ph[0], ph[1]]), weight, bias, stride=2)
case("conv2d_same_stride2", conv2d_same_s2, torch.randn(1, 2, 7, 8), conv_params(3, 2, [3, 3], True))
case("conv2d_depthwise_same", lambda x, weight, bias: F.conv2d(x, weight, bias, padding="same", groups=4),
     torch.randn(2, 4, 5, 5), conv_params(8, 1, [3, 3], True))
case("conv3d", lambda x, weight, bias: F.conv3d(x, weight, bias, stride=(1, 2, 1), padding=(1, 1, 0)),
     torch.randn(1, 2, 4, 5, 4), conv_params(4, 2, [2, 3, 2], True))

# --- transposed convolutions: weight [C_in, C_out / groups, k...]
case("conv_transpose1d",
     lambda x, weight, bias: F.conv_transpose1d(x, weight, bias, stride=2, padding=1, output_padding=1, groups=2),
     torch.randn(2, 4, 5), {"weight": torch.randn(4, 3, 3) * 0.5, "bias": torch.randn(6) * 0.5})
case("conv_transpose2d",
     lambda x, weight, bias: F.conv_transpose2d(x, weight, bias, stride=(2, 3), padding=(1, 0), output_padding=(1, 2),
                                                dilation=(1, 2)),
     torch.randn(2, 3, 4, 3), {"weight": torch.randn(3, 4, 3, 2) * 0.5, "bias": torch.randn(4) * 0.5})
case("conv_transpose3d",
     lambda x, weight: F.conv_transpose3d(x, weight, None, stride=2, padding=(0, 1, 1), output_padding=(1, 0, 1)),
     torch.randn(1, 2, 3, 3, 2), conv_params(2, 2, [2, 2, 3], False))

# --- unfold / fold / pixel shuffle
case("unfold4d", lambda x: F.unfold(x, (2, 3), stride=(2, 1), padding=(1, 0)), torch.randn(2, 3, 6, 5))
case("fold4d", lambda x: F.fold(x, (6, 5), (2, 3), stride=(2, 1), padding=(1, 0)), torch.randn(2, 18, 12))
case("pixel_shuffle", lambda x: F.pixel_shuffle(x, 2), torch.randn(2, 8, 3, 2))
case("pixel_unshuffle", lambda x: F.pixel_unshuffle(x, 2), torch.randn(2, 2, 4, 6))

# --- pools
case("max_pool1d", lambda x: F.max_pool1d(x, 3, stride=2, padding=1, dilation=2, ceil_mode=True),
     torch.randn(2, 3, 11))
case("max_pool2d", lambda x: F.max_pool2d(x, (3, 2), padding=(1, 1)), torch.randn(2, 2, 7, 8))
case("max_pool2d_same", lambda x: F.max_pool2d(x, 3, stride=1, padding=1), torch.randn(1, 2, 5, 6))
case("max_pool3d", lambda x: F.max_pool3d(x, 2, stride=(2, 1, 2), ceil_mode=True), torch.randn(1, 2, 5, 6, 5))
case("avg_pool1d", lambda x: F.avg_pool1d(x, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
     torch.randn(2, 3, 10))
case("avg_pool2d", lambda x: F.avg_pool2d(x, (3, 2), stride=2, padding=(1, 1)), torch.randn(2, 2, 7, 6))

def avg_pool2d_same_even(x):
    # kernel 2, stride 1, SAME: no zero before, one after, counted in the mean (count_include_pad).
    return F.avg_pool2d(F.pad(x, [0, 1, 0, 1]), 2, stride=1)
case("avg_pool2d_same_even", avg_pool2d_same_even, torch.randn(1, 2, 4, 5))
case("avg_pool3d", lambda x: F.avg_pool3d(x, (2, 3, 2), stride=1, padding=(1, 1, 0), count_include_pad=False),
     torch.randn(1, 2, 4, 5, 6))
case("adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 4), torch.randn(2, 3, 10))
case("adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, (3, 4)), torch.randn(2, 3, 7, 9))
case("adaptive_avg_pool3d", lambda x: F.adaptive_avg_pool3d(x, (2, 3, 4)), torch.randn(1, 2, 5, 6, 7))
case("adaptive_max_pool1d", lambda x: F.adaptive_max_pool1d(x, 3), torch.randn(2, 3, 10))
case("adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, (2, 3)), torch.randn(2, 3, 7, 8))

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "fixtures", "conv_pool.json"), "w") as f:
    json.dump(out, f)
