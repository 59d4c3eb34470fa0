#!/usr/bin/python3
"""Checks burn's .pt writer with PyTorch itself (torch 1.13 and torchvision 0.14 from Debian):

    /usr/bin/python3 burn-import/tests/check_pytorch_export.py BUILD/bin/burn-import-pytorch-export-fixtures

The C++ generator writes, into a temporary folder, sample.pt (every dtype, ints, bools, strings and an
empty group: burn-record's sample_record() without its float) and resnet18.pt (burn's ResNet-18 of
examples/models in f64 with deterministic weights, saved through the PyTorch export adapter) with
resnet18_logits.json (burn's logits on the fixed input). This script loads both with
torch.load(weights_only=True), checks every value of sample.pt bit for bit, loads resnet18.pt into
torchvision's resnet18(num_classes=10) with load_state_dict(strict=True) and compares its logits with
burn's (at most 1e-4 apart). It records the files' sizes and CRC-32s with the results in
fixtures/pytorch/export_check.json; pytorch_export_test.cpp checks that the writer still writes those
exact bytes, so ctest never runs Python.
"""
import json
import os
import subprocess
import sys
import tempfile
import zlib

import numpy as np
import torch
import torchvision

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../burn-record/tests/fixtures/safetensors"))
from check_with_numpy import EXPECTED, VALUES  # noqa: E402  sample_record()'s values, written out once


def size_and_crc(path):
    with open(path, "rb") as f:
        data = f.read()
    return len(data), zlib.crc32(data)


def check_sample(path):
    sd = torch.load(path, weights_only=True)
    assert isinstance(sd, dict)
    for name, (_dtype, shape, values) in EXPECTED.items():
        t = sd[name]
        assert torch.is_tensor(t) and list(t.shape) == shape, f"{name}: {t}"
        got = t.float().numpy() if t.dtype == torch.bfloat16 else t.numpy()  # bf16 -> f32 is exact
        want = values.reshape(shape)
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), f"{name}: {got} != {want}"
    for path_, kind, value in VALUES:
        if kind == "float":
            continue  # not in sample.pt: torch 1.13's weights_only unpickler has no BINFLOAT
        got = sd[path_]
        assert (got == {} if kind == "group" else got == value and type(got) is type(value)), f"{path_}: {got!r}"
    assert len(sd) == len(EXPECTED) + len(VALUES) - 1, sorted(sd)
    return {"torch.load(weights_only=True)": "every tensor, dtype, shape and value as written",
            "entries": len(sd)}


def check_resnet(path, logits_path):
    sd = torch.load(path, weights_only=True)
    model = torchvision.models.resnet18(num_classes=10).double().eval()
    result = model.load_state_dict(sd, strict=True)
    assert not result.missing_keys and not result.unexpected_keys, result
    j = torch.arange(2 * 3 * 64 * 64, dtype=torch.float64)
    x = (torch.sin(0.01 * j) + 0.5 * torch.cos(0.37 * j)).reshape(2, 3, 64, 64)
    with torch.no_grad():
        y = model(x).flatten().numpy()
    with open(logits_path) as f:
        burn = np.array(json.load(f)["values"], dtype=np.float64)
    diff = float(np.max(np.abs(y - burn)))
    assert diff < 1e-4, diff
    return {"load_state_dict": "strict=True: all keys matched", "tensors": len(sd),
            "max_abs_logit_difference": diff, "largest_logit": float(np.max(np.abs(y)))}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([sys.argv[1], d], check=True, env={**os.environ, "TZ": "UTC"})
        out = {}
        for name, check in [("sample.pt", lambda p: check_sample(p)),
                            ("resnet18.pt", lambda p: check_resnet(p, os.path.join(d, "resnet18_logits.json")))]:
            p = os.path.join(d, name)
            size, crc = size_and_crc(p)
            out[name] = {"bytes": size, "crc32": crc, **check(p)}
            print(name, out[name])
    out["torch"] = torch.__version__
    out["torchvision"] = torchvision.__version__
    with open(os.path.join(HERE, "fixtures/pytorch/export_check.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
