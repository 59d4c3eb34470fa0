#!/usr/bin/env python3
"""The table of bench/gpu/run.sh: reads results.jsonl (burn-bench-gpu's lines tagged with their backend,
torch_ref.py's tagged "ref": "torch") and writes results.md and results.json beside it.
Usage: table.py RESULTS.jsonl OUT_DIR SMOKE(0|1). Exit 1 when a case failed or was skipped."""
import json
import sys

NAMES = {"vulkan": "Vulkan", "opencl": "OpenCL"}


def find(rows, case, **kv):
    for r in rows:
        if r.get("case") == case and all(r.get(k) == v for k, v in kv.items()):
            return r
    return None


def fmt(x, unit=""):
    return "—" if x is None else f"{x:.2f}" + (f" {unit}" if unit else "")


def met(ratio, target):
    """'yes'/'no' for a target written '≥ x', '≤ x' or '< x' (its first number), '' without one."""
    parts = target.split()
    if ratio is None or len(parts) < 2 or parts[0] not in ("≥", "≤", "<"):
        return ""
    bound = float(parts[1])
    ok = ratio >= bound if parts[0] == "≥" else ratio <= bound if parts[0] == "≤" else ratio < bound
    return "yes" if ok else "no"


def main():
    path, out, smoke = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
    rows = [json.loads(l) for l in open(path) if l.strip().startswith("{")]
    torch = [r for r in rows if r.get("ref") == "torch"]
    table = []

    def row(name, ours, ref, target, unit, ref_name="PyTorch CUDA"):
        ratio = ours / ref if ours is not None and ref else None
        table.append((name, fmt(ours, unit), f"{fmt(ref, unit)} ({ref_name})" if ref is not None else "—",
                      fmt(ratio), target, met(ratio, target)))

    heads = []
    for backend in ("vulkan", "opencl"):
        burn = [r for r in rows if r.get("backend") == backend and "ref" not in r]
        if not burn:
            continue
        name = NAMES[backend]
        absent = find(burn, "absent")
        if absent:
            table.append((f"{name}: no device", absent.get("why", ""), "", "", "", ""))
            continue
        dev = find(burn, "devices")
        heads.append(f"{name}: {dev['device'] if dev else '?'}")
        t32, t16 = find(torch, "gemm", dtype="f32"), find(torch, "gemm", dtype="f16")
        if backend == "vulkan":
            gemms = (("f32", {"disabled": ""}, "", "≥ 0.50"), ("f16", {"disabled": ""}, " (profile's kernel)", "≥ 0.40 (coopmat)"),
                     ("f16", {"disabled": "cooperative_matrix"}, " without coopmat", ""))
        else:
            gemms = (("f32", {"blas": ""}, " through CLBlast", "≥ 0.50"), ("f32", {"blas": "off"}, " own kernel", ""),
                     ("f16", {"blas": ""}, " own kernel", "≥ 0.40"))
        for dtype, kv, label, target in gemms:
            r = find(burn, "gemm", dtype=dtype, **kv)
            if not r and find(burn, "unsupported", args="gemm", dtype=dtype):
                continue
            t = t32 if dtype == "f32" else t16
            n = r["n"] if r else (t["n"] if t else "")
            row(f"{name} GEMM {dtype} {n}^3{label}", r and r["tflops"], t and t["tflops"], target, "TFLOP/s")
        if backend == "opencl":
            r, c = find(burn, "gemm", dtype="f32", blas=""), find(burn, "gemm_clblast")
            if c:
                row(f"{name} GEMM f32 through burn vs CLBlast's own call", r and r["tflops"], c["tflops"], "≥ 0.95",
                    "TFLOP/s", "CLBlast")
        b, tb = find(burn, "bandwidth"), find(torch, "bandwidth")
        if b:
            row(f"{name} elementwise y = x * 2 vs burn's copy", b["elementwise_gbs"], b["copy_gbs"], "", "GB/s", "burn copy")
            if tb:
                row(f"{name} elementwise vs PyTorch D2D copy", b["elementwise_gbs"], tb["copy_gbs"], "≥ 0.70", "GB/s")
        for batch in sorted({r["batch"] for r in rows if r.get("case") == "resnet"}):
            r, t = find(burn, "resnet", batch=batch), find(torch, "resnet", batch=batch)
            model = (r or t or {}).get("model", "resnet")
            row(f"{name} {model} inference batch {batch}", r and r["ms"], t and t["ms"], "≤ 1.5" if batch > 1 else "", "ms")
        tr, tt = find(burn, "transformer"), find(torch, "transformer")
        if tr:
            row(f"{name} transformer layer fwd+bwd {tr['shape']} fused vs unfused", tr["fused_ms"], tr["unfused_ms"], "< 1",
                "ms", "unfused")
            if tt:
                row(f"{name} transformer layer fwd+bwd fused vs PyTorch", tr["fused_ms"], tt["ms"], "", "ms")
        d = find(burn, "dispatch")
        if d:
            row(f"{name} fixed cost per dispatch, end to end", d["end_to_end_us_per_op"], None, "", "µs")
            row(f"{name} host recording per dispatch", d["record_us_per_op"], None, "", "µs")
            row(f"{name} one op + sync", d["one_op_sync_us"], None, "", "µs")
        for s in [r for r in burn if r.get("case") == "steps"]:
            table.append((f"{name} dispatches per step: {s['step']} on {s['chain']}", str(s["dispatches"]), "", "", "", ""))
        for u in [r for r in burn if r.get("case") == "unsupported"]:
            table.append((f"{name} {u['args']} {u.get('dtype', '')}: unsupported", u["why"], "", "", "", ""))
        for lo in [r for r in burn if r.get("case") == "loader"]:
            heads.append(f"{name} loader: {lo['why']}")

    head = "GPU benchmarks" + (" (SMOKE: tiny sizes, numbers meaningless)" if smoke else "")
    if torch:
        head += f"; reference: PyTorch {torch[0].get('version', '?')} on {torch[0].get('device', '?')}"
    lines = [head, ""] + [f"- {h}" for h in heads] + ["", "| case | burn | reference | ratio | target | met |", "|---|---|---|---|---|---|"]
    lines += ["| " + " | ".join(r) + " |" for r in table]
    problems = [r for r in rows if r.get("case") in ("failed", "skipped")]
    for p in problems:
        lines.append(f"\n{p.get('backend', '')} {p['case']}: {p.get('args')} {p.get('why', '')} "
                     f"{('rc ' + str(p['rc'])) if 'rc' in p else ''}")
    text = "\n".join(lines) + "\n"
    print(text)
    open(f"{out}/results.md", "w").write(text)
    json.dump({"rows": rows, "table": [dict(zip(("case", "burn", "reference", "ratio", "target", "met"), r)) for r in table]},
              open(f"{out}/results.json", "w"), indent=1)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
