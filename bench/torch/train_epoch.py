"""The PyTorch side of bench/train_epoch.py: one or more Fashion-MNIST epochs of the MLP or the small
CNN (bench_torch.make_mlp / make_small_cnn) as a PyTorch user writes them: the IDX files read with
numpy into a TensorDataset, torch.utils.data.DataLoader (shuffled, the same batch size and workers),
torch.optim.Adam, F.cross_entropy. Prints one JSON line: the time of each epoch, the time spent waiting
for the loader, and the test accuracy at the end; with --int8-accuracy 1 also the test accuracy after
torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8) (test_accuracy_int8: the Linear layers
int8, the CNN's convs left in f32, as PyTorch's dynamic quantization of nn.Linear does).

  /usr/bin/python3 bench/torch/train_epoch.py --model cnn --epochs 1 --batch-size 64 --workers 2
"""
import argparse
import gzip
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_torch  # noqa: E402  (sets the threads before torch starts)
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

torch.set_grad_enabled(True)  # bench_torch turns autograd off for its inference cases

DATA = "/usr/share/datasets/fashion-mnist"
MEAN, STD = 0.2860, 0.3530


def idx(path):
    with gzip.open(path, "rb") as f:
        raw = f.read()
    dims = raw[3]
    shape = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def dataset(split, model):
    images = idx(f"{DATA}/{split}-images-idx3-ubyte.gz").astype(np.float32)
    labels = idx(f"{DATA}/{split}-labels-idx1-ubyte.gz").astype(np.int64)
    x = (torch.from_numpy(images) / 255.0 - MEAN) / STD
    x = x.reshape(-1, 784) if model == "mlp" else x.reshape(-1, 1, 28, 28)
    return torch.utils.data.TensorDataset(x, torch.from_numpy(labels))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", choices=["mlp", "cnn"], required=True)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--epsilon", type=float, default=1e-8)  # torch.optim.Adam's default
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--int8-accuracy", type=int, default=0)
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    model = bench_torch.make_mlp() if a.model == "mlp" else bench_torch.make_small_cnn()
    opt = torch.optim.Adam(model.parameters(), lr=a.lr, eps=a.epsilon)
    train = torch.utils.data.DataLoader(dataset("train", a.model), batch_size=a.batch_size, shuffle=True,
                                        num_workers=a.workers, persistent_workers=a.workers > 0)
    epochs, waits = [], []
    for _ in range(a.epochs):
        model.train()
        start = time.perf_counter()
        wait = 0.0
        it = iter(train)
        while True:
            t = time.perf_counter()
            try:
                x, y = next(it)
            except StopIteration:
                break
            wait += time.perf_counter() - t
            opt.zero_grad(set_to_none=True)
            F.cross_entropy(model(x), y).backward()
            opt.step()
        epochs.append(time.perf_counter() - start)
        waits.append(wait)
    model.eval()
    test = dataset("t10k", a.model)

    def accuracy(m):
        with torch.no_grad():
            right = sum(int((m(x).argmax(1) == y).sum()) for x, y in torch.utils.data.DataLoader(test, batch_size=1000))
        return 100.0 * right / len(test)
    out = {"side": "pytorch", "model": a.model, "threads": torch.get_num_threads(), "epoch_seconds": epochs,
           "loader_wait_seconds": waits, "test_accuracy": accuracy(model)}
    if a.int8_accuracy:
        out["test_accuracy_int8"] = accuracy(
            torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8))
        out["quantized_engine"] = torch.backends.quantized.engine
    print(json.dumps(out))


if __name__ == "__main__":
    main()
