#!/usr/bin/python3
"""torch.load's side of burn-import-pytorch-bench: the median and minimum of N loads of FILE in one
process (wall and CPU time), after one untimed load. Usage: /usr/bin/python3 pytorch_load_bench.py FILE [N]"""
import statistics
import sys
import time

import torch

path, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 20
torch.load(path)
wall, cpu = [], []
for _ in range(n):
    t, c = time.perf_counter(), time.process_time()
    sd = torch.load(path)
    cpu.append(time.process_time() - c)
    wall.append(time.perf_counter() - t)
    del sd
print(f"torch.load({path}): median {statistics.median(wall) * 1e3:.2f} ms (cpu {statistics.median(cpu) * 1e3:.2f} ms), "
      f"min {min(wall) * 1e3:.2f} ms over {n} (torch {torch.__version__}, {torch.get_num_threads()} threads)")
