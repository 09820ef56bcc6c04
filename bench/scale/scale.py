#!/usr/bin/env python3
"""nsvm against scikit-learn on generated Ringnorm of growing size.

For every N: the training file (LIBSVM text, `nsvm data ringnorm --n N`),
a 7400-row test set from another seed; then `nsvm train` with its defaults
(streaming by itself past 1 GiB), `nsvm train --algo smo` up to --smo-max
rows, and scikit-learn's HistGradientBoosting and Nyström(1000) +
SGDClassifier up to --peers-max rows (after load_svmlight_file). Wall time
of loading and training, peak RSS of the process (nsvm: /usr/bin/time;
Python: ru_maxrss of a fresh child per method), test accuracy.
Writes results.md, results.jsonl and scale.png next to this file.
"""
import argparse, json, os, resource, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))


def run_time(cmd):
    """Runs cmd under /usr/bin/time; returns (stdout, seconds, peak RSS MB)."""
    t = time.time()
    p = subprocess.run(["/usr/bin/time", "-f", "RSS %M"] + cmd, capture_output=True, text=True)
    secs = time.time() - t
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {p.stderr.strip()[-500:]}")
    rss = [l for l in p.stderr.splitlines() if l.startswith("RSS ")]
    return p.stdout, secs, int(rss[-1].split()[1]) / 1024 if rss else float("nan")


PEER = r'''
import json, resource, sys, time
import numpy as np
from sklearn.datasets import load_svmlight_file
method, train, test = sys.argv[1:4]
t = time.time()
X, y = load_svmlight_file(train, n_features=20)
X = X.toarray().astype(np.float32)
load = time.time() - t
Xt, yt = load_svmlight_file(test, n_features=20)
Xt = Xt.toarray().astype(np.float32)
t = time.time()
if method == "hgb":
    from sklearn.ensemble import HistGradientBoostingClassifier
    m = HistGradientBoostingClassifier(random_state=0).fit(X, y)
else:
    from sklearn.kernel_approximation import Nystroem
    from sklearn.linear_model import SGDClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    m = make_pipeline(StandardScaler(), Nystroem(n_components=1000, random_state=0), SGDClassifier(random_state=0)).fit(X, y)
fit = time.time() - t
acc = float((m.predict(Xt) == yt).mean())
print(json.dumps({"load": load, "fit": fit, "accuracy": acc, "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nsvm", required=True)
    ap.add_argument("--sizes", default="10000,100000,1000000,10000000")
    ap.add_argument("--smo-max", type=int, default=100000)
    ap.add_argument("--peers-max", type=int, default=1000000)
    ap.add_argument("--dir", default=None, help="where the generated files go (default: a temporary directory)")
    a = ap.parse_args()
    work = a.dir or tempfile.mkdtemp(prefix="nsvm-scale-")
    os.makedirs(work, exist_ok=True)
    test = os.path.join(work, "test.libsvm")
    subprocess.run([a.nsvm, "data", "ringnorm", "--n", "7400", "--seed", "99", "--out", test], check=True)
    rows = []
    out = open(os.path.join(HERE, "results.jsonl"), "w")
    for n in [int(s) for s in a.sizes.split(",")]:
        train = os.path.join(work, f"ring-{n}.libsvm")
        if not os.path.exists(train):
            subprocess.run([a.nsvm, "data", "ringnorm", "--n", str(n), "--seed", "1", "--out", train], check=True)
        mb = os.path.getsize(train) / 1e6
        methods = [("nsvm", [])]
        if n <= a.smo_max:
            methods.append(("nsvm --algo smo", ["--algo", "smo"]))
        for name, extra in methods:
            model = os.path.join(work, "m.nsvm")
            try:
                so, secs, rss = run_time([a.nsvm, "train", "--data", train, "--model", model, "--json", "--quiet"] + extra)
                tr = json.loads(so)
                ev = json.loads(subprocess.run([a.nsvm, "eval", "--model", model, "--data", test, "--json"], capture_output=True, text=True, check=True).stdout)
                r = {"n": n, "mb": mb, "method": name, "seconds": secs, "load": tr.get("load_seconds", 0), "rss": rss,
                     "accuracy": ev["accuracy"], "selected": tr.get("selected", tr.get("algo")), "stream": "stream_rows" in (tr.get("info") or {})}
            except Exception as e:  # noqa: BLE001
                r = {"n": n, "mb": mb, "method": name, "error": str(e)[-300:]}
            print(json.dumps(r), flush=True)
            out.write(json.dumps(r) + "\n")
            rows.append(r)
        if n <= a.peers_max:
            for m in ["hgb", "nystroem-sgd"]:
                t = time.time()
                p = subprocess.run(["/usr/bin/time", "-f", "RSS %M", "/usr/bin/python3", "-c", PEER, m, train, test], capture_output=True, text=True)
                secs = time.time() - t
                if p.returncode != 0:
                    r = {"n": n, "mb": mb, "method": m, "error": p.stderr.strip()[-300:]}
                else:
                    j = json.loads(p.stdout.strip().splitlines()[-1])
                    rss = [l for l in p.stderr.splitlines() if l.startswith("RSS ")]
                    r = {"n": n, "mb": mb, "method": "sklearn " + m, "seconds": j["load"] + j["fit"], "load": j["load"],
                         "rss": int(rss[-1].split()[1]) / 1024, "accuracy": j["accuracy"]}
                print(json.dumps(r), flush=True)
                out.write(json.dumps(r) + "\n")
                rows.append(r)
    out.close()
    with open(os.path.join(HERE, "results.md"), "w") as f:
        f.write("| N | text MB | method | load + train s | of which load s | peak RSS MB | test accuracy | nsvm selected |\n|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            if "error" in r:
                f.write(f"| {r['n']:,} | {r['mb']:.0f} | {r['method']} | error: {r['error']} | | | | |\n")
                continue
            sel = r.get("selected", "") + (" (streamed)" if r.get("stream") else "")
            f.write(f"| {r['n']:,} | {r['mb']:.0f} | {r['method']} | {r['seconds']:.1f} | {r['load']:.1f} | {r['rss']:.0f} | {100*r['accuracy']:.2f} % | {sel} |\n")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
        for m in sorted({r["method"] for r in rows}):
            pts = [(r["n"], r["seconds"], r["accuracy"]) for r in rows if r["method"] == m and "error" not in r]
            if not pts:
                continue
            ax1.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=m)
            ax2.plot([p[0] for p in pts], [100 * p[2] for p in pts], "o-", label=m)
        ax1.set_xscale("log"); ax1.set_yscale("log"); ax1.set_xlabel("training rows N"); ax1.set_ylabel("load + train, s")
        ax2.set_xscale("log"); ax2.set_xlabel("training rows N"); ax2.set_ylabel("test accuracy, %")
        ax2.axhline(98.76, color="gray", ls="--", lw=0.8, label="Bayes 98.76 %")
        ax1.legend(fontsize=8); ax2.legend(fontsize=8)
        fig.suptitle("Ringnorm (20 features), 2 cores")
        fig.tight_layout()
        fig.savefig(os.path.join(HERE, "scale.png"), dpi=110)
    except ImportError:
        print("matplotlib missing: no plot", file=sys.stderr)


if __name__ == "__main__":
    main()
