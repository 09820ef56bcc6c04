#!/usr/bin/env python3
"""Kernel Pegasos (paper Algorithm 0) time per step in PyTorch at a fixed
number of support vectors, the peer of nsvm's `BenchmarkPegasosStep` in
package svm (`go test -run '^$' -bench PegasosStep ./svm`).

One step is what the training loop of bench/torch_nsvm.py does per
iteration: draw i_t, one kernel row of x_it against the stored support
vectors (one matrix-vector product and an exp over the precomputed squared
norms), the weighted sum Σ α_j y_j K(x_j, x_it), and the violation test
y/(λ(t−1))·sum < 1. The support set is held fixed (no α update), so the
time per step is that at #SV support vectors. RBF kernel, γ = 1/d.

Prints `name ns/op` lines, e.g. `PegasosStep/nsv=1000 41234`.
"""

import argparse
import random
import statistics
import time

import torch


def bench(nsv, dim, pool, steps, repeats, lam=1e-4):
    g = torch.Generator().manual_seed(nsv)
    Z = torch.randn(nsv, dim, generator=g)
    NZ = (Z * Z).sum(1)
    W = torch.where(torch.rand(nsv, generator=g) < 0.5, -1.0, 1.0)
    X = torch.randn(pool, dim, generator=g)
    Y = torch.where(torch.rand(pool, generator=g) < 0.5, -1.0, 1.0).tolist()
    gamma = 1.0 / dim
    rng = random.Random(1)
    viol = 0

    def run(n, t0):
        nonlocal viol
        for t in range(t0, t0 + n):
            i = rng.randrange(pool)
            x = X[i]
            k = torch.exp(-gamma * (NZ + x @ x - 2 * torch.mv(Z, x)).clamp_min(0))
            s = (W @ k).item()
            if Y[i] * s / (lam * (t - 1)) < 1:
                viol += 1

    run(max(100, steps // 10), 2)  # warm-up
    times = []
    for r in range(repeats):
        t = time.perf_counter()
        run(steps, 2 + r * steps)
        times.append((time.perf_counter() - t) / steps * 1e9)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nsv", default="1000,10000", help="comma-separated support-vector counts")
    ap.add_argument("--dim", type=int, default=20, help="feature dimension d")
    ap.add_argument("--steps", type=int, default=0, help="steps per repeat (default: about 0.3 s worth)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    for nsv in [int(v) for v in a.nsv.split(",") if v]:
        steps = a.steps or max(200, int(3e7 / max(nsv * a.dim, 1)))
        ns = bench(nsv, a.dim, 2048, steps, a.repeats)
        print("PegasosStep/nsv=%d %.0f" % (nsv, ns), flush=True)


if __name__ == "__main__":
    main()
