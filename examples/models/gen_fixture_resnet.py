#!/usr/bin/python3
"""torchvision's ResNet-18 (10 classes) on fixed inputs with deterministic parameters: parameter k of
the state dict (in order, num_batches_tracked skipped), element j in PyTorch's layout, is
0.05 * sin(0.013 * j + 0.7 * k); batch norm scales are 1 + 0.5 * sin(...) and running variances
1 + 0.5 * sin(...)^2, so activations keep their scale through the 20 layers. resnet_test.cpp fills
burn's ResNet-18 the same way. Writes fixture_resnet18.json (logits only: the weights are a formula)."""
import json, math, os
import torch, torchvision

torch.set_default_dtype(torch.float64)
m = torchvision.models.resnet18(num_classes=10).double().eval()
sd = m.state_dict()
k = 0
with torch.no_grad():
    for name, t in sd.items():
        if name.endswith("num_batches_tracked"):
            continue
        j = torch.arange(t.numel(), dtype=torch.float64)
        v = torch.sin(0.013 * j + 0.7 * k)
        is_norm_scale = t.dim() == 1 and name.endswith(".weight") and not name.startswith("fc")
        value = 1 + 0.5 * v * v if name.endswith("running_var") else 1 + 0.5 * v if is_norm_scale else 0.05 * v
        t.copy_(value.reshape(t.shape))
        k += 1
j = torch.arange(2 * 3 * 64 * 64, dtype=torch.float64)
x = (torch.sin(0.01 * j) + 0.5 * torch.cos(0.37 * j)).reshape(2, 3, 64, 64)
y = m(x)
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "fixture_resnet18.json"), "w") as f:
    json.dump({"params": k, "logits": {"shape": list(y.shape), "values": y.flatten().tolist()}}, f)
