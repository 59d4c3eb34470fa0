#!/usr/bin/python3
"""The per-layer table of ResNet-18 or ResNet-50: burn's per-op times against ONNX Runtime's per-node profile.

  layer_table.py ORT_PROFILE.json... -- BURN_LAYERS.txt...

ORT_PROFILE.json: traces written by profile_ort.mjs (the first 3 runs of each node, the warm-up, are
skipped); BURN_LAYERS.txt: the output of burn-bench-resnet-layers. burn's ops are grouped as ONNX
Runtime fuses them (a conv with its ReLU, or with the residual add and the ReLU; the stem's ReLU with the
stem conv). Per layer: the minimum over all runs of each run's minimum (burn: wall; ORT: its node time,
wall), and the median of burn's calling-thread CPU time. Prints a markdown table.
"""
import collections
import json
import re
import statistics
import sys


def ort(path):
    times = collections.defaultdict(list)
    for e in json.load(open(path)):
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            times[e["name"][: -len("_kernel_time")]].append(e["dur"] / 1000)
    out = {}
    for n, v in times.items():
        v = v[3:] if len(v) > 3 else v
        m = re.match(r"/(layer\d)/\1\.(\d)/(relu/Relu|relu_1/Relu|conv2/Conv|conv3/Conv|downsample/downsample.0/Conv)", n)
        if m:
            # a basic block's last conv is conv2, a bottleneck's conv3 (its conv2 ends in relu_1)
            kind = {"relu/Relu": "conv1+relu", "relu_1/Relu": "conv2+relu", "conv2/Conv": "conv2+add+relu",
                    "conv3/Conv": "conv3+add+relu", "downsample/downsample.0/Conv": "downsample"}[m[3]]
            key = f"{m[1]}.{m[2]} {kind}"
        elif n.startswith("/relu/"):
            key = "stem conv+relu"
        elif "maxpool" in n:
            key = "maxpool"
        elif "avgpool" in n:
            key = "avgpool"
        elif "fc" in n:
            key = "fc"
        else:
            key = f"other ({n})"
        out[key] = out.get(key, 0) + min(v)
    return out


def burn(path):
    out = collections.defaultdict(lambda: [0.0, 0.0])
    lines = open(path).readlines()
    bottleneck = any(" conv3 " in line for line in lines)
    last = "conv3+add+relu" if bottleneck else "conv2+add+relu"
    groups = {"conv1": "conv1+relu", "relu1": "conv1+relu", "downsample": "downsample", "add": last,
              "conv2": "conv2+relu" if bottleneck else last, "relu2": "conv2+relu" if bottleneck else last,
              "conv3": last, "relu3": last}
    for line in lines:
        m = re.match(r"^(.*?)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)(?:\s+([\d.]+))?$", line)
        if not m or m[1] == "sum":
            continue
        name, wall_min, cpu_med = m[1], float(m[2]), float(m[4])
        if name.startswith("stem"):
            key = "stem conv+relu"
        elif name.startswith("layer"):
            block, op = name.split(" ")
            key = block + " " + groups[op]
        else:
            key = name
        out[key][0] += wall_min
        out[key][1] += cpu_med
    return out


def main():
    args = sys.argv[1:]
    k = args.index("--")
    O = [ort(f) for f in args[:k]]
    B = [burn(f) for f in args[k + 1:]]
    print("| layer | burn wall ms (min) | burn calling-thread CPU ms (median) | ORT ms (min) | burn/ORT |")
    print("|---|---|---|---|---|")
    tb = to = tc = 0.0
    for key in B[0]:
        bw = min(b[key][0] for b in B)
        bc = statistics.median(b[key][1] for b in B)
        ov = min(o.get(key, 0) for o in O)
        tb, to, tc = tb + bw, to + ov, tc + bc
        print(f"| {key} | {bw:.2f} | {bc:.2f} | {ov:.2f} | {bw / ov if ov else float('nan'):.2f} |")
    for key in O[0]:
        if key not in B[0]:
            ov = min(o.get(key, 0) for o in O)
            to += ov
            print(f"| {key} (ORT only) | | | {ov:.2f} | |")
    print(f"| total | {tb:.1f} | {tc:.1f} | {to:.1f} | {tb / to:.2f} |")


if __name__ == "__main__":
    main()
