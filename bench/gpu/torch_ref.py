#!/usr/bin/env python3
"""PyTorch CUDA references for bench/gpu/run.sh, one JSON line per result (the same case names and units
as burn-bench-gpu): GEMM N^3 in f32 (TF32 off: cuBLAS's f32) and f16, y = x * 2 and a device-to-device
copy of the same bytes, the ResNet-50 of examples/models/resnet.hpp (torchvision's Bottleneck network,
built here: the pack has no torchvision) with its batch norms folded (convs with bias) at batch 1 and 32, and the transformer encoder layer forward + backward (d 256, 4 heads,
ReLU feed-forward 1024, no dropout). Times are medians of CUDA-synchronised runs after a warm-up.
Usage: torch_ref.py [--smoke] [--size N] [--mib M]"""
import argparse
import json
import statistics
import time

import torch
from torch import nn


def timed(fn, reps):
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def emit(**kv):
    print(json.dumps(kv), flush=True)


class Bottleneck(nn.Module):
    """torchvision's Bottleneck folded: 1x1 reduce, 3x3 with the stride (v1.5), 1x1 expand (x4)."""

    def __init__(self, cin, planes, stride):
        super().__init__()
        cout = 4 * planes
        self.conv1 = nn.Conv2d(cin, planes, 1)
        self.conv2 = nn.Conv2d(planes, planes, 3, stride, 1)
        self.conv3 = nn.Conv2d(planes, cout, 1)
        self.down = nn.Conv2d(cin, cout, 1, stride) if stride != 1 or cin != cout else None

    def forward(self, x):
        y = self.conv3(torch.relu(self.conv2(torch.relu(self.conv1(x)))))
        return torch.relu(y + (self.down(x) if self.down is not None else x))


class ResNet(nn.Module):
    def __init__(self, blocks, width=64, classes=1000):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 7, 2, 3), nn.ReLU(), nn.MaxPool2d(3, 2, 1))
        layers, cin = [], width
        for i, n in enumerate(blocks):
            planes = width << i
            for j in range(n):
                layers.append(Bottleneck(cin, planes, 2 if (j == 0 and i > 0) else 1))
                cin = 4 * planes
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        x = self.layers(self.stem(x))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--mib", type=float, default=256)
    a = ap.parse_args()
    dev = torch.device("cuda")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    emit(case="torch", version=torch.__version__, device=torch.cuda.get_device_name(0))

    n = 64 if a.smoke else a.size
    for dtype, name in ((torch.float32, "f32"), (torch.float16, "f16")):
        x = torch.rand(n, n, device=dev, dtype=dtype) * 2 - 1
        y = torch.rand(n, n, device=dev, dtype=dtype) * 2 - 1
        inner = 1 if a.smoke else 10
        ms = timed(lambda: [x @ y for _ in range(inner)], 2 if a.smoke else 5) / inner
        emit(case="gemm", dtype=name, n=n, ms=ms, tflops=2.0 * n**3 / (ms * 1e-3) / 1e12)

    count = int((1 if a.smoke else a.mib) * 1024 * 1024 / 4)
    x = torch.ones(count, device=dev)
    dst = torch.empty_like(x)
    reps = 2 if a.smoke else 20
    ew = timed(lambda: x * 2.0, reps)
    cp = timed(lambda: dst.copy_(x), reps)
    emit(case="bandwidth", mib=count * 4 / 2**20, elementwise_ms=ew, elementwise_gbs=8.0 * count / (ew * 1e-3) / 1e9,
         copy_ms=cp, copy_gbs=8.0 * count / (cp * 1e-3) / 1e9)

    blocks, width, hw = ([1, 1, 1, 1], 16, 32) if a.smoke else ([3, 4, 6, 3], 64, 224)
    net = ResNet(blocks, width).to(dev).eval()
    with torch.no_grad():
        for batch in (1, 2) if a.smoke else (1, 32):
            img = torch.rand(batch, 3, hw, hw, device=dev) * 2 - 1
            ms = timed(lambda: net(img), 1 if a.smoke else 10)
            emit(case="resnet", model="resnet-14 (smoke)" if a.smoke else "resnet-50", batch=batch, hw=hw, ms=ms)

    batch, seq = (1, 8) if a.smoke else (16, 128)
    layer = nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0, activation="relu", batch_first=True).to(dev)
    inp = (torch.rand(batch, seq, 256, device=dev) * 2 - 1).requires_grad_()

    def step():
        layer(inp).mean().backward()

    emit(case="transformer", shape=f"d256_h4_s{seq}_b{batch}", ms=timed(step, 1 if a.smoke else 10))


if __name__ == "__main__":
    main()
