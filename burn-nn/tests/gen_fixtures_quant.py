#!/usr/bin/python3
"""PyTorch's dynamic quantization of a small MLP, for burn-nn's quant_test.cpp: the float model's weights (in
Burn's [d_input, d_output] layout), an input, and the outputs of the float model and of
torch.ao.quantization.quantize_dynamic with the default qconfig (q8 per-tensor symmetric weights) and the
per-channel one, on this torch's x86 engine (onednn when present, else fbgemm). Run with Debian's
/usr/bin/python3 (torch 1.13); writes fixtures/quant.json."""
import json
import os

import torch
from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

torch.manual_seed(20261129)
engines = torch.backends.quantized.supported_engines
engine = "onednn" if "onednn" in engines else "fbgemm"
torch.backends.quantized.engine = engine


def t(x):
    return {"shape": list(x.shape), "values": x.detach().double().flatten().tolist()}


model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 8)).float().eval()
x = torch.randn(6, 16) * 2.0
with torch.no_grad():
    y = model(x)
    y_tensor = quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)(x)
    y_channel = quantize_dynamic(model, {torch.nn.Linear: per_channel_dynamic_qconfig}, dtype=torch.qint8)(x)

out = {
    "engine": engine,
    "torch_version": torch.__version__,
    "fc1": {"weight": t(model[0].weight.T), "bias": t(model[0].bias)},
    "fc2": {"weight": t(model[2].weight.T), "bias": t(model[2].bias)},
    "x": t(x),
    "y_float": t(y),
    "y_dynamic_per_tensor": t(y_tensor),
    "y_dynamic_per_channel": t(y_channel),
}
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "quant.json")
with open(path, "w") as f:
    json.dump(out, f)
    f.write("\n")
print(f"{path}: engine {engine}, torch {torch.__version__}")
