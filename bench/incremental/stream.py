"""Learning from a stream: nsvm's partial_fit against scikit-learn's
SGDClassifier and Nystroem + SGDClassifier partial_fit, and nsvm train
--continue (see README.md). Each method runs in a process of its own, so that
its peak resident memory is its own; the table is printed at the end."""

import argparse
import json
import os
import pickle
import resource
import subprocess
import sys
import time

import numpy as np

CHUNK = 2000


def ringnorm(data):
    """Generated Ringnorm: 200 000 training rows (seed 11) and 10 000 test
    rows (seed 12) as float64 arrays."""
    import pandas as pd

    out = []
    for name, n, seed in (("train", 200000, 11), ("test", 10000, 12)):
        f = pd.read_csv(os.path.join(data, f"ring_{name}.csv"))
        out += [f.drop(columns="label").to_numpy(), f["label"].to_numpy()]
    return out


def idx(path):
    b = open(path, "rb").read()
    nd = b[3]
    dims = [int.from_bytes(b[4 + 4 * i : 8 + 4 * i], "big") for i in range(nd)]
    return np.frombuffer(b, dtype=np.uint8, offset=4 + 4 * nd).reshape(dims)


def mnist(data, dtype):
    """MNIST's 60 000 training and 10 000 test images, pixels / 255."""
    d = os.path.join(data, "mnist")
    xtr = idx(os.path.join(d, "train-images-idx3-ubyte")).reshape(60000, -1).astype(dtype) / 255
    xte = idx(os.path.join(d, "t10k-images-idx3-ubyte")).reshape(10000, -1).astype(dtype) / 255
    return xtr, idx(os.path.join(d, "train-labels-idx1-ubyte")), xte, idx(os.path.join(d, "t10k-labels-idx1-ubyte"))


def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def stream(method, xtr, ytr, xte, yte, chunks, extra):
    """Feeds the chunks to method's partial_fit; returns the row of the table."""
    from sklearn.kernel_approximation import Nystroem
    from sklearn.linear_model import SGDClassifier
    from sklearn.preprocessing import StandardScaler

    import nsvm

    classes = np.unique(ytr)
    times = []
    pickled = None
    start = time.perf_counter()
    if method == "nsvm":
        est = nsvm.NSVMClassifier(random_state=1, **extra.get("nsvm", {}))
        for k in range(chunks):
            t = time.perf_counter()
            est.partial_fit(xtr[k * CHUNK : (k + 1) * CHUNK], ytr[k * CHUNK : (k + 1) * CHUNK], classes=classes)
            times.append(time.perf_counter() - t)
            if k == chunks // 2:
                pickled = pickle.dumps(est)
        predict = est.predict
    else:
        scale = StandardScaler() if extra.get("standardize") else None
        ny, clf = None, SGDClassifier(random_state=0)

        def transform(x):
            if scale is not None:
                x = scale.transform(x)
            return x if ny is None else ny.transform(x)

        for k in range(chunks):
            t = time.perf_counter()
            x, y = xtr[k * CHUNK : (k + 1) * CHUNK], ytr[k * CHUNK : (k + 1) * CHUNK]
            if scale is not None:
                scale.partial_fit(x)
            if method == "nystroem" and ny is None:
                ny = Nystroem(random_state=0, **extra["nystroem"]).fit(transform(x))
            clf.partial_fit(transform(x), y, classes=classes)
            times.append(time.perf_counter() - t)

        def predict(x):
            return clf.predict(transform(x))

    acc = float(np.mean(predict(xte) == yte))
    total = time.perf_counter() - start
    row = {"method": method, "accuracy": acc, "seconds": total, "calls_11_20": float(np.mean(times[10:20])),
           "last_10": float(np.mean(times[-10:])), "first_call": times[0], "peak_mb": peak_mb()}
    if pickled is not None:
        # A copy pickled after chunk chunks//2 continues to the same model.
        copy = pickle.loads(pickled)
        for k in range(chunks // 2 + 1, chunks):
            copy.partial_fit(xtr[k * CHUNK : (k + 1) * CHUNK], ytr[k * CHUNK : (k + 1) * CHUNK])
        row["pickled_same"] = bool(np.array_equal(copy.predict(xte), predict(xte)))
        info = est.model_.info
        row["model"] = f"{info['algorithm']}, {info['n_support']} support vectors"
    return row


def fit_all(xtr, ytr, xte, yte):
    import nsvm

    start = time.perf_counter()
    est = nsvm.NSVMClassifier(random_state=1).fit(xtr, ytr)
    return {"method": "nsvm fit (all rows)", "accuracy": float(est.score(xte, yte)), "seconds": time.perf_counter() - start,
            "peak_mb": peak_mb(), "model": est.selection_["selected"] if est.selection_ else est.model_.info["algorithm"]}


def worker(args):
    if args.set == "ringnorm":
        xtr, ytr, xte, yte = ringnorm(args.data)
        extra = {"standardize": True, "nystroem": {"n_components": 300}}
        chunks = 100
    else:
        # nsvm computes in float32 and takes the rows as they are; the
        # baselines get the float64 rows scikit-learn computes in.
        xtr, ytr, xte, yte = mnist(args.data, np.float32 if args.method == "nsvm" else np.float64)
        extra = {"nystroem": {"n_components": 1000, "gamma": 0.02}, "nsvm": {"input_shape": (1, 28, 28)}}
        chunks = 30
    if args.method == "fit":
        row = fit_all(xtr, ytr, xte, yte)
    else:
        row = stream(args.method, xtr, ytr, xte, yte, chunks, extra)
    row["set"] = args.set
    print(json.dumps(row), flush=True)


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        raise SystemExit(f"{' '.join(cmd)} failed")
    return p


def prepare(args):
    os.makedirs(args.data, exist_ok=True)
    for name, n, seed in (("train", 200000, 11), ("test", 10000, 12)):
        path = os.path.join(args.data, f"ring_{name}.csv")
        if not os.path.exists(path):
            run([args.nsvm, "data", "ringnorm", "--n", str(n), "--seed", str(seed), "--out", path])
    if args.only in (None, "mnist") and not os.path.exists(os.path.join(args.data, "mnist", "t10k-labels-idx1-ubyte")):
        run([args.nsvm, "data", "mnist", "--dir", os.path.join(args.data, "mnist")])


def continue_experiment(args):
    """nsvm train on the first 2000 Ringnorm rows, then --continue with the
    next 20 000; both scored on the 10 000 test rows."""
    d = args.data
    first, more = os.path.join(d, "ring_first.csv"), os.path.join(d, "ring_more.csv")
    with open(os.path.join(d, "ring_train.csv")) as f:
        lines = f.readlines()
    with open(first, "w") as f:
        f.writelines(lines[: 1 + 2000])
    with open(more, "w") as f:
        f.writelines(lines[:1] + lines[1 + 2000 : 1 + 22000])
    m0, m1 = os.path.join(d, "first.nsvm"), os.path.join(d, "continued.nsvm")
    t = time.perf_counter()
    run([args.nsvm, "train", "--data", first, "--model", m0, "--quiet"])
    t0 = time.perf_counter() - t
    t = time.perf_counter()
    run([args.nsvm, "train", "--continue", m0, "--data", more, "--model", m1, "--quiet"])
    t1 = time.perf_counter() - t
    rows = []
    for name, m, secs in (("nsvm train, 2000 rows", m0, t0), ("nsvm train --continue, +20 000 rows", m1, t1)):
        out = run([args.nsvm, "eval", "--model", m, "--data", os.path.join(d, "ring_test.csv"), "--json"]).stdout
        rows.append({"set": "continue", "method": name, "accuracy": json.loads(out)["accuracy"], "seconds": secs})
    info = json.loads(run([args.nsvm, "info", "--model", m1, "--json"]).stdout)
    rows[-1]["model"] = f"{info['algorithm']}, {info['support_vectors']} support vectors, seen {info['seen']}"
    return rows


def table(rows):
    print("| data | method | test accuracy | total s | calls 11–20 s/call | last 10 s/call | peak RSS MB | notes |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        f = lambda k, fmt: (fmt % r[k]) if k in r else ""
        notes = r.get("model", "")
        if "pickled_same" in r:
            notes += f"; pickled mid-stream → same predictions: {r['pickled_same']}"
        print(f"| {r['set']} | {r['method']} | {100 * r['accuracy']:.2f} % | {f('seconds', '%.1f')} | {f('calls_11_20', '%.4f')} | "
              f"{f('last_10', '%.4f')} | {f('peak_mb', '%.0f')} | {notes} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--nsvm", required=True, help="the nsvm command")
    ap.add_argument("--data", required=True, help="directory of the data (made if missing)")
    ap.add_argument("--only", choices=["ringnorm", "mnist", "continue"])
    ap.add_argument("--json", help="also write the rows to this file, one JSON object a line")
    ap.add_argument("--rounds", type=int, default=1,
                    help="run the streams this many times, in alternating order, and report each method's fastest run "
                    "and nsvm's time over the baselines' round by round (a shared machine's speed moves by 2x)")
    ap.add_argument("--worker", nargs=2, metavar=("SET", "METHOD"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        args.set, args.method = args.worker
        return worker(args)
    prepare(args)
    rows = []
    plan = []
    if args.only in (None, "ringnorm"):
        plan += [("ringnorm", m) for m in ("nsvm", "sgd", "nystroem", "fit")]
    if args.only in (None, "mnist"):
        plan += [("mnist", m) for m in ("nsvm", "sgd", "nystroem")]
    runs = {}
    for r in range(max(1, args.rounds)):
        for s, m in plan if r % 2 == 0 else plan[::-1]:
            out = run([sys.executable, __file__, "--nsvm", args.nsvm, "--data", args.data, "--worker", s, m]).stdout
            row = dict(json.loads(out.strip().splitlines()[-1]), round=r)
            runs.setdefault((s, m), []).append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    for s, m in plan:
        best = min(runs[(s, m)], key=lambda x: x["seconds"])
        rows.append(dict(best, seconds_runs=[x["seconds"] for x in runs[(s, m)]]))
    if args.only in (None, "continue"):
        rows += continue_experiment(args)
    table(rows)
    if args.rounds > 1:
        print(f"\n(total s, calls: the fastest of {args.rounds} runs of each method, in alternating order)")
        for s in ("ringnorm", "mnist"):
            if (s, "nsvm") in runs and (s, "nystroem") in runs:
                ratios = [a["seconds"] / b["seconds"] for a, b in zip(runs[(s, "nsvm")], runs[(s, "nystroem")])]
                print(f"{s}: nsvm's time over Nystroem + SGD's, round by round: " + ", ".join(f"{x:.2f}x" for x in ratios))
    if args.json:
        with open(args.json, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
