#!/usr/bin/python3
"""nsvm's defaults against what a practitioner would use, on data nobody tuned for.

For every data set and seed: one seeded 75/25 train/test split (stratified for
classification), written as CSV (float32-exact values, label column "label");
then, on the same files,

  nsvm        nsvm train --data train.csv --model m --json --quiet (no other flag),
              nsvm eval --model m --data test.csv --json
  nsvm+shape  the same with --input-shape (image data only)
  svc         StandardScaler + SVC()                       (SVR() for regression)
  svc-grid    StandardScaler + GridSearchCV(SVC(), C × γ, 5-fold)
  mlp         StandardScaler + MLPClassifier(max_iter=1000) (MLPRegressor)

and prints accuracy % (RMSE for regression) and training time per method, a
Markdown table (bench/suite/results.md), one JSON line per run
(bench/suite/results.jsonl) and the check of the targets. scikit-learn runs on
one thread, as it does by default; nsvm uses both cores.

Usage: bench/suite/run.sh [--quick] [--seeds N] [--only a,b] [--nsvm PATH]
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from sklearn import datasets
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.neural_network import MLPClassifier, MLPRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, SVR

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from benchrun import read_idx  # noqa: E402

GRID = {"C": [0.1, 1, 10, 100], "gamma": ["scale", 0.003, 0.01, 0.03, 0.1, 0.3]}

# name: (loader, task, image shape or None, small)
SETS = [
    ("iris", "classification", None, True),
    ("wine", "classification", None, True),
    ("breast_cancer", "classification", None, True),
    ("digits", "classification", "1x8x8", True),
    ("diabetes", "regression", None, True),
    ("ringnorm", "classification", None, False),
    ("friedman1", "regression", None, False),
    ("mnist4k", "classification", "1x28x28", False),
]


def nsvm_data(nsvm, kind, n, seed, tmp):
    path = os.path.join(tmp, f"{kind}-{seed}.libsvm")
    subprocess.run([nsvm, "data", kind, "--n", str(n), "--seed", str(seed), "--out", path], check=True)
    X, y = datasets.load_svmlight_file(path, n_features=20 if kind == "ringnorm" else 10)
    return X.toarray(), y


def load(name, seed, nsvm, tmp, mnist_dir):
    """Returns X (float32), y, or None when the data is not available."""
    if name == "iris":
        d = datasets.load_iris()
    elif name == "wine":
        d = datasets.load_wine()
    elif name == "breast_cancer":
        d = datasets.load_breast_cancer()
    elif name == "digits":
        d = datasets.load_digits()
    elif name == "diabetes":
        d = datasets.load_diabetes()
    elif name == "ringnorm":
        X, y = nsvm_data(nsvm, "ringnorm", 7400, seed, tmp)
        return X.astype(np.float32), y
    elif name == "friedman1":
        X, y = nsvm_data(nsvm, "friedman1", 2000, seed, tmp)
        return X.astype(np.float32), y
    elif name == "mnist4k":
        img = os.path.join(mnist_dir, "train-images-idx3-ubyte")
        lab = os.path.join(mnist_dir, "train-labels-idx1-ubyte")
        if not (os.path.exists(img) and os.path.exists(lab)):
            return None
        X = read_idx(img).reshape(-1, 784)
        y = read_idx(lab).astype(np.float64)
        idx = np.random.RandomState(seed).permutation(len(y))[:4000]
        return (X[idx] / np.float32(255)).astype(np.float32), y[idx]
    else:
        raise ValueError(name)
    return d.data.astype(np.float32), d.target.astype(np.float64)


def write_csv(path, X, y, regression):
    with open(path, "w") as f:
        f.write("label," + ",".join(f"f{j}" for j in range(X.shape[1])) + "\n")
        for xi, yi in zip(X, y):
            lab = repr(float(yi)) if regression else str(int(yi))
            # %.9g round-trips float32: nsvm (float32) and scikit-learn
            # (float64 of the same decimal) see the same numbers.
            f.write(lab + "," + ",".join("%.9g" % v for v in xi) + "\n")


def run_nsvm(nsvm, train, test, extra, task, timeout):
    model = train + ".nsvm"
    cmd = [nsvm, "train", "--data", train, "--model", model, "--json", "--quiet"] + extra
    t = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout} s"}
    wall = time.time() - t
    if p.returncode != 0:
        return {"error": p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}"}
    tr = json.loads(p.stdout)
    p = subprocess.run([nsvm, "eval", "--model", model, "--data", test, "--json"], capture_output=True, text=True)
    if p.returncode != 0:
        return {"error": "eval: " + p.stderr.strip()}
    ev = json.loads(p.stdout)
    out = {"seconds": wall, "train_seconds": tr.get("train_seconds"), "selected": tr.get("selected", tr.get("algo")),
           "validation": tr.get("validation"), "validation_score": tr.get("validation_score"),
           "candidates": len(tr.get("candidates") or [])}
    if task == "regression":
        out["rmse"] = ev["rmse"]
    else:
        out["accuracy"] = ev["accuracy"]
        out["train_accuracy"] = tr.get("train_accuracy")
    return out


def run_sklearn(method, Xtr, ytr, Xte, yte, task, seed):
    if task == "classification":
        est = {"svc": SVC(), "svc-grid": GridSearchCV(SVC(), GRID, cv=5),
               "mlp": MLPClassifier(max_iter=1000, random_state=seed)}[method]
    else:
        est = {"svc": SVR(), "svc-grid": GridSearchCV(SVR(), GRID, cv=5, scoring="neg_root_mean_squared_error"),
               "mlp": MLPRegressor(max_iter=1000, random_state=seed)}[method]
    pipe = make_pipeline(StandardScaler(), est)
    t = time.time()
    pipe.fit(Xtr, ytr)
    secs = time.time() - t
    pred = pipe.predict(Xte)
    out = {"seconds": secs}
    if task == "regression":
        out["rmse"] = float(np.sqrt(np.mean((pred - yte) ** 2)))
    else:
        out["accuracy"] = float(np.mean(pred == yte))
    if method == "svc-grid":
        out["selected"] = str(est.best_params_)
    return out


def mean_sd(v):
    v = [x for x in v if x is not None]
    if not v:
        return None, None
    m = sum(v) / len(v)
    sd = math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1)) if len(v) > 1 else 0.0
    return m, sd


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nsvm", required=True, help="the nsvm binary")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="one seed, the small sets only")
    ap.add_argument("--only", default="", help="comma-separated data set names")
    ap.add_argument("--skip-peers", action="store_true", help="nsvm only (reuses nothing; for quick checks)")
    ap.add_argument("--timeout", type=int, default=3600, help="per nsvm run, seconds")
    ap.add_argument("--mnist", default=os.environ.get("NSVM_MNIST_DIR", "/work/mnist"))
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__))))
    a = ap.parse_args()
    seeds = [1] if a.quick else list(range(1, a.seeds + 1))
    only = set(filter(None, a.only.split(",")))
    sets = [s for s in SETS if (not only or s[0] in only) and (not a.quick or s[3])]
    methods = ["nsvm", "nsvm+shape", "svc", "svc-grid", "mlp"]
    runs = []
    start = time.time()
    jsonl = open(os.path.join(a.out, "results.jsonl"), "w")
    with tempfile.TemporaryDirectory() as tmp:
        for name, task, shape, _ in sets:
            for seed in seeds:
                d = load(name, seed, a.nsvm, tmp, a.mnist)
                if d is None:
                    print(f"{name}: data not available, skipped", file=sys.stderr)
                    break
                X, y = d
                strat = y if task == "classification" else None
                Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=seed, stratify=strat)
                tr, te = os.path.join(tmp, f"{name}-{seed}.train.csv"), os.path.join(tmp, f"{name}-{seed}.test.csv")
                write_csv(tr, Xtr, ytr, task == "regression")
                write_csv(te, Xte, yte, task == "regression")
                # The CSV values, as both sides read them.
                Xtr = np.loadtxt(tr, delimiter=",", skiprows=1)[:, 1:]
                Xte = np.loadtxt(te, delimiter=",", skiprows=1)[:, 1:]
                for m in methods:
                    if m == "nsvm+shape" and not shape:
                        continue
                    if a.skip_peers and not m.startswith("nsvm"):
                        continue
                    if m.startswith("nsvm"):
                        extra = ["--input-shape", shape] if m == "nsvm+shape" else []
                        r = run_nsvm(a.nsvm, tr, te, extra, task, a.timeout)
                    else:
                        r = run_sklearn(m, Xtr, ytr, Xte, yte, task, seed)
                    r.update({"dataset": name, "task": task, "seed": seed, "method": m,
                              "n_train": len(ytr), "n_test": len(yte), "d": X.shape[1]})
                    runs.append(r)
                    jsonl.write(json.dumps(r) + "\n")
                    jsonl.flush()
                    score = r.get("accuracy", r.get("rmse"))
                    what = "error: " + r["error"] if "error" in r else (
                        f"{100 * score:.2f} %" if task == "classification" else f"RMSE {score:.4g}")
                    print(f"{name:14s} seed {seed} {m:10s} {what:24s} {r.get('seconds', 0):8.2f} s  {r.get('selected') or ''}",
                          file=sys.stderr, flush=True)
    jsonl.close()
    table = summarize(runs, sets, methods)
    table += f"\nWall time of the whole run: {time.time() - start:.0f} s; seeds {seeds}.\n"
    with open(os.path.join(a.out, "results.md"), "w") as f:
        f.write(table)
    print(table)


def summarize(runs, sets, methods):
    lines = ["| data | n × d | task | " + " | ".join(methods) + " | nsvm selected |",
             "|---|---|---|" + "---|" * len(methods) + "---|"]
    checks = []
    wins, counted = 0, 0
    for name, task, _, _ in sets:
        rs = [r for r in runs if r["dataset"] == name]
        if not rs:
            continue
        cells = []
        agg = {}
        for m in methods:
            mr = [r for r in rs if r["method"] == m]
            if not mr:
                cells.append("–")
                continue
            errs = [r for r in mr if "error" in r]
            if errs:
                cells.append("error")
                agg[m] = None
                continue
            key = "rmse" if task == "regression" else "accuracy"
            s, sd = mean_sd([r[key] for r in mr])
            t, _ = mean_sd([r["seconds"] for r in mr])
            agg[m] = (s, t)
            if task == "regression":
                cells.append(f"{s:.4g} ± {sd:.2g} ({t:.2f} s)")
            else:
                cells.append(f"{100 * s:.2f} ± {100 * sd:.2f} ({t:.2f} s)")
        sel = sorted({r.get("selected") or "" for r in rs if r["method"] == "nsvm" and "error" not in r})
        lines.append(f"| {name} | {rs[0]['n_train']} × {rs[0]['d']} | {task} | " + " | ".join(cells) + " | " +
                     "; ".join(sel) + " |")
        n, c, g = agg.get("nsvm"), agg.get("svc"), agg.get("svc-grid")
        if n and c and g:
            counted += 1
            if task == "regression":
                ok = n[0] <= g[0]
                win = n[0] < min(c[0], g[0])
                checks.append(f"- {name}: RMSE {n[0]:.4g} {'≤' if ok else '>'} grid SVR {g[0]:.4g} "
                              f"{'ok' if ok else 'MISSED'}; time {n[1]:.2f} s vs grid {g[1]:.2f} s "
                              f"{'ok' if n[1] <= g[1] else 'SLOWER'}")
            else:
                target = max(c[0], g[0]) - 0.01
                ok = n[0] >= target
                win = n[0] > max(c[0], g[0])
                checks.append(f"- {name}: {100 * n[0]:.2f} % vs max(SVC, grid) − 1 = {100 * target:.2f} % "
                              f"{'ok' if ok else 'MISSED'}; time {n[1]:.2f} s vs grid {g[1]:.2f} s "
                              f"{'ok' if n[1] <= g[1] else 'SLOWER'}")
            wins += win
        if name == "digits":
            for m, want in (("nsvm", 0.985), ("nsvm+shape", 0.99)):
                if agg.get(m):
                    checks.append(f"- digits {m}: {100 * agg[m][0]:.2f} % (target ≥ {100 * want:.1f} %) "
                                  f"{'ok' if agg[m][0] >= want else 'MISSED'}")
    out = "\n".join(lines) + "\n\nTargets:\n" + "\n".join(checks)
    out += f"\n- nsvm beats both SVC and the grid on {wins} of {counted} data sets (target ≥ {math.ceil(counted / 3)})\n"
    return out


if __name__ == "__main__":
    main()
