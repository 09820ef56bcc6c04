#!/usr/bin/env python3
"""PyTorch peer of nsvm: Algorithms 1-4 of Simon & Radons (2023), "Algorithms
for the Training of Neural Support Vector Machines", written the way a
researcher would write them in PyTorch, following the same reading of the
paper as nsvm (see /work/shared/DESIGN.md, "Where the paper is ambiguous").

Only torch (CPU) and numpy are used. Hyperparameters are read from the JSON
that `nsvm reproduce ... --json` prints (one result object, or the whole
output together with --algo), so both sides train the same recipe:

    nsvm reproduce ringnorm --algo 4 --seeds 1 --json --save-splits out/sp > r.json
    python3 bench/torch_nsvm.py --config r.json --algo 4 --task ringnorm \
        --train out/sp/split1/train.csv --test out/sp/split1/test.csv --threads 1

Without --config the paper's presets are used (the same values as nsvm's
RingnormPreset/MNISTPreset), scaled by --steps-scale. The step counts in a
--config file are used as they are (nsvm has already applied its own
--steps-scale to them); --steps-scale multiplies them again.

It prints one JSON line:
    {"algo", "accuracy", "errors", "n_test", "n_sv", "train_seconds", ...}
train_seconds covers training only (Part I + features + Part II for
Algorithm 4), not data loading or evaluation.

Symbols: lambda = λ, T = steps, mu = μ, k = batch size, alpha = α, z = F_θ(x),
g_tilde = g̃, K(a, b) the kernel on feature space.
"""

import argparse
import json
import os
import random
import re
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from benchrun import read_idx
from torchnets import L2Norm, Scale

# ---------------------------------------------------------------------------
# Presets (mirror of nsvm's presets.go; used only without --config)

RINGNORM_ARCH = "dense(40),relu,dense(30),relu,dense(20),relu,dense(20),relu,l2norm"
RINGNORM_ARCH_NONORM = "dense(40),relu,dense(30),relu,dense(20),relu,dense(20),relu"
MNIST_ARCH = ("conv(10,5),maxpool(2),relu,conv(20,5),dropout2d(0.5),maxpool(2),relu,flatten,"
              "l2norm,scale(1.41421356)")
MNIST_ARCH_NONORM = "conv(10,5),maxpool(2),relu,conv(20,5),dropout2d(0.5),maxpool(2),relu,flatten"


def _sgd(lr, schedule=""):
    return {"Name": "sgd", "LR": lr, "Momentum": 0.9, "WeightDecay": 1e-4, "Schedule": schedule}


def _rbf(gamma):
    return {"name": "rbf", "gamma": gamma}


def preset(task, algo):
    """Returns {"arch": spec, "trainer": {...}} like nsvm's --json config.
    A snapshot of nsvm's presets.go for use without --config; the learning
    rates there are tuned from time to time, so bench/run.sh always passes
    the configuration nsvm actually ran (--config)."""
    if task == "ringnorm":
        table = {
            1: (RINGNORM_ARCH, {"Lambda": 1e-4, "T": 80000, "Kernel": _rbf(1), "Opt": _sgd(3e-5)}),
            2: (RINGNORM_ARCH, {"Lambda": 1e-4, "T": 70000, "Kernel": _rbf(1), "Opt": _sgd(3e-5), "Chunk": 0}),
            3: (RINGNORM_ARCH_NONORM, {"Lambda": 1e-4, "T": 4600, "Kernel": _rbf(1), "Opt": _sgd(3e-3),
                                       "Mu": 1, "Batch": 16}),
            4: (RINGNORM_ARCH_NONORM, {"Lambda": 1e-4, "T": 4200, "Kernel": _rbf(1), "Opt": _sgd(1e-2, "invt"),
                                       "Batch": 16, "Part2": {"Solver": "pegasos", "Lambda": 1e-4, "T": 33500}}),
        }
    else:
        table = {
            1: (MNIST_ARCH, {"Lambda": 1e-4, "T": 100000, "Kernel": _rbf(1), "Opt": _sgd(1e-5)}),
            2: (MNIST_ARCH, {"Lambda": 1e-4, "T": 100000, "Kernel": _rbf(1), "Opt": _sgd(1e-4), "Chunk": 256}),
            3: (MNIST_ARCH_NONORM, {"Lambda": 1e-4, "T": 9500, "Kernel": _rbf(1 / 320), "Opt": _sgd(1e-2),
                                    "Mu": 1, "Batch": 4}),
            4: (MNIST_ARCH_NONORM, {"Lambda": 1e-4, "T": 400, "Kernel": _rbf(1 / 320), "Opt": _sgd(1e-2),
                                    "Batch": 64, "Part2": {"Solver": "pegasos", "Lambda": 1e-4, "T": 35000}}),
        }
    arch, tr = table[algo]
    return {"arch": arch, "trainer": tr}


def load_config(path, algo):
    """Reads one result object (or a whole `reproduce --json` output) and
    returns (arch, trainer, input_shape) with the trainer's embedded Config
    flattened; input_shape (e.g. [1, 20, 1] for --arch coord) is None when
    the network sees the data's own shape."""
    with open(path) as f:
        obj = json.load(f)
    if "results" in obj:
        rs = [r for r in obj["results"] if r.get("algo") == algo]
        if not rs:
            sys.exit("torch_nsvm: %s has no result for algorithm %d" % (path, algo))
        obj = rs[0]
    if "config" in obj:
        obj = obj["config"]
    if obj.get("trainer") is None or "arch" not in obj:
        sys.exit("torch_nsvm: %s: want {\"config\": {\"arch\": ..., \"trainer\": ...}}" % path)
    return obj["arch"], flatten_trainer(obj["trainer"]), obj.get("input_shape")


def flatten_trainer(tr):
    tr = dict(tr)
    inner = tr.pop("Config", None)
    if isinstance(inner, dict):  # Go's embedded struct, if it is not promoted
        for k, v in inner.items():
            tr.setdefault(k, v)
    return tr


# ---------------------------------------------------------------------------
# Networks from nsvm architecture specs


def split_tokens(spec):
    toks, depth, cur = [], 0, ""
    for ch in spec:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            toks.append(cur.strip())
            cur = ""
        else:
            cur += ch
    toks.append(cur.strip())
    return toks


def build_net(spec, in_shape):
    """Builds the torch module for an nsvm spec (PyTorch's default init, as
    nsvm's nn.New). in_shape is [d] or [C, H, W]. Returns (net, out_dim,
    has_dropout)."""
    layers, shape, has_dropout = [], list(in_shape), False
    for tok in split_tokens(spec):
        m = re.fullmatch(r"\s*([a-z0-9]+)\s*(?:\((.*)\))?\s*", tok.lower())
        if not m:
            sys.exit("torch_nsvm: bad arch token %r" % tok)
        name = m.group(1)
        args = [a.strip() for a in m.group(2).split(",")] if m.group(2) is not None else []
        if name == "dense":
            if len(shape) > 1:
                layers.append(nn.Flatten())
                shape = [int(np.prod(shape))]
            n = int(args[0])
            layers.append(nn.Linear(shape[0], n))
            shape = [n]
        elif name == "conv":
            c, k = int(args[0]), int(args[1])
            layers.append(nn.Conv2d(shape[0], c, k))
            shape = [c, shape[1] - k + 1, shape[2] - k + 1]
        elif name == "maxpool":
            k = int(args[0])
            layers.append(nn.MaxPool2d(k))
            shape = [shape[0], shape[1] // k, shape[2] // k]
        elif name == "relu":
            layers.append(nn.ReLU())
        elif name == "tanh":
            layers.append(nn.Tanh())
        elif name == "sigmoid":
            layers.append(nn.Sigmoid())
        elif name == "dropout2d":
            layers.append(nn.Dropout2d(float(args[0])))
            has_dropout = True
        elif name == "dropout":
            layers.append(nn.Dropout(float(args[0])))
            has_dropout = True
        elif name == "flatten":
            layers.append(nn.Flatten())
            shape = [int(np.prod(shape))]
        elif name == "meanpool":
            layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten()]
            shape = [shape[0]]
        elif name == "l2norm":
            layers.append(L2Norm(float(args[0]) if args else 1e-12))
        elif name == "scale":
            layers.append(Scale(float(args[0])))
        else:
            sys.exit("torch_nsvm: unknown layer %r in %r" % (name, spec))
    if len(shape) != 1:
        layers.append(nn.Flatten())
        shape = [int(np.prod(shape))]
    return nn.Sequential(*layers), shape[0], has_dropout


# ---------------------------------------------------------------------------
# Kernels on feature space


class Kernel:
    """K(a, b) for rows of A and B. cross() is differentiable; row() is the
    one-against-many kernel row used on the hot paths, with precomputed
    squared norms of the many."""

    def __init__(self, spec):
        self.name = spec.get("name", "rbf")
        self.gamma = float(spec.get("gamma", 0) or 0)
        self.coef0 = float(spec.get("coef0", 0) or 0)
        self.degree = int(spec.get("degree", 0) or 0)
        self.normalized = bool(spec.get("normalized", False))
        if self.name not in ("rbf", "linear", "poly", "sigmoid"):
            sys.exit("torch_nsvm: unsupported kernel %r" % self.name)
        if self.name == "rbf":
            self.normalized = False  # K(a, a) = 1 already

    def _base_from(self, dot, na, nb):
        if self.name == "rbf":
            return torch.exp(-self.gamma * (na + nb - 2 * dot).clamp_min(0))
        if self.name == "linear":
            return dot
        if self.name == "poly":
            return (self.gamma * dot + self.coef0) ** self.degree
        return torch.tanh(self.gamma * dot + self.coef0)

    def _diag(self, n):
        return self._base_from(n, n, n)

    def cross(self, a, b, na=None, nb=None):
        """|a|×|b| kernel matrix; na, nb are the rows' squared norms."""
        if na is None:
            na = (a * a).sum(1)
        if nb is None:
            nb = (b * b).sum(1)
        k = self._base_from(a @ b.t(), na[:, None], nb[None, :])
        if self.normalized:
            k = k / torch.sqrt(self._diag(na)[:, None] * self._diag(nb)[None, :])
        return k

    def row(self, z, nz, b):
        """K(z_s, b) for all rows z_s of z (squared norms nz) and one b."""
        nb = b @ b
        k = self._base_from(torch.mv(z, b), nz, nb)
        if self.normalized:
            k = k / torch.sqrt(self._diag(nz) * self._diag(nb))
        return k


# ---------------------------------------------------------------------------
# Optimizer (torch.optim.SGD / Adam) with nsvm's learning-rate schedules


class ThetaOpt:
    def __init__(self, params, o):
        self.o = o
        name = (o.get("Name") or "sgd").lower()
        lr = float(o["LR"])
        wd = float(o.get("WeightDecay", 0) or 0)
        if name == "adam":
            self.opt = torch.optim.Adam(params, lr=lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=wd)
        else:
            self.opt = torch.optim.SGD(params, lr=lr, momentum=float(o.get("Momentum", 0) or 0),
                                       weight_decay=wd)
        self.t = 0  # θ-steps taken

    def lr_at(self, t):
        o, lr = self.o, float(self.o["LR"])
        s = o.get("Schedule") or "constant"
        if s == "invt":
            t0 = float(o.get("T0", 0) or 0) or 1000.0
            return lr * t0 / (t0 + t)
        if s == "step":
            return lr * float(o["Gamma"]) ** (t // int(o["Every"]))
        return lr

    def zero_grad(self):
        self.opt.zero_grad(set_to_none=True)

    def step(self):
        lr = self.lr_at(self.t)
        for g in self.opt.param_groups:
            g["lr"] = lr
        self.opt.step()
        self.t += 1


# ---------------------------------------------------------------------------
# Helpers


def features(net, x, chunk=2048):
    """F_Θ(x) in eval mode (dropout off), without a gradient."""
    was = net.training
    net.eval()
    with torch.no_grad():
        out = torch.cat([net(x[i:i + chunk]) for i in range(0, x.shape[0], chunk)]) if x.shape[0] else None
    net.train(was)
    return out


def check_finite(t, what, step):
    if not torch.isfinite(t).all():
        sys.exit("torch_nsvm: %s is not finite at step %d (learning rate too large?)" % (what, step))


class Progress:
    """Prints `algo t/T #SV violation-rate seconds` to stderr every `every`
    steps (--progress); a no-op when every is 0."""

    def __init__(self, algo, T, every):
        self.algo, self.T, self.every = algo, T, every
        self.start, self.seen, self.viol = time.perf_counter(), 0, 0

    def __call__(self, t, nsv, viol=0, seen=1):
        if not self.every:
            return
        self.seen += seen
        self.viol += viol
        if t % self.every == 0 or t == self.T:
            print("alg %d step %d/%d  #SV %d  violations %.3f  %.1f s" % (
                self.algo, t, self.T, nsv, self.viol / max(self.seen, 1), time.perf_counter() - self.start),
                file=sys.stderr, flush=True)
            self.seen = self.viol = 0


PROGRESS = 0  # --progress


class Head:
    """g(x) = Σ_s coef_s K(sv_s, F_Θ(x))."""

    def __init__(self, sv, coef):
        self.sv, self.coef = sv, coef


def alignment(kmat, y):
    """A = Σ y_i y_j K_ij / (k ‖K‖_F) and ‖K‖_F."""
    fro = torch.sqrt((kmat * kmat).sum())
    return (y @ kmat @ y) / (y.shape[0] * fro), fro


# ---------------------------------------------------------------------------
# Algorithm 1 (§4.1)


def alg1(net, X, Y, tr, rng):
    lam, T = float(tr["Lambda"]), int(tr["T"])
    kern = Kernel(tr["Kernel"])
    opt = ThetaOpt(net.parameters(), tr["Opt"])
    m, yl = X.shape[0], Y.tolist()
    n = features(net, X[:1]).shape[1]
    # Stored features z_s (constants), their squared norms and y_s (α_s = 1).
    Z = torch.empty(T, n)
    NZ = torch.empty(T)
    W = torch.empty(T)
    net.train()
    opt.zero_grad()
    i = rng.randrange(m)
    with torch.no_grad():
        z = net(X[i:i + 1])[0]
    Z[0], NZ[0], W[0], cnt = z, z @ z, yl[i], 1
    prog = Progress(1, T, PROGRESS)
    for t in range(2, T + 1):
        i = rng.randrange(m)
        y = yl[i]
        z = net(X[i:i + 1])[0]  # one train-mode forward: for g̃ and for the gradient
        s = W[:cnt] @ kern.row(Z[:cnt], NZ[:cnt], z)
        c = 1.0 / (lam * (t - 1))
        if y * c * s.item() < 1:
            # θ-step on −y/(λ(t−1)) Σ_s y_s K(z_s, F_θ(x_it)), z_s constant.
            (-y * c * s).backward()
            opt.step()
            opt.zero_grad()
            zd = z.detach()
            check_finite(zd, "feature vector", t)
            Z[cnt], NZ[cnt], W[cnt] = zd, zd @ zd, y
            cnt += 1
            prog(t, cnt, 1)
        else:
            prog(t, cnt)
    return Head(Z[:cnt].clone(), W[:cnt].double() / (lam * T))


# ---------------------------------------------------------------------------
# Algorithm 2 (§4.2)


def alg2(net, X, Y, tr, rng, has_dropout):
    lam, T = float(tr["Lambda"]), int(tr["T"])
    chunk = int(tr.get("Chunk", 0) or 0) or 1024
    kern = Kernel(tr["Kernel"])
    opt = ThetaOpt(net.parameters(), tr["Opt"])
    m, yl = X.shape[0], Y.tolist()
    slot = [-1] * m
    XS = torch.empty((m,) + tuple(X.shape[1:]))  # support-vector inputs, contiguous
    YS = torch.empty(m, dtype=torch.float64)
    AS = torch.zeros(m, dtype=torch.float64)  # α of the support vectors
    cnt = 0

    def add_sv(i):
        nonlocal cnt
        slot[i] = cnt
        XS[cnt], YS[cnt] = X[i], yl[i]
        cnt += 1

    net.train()
    opt.zero_grad()
    i = rng.randrange(m)
    add_sv(i)
    AS[0] = 1
    fresh, feats, norms = False, None, None
    prog = Progress(2, T, PROGRESS)

    def loss_of(fsv, fq, w):
        # −y/(λ(t−1)) Σ_j α_j y_j K(F_θ(x_j), F_θ(x_it)) with w = −y c α_j y_j.
        return w @ kern.row(fsv, (fsv * fsv).sum(1), fq)

    for t in range(2, T + 1):
        i = rng.randrange(m)
        y = yl[i]
        ms = cnt
        joint = None
        if not fresh:
            if not has_dropout and ms + 1 <= chunk:
                # One train-mode pass over [SVs; x_it] refreshes the cache and is
                # reused for the gradient if this step violates.
                out = net(torch.cat((XS[:ms], X[i:i + 1])))
                joint = out
                feats = out[:ms].detach()
                zq = out[ms].detach()
            else:
                feats = features(net, XS[:ms], chunk)
            check_finite(feats, "support-vector features", t)
            norms = (feats * feats).sum(1)
            fresh = True
        if joint is None:
            if slot[i] >= 0:
                zq = feats[slot[i]]
            else:
                zq = features(net, X[i:i + 1])[0]
        coef = (AS[:ms] * YS[:ms]).float()
        s = (coef @ kern.row(feats, norms, zq)).item()
        c = 1.0 / (lam * (t - 1))
        if y * s * c >= 1:
            prog(t, cnt)
            continue
        w = (-y * c) * coef  # α before the increment
        if joint is not None:
            loss_of(joint[:ms], joint[ms], w).backward()
        elif has_dropout:
            # As nsvm: the cotangents are evaluated at the dropout-free
            # (cached) features and pushed back through train-mode passes.
            fs, fq = feats.clone().requires_grad_(True), zq.clone().requires_grad_(True)
            loss_of(fs, fq, w).backward()
            for lo in range(0, ms, chunk):
                hi = min(ms, lo + chunk)
                net(XS[lo:hi]).backward(fs.grad[lo:hi])
            net(X[i:i + 1]).backward(fq.grad[None])
        elif ms + 1 <= chunk:
            out = net(torch.cat((XS[:ms], X[i:i + 1])))
            loss_of(out[:ms], out[ms], w).backward()
        else:
            fq = net(X[i:i + 1])[0]
            for lo in range(0, ms, chunk):
                hi = min(ms, lo + chunk)
                loss_of(net(XS[lo:hi]), fq, w[lo:hi]).backward(retain_graph=hi < ms)
        opt.step()
        opt.zero_grad()
        fresh = False
        if slot[i] < 0:
            add_sv(i)
        AS[slot[i]] += 1
        prog(t, cnt, 1)
    z = features(net, XS[:cnt], chunk)
    check_finite(z, "final features", T)
    return Head(z, AS[:cnt] * YS[:cnt] / (lam * T))


# ---------------------------------------------------------------------------
# Algorithm 3 (§4.3)


def alg3(net, X, Y, tr, rng):
    lam, T, mu, k = float(tr["Lambda"]), int(tr["T"]), float(tr["Mu"]), int(tr["Batch"])
    kern = Kernel(tr["Kernel"])
    opt = ThetaOpt(net.parameters(), tr["Opt"])
    m = X.shape[0]
    if k > m:
        sys.exit("torch_nsvm: batch size %d exceeds the %d training points" % (k, m))
    Y64 = Y.double()
    alpha = torch.zeros(m, dtype=torch.float64)
    XS = torch.empty((m,) + tuple(X.shape[1:]))
    YS = torch.empty(m, dtype=torch.float64)
    idx = torch.empty(m, dtype=torch.long)
    cnt = 0
    inc = 1.0 / k

    def add_svs(ids):
        nonlocal cnt
        n_new = len(ids)
        if n_new:
            it = torch.tensor(ids, dtype=torch.long)
            XS[cnt:cnt + n_new], YS[cnt:cnt + n_new], idx[cnt:cnt + n_new] = X[it], Y64[it], it
            cnt += n_new

    net.train()
    opt.zero_grad()
    A1 = rng.sample(range(m), k)
    alpha[A1] = inc
    add_svs(A1)
    prog = Progress(3, T, PROGRESS)
    for t in range(2, T + 1):
        A = rng.sample(range(m), k)
        At = torch.tensor(A, dtype=torch.long)
        xb, yb = X[At], Y[At]
        # g̃_i over all current support vectors under θ_t, no gradient.
        feats = features(net, XS[:cnt])
        zb = features(net, xb)
        check_finite(feats, "features", t)
        kq = kern.cross(zb, feats)  # k × #SV
        g = kq.double() @ (alpha[idx[:cnt]] * YS[:cnt])
        c = 1.0 / (lam * (t - 1))
        viol = (Y64[At] * g * c) < 1
        old = alpha[At]
        ab = old + inc * viol.double()  # α^(t+1) on the batch
        alpha[At] = ab
        add_svs([a for a, v, o in zip(A, viol.tolist(), old.tolist()) if v and o == 0])
        # θ-step on μ·P − A over the batch, gradient through the batch only.
        out = net(xb)
        check_finite(out.detach(), "batch features", t)
        kb = kern.cross(out, out)
        al, fro = alignment(kb, yb)
        na2 = (ab * ab).sum().item()  # ‖αα^T‖_F = ‖α‖²
        if na2 > 0:
            a = (ab * Y64[At]).float()
            p = (a @ kb @ a) / (na2 * fro)
            loss = mu * p - al
        else:
            loss = -al
        loss.backward()
        opt.step()
        opt.zero_grad()
        prog(t, cnt, int(viol.sum()), k)
    z = features(net, XS[:cnt])
    check_finite(z, "final features", T)
    return Head(z, alpha[idx[:cnt]] * YS[:cnt] / (lam * T))


# ---------------------------------------------------------------------------
# Algorithm 4 (§4.4) and kernel Pegasos (Algorithm 0)


def pegasos(Z, Y, kern, lam, T, rng):
    """Kernel Pegasos (paper Algorithm 0) on fixed features Z with sparse α:
    the kernel row runs over the current support vectors only."""
    m, n = Z.shape
    yl = Y.tolist()
    nz_all = (Z * Z).sum(1)
    slot = [-1] * m
    SZ = torch.empty(m, n)
    SN = torch.empty(m)
    SW = torch.zeros(m)  # α_j y_j
    cnt = 0
    i = rng.randrange(m)
    SZ[0], SN[0], SW[0], slot[i], cnt = Z[i], nz_all[i], yl[i], 0, 1
    for t in range(2, T + 1):
        i = rng.randrange(m)
        y = yl[i]
        s = (SW[:cnt] @ kern.row(SZ[:cnt], SN[:cnt], Z[i])).item()
        if y * s / (lam * (t - 1)) < 1:
            j = slot[i]
            if j < 0:
                j = slot[i] = cnt
                SZ[j], SN[j] = Z[i], nz_all[i]
                cnt += 1
            SW[j] += y
    return SZ[:cnt].clone(), SW[:cnt].double() / (lam * T)


def alg4(net, X, Y, tr, rng):
    T, k = int(tr["T"]), int(tr["Batch"])
    kern = Kernel(tr["Kernel"])
    opt = ThetaOpt(net.parameters(), tr["Opt"])
    m = X.shape[0]
    if k > m:
        sys.exit("torch_nsvm: batch size %d exceeds the %d training points" % (k, m))
    net.train()
    opt.zero_grad()
    for t in range(1, T + 1):
        At = torch.tensor(rng.sample(range(m), k), dtype=torch.long)
        out = net(X[At])
        al, _ = alignment(kern.cross(out, out), Y[At])
        loss = (1 - al) ** 2  # 𝓛(1, A) = (1 − A)²
        loss.backward()
        opt.step()
        opt.zero_grad()
    check_finite(out.detach(), "batch features", T)
    Z = features(net, X)
    check_finite(Z, "features after part I", T)
    p2 = tr.get("Part2") or {}
    solver = p2.get("Solver") or "pegasos"
    if solver != "pegasos":
        sys.exit("torch_nsvm: part II solver %r is not implemented here (only pegasos)" % solver)
    sv, coef = pegasos(Z, Y, kern, float(p2.get("Lambda") or 1e-4), int(p2["T"]), rng)
    return Head(sv, coef)


# ---------------------------------------------------------------------------
# Data


def load_csv(path):
    a = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.float64, ndmin=2)
    return a[:, 1:].astype(np.float32), a[:, 0]


def load_mnist01(d, prefix):
    x = read_idx(os.path.join(d, prefix + "-images-idx3-ubyte"))
    y = read_idx(os.path.join(d, prefix + "-labels-idx1-ubyte"))
    keep = (y == 0) | (y == 1)
    return (x[keep].astype(np.float32) / 255.0).reshape(-1, 1, 28, 28), y[keep].astype(np.float64)


def binary_labels(y_train, y_test):
    """Maps the two classes to −1 (smaller label) and +1, as nsvm does."""
    cls = np.unique(y_train)
    if len(cls) != 2:
        sys.exit("torch_nsvm: want 2 classes in the training data, got %d" % len(cls))
    f = lambda y: np.where(y == cls[1], 1.0, -1.0).astype(np.float32)
    return f(y_train), f(y_test)


# ---------------------------------------------------------------------------


def main(argv=None):
    ap = argparse.ArgumentParser(description="PyTorch peer of nsvm's Algorithms 1-4.")
    ap.add_argument("--algo", type=int, required=True, choices=[1, 2, 3, 4])
    ap.add_argument("--task", choices=["ringnorm", "mnist01"], default="ringnorm")
    ap.add_argument("--config", help="JSON from `nsvm reproduce --json` (one result or the whole output)")
    ap.add_argument("--train", help="training CSV (label first, header row)")
    ap.add_argument("--test", help="test CSV (label first, header row)")
    ap.add_argument("--mnist", help="directory with the MNIST IDX files (digits 0/1 are used)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--steps-scale", type=float, default=1.0)
    ap.add_argument("--lr", type=float, help="override the learning rate")
    ap.add_argument("--progress", type=int, default=0, metavar="N", help="report to stderr every N steps")
    a = ap.parse_args(argv)
    global PROGRESS
    PROGRESS = a.progress

    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    rng = random.Random(a.seed)

    shape = None
    if a.config:
        arch, tr, shape = load_config(a.config, a.algo)
    else:
        p = preset(a.task, a.algo)
        arch, tr = p["arch"], flatten_trainer(p["trainer"])
    tr = json.loads(json.dumps(tr))
    if a.steps_scale != 1:
        tr["T"] = max(1, round(tr["T"] * a.steps_scale))
        if tr.get("Part2") and tr["Part2"].get("T"):
            tr["Part2"]["T"] = max(1, round(tr["Part2"]["T"] * a.steps_scale))
    if a.lr is not None:
        tr["Opt"]["LR"] = a.lr

    if a.task == "mnist01" or a.mnist:
        if not a.mnist:
            sys.exit("torch_nsvm: --task mnist01 needs --mnist DIR")
        xtr, ytr = load_mnist01(a.mnist, "train")
        xte, yte = load_mnist01(a.mnist, "t10k")
        in_shape = [1, 28, 28]
    else:
        if not (a.train and a.test):
            sys.exit("torch_nsvm: --task ringnorm needs --train CSV and --test CSV")
        xtr, ytr = load_csv(a.train)
        xte, yte = load_csv(a.test)
        in_shape = [xtr.shape[1]]
        if shape:
            in_shape = list(shape)
            xtr, xte = xtr.reshape(-1, *in_shape), xte.reshape(-1, *in_shape)
    ytr, yte = binary_labels(ytr, yte)
    X, Y = torch.from_numpy(np.ascontiguousarray(xtr)), torch.from_numpy(ytr)
    Xt = torch.from_numpy(np.ascontiguousarray(xte))

    net, _, has_dropout = build_net(arch, in_shape)
    start = time.perf_counter()
    if a.algo == 1:
        head = alg1(net, X, Y, tr, rng)
    elif a.algo == 2:
        head = alg2(net, X, Y, tr, rng, has_dropout)
    elif a.algo == 3:
        head = alg3(net, X, Y, tr, rng)
    else:
        head = alg4(net, X, Y, tr, rng)
    secs = time.perf_counter() - start

    kern = Kernel(tr["Kernel"])
    zt = features(net, Xt)
    nsv = (head.sv * head.sv).sum(1)
    g = torch.cat([kern.cross(zt[i:i + 1024], head.sv, nb=nsv).double() @ head.coef
                   for i in range(0, zt.shape[0], 1024)])
    pred = torch.where(g >= 0, 1.0, -1.0).numpy()
    errors = int((pred != yte).sum())
    steps = str(tr["T"]) + ("+%d" % tr["Part2"]["T"] if a.algo == 4 else "")
    print(json.dumps({"algo": a.algo, "task": a.task, "accuracy": 1 - errors / len(yte), "errors": errors,
                      "n_test": len(yte), "n_sv": int(head.sv.shape[0]), "train_seconds": round(secs, 4),
                      "steps": steps, "threads": a.threads, "seed": a.seed, "torch": torch.__version__}))


if __name__ == "__main__":
    main()
