"""What the benchmark drivers share: running a method in its own process
under /usr/bin/time, a one-line summary of a failure, the log of result
rows and the results table."""
import json, os, re, signal, subprocess, time


def timed(cmd, timeout, env=None, cwd=None):
    """Runs cmd under /usr/bin/time; returns (returncode or None on timeout, stdout, stderr, wall s, peak RSS MB or None).
    On timeout the whole process group is killed (not only /usr/bin/time) and what it printed is kept."""
    t = time.time()
    p = subprocess.Popen(["/usr/bin/time", "-f", "TIME %e %M"] + cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env, cwd=cwd, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        return None, out, f"stopped after {timeout} s", time.time() - t, None
    lines = err.splitlines()
    tl = [l for l in lines if l.startswith("TIME ")]
    err = [l for l in lines if not l.startswith("TIME ") and not l.startswith("Command exited with non-zero status")]
    wall, rss = time.time() - t, None
    if tl:
        wall, rss = float(tl[-1].split()[1]), int(tl[-1].split()[2]) / 1024
    return p.returncode, out, "\n".join(err), wall, rss


def error_summary(stderr):
    """One line for the table: a Go panic with its innermost frame, else the last line."""
    lines = [l.strip() for l in stderr.splitlines() if l.strip()]
    for i, l in enumerate(lines):
        if l.startswith("panic:"):
            for j in range(i + 2, len(lines)):
                if re.search(r"\.go:\d+", lines[j]):
                    func = re.sub(r"\(0x[^)]*\)$|\(\.\.\.\)$|\({.*$", "", lines[j - 1]).replace("github.com/nsvm-go/", "")
                    where = re.sub(r" \+0x[0-9a-f]+$", "", lines[j].split("/")[-1])
                    return f"{l} (in {func}, {where})"
            return l
    return lines[-1] if lines else "failed with no message"


class ResultLog:
    """A driver's result rows as they come: each printed as one JSON line
    (without the bulky keys named in hide) and written whole to path
    (results.jsonl), flushed, so a stopped run keeps what it measured. rows
    holds them for the table."""

    def __init__(self, path, hide=()):
        self.rows = []
        self._hide = frozenset(hide)
        self._out = open(path, "w")

    def emit(self, r):
        print(json.dumps({k: v for k, v in r.items() if k not in self._hide}), flush=True)
        self._out.write(json.dumps(r) + "\n")
        self._out.flush()
        self.rows.append(r)

    def close(self):
        self._out.close()


def write_results(path, text):
    """Writes a driver's results table (results.md) to path and prints it
    after a blank line."""
    with open(path, "w") as f:
        f.write(text)
    print()
    print(text)


def read_idx(path):
    """The array of an IDX file of unsigned bytes (MNIST's format); when path
    does not exist, its gzipped copy path + ".gz"."""
    import gzip
    import struct

    import numpy as np
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        path += ".gz"
    with (gzip.open if path.endswith(".gz") else open)(path, "rb") as f:
        raw = f.read()
    if len(raw) < 4 or raw[:3] != b"\0\0\x08":
        raise ValueError(f"{path}: not an IDX file of unsigned bytes")
    nd = raw[3]
    dims = struct.unpack(">" + "I" * nd, raw[4:4 + 4 * nd])
    body = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * nd)
    if body.size != int(np.prod(dims)):
        raise ValueError(f"{path}: {body.size} bytes of data for dimensions {dims}")
    return body.reshape(dims)
