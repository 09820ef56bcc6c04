#!/usr/bin/env python3
"""nsvm against liblinear and scikit-learn on sparse, high-dimensional text.

Data (generated into --dir, default $NSVM_BENCH_DIR or /tmp/nsvm-bench):
  debian  Debian package descriptions labelled by section, 20 classes, tf-idf
          (debian_text.py: real text; needs apt-get and the Debian archive once)
  zipf    bench/cmd/zipfgen defaults: 20000 / 5000 generated documents, 20
          classes, 60000-word Zipf vocabulary, tf-idf
  binary  bench/cmd/zipfgen: 20000 / 5000 rows × 50000 features at 0.1 %
          density, 2 classes (the SMO memory target)
Methods, each training in its own process under /usr/bin/time (peak RSS):
  liblinear-train with its defaults (-s 1, C = 1) and -s 1 -c C for --cs;
  scikit-learn LinearSVC() on load_svmlight_file's matrices;
  nsvm train --data TRAIN --model M (no other flag), then nsvm eval.
Train seconds are the wall time of the training process for liblinear and
nsvm (reading the file included) and, for LinearSVC, load_svmlight_file of
the training file plus fit, timed inside the process (without the Python
start and imports). A method that fails keeps its row, with its error.
Writes results.md and results.jsonl next to this file.
"""
import argparse, json, os, re, shutil, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from benchrun import error_summary, timed, write_results  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

SETS = {
    "debian": "Debian descriptions → section",
    "zipf": "Zipf bag of words",
    "binary": "Zipf binary, 0.1 % dense",
}

SKLEARN = r'''
import json, resource, sys, time
from sklearn.datasets import load_svmlight_file
from sklearn.svm import LinearSVC
train, test = sys.argv[1:3]
t = time.time()
X, y = load_svmlight_file(train)
load = time.time() - t
t = time.time()
m = LinearSVC().fit(X, y)
fit = time.time() - t
Xt, yt = load_svmlight_file(test, n_features=X.shape[1])
acc = float((m.predict(Xt) == yt).mean())
print(json.dumps({"load": load, "fit": fit, "accuracy": acc,
                  "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
'''


def prepare(name, a):
    """Makes the data set if missing; returns (train, test) paths."""
    d = os.path.join(a.dir, name)
    train, test = os.path.join(d, "train.libsvm"), os.path.join(d, "test.libsvm")
    if os.path.exists(train) and os.path.exists(test):
        return train, test
    os.makedirs(d, exist_ok=True)
    if name == "debian":
        subprocess.run([sys.executable, os.path.join(HERE, "debian_text.py"), "--lists", os.path.join(a.dir, "apt-lists"), "--out", d], check=True)
    else:
        args = ["-seed", "1"] if name == "zipf" else ["-classes", "2", "-groups", "1", "-vocab", "50000", "-minlen", "40", "-maxlen", "80", "-topic", "0.04", "-seed", "1"]
        subprocess.run([a.zipfgen, "-out", os.path.join(d, "data")] + args, check=True)
        os.replace(os.path.join(d, "data.train.libsvm"), train)
        os.replace(os.path.join(d, "data.test.libsvm"), test)
    return train, test


def shape(path):
    """Rows, width (highest index) and nonzeros of a LIBSVM file."""
    n = width = nnz = 0
    with open(path) as f:
        for line in f:
            n += 1
            toks = line.split()[1:]
            nnz += len(toks)
            if toks:
                width = max(width, int(toks[-1].split(":")[0]))
    return n, width, nnz


def run_liblinear(train, test, c, work, timeout):
    model = os.path.join(work, "liblinear.model")
    cmd = ["liblinear-train", "-q"] + ([] if c is None else ["-s", "1", "-c", str(c)]) + [train, model]
    rc, _, err, secs, rss = timed(cmd, timeout)
    rss = float("nan") if rss is None else rss
    name = "liblinear-train (defaults: -s 1 -c 1)" if c is None else f"liblinear-train -s 1 -c {c}"
    if rc != 0:
        return {"method": name, "error": error_summary(err), "seconds": secs, "rss": rss}
    p = subprocess.run(["liblinear-predict", test, model, os.path.join(work, "liblinear.out")], capture_output=True, text=True)
    m = re.search(r"Accuracy = ([\d.]+)%", p.stdout)
    if not m:
        return {"method": name, "error": "liblinear-predict: " + error_summary(p.stdout + p.stderr), "seconds": secs, "rss": rss}
    return {"method": name, "accuracy": float(m.group(1)) / 100, "seconds": secs, "rss": rss}


def run_sklearn(train, test, timeout):
    name = "scikit-learn LinearSVC()"
    rc, out, err, secs, rss = timed([sys.executable, "-c", SKLEARN, train, test], timeout)
    rss = float("nan") if rss is None else rss
    if rc != 0:
        return {"method": name, "error": error_summary(err), "seconds": secs, "rss": rss}
    j = json.loads(out.strip().splitlines()[-1])
    return {"method": name, "accuracy": j["accuracy"], "seconds": j["load"] + j["fit"], "fit": j["fit"], "rss": rss, "process_seconds": secs}


def run_nsvm(nsvm, train, test, work, timeout):
    name = "nsvm train (no flags)"
    model = os.path.join(work, "m.nsvm")
    if os.path.exists(model):
        os.remove(model)
    rc, out, err, secs, rss = timed([nsvm, "train", "--data", train, "--model", model], timeout)
    rss = float("nan") if rss is None else rss
    if rc != 0:
        return {"method": name, "error": error_summary(err), "seconds": secs, "rss": rss}
    sel = next((l.strip().split(": ")[0] for l in out.splitlines() if l.strip().startswith("selected")), "")
    p = subprocess.run([nsvm, "eval", "--model", model, "--data", test], capture_output=True, text=True, timeout=timeout)
    m = re.search(r"accuracy ([\d.]+)%", p.stdout)
    if p.returncode != 0 or not m:
        return {"method": name, "error": "nsvm eval: " + error_summary(p.stderr or p.stdout), "seconds": secs, "rss": rss}
    return {"method": name, "accuracy": float(m.group(1)) / 100, "seconds": secs, "rss": rss, "selected": sel}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nsvm", required=True)
    ap.add_argument("--zipfgen", required=True)
    ap.add_argument("--dir", default=os.environ.get("NSVM_BENCH_DIR", "/tmp/nsvm-bench"))
    ap.add_argument("--sets", default="debian,zipf,binary")
    ap.add_argument("--cs", default="0.1,0.3,3,10", help="liblinear -s 1 -c values besides the defaults")
    ap.add_argument("--timeout", type=int, default=3600, help="seconds before a training run is stopped")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    load0 = os.getloadavg()
    work = tempfile.mkdtemp(prefix="sparse-", dir=a.dir)
    rows = []
    out = open(os.path.join(HERE, "results.jsonl"), "w")
    for name in a.sets.split(","):
        try:
            train, test = prepare(name, a)
        except Exception as e:  # noqa: BLE001
            r = {"set": name, "method": "data", "error": str(e)[-300:]}
            print(json.dumps(r), flush=True)
            out.write(json.dumps(r) + "\n")
            rows.append(r)
            continue
        n, width, nnz = shape(train)
        nt = shape(test)[0]
        info = {"set": name, "n": n, "n_test": nt, "width": width, "nnz": nnz}
        runs = [lambda: run_liblinear(train, test, None, work, a.timeout)]
        runs += [lambda c=c: run_liblinear(train, test, c, work, a.timeout) for c in a.cs.split(",") if c]
        runs += [lambda: run_sklearn(train, test, a.timeout), lambda: run_nsvm(a.nsvm, train, test, work, a.timeout)]
        for f in runs:
            r = dict(info, **f())
            print(json.dumps(r), flush=True)
            out.write(json.dumps(r) + "\n")
            rows.append(r)
    out.close()
    shutil.rmtree(work, ignore_errors=True)
    table = ["| data | train × features (nonzeros a row) | test rows | method | test accuracy | train wall s | peak RSS MB | note |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["method"] == "data":
            table.append(f"| {SETS.get(r['set'], r['set'])} | | | data | error | | | {r['error']} |")
            continue
        size = f"{r['n']:,} × {r['width']:,} ({r['nnz'] / r['n']:.0f})"
        if "error" in r:
            acc, note = "**error**", r["error"].replace("|", "\\|")
        else:
            acc = f"{100 * r['accuracy']:.2f} %"
            note = r.get("selected", "")
            if "fit" in r:
                note = f"load {r['seconds'] - r['fit']:.1f} s + fit {r['fit']:.1f} s; process {r['process_seconds']:.1f} s"
        table.append(f"| {SETS.get(r['set'], r['set'])} | {size} | {r['n_test']:,} | {r['method']} | {acc} | {r['seconds']:.1f} | {r['rss']:.0f} | {note} |")
    text = "\n".join(table) + "\n"
    text += f"\nload average {load0[0]:.2f} at the start, {os.getloadavg()[0]:.2f} at the end ({os.cpu_count()} cores)\n"
    write_results(os.path.join(HERE, "results.md"), text)


if __name__ == "__main__":
    main()
