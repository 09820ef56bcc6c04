#!/usr/bin/python3
"""PyTorch peer of the nn engine benchmarks (nn/bench_test.go).

Runs the same workloads with Debian's python3-torch (1.13, CPU):

  MLPStep1         Ringnorm MLP, one sample: zero_grad, forward, backward with a
                   fixed cotangent (sign alternating), SGD step (lr 0.01,
                   momentum 0.9, weight decay 1e-4)
  MLPForward6660   Ringnorm MLP inference over 6660 rows
  CNNStep64        MNIST CNN (dropout2d 0.5 active), batch 64 training step
  CNNStep1         the same for one image
  CNNForward12665  MNIST CNN inference over 12665 images
  ImageCNNStep64   the CNN nsvm sizes for 28×28 images (imageArch), batch 64
                   training step (dropout 0.5 active)

Timing follows Go's benchmarks: a warm-up, then several rounds that each run
the operation repeatedly for a share of --benchtime; the median time per
operation over the rounds is printed as "name ns/op" lines:

  MLPStep1 151234 ns/op

Usage: /usr/bin/python3 bench/engine_torch.py [--threads 1] [--benchtime 2]
       [--rounds 5] [--only REGEX] [--chunk ROWS]
"""
import argparse
import re
import statistics
import sys
import time

import torch
import torch.nn as nn

from torchnets import mnist_cnn, ringnorm_mlp


def image_cnn():
    # imageArch: conv(32,5),maxpool(2),batchnorm,relu,conv(64,5),maxpool(2),
    # batchnorm,relu,flatten,dense(256),batchnorm,relu,dropout(0.5)
    return nn.Sequential(
        nn.Conv2d(1, 32, 5), nn.MaxPool2d(2), nn.BatchNorm2d(32), nn.ReLU(),
        nn.Conv2d(32, 64, 5), nn.MaxPool2d(2), nn.BatchNorm2d(64), nn.ReLU(),
        nn.Flatten(), nn.Linear(64 * 4 * 4, 256), nn.BatchNorm1d(256),
        nn.ReLU(), nn.Dropout(0.5))


def step_op(model, shape, batch):
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    x = torch.rand(batch, *shape)
    with torch.no_grad():
        out_size = model(x).shape[1]
    c = torch.rand(batch, out_size) * 2 - 1
    cs = [c, -c]
    state = {"i": 0}

    def op():
        opt.zero_grad()
        out = model(x)
        out.backward(cs[state["i"] & 1])
        opt.step()
        state["i"] += 1
    return op


def forward_op(model, shape, rows, best_chunk):
    model.eval()
    x = torch.rand(rows, *shape)
    chunk = {-1: best_chunk, 0: rows}.get(ARGS.chunk, ARGS.chunk)

    def op():
        with torch.no_grad():
            for i in range(0, rows, chunk):
                model(x[i:i + chunk])
    return op


ARGS = None

WORKLOADS = [
    ("MLPStep1", lambda: step_op(ringnorm_mlp(), (20,), 1)),
    # The fastest chunk measured here: one call for the MLP, 256 images per
    # call for the CNN (1.7 s in one call, 0.97 s in chunks of 256).
    ("MLPForward6660", lambda: forward_op(ringnorm_mlp(), (20,), 6660, 6660)),
    ("CNNStep64", lambda: step_op(mnist_cnn(), (1, 28, 28), 64)),
    ("CNNStep1", lambda: step_op(mnist_cnn(), (1, 28, 28), 1)),
    ("CNNForward12665", lambda: forward_op(mnist_cnn(), (1, 28, 28), 12665, 256)),
    ("ImageCNNStep64", lambda: step_op(image_cnn(), (1, 28, 28), 64)),
]


def bench(op, benchtime, rounds):
    # Warm-up: at least 3 calls and 10% of the budget.
    t0 = time.perf_counter()
    n = 0
    while n < 3 or time.perf_counter() - t0 < 0.1 * benchtime:
        op()
        n += 1
    per = (time.perf_counter() - t0) / n
    iters = max(1, int(benchtime / rounds / per))
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(iters):
            op()
        times.append((time.perf_counter() - t) / iters)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=1, help="torch.set_num_threads (default 1)")
    ap.add_argument("--benchtime", type=float, default=2.0, help="seconds per workload after warm-up (default 2)")
    ap.add_argument("--rounds", type=int, default=5, help="timed rounds; the median is printed (default 5)")
    ap.add_argument("--only", default="", help="run only workloads matching this regular expression")
    ap.add_argument("--chunk", type=int, default=-1,
                    help="rows per call in the Forward workloads: 0 all in one call, -1 (default) "
                         "the fastest measured (all rows for the MLP, 256 for the CNN)")
    global ARGS
    args = ap.parse_args()
    ARGS = args
    torch.set_num_threads(args.threads)
    torch.manual_seed(1)
    print(f"# torch {torch.__version__}, {torch.get_num_threads()} thread(s)", file=sys.stderr)
    for name, mk in WORKLOADS:
        if args.only and not re.search(args.only, name):
            continue
        ns = bench(mk(), args.benchtime, args.rounds) * 1e9
        print(f"{name} {ns:.0f} ns/op", flush=True)


if __name__ == "__main__":
    main()
