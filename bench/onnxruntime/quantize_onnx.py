#!/usr/bin/python3
"""Writes int8 ONNX models from fp32 ones in the forms ONNX Runtime's quantization tool writes them (Debian has no
onnxruntime Python package, so no onnxruntime.quantization): quantize_onnx.py static FP32.onnx OUT.onnx (QDQ, ORT's
quantize_static) or quantize_onnx.py dynamic FP32.onnx OUT.onnx (ORT's quantize_dynamic), then checks OUT against
FP32 in ONNX Runtime on seeded random inputs and prints the differences of the outputs and the top-1 agreement.
The model-to-model functions are also what burn-import/tests/gen_onnx_opset_fixtures.py quantizes its small models with.

static: activations u8 per tensor, asymmetric, min-max ranges calibrated by running the fp32 model in ONNX Runtime
(run_ort.mjs) with every quantized tensor added as an output; QuantizeLinear -> DequantizeLinear on every activation
that enters or leaves a Conv, Gemm, Add, MaxPool, GlobalAveragePool or Flatten (MaxPool and Flatten keep their input's
parameters, as ORT's direct 8-bit ops do); a Relu after a Conv or an Add is dropped into the u8 range of its output
(ORT's removable activation); weights int8 symmetric per output channel; biases int32 (scale = input scale x weight
scale) through their own DequantizeLinear, as ORT writes them.
dynamic: each MatMul by a constant 2-D weight becomes DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul by
(input scale x weight scale); one DynamicQuantizeLinear per input tensor; weights int8 symmetric per tensor (ORT's
defaults); the bias Add after it is left as it was.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from onnx import TensorProto, helper, numpy_helper
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
N = helper.make_node
QUANT_OPS = {"Conv", "Gemm", "Add", "MaxPool", "GlobalAveragePool", "Flatten"}
DIRECT_OPS = {"MaxPool", "Flatten"}  # the output keeps the input's scale and zero point
NP_NAMES = {np.dtype(np.float32): "float32", np.dtype(np.int64): "int64", np.dtype(np.int32): "int32",
            np.dtype(np.int8): "int8", np.dtype(np.uint8): "uint8"}


def run_ort(model, sets, outputs=None, ranges=False, optimize=False):
    """Runs `model` (a ModelProto or a path) in ONNX Runtime on each feed set ({input: array}): the outputs of each
    set as {name: array}, or with `ranges` {output: (min, max)} over all the sets."""
    with tempfile.TemporaryDirectory() as tmp:
        path = model if isinstance(model, str) else os.path.join(tmp, "model.onnx")
        if not isinstance(model, str):
            onnx.save(model, path)
        req_sets = []
        for i, s in enumerate(sets):
            req = {}
            for name, a in s.items():
                f = os.path.join(tmp, f"in_{i}_{len(req)}.bin")
                np.ascontiguousarray(a).tofile(f)
                req[name] = {"dtype": NP_NAMES[a.dtype], "dims": list(a.shape), "file": f}
            req_sets.append(req)
        request = os.path.join(tmp, "request.json")
        with open(request, "w") as f:
            json.dump({"model": path, "optimize": optimize, "outputs": outputs, "sets": req_sets, "ranges": ranges,
                       "out": tmp}, f)
        res = subprocess.run(["node", os.path.join(HERE, "run_ort.mjs"), request], capture_output=True, text=True)
        if res.returncode != 0:
            sys.exit(f"quantize_onnx.py: ONNX Runtime failed on {path}: {res.stderr.strip()[-600:]}")
        got = json.loads(res.stdout)
        if ranges:
            return got
        names = outputs
        result = []
        for i, outs in enumerate(got):
            arrays = {}
            for k, o in enumerate(outs):
                a = np.fromfile(os.path.join(tmp, f"{i}_{k}.bin"), dtype=o["dtype"]).reshape(o["dims"])
                arrays[names[k] if names else k] = a
            result.append(arrays)
        return result


def initializers(g):
    return {t.name: t for t in g.initializer}


def inline_identities(model):
    """Identity nodes of initializers (torch's export shares equal biases through them) replaced by the
    initializer itself, so that each weight and bias is found as a constant."""
    g = model.graph
    inits = initializers(g)
    alias = {n.output[0]: n.input[0] for n in g.node if n.op_type == "Identity" and n.input[0] in inits}
    kept = [n for n in g.node if n.output[0] not in alias]
    for n in kept:
        for i, x in enumerate(n.input):
            if x in alias:
                n.input[i] = alias[x]
    del g.node[:]
    g.node.extend(kept)


def u8_params(lo, hi):
    """ORT's asymmetric u8 parameters of the range [lo, hi] (widened to hold 0): f32 scale, u8 zero point."""
    lo, hi = min(float(lo), 0.0), max(float(hi), 0.0)
    scale = np.float32((hi - lo) / 255.0) if hi > lo else np.float32(1.0)
    zp = np.uint8(np.clip(np.round(-lo / float(scale)), 0, 255))
    return scale, zp


def symmetric_int8(w, axis=None):
    """int8 in [-127, 127] with scale max|w| / 127, per tensor (axis None) or per slice along `axis`."""
    if axis is None:
        amax = np.float32(np.abs(w).max())
    else:
        amax = np.abs(np.moveaxis(w, axis, 0)).reshape(w.shape[axis], -1).max(axis=1).astype(np.float32)
    scale = np.where(amax > 0, amax / np.float32(127), np.float32(1)).astype(np.float32)
    view = scale if axis is None else scale.reshape([-1 if d == axis else 1 for d in range(w.ndim)])
    return np.clip(np.round(w / view), -127, 127).astype(np.int8), scale


class Graph:
    """The new node list and initializers of a model being rewritten."""

    def __init__(self, model):
        self.model, self.g = model, model.graph
        self.inits = {t.name: numpy_helper.to_array(t) for t in self.g.initializer}
        self.nodes, self.new_inits = [], []

    def const(self, name, a):
        self.new_inits.append(numpy_helper.from_array(np.asarray(a), name))
        return name

    def finish(self):
        used = {x for n in self.nodes for x in n.input} | {o.name for o in self.g.output}
        kept = [t for t in self.g.initializer if t.name in used]
        del self.g.initializer[:]
        self.g.initializer.extend(kept + self.new_inits)
        del self.g.node[:]
        self.g.node.extend(self.nodes)
        return self.model


def quantizable_tensors(model):
    """After the removable Relus are dropped (in place): the activations to quantize, in graph order, and for each
    direct op's output the tensor whose parameters it takes."""
    g = model.graph
    inits = initializers(g)
    outputs = {o.name for o in g.output}
    consumers = {}
    for n in g.node:
        for x in n.input:
            consumers.setdefault(x, []).append(n)
    producer = {o: n for n in g.node for o in n.output}
    dropped = set()
    for n in g.node:
        p = producer.get(n.input[0]) if n.op_type == "Relu" else None
        if p is not None and p.op_type in ("Conv", "Add") and len(consumers[n.input[0]]) == 1 and \
                n.input[0] not in outputs:
            p.output[0] = n.output[0]
            dropped.add(id(n))
    kept = [n for n in g.node if id(n) not in dropped]
    del g.node[:]
    g.node.extend(kept)
    order, same_as = [], {}

    def add(t):
        if t and t not in inits and t not in outputs and t not in order:
            order.append(t)
    for n in g.node:
        if n.op_type not in QUANT_OPS:
            continue
        for x in (n.input[:1] if n.op_type in ("Conv", "Gemm") else n.input):
            add(x)
        if n.op_type != "Gemm":
            add(n.output[0])
        if n.op_type in DIRECT_OPS:
            same_as[n.output[0]] = same_as.get(n.input[0], n.input[0])
    return order, same_as


def quantize_static(model, ranges):
    """The QDQ model of `model` (after quantizable_tensors) with activation ranges {tensor: (min, max)}."""
    order, same_as = quantizable_tensors(model)
    q = Graph(model)
    params = {}
    for t in order:
        if t in same_as:
            params[t] = params[same_as[t]]
        else:
            lo, hi = ranges[t]
            s, z = u8_params(lo, hi)
            params[t] = (q.const(t + "_scale", s), q.const(t + "_zero_point", z), s)

    def qdq(t):  # the Q -> DQ pair of an activation, emitted where it is made
        s, z, _ = params[t]
        q.nodes += [N("QuantizeLinear", [t, s, z], [t + "_quantized"], name=t + "_QuantizeLinear"),
                    N("DequantizeLinear", [t + "_quantized", s, z], [t + "_dequantized"],
                      name=t + "_DequantizeLinear")]
    for i in q.g.input:
        if i.name in params:
            qdq(i.name)
    for n in q.g.node:
        n.input[:] = [x + "_dequantized" if x in params else x for x in n.input]
        if n.op_type in ("Conv", "Gemm"):
            trans_b = next((a.i for a in n.attribute if a.name == "transB"), 0)
            axis = 0 if n.op_type == "Conv" or trans_b else 1
            w = q.inits[n.input[1]]
            wq, ws = symmetric_int8(w, axis)
            name = n.output[0] + "_weight"  # per node: torch's export shares equal initializers between nodes
            q.nodes.append(N("DequantizeLinear", [q.const(name + "_quantized", wq), q.const(name + "_scale", ws),
                                                  q.const(name + "_zero_point", np.zeros(ws.shape, np.int8))],
                             [name + "_dequantized"], axis=axis))
            n.input[1] = name + "_dequantized"
            if len(n.input) > 2 and n.input[2]:
                b, xs = q.inits[n.input[2]], params[n.input[0][:-len("_dequantized")]][2]
                bs = (xs * ws).astype(np.float32)
                bq = np.round(b / bs).astype(np.int32)
                name = n.output[0] + "_bias"
                q.nodes.append(N("DequantizeLinear", [q.const(name + "_quantized", bq), q.const(name + "_scale", bs),
                                                      q.const(name + "_zero_point", np.zeros(bs.shape, np.int32))],
                                 [name + "_dequantized"], axis=0))
                n.input[2] = name + "_dequantized"
        q.nodes.append(n)
        for o in n.output:
            if o in params:
                qdq(o)
    return q.finish()


def quantize_dynamic(model):
    """The dynamic-quantized model of `model`: every MatMul by a constant 2-D float weight on the integer ops."""
    q = Graph(model)
    quantized = {}  # activation -> its DynamicQuantizeLinear outputs
    count = 0
    for n in q.g.node:
        w = q.inits.get(n.input[1]) if n.op_type == "MatMul" else None
        if w is None or w.ndim != 2 or w.dtype != np.float32:
            q.nodes.append(n)
            continue
        a, y, name = n.input[0], n.output[0], n.input[1]
        if a not in quantized:
            quantized[a] = (a + "_quantized", a + "_scale", a + "_zero_point")
            q.nodes.append(N("DynamicQuantizeLinear", [a], list(quantized[a]), name=a + "_DynamicQuantizeLinear"))
        aq, as_, az = quantized[a]
        wq, ws = symmetric_int8(w)
        q.nodes += [
            N("MatMulInteger", [aq, q.const(name + "_quantized", wq), az, q.const(name + "_zero_point", np.int8(0))],
              [y + "_int32"], name=(n.name or y) + "_MatMulInteger"),
            N("Cast", [y + "_int32"], [y + "_float"], to=TensorProto.FLOAT),
            N("Mul", [as_, q.const(name + "_scale", ws)], [y + "_scales"]),
            N("Mul", [y + "_float", y + "_scales"], [y], name=(n.name or y) + "_Mul"),
        ]
        count += 1
    print(f"{count} MatMuls by a constant weight on MatMulInteger, {len(quantized)} DynamicQuantizeLinear")
    return q.finish()


def feed_sets(model, count, seed, batch=1):
    """Seeded random inputs as the benchmark feeds them: images uniform in [-1, 1), token ids in [3, 50000) of
    length 128 with an all-ones mask."""
    rng = np.random.default_rng(seed)
    names = [i.name for i in model.graph.input if i.name not in initializers(model.graph)]
    sets = []
    for _ in range(count):
        if "input_ids" in names:
            ids = rng.integers(3, 50000, (batch, 128)).astype(np.int64)
            sets.append({"input_ids": ids, "attention_mask": np.ones_like(ids)})
        else:
            sets.append({names[0]: rng.uniform(-1, 1, (batch, 3, 224, 224)).astype(np.float32)})
    return sets


def compare(fp32_path, int8_path, sets):
    """The int8 model against the fp32 one in ONNX Runtime (optimized, as the benchmark runs them): per output the
    max abs difference, its ratio to the fp32 output's max abs value, and the top-1 agreement over the last dim."""
    outputs = [o.name for o in onnx.load(fp32_path, load_external_data=False).graph.output]
    ref = run_ort(fp32_path, sets, outputs, optimize=True)
    got = run_ort(int8_path, sets, outputs, optimize=True)
    for o in outputs:
        r = np.concatenate([x[o].reshape(-1, x[o].shape[-1]) for x in ref])
        g = np.concatenate([x[o].reshape(-1, x[o].shape[-1]) for x in got])
        diff = np.abs(r - g).max()
        top1 = (r.argmax(-1) == g.argmax(-1)).mean()
        print(f"{os.path.basename(int8_path)} vs fp32, {o} ({len(sets)} inputs, {r.shape[0]} rows): max abs diff "
              f"{diff:.4g}, relative to max |fp32| {diff / np.abs(r).max():.3g}, top-1 agreement {100 * top1:.1f}%")


def calibrated_static(model, sets):
    """quantize_static with the ranges of the fp32 `model` over the feed sets `sets` (ONNX Runtime runs a copy with
    every tensor to quantize added as an output; the graph inputs' ranges are the feeds' own)."""
    tensors, _ = quantizable_tensors(_copy(model))  # the Relus dropped in the copy only
    inputs = {i.name for i in model.graph.input}
    calib = _copy(model)
    calib.graph.output.extend(helper.make_tensor_value_info(t, TensorProto.FLOAT, None) for t in tensors
                              if t not in inputs)
    ranges = run_ort(calib, sets, ranges=True)
    for name in inputs & set(tensors):
        ranges[name] = (min(float(s[name].min()) for s in sets), max(float(s[name].max()) for s in sets))
    return quantize_static(model, ranges)


def main():
    mode, src, dst = sys.argv[1:4]
    model = onnx.load(src)
    inline_identities(model)
    if mode == "static":
        out = calibrated_static(model, feed_sets(model, 4, seed=0))
    elif mode == "dynamic":
        out = quantize_dynamic(model)
    else:
        sys.exit(f"quantize_onnx.py: mode {mode!r}: static or dynamic")
    onnx.save(out, dst)
    compare(src, dst, feed_sets(out, 4, seed=1))


def _copy(model):
    m = onnx.ModelProto()
    m.CopyFrom(model)
    return m


if __name__ == "__main__":
    main()
