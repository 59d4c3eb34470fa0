#!/usr/bin/python3
"""torchvision.ops.DeformConv2d values for DeformConv2d (deform_conv_test.cpp): forward and the
gradients of input, offset, mask and weight. Writes fixtures/deform_conv.json."""
import json, os
import torch, torchvision

torch.manual_seed(7)
torch.set_default_dtype(torch.float64)

def t(x):
    return {"shape": list(x.shape), "values": x.detach().flatten().tolist()}

out = {}
for name, (cin, cout, k, stride, pad, dil, groups, og, masked) in {
        "plain": (4, 6, 3, 1, 1, 1, 1, 1, False),
        "grouped_masked": (4, 6, 3, 2, 1, 1, 2, 2, True)}.items():
    m = torchvision.ops.DeformConv2d(cin, cout, k, stride=stride, padding=pad, dilation=dil, groups=groups)
    x = torch.randn(2, cin, 7, 6, requires_grad=True)
    ho = (7 + 2 * pad - dil * (k - 1) - 1) // stride + 1
    wo = (6 + 2 * pad - dil * (k - 1) - 1) // stride + 1
    off = (torch.randn(2, 2 * og * k * k, ho, wo) * 0.7).requires_grad_()
    mask = torch.rand(2, og * k * k, ho, wo).requires_grad_() if masked else None
    y = m(x, off, mask)
    g = torch.randn_like(y)
    (y * g).sum().backward()
    case = {"config": [cin, cout, k, stride, pad, dil, groups, og], "weight": t(m.weight), "bias": t(m.bias),
            "x": t(x), "offset": t(off), "y": t(y), "grad_out": t(g), "grad_x": t(x.grad),
            "grad_offset": t(off.grad), "grad_weight": t(m.weight.grad)}
    if masked:
        case["mask"] = t(mask)
        case["grad_mask"] = t(mask.grad)
    out[name] = case

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "fixtures", "deform_conv.json"), "w") as f:
    json.dump(out, f)
