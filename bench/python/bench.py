#!/usr/bin/env python3
"""nsvm through its Python package against nsvm train and nsvm predict on the
same data (the binding's overhead), and against scikit-learn's SVC and
GridSearchCV(SVC), in one run; see README.md. Run it with run.sh, which
builds the command, the Go latency command and the package.

Data: generated Ringnorm (20 features, two classes), a training set of --n
rows and a test set of --test rows, written as CSV by nsvm data ringnorm.
"""

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import sklearn
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

import nsvm
from nsvm import _lib


def run(*cmd):
    return subprocess.run([str(c) for c in cmd], check=True, capture_output=True, text=True).stdout


def cpu_of(f):
    """f's result, and the wall and CPU seconds (user and system, of this
    process's threads and of the commands it waited for) it took."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu, wall = time.process_time(), time.perf_counter()
    out = f()
    wall = time.perf_counter() - wall
    ru2 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = time.process_time() - cpu + (ru2.ru_utime - ru.ru_utime) + (ru2.ru_stime - ru.ru_stime)
    return out, wall, cpu


def median_time(f, repeats):
    """The median wall time of repeats calls of f, and f's last result."""
    times, out = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def per_call_ns(f, rows, reps):
    """The median time of one call f(row), cycling through rows."""
    ns = np.empty(reps)
    clock = time.perf_counter_ns
    for i in range(reps):
        x = rows[i % len(rows)]
        t = clock()
        f(x)
        ns[i] = clock() - t
    return float(np.median(ns))


def read(path):
    """The rows and labels of a CSV file without a header, the label last."""
    frame = pd.read_csv(path, header=None)
    return frame.iloc[:, :-1].to_numpy(), frame.iloc[:, -1].to_numpy()


def unnamed(path):
    """Rewrites nsvm data's CSV file without its header and with the label
    last: columns without names, as an array's, so that the command's model
    and the package's are of the same data."""
    frame = pd.read_csv(path)
    frame[[c for c in frame.columns if c != "label"] + ["label"]].to_csv(path, header=False, index=False)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nsvm", required=True, help="the nsvm command")
    ap.add_argument("--latency", required=True, help="the Go latency command (bench/python/latency)")
    ap.add_argument("--n", type=int, default=5000, help="training rows")
    ap.add_argument("--test", type=int, default=100_000, help="test rows (the throughput's)")
    ap.add_argument("--repeats", type=int, default=3, help="runs of each timing (the median is shown)")
    ap.add_argument("--reps", type=int, default=20000, help="one-row predictions timed")
    ap.add_argument("--skip-grid", action="store_true", help="leave out GridSearchCV(SVC)")
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="nsvm-bench-"))
    train_csv, test_csv = work / "train.csv", work / "test.csv"
    run(args.nsvm, "data", "ringnorm", "--n", args.n, "--seed", 1, "--format", "csv", "--out", train_csv)
    run(args.nsvm, "data", "ringnorm", "--n", args.test, "--seed", 2, "--format", "csv", "--out", test_csv)
    unnamed(train_csv)
    unnamed(test_csv)
    X, y = read(train_csv)
    Xt, yt = read(test_csv)
    one = [np.ascontiguousarray(Xt[i : i + 1]) for i in range(1000)]
    results = {"machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
               "n": args.n, "test": args.test, "sklearn": sklearn.__version__, "rows": []}

    workloads = [
        ("nsvm, no flags (search)", [], {}),
        ("nsvm, --algo nsvm4", ["--algo", "nsvm4"], {"algorithm": "nsvm4"}),
        ("nsvm, --algo smo --C 1 --gamma 0.05", ["--algo", "smo", "--C", "1", "--gamma", "0.05"], {"algorithm": "smo", "C": 1, "gamma": 0.05}),
    ]
    for name, flags, params in workloads:
        model = work / "m.nsvm"
        # The command and the package take turns, so that both see the same
        # load on a shared machine; the median and the best run are kept.
        cli_wall, cli_fit, cli_cpu, py_fit, py_cpu, cli_pred, py_pred, py_pred_csv = [], [], [], [], [], [], [], []
        for _ in range(args.repeats):
            out, wall, cpu = cpu_of(lambda: run(args.nsvm, "train", "--data", train_csv, "--model", model, "--json", "--quiet", *flags))
            cli_wall.append(wall)
            cli_cpu.append(cpu)
            cli_fit.append(json.loads(out)["train_seconds"])
            est, wall, cpu = cpu_of(lambda: nsvm.NSVMClassifier(**params).fit(X, y))
            py_fit.append(wall)
            py_cpu.append(cpu)
        same = est.model_.to_bytes() == model.read_bytes()
        for _ in range(args.repeats):
            cli_pred.append(median_time(lambda: run(args.nsvm, "predict", "--model", model, "--data", test_csv, "--out", os.devnull), 1)[0])
            t, labels = median_time(lambda: est.predict(Xt), 1)
            py_pred.append(t)
            py_pred_csv.append(median_time(lambda: est.predict(read(test_csv)[0]), 1)[0])
        go_one = json.loads(run(args.latency, "--model", model, "--data", test_csv, "--reps", args.reps))["median_ns"]
        py_one = per_call_ns(est.predict, one, args.reps)
        inp, keep = est._predict_input(one[0])
        out = np.empty(1)
        raw_one = per_call_ns(lambda x: est.model_.predict(inp, out), one, args.reps)
        results["rows"].append({
            "name": name, "same_model": same, "selected": (est.selection_ or {}).get("selected", est.model_.info["algorithm"]),
            "accuracy": float(np.mean(labels == yt)),
            "cli_wall_s": statistics.median(cli_wall), "cli_fit_s": statistics.median(cli_fit), "py_fit_s": statistics.median(py_fit),
            "cli_fit_best_s": min(cli_fit), "py_fit_best_s": min(py_fit),
            "cli_cpu_s": statistics.median(cli_cpu), "py_cpu_s": statistics.median(py_cpu),
            "cli_predict_s": statistics.median(cli_pred), "py_predict_s": statistics.median(py_pred),
            "py_predict_csv_s": statistics.median(py_pred_csv), "cli_predict_best_s": min(cli_pred), "py_predict_best_s": min(py_pred),
            "go_one_us": go_one / 1e3, "py_one_us": py_one / 1e3, "abi_one_us": raw_one / 1e3,
        })
        del keep

    svc = make_pipeline(StandardScaler(), SVC())
    svc_fit, svc = median_time(lambda: make_pipeline(StandardScaler(), SVC()).fit(X, y), args.repeats)
    svc_pred, labels = median_time(lambda: svc.predict(Xt), args.repeats)
    results["rows"].append({"name": "SVC() (StandardScaler)", "accuracy": float(np.mean(labels == yt)), "py_fit_s": svc_fit,
                            "py_predict_s": svc_pred, "py_one_us": per_call_ns(svc.predict, one, args.reps // 4) / 1e3})
    if not args.skip_grid:
        d = X.shape[1]
        grid = {"svc__C": [0.1, 1, 10, 100], "svc__gamma": [g / d for g in (1 / 16, 1 / 4, 1, 4, 16)]}
        t = time.perf_counter()
        gs = GridSearchCV(make_pipeline(StandardScaler(), SVC()), grid, cv=5, n_jobs=2).fit(X, y)
        gs_fit = time.perf_counter() - t
        gs_pred, labels = median_time(lambda: gs.predict(Xt), args.repeats)
        results["rows"].append({"name": "GridSearchCV(SVC), C × γ as nsvm's grid, 5-fold, n_jobs=2", "accuracy": float(np.mean(labels == yt)),
                                "py_fit_s": gs_fit, "py_predict_s": gs_pred, "selected": str(gs.best_params_),
                                "py_one_us": per_call_ns(gs.predict, one, args.reps // 4) / 1e3})
    report(results, args)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")


def print_table(title, columns, lines):
    """Prints a blank line, title, a blank line and a Markdown table of
    columns with one row of cells for each list of lines ("" leaves a cell
    empty)."""
    print()
    print(title)
    print()
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for cells in lines:
        print("|" + "|".join(f" {c} " if c else " " for c in cells) + "|")


def report(r, args):
    n, m = r["n"], r["test"]
    print(f"Generated Ringnorm: {n} training rows, {m} test rows, 20 features; {r['machine']}; scikit-learn {r['sklearn']}; "
          f"median of {args.repeats} runs (the command and the package taking turns); load average at the end {os.getloadavg()[0]:.1f}.")

    def fit(row):
        if "cli_fit_s" not in row:
            return [row["name"], "", "", f"{row['py_fit_s']:.3f}", "", "", "", row.get("selected", ""), f"{100 * row['accuracy']:.2f} %"]
        return [row["name"], f"{row['cli_wall_s']:.3f}", f"{row['cli_fit_s']:.3f}", f"{row['py_fit_s']:.3f}",
                f"{100 * (row['py_fit_s'] / row['cli_fit_s'] - 1):+.1f} % ({100 * (row['py_fit_best_s'] / row['cli_fit_best_s'] - 1):+.1f} %)",
                f"{row['cli_cpu_s']:.2f}, {row['py_cpu_s']:.2f} ({100 * (row['py_cpu_s'] / row['cli_cpu_s'] - 1):+.1f} %)",
                "yes" if row["same_model"] else "NO", row["selected"], f"{100 * row['accuracy']:.2f} %"]

    def predict(row):
        if "cli_predict_s" not in row:
            return [row["name"], "", f"{m / row['py_predict_s']:,.0f}", "", ""]
        return [row["name"], f"{m / row['cli_predict_s']:,.0f}", f"{m / row['py_predict_s']:,.0f}", f"{m / row['py_predict_csv_s']:,.0f}",
                f"{row['cli_predict_s'] / row['py_predict_s']:.1f}× ({row['cli_predict_best_s'] / row['py_predict_best_s']:.1f}×)"]

    def latency(row):
        if "go_one_us" not in row:
            return [row["name"], "", "", f"{row['py_one_us']:.1f}", ""]
        return [row["name"], f"{row['go_one_us']:.1f}", f"{row['abi_one_us']:.1f}", f"{row['py_one_us']:.1f}", f"{row['py_one_us'] - row['go_one_us']:.1f}"]

    print_table("Fit (seconds): nsvm train's whole run, its fit (`train_seconds` of --json) and its CPU time; NSVMClassifier.fit "
                "on the rows in memory and its CPU time (all threads). On a shared machine CPU time is the steadier measure.",
                ["estimator", "nsvm train (process)", "nsvm train (fit)", "Python fit", "Python / CLI fit (best runs)", "CPU: CLI, Python",
                 "same model file", "selected", "test accuracy"], map(fit, r["rows"]))
    print_table(f"Predict {m} rows (rows per second): nsvm predict's whole run (reads the CSV, writes the labels), "
                "predict on the rows in memory, and with pandas reading the same CSV first",
                ["estimator", "nsvm predict", "Python predict", "Python, CSV read included", "Python / CLI (best runs)"], map(predict, r["rows"]))
    print_table("One-row predict latency (µs, median): Go's Model.Predictions of one row, the C ABI call through ctypes, "
                "the estimator's predict; overhead = predict − Go",
                ["estimator", "Go", "C ABI (ctypes)", "Python predict", "overhead"], map(latency, r["rows"]))


if __name__ == "__main__":
    sys.exit(main())
