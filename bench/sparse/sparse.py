#!/usr/bin/env python3
"""nsvm against liblinear and scikit-learn on sparse, high-dimensional text.

Data (generated into --dir, default $NSVM_BENCH_DIR or /tmp/nsvm-bench):
  debian       Debian package descriptions labelled by section, 20 classes,
               tf-idf of words (debian_text.py: real text; needs apt-get and
               the Debian archive once)
  pairs        the same documents, tf-idf of words and word pairs seen in at
               least two training documents (about 250k features)
  pairs-small  pairs fitted on 4300 of the training documents (about 34k
               features), the whole test set
  pairs-s2     pairs on another split (seed 2: other source packages held out)
  pairs-small-s3  pairs-small on another split (seed 3)
  zipf         bench/cmd/zipfgen defaults: 20000 / 5000 generated documents, 20
               classes, 60000-word Zipf vocabulary, tf-idf
  binary       bench/cmd/zipfgen: 20000 / 5000 rows × 50000 features at 0.1 %
               density, 2 classes (the SMO memory target)
Methods, each training in its own process under /usr/bin/time (peak RSS):
  liblinear-train with its defaults (-s 1, C = 1) and -s 1 -c C for --cs;
  scikit-learn LinearSVC() on load_svmlight_file's matrices;
  nsvm train --data TRAIN --model M --json (no other flag), then nsvm eval;
  with --nsvm-before, an earlier nsvm binary the same way.
Train seconds are the wall time of the training process for liblinear and
nsvm (reading the file included) and, for LinearSVC, load_svmlight_file of
the training file plus fit, timed inside the process (without the Python
start and imports); CPU seconds are the process's user + system time. With
--repeat N, liblinear's defaults and each nsvm run N times, alternating, and
the tables give medians; the ratio is the median over the repetitions of
nsvm's wall time over the liblinear run just before it. A method that fails
keeps its row, with its error. Writes results.md and results.jsonl next to
this file.
"""
import argparse, json, os, re, resource, shutil, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from benchrun import ResultLog, error_summary, timed, write_results  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

SETS = {
    "debian": "Debian descriptions → section",
    "pairs": "Debian descriptions, words and pairs",
    "pairs-small": "Debian words and pairs, 4,300 documents",
    "pairs-s2": "Debian words and pairs, split 2",
    "pairs-small-s3": "Debian words and pairs, 4,300 documents, split 3",
    "zipf": "Zipf bag of words",
    "binary": "Zipf binary, 0.1 % dense",
}

# debian_text.py's arguments for the Debian sets.
DEBIAN = {
    "debian": [],
    "pairs": ["--ngrams", "2", "--min-df", "2"],
    "pairs-small": ["--ngrams", "2", "--min-df", "2", "--train-docs", "4300"],
    "pairs-s2": ["--ngrams", "2", "--min-df", "2", "--seed", "2"],
    "pairs-small-s3": ["--ngrams", "2", "--min-df", "2", "--train-docs", "4300", "--seed", "3"],
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
    if name in DEBIAN:
        subprocess.run([sys.executable, os.path.join(HERE, "debian_text.py"), "--lists", os.path.join(a.dir, "apt-lists"), "--out", d] + DEBIAN[name], check=True)
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


def cpu_timed(cmd, timeout):
    """timed(), with the CPU seconds (user + system) of the process."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    rc, out, err, secs, rss = timed(cmd, timeout)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return rc, out, err, secs, float("nan") if rss is None else rss, cpu


def run_liblinear(train, test, c, work, timeout):
    model = os.path.join(work, "liblinear.model")
    cmd = ["liblinear-train", "-q"] + ([] if c is None else ["-s", "1", "-c", str(c)]) + [train, model]
    rc, _, err, secs, rss, cpu = cpu_timed(cmd, timeout)
    name = "liblinear-train (defaults: -s 1 -c 1)" if c is None else f"liblinear-train -s 1 -c {c}"
    r = {"method": name, "seconds": secs, "rss": rss, "cpu": cpu}
    if rc != 0:
        return dict(r, error=error_summary(err))
    p = subprocess.run(["liblinear-predict", test, model, os.path.join(work, "liblinear.out")], capture_output=True, text=True)
    m = re.search(r"Accuracy = ([\d.]+)%", p.stdout)
    if not m:
        return dict(r, error="liblinear-predict: " + error_summary(p.stdout + p.stderr))
    return dict(r, accuracy=float(m.group(1)) / 100)


def run_sklearn(train, test, timeout):
    name = "scikit-learn LinearSVC()"
    rc, out, err, secs, rss, cpu = cpu_timed([sys.executable, "-c", SKLEARN, train, test], timeout)
    if rc != 0:
        return {"method": name, "error": error_summary(err), "seconds": secs, "rss": rss}
    j = json.loads(out.strip().splitlines()[-1])
    return {"method": name, "accuracy": j["accuracy"], "seconds": j["load"] + j["fit"], "fit": j["fit"], "rss": rss, "process_seconds": secs, "cpu": cpu}


def run_nsvm(nsvm, name, train, test, work, timeout):
    model = os.path.join(work, "m.nsvm")
    if os.path.exists(model):
        os.remove(model)
    rc, out, err, secs, rss, cpu = cpu_timed([nsvm, "train", "--data", train, "--model", model, "--json"], timeout)
    r = {"method": name, "seconds": secs, "rss": rss, "cpu": cpu}
    if rc != 0:
        return dict(r, error=error_summary(err))
    j = json.loads(out.strip().splitlines()[-1])
    r.update(selected=j.get("selected", ""), load_seconds=j.get("load_seconds"), phases=j.get("phases"),
             candidates=len(j.get("candidates") or []))
    p = subprocess.run([nsvm, "eval", "--model", model, "--data", test], capture_output=True, text=True, timeout=timeout)
    m = re.search(r"accuracy ([\d.]+)%", p.stdout)
    if p.returncode != 0 or not m:
        return dict(r, error="nsvm eval: " + error_summary(p.stderr or p.stdout))
    return dict(r, accuracy=float(m.group(1)) / 100)


def summarize(runs):
    """One row from the repetitions of a method: medians of the times, the
    first run's accuracy and selection (deterministic), every run kept."""
    ok = [r for r in runs if "error" not in r]
    if not ok:
        return runs[0]
    row = dict(ok[0])
    for k in ("seconds", "cpu", "rss"):
        vals = [r[k] for r in ok if r.get(k) == r.get(k) and r.get(k) is not None]
        if vals:
            row[k] = statistics.median(vals)
    if len(runs) > 1:
        row["runs"] = [{k: r.get(k) for k in ("seconds", "cpu", "rss", "ratio")} for r in runs]
    ratios = [r["ratio"] for r in ok if r.get("ratio")]
    if ratios:
        row["ratio"] = statistics.median(ratios)
    # Where the time went: the run of median wall time, whole.
    mid = sorted(ok, key=lambda r: r["seconds"])[(len(ok) - 1) // 2]
    row["phases"], row["load_seconds"], row["median_run_seconds"] = mid.get("phases"), mid.get("load_seconds"), mid["seconds"]
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nsvm", required=True)
    ap.add_argument("--nsvm-before", help="an earlier nsvm binary, run the same way for the before and after")
    ap.add_argument("--zipfgen", required=True)
    ap.add_argument("--dir", default=os.environ.get("NSVM_BENCH_DIR", "/tmp/nsvm-bench"))
    ap.add_argument("--sets", default="debian,pairs,pairs-small,pairs-s2,pairs-small-s3,zipf,binary")
    ap.add_argument("--cs", default="0.1,0.3,3,10", help="liblinear -s 1 -c values besides the defaults")
    ap.add_argument("--repeat", type=int, default=1, help="runs of liblinear's defaults and of each nsvm, alternating")
    ap.add_argument("--no-sklearn", action="store_true")
    ap.add_argument("--timeout", type=int, default=3600, help="seconds before a training run is stopped")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    load0 = os.getloadavg()
    work = tempfile.mkdtemp(prefix="sparse-", dir=a.dir)
    log = ResultLog(os.path.join(HERE, "results.jsonl"), hide=("phases", "runs"))
    emit, rows = log.emit, log.rows

    nsvms = [("nsvm train (no flags)", a.nsvm)]
    if a.nsvm_before:
        nsvms.append(("nsvm train (no flags), before", a.nsvm_before))
    for name in a.sets.split(","):
        try:
            train, test = prepare(name, a)
        except Exception as e:  # noqa: BLE001
            emit({"set": name, "method": "data", "error": str(e)[-300:]})
            continue
        n, width, nnz = shape(train)
        info = {"set": name, "n": n, "n_test": shape(test)[0], "width": width, "nnz": nnz}
        # liblinear's defaults and each nsvm in turn, --repeat times.
        reps = {m: [] for m in ["ll"] + [label for label, _ in nsvms]}
        for _ in range(a.repeat):
            ll = run_liblinear(train, test, None, work, a.timeout)
            reps["ll"].append(ll)
            for label, binary in nsvms:
                r = run_nsvm(binary, label, train, test, work, a.timeout)
                if "error" not in r and "error" not in ll:
                    r["ratio"] = r["seconds"] / ll["seconds"]
                reps[label].append(r)
        emit(dict(info, **summarize(reps["ll"])))
        for c in [c for c in a.cs.split(",") if c]:
            emit(dict(info, **run_liblinear(train, test, c, work, a.timeout)))
        if not a.no_sklearn:
            emit(dict(info, **run_sklearn(train, test, a.timeout)))
        for label, _ in nsvms:
            emit(dict(info, **summarize(reps[label])))
    log.close()
    shutil.rmtree(work, ignore_errors=True)
    rep = f" (median of {a.repeat} runs)" if a.repeat > 1 else ""
    table = [f"| data | train × features (nonzeros a row) | test rows | method | test accuracy | train wall s{rep} | ÷ liblinear | CPU s | peak RSS MB | note |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    phases = ["| data | method | ÷ liblinear | total s | " + " | ".join(["read", "prepare", "linear C paths", "kernel probe", "SMO grid", "refinement", "networks", "final fit", "other"]) + " |",
              "|---|---|---|---|" + "---|" * 9]
    for r in rows:
        if r["method"] == "data":
            table.append(f"| {SETS.get(r['set'], r['set'])} | | | data | error | | | | | {r['error']} |")
            continue
        size = f"{r['n']:,} × {r['width']:,} ({r['nnz'] / r['n']:.0f})"
        ratio = f"{r['ratio']:.1f}" if r.get("ratio") else ""
        cpu = f"{r['cpu']:.1f}" if r.get("cpu") is not None else ""
        if "error" in r:
            acc, note = "**error**", r["error"].replace("|", "\\|")
        else:
            acc = f"{100 * r['accuracy']:.2f} %"
            note = f"selected {r['selected']}" if r.get("selected") else ""
            if "fit" in r:
                note = f"load {r['seconds'] - r['fit']:.1f} s + fit {r['fit']:.1f} s; process {r['process_seconds']:.1f} s"
        table.append(f"| {SETS.get(r['set'], r['set'])} | {size} | {r['n_test']:,} | {r['method']} | {acc} | {r['seconds']:.1f} | {ratio} | {cpu} | {r['rss']:.0f} | {note} |")
        if r["method"].startswith("nsvm") and "error" not in r:
            ph = {p["name"]: p["seconds"] for p in r.get("phases") or []}
            if ph:
                ph["final fit"] = ph.get("final fit", 0) + ph.pop("keep", 0)
            known = ["prepare", "linear C paths", "kernel probe", "SMO grid", "refinement", "networks", "final fit"]
            load = r.get("load_seconds") or 0
            rest = r.get("median_run_seconds", r["seconds"]) - load - sum(ph.get(k, 0) for k in known)
            cells = [f"{load:.2f}"] + [f"{ph[k]:.2f}" if k in ph else "" for k in known] + [f"{rest:.2f}"]
            if not ph:
                cells = [f"{load:.2f}"] + [""] * 7 + ["(no phases)"]
            phases.append(f"| {SETS.get(r['set'], r['set'])} | {r['method']} | {ratio} | {r.get('median_run_seconds', r['seconds']):.1f} | " + " | ".join(cells) + " |")
    text = "\n".join(table) + "\n\nWhere nsvm's time went (seconds, in the run of median wall time; the fit's phases from `--json`, read and other from the process):\n\n" + "\n".join(phases) + "\n"
    text += f"\nload average {load0[0]:.2f} at the start, {os.getloadavg()[0]:.2f} at the end ({os.cpu_count()} cores)\n"
    write_results(os.path.join(HERE, "results.md"), text)


if __name__ == "__main__":
    main()
