"""Runs the burn-cpp benchmarks and their PyTorch twins back to back, case by case, and prints the tables of
the benchmark page; with --markdown it writes that page (BENCHMARKS.md) whole.

Called by bench/run.sh after the build; it can be run alone on an existing build:
  /usr/bin/python3 bench/run.py [--quick] [--build-dir build/release] [--markdown BENCHMARKS.md]
                                [--json out.json] [--only REGEX] [--section distributed]
For every case it runs the burn program (Google Benchmark, JSON output, N repetitions), then for the
fixed-cost cases the libtorch program (bench/libtorch, the C++ peer, built when libtorch-dev is found),
then asks a long-lived PyTorch process (bench/torch/bench_torch.py --serve) for the same case with the
same iteration count and number of repetitions, so machine drift hits every side alike; the inference
cases also ONNX Runtime (bench/onnxruntime). Medians are reported. Then the Fashion-MNIST epoch
(train_epoch.py's measure()), the distributed section (distributed.py's measure(): 2 ranks under `burn run`)
and the fusion pairs (fusion_table.py's measure()), unless --only, and the remote rows against a burn server the
section starts and stops (remote_table.py's measure(); with --only, the rows whose remote case matches).
--section distributed runs that section alone. The machine's limits come from bench/limits (raw OpenBLAS SGEMM,
STREAM-like triad, read stream), run at the start. --quick runs one row of each table (distributed: the all_reduce
of 1 MiB). The dated history of the figures is docs/benchmarks-journal.md,
written by hand; this script writes only the page.
"""
import argparse
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
THREADS = 2
M16, M64 = 16 << 20, 64 << 20
F32 = 4
BF16 = 2


class Case:
    """One workload: its name (shared with the torch side), program, limit kind and work, target group."""

    def __init__(self, name, program, kind, work, group, cpp_peer=False, ort_batch=None, durable_peer=None,
                 ort_model="resnet18", f32_twin=None):
        self.name, self.program, self.kind, self.work, self.group = name, program, kind, work, group
        self.cpp_peer = cpp_peer  # also run by burn-bench-libtorch under the same name
        self.ort_batch = ort_batch  # also run by ONNX Runtime (bench/onnxruntime) at this batch size
        # the model ONNX Runtime runs: a torchvision one (bench/onnxruntime/export_torchvision.py) or
        # "roberta-base" (export_roberta.py)
        self.ort_model = ort_model
        # A second torch case, reported beside the first but never the target: for the record saves,
        # torch.save made durable as burn's saves are (temporary file, fsync, rename, folder fsync).
        self.durable_peer = durable_peer
        # The burn case of the same table whose time this one's is also divided by (F32_TWIN_TARGETS): the int8
        # rows against burn's own f32 layer.
        self.f32_twin = f32_twin


def cases():
    out = []
    for n in (256, 1024, 2048):
        out.append(Case(f"matmul/{n}", "matmul", "gemm", 2.0 * n ** 3, "matmul"))
    out.append(Case("matmul_batched/32x128x64@32x64x128", "matmul", "gemm", 2.0 * 32 * 128 * 64 * 128, "matmul"))
    for label, n in (("16M", M16), ("64M", M64)):
        out += [
            Case(f"add/{label}", "elementwise", "mem", 3 * n * F32, "elementwise"),
            Case(f"mul/{label}", "elementwise", "mem", 3 * n * F32, "elementwise"),
            Case(f"exp/{label}", "elementwise", "mem", 2 * n * F32, "elementwise"),
            Case(f"gelu/{label}", "elementwise", "mem", 2 * n * F32, "elementwise"),
            Case(f"chain_exp_relu_affine/{label}", "elementwise", "mem", 2 * n * F32, "elementwise"),
            Case(f"relu/{label}", "elementwise", "mem", 2 * n * F32, "elementwise"),
        ]
    n, rows = 4096 * 4096, 4096
    out += [
        Case("sum/4096x4096", "reduce", "read", n * F32 + F32, "reduction"),
        Case("sum_dim_last/4096x4096", "reduce", "read", n * F32 + rows * F32, "reduction"),
        Case("sum_dim_first/4096x4096", "reduce", "read", n * F32 + rows * F32, "reduction"),
        Case("argmax_last/4096x4096", "reduce", "read", n * F32 + rows * 8, "reduction"),
        Case("softmax/4096x1024", "softmax", "mem", 2 * 4096 * 1024 * F32, "softmax"),
        Case("log_softmax/4096x1024", "softmax", "mem", 2 * 4096 * 1024 * F32, "softmax"),
        Case("tiny_add/1x8", "overhead", "none", 0, "fixed cost", cpp_peer=True),
    ]
    # module ops
    body, stem = 2.0 * 16 * 64 * 56 * 56 * 64 * 9, 2.0 * 64 * 112 * 112 * 3 * 49
    out += [
        Case("conv2d/n16_c64_56x56_k3_p1", "conv", "gemm", body, "conv"),
        Case("conv2d/n1_c3_224x224_k7_s2_p3", "conv", "gemm", stem, "conv"),
        Case("conv2d_fwd_bwd/n16_c64_56x56_k3_p1", "conv", "gemm", 3 * body, "conv fwd+bwd"),
        Case("conv2d_fwd_bwd/n1_c3_224x224_k7_s2_p3", "conv", "gemm", 3 * stem, "conv fwd+bwd"),
    ]
    for c in (32, 128):
        n_in = 2 * c * 512 * 512
        for label, n_out in (("2x2s2", 2 * c * 256 * 256), ("3x3s2p1", 2 * c * 256 * 256)):
            sz = f"2x{c}x512x512"
            out += [
                Case(f"max_pool2d_{label}/{sz}", "pool", "mem", (n_in + n_out) * F32, "max_pool"),
                Case(f"max_pool2d_with_indices_{label}/{sz}", "pool", "mem", n_in * F32 + n_out * (F32 + 8),
                     "max_pool (indices)"),
                Case(f"avg_pool2d_{label}/{sz}", "pool", "mem", (n_in + n_out) * F32, "avg_pool, interpolate"),
            ]
    n_in, n_out = 64 * 112 * 112, 64 * 56 * 56  # ResNet's stem pool at batch 1 (in cache)
    out.append(Case("max_pool2d_3x3s2p1/1x64x112x112", "pool", "mem", (n_in + n_out) * F32, "max_pool"))
    for mode in ("bilinear", "nearest", "bicubic"):
        n_in, n_out = 2 * 32 * 256 * 256, 2 * 32 * 512 * 512
        out.append(Case(f"interpolate_{mode}_2x/2x32x256x256", "pool", "mem", (n_in + n_out) * F32,
                        "avg_pool, interpolate"))
    ln = 64 * 1024 * 768
    attn = 4.0 * 2 * 8 * 1024 * 1024 * 64
    out += [
        Case("layer_norm/64x1024x768", "norm", "mem", 2 * ln * F32, "norm, attention"),
        Case("attention/b2h8l1024e64", "norm", "gemm", attn, "norm, attention"),
        Case("attention_causal/b2h8l1024e64", "norm", "gemm", attn / 2, "norm, attention"),
    ]
    # autodiff: a training step's forward + backward, and the cost of recording one op
    mlp = 2.0 * 128 * (784 * 512 + 512 * 512 + 512 * 10) * 3
    block = 2.0 * 8 * 32 * 32 * 32 * 32 * 9 * 2 * 3
    out += [
        Case("mlp_step/784-512-512-10_b128", "autodiff", "gemm", mlp, "mlp step"),
        Case("conv_block_step/n8_c32_32x32", "autodiff", "gemm", block, "conv block step"),
        Case("autodiff_tiny_add/1x8", "autodiff", "none", 0, "autodiff fixed cost", cpp_peer=True),
    ]
    # nn: what users write, modules + loss + optimizer, against PyTorch's nn and torch.optim
    out += [
        Case("nn_mlp_train_adam/784-512-512-10_b128", "nn", "gemm", mlp, "nn train step"),
        Case("nn_cnn_train_adam/b64_28x28", "nn", "none", 0, "nn train step"),
        Case("nn_transformer_layer_fwd_bwd/d256_h4_s128_b16", "nn", "none", 0, "nn train step"),
        Case("nn_resnet18_infer/b1_224", "nn", "gemm", 2 * 1.82e9, "resnet18 inference", ort_batch=1),
        Case("nn_resnet18_infer/b8_224", "nn", "gemm", 8 * 2 * 1.82e9, "resnet18 inference", ort_batch=8),
        # import: the same network imported from ONNX (torchvision's export) by the onnx plugin
        Case("nn_resnet18_onnx_infer/b1_224", "nn", "gemm", 2 * 1.82e9, "resnet18 onnx inference"),
        Case("nn_resnet18_onnx_infer/b8_224", "nn", "gemm", 8 * 2 * 1.82e9, "resnet18 onnx inference"),
    ]
    # ResNet-50 (4.09 GMACs at 224x224) folded, on cpu and fusion<cpu>, against PyTorch's eager
    # torchvision resnet50 and ONNX Runtime on its export
    for batch in (1, 8):
        for name in ("nn_resnet50_infer", "nn_resnet50_infer_fused"):
            out.append(Case(f"{name}/b{batch}_224", "nn", "gemm", batch * 2 * 4.09e9, "resnet50 inference",
                            ort_batch=batch, ort_model="resnet50"))
    # RoBERTa-base at sequence 128 (per token 12 layers of 2 * (4 * 768^2 + 2 * 768 * 3072) flops in the
    # dense layers and 4 * 128 * 768 in attention, the pooler apart), on cpu and fusion<cpu>, against the
    # plain-PyTorch twin of transformers' RobertaModel (examples/models/gen_fixture_roberta.py)
    roberta_flops = 128 * 12 * (2 * (4 * 768 * 768 + 2 * 768 * 3072) + 4 * 128 * 768)
    for batch in (1, 8):
        for name in ("nn_roberta_base_infer", "nn_roberta_base_infer_fused"):
            out.append(Case(f"{name}/b{batch}_s128", "nn", "gemm", batch * roberta_flops, "roberta inference",
                            ort_batch=batch, ort_model="roberta-base"))
        out.append(Case(f"nn_roberta_base_onnx_infer/b{batch}_s128", "nn", "gemm", batch * roberta_flops,
                        "roberta onnx inference"))
    # int8: the ResNet-18 and RoBERTa-base exports quantized (bench/onnxruntime/quantize_onnx.py), burn's onnx engine
    # against ONNX Runtime on the same file; the work is the fp32 model's flops
    for batch in (1, 8):
        out.append(Case(f"nn_resnet18_int8_onnx_infer/b{batch}_224", "nn", "gemm", batch * 2 * 1.82e9,
                        "int8 onnx inference", ort_batch=batch, ort_model="resnet18-int8-qdq"))
        out.append(Case(f"nn_roberta_base_int8_onnx_infer/b{batch}_s128", "nn", "gemm", batch * roberta_flops,
                        "int8 onnx inference", ort_batch=batch, ort_model="roberta-base-int8-dynamic"))
    # its AdamW train step at batch 8 with a 2-class head on the pooled <s>: three times the forward's flops
    for name in ("nn_roberta_base_train_adamw", "nn_roberta_base_train_adamw_fused"):
        out.append(Case(f"{name}/b8_s128", "nn", "gemm", 3 * 8 * roberta_flops, "roberta train step"))
    # int8: a Linear 768->3072 at batch 128 under quantize_dynamic against PyTorch's, and against burn's f32 layer
    linear = 2.0 * 128 * 768 * 3072
    out += [
        Case("nn_linear_f32/768-3072_b128", "nn", "gemm", linear, "f32 linear"),
        Case("nn_linear_int8_dynamic/768-3072_b128", "nn", "gemm", linear, "int8 linear",
             f32_twin="nn_linear_f32/768-3072_b128"),
    ]
    # bf16: the memory-bound ops and the 1024³ product on bf16 tensors, each against its f32 twin above and
    # PyTorch's bf16; the cast f32 -> bf16 has no f32 twin
    for label, n in (("16M", M16), ("64M", M64)):
        for op, operands in (("add", 2), ("mul", 2), ("exp", 1), ("gelu", 1), ("relu", 1)):
            # gelu's erf runs at about 17% of the triad in f32 (the Ops rows): compute-bound, no 0.6x to gain
            group = "bf16 compute-bound" if op == "gelu" else "bf16 memory-bound"
            out.append(Case(f"{op}_bf16/{label}", "elementwise", "mem", (operands + 1) * n * BF16, group,
                            f32_twin=f"{op}/{label}"))
        out.append(Case(f"cast_f32_bf16/{label}", "elementwise", "mem", n * (F32 + BF16), "bf16 memory-bound"))
    n, rows = 4096 * 4096, 4096
    out += [
        Case("sum_bf16/4096x4096", "reduce", "read", n * BF16 + BF16, "bf16 memory-bound", f32_twin="sum/4096x4096"),
        Case("sum_dim_last_bf16/4096x4096", "reduce", "read", n * BF16 + rows * BF16, "bf16 memory-bound",
             f32_twin="sum_dim_last/4096x4096"),
        Case("matmul_bf16/1024", "matmul", "gemm", 2.0 * 1024 ** 3, "bf16 matmul", f32_twin="matmul/1024"),
    ]
    # records: a ResNet-50 state dict (102 MB) saved and loaded, against torch.save/load
    for recorder in ("zstd", "zstd_level0", "hdf5"):
        out += [
            Case(f"record_save/{recorder}/resnet50", "record", "none", 0, "record save",
                 durable_peer=f"record_save_durable/{recorder}/resnet50"),
            Case(f"record_load/{recorder}/resnet50", "record", "none", 0, "record load"),
        ]
    # import: a torchvision ResNet-18 state dict (47 MB) loaded from torch.save's two layouts
    for layout in ("zip", "legacy"):
        out.append(Case(f"import_pytorch_load/resnet18_{layout}", "import", "none", 0, "pytorch load"))
    return out


# Targets of the op, module, autodiff and record rows (None: reported, no target set).
TARGETS = {"matmul": 1.05, "elementwise": 0.5, "softmax": 0.7, "reduction": 1.0, "fixed cost": 0.5,
           "conv": 1.1, "conv fwd+bwd": 1.2, "max_pool": 0.3, "max_pool (indices)": 0.5,
           "avg_pool, interpolate": 0.7, "norm, attention": None,
           "mlp step": 1.0, "conv block step": 1.0, "autodiff fixed cost": 0.5,
           "f32 linear": None, "int8 linear": 1.0,  # the int8 row against PyTorch's quantize_dynamic (issue 31)
           "record save": 1.0, "record load": 1.0, "nn train step": 0.8, "resnet18 inference": 0.8,
           "resnet18 onnx inference": None,  # its target (1.1x) is against burn-nn's ResNet-18, not PyTorch
           "pytorch load": 1.0, "resnet50 inference": 0.6, "roberta inference": 0.6, "roberta train step": 0.7,
           "roberta onnx inference": None,
           "int8 onnx inference": None,
           "bf16 memory-bound": None, "bf16 compute-bound": None, "bf16 matmul": None}  # bf16 against PyTorch's bf16: reported (issue 31)
# The fixed cost against libtorch, C++ to C++.
LIBTORCH_TARGETS = {"fixed cost": 0.5, "autodiff fixed cost": 0.5}
# burn against ONNX Runtime, for the cases with an ONNX Runtime peer (None: reported, no target).
ORT_TARGETS = {"resnet18 inference": 1.2, "resnet50 inference": 1.0, "roberta inference": 1.0}
# burn against its own f32 twin (Case.f32_twin), issue 31: int8 1.6x faster at least; bf16 memory-bound ops at most
# 0.6x their f32 time (half the bytes), the bf16 1024³ matmul at most 1.3x (f32 GEMM on widened operands).
F32_TWIN_TARGETS = {"int8 linear": 0.625, "bf16 memory-bound": 0.6, "bf16 matmul": 1.3}
INT8_LINEAR_WHAT = (
    "A Linear 768→3072 with bias on [128, 768], forward only on `cpu`: f32 (`nn_linear_f32`) and under "
    "`nn::quantize_dynamic` (`nn_linear_int8_dynamic`: the weight int8 per output channel, each input row quantized "
    "to u8 at the call, the op `quantized_linear` on the cpu plugin's exact int8 GEMM, the weight packed once), against "
    "PyTorch's `nn.Linear` and `torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)` (the "
    "weight int8 per tensor; quantized engine onednn: Debian's torch 1.13 has no fbgemm). Targets (issue 31): the int8 "
    "row at most PyTorch's int8 time (≤ 1.0) and at least 1.6x faster than burn's f32 row (burn/burn f32 ≤ 0.625); "
    "the f32 row is the baseline ('—'). '% of limit' of the int8 rows: their multiply-adds, counted as the f32 "
    "layer's flops, over the f32 SGEMM limit.")
BF16_WHAT = (
    "The elementwise ops (16M and 64M elements), the sums (4096x4096) and `matmul` 1024³ on bf16 tensors on `cpu` "
    "(f32 values cast to bf16 before the timing): the cpu plugin computes in f32 and rounds each result once (issue 31 "
    "pt 1), the elementwise ops in L1-sized tiles widened and narrowed around the f32 instruction, the reductions "
    "with the f32 kernel reading spans widened into a small buffer, the product as the f32 GEMM on operands widened "
    "whole. `cast_f32_bf16`: `x.cast(DType::BF16)` of an f32 tensor. Against PyTorch's bf16 (`a.to(torch.bfloat16)`, "
    "then the same op; reported, no target: Debian's torch 1.13 multiplies bf16 matrices about 17x slower than f32) "
    "and against burn's own f32 row of the same op (the Ops section): targets (issue 31 pt 6) burn bf16 / burn f32 "
    "≤ 0.6 for the memory-bound rows, ≤ 1.3 for the product. `gelu_bf16` is compute-bound (its f32 row runs at about "
    "a sixth of the triad: the erf), so its ratio is reported with no target; the cast has no f32 twin ('—'). "
    "'% of limit': the "
    "16-bit bytes moved over the triad (read limit for the sums), the product's flops over the f32 SGEMM limit.")
FIXED_COST_WHAT = {"tiny_add/1x8": "`a + b` on 1x8", "autodiff_tiny_add/1x8": "recording `a + b` on 1x8, `a` requiring grad"}

# The page's tables: (title, target groups, what the rows measure and what their target means).
SECTIONS = [
    ("Ops", ("matmul", "elementwise", "reduction", "softmax", "fixed cost", "autodiff fixed cost", "conv",
             "conv fwd+bwd", "max_pool", "max_pool (indices)", "avg_pool, interpolate", "norm, attention"),
     "One op through the public `Tensor` API on `cpu` (the autodiff rows on `autodiff<cpu>`) against the same op "
     "in PyTorch; the two fixed-cost rows also against libtorch, C++ to C++. Target: burn/PyTorch at most the "
     "family's ratio (`TARGETS` in bench/run.py); '—': compared with PyTorch and the machine's limit only. The "
     "f32 matmul rows multiply the same right operand each iteration, which the cpu plugin packs once and keeps (a "
     "weight's case; PyTorch repacks it per call); a one-off product is packed for its call."),
    ("Model inference", ("resnet18 inference", "resnet50 inference", "roberta inference", "resnet18 onnx inference",
                         "roberta onnx inference"),
     "ResNet-18/50 (224×224, batch norms folded) and RoBERTa-base (sequence 128) forward passes built from burn-nn "
     "layers on `cpu` and `fusion<cpu>` (`_fused`), and the same networks imported from ONNX (`_onnx_`), against "
     "PyTorch's eager modules and ONNX Runtime (npm `onnxruntime-node`, 2 intra-op threads). Target: burn/PyTorch "
     "and burn/ONNX Runtime at most the ratios shown; the ONNX-imported rows have none ('—'): they are compared "
     "with PyTorch and, in the journal, with the burn-nn row above them."),
    ("Train steps", ("mlp step", "conv block step", "nn train step", "roberta train step"),
     "One forward + backward (+ optimizer step for the `nn_` rows) on `autodiff<cpu>` (`_fused`: "
     "`autodiff<fusion<cpu>>`) against PyTorch's autograd, `nn` modules and `torch.optim`. Target: burn/PyTorch "
     "at most the ratio shown; the conv block has none ('—'): compared with PyTorch only."),
    ("Quantized (int8)", ("f32 linear", "int8 linear", "int8 onnx inference"),
     INT8_LINEAR_WHAT + " The ONNX rows (`_int8_onnx_`): "
     "ResNet-18 in ONNX Runtime's static QDQ form (convs and fc int8 per output channel, u8 activations) and "
     "RoBERTa-base in its dynamic form (MatMulInteger), both written from the fp32 exports by "
     "bench/onnxruntime/quantize_onnx.py, run by burn's onnx engine (the products on the int8 op `matmul_integer`) "
     "against ONNX Runtime on the same file, and against PyTorch's own int8 of the same networks (eager static "
     "quantization of torchvision's quantizable ResNet-18, `quantize_dynamic` of the RoBERTa twin; engine onednn); "
     "no target for them ('—'), the ratios are reported."),
    ("Reduced precision (bf16)", ("bf16 memory-bound", "bf16 compute-bound", "bf16 matmul"), BF16_WHAT),
    ("Records", ("record save", "record load"),
     "A ResNet-50 state dict (102 MB) saved and loaded by each burn-record recorder against `torch.save` / "
     "`torch.load`. Target: at most PyTorch's time (≤ 1.0); the durable `torch.save` column (fsync and rename, "
     "as burn's saves do) is a reference, not the target."),
    ("Import", ("pytorch load",),
     "A torchvision ResNet-18 state dict (47 MB) loaded by burn-import's pytorch plugin from `torch.save`'s zip "
     "and legacy layouts against `torch.load`. Target: at most PyTorch's time (≤ 1.0)."),
]
SECTION_OF = {group: title for title, groups, _ in SECTIONS for group in groups}
# --quick: one row of each table (the epoch: the MLP once; distributed: all_reduce 1 MiB, distributed.QUICK_SIZES;
# fusion pairs: the 16M chain, 2 rounds).
QUICK_CASES = ("add/16M", "nn_resnet18_infer/b1_224", "nn_mlp_train_adam/784-512-512-10_b128",
               "record_load/zstd/resnet50", "import_pytorch_load/resnet18_zip")
QUICK_FUSION_ROWS = ("exp(relu(x*2+1)), 16M",)
JOURNAL = "docs/benchmarks-journal.md"
# The last run of bench/gpu/run.sh on a GPU machine, its table and provenance (the page quotes it).
GPU_RESULTS = "bench/gpu/last-run.md"


def roberta_onnx():
    """RoBERTa-base (the plain-PyTorch twin) exported to ONNX once per machine (the onnx import cases)."""
    model = os.path.join(os.environ.get("BURN_BENCH_TMP", "/tmp"), "burn-bench-roberta-base.onnx")
    if not os.path.exists(model):
        subprocess.run(["/usr/bin/python3", os.path.join(ORT_DIR, "export_roberta.py"), model], check=True,
                       capture_output=True)
    return model


def torchvision_onnx(arch="resnet18"):
    """A torchvision model exported to ONNX once per machine (the ORT peer and the onnx import cases)."""
    model = os.path.join(os.environ.get("BURN_BENCH_TMP", "/tmp"), f"burn-bench-{arch}.onnx")
    if not os.path.exists(model):
        subprocess.run(["/usr/bin/python3", os.path.join(ORT_DIR, "export_torchvision.py"), model, arch], check=True,
                       capture_output=True)
    return model


# The int8 files (bench/onnxruntime/quantize_onnx.py): ort_model -> (the variable burn-bench-nn reads, the mode, the
# fp32 export it is written from).
INT8_ONNX = {"resnet18-int8-qdq": ("BURN_BENCH_RESNET18_INT8_ONNX", "static", lambda: torchvision_onnx("resnet18")),
             "roberta-base-int8-dynamic": ("BURN_BENCH_ROBERTA_INT8_ONNX", "dynamic", roberta_onnx)}


def int8_onnx(name):
    """An fp32 export quantized to int8 once per machine (the int8 cases' file, for burn and ONNX Runtime)."""
    model = os.path.join(os.environ.get("BURN_BENCH_TMP", "/tmp"), f"burn-bench-{name}.onnx")
    if not os.path.exists(model):
        _, mode, fp32 = INT8_ONNX[name]
        out = subprocess.run(["/usr/bin/python3", os.path.join(ORT_DIR, "quantize_onnx.py"), mode, fp32(), model],
                             check=True, capture_output=True, text=True)
        print(out.stdout.strip(), flush=True)  # its check against the fp32 model in ONNX Runtime
    return model


def preparation_error(e):
    """A failed export, quantization or fixture script (a missing Python package, say) as the case's error, so the
    row says why and the run goes on."""
    err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
    lines = err.strip().splitlines()
    script = next((os.path.basename(a) for a in e.cmd if str(a).endswith(".py")), " ".join(e.cmd[:2]))
    return f"{script} failed: {lines[-1] if lines else 'exit %d' % e.returncode}"


def resnet18_pt_files():
    """The torch.save files of the import cases, written by bench_torch.py's own function (both sides load them)."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import bench_torch; "
            "[bench_torch.resnet18_pt(layout) for layout in ('zip', 'legacy')]")
    subprocess.run(["/usr/bin/python3", "-c", code, os.path.join(HERE, "torch")], check=True, capture_output=True)


def env():
    e = dict(os.environ)
    e.update(BURN_NUM_THREADS=str(THREADS), OMP_NUM_THREADS=str(THREADS), OPENBLAS_NUM_THREADS=str(THREADS))
    return e


def run_limit(path, args, extra_env=None):
    """One limit program's JSON; extra_env's None values remove that variable."""
    e = dict(env(), **(extra_env or {}))
    out = subprocess.run([path] + [str(a) for a in args], check=True, capture_output=True, text=True,
                         env={k: v for k, v in e.items() if v is not None})
    return json.loads(out.stdout)


def plugin_default_core(bin_dir):
    """The OpenBLAS core the cpu plugin picks where the user sets none (`burn devices` without OPENBLAS_CORETYPE):
    on an AMD CPU with AVX-512 it chooses one that OpenBLAS's own detection may not."""
    e = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    try:
        out = subprocess.run([os.path.join(bin_dir, "burn"), "devices"], capture_output=True, text=True, env=e,
                             timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"OpenBLAS core: (\w+)", out)
    return m.group(1) if m else None


def gemm_limit(bin_dir, reps):
    """The machine's SGEMM limit: the best of raw OpenBLAS with the inherited environment, with OpenBLAS's own
    detection, and with the core the cpu plugin would choose, so a variable that pins slower kernels (this
    machine's OPENBLAS_CORETYPE=Haswell on an AVX-512 CPU) does not lower the bar the page measures against."""
    path = os.path.join(bin_dir, "burn-limit-sgemm")
    runs = [run_limit(path, [2048, THREADS, reps])]
    if os.environ.get("OPENBLAS_CORETYPE"):
        runs.append(run_limit(path, [2048, THREADS, reps], {"OPENBLAS_CORETYPE": None}))
    core = plugin_default_core(bin_dir)
    if core and all(r.get("core", "").lower() != core.lower() for r in runs):
        runs.append(run_limit(path, [2048, THREADS, reps], {"OPENBLAS_CORETYPE": core}))
    return max(runs, key=lambda r: r["best_gflops"])


ORT_DIR = os.path.join(HERE, "onnxruntime")


def run_ort(case, iters, reps):
    """The ONNX Runtime peer (npm onnxruntime-node in bench/onnxruntime/node_modules): the case's torchvision
    model exported once per machine, the same iterations and repetitions as the burn side."""
    if not os.path.isdir(os.path.join(ORT_DIR, "node_modules", "onnxruntime-node")):
        return {"error": "no bench/onnxruntime/node_modules (ONNXRUNTIME_NODE_INSTALL=skip npm install there)"}
    try:
        if case.ort_model in INT8_ONNX:
            model = int8_onnx(case.ort_model)
        else:
            model = roberta_onnx() if case.ort_model == "roberta-base" else torchvision_onnx(case.ort_model)
    except subprocess.CalledProcessError as e:
        return {"error": preparation_error(e)}
    out = subprocess.run(["node", os.path.join(ORT_DIR, "bench_ort.mjs"), model, str(case.ort_batch), str(THREADS),
                          str(max(iters, 1)), str(reps)], capture_output=True, text=True, env=env())
    if out.returncode != 0:
        return {"error": out.stderr.strip()[-300:]}
    times = json.loads(out.stdout)["times_s"]
    return {"median_ns": statistics.median(times) * 1e9}


# Google Benchmark's own keys of a run; any other key is a counter the case set (the remote cases' traffic).
GBENCH_KEYS = {"name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
               "repetition_index", "threads", "iterations", "real_time", "cpu_time", "time_unit", "items_per_second",
               "bytes_per_second", "aggregate_name", "aggregate_unit", "label", "error_occurred", "error_message",
               "skipped", "skip_message"}


def run_burn(bin_dir, case, reps, min_time, warmup, program=None, extra_env=None):
    prog = os.path.join(bin_dir, f"burn-bench-{program or case.program}")
    # Google Benchmark's regex (POSIX) rejects Python's escaped '-', so escape only what is special there.
    pattern = re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", case.name)
    cmd = [prog, f"--benchmark_filter=^{pattern}(/real_time)?$", f"--benchmark_repetitions={reps}",
           f"--benchmark_min_time={min_time}", f"--benchmark_min_warmup_time={warmup}",
           "--benchmark_format=json", "--benchmark_enable_random_interleaving=false"]
    e = env()
    e.update(extra_env or {})
    try:
        if "roberta" in case.name and "onnx" in case.name:
            e["BURN_BENCH_ROBERTA_ONNX"] = roberta_onnx()
        elif "onnx" in case.name:
            e["BURN_BENCH_RESNET18_ONNX"] = torchvision_onnx("resnet18")
        if case.ort_model in INT8_ONNX:
            e[INT8_ONNX[case.ort_model][0]] = int8_onnx(case.ort_model)
        if case.program == "import":
            resnet18_pt_files()
    except subprocess.CalledProcessError as err:
        return {"error": [preparation_error(err)]}
    out = subprocess.run(cmd, capture_output=True, text=True, env=e)
    if out.returncode != 0 or not out.stdout.strip():
        return {"error": (out.stderr or out.stdout).strip().splitlines()[-1:] or ["exit %d" % out.returncode]}
    data = json.loads(out.stdout)
    scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
    runs = [b for b in data["benchmarks"] if b.get("run_type") == "iteration"]
    median = [b for b in data["benchmarks"] if b.get("aggregate_name") == "median"]
    if not runs:
        return {"error": ["no such case in " + prog]}
    failed = [b for b in runs if b.get("error_occurred")]  # SkipWithError: a missing file, server, variable
    if failed:
        return {"error": [failed[0].get("error_message", "the case failed")]}
    times = [b["real_time"] * scale[b["time_unit"]] for b in runs]
    med = median[0]["real_time"] * scale[median[0]["time_unit"]] if median else sorted(times)[len(times) // 2]
    out = {"times_ns": times, "median_ns": med, "iterations": runs[0]["iterations"], "context": data["context"]}
    counters = {k: v for k, v in (median or runs)[0].items() if k not in GBENCH_KEYS}
    if counters:  # medians over the repetitions
        out["counters"] = counters
    return out


class Torch:
    """The long-lived PyTorch process: one request line in, one JSON line out."""

    def __init__(self):
        script = os.path.join(HERE, "torch", "bench_torch.py")
        self.p = subprocess.Popen(["/usr/bin/python3", script, "--serve"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, env=env())

    def run(self, name, iters, reps, warmup):
        self.p.stdin.write(f"{name} {iters} {reps} {warmup}\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        return json.loads(line) if line else {"error": "torch process died"}

    def close(self):
        self.p.stdin.close()
        self.p.wait()

    def version(self):
        out = subprocess.run(["/usr/bin/python3", "-c", "import torch; print(torch.__version__)"],
                             capture_output=True, text=True)
        return out.stdout.strip()


def fmt_time(ns):
    if ns is None:
        return "n/a"
    for unit, div in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= div:
            return f"{ns / div:.3g} {unit}" if ns / div < 100 else f"{ns / div:.0f} {unit}"
    return f"{ns:.0f} ns"


def fraction(case, ns, limits):
    if ns is None or case.kind == "none":
        return None
    if case.kind == "gemm":
        return case.work / (ns * 1e-9) / (limits["gemm_gflops"] * 1e9)
    if case.kind == "read" and "read_gbs" in limits:  # a reduction: against the read-only stream
        return case.work / (ns * 1e-9) / (limits["read_gbs"] * 1e9)
    return case.work / (ns * 1e-9) / (limits["triad_gbs"] * 1e9)


def met(ratio, target):
    if target is None:
        return "—"
    return "n/a" if ratio is None else ("yes" if ratio <= target else f"no (+{100 * (ratio / target - 1):.1f}%)")


def table(rows, limits, libtorch=True, ort=None, twins=None):
    """rows: (case, burn, PyTorch, libtorch) results; libtorch is None for cases without the C++ peer.
    libtorch: add the C++ peer's columns; ort (case name -> ONNX Runtime result): add ONNX Runtime's; twins (case
    name -> burn median, every row of the run): where the rows' f32 twins are looked up (default: among rows)."""
    with_limit = any(case.kind != "none" for case, _, _, _ in rows)  # records and import have no limit
    head = ["case", "burn-cpp median", "PyTorch median", "burn/PyTorch", "target", "met"]
    if with_limit:
        head += ["burn % of limit", "PyTorch % of limit"]
    if libtorch:
        head += ["libtorch (C++) median", "burn/libtorch",
                 "met vs libtorch (≤ " + "/".join(sorted({str(t) for t in LIBTORCH_TARGETS.values()})) + ")"]
    if ort is not None:
        head += ["ONNX Runtime median", "burn/ORT", "target vs ORT", "met vs ORT"]
    twin_ns = twins or {case.name: b.get("median_ns") for case, b, _, _ in rows}  # the f32 twins' times, by name
    with_twin = any(case.f32_twin for case, _, _, _ in rows)
    if with_twin:
        head += ["burn/burn f32", "target vs burn f32", "met vs burn f32"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for case, b, t, lt in rows:
        bn, tn = b.get("median_ns"), t.get("median_ns")
        ratio = bn / tn if bn and tn else None
        target = TARGETS[case.group]
        fb, ft = fraction(case, bn, limits), fraction(case, tn, limits)
        pct = lambda f: "—" if f is None else f"{100 * f:.0f}%"
        cells = [case.name, fmt_time(bn) if bn else "error: " + str(b.get("error")), fmt_time(tn) if tn else "error",
                 "n/a" if ratio is None else f"{ratio:.2f}", "—" if target is None else f"≤ {target}",
                 met(ratio, target)] + ([pct(fb), pct(ft)] if with_limit else [])
        if libtorch and lt is None:
            cells += ["—", "—", "—"]
        elif libtorch:
            ln = lt.get("median_ns")
            lratio = bn / ln if bn and ln else None
            cells += [fmt_time(ln) if ln else "error: " + str(lt.get("error")),
                      "n/a" if lratio is None else f"{lratio:.2f}", met(lratio, LIBTORCH_TARGETS[case.group])]
        if ort is not None and case.name not in ort:
            cells += ["—", "—", "—", "—"]
        elif ort is not None:
            on = ort[case.name].get("median_ns")
            oratio = bn / on if bn and on else None
            otarget = ORT_TARGETS.get(case.group)
            cells += [fmt_time(on) if on else "error: " + str(ort[case.name].get("error")),
                      "n/a" if oratio is None else f"{oratio:.2f}", "—" if otarget is None else f"≤ {otarget}",
                      met(oratio, otarget)]
        if with_twin and not case.f32_twin:
            cells += ["—", "—", "—"]
        elif with_twin:
            fn = twin_ns.get(case.f32_twin)
            fratio = bn / fn if bn and fn else None
            ftarget = F32_TWIN_TARGETS.get(case.group)
            cells += ["n/a" if fratio is None else f"{fratio:.3f} ({1 / fratio:.2f}x as fast)",
                      "—" if ftarget is None else f"≤ {ftarget}", met(fratio, ftarget)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def durable_table(rows, durable):
    """The record saves against torch.save made durable (a reference: the target stays plain torch.save)."""
    head = ["case", "burn-cpp median", "torch.save median", "burn/torch.save (target)",
            "torch.save + fsync + rename median", "burn/durable torch.save"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for case, b, t, _ in rows:
        if case.name not in durable:
            continue
        bn, tn, dn = b.get("median_ns"), t.get("median_ns"), durable[case.name].get("median_ns")
        r = lambda x, y: f"{x / y:.2f}" if x and y else "n/a"
        lines.append("| " + " | ".join([case.name, fmt_time(bn), fmt_time(tn), r(bn, tn),
                                        fmt_time(dn) if dn else "error", r(bn, dn)]) + " |")
    return "\n".join(lines) if len(lines) > 2 else ""


def blas_core(bin_dir):
    """The OpenBLAS core the cpu plugin reports (`burn devices`), and the OPENBLAS_CORETYPE the run inherits."""
    line = "not reported"
    try:
        out = subprocess.run([os.path.join(bin_dir, "burn"), "devices"], capture_output=True, text=True,
                             timeout=60).stdout
        line = next((l.strip() for l in out.splitlines() if "OpenBLAS core" in l), line)
    except (OSError, subprocess.SubprocessError):
        pass
    return f"{line}; OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')} for both sides"


def lscpu():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    except OSError:
        return {}
    info = {}
    for line in out.splitlines():
        k, _, v = line.partition(":")
        info[k.strip()] = v.strip()
    return info


def busy_compilers():
    out = subprocess.run(["pgrep", "-c", "cc1plus"], capture_output=True, text=True).stdout.strip()
    return int(out or 0)


def git_rev():
    out = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"], capture_output=True, text=True)
    return out.stdout.strip() or "unknown"


EPOCH_WHAT = ("One Fashion-MNIST epoch (60,000 images, batch 64, Adam, 2 loader workers, 2 compute threads) of the "
              "MLP 784-512-512-10 and the small CNN, burn-data's loader and burn-nn on `autodiff<cpu>` against "
              "`torch.utils.data.DataLoader` and `torch.optim.Adam` (bench/train_epoch.py), then the test accuracy. "
              "Target: burn's epoch at most 0.7x PyTorch's; the accuracies are reported, with no target.")
REMOTE_WHAT = ("One op and the MLP train step on `remote<tcp://127.0.0.1:PORT>` and `autodiff<remote<...>>` against a "
               "`burn server --device cpu` on loopback that the run starts and stops (bench/remote_table.py), each next "
               f"to the same on local `cpu` / `autodiff<cpu>`; the server's cpu backend gets the {THREADS} threads the "
               "local side has, and client and server share the machine. 'sent' and 'received': bytes per op or step "
               "counted by the client, headers included; 'round trips': the waits for the server per op or step, and "
               "the ops that waited. Targets (docs/decisions.md): the op sent without waiting at least half the local "
               "op rate (remote/local ≤ 2.0), read back within 50 µs, the MLP step remote/local ≤ 1.5.")
FUSION_WHAT = ("Each fused case on `fusion<cpu>` next to its unfused twin on `cpu`, one memory pass (the case's bytes at "
               "the triad bandwidth) and PyTorch (bench/fusion_table.py). Targets, per row: the elementwise chain "
               "within 1.3x of one memory pass; softmax and layer_norm (input ready, so the eager kernel) at most 0.5x "
               "PyTorch; fused at most 1.0x unfused (median of alternating rounds, the nn steps from pairs of steps "
               "in one process); recording one op at most 1 µs.")


def sections(rows, limits, meta, durable=None, epoch=None, fusion=None, dist=None, remote=None):
    """The page's tables in order: (title, what it measures, markdown table or '' when not run)."""
    out = []
    twins = {case.name: b.get("median_ns") for case, b, _, _ in rows}  # an f32 twin may be another section's row
    for title, groups, what in SECTIONS:
        mine = [r for r in rows if r[0].group in groups]
        if title == "Ops":
            text = table(mine, limits) if mine else ""
            mops = lambda r: f"{1e9 / r['median_ns'] / 1e6:.2f} M ops/s" if r and r.get("median_ns") else "n/a"
            for c, b, t, lt in mine:
                if c.name in FIXED_COST_WHAT:
                    text += (f"\n\nFixed cost per op ({FIXED_COST_WHAT[c.name]}): burn-cpp {mops(b)}, "
                             f"libtorch (C++) {mops(lt)}, PyTorch (from Python) {mops(t)}.")
        elif title in ("Model inference", "Quantized (int8)"):
            text = table(mine, limits, libtorch=False, ort=meta.get("onnxruntime", {}), twins=twins) if mine else ""
        else:
            text = table(mine, limits, libtorch=False, twins=twins) if mine else ""
        if title == "Records" and durable:
            text += "\n\nThe saves against a durable `torch.save` (reference):\n\n" + durable_table(mine, durable)
        out.append((title, what, text))
        if title == "Train steps":
            import train_epoch  # the epoch's table, after the steps it is made of
            out.append(("Fashion-MNIST epoch", EPOCH_WHAT, train_epoch.table(epoch or [])))
            import distributed  # then the same training on 2 ranks, and the collectives under it
            out.append(("Distributed", distributed.WHAT, distributed.markdown(dist)))
    import fusion_table
    import remote_table
    out.append(("Fusion pairs", FUSION_WHAT, fusion_table.markdown(fusion or [])))
    out.append(("Remote", REMOTE_WHAT, remote_table.markdown(remote or [])))
    return out


def markdown(path, rows, limits, meta, cmd, durable=None, epoch=None, fusion=None, dist=None, remote=None):
    """Writes the benchmark page whole: the machine, the run, one section per table (the history: JOURNAL)."""
    cpu = meta["lscpu"]
    with open(path, "w", encoding="utf-8") as f:
        f.write("# Benchmarks\n\n")
        f.write("burn-cpp against PyTorch (and, where named, libtorch and ONNX Runtime) on the same machine in one run "
                f"of `{cmd}`, cases alternating sides, {THREADS} threads on every side, medians. This page holds the "
                f"current figures and is rewritten whole by that command; how each number was reached, dated, is in "
                f"the [benchmark journal]({JOURNAL}).\n\n")
        f.write(f"Date: {meta['date']}; commit `{meta['git']}`; PyTorch {meta['torch']}; "
                f"libtorch {meta.get('libtorch') or 'not built'}; {meta['repetitions']} repetitions per case, "
                f"min time per repetition {meta['min_time']} s; compiler processes (cc1plus) running at start / end: "
                f"{meta['busy_start']} / {meta['busy_end']}; wall time {meta.get('wall_s', 0) / 60:.0f} min.\n\n")
        f.write("## Machine\n\n")
        f.write(f"- CPU: {cpu.get('Model name', platform.processor())} (family {cpu.get('CPU family', '?')}, "
                f"model {cpu.get('Model', '?')}), {cpu.get('CPU(s)', '?')} CPUs, "
                f"{cpu.get('Thread(s) per core', '?')} thread(s) per core, "
                f"hypervisor {cpu.get('Hypervisor vendor', 'none')}\n")
        f.write(f"- Caches: L1d {cpu.get('L1d cache', '?')}, L2 {cpu.get('L2 cache', '?')}, "
                f"L3 {cpu.get('L3 cache', '?')}\n")
        f.write(f"- Flags: `{cpu.get('Flags', '?')}`\n")
        if meta.get("blas"):
            f.write(f"- BLAS: {meta['blas']} (PyTorch's OpenBLAS reads the same variable)\n")
        f.write(f"- GEMM limit: {limits['gemm_gflops']:.1f} GFLOP/s (raw OpenBLAS SGEMM {limits['gemm_n']}², "
                f"{THREADS} threads, best of 10, core {limits.get('gemm_core', '?')}: the fastest of the inherited "
                f"OPENBLAS_CORETYPE, OpenBLAS's own detection and the cpu plugin's choice; "
                f"`bench/limits/sgemm_peak.cpp`)\n")
        f.write(f"- Memory limit: {limits['triad_gbs']:.2f} GB/s (triad on 3 x 64M floats, {THREADS} threads, "
                f"best of 10, write-allocate not counted; `bench/limits/triad.cpp`)\n")
        if "read_gbs" in limits:
            f.write(f"- Read limit: {limits['read_gbs']:.2f} GB/s (sum of 64M floats, {THREADS} threads, best of 10; "
                    f"`bench/limits/read.cpp`), the limit of the reductions\n")
        if "fault_us" in limits:
            f.write(f"- Fresh memory: {limits['fault_us']:.2f} µs per 4 KiB page on first touch, "
                    f"{limits['fault_ms']:.1f} ms for a new 64 MiB buffer (median of 10; `bench/limits/fault.cpp`). "
                    "PyTorch's CPU allocator gives blocks above glibc's mmap threshold back to the system, so each "
                    "large output it makes pays this; burn's cpu plugin keeps its buffers. Where the figure is far "
                    "above bare metal's (about 0.1-0.3 µs), the large elementwise rows measure that cost more than "
                    "the kernels\n")
        f.write("\nRatios are times burn/other (lower is better); 'met' says whether the ratio is within the target. "
                "'% of limit' is achieved FLOP/s over the GEMM limit for the GEMM-bound cases, bytes moved (inputs "
                "read once, output written once) per second over the read limit for the reductions and over the "
                "triad for the rest.\n\n")
        for title, what, text in sections(rows, limits, meta, durable, epoch, fusion, dist, remote):
            f.write(f"## {title}\n\n{what}\n\n{text or '(not run)'}\n\n")
        f.write("## Vulkan, OpenCL and GPUs\n\nNot part of this run (this machine has no GPU): `bash bench/run.sh --vulkan` "
                "measures the Vulkan plugin on lavapipe (a correctness device on the CPU: fixed cost per dispatch, "
                "dispatches fusion saves), and `bench/gpu/pack.sh` packs the GPU cases for a machine with a GPU. "
                f"The last GPU run, as committed in {GPU_RESULTS} (its causes and history in the "
                f"[journal]({JOURNAL}), \"GPU\"):\n\n")
        gpu = os.path.join(ROOT, GPU_RESULTS)
        f.write(open(gpu).read() if os.path.exists(gpu) else "(none committed)\n")


def programs(todo, epoch_and_fusion=True, remote=()):
    """The programs a run calls: the cases' own, the limits, those of the epoch and the fusion pairs, and those
    of the remote rows (`remote`: remote_table's selected rows; the burn server is checked apart)."""
    out = sorted({f"burn-bench-{c.program}" for c in todo}) + ["burn-limit-sgemm", "burn-limit-triad", "burn-limit-read",
                                                              "burn-limit-fault"]
    out += [f"burn-bench-{case.program}" for row in remote for case in row[1:3]]
    if epoch_and_fusion:
        import fusion_table
        out += ["burn-bench-train-epoch", "burn-bench-fusion-pairs"]
        out += [f"burn-bench-{row[1].program}" for row in fusion_table.rows()]
    return sorted(set(out))


def run_distributed(build_dir, quick, log):
    """The Distributed section's measurements (bench/distributed.py), or {"error": why} when a job failed."""
    import distributed
    try:
        return distributed.measure(build_dir, quick=quick, log=log)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, IndexError) as e:
        why = (getattr(e, "stderr", None) or "").strip()[-300:] if not isinstance(e, IndexError) else "no output"
        print(f"distributed: {e}: {why}", file=sys.stderr)
        return {"error": f"{str(e)[:200]} {why}"}


def print_sections(rows, limits, meta, durable, epoch, fusion, dist=None, remote=None):
    for title, _, text in sections(rows, limits, meta, durable, epoch, fusion, dist, remote):
        if text:
            print(f"\n## {title}\n\n{text}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help="one row of each table, 3 short repetitions, the MLP epoch once (prints only)")
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build", "release"))
    ap.add_argument("--markdown", help="write the results page (BENCHMARKS.md) here")
    ap.add_argument("--json", help="write every measurement here")
    ap.add_argument("--only", help="run only the cases whose name matches this regex (no epoch, no fusion pairs; "
                    "the remote rows whose remote case matches: --only remote runs that section alone)")
    ap.add_argument("--command", default=None, help="the command line to quote in the markdown page")
    ap.add_argument("--from-json", help="print (and with --markdown write) the page's tables from a saved --json run")
    ap.add_argument("--section", choices=("distributed",),
                    help="run only this section of the page (with --quick: its quick row) and print it")
    a = ap.parse_args()
    sys.path.insert(0, HERE)  # train_epoch, fusion_table and remote_table, imported for their sections
    import remote_table

    if a.from_json:
        saved = json.load(open(a.from_json))
        by_name = {c.name: c for c in cases()}
        rows = [(by_name[r["name"]], r["burn"], r["torch"], r.get("libtorch")) for r in saved["cases"]]
        durable = {r["name"]: r["torch_durable"] for r in saved["cases"] if r.get("torch_durable")}
        epoch, fusion, dist = saved.get("epoch"), [tuple(r) for r in saved.get("fusion") or []], saved.get("distributed")
        remote = saved.get("remote")
        print_sections(rows, saved["limits"], saved["meta"], durable, epoch, fusion, dist, remote)
        if a.markdown:
            markdown(a.markdown, rows, saved["limits"], saved["meta"], a.command or "bash bench/run.sh", durable,
                     epoch, fusion, dist, remote)
        return 0

    if a.section:  # one section alone (today: distributed), no limits, no PyTorch
        log = lambda m: print(m, flush=True)
        dist = run_distributed(a.build_dir, a.quick, log)
        import distributed
        print(f"\n## Distributed\n\n{distributed.markdown(dist)}")
        if a.json:
            with open(a.json, "w") as f:
                json.dump({"distributed": dist}, f, indent=1)
        return 0 if dist and "error" not in dist else 1

    # Full: 7 x 0.3 s took 15 min 9 s for the op and module cases; 6 x 0.25 s aims under 15 minutes.
    reps, min_time, warmup = (3, 0.1, 0.05) if a.quick else (6, 0.25, 0.1)
    bin_dir = os.path.join(a.build_dir, "bin")
    todo = [c for c in cases() if (not a.quick or c.name in QUICK_CASES) and (not a.only or re.search(a.only, c.name))]
    keep = {c.name for c in todo} | {c.f32_twin for c in todo if c.f32_twin}  # --only: the twins its rows divide by
    todo = [c for c in cases() if c.name in keep]
    remote_rows = remote_table.selected(a.only, a.quick)
    missing = [p for p in programs(todo, epoch_and_fusion=not a.only, remote=remote_rows)
               if not os.path.exists(os.path.join(bin_dir, p))]
    if remote_rows and not os.path.exists(remote_table.server_path(a.build_dir)):
        missing.append(os.path.relpath(remote_table.server_path(a.build_dir), a.build_dir))
    if missing:  # the `burn-bench` target builds them all (bench/CMakeLists.txt)
        print(f"bench/run.py: {bin_dir} lacks {', '.join(missing)}: build the burn-bench target "
              "(cmake --build build/release --target burn-bench, with -DBURN_BUILD_BENCH=ON)", file=sys.stderr)
        return 2
    meta = {"date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), "git": git_rev(), "lscpu": lscpu(),
            "busy_start": busy_compilers(), "repetitions": reps, "min_time": min_time,
            "blas": blas_core(bin_dir)}
    if meta["busy_start"]:
        print(f"warning: {meta['busy_start']} compiler processes are running; numbers will be noisy", file=sys.stderr)

    t_start = time.time()
    gemm = gemm_limit(bin_dir, 10 if not a.quick else 4)
    triad = run_limit(os.path.join(bin_dir, "burn-limit-triad"), [M64, THREADS, 10 if not a.quick else 4])
    read = run_limit(os.path.join(bin_dir, "burn-limit-read"), [M64, THREADS, 10 if not a.quick else 4])
    fault = run_limit(os.path.join(bin_dir, "burn-limit-fault"), [64 << 20, 10 if not a.quick else 4])
    limits = {"gemm_gflops": gemm["best_gflops"], "gemm_n": gemm["n"], "gemm_core": gemm.get("core", "?"),
              "triad_gbs": triad["best_gbs"],
              "read_gbs": read["best_gbs"], "fault_us": fault["median_us_per_page"], "fault_ms": fault["median_ms"]}
    print(f"limits: SGEMM {limits['gemm_gflops']:.1f} GFLOP/s ({limits['gemm_core']}), triad {limits['triad_gbs']:.2f} GB/s, "
          f"read {limits['read_gbs']:.2f} GB/s ({THREADS} threads), fresh memory {limits['fault_us']:.2f} µs per "
          f"4 KiB page", flush=True)

    torch = Torch()
    meta["torch"] = torch.version()
    meta["quick"] = a.quick
    have_libtorch = os.path.exists(os.path.join(bin_dir, "burn-bench-libtorch"))
    if not have_libtorch and any(c.cpp_peer for c in todo):
        print("note: no burn-bench-libtorch in the build (libtorch-dev missing at configure time); "
              "the fixed-cost cases get no C++ peer", file=sys.stderr)
    rows = []
    durable = {}  # case name -> the durable torch peer's result
    for case in todo:
        b = run_burn(bin_dir, case, reps, min_time, warmup)
        lt = None
        if case.cpp_peer and have_libtorch:
            # The same Google Benchmark settings; it picks its own iteration count for the same min time.
            lt = run_burn(bin_dir, case, reps, min_time, warmup, program="libtorch")
            meta.setdefault("libtorch", lt.get("context", {}).get("torch_version"))
        iters = b.get("iterations", 1)
        t = torch.run(case.name, iters, reps, warmup)
        if case.ort_batch:
            o = run_ort(case, iters, reps)
            on = o.get("median_ns")
            print(f"  {case.name:40s} onnxruntime {fmt_time(on) if on else o.get('error')}"
                  + (f"  burn/onnxruntime {b['median_ns'] / on:.2f}" if on and b.get("median_ns") else ""))
            meta.setdefault("onnxruntime", {})[case.name] = o
        rows.append((case, b, t, lt))
        bn, tn = b.get("median_ns"), t.get("median_ns")
        ln = lt.get("median_ns") if lt else None
        ratio = f"{bn / tn:.2f}" if bn and tn else "n/a"
        peer = f"  libtorch {fmt_time(ln):>10s}  ratio {bn / ln:.2f}" if bn and ln else ""
        print(f"  {case.name:40s} burn {fmt_time(bn):>10s}  torch {fmt_time(tn):>10s}  ratio {ratio}{peer}"
              + (f"  burn error: {b['error']}" if "error" in b else "")
              + (f"  libtorch error: {lt['error']}" if lt and "error" in lt else "")
              + (f"  torch error: {t['error']}" if "error" in t else ""), flush=True)
        if case.durable_peer:
            d = durable[case.name] = torch.run(case.durable_peer, iters, reps, warmup)
            dn = d.get("median_ns")
            print(f"  {case.durable_peer:40s} torch {fmt_time(dn) if dn else d.get('error')}"
                  + (f"  burn/durable torch {b['median_ns'] / dn:.2f}" if dn and b.get("median_ns") else "")
                  + "  (reference, not the target)", flush=True)
    epoch, fusion, dist = None, None, None
    if not a.only:  # the two tables of their own scripts, folded in: the epoch, then the fusion pairs
        import fusion_table
        import train_epoch
        log = lambda m: print(m, flush=True)
        try:
            epoch = train_epoch.measure(a.build_dir, models=("mlp",) if a.quick else train_epoch.MODELS,
                                        repeats=1 if a.quick else 2, log=log)
        except subprocess.CalledProcessError as e:  # e.g. no Fashion-MNIST files: the page says "(not run)"
            print(f"epoch: {' '.join(e.cmd)} failed: {(e.stderr or '').strip()[-300:]}", file=sys.stderr)
        dist = run_distributed(a.build_dir, a.quick, log)
        try:
            fusion = fusion_table.measure(bin_dir, torch, *((3, 0.1, 2) if a.quick else (6, 0.25, 5)),
                                          only=QUICK_FUSION_ROWS if a.quick else None, log=log)
        except subprocess.CalledProcessError as e:
            print(f"fusion pairs: {' '.join(e.cmd)} failed: {(e.stderr or '').strip()[-300:]}", file=sys.stderr)
    remote = None
    if remote_rows:  # its own burn server, started and stopped inside (bench/remote_table.py)
        try:
            remote = remote_table.measure(a.build_dir, reps, min_time, warmup, a.only, a.quick,
                                          log=lambda m: print(m, flush=True))
        except Exception as e:  # the server did not start, or died: the section says "(not run)", the page is written
            print(f"remote: {type(e).__name__}: {e}", file=sys.stderr)
    torch.close()
    meta["busy_end"] = busy_compilers()
    meta["wall_s"] = time.time() - t_start

    print_sections(rows, limits, meta, durable, epoch, fusion, dist, remote)
    print(f"\n{len(rows)} cases{', the epoch, distributed and the fusion pairs' if epoch else ''} in "
          f"{meta['wall_s']:.0f} s; "
          f"compiler processes at start/end: {meta['busy_start']}/{meta['busy_end']}; load average at end: "
          f"{os.getloadavg()[0]:.1f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"limits": limits, "meta": meta, "epoch": epoch, "fusion": fusion, "distributed": dist,
                       "remote": remote,
                       "cases": [dict({"name": c.name, "burn": b, "torch": t, "libtorch": lt},
                                      **({"torch_durable": durable[c.name]} if c.name in durable else {}))
                                 for c, b, t, lt in rows]},
                      f, indent=1)
    if a.markdown:
        markdown(a.markdown, rows, limits, meta, a.command or "bash bench/run.sh", durable, epoch, fusion, dist,
                 remote)
        print(f"wrote {a.markdown}")
    remote_ok = not remote_rows or (remote and all("error" not in r["local"] and "error" not in r["remote"]
                                                   for r in remote))
    return 0 if remote_ok and all("error" not in b and "error" not in t and "error" not in (lt or {})
                                  for _, b, t, lt in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
