#!/usr/bin/python3
"""Checks the times in README.md's results tables against a fresh run of
each table's command: a table marked <!-- times: ID --> has its command in
QUICK below; the check fails when a time differs from the fresh run's by
more than a factor of 2 either way. The runs have the tables' seeds: one
seed is no estimate of a mean over five, as a split's support vectors, and
with them Algorithms 1 and 2's time, vary up to twentyfold between seeds
(`reproduce --json` lists each seed's in n_sv and train_seconds).

  bench/readme/check.py --nsvm ./nsvm [--delve PATH] [--mnist DIR] [--only ID]

Run it on an otherwise quiet machine: the tables were measured on one.
Tables whose inputs are missing (DELVE Ringnorm, MNIST) are skipped with a
notice, never silently.
"""

import argparse
import json
import os
import re
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

# ID: (the quick command's arguments after the binary, with {delve} and
# {mnist}; the input it needs; the table's column of times; the column
# that names a row's algorithm).
QUICK = {
    "ringnorm-paper": (["reproduce", "ringnorm", "--data", "{delve}", "--algo", "all", "--seeds", "5", "--json"],
                       "delve", "training s per run (DELVE)", "algorithm"),
    "ringnorm-coord": (["reproduce", "ringnorm", "--data", "{delve}", "--arch", "coord", "--algo", "all",
                        "--seeds", "5", "--json"], "delve", "training s per run (DELVE)", "algorithm"),
    "mnist01": (["reproduce", "mnist01", "--data", "{mnist}", "--algo", "all", "--seeds", "3", "--json"],
                "mnist", "training s per run", "algorithm"),
}


def tables(readme):
    """The marked tables of readme: ID → (header, rows of cells)."""
    out = {}
    lines = readme.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"<!-- times: (\S+) -->", line.strip())
        if not m:
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith("|"):
            j += 1
        rows = []
        while j < len(lines) and lines[j].startswith("|"):
            rows.append([c.strip() for c in lines[j].strip().strip("|").split("|")])
            j += 1
        out[m.group(1)] = (rows[0], [r for r in rows[2:]])
    return out


def number(cell):
    m = re.search(r"[-+]?\d+(\.\d+)?", cell.replace("*", ""))
    return float(m.group(0)) if m else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nsvm", required=True)
    ap.add_argument("--delve", default=os.path.join(ROOT, "..", "shared", "data", "ringnorm.csv"))
    ap.add_argument("--mnist", default=os.environ.get("NSVM_MNIST", ""))
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    inputs = {"delve": args.delve if os.path.isfile(args.delve) else "",
              "mnist": args.mnist if args.mnist and os.path.isdir(args.mnist) else ""}
    marked = tables(open(os.path.join(ROOT, "README.md")).read())
    failed = 0
    for tid, (argv, need, col, key) in QUICK.items():
        if args.only and not re.search(args.only, tid):
            continue
        if tid not in marked:
            print("%s: no table marked <!-- times: %s --> in README.md" % (tid, tid))
            failed += 1
            continue
        if not inputs[need]:
            print("%s: skipped: no %s input (--%s)" % (tid, need, need))
            continue
        header, rows = marked[tid]
        ci, ki = header.index(col), header.index(key)
        cmd = [args.nsvm] + [a.replace("{delve}", inputs["delve"]).replace("{mnist}", inputs["mnist"]) for a in argv]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        fresh = {str(r["algo"]): r["train_seconds_mean"] for r in json.loads(out)["results"]}
        for row in rows:
            algo, want = row[ki].strip("* "), number(row[ci])
            got = fresh.get(algo)
            if want is None or got is None:
                continue
            ratio = got / want if want > 0 else float("inf")
            bad = ratio > 2 or ratio < 0.5
            failed += bad
            print("%-16s algorithm %s: README %.3g s, quick run %.3g s (×%.2f)%s" % (
                tid, algo, want, got, ratio, "  ← more than 2× off" if bad else ""))
    if failed:
        sys.exit("README times off by more than 2× in %d rows (or tables missing)" % failed)


if __name__ == "__main__":
    main()
