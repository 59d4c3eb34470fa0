#!/usr/bin/python3
"""Exports torchvision's ResNet-18 (eval, random init) to ONNX for the ONNX Runtime peer of the
nn_resnet18_infer cases: export_resnet18.py OUT.onnx (dynamic batch dim)."""
import sys
import torch
import torchvision

model = torchvision.models.resnet18().eval()
x = torch.rand(1, 3, 224, 224)
torch.onnx.export(model, x, sys.argv[1], input_names=["x"], output_names=["logits"],
                  dynamic_axes={"x": {0: "batch"}, "logits": {0: "batch"}}, opset_version=13)
