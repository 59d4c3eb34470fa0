#!/usr/bin/python3
"""Exports RoBERTa-base (examples/models/gen_fixture_roberta.py's plain-PyTorch twin of transformers'
RobertaModel, eval, random init) to ONNX for the nn_roberta_base_onnx_infer cases: export_roberta.py
OUT.onnx (inputs "input_ids" and "attention_mask", int64 [batch, length], both dims dynamic; outputs
"last_hidden_state" and "pooler_output")."""
import os
import sys
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "models"))
from gen_fixture_roberta import Config, RobertaModel  # noqa: E402

model = RobertaModel(Config()).eval()
ids = torch.randint(3, 50000, (1, 128))
dims = {0: "batch", 1: "length"}
torch.onnx.export(model, (ids, torch.ones_like(ids)), sys.argv[1], input_names=["input_ids", "attention_mask"],
                  output_names=["last_hidden_state", "pooler_output"],
                  dynamic_axes={"input_ids": dims, "attention_mask": dims}, opset_version=13)
