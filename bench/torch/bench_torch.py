"""The PyTorch side of the benchmarks: the same workloads as the burn-bench-* programs, same names.

Run with /usr/bin/python3 (it has torch). Two modes:
  bench_torch.py --list                      print the case names
  bench_torch.py --serve                     read "name iterations repetitions warmup_s" lines on stdin,
                                             answer one JSON line per request (used by bench/run.py so
                                             that burn and torch cases alternate in one run)
  bench_torch.py NAME [ITERS REPS WARMUP_S]  time one case and print its JSON line
Each repetition times ITERS calls with time.perf_counter; the answer holds every repetition's
per-call time and their median, in nanoseconds.
"""
import json
import os
import statistics
import sys
import tempfile
import time

THREADS = int(os.environ.get("BURN_NUM_THREADS", "2"))
os.environ.setdefault("OMP_NUM_THREADS", str(THREADS))

import torch  # noqa: E402  (after OMP_NUM_THREADS, which OpenMP reads at start-up)
import torch.nn.functional as F  # noqa: E402

torch.set_num_threads(THREADS)
torch.set_grad_enabled(False)
torch.manual_seed(1234)

M16 = 16 << 20
M64 = 64 << 20


BF16 = torch.bfloat16


def uniform(*shape, dtype=torch.float32):
    """Uniform in [-1, 1) made in f32, then converted to `dtype` (the bf16 cases)."""
    return (torch.rand(*shape, dtype=torch.float32) * 2 - 1).to(dtype)


def unary(n, fn, dtype=torch.float32):
    x = uniform(n, dtype=dtype)
    return lambda: fn(x)


def binary(n, fn, dtype=torch.float32):
    a, b = uniform(n, dtype=dtype), uniform(n, dtype=dtype)
    return lambda: fn(a, b)


def matmul(shape_a, shape_b, dtype=torch.float32):
    a, b = uniform(*shape_a, dtype=dtype), uniform(*shape_b, dtype=dtype)
    return lambda: torch.matmul(a, b)


def on_4096x4096(fn, dtype=torch.float32):
    x = uniform(4096, 4096, dtype=dtype)
    return lambda: fn(x)


def on_4096x1024(fn):
    x = uniform(4096, 1024)
    return lambda: fn(x)


# name -> factory that makes the inputs (kept alive by the closure) and returns the timed call.
CASES = {
    "matmul/256": lambda: matmul((256, 256), (256, 256)),
    "matmul/1024": lambda: matmul((1024, 1024), (1024, 1024)),
    "matmul/2048": lambda: matmul((2048, 2048), (2048, 2048)),
    "matmul_batched/32x128x64@32x64x128": lambda: matmul((32, 128, 64), (32, 64, 128)),
    "sum/4096x4096": lambda: on_4096x4096(lambda x: x.sum()),
    "sum_dim_last/4096x4096": lambda: on_4096x4096(lambda x: x.sum(dim=1, keepdim=True)),
    "sum_dim_first/4096x4096": lambda: on_4096x4096(lambda x: x.sum(dim=0, keepdim=True)),
    "argmax_last/4096x4096": lambda: on_4096x4096(lambda x: torch.argmax(x, dim=1, keepdim=True)),
    "softmax/4096x1024": lambda: on_4096x1024(lambda x: torch.softmax(x, dim=1)),
    "log_softmax/4096x1024": lambda: on_4096x1024(lambda x: torch.log_softmax(x, dim=1)),
    "tiny_add/1x8": lambda: binary_2d_tiny(),
}
for label, n in (("16M", M16), ("64M", M64)):
    CASES.update({
        f"add/{label}": (lambda n=n: binary(n, lambda a, b: a + b)),
        f"mul/{label}": (lambda n=n: binary(n, lambda a, b: a * b)),
        f"exp/{label}": (lambda n=n: unary(n, torch.exp)),
        f"gelu/{label}": (lambda n=n: unary(n, F.gelu)),
        f"chain_exp_relu_affine/{label}": (lambda n=n: unary(n, lambda x: torch.exp(torch.relu(x * 2 + 1)))),
        f"relu/{label}": (lambda n=n: unary(n, torch.relu)),
        # bf16: the inputs made as a PyTorch user makes them (f32 .to(torch.bfloat16)), the op on bf16 tensors
        f"add_bf16/{label}": (lambda n=n: binary(n, lambda a, b: a + b, BF16)),
        f"mul_bf16/{label}": (lambda n=n: binary(n, lambda a, b: a * b, BF16)),
        f"exp_bf16/{label}": (lambda n=n: unary(n, torch.exp, BF16)),
        f"gelu_bf16/{label}": (lambda n=n: unary(n, F.gelu, BF16)),
        f"relu_bf16/{label}": (lambda n=n: unary(n, torch.relu, BF16)),
        f"cast_f32_bf16/{label}": (lambda n=n: unary(n, lambda x: x.to(torch.bfloat16))),
    })
CASES["matmul_bf16/1024"] = lambda: matmul((1024, 1024), (1024, 1024), BF16)
CASES["sum_bf16/4096x4096"] = lambda: on_4096x4096(lambda x: x.sum(), BF16)
CASES["sum_dim_last_bf16/4096x4096"] = lambda: on_4096x4096(lambda x: x.sum(dim=1, keepdim=True), BF16)


def conv_case(x_shape, w_shape, stride, padding, backward):
    x, w, b = uniform(*x_shape), uniform(*w_shape), uniform(w_shape[0])
    y = F.conv2d(x, w, b, stride, padding)
    gy = uniform(*y.shape)

    def fwd():
        return F.conv2d(x, w, b, stride, padding)

    def fwd_bwd():  # the same kernels autograd runs, without the autograd bookkeeping
        out = F.conv2d(x, w, b, stride, padding)
        grads = torch.ops.aten.convolution_backward(gy, x, w, [w_shape[0]], [stride] * 2, [padding] * 2, [1, 1],
                                                    False, [0, 0], 1, [True, True, True])
        return out, grads
    return fwd_bwd if backward else fwd


def attention_case(causal):
    q, k, v = (uniform(2, 8, 1024, 64) for _ in range(3))
    mask = torch.ones(1024, 1024, dtype=torch.bool).triu(1)

    def run():  # torch 1.13 has no fused scaled_dot_product_attention: the math path
        s = q @ k.transpose(-2, -1) * (64 ** -0.5)
        if causal:
            s = s.masked_fill(mask, float("-inf"))
        return torch.softmax(s, dim=-1) @ v
    return run


def image(*shape):
    x = uniform(*shape)
    return x


CONV = {"n16_c64_56x56_k3_p1": ((16, 64, 56, 56), (64, 64, 3, 3), 1, 1),
        "n1_c3_224x224_k7_s2_p3": ((1, 3, 224, 224), (64, 3, 7, 7), 2, 3)}
for cname, (xs, ws, st, pd) in CONV.items():
    CASES[f"conv2d/{cname}"] = (lambda xs=xs, ws=ws, st=st, pd=pd: conv_case(xs, ws, st, pd, False))
    CASES[f"conv2d_fwd_bwd/{cname}"] = (lambda xs=xs, ws=ws, st=st, pd=pd: conv_case(xs, ws, st, pd, True))
for c in (32, 128):
    sz = f"2x{c}x512x512"
    for label, k, st, pd in (("2x2s2", 2, 2, 0), ("3x3s2p1", 3, 2, 1)):
        CASES[f"max_pool2d_{label}/{sz}"] = (
            lambda c=c, k=k, st=st, pd=pd: (lambda x: lambda: F.max_pool2d(x, k, st, pd))(image(2, c, 512, 512)))
        CASES[f"max_pool2d_with_indices_{label}/{sz}"] = (
            lambda c=c, k=k, st=st, pd=pd: (lambda x: lambda: F.max_pool2d(x, k, st, pd, return_indices=True))(
                image(2, c, 512, 512)))
        CASES[f"avg_pool2d_{label}/{sz}"] = (
            lambda c=c, k=k, st=st, pd=pd: (lambda x: lambda: F.avg_pool2d(x, k, st, pd))(image(2, c, 512, 512)))
CASES["max_pool2d_3x3s2p1/1x64x112x112"] = lambda: (lambda x: lambda: F.max_pool2d(x, 3, 2, 1))(image(1, 64, 112, 112))
for mode, tmode in (("bilinear", "bilinear"), ("nearest", "nearest"), ("bicubic", "bicubic")):
    CASES[f"interpolate_{mode}_2x/2x32x256x256"] = (
        lambda tmode=tmode: (lambda x: lambda: F.interpolate(
            x, size=(512, 512), mode=tmode, **({} if tmode == "nearest" else {"align_corners": False})))(
            image(2, 32, 256, 256)))
CASES["layer_norm/64x1024x768"] = lambda: (lambda x, w, b: lambda: F.layer_norm(x, (768,), w, b))(
    uniform(64, 1024, 768), uniform(768), uniform(768))
CASES["attention/b2h8l1024e64"] = lambda: attention_case(False)
CASES["attention_causal/b2h8l1024e64"] = lambda: attention_case(True)


def params(*shapes):
    return [(torch.rand(*s) * 0.1 - 0.05).requires_grad_() for s in shapes]


def with_grad(step):
    """Autograd cases run with grad enabled (the rest of this file times under no_grad)."""
    def run():
        with torch.enable_grad():
            return step()
    return run


def mlp_step():
    w1, w2, w3, b1, b2, b3 = params((784, 512), (512, 512), (512, 10), (512,), (512,), (10,))
    x = uniform(128, 784)
    y = (torch.rand(128, 1) * 10).long()

    def step():  # autograd.grad returns the gradients without accumulating into .grad
        h1 = (x @ w1 + b1).relu()
        h2 = (h1 @ w2 + b2).relu()
        loss = -torch.log_softmax(h2 @ w3 + b3, 1).gather(1, y).mean()
        return torch.autograd.grad(loss, [w1, w2, w3, b1, b2, b3])
    return with_grad(step)


def conv_block_step():
    w1, w2, b1, b2 = params((32, 32, 3, 3), (32, 32, 3, 3), (32,), (32,))
    x = uniform(8, 32, 32, 32)

    def step():
        h = F.conv2d(x, w1, b1, 1, 1).relu()
        loss = F.conv2d(h, w2, b2, 1, 1).relu().mean()
        return torch.autograd.grad(loss, [w1, w2, b1, b2])
    return with_grad(step)


def autodiff_tiny_add():
    a, b = uniform(1, 8).requires_grad_(), uniform(1, 8)
    return with_grad(lambda: a + b)


CASES["mlp_step/784-512-512-10_b128"] = mlp_step
CASES["conv_block_step/n8_c32_32x32"] = conv_block_step
CASES["autodiff_tiny_add/1x8"] = autodiff_tiny_add


# burn-nn workloads as PyTorch users write them: nn modules, F.cross_entropy, torch.optim.Adam.
def train_step(model, x, y):
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step():
        opt.zero_grad(set_to_none=True)
        F.cross_entropy(model(x), y).backward()
        opt.step()
    return with_grad(step)


def make_mlp():
    """784-512-512-10, as bench/nn_models.hpp."""
    return torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512),
                               torch.nn.ReLU(), torch.nn.Linear(512, 10))


def make_small_cnn():
    """conv 3x3 1->32, pool, conv 3x3 32->64, pool, 3136-128-10, as bench/nn_models.hpp."""
    return torch.nn.Sequential(torch.nn.Conv2d(1, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
                               torch.nn.Conv2d(32, 64, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
                               torch.nn.Flatten(), torch.nn.Linear(64 * 7 * 7, 128), torch.nn.ReLU(),
                               torch.nn.Linear(128, 10))


def nn_mlp_train():
    return train_step(make_mlp(), uniform(128, 784), (torch.rand(128) * 10).long())


def nn_cnn_train():
    return train_step(make_small_cnn(), uniform(64, 1, 28, 28), (torch.rand(64) * 10).long())


def nn_transformer_layer():
    layer = torch.nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0, batch_first=True)
    x = uniform(16, 128, 256).requires_grad_()
    params = [x] + list(layer.parameters())

    def step():
        return torch.autograd.grad(layer(x).mean(), params)
    return with_grad(step)


def nn_resnet18(batch):
    import torchvision
    model = torchvision.models.resnet18().eval()
    x = uniform(batch, 3, 224, 224)
    return lambda: model(x)


def nn_resnet50(batch):
    import torchvision
    model = torchvision.models.resnet50().eval()
    x = uniform(batch, 3, 224, 224)

    def run():
        with torch.inference_mode():
            return model(x)
    return run


CASES["nn_mlp_train_adam/784-512-512-10_b128"] = nn_mlp_train
CASES["nn_cnn_train_adam/b64_28x28"] = nn_cnn_train
CASES["nn_transformer_layer_fwd_bwd/d256_h4_s128_b16"] = nn_transformer_layer
CASES["nn_resnet18_infer/b1_224"] = lambda: nn_resnet18(1)
CASES["nn_resnet18_infer/b8_224"] = lambda: nn_resnet18(8)
# The ONNX-imported ResNet-18 is the same network: PyTorch's side is the same module.
CASES["nn_resnet18_onnx_infer/b1_224"] = lambda: nn_resnet18(1)
CASES["nn_resnet18_onnx_infer/b8_224"] = lambda: nn_resnet18(8)


# The Linear 768->3072 of the int8 rows at batch 128: f32, and as a PyTorch user quantizes it dynamically:
# quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8) (weights int8 per tensor; engine
# torch.backends.quantized.engine: onednn in Debian's 1.13, which has no fbgemm). quantize_dynamic swaps a model's
# children, never the model itself, so the layer sits in a Sequential.
def nn_linear(int8):
    model = torch.nn.Sequential(torch.nn.Linear(768, 3072)).eval()
    if int8:
        model = torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
        assert isinstance(model[0], torch.nn.quantized.dynamic.Linear) and model[0].weight().dtype == torch.qint8
    x = uniform(128, 768)
    return lambda: model(x)


CASES["nn_linear_f32/768-3072_b128"] = lambda: nn_linear(False)
CASES["nn_linear_int8_dynamic/768-3072_b128"] = lambda: nn_linear(True)
# ResNet-50: burn's cpu and fusion<cpu> rows both against PyTorch's eager module.
for _batch in (1, 8):
    for _case in ("nn_resnet50_infer", "nn_resnet50_infer_fused"):
        CASES[f"{_case}/b{_batch}_224"] = lambda batch=_batch: nn_resnet50(batch)


def roberta_twin():
    """examples/models/gen_fixture_roberta.py's plain-PyTorch twin of transformers' RobertaModel (Debian
    has no transformers), roberta-base's config."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "models"))
    from gen_fixture_roberta import Config, RobertaModel
    return RobertaModel(Config())


def nn_roberta_base(batch, int8=False):
    """RoBERTa-base inference: eval, [batch, 128] token ids, an all-ones attention mask; `int8`: its Linear
    layers through torch's quantize_dynamic (qint8), the int8 rows' peer."""
    model = roberta_twin().eval()
    if int8:
        model = torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
    ids = torch.randint(3, 50000, (batch, 128))
    mask = torch.ones_like(ids)

    def run():
        with torch.inference_mode():
            return model(ids, mask)
    return run


def nn_roberta_base_train():
    """One AdamW step (eps 1e-8, weight decay 0.01) of RoBERTa-base with a 2-class Linear on the pooled <s>,
    train mode (dropout 0.1), [8, 128] token ids, as bench_nn.cpp's RobertaClassifier."""
    roberta, classifier = roberta_twin().train(), torch.nn.Linear(768, 2)
    ids, y = torch.randint(3, 50000, (8, 128)), (torch.rand(8) * 2).long()
    opt = torch.optim.AdamW(list(roberta.parameters()) + list(classifier.parameters()), lr=1e-5, eps=1e-8,
                            weight_decay=0.01)

    def step():
        opt.zero_grad(set_to_none=True)
        F.cross_entropy(classifier(roberta(ids)[1]), y).backward()
        opt.step()
    return with_grad(step)


CASES["nn_roberta_base_train_adamw/b8_s128"] = nn_roberta_base_train
CASES["nn_roberta_base_train_adamw_fused/b8_s128"] = nn_roberta_base_train
# The ONNX-imported RoBERTa-base is the same network: PyTorch's side is the same module.
for _batch in (1, 8):
    for _case in ("nn_roberta_base_infer", "nn_roberta_base_infer_fused", "nn_roberta_base_onnx_infer"):
        CASES[f"{_case}/b{_batch}_s128"] = lambda batch=_batch: nn_roberta_base(batch)


# The int8 ONNX rows run burn's engine against ONNX Runtime on bench/onnxruntime/quantize_onnx.py's files; PyTorch's
# side is what a PyTorch user writes for int8 with this build's quantized engine (torch.backends.quantized.engine:
# onednn; Debian's torch has no fbgemm): torchvision's quantizable ResNet-18, fused, eager static quantization
# calibrated on 4 random images, and the RoBERTa twin under quantize_dynamic of its Linear layers.
def nn_resnet18_int8(batch):
    import warnings
    from torchvision.models import quantization
    model = quantization.resnet18(quantize=False).eval()
    model.fuse_model()
    model.qconfig = torch.ao.quantization.get_default_qconfig(torch.backends.quantized.engine)
    with warnings.catch_warnings():  # the observers' reduce_range deprecation
        warnings.simplefilter("ignore")
        torch.ao.quantization.prepare(model, inplace=True)
        for _ in range(4):
            model(uniform(1, 3, 224, 224))
        torch.ao.quantization.convert(model, inplace=True)
    x = uniform(batch, 3, 224, 224)

    def run():
        with torch.inference_mode():
            return model(x)
    return run


for _batch in (1, 8):
    CASES[f"nn_resnet18_int8_onnx_infer/b{_batch}_224"] = lambda batch=_batch: nn_resnet18_int8(batch)
    CASES[f"nn_roberta_base_int8_onnx_infer/b{_batch}_s128"] = lambda batch=_batch: nn_roberta_base(batch, int8=True)

# Records: torch.save / torch.load of the ResNet-50 state dict whose shapes are in
# bench/record_resnet50_shapes.txt, floats normal(0, 0.02), int64 counters 0: the workload of
# burn-bench-record. The same torch case serves each recorder's case name.
def resnet50_state_dict():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sd = {}
    with open(os.path.join(here, "record_resnet50_shapes.txt")) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            name, dtype, *dims = line.split()
            shape = tuple(int(d) for d in dims)
            sd[name] = torch.randn(shape) * 0.02 if dtype == "float32" else torch.zeros(shape, dtype=torch.int64)
    return sd


def record_path():
    d = os.path.join(os.environ.get("BURN_BENCH_TMP") or "/tmp", "burn-bench-record")
    os.makedirs(d, exist_ok=True)
    return os.path.join(d, "resnet50.pt")


def record_save():
    sd, path = resnet50_state_dict(), record_path()
    return lambda: torch.save(sd, path)


def record_save_durable():
    """What a PyTorch user who wants burn's guarantee writes: a temporary file in the same folder,
    flush, fsync, os.replace over the target, fsync of the folder (a reference, not the target)."""
    sd, path = resnet50_state_dict(), record_path()
    folder = os.path.dirname(path)

    def save():
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".resnet50.pt.tmp-")
        try:
            with os.fdopen(fd, "wb") as f:
                torch.save(sd, f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
        dfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    return save


def record_load():
    path = record_path()
    torch.save(resnet50_state_dict(), path)
    return lambda: torch.load(path)


for _recorder in ("zstd", "zstd_level0", "hdf5"):
    CASES[f"record_save/{_recorder}/resnet50"] = record_save
    CASES[f"record_load/{_recorder}/resnet50"] = record_load
    # Not a target: the durable save (fsync, rename) that burn's saves do, as a reference column.
    CASES[f"record_save_durable/{_recorder}/resnet50"] = record_save_durable


# Import: torch.load of a torchvision ResNet-18 state dict in the zip and legacy layouts,
# written here once per machine; burn-bench-import loads the same files.
def resnet18_pt(layout):
    import torchvision

    d = os.path.join(os.environ.get("BURN_BENCH_TMP") or "/tmp", "burn-bench-import")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, f"resnet18_{layout}.pt")
    if not os.path.exists(path):
        torch.manual_seed(0)
        torch.save(torchvision.models.resnet18().state_dict(), path + ".tmp",
                   _use_new_zipfile_serialization=layout == "zip")
        os.replace(path + ".tmp", path)
    return path


def pytorch_load(layout):
    path = resnet18_pt(layout)
    return lambda: torch.load(path)


for _layout in ("zip", "legacy"):
    CASES[f"import_pytorch_load/resnet18_{_layout}"] = lambda layout=_layout: pytorch_load(layout)


def binary_2d_tiny():
    a, b = uniform(1, 8), uniform(1, 8)
    return lambda: a + b


def time_case(name, iters, reps, warmup_s):
    fn = CASES[name]()
    deadline = time.perf_counter() + warmup_s
    fn()
    while time.perf_counter() < deadline:
        fn()
    per_call_ns = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        per_call_ns.append((time.perf_counter() - t0) / iters * 1e9)
    return {"name": name, "iterations": iters, "repetitions": reps, "threads": torch.get_num_threads(),
            "times_ns": per_call_ns, "median_ns": statistics.median(per_call_ns)}


def main(argv):
    if len(argv) > 1 and argv[1] == "--list":
        print("\n".join(CASES))
    elif len(argv) > 1 and argv[1] == "--serve":
        for line in sys.stdin:
            parts = line.split()
            if not parts:
                continue
            try:
                res = time_case(parts[0], int(parts[1]), int(parts[2]), float(parts[3]))
            except Exception as e:  # noqa: BLE001  (answer the driver rather than die mid-run)
                res = {"name": parts[0], "error": repr(e)}
            print(json.dumps(res), flush=True)
    elif len(argv) > 1:
        args = argv[2:] + ["100", "5", "0.5"][len(argv) - 2:]
        print(json.dumps(time_case(argv[1], int(args[0]), int(args[1]), float(args[2]))))
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
