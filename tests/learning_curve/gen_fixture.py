#!/usr/bin/python3
# Writes tests/learning_curve/fixture.json: PyTorch's loss at every step of the Fashion-MNIST MLP and
# small CNN of the epoch benchmark (bench/nn_models.hpp, bench/torch/bench_torch.py), trained from the
# same initial weights on the same batches as learning_curve_test.cpp. The weights come from a
# formula both sides compute (splitmix64 of the parameter's number and the element's index in
# PyTorch's layout, scaled to PyTorch's default U(+-1/sqrt(fan_in))), so no weight file is stored; the
# batches are the first ones of the training set in file order, normalised as burn's MnistBatcher does.
#   /usr/bin/python3 tests/learning_curve/gen_fixture.py
import json
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench", "torch"))
from train_epoch import idx  # noqa: E402  (the epoch benchmark's IDX reader)

torch.set_grad_enabled(True)  # bench_torch, imported with it, turns autograd off

DATA = "/usr/share/datasets/fashion-mnist"
MEAN, STD = 0.2860, 0.3530
BATCH, LR, EPS = 64, 1e-3, 1e-8
STEPS = {"mlp": 60, "cnn": 30}
TEST_ITEMS = 1000


def splitmix64(x):
    with np.errstate(over="ignore"):
        x = x + np.uint64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


def formula(number, shape, fan_in):
    """Element k (row-major in PyTorch's layout) of parameter `number`: bound * (2u - 1), u in [0, 1)."""
    k = np.arange(int(np.prod(shape)), dtype=np.uint64)
    u = (splitmix64((np.uint64(number) << np.uint64(32)) | k) >> np.uint64(11)).astype(np.float64) * 2.0**-53
    return torch.from_numpy((((2.0 * u - 1.0) / np.sqrt(fan_in)).astype(np.float32)).reshape(shape))


def make(kind):
    if kind == "mlp":
        m = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512), torch.nn.ReLU(),
                                torch.nn.Linear(512, 10))
    else:
        m = torch.nn.Sequential(torch.nn.Conv2d(1, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
                                torch.nn.Conv2d(32, 64, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
                                torch.nn.Flatten(), torch.nn.Linear(64 * 7 * 7, 128), torch.nn.ReLU(),
                                torch.nn.Linear(128, 10))
    layers = [l for l in m if isinstance(l, (torch.nn.Linear, torch.nn.Conv2d))]
    with torch.no_grad():
        for i, layer in enumerate(layers):  # weight 2i, bias 2i + 1; fan_in = weight elements / out
            fan_in = layer.weight[0].numel()
            layer.weight.copy_(formula(2 * i, layer.weight.shape, fan_in))
            layer.bias.copy_(formula(2 * i + 1, layer.bias.shape, fan_in))
    return m


def images(split, n, kind):
    """burn's MnistBatcher: pixel * (1 / (255 std)) - mean / std, in f32."""
    x = idx(f"{DATA}/{split}-images-idx3-ubyte.gz")[:n].astype(np.float32)
    x = x * np.float32(1.0 / (255.0 * np.float32(STD))) - np.float32(np.float32(MEAN) / np.float32(STD))
    t = torch.from_numpy(x)
    return t.reshape(-1, 784) if kind == "mlp" else t.reshape(-1, 1, 28, 28)


def labels(split, n):
    return torch.from_numpy(idx(f"{DATA}/{split}-labels-idx1-ubyte.gz")[:n].astype(np.int64))


def run(kind):
    torch.manual_seed(0)
    m = make(kind)
    opt = torch.optim.Adam(m.parameters(), lr=LR, eps=EPS)
    n = STEPS[kind] * BATCH
    x, y = images("train", n, kind), labels("train", n)
    losses = []
    for s in range(STEPS[kind]):
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(m(x[s * BATCH:(s + 1) * BATCH]), y[s * BATCH:(s + 1) * BATCH])
        loss.backward()
        opt.step()
        losses.append(float(loss))
    with torch.no_grad():
        pred = m(images("t10k", TEST_ITEMS, kind)).argmax(1)
    right = int((pred == labels("t10k", TEST_ITEMS)).sum())
    return {"steps": STEPS[kind], "losses": losses, "test_right": right}


def main():
    torch.set_num_threads(1)
    out = {"torch_version": torch.__version__, "batch_size": BATCH, "lr": LR, "epsilon": EPS,
           "test_items": TEST_ITEMS, "mlp": run("mlp"), "cnn": run("cnn")}
    with open(os.path.join(HERE, "fixture.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    for k in ("mlp", "cnn"):
        print(k, out[k]["losses"][0], out[k]["losses"][-1], out[k]["test_right"])


if __name__ == "__main__":
    main()
