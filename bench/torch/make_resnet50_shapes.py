#!/usr/bin/python3
"""Writes bench/record_resnet50_shapes.txt: the names, dtypes and shapes of torchvision's ResNet-50
state dict (run by hand with Debian's /usr/bin/python3; the record benchmarks read the file)."""
import os

import torchvision

here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sd = torchvision.models.resnet50().state_dict()
with open(os.path.join(here, "record_resnet50_shapes.txt"), "w") as f:
    f.write("# torchvision resnet50().state_dict(): name dtype dims (written by bench/torch/make_resnet50_shapes.py)\n")
    for name, t in sd.items():
        f.write(f"{name} {str(t.dtype).replace('torch.', '')} {' '.join(str(d) for d in t.shape)}\n".rstrip() + "\n")
n = sum(t.numel() for t in sd.values() if t.is_floating_point())
print(f"{len(sd)} tensors, {n} float parameters, {sum(t.numel() * t.element_size() for t in sd.values())} bytes")
