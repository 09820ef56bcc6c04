#!/usr/bin/python3
"""Load test of `nsvm serve` against its PyTorch peers, with vegeta.

For each model (the paper's Ringnorm Algorithm 4 model and its MNIST 0-vs-1
CNN model) and each server (nsvm serve; the PyTorch peer behind
ThreadingHTTPServer; the PyTorch peer behind FastAPI/uvicorn), it first
checks that the server's answers equal `nsvm predict` on the same rows, then
attacks it with vegeta at 1, 8 and 64 concurrent clients, with requests of 1
and 64 instances, for --duration seconds each, and records throughput
(requests/s, predictions/s), p50/p99 latency and errors. Every answer of
every attack is compared with the expected body: the table counts those
that differ. Only 127.0.0.1 is used.

With --soak SECONDS it then runs nsvm serve alone at 64 clients with
64-instance requests for that long, sampling the server's resident memory
every 5 s, and writes soak.csv and soak.png.

Usage: bench/serve/run.sh [--duration 10] [--soak 600] [--only ring|mnist] [--skip-peers]
"""

import argparse
import base64
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
RING_ARCH = "dense(40),relu,dense(30),relu,dense(20),relu,dense(20),relu"
MNIST_ARCH = "conv(10,5),maxpool(2),relu,conv(20,5),dropout2d(0.5),maxpool(2),relu,flatten"
# The paper's presets (nsvm.RingnormPreset(4), nsvm.MNISTPreset(4)), pinned
# flag by flag so that nsvm train runs no selection.
PRESET = ["--algo", "nsvm4", "--optimizer", "sgd", "--momentum", "0.9", "--weight-decay", "1e-4",
          "--lambda", "1e-4", "--solver2", "pegasos"]
RING_FLAGS = PRESET + ["--arch", RING_ARCH, "--steps", "4200", "--steps2", "33500", "--batch", "16",
                       "--gamma", "1", "--lr", "0.01", "--schedule", "invt", "--scaling", "standardize"]
MNIST_FLAGS = PRESET + ["--arch", MNIST_ARCH, "--steps", "400", "--steps2", "35000", "--batch", "64",
                        "--gamma", "0.003125", "--lr", "0.01", "--scaling", "none"]


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def wait_ready(url, proc, timeout=60):
    t = time.time()
    while time.time() - t < timeout:
        if proc.poll() is not None:
            raise SystemExit("server exited: " + (proc.stderr.read() if proc.stderr else ""))
        try:
            urllib.request.urlopen(url, timeout=1)
            return
        except Exception as e:
            if hasattr(e, "code"):  # an HTTP answer: it listens
                return
            time.sleep(0.2)
    raise SystemExit("server did not start: " + url)


def post(url, body):
    req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req) as r:
        return r.read()


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def attack(vegeta, url, body_path, clients, duration, tmp):
    targets = os.path.join(tmp, "targets.txt")
    with open(targets, "w") as f:
        f.write("POST %s\nContent-Type: application/json\n@%s\n" % (url, body_path))
    out = os.path.join(tmp, "results.bin")
    with open(out, "wb") as f:
        subprocess.run([vegeta, "attack", "-rate=0", "-max-workers=%d" % clients, "-workers=%d" % clients,
                        "-duration=%ds" % duration, "-targets=" + targets, "-keepalive=true", "-timeout=30s"],
                       stdout=f, check=True)
    rep = json.loads(run([vegeta, "report", "-type=json", out]).stdout)
    enc = run([vegeta, "encode", "--to", "json", out]).stdout
    return rep, enc


def differing(enc, want):
    """Counts answers whose predictions differ from want (numerically)."""
    bad = 0
    for line in enc.splitlines():
        r = json.loads(line)
        if r.get("code") != 200:
            continue
        got = json.loads(base64.b64decode(r["body"]))["predictions"]
        if [float(v) for v in got] != want:
            bad += 1
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nsvm", required=True)
    ap.add_argument("--vegeta", required=True)
    ap.add_argument("--duration", type=int, default=10)
    ap.add_argument("--soak", type=int, default=0)
    ap.add_argument("--only", default="")
    ap.add_argument("--skip-peers", action="store_true")
    ap.add_argument("--mnist", default=os.environ.get("NSVM_MNIST_DIR", "/work/mnist"))
    ap.add_argument("--out", default=HERE)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="nsvm-serve-")
    models = []
    if a.only in ("", "ring"):
        ring = os.path.join(tmp, "ring.libsvm")
        run([a.nsvm, "data", "ringnorm", "--n", "7400", "--seed", "1", "--out", ring])
        test = os.path.join(tmp, "ring-test.csv")
        run([a.nsvm, "data", "ringnorm", "--n", "64", "--seed", "2", "--format", "csv", "--out", test])
        model = os.path.join(tmp, "ring.nsvm")
        t = time.time()
        run([a.nsvm, "train", "--data", ring, "--model", model, "--quiet", "--seed", "1"] + RING_FLAGS)
        print("trained the Ringnorm model in %.1f s" % (time.time() - t), file=sys.stderr)
        models.append(("ring", model, test, ["--format", "csv"]))
    if a.only in ("", "mnist") and os.path.exists(os.path.join(a.mnist, "train-images-idx3-ubyte")):
        model = os.path.join(tmp, "mnist.nsvm")
        t = time.time()
        run([a.nsvm, "train", "--data", os.path.join(a.mnist, "train-images-idx3-ubyte"), "--digits", "0,1",
             "--model", model, "--quiet", "--seed", "1"] + MNIST_FLAGS)
        print("trained the MNIST 0/1 model in %.1f s" % (time.time() - t), file=sys.stderr)
        # 64 test images as CSV rows (label first).
        test = os.path.join(tmp, "mnist-test.csv")
        write_mnist_rows(a.mnist, test)
        models.append(("mnist", model, test, ["--format", "csv"]))
    rows_out = []
    port = 18090
    for name, model, test, fmt in models:
        rows = load_rows(test)
        pred = run([a.nsvm, "predict", "--model", model, "--data", test] + fmt).stdout.split("\n")
        want_all = [float(l.split()[0]) for l in pred if l.strip()]
        bodies = {}
        for k in (1, 64):
            p = os.path.join(tmp, "%s-%d.json" % (name, k))
            with open(p, "w") as f:
                json.dump({"instances": rows[:k]}, f)
            bodies[k] = (p, want_all[:k])
        servers = [("nsvm serve", [a.nsvm, "serve", "--model", model, "--name", name, "--addr", "127.0.0.1:%d"])]
        if not a.skip_peers:
            py = [sys.executable, os.path.join(HERE, "torch_server.py"), "--model", model, "--name", name, "--port"]
            servers += [("PyTorch + ThreadingHTTPServer", py + ["%d", "--server", "threading"]),
                        ("PyTorch + FastAPI/uvicorn", py + ["%d", "--server", "fastapi"])]
        for sname, cmd in servers:
            port += 1
            cmd = [c % port if "%d" in c else c for c in cmd]
            proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            url = "http://127.0.0.1:%d/v1/models/%s:predict" % (port, name)
            try:
                wait_ready("http://127.0.0.1:%d/v1/models/%s" % (port, name), proc)
                for k, (p, want) in bodies.items():
                    got = [float(v) for v in json.loads(post(url, open(p, "rb").read()))["predictions"]]
                    if got != want:
                        print("%s %s: answers differ from nsvm predict" % (name, sname), file=sys.stderr)
                for clients in (1, 8, 64):
                    for k, (p, want) in bodies.items():
                        rep, enc = attack(a.vegeta, url, p, clients, a.duration, tmp)
                        bad = differing(enc, want)
                        lat = rep["latencies"]
                        row = {"model": name, "server": sname, "clients": clients, "instances": k,
                               "requests_per_s": rep["throughput"], "predictions_per_s": rep["throughput"] * k,
                               "p50_ms": lat["50th"] / 1e6, "p99_ms": lat["99th"] / 1e6, "requests": rep["requests"],
                               "errors": rep["requests"] - rep["status_codes"].get("200", 0), "differing": bad,
                               "rss_mb": rss_kb(proc.pid) / 1024}
                        rows_out.append(row)
                        print("%-6s %-31s c=%-3d k=%-3d %10.0f pred/s  p50 %7.2f ms  p99 %7.2f ms  errors %d  differing %d" %
                              (name, sname, clients, k, row["predictions_per_s"], row["p50_ms"], row["p99_ms"],
                               row["errors"], bad), file=sys.stderr, flush=True)
            finally:
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=30)
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump(rows_out, f, indent=1)
    table = ["| model | server | clients | instances/request | predictions/s | p50 ms | p99 ms | errors | answers ≠ nsvm predict |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows_out:
        table.append("| %s | %s | %d | %d | %.0f | %.2f | %.2f | %d | %d |" % (
            r["model"], r["server"], r["clients"], r["instances"], r["predictions_per_s"], r["p50_ms"], r["p99_ms"],
            r["errors"], r["differing"]))
    text = "\n".join(table) + "\n"
    if a.soak > 0 and models:
        text += soak(a, models[0], tmp)
    with open(os.path.join(a.out, "results.md"), "w") as f:
        f.write(text)
    print(text)


def load_rows(path):
    rows = []
    with open(path) as f:
        for line in f:
            parts = line.strip().split(",")
            try:
                vals = [float(v) for v in parts]
            except ValueError:
                continue  # header
            rows.append(vals[1:])
    return rows


def write_mnist_rows(mnist, path):
    import numpy as np
    with open(os.path.join(mnist, "t10k-images-idx3-ubyte"), "rb") as f:
        img = np.frombuffer(f.read(), dtype=np.uint8, offset=16).reshape(-1, 784)
    with open(os.path.join(mnist, "t10k-labels-idx1-ubyte"), "rb") as f:
        lab = np.frombuffer(f.read(), dtype=np.uint8, offset=8)
    keep = [i for i in range(len(lab)) if lab[i] in (0, 1)][:64]
    with open(path, "w") as f:
        f.write("label," + ",".join("p%d" % j for j in range(784)) + "\n")
        for i in keep:
            # pixels / 255 as nsvm's IDX reader gives them (float32, %.9g round-trips)
            f.write("%d," % lab[i] + ",".join("%.9g" % np.float32(v / np.float32(255)) for v in img[i]) + "\n")


def soak(a, m, tmp):
    name, model, test, _ = m
    rows = load_rows(test)
    body = os.path.join(tmp, "soak.json")
    with open(body, "w") as f:
        json.dump({"instances": rows[:64]}, f)
    port = 18199
    proc = subprocess.Popen([a.nsvm, "serve", "--model", model, "--name", name, "--addr", "127.0.0.1:%d" % port],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = "http://127.0.0.1:%d/v1/models/%s:predict" % (port, name)
    wait_ready("http://127.0.0.1:%d/v1/models/%s" % (port, name), proc)
    targets = os.path.join(tmp, "soak-targets.txt")
    with open(targets, "w") as f:
        f.write("POST %s\nContent-Type: application/json\n@%s\n" % (url, body))
    out = os.path.join(tmp, "soak.bin")
    samples = []
    start = time.time()
    with open(out, "wb") as f:
        v = subprocess.Popen([a.vegeta, "attack", "-rate=0", "-max-workers=64", "-workers=64",
                              "-duration=%ds" % a.soak, "-targets=" + targets, "-keepalive=true"], stdout=f)
        while v.poll() is None:
            samples.append((time.time() - start, rss_kb(proc.pid) / 1024))
            time.sleep(5)
    rep = json.loads(run([a.vegeta, "report", "-type=json", out]).stdout)
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    with open(os.path.join(a.out, "soak.csv"), "w") as f:
        f.write("seconds,rss_mb\n")
        for t, r in samples:
            f.write("%.1f,%.1f\n" % (t, r))
    first = [r for t, r in samples if t <= 60]
    base = max(first) if first else samples[0][1]
    peak = max(r for _, r in samples)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 3.5))
        ax.plot([t / 60 for t, _ in samples], [r for _, r in samples])
        ax.axhline(base * 1.1, color="grey", linestyle="--", label="first minute's peak + 10 %")
        ax.set_xlabel("minutes")
        ax.set_ylabel("resident memory (MB)")
        ax.set_title("nsvm serve, %s model, 64 clients × 64 instances" % name)
        ax.set_ylim(bottom=0)
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(a.out, "soak.png"), dpi=100)
    except ImportError:
        pass
    errors = rep["requests"] - rep["status_codes"].get("200", 0)
    return ("\nSoak: %d s at 64 clients × 64 instances: %d requests (%.0f predictions/s), %d errors; "
            "RSS first minute ≤ %.1f MB, peak %.1f MB (%+.1f %%).\n" % (
                a.soak, rep["requests"], rep["throughput"] * 64, errors, base, peak, 100 * (peak / base - 1)))


if __name__ == "__main__":
    main()
