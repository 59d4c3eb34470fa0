#!/usr/bin/python3
"""Exports a torchvision model (eval, random init) to ONNX for the ONNX Runtime peer of the
nn_resnet18_infer and nn_resnet50_infer cases: export_torchvision.py OUT.onnx [ARCH] (ARCH a
torchvision.models constructor, resnet18 by default; dynamic batch dim, input "x", output "logits")."""
import sys
import torch
import torchvision

arch = sys.argv[2] if len(sys.argv) > 2 else "resnet18"
model = getattr(torchvision.models, arch)().eval()
x = torch.rand(1, 3, 224, 224)
torch.onnx.export(model, x, sys.argv[1], input_names=["x"], output_names=["logits"],
                  dynamic_axes={"x": {0: "batch"}, "logits": {0: "batch"}}, opset_version=13)
