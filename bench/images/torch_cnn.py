#!/usr/bin/python3
"""A PyTorch CNN trained the usual way on 28×28 grey IDX images, 10 classes.

The network of PyTorch's and Keras's MNIST examples:

  conv 32 3×3 → ReLU → conv 64 3×3 → ReLU → max-pool 2 → dropout 0.25 →
  flatten → dense 128 → ReLU → dropout 0.5 → dense 10

trained with Adam (lr 1e-3, PyTorch's defaults otherwise), batch 128,
cross-entropy, pixels scaled to [0, 1], a fresh random order of the training
images every epoch (seeded), torch.set_num_threads(--threads).

After every epoch it evaluates the test images (eval mode, no gradient) and
prints one JSON line:

  {"epoch": 1, "train_seconds": 61.2, "epoch_seconds": 61.2, "test_accuracy": 0.9871, "eval_seconds": 2.1}

train_seconds is cumulative and counts only the training passes (the
per-epoch test evaluation is left out); the data are read before the clock
starts. Batches are slices of the shuffled tensors (no DataLoader, whose
per-image collation would add Python overhead to every batch).

Usage: /usr/bin/python3 bench/images/torch_cnn.py --data DIR [--epochs 8]
       [--threads 2] [--seed 0]
DIR holds train-images-idx3-ubyte, train-labels-idx1-ubyte,
t10k-images-idx3-ubyte and t10k-labels-idx1-ubyte (uncompressed).
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from benchrun import read_idx  # noqa: E402


def load(d, prefix):
    x = read_idx(os.path.join(d, f"{prefix}-images-idx3-ubyte"))
    y = read_idx(os.path.join(d, f"{prefix}-labels-idx1-ubyte"))
    if x.ndim != 3 or x.shape[1:] != (28, 28) or y.shape != (x.shape[0],):
        raise SystemExit(f"{d}: {prefix} images {x.shape} and labels {y.shape} are not N×28×28 and N")
    return torch.from_numpy(x.astype(np.float32) / 255).unsqueeze(1), torch.from_numpy(y.astype(np.int64))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3)
        self.conv2 = nn.Conv2d(32, 64, 3)
        self.drop1 = nn.Dropout(0.25)
        self.fc1 = nn.Linear(64 * 12 * 12, 128)
        self.drop2 = nn.Dropout(0.5)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = self.drop1(F.max_pool2d(x, 2))
        x = torch.flatten(x, 1)
        x = self.drop2(F.relu(self.fc1(x)))
        return self.fc2(x)


def accuracy(model, x, y, chunk=1000):
    model.eval()
    right = 0
    with torch.no_grad():
        for i in range(0, len(y), chunk):
            right += int((model(x[i:i + chunk]).argmax(1) == y[i:i + chunk]).sum())
    return right / len(y)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, help="directory of the four IDX files")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--threads", type=int, default=2, help="torch.set_num_threads (default 2)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch", type=int, default=128)
    a = ap.parse_args()
    if a.epochs < 1 or a.batch < 1 or a.threads < 1:
        raise SystemExit("--epochs, --batch and --threads must be ≥ 1")
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    xtr, ytr = load(a.data, "train")
    xte, yte = load(a.data, "t10k")
    print(f"# torch {torch.__version__}, {torch.get_num_threads()} thread(s), {len(ytr)} train / {len(yte)} test images",
          file=sys.stderr, flush=True)
    model = Net()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    gen = torch.Generator().manual_seed(a.seed)
    total = 0.0
    for epoch in range(1, a.epochs + 1):
        t = time.perf_counter()
        model.train()
        order = torch.randperm(len(ytr), generator=gen)
        for i in range(0, len(ytr), a.batch):
            idx = order[i:i + a.batch]
            opt.zero_grad()
            loss = F.cross_entropy(model(xtr[idx]), ytr[idx])
            loss.backward()
            opt.step()
        secs = time.perf_counter() - t
        total += secs
        t = time.perf_counter()
        acc = accuracy(model, xte, yte)
        print(json.dumps({"epoch": epoch, "train_seconds": round(total, 3), "epoch_seconds": round(secs, 3),
                          "test_accuracy": acc, "eval_seconds": round(time.perf_counter() - t, 3),
                          "train_loss_last_batch": round(float(loss), 5)}), flush=True)


if __name__ == "__main__":
    main()
