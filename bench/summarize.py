#!/usr/bin/env python3
"""Reads what bench/run.sh left in bench/out/ and prints ONE table:
workload, nsvm, peer, ratio nsvm/peer, accuracy of both (and #SV), then
writes everything to bench/out/summary.json.

    python3 bench/summarize.py [OUT_DIR]

Times of the NSVM trainers are training seconds per run (mean over the
seeded splits; data loading and evaluation excluded on both sides); per-step
and per-op workloads are in µs. A ratio below 1 means nsvm is faster.
Missing pieces appear as rows that say why.
"""

import json
import math
import os
import re
import statistics
import sys

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "out")


def path(*p):
    return os.path.join(OUT, *p)


def read(*p):
    try:
        with open(path(*p)) as f:
            return f.read()
    except OSError:
        return None


def read_json(*p):
    s = read(*p)
    if s is None:
        return None
    try:
        return json.loads(s)
    except ValueError:
        return None


def read_jsonl(*p):
    s = read(*p)
    out = []
    for line in (s or "").splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
    return out


def mean_std(v):
    v = [x for x in v if x is not None]
    if not v:
        return None, None
    return statistics.mean(v), (statistics.stdev(v) if len(v) > 1 else 0.0)


notes = {}
for line in (read("notes.txt") or "").splitlines():
    k, _, msg = line.partition("\t")
    notes.setdefault(k, []).append(msg)
meta = read_json("meta.json") or {}

rows = []  # dicts: workload, nsvm, peer_name, peer, unit, ratio, acc_nsvm, acc_peer, sv, note


def add(workload, nsvm=None, peer_name="", peer=None, unit="s", acc_nsvm=None, acc_peer=None, sv=None, note=""):
    ratio = nsvm / peer if (nsvm is not None and peer) else None
    rows.append({"workload": workload, "nsvm": nsvm, "peer_name": peer_name, "peer": peer, "unit": unit,
                 "ratio": ratio, "acc_nsvm": acc_nsvm, "acc_peer": acc_peer, "sv": sv, "note": note})


def fmt_acc(a):
    if a is None:
        return "—"
    m, s, errs, n = a.get("mean"), a.get("std"), a.get("errors"), a.get("n_test")
    if m is None:
        return "—"
    txt = "%.2f" % (100 * m)
    if s:
        txt += "±%.2f" % (100 * s)
    if errs is not None and n and n > 1000:  # MNIST: the paper counts errors
        txt += " (%s err)" % ("%g" % errs if isinstance(errs, (int, float)) else errs)
    return txt


def fmt_t(v, unit):
    if v is None:
        return "—"
    if unit == "µs":
        return "%.1f µs" % v if v < 1e3 else "%.2f ms" % (v / 1e3) if v < 1e6 else "%.2f s" % (v / 1e6)
    return "%.2f s" % v if v < 100 else "%.0f s" % v


# --- NSVM trainers: nsvm reproduce vs torch_nsvm.py ------------------------


def nsvm_side(sub, a):
    j = read_json(sub, "nsvm_alg%d.json" % a)
    if not j or not j.get("results"):
        return None
    r = j["results"][0]
    errs = r.get("errors") or []
    return {"train_seconds": r.get("train_seconds_mean"), "acc": {"mean": r.get("accuracy_mean"),
            "std": r.get("accuracy_std"), "errors": statistics.mean(errs) if errs else None,
            "n_test": r.get("n_test")}, "n_sv": r.get("n_sv_mean"), "steps": r.get("steps"),
            "runs": len(r.get("accuracies") or []), "accuracies": r.get("accuracies"),
            "wall_seconds": _float(read(sub, "nsvm_alg%d.wall" % a)), "paper_accuracy": r.get("paper_accuracy"),
            "config": r.get("config")}


def _float(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def torch_side(sub, a, th):
    lines = [l for l in read_jsonl(sub, "torch_alg%d.jsonl" % a) if l.get("threads") == th]
    ok = [l["result"] for l in lines if "result" in l]
    failed = [("split %s: stopped after %s s" % (l.get("split"), l["timeout"])) if l.get("timeout")
              else ("split %s: failed, see %s" % (l.get("split"), l.get("error_log"))) for l in lines
              if "result" not in l]
    if not ok:
        return {"failed": failed} if failed else None
    secs, _ = mean_std([r["train_seconds"] for r in ok])
    am, asd = mean_std([r["accuracy"] for r in ok])
    em, _ = mean_std([r["errors"] for r in ok])
    nsv, _ = mean_std([r["n_sv"] for r in ok])
    wall, _ = mean_std([l.get("wall_seconds") for l in lines if "result" in l])
    return {"train_seconds": secs, "acc": {"mean": am, "std": asd, "errors": em, "n_test": ok[0]["n_test"]},
            "n_sv": nsv, "runs": len(ok), "accuracies": [r["accuracy"] for r in ok], "failed": failed,
            "wall_seconds": wall}


trainers = {}
for sub, task, algos in (("ringnorm", "Ringnorm", (1, 2, 3, 4)), ("mnist", "MNIST 0/1", (3, 4))):
    src = (read(sub, "source") or "").strip()
    label = task + (" (DELVE)" if src == "delve" else " (generated)" if src == "generated" else "")
    if not os.path.isdir(path(sub)):
        key = "mnist" if sub == "mnist" else "nsvm" if "nsvm" in notes else "ringnorm"
        add(task + " Alg 1–4" if sub == "ringnorm" else task + " Alg 3, 4",
            note="; ".join(notes.get(key) or notes.get("nsvm") or ["not run"]))
        continue
    for a in algos:
        ns = nsvm_side(sub, a)
        key = "%s_alg%d" % (sub, a)
        if ns is None and not os.path.exists(path(sub, "nsvm_alg%d.err" % a)):
            continue  # not selected with --algos
        wl = "%s Alg %d%s" % (label, a, " [%s steps]" % ns["steps"] if ns else "")
        trainers[key] = {"nsvm": ns}
        if ns is None:
            add(wl, note="; ".join(notes.get(key) or ["nsvm run failed"]))
            continue
        any_peer = False
        ths = sorted({l.get("threads") for l in read_jsonl(sub, "torch_alg%d.jsonl" % a)} - {None})
        first_th = ths[0] if ths else None
        for th in ths:
            tp = torch_side(sub, a, th)
            trainers[key]["torch_%dthread" % th] = tp
            if tp is None:
                continue
            if "train_seconds" not in tp:
                add(wl, ns["train_seconds"], "PyTorch %dt" % th, None, "s", ns["acc"], None,
                    sv=(ns["n_sv"], None), note="PyTorch: %s" % "; ".join(tp["failed"]))
                any_peer = True
                continue
            note = "%d run(s) each" % ns["runs"] if not any_peer else ""
            if any_peer and tp["runs"] < ns["runs"]:
                # Extra thread counts run on split 1 only: show the first
                # thread count's time on the same splits for comparison.
                splits = {l["split"] for l in read_jsonl(sub, "torch_alg%d.jsonl" % a)
                          if l.get("threads") == th and "result" in l}
                ref = [l for l in read_jsonl(sub, "torch_alg%d.jsonl" % a)
                       if l.get("split") in splits and l.get("threads") == first_th and "result" in l]
                note = "split %s only" % ",".join(map(str, sorted(splits)))
                if ref:
                    note += "; PyTorch %dt there: %s" % (first_th, fmt_t(statistics.mean(
                        r["result"]["train_seconds"] for r in ref), "s"))
            if tp.get("failed"):
                note = "; ".join([note] * bool(note) + ["PyTorch mean over the rest: " + "; ".join(tp["failed"])])
            add(wl, ns["train_seconds"], "PyTorch %dt" % th, tp["train_seconds"], "s", ns["acc"], tp["acc"],
                sv=(ns["n_sv"], tp["n_sv"]), note=note)
            any_peer = True
        if not any_peer:
            add(wl, ns["train_seconds"], "PyTorch", None, "s", ns["acc"], None, sv=(ns["n_sv"], None),
                note="; ".join(notes.get("torch") or ["no PyTorch result"]))

# --- SMO vs svm-train ------------------------------------------------------
NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"


def parse_svm_libsvm(txt):
    """JSON lines of bench/svm_libsvm.sh (bench/cmd/svmbench -jsonl):
    {"dataset", "ours": {"seconds", "cpu_seconds", "objective", "nsv",
    "accuracy"}, "libsvm": {...} | absent, "cpu_ratio", "skipped"}."""
    out = []
    for line in txt.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            j = json.loads(line)
        except ValueError:
            continue
        if "dataset" in j and ("ours" in j or "skipped" in j):
            out.append(j)
    return out


svm_txt = read("svm_libsvm.txt")
svm_rows = []
if svm_txt is None:
    add("SMO vs svm-train", peer_name="svm-train", note="; ".join(notes.get("svm_libsvm") or ["not run"]))
else:
    svm_rows = parse_svm_libsvm(svm_txt)
    for j in svm_rows:
        wl = "SMO %s" % j["dataset"]
        if j.get("n_train"):
            wl += " %d/%d, γ=%g, C=%g" % (j["n_train"], j.get("n_test", 0), j.get("gamma", 0), j.get("C", 0))
        o, p = j.get("ours") or {}, j.get("libsvm") or {}
        if j.get("skipped"):
            add(wl, peer_name="svm-train", note="skipped: %s" % j["skipped"])
            continue
        acc = lambda d: {"mean": d["accuracy"], "n_test": j.get("n_test"),
                         "errors": round((1 - d["accuracy"]) * j["n_test"]) if j.get("n_test") else None} \
            if d.get("accuracy") is not None else None
        notes_ = []
        if j.get("cpu_ratio"):
            notes_.append("CPU-time ratio %.2f" % j["cpu_ratio"])
        if o.get("objective") is not None and p.get("objective") is not None:
            notes_.append("dual obj %.6g / %.6g" % (o["objective"], p["objective"]))
        if not p:
            notes_.append("svm-train not available")
        notes_ += j.get("problems") or []
        add(wl, o.get("seconds"), "svm-train", p.get("seconds"), "s", acc(o), acc(p) if p else None,
            sv=(o.get("nsv"), p.get("nsv")), note="; ".join(notes_))
    if not svm_rows:
        add("SMO vs svm-train", peer_name="svm-train",
            note="see %s (%s)" % (path("svm_libsvm.txt"), "; ".join(notes.get("svm_libsvm") or ["printed below"])))

# --- Pegasos step ----------------------------------------------------------


def bench_lines(txt, prefix):
    """name → ns/op from `go test -bench` output (GOMAXPROCS suffix removed)."""
    out = {}
    for line in (txt or "").splitlines():
        m = re.match(r"^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+(%s) ns/op" % NUM, line)
        if m and m.group(1).startswith(prefix):
            out[m.group(1)[len("Benchmark"):]] = float(m.group(2))
    return out


def name_ns(txt):
    out = {}
    for line in (txt or "").splitlines():
        p = line.split()
        if len(p) >= 2 and re.fullmatch(NUM, p[1]):
            out[p[0]] = float(p[1])
    return out


peg_go = bench_lines(read("pegasos_go.txt"), "BenchmarkPegasosStep")
peg_torch = name_ns(read("pegasos_torch.txt"))
dim = (read("pegasos_dim") or "").strip()
if not peg_go and not peg_torch:
    add("Pegasos step", peer_name="PyTorch 1t", unit="µs",
        note="; ".join(notes.get("pegasos", []) + notes.get("pegasos_go", []) + notes.get("pegasos_torch", []))
        or "not run")
for nsv in (1000, 10000):
    tname = "PegasosStep/nsv=%d" % nsv
    gname = next((k for k in peg_go if re.search(r"nsv=%d(\D|$)" % nsv, k)), None)
    g, t = peg_go.get(gname), peg_torch.get(tname)
    if g is None and t is None:
        continue
    note = "" if g is not None else "; ".join(notes.get("pegasos_go") or ["no Go benchmark"])
    add("Pegasos step, %d SVs, d=%s" % (nsv, dim or "?"), g / 1e3 if g else None, "PyTorch 1t",
        t / 1e3 if t else None, "µs", note=note)
    g2 = peg_go.get("PegasosStep/nsv=%d/workers=2" % nsv)
    if g2 is not None:
        add("Pegasos step, %d SVs, 2 workers" % nsv, g2 / 1e3, "PyTorch 1t", t / 1e3 if t else None, "µs",
            note="train --workers 2 (idle cores only)")

# --- nn engine -------------------------------------------------------------


def parse_engine(txt):
    """Rows of bench/engine_compare.sh's table
    `workload  Go ns/op  Go noasm  PyTorch(Nt)  Go/PyTorch` ("-" = missing).
    Returns [(workload, go_ns, noasm_ns, torch_ns, torch_label)]."""
    out, label = [], "PyTorch"
    seen_head = False
    num = lambda c: float(c) if re.fullmatch(NUM, c) else None
    for line in (txt or "").splitlines():
        cells = line.split()
        if not cells:
            continue
        if cells[0].lower() == "workload":
            seen_head = True
            m = re.search(r"PyTorch\((\d+)t\)", line)
            if m:
                label = "PyTorch %st" % m.group(1)
            continue
        if seen_head and len(cells) == 5 and all(num(c) is not None or c == "-" for c in cells[1:]):
            out.append((cells[0], num(cells[1]), num(cells[2]), num(cells[3]), label))
    return out


eng_txt = read("engine_compare.txt")
eng_rows = []
if eng_txt is None:
    add("nn engine workloads", peer_name="PyTorch", unit="µs", note="; ".join(notes.get("engine") or ["not run"]))
else:
    eng_rows = parse_engine(eng_txt)
    for name, g, na, t, lab in eng_rows:
        add("engine %s" % name, g / 1e3 if g else None, lab, t / 1e3 if t else None, "µs",
            note=("pure-Go GEMM (noasm): %s" % fmt_t(na / 1e3, "µs")) if na else "")
    if not eng_rows:
        add("nn engine workloads", peer_name="PyTorch", unit="µs",
            note="see %s (%s)" % (path("engine_compare.txt"), "; ".join(notes.get("engine") or ["printed below"])))

# --- print -----------------------------------------------------------------


def fmt_sv(sv):
    if not sv:
        return ""
    f = lambda x: "—" if x is None else "%.0f" % x
    return "%s / %s" % (f(sv[0]), f(sv[1]))


head = ("workload", "nsvm", "peer", "peer time", "nsvm/peer", "acc % nsvm", "acc % peer", "#SV nsvm/peer", "note")
table = [head]
for r in rows:
    table.append((r["workload"], fmt_t(r["nsvm"], r["unit"]), r["peer_name"], fmt_t(r["peer"], r["unit"]),
                  "%.2f" % r["ratio"] if r["ratio"] is not None else "—", fmt_acc(r["acc_nsvm"]),
                  fmt_acc(r["acc_peer"]), fmt_sv(r["sv"]), r["note"]))
w = [max(len(str(row[i])) for row in table) for i in range(len(head))]
title = "nsvm vs peers — %s, %s core(s), %s%s" % (meta.get("cpu", "?"), meta.get("nproc", "?"),
                                                  "quick (steps ×%s)" % meta.get("steps_scale")
                                                  if meta.get("quick") else "paper step counts",
                                                  ", %s seed(s)" % meta.get("seeds") if meta.get("seeds") else "")
print(title)
print("trainer rows: training seconds per run; step/op rows: µs per step; ratio < 1: nsvm faster")
for i, row in enumerate(table):
    print("  ".join(str(c).ljust(w[j]) if j in (0, 2, 8) else str(c).rjust(w[j]) for j, c in enumerate(row)).rstrip())
    if i == 0:
        print("  ".join("-" * x for x in w))
other = [(k, m) for k, ms in notes.items() for m in ms
         if not k.startswith(("ringnorm_alg", "mnist_alg")) and k not in ("mnist", "svm_libsvm", "engine", "pegasos",
                                                                          "pegasos_go", "pegasos_torch")]
for k, m in other:
    print("note: %s: %s" % (k, m))
total = _float(read("total.wall"))
if total:
    print("total wall time %.0f s (%.1f min)" % (total, total / 60))
for name, txt, parsed in (("SMO vs svm-train (bench/svm_libsvm.sh)", svm_txt, svm_rows),
                          ("nn engine (bench/engine_compare.sh)", eng_txt, eng_rows)):
    if txt and not parsed:
        print("\n%s output:\n%s" % (name, txt.rstrip()))

summary = {"meta": meta, "rows": rows, "trainers": trainers, "notes": notes,
           "pegasos": {"go_ns_per_op": peg_go, "torch_ns_per_op": peg_torch, "dim": dim},
           "svm_libsvm_raw": svm_txt, "engine_raw": eng_txt, "total_wall_seconds": total}


def clean(o):
    if isinstance(o, float) and (math.isnan(o) or math.isinf(o)):
        return None
    if isinstance(o, dict):
        return {k: clean(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [clean(v) for v in o]
    return o


with open(path("summary.json"), "w") as f:
    json.dump(clean(summary), f, indent=1)
print("\nwritten %s" % path("summary.json"))
