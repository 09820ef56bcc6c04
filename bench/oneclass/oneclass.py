"""Novelty detection: nsvm's one-class SVM, svm-train -s 2 and NSVMs for one
class, scored by the ROC AUC of their decision values on held-out inliers and
outliers. See bench/oneclass/README.md; run through bench/oneclass/run.sh."""

import argparse
import gzip
import json
import os
import subprocess
import sys
import time

import numpy as np
from sklearn.metrics import roc_auc_score

SK = "/usr/lib/python3/dist-packages/sklearn/datasets/data"
HERE = os.path.dirname(os.path.abspath(__file__))


def load_digits():
    with gzip.open(os.path.join(SK, "digits.csv.gz"), "rt") as f:
        a = np.loadtxt(f, delimiter=",")
    return a[:, :-1], a[:, -1].astype(int)


def load_breast_cancer():
    a = np.loadtxt(os.path.join(SK, "breast_cancer.csv"), delimiter=",", skiprows=1)
    return a[:, :-1], a[:, -1].astype(int)  # 0 malignant, 1 benign


def sets(names):
    """Yields (name, X, inlier mask) for every data set asked for."""
    for name in names:
        if name == "breast-cancer":
            x, y = load_breast_cancer()
            yield name, x, y == 1
        elif name.startswith("digits-"):
            x, y = load_digits()
            yield name, x, y == int(name.split("-")[1])
        else:
            sys.exit(f"unknown data set {name}")


def split(inlier, seed):
    """70 % of the inliers to train on; the other inliers and every outlier
    to score."""
    rng = np.random.default_rng(seed)
    ins = np.flatnonzero(inlier)
    rng.shuffle(ins)
    k = int(round(0.7 * len(ins)))
    train = np.sort(ins[:k])
    test = np.sort(np.concatenate([ins[k:], np.flatnonzero(~inlier)]))
    return train, test


def write_csv(path, x, y):
    with open(path, "w") as f:
        f.write(",".join(f"f{j}" for j in range(x.shape[1])) + ",label\n")
        for row, lab in zip(x, y):
            f.write(",".join(f"{v:.9g}" for v in row) + f",{lab}\n")


def write_libsvm(path, x, y):
    with open(path, "w") as f:
        for row, lab in zip(x, y):
            f.write(f"{lab} " + " ".join(f"{j + 1}:{v:.9g}" for j, v in enumerate(row) if v != 0) + "\n")


def standardize(train, test):
    """nsvm's standardisation: the training rows' means and sample standard
    deviations, 1 for a constant column."""
    mu = train.mean(0)
    sd = train.std(0, ddof=1)
    sd[sd == 0] = 1
    return (train - mu) / sd, (test - mu) / sd


def whiten(train, test, lam=1.0):
    """Ridge whitening of standardised rows: x ↦ x·V·(Λ + λI)^(−1/2), with
    VΛVᵀ the training rows' covariance (a Mahalanobis distance shrunk
    towards the Euclidean one)."""
    w, v = np.linalg.eigh(np.cov(train.T))
    t = v / np.sqrt(np.maximum(w, 0) + lam)
    return train @ t, test @ t


def libsvm_decision(model, x):
    """The decision value of a one-class LIBSVM model file on the rows x:
    Σ α_i exp(−γ‖sv_i − x‖²) − ρ, svm-predict's."""
    gamma = rho = None
    sv, coef = [], []
    with open(model) as f:
        lines = iter(f)
        for line in lines:
            k, *v = line.split()
            if k == "gamma":
                gamma = float(v[0])
            elif k == "rho":
                rho = float(v[0])
            elif k == "SV":
                break
        for line in lines:
            p = line.split()
            coef.append(float(p[0]))
            s = np.zeros(x.shape[1])
            for t in p[1:]:
                j, val = t.split(":")
                s[int(j) - 1] = float(val)
            sv.append(s)
    sv, coef = np.array(sv), np.array(coef)
    d2 = (x * x).sum(1)[:, None] + (sv * sv).sum(1)[None, :] - 2 * x @ sv.T
    return np.exp(-gamma * np.maximum(d2, 0)) @ coef - rho


def timed(cmd):
    t0 = time.time()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return out, time.time() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nsvm", required=True)
    ap.add_argument("--ocnsvm", required=True)
    ap.add_argument("--sets", default="breast-cancer," + ",".join(f"digits-{d}" for d in range(10)))
    ap.add_argument("--seeds", default="1,2,3,4,5,6")
    ap.add_argument("--nu", default="0.5")
    ap.add_argument("--nets", default="svdd:20,svdd:100,contrast:20", help="NSVMs to run: objective:epochs,…")
    ap.add_argument("--extra", default="", help="more flags for ocnsvm, space-separated")
    ap.add_argument("--out", default=HERE)
    a = ap.parse_args()
    work = os.path.join(os.environ.get("NSVM_BENCH_DIR", "/tmp/nsvm-bench"), "oneclass")
    os.makedirs(work, exist_ok=True)
    results = []
    for name, x, inlier in sets(a.sets.split(",")):
        for seed in map(int, a.seeds.split(",")):
            tr, te = split(inlier, seed)
            d = os.path.join(work, f"{name}-s{seed}")
            os.makedirs(d, exist_ok=True)
            ytest = np.where(inlier[te], 1, -1)
            write_csv(f"{d}/train.csv", x[tr], np.ones(len(tr), int))
            write_csv(f"{d}/test.csv", x[te], ytest)
            xs_tr, xs_te = standardize(x[tr], x[te])
            write_libsvm(f"{d}/train.libsvm", xs_tr, np.ones(len(tr), int))
            rec = dict(set=name, seed=seed, train=len(tr), test_in=int((ytest > 0).sum()), test_out=int((ytest < 0).sum()), features=x.shape[1])

            def score(method, dec, secs):
                r = dict(rec, method=method, auc=float(roc_auc_score(ytest, dec)), seconds=secs)
                results.append(r)
                print(json.dumps(r), flush=True)

            # nsvm's one-class SVM: standardised inputs, γ = 1/D, ν.
            _, secs = timed([a.nsvm, "train", "--svm-type", "one-class", "--nu", a.nu, "--data", f"{d}/train.csv",
                             "--model", f"{d}/oc.nsvm", "--quiet"])
            out, _ = timed([a.nsvm, "predict", "--model", f"{d}/oc.nsvm", "--data", f"{d}/test.csv", "--decision-values"])
            score("nsvm one-class (RBF)", np.array([float(l.split()[1]) for l in out.splitlines()]), secs)
            # svm-train -s 2 on the same standardised rows, its default γ = 1/D.
            _, secs = timed(["svm-train", "-q", "-s", "2", "-n", a.nu, f"{d}/train.libsvm", f"{d}/oc.model"])
            score("svm-train -s 2 (RBF)", libsvm_decision(f"{d}/oc.model", xs_te), secs)
            # The same on ridge-whitened rows, γ = 1/(D·Var) of the whitened
            # training rows.
            xw_tr, xw_te = whiten(xs_tr, xs_te)
            write_libsvm(f"{d}/train-white.libsvm", xw_tr, np.ones(len(tr), int))
            _, secs = timed(["svm-train", "-q", "-s", "2", "-n", a.nu, "-g", f"{1 / (xw_tr.shape[1] * xw_tr.var()):.9g}",
                             f"{d}/train-white.libsvm", f"{d}/white.model"])
            score("svm-train -s 2 (RBF), whitened inputs", libsvm_decision(f"{d}/white.model", xw_te), secs)
            for net in filter(None, a.nets.split(",")):
                obj, epochs = net.split(":")
                out, secs = timed([a.ocnsvm, "-train", f"{d}/train.csv", "-test", f"{d}/test.csv", "-objective", obj,
                                   "-nu", a.nu, "-epochs", epochs, "-seed", str(seed)] + a.extra.split())
                score(f"NSVM {obj}, {epochs} epochs", np.array([float(v) for v in out.split()]), secs)
    with open(os.path.join(a.out, "results.jsonl"), "w") as f:
        for r in results:
            f.write(json.dumps(r) + "\n")
    write_table(results, os.path.join(a.out, "results.md"))


def write_table(results, path):
    methods = list(dict.fromkeys(r["method"] for r in results))
    names = list(dict.fromkeys(r["set"] for r in results))
    lines = ["| data | train inliers | test inliers / outliers | " + " | ".join(methods) + " |",
             "|---|---|---|" + "---|" * len(methods)]
    means = {m: [] for m in methods}
    for n in names:
        rs = [r for r in results if r["set"] == n]
        cells = []
        for m in methods:
            v = np.array([r["auc"] for r in rs if r["method"] == m])
            means[m].append(v.mean())
            cells.append(f"{v.mean():.3f} ± {v.std():.3f}")
        lines.append(f"| {n} | {rs[0]['train']} | {rs[0]['test_in']} / {rs[0]['test_out']} | " + " | ".join(cells) + " |")
    lines.append("| mean over the sets | | | " + " | ".join(f"{np.mean(means[m]):.3f}" for m in methods) + " |")
    secs = {m: np.mean([r["seconds"] for r in results if r["method"] == m]) for m in methods}
    lines.append("| mean seconds (training) | | | " + " | ".join(f"{secs[m]:.2f}" for m in methods) + " |")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
