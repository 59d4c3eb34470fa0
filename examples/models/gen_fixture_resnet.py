#!/usr/bin/python3
"""Fixtures of the ResNet tests (resnet_test.cpp and burn-import's load_test.cpp), from torchvision.

fixture_resnet18.json: torchvision's ResNet-18 (10 classes) on fixed inputs with deterministic
parameters: parameter k of the state dict (in order, num_batches_tracked skipped), element j in
PyTorch's layout, is 0.05 * sin(0.013 * j + 0.7 * k); batch norm scales are 1 + 0.5 * sin(...) and
running variances 1 + 0.5 * sin(...)^2, so activations keep their scale through the 20 layers.

fixture_resnet50.json: a reduced-width ResNet-50 built from torchvision's own Bottleneck and
_make_layer (blocks 3, 4, 6, 3, expansion 4, the stride on the 3x3 conv), stem and layer widths 8, 16,
32, 64 instead of 64..512, 10 classes, f64. Its formula (resnet_fixture.hpp states it for the C++
side) is rougher than ResNet-18's: with s = sin(2.1 * j + 0.7 * k + 0.3), conv and fc weights are
s * 1.5 / sqrt(fan_in), batch norm scales 1 + 0.5 * s, running variances 1 + 0.5 * s^2, the rest
0.05 * s. Its two images differ in their statistics (the second is 2 * the first mirrored left to right
- 0.5), since the global pool averages out what a stationary pattern changes: the logits (about 5) of
the two images then differ by up to 1.05, and torchvision v1's stride on the first 1x1 conv instead of
the 3x3 moves them by up to 0.35, far above the tests' 1e-4. It holds the reduced model's state
dict names and shapes (load_test writes the weights file from them) and its eval-mode logits.

resnet50_names.json: the full-size torchvision resnet50()'s state dict names, dtypes and shapes in
order (its 100 MB of weights are never committed), for the test that burn's ResNet-50 has them.

The logits only are stored: the weights are a formula. Run with Debian's /usr/bin/python3."""
import json, math, os
import torch, torchvision
from torchvision.models.resnet import Bottleneck, ResNet

here = os.path.dirname(os.path.abspath(__file__))
torch.set_default_dtype(torch.float64)


def image():
    j = torch.arange(2 * 3 * 64 * 64, dtype=torch.float64)
    return (torch.sin(0.01 * j) + 0.5 * torch.cos(0.37 * j)).reshape(2, 3, 64, 64)


def resnet50_images():
    j = torch.arange(3 * 64 * 64, dtype=torch.float64)
    base = (torch.sin(0.01 * j) + 0.5 * torch.cos(0.37 * j)).reshape(1, 3, 64, 64)
    return torch.cat([base, 2 * base.flip(-1) - 0.5])


def fill(m, value):
    """Sets state dict entry k (num_batches_tracked skipped) to value(name, tensor, k, j); returns the count."""
    k = 0
    with torch.no_grad():
        for name, t in m.state_dict().items():
            if name.endswith("num_batches_tracked"):
                continue
            j = torch.arange(t.numel(), dtype=torch.float64)
            t.copy_(value(name, t, k, j).reshape(t.shape))
            k += 1
    return k


def resnet18_value(name, t, k, j):
    v = torch.sin(0.013 * j + 0.7 * k)
    is_norm_scale = t.dim() == 1 and name.endswith(".weight") and not name.startswith("fc")
    return 1 + 0.5 * v * v if name.endswith("running_var") else 1 + 0.5 * v if is_norm_scale else 0.05 * v


def resnet50_value(name, t, k, j):
    s = torch.sin(2.1 * j + 0.7 * k + 0.3)
    if t.dim() >= 2:  # conv [out, in, kh, kw] and fc [out, in]
        return s * 1.5 / math.sqrt(t[0].numel())
    if name.endswith("running_var"):
        return 1 + 0.5 * s * s
    if name.endswith(".weight"):  # a batch norm's scale (fc's weight has two dims)
        return 1 + 0.5 * s
    return 0.05 * s


def reduced_resnet50(width=8, num_classes=10):
    """torchvision's ResNet-50 with every width divided by 64 / width, through its own _make_layer."""
    m = ResNet(Bottleneck, [3, 4, 6, 3], num_classes=num_classes)
    m.inplanes = width
    m.conv1 = torch.nn.Conv2d(3, width, kernel_size=7, stride=2, padding=3, bias=False)
    m.bn1 = torch.nn.BatchNorm2d(width)
    m.layer1 = m._make_layer(Bottleneck, width, 3)
    m.layer2 = m._make_layer(Bottleneck, 2 * width, 4, stride=2)
    m.layer3 = m._make_layer(Bottleneck, 4 * width, 6, stride=2)
    m.layer4 = m._make_layer(Bottleneck, 8 * width, 3, stride=2)
    m.fc = torch.nn.Linear(8 * width * Bottleneck.expansion, num_classes)
    return m


def names(m):
    return [{"name": k, "dtype": str(v.dtype).replace("torch.", ""), "shape": list(v.shape)}
            for k, v in m.state_dict().items()]


def logits(y):
    return {"shape": list(y.shape), "values": y.flatten().tolist()}


m = torchvision.models.resnet18(num_classes=10).double().eval()
k = fill(m, resnet18_value)
with open(os.path.join(here, "fixture_resnet18.json"), "w") as f:
    json.dump({"params": k, "logits": logits(m(image()))}, f)

m = reduced_resnet50().double().eval()
k = fill(m, resnet50_value)
with torch.no_grad():
    y = m(resnet50_images())
with open(os.path.join(here, "fixture_resnet50.json"), "w") as f:
    json.dump({"width": 8, "num_classes": 10, "params": k,
               "num_params": sum(p.numel() for p in m.parameters()), "state_dict": names(m), "logits": logits(y)}, f)
print("reduced ResNet-50 logits:", y)

torch.set_default_dtype(torch.float32)  # the names list gives torchvision's own dtypes
m = torchvision.models.resnet50()
with open(os.path.join(here, "resnet50_names.json"), "w") as f:
    json.dump({"num_params": sum(p.numel() for p in m.parameters()), "state_dict": names(m)}, f)
