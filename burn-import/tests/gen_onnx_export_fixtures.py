#!/usr/bin/python3
"""Fixtures of the ONNX export (fixtures/onnx_export/<model>.json): each model `burn export-onnx` knows
is exported from seed 1 (batch 2, ResNet-18 at 64x64, random norm statistics), checked with
onnx.checker (full check: strict shape inference) and run in ONNX Runtime (npm onnxruntime-node, as
bench/onnxruntime installs it: `cd bench/onnxruntime && ONNXRUNTIME_NODE_INSTALL=skip npm install`).
The JSON keeps ONNX Runtime's outputs, which onnx_export_test.cpp compares with the module's own
outputs in CI (no Python or node needed there); this script also checks them against burn-cpp's
outputs (1e-4), the --dynamic-batch export at another batch size, and the sweeps exported at the newer
opsets (NEWER_OPSETS: reductions with axes as an input, GroupNormalization) before it writes anything.
Debian's onnx (1.12) knows opsets up to 17: a model written at a newer opset (op-sweep-19, the NEWER_OPSETS
exports) is checked by ONNX Runtime and burn-cpp's outputs only, and its fixture says so.

  /usr/bin/python3 burn-import/tests/gen_onnx_export_fixtures.py [--build build/release] [MODEL...]
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
MODELS = ["mlp", "convnet", "text-classifier", "resnet18", "fashion-cnn", "op-sweep", "op-sweep-2", "op-sweep-19"]
OPSET = {"op-sweep-19": 19}  # the opset `burn export-onnx` writes a model at (default 17)
NEWER_OPSETS = {"op-sweep": [18, 22], "op-sweep-2": [18, 21, 22], "op-sweep-19": [21, 22]}
CHECKER_KNOWS = 17  # the newest opset of Debian's onnx (1.12)
KEEP_VALUES = 5000  # ONNX Runtime's output_0 (which onnx_export_test.cpp compares) is kept up to this many values
COMMON = ["--seed", "1", "--image-size", "64", "--random-norms"]
TOL = 1e-4


def export(tool, model, out, batch, extra, example_dir):
    cmd = [tool, model, out, "--batch", str(batch), *COMMON, *extra, "--save-example", example_dir]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return cmd


def max_diff(ort, example_dir, model):
    diff = 0.0
    for name, got in ort.items():
        want = np.load(os.path.join(example_dir, name + ".npy"))
        if got.shape != want.shape:
            sys.exit(f"{model}: {name} is {got.shape} in ONNX Runtime, {want.shape} in burn-cpp")
        diff = max(diff, float(np.max(np.abs(got - want))) if got.size else 0.0)
    return diff


def check(path, opset):
    if opset > CHECKER_KNOWS:
        return f"not run: onnx {onnx.__version__} knows opsets up to {CHECKER_KNOWS}, this model is opset {opset}"
    onnx.checker.check_model(onnx.load(path), full_check=True)
    return "ok"


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
    ap.add_argument("models", nargs="*", default=MODELS, help="the fixtures to write (default: all)")
    args = ap.parse_args()
    tool = os.path.join(args.build, "libexec", "burn", "burn-export-onnx")
    out_dir = os.path.join(HERE, "fixtures", "onnx_export")
    os.makedirs(out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for model in args.models:
            path = os.path.join(tmp, model + ".onnx")
            ex = os.path.join(tmp, model)
            cmd = export(tool, model, path, 2, [], ex)
            opset = OPSET.get(model, 17)
            checker = check(path, opset)
            x = np.load(os.path.join(ex, "input_0.npy"))
            version, ort = run_ort(path, {"input_0": x})
            diff = max_diff(ort, ex, model)
            if diff > TOL:
                sys.exit(f"{model}: ONNX Runtime differs from burn-cpp by {diff}")
            newer = {}
            for n in NEWER_OPSETS.get(model, []):
                p = os.path.join(tmp, f"{model}-opset{n}.onnx")
                export(tool, model, p, 2, ["--opset", str(n)], ex + f"-opset{n}")
                newer[str(n)] = max_diff(run_ort(p, {"input_0": x})[1], ex, model)
                if newer[str(n)] > TOL:
                    sys.exit(f"{model}: at opset {n} ONNX Runtime differs from burn-cpp by {newer[str(n)]}")

            # The --dynamic-batch file traced at batch 2, run at batch 3 against burn-cpp at batch 3.
            dyn = os.path.join(tmp, model + "-dynamic.onnx")
            export(tool, model, dyn, 2, ["--dynamic-batch"], ex + "-dynamic")
            check(dyn, opset)
            ex3 = ex + "-3"
            export(tool, model, os.path.join(tmp, model + "-3.onnx"), 3, [], ex3)
            _, ort3 = run_ort(dyn, {"input_0": np.load(os.path.join(ex3, "input_0.npy"))})
            diff3 = max(float(np.max(np.abs(got - np.load(os.path.join(ex3, name + ".npy"))))) for name, got in ort3.items())
            if diff3 > TOL:
                sys.exit(f"{model}: the dynamic-batch export at batch 3 differs from burn-cpp by {diff3}")

            kept = {name: {"shape": list(v.shape), "values": [float(f"{x:.8g}") for x in v.ravel()]}
                    for name, v in ort.items() if name == "output_0" and v.size <= KEEP_VALUES}
            fixture = {
                "model": model,
                "command": "burn export-onnx " + " ".join(cmd[1:2] + ["OUT.onnx"] + cmd[3:-2]),
                "opset": opset,
                "checker": checker,
                "onnxruntime": {"version": version, "outputs": sorted(ort), **kept},
                "max_abs_diff_burn_vs_onnxruntime": diff,
                "dynamic_batch_at_3_max_abs_diff": diff3,
            }
            if newer:
                fixture["newer_opsets_max_abs_diff"] = newer
            with open(os.path.join(out_dir, model + ".json"), "w") as f:
                json.dump(fixture, f, indent=1)
                f.write("\n")
            print(f"{model} (opset {opset}): checker {checker}, ONNX Runtime {version} within {diff:.2e} "
                  f"(dynamic batch at 3: {diff3:.2e}; newer opsets: {newer})")


if __name__ == "__main__":
    main()
