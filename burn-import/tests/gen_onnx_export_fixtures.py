#!/usr/bin/python3
"""Fixtures of the ONNX export (fixtures/onnx_export/<model>.json): each model `burn export-onnx` knows
is exported from seed 1 (batch 2, ResNet-18 at 64x64, random norm statistics), checked with
onnx.checker (full check: strict shape inference) and run in ONNX Runtime (npm onnxruntime-node, as
bench/onnxruntime installs it: `cd bench/onnxruntime && ONNXRUNTIME_NODE_INSTALL=skip npm install`).
The JSON keeps ONNX Runtime's outputs, which onnx_export_test.cpp compares with the module's own
outputs in CI (no Python or node needed there); this script also checks them against burn-cpp's
outputs (1e-4) and the --dynamic-batch export at another batch size before it writes anything.

  /usr/bin/python3 burn-import/tests/gen_onnx_export_fixtures.py [--build build/release]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
MODELS = ["mlp", "convnet", "text-classifier", "resnet18", "fashion-cnn", "op-sweep"]
KEEP_VALUES = 5000  # ONNX Runtime's outputs are kept in the fixture up to this many values
COMMON = ["--seed", "1", "--image-size", "64", "--random-norms"]
TOL = 1e-4


def export(tool, model, out, batch, extra, example_dir):
    cmd = [tool, model, out, "--batch", str(batch), *COMMON, *extra, "--save-example", example_dir]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return cmd


def run_ort(path, inputs):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({name: {"dtype": "int64" if x.dtype == np.int64 else "float32", "shape": list(x.shape),
                          "values": x.ravel().tolist()} for name, x in inputs.items()}, f)
    try:
        res = subprocess.run(["node", os.path.join(HERE, "onnx_export_ort.mjs"), path, f.name], check=True,
                             capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    out = json.loads(res.stdout)
    return out["version"], {k: np.array(v["values"], dtype=np.float32).reshape(v["shape"])
                            for k, v in out["outputs"].items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build", "release"))
    args = ap.parse_args()
    tool = os.path.join(args.build, "libexec", "burn", "burn-export-onnx")
    out_dir = os.path.join(HERE, "fixtures", "onnx_export")
    os.makedirs(out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for model in MODELS:
            path = os.path.join(tmp, model + ".onnx")
            ex = os.path.join(tmp, model)
            cmd = export(tool, model, path, 2, [], ex)
            onnx.checker.check_model(onnx.load(path), full_check=True)
            x = np.load(os.path.join(ex, "input_0.npy"))
            version, ort = run_ort(path, {"input_0": x})
            diff = 0.0
            for name, got in ort.items():
                want = np.load(os.path.join(ex, name + ".npy"))
                if got.shape != want.shape:
                    sys.exit(f"{model}: {name} is {got.shape} in ONNX Runtime, {want.shape} in burn-cpp")
                diff = max(diff, float(np.max(np.abs(got - want))) if got.size else 0.0)
            if diff > TOL:
                sys.exit(f"{model}: ONNX Runtime differs from burn-cpp by {diff}")

            # The --dynamic-batch file traced at batch 2, run at batch 3 against burn-cpp at batch 3.
            dyn = os.path.join(tmp, model + "-dynamic.onnx")
            export(tool, model, dyn, 2, ["--dynamic-batch"], ex + "-dynamic")
            onnx.checker.check_model(onnx.load(dyn), full_check=True)
            ex3 = ex + "-3"
            export(tool, model, os.path.join(tmp, model + "-3.onnx"), 3, [], ex3)
            _, ort3 = run_ort(dyn, {"input_0": np.load(os.path.join(ex3, "input_0.npy"))})
            diff3 = max(float(np.max(np.abs(got - np.load(os.path.join(ex3, name + ".npy"))))) for name, got in ort3.items())
            if diff3 > TOL:
                sys.exit(f"{model}: the dynamic-batch export at batch 3 differs from burn-cpp by {diff3}")

            kept = {name: {"shape": list(v.shape), "values": [float(f"{x:.8g}") for x in v.ravel()]}
                    for name, v in ort.items() if sum(o.size for o in ort.values()) <= KEEP_VALUES}
            fixture = {
                "model": model,
                "command": "burn export-onnx " + " ".join(cmd[1:2] + ["OUT.onnx"] + cmd[3:-2]),
                "checker": "ok",
                "onnxruntime": {"version": version, "outputs": sorted(ort), **kept},
                "max_abs_diff_burn_vs_onnxruntime": diff,
                "dynamic_batch_at_3_max_abs_diff": diff3,
            }
            with open(os.path.join(out_dir, model + ".json"), "w") as f:
                json.dump(fixture, f, indent=1)
                f.write("\n")
            print(f"{model}: checker ok, ONNX Runtime {version} within {diff:.2e} (dynamic batch at 3: {diff3:.2e})")


if __name__ == "__main__":
    main()
