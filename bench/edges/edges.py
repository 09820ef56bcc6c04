#!/usr/bin/python3
"""Runs hostile and careless inputs against two nsvm binaries, one case at a
time, and prints a markdown table (case | before | after).

Every process runs in a scratch directory under a watchdog that kills it
when its resident memory passes 4 GiB, its directory 2 GiB or its wall time
60 s (LIMITS). Outputs never leave the scratch directory: the devices the
cases write to are nodes made there (mknod), and /dev/null and /dev/full are
checked (and repaired) after every process. See README.md; run.sh builds the
binaries and calls this script.
"""

import argparse
import datetime
import gzip
import io
import json
import os
import random
import re
import shutil
import signal
import stat
import struct
import subprocess
import sys
import time
import zipfile
import zlib

MiB = 1 << 20
GiB = 1 << 30

# Data fixtures shared by both binaries (made once per run, read only).
RING_N = 300  # training rows of the small models
TEST_N = 50  # rows predicted
BIG_N = 200_000  # rows of the file whose conversion is killed mid-write
WIDE = 2**31 - 1  # columns of the sparse .npz
INDEX = 2**30  # the feature index of the memory cases
LONG_LINE = 320 * 10**6  # bytes of the gzipped line
FLIPS = 300  # bit flips of a model file
FLIP_SEED = 1
SMO = ["--algo", "smo", "--gamma", "0.05", "-C", "1", "--quiet"]
BOMB = 2_500_000_000  # bytes of text in the gzip bomb trained on (1 GiB and more streams)
BOMB10 = 10_000_000_000  # bytes of text in the gzip bomb predicted on
STREAMED = GiB  # the bound on a legitimately large compressed input that streams


# ---------------------------------------------------------------- watchdog


class Run:
    """One process's outcome."""

    def __init__(self, argv):
        self.argv = argv
        self.rc = None  # exit status, None when killed by a signal
        self.sig = None
        self.killed = None  # "rss", "time" or "disk" when the watchdog killed it
        self.peak_kib = 0
        self.wall = 0.0
        self.err = b""  # the first 4 KiB of stderr
        self.err_len = 0
        self.out = b""  # stdout (when captured), at most 64 MiB kept

    def label(self):
        if self.killed == "rss":
            return "killed at > %s (%.1f s)" % (human(LIMITS["rss"]), self.wall)
        if self.killed == "time":
            return "killed at > %d s" % LIMITS["time"]
        if self.killed == "disk":
            return "killed at > %s written (%.1f s)" % (human(LIMITS["disk"]), self.wall)
        if self.sig is not None:
            return "signal %d" % self.sig
        s = "exit %d" % self.rc
        if b"panic:" in self.err or b"goroutine " in self.err:
            s += " (panic)"
        return s

    def errtext(self, n=100):
        err = self.err
        for path, name in SHORT:
            err = err.replace(path.encode(), name.encode())
        return quote(err[:n], len(err) > n or self.err_len > len(self.err))

    def cell(self, errn=100, mem=True):
        parts = [self.label()]
        if mem:
            parts.append(human(self.peak_kib * 1024))
            parts.append("%.2f s" % self.wall)
        if self.err_len:
            parts.append("stderr %s: %s" % (human(self.err_len), self.errtext(errn)))
        else:
            parts.append("no stderr")
        return " · ".join(parts)

    def ok(self):
        return self.killed is None and self.sig is None and self.rc == 0

    def failed_cleanly(self):
        """A non-zero exit that is neither a kill nor a panic."""
        return (self.killed is None and self.sig is None and self.rc not in (0, None)
                and b"panic:" not in self.err and b"goroutine " not in self.err)


LIMITS = {"rss": 4 * GiB, "time": 60, "disk": 2 * GiB}
REPAIRS = []  # device repairs made after runs
SHORT = []  # (path, name): scratch paths quoted in stderr by their names


def human(n):
    if n >= GiB:
        return "%.1f GiB" % (n / GiB)
    if n >= MiB:
        return "%.0f MiB" % (n / MiB)
    if n >= 1024:
        return "%.1f KiB" % (n / 1024)
    return "%d B" % n


def quote(b, more):
    """b as one markdown-safe line."""
    s = b.decode("utf-8", "ignore")
    s = s.replace("\\", "\\\\").replace("|", "\\|").replace("`", "'")
    s = s.replace("\r", "").replace("\n", " ⏎ ").replace("<", "&lt;")
    return '"' + s.strip() + ('…"' if more else '"')


def dir_bytes(d):
    total = 0
    for root, _, files in os.walk(d):
        for name in files:
            try:
                st = os.lstat(os.path.join(root, name))
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                total += st.st_blocks * 512
    return total


def hwm_kib(pid):
    """The peak resident memory of pid so far (VmHWM), and its current
    (VmRSS), in KiB."""
    hwm = rss = 0
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    hwm = int(line.split()[1])
                elif line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
    except (OSError, ValueError):
        pass
    return hwm, rss


def child_of(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            kids = f.read().split()
        return int(kids[0]) if kids else None
    except (OSError, ValueError):
        return None


def kill(leader, child):
    """Kills child with SIGKILL and returns the wait status of leader (the
    time process, which reaps child: a killed process left a zombie would
    still count as running, and time reports the child's peak); then kills
    whatever is left of leader's process group."""
    if child is not None:
        try:
            os.kill(child, signal.SIGKILL)
        except ProcessLookupError:
            pass
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            pid, status, _ = os.wait4(leader, os.WNOHANG)
            if pid:
                try:
                    os.killpg(leader, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                return status
            time.sleep(0.005)
    try:
        os.killpg(leader, signal.SIGKILL)
    except ProcessLookupError:
        pass
    return os.wait4(leader, 0)[1]


def run(argv, cwd, stdout=None, kill_when=None):
    """Runs argv in cwd in a process group of its own under the watchdog.

    The process is started by /usr/bin/time, whose maximum resident set size
    is the child's own: a child forked by this (large) Python process would
    report this process's memory as its peak. stdout: None to capture it,
    or an open file to write it to. kill_when: a function called every poll
    that returns True to kill the process group with SIGKILL (the stale
    temporary case); the Run then has sig 9 and no watchdog mark.
    """
    r = Run(argv)
    errpath = os.path.join(cwd, ".stderr")
    outpath = os.path.join(cwd, ".stdout")
    timepath = os.path.join(cwd, ".time")
    polled = 0  # the child's VmHWM as last seen, for a killed child
    with open(errpath, "wb") as ef, open(outpath, "wb") as of:
        t0 = time.monotonic()
        p = subprocess.Popen(["/usr/bin/time", "-f", "%M %x", "-o", timepath] + argv, cwd=cwd,
                             stdin=subprocess.DEVNULL,
                             stdout=stdout if stdout is not None else of,
                             stderr=ef, start_new_session=True)
        child = None
        last_disk = 0.0
        while True:
            pid, status, _ = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            now = time.monotonic()
            if child is None:
                child = child_of(p.pid)
            why = None
            if child is not None:
                hwm, rss = hwm_kib(child)
                polled = max(polled, hwm)
                if rss * 1024 > LIMITS["rss"]:
                    why = "rss"
            if why is None and now - t0 > LIMITS["time"]:
                why = "time"
            elif why is None and now - last_disk > 0.2:
                last_disk = now
                if dir_bytes(cwd) > LIMITS["disk"]:
                    why = "disk"
            if why is None and kill_when is not None and kill_when():
                why = "asked"
            if why:
                status = kill(p.pid, child)
                if why != "asked":
                    r.killed = why
                break
            time.sleep(0.01)
        p.returncode = 0  # reaped here, not by Popen
        r.wall = time.monotonic() - t0
    report = open(timepath).read() if os.path.exists(timepath) else ""
    last = report.strip().splitlines()[-1:] if report.strip() else []
    if os.WIFSIGNALED(status):  # the group was killed: time with it
        r.sig = os.WTERMSIG(status)
        r.peak_kib = polled
    else:
        peak, rc = (int(x) for x in last[0].split())
        r.peak_kib = max(peak, polled)
        r.rc = rc
        if "terminated by signal" in report:
            r.sig = int(report.split("terminated by signal")[1].split()[0])
            r.rc = None
    r.err_len = os.path.getsize(errpath)
    with open(errpath, "rb") as f:
        r.err = f.read(4096)
    if stdout is None:
        with open(outpath, "rb") as f:
            r.out = f.read(64 * MiB)
    for path in (errpath, outpath, timepath):
        if os.path.exists(path):
            os.remove(path)
    check_devices()
    return r


def check_devices():
    """/dev/null and /dev/full must stay world-writable character devices
    1,3 and 1,7; recreate them if a run replaced them."""
    for path, minor in (("/dev/null", 3), ("/dev/full", 7)):
        try:
            st = os.lstat(path)
            good = (stat.S_ISCHR(st.st_mode) and os.major(st.st_rdev) == 1
                    and os.minor(st.st_rdev) == minor and stat.S_IMODE(st.st_mode) == 0o666)
        except FileNotFoundError:
            good = False
        if not good:
            REPAIRS.append(path)
            if os.path.lexists(path):
                os.remove(path)
            os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
            os.chmod(path, 0o666)


def devices_line():
    out = []
    for path in ("/dev/null", "/dev/full"):
        st = os.lstat(path)
        out.append("%s %s %d,%d" % (path, stat.filemode(st.st_mode), os.major(st.st_rdev),
                                    os.minor(st.st_rdev)))
    return "; ".join(out)


def mkdev(path, minor):
    """A character device node 1,minor at path (inside the scratch dir)."""
    if os.path.lexists(path):
        os.remove(path)
    os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))


def describe(path):
    """What path is now: for the survival checks."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return "gone"
    if stat.S_ISCHR(st.st_mode):
        return "char device %d,%d" % (os.major(st.st_rdev), os.minor(st.st_rdev))
    if stat.S_ISLNK(st.st_mode):
        return "symlink → %s" % os.readlink(path)
    if stat.S_ISREG(st.st_mode):
        return "regular file of %s, mode %04o" % (human(st.st_size), stat.S_IMODE(st.st_mode))
    return stat.filemode(st.st_mode)


def temporaries(d):
    """Hidden files a writer left in d (its temporaries)."""
    return sorted(n for n in os.listdir(d) if n.startswith(".") and "tmp" in n)


def same_bytes(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


# ---------------------------------------------------------------- fixtures


def make_fixtures(fx, newbin):
    """The inputs of every case, in fx. Ringnorm rows come from nsvm's own
    generator (the new binary's; the file format is the same for both)."""
    os.makedirs(fx, exist_ok=True)

    def gen(n, seed, out):
        subprocess.run([newbin, "data", "ringnorm", "--n", str(n), "--seed", str(seed),
                        "--out", os.path.join(fx, out)], check=True)

    gen(RING_N, 1, "ring.libsvm")
    gen(RING_N, 2, "ring2.libsvm")
    gen(TEST_N, 3, "test.libsvm")
    gen(BIG_N, 4, "big.libsvm")
    subprocess.run([newbin, "data", "convert", os.path.join(fx, "test.libsvm"),
                    os.path.join(fx, "test.csv")], check=True, capture_output=True)
    ring = open(os.path.join(fx, "ring.libsvm")).read().splitlines()
    test = open(os.path.join(fx, "test.libsvm")).read().splitlines()

    def write(name, text, encoding="utf-8"):
        with open(os.path.join(fx, name), "w", encoding=encoding, newline="") as f:
            f.write(text)

    # 2. Memory: about 40 KB of rows, then one row with feature index 2^30.
    rows, size = [], 0
    for line in ring:
        if size + len(line) + 1 > 40_000 - 20:
            break
        rows.append(line)
        size += len(line) + 1
    write("bigindex.libsvm", "\n".join(rows + ["1 %d:1" % INDEX]) + "\n")

    # A SciPy sparse .npz of shape (600, 2^31-1): two nonzeros a row, one in
    # the last column, and labels y in the archive.
    import numpy as np
    import scipy.sparse as sp
    rng = np.random.default_rng(1)
    n = 600
    cols = rng.integers(0, 100, size=2 * n)
    cols[::97] = WIDE - 1
    X = sp.csr_matrix((rng.standard_normal(2 * n), (np.repeat(np.arange(n), 2), cols)),
                      shape=(n, WIDE))
    path = os.path.join(fx, "wide.npz")
    sp.save_npz(path, X, compressed=False)
    buf = io.BytesIO()
    np.save(buf, np.where(np.arange(n) % 2 == 0, 1.0, -1.0))
    with zipfile.ZipFile(path, "a") as z:
        z.writestr("y.npy", buf.getvalue())

    # An svm-train model file with one support vector at index 2^30.
    write("bigsv.model", "svm_type c_svc\nkernel_type rbf\ngamma 0.5\nnr_class 2\n"
          "total_sv 2\nrho 0\nlabel 1 -1\nnr_sv 1 1\nSV\n1 1:0.5 %d:1\n-1 1:-0.5\n" % INDEX)

    # One line of 320 MB (no separator, no newline), gzipped.
    with gzip.open(os.path.join(fx, "longline.libsvm.gz"), "wb", compresslevel=6) as f:
        chunk = b"x" * MiB
        left = LONG_LINE
        while left:
            k = min(left, len(chunk))
            f.write(chunk[:k])
            left -= k

    # About 1 MB of CSV whose text column is 45 % distinct.
    r = random.Random(1)
    lines, size, i = ["label,x1,x2,city"], 0, 0
    while size < 1_000_000:
        town = "town%06d" % i if r.random() < 0.45 else "common%d" % r.randrange(50)
        line = "%s,%.4f,%.4f,%s" % (r.choice(["yes", "no"]), r.gauss(0, 1), r.gauss(0, 1), town)
        lines.append(line)
        size += len(line) + 1
        i += 1
    write("text.csv", "\n".join(lines) + "\n")

    # 3. Two separable classes with the label in the first column.
    r = random.Random(2)
    pts = [(k % 2, r.gauss(0, 1) + 2 * (k % 2), r.gauss(0, 1)) for k in range(200)]
    body = "".join("%d,%.4f,%.4f\n" % p for p in pts)
    write("bom.csv", "label,x1,x2\n" + body, encoding="utf-8-sig")
    write("frac.csv", "label,x1,x2\n" + "".join(
        "%s,%.4f,%.4f\n" % ("1.5" if k == 57 else str(p[0]), p[1], p[2])
        for k, p in enumerate(pts)))
    write("blank.libsvm", "\n".join(test[:5] + [""] + test[5:10]) + "\n")
    for name, num in (("underscore", "1_000"), ("hex", "0x1p3")):
        write(name + ".libsvm", "\n".join(ring[:30] + ["1 1:%s 2:0.5" % num] + ring[30:60]) + "\n")
        csv = body.splitlines()
        write(name + ".csv", "label,x1,x2\n" + "\n".join(csv[:29] + ["1,%s,0.5" % num] + csv[29:59])
              + "\n")

    # 5. A LIBSVM value of 200 KB; an unterminated quote opened on line 302
    # of a 602-line CSV file.
    bad = list(test)
    bad[9] = "1 1:" + "7" * 100_000 + "x" + "7" * 99_999 + " 2:0.5"
    write("longvalue.libsvm", "\n".join(bad) + "\n")
    r = random.Random(3)
    out = ["label,x1,x2,note"]
    for k in range(2, 603):
        note = '"unterminated' if k == 302 else "n%d" % k
        out.append("%d,%.3f,%.3f,%s" % (k % 2, r.gauss(0, 1), r.gauss(0, 1), note))
    write("quote.csv", "\n".join(out) + "\n")
    make_claims(fx, ring, write, newbin)


def make_claims(fx, ring, write, newbin):
    """The inputs of group 6: sizes that data claim or imply, encodings."""
    import numpy as np
    r = random.Random(6)
    # A named label of 5000 classes × 10 rows; 50000 classes × 2 rows.
    for name, k, per in (("classes5000.csv", 5000, 10), ("classes50000.csv", 50000, 2)):
        lines = ["a,b,c,label"]
        for c in range(k):
            for _ in range(per):
                lines.append("%.4f,%.4f,%.4f,c%d" % (r.random(), r.random(), r.random(), c))
        write(name, "\n".join(lines) + "\n")
    # Gzip bombs of valid LIBSVM rows: 2.5 GB and 10 GB of text.
    # 32 distinct rows repeated: about 400 bytes of text per compressed byte,
    # as the 26 MB file that expands to 10 GB.
    block = "".join("%d %s\n" % (1 - 2 * (i % 2), " ".join(
        "%d:%.3f" % (j, r.random()) for j in range(1, 21))) for i in range(32)).encode() * 128
    for name, size in (("bomb.libsvm.gz", BOMB), ("bomb10.libsvm.gz", BOMB10)):
        with gzip.open(os.path.join(fx, name), "wb", compresslevel=6) as f:
            left = size
            while left > 0:
                f.write(block)
                left -= len(block)
    # A .npz of a 1 GB float32 X that is nearly all zeros (about 1 MB), and
    # one whose X declares 4 GB (a deflate stream of a little of it).
    X = np.zeros((2_000_000, 125), dtype=np.float32)
    X[::1000, 0] = 1
    np.savez_compressed(os.path.join(fx, "bomb.npz"), X=X, y=np.arange(2_000_000) % 2)
    del X
    head = io.BytesIO()
    np.lib.format.write_array_header_1_0(head, {"descr": "<f4", "fortran_order": False,
                                                "shape": (1_000_000, 1000)})
    comp = zlib.compressobj(6, zlib.DEFLATED, -15)
    raw = comp.compress(head.getvalue()) + comp.compress(bytes(MiB)) + comp.flush()
    y = io.BytesIO()
    np.save(y, np.arange(1_000_000) % 2)
    yd = y.getvalue()
    comp = zlib.compressobj(6, zlib.DEFLATED, -15)
    write_zip64(os.path.join(fx, "claims.npz"), [
        ("y.npy", comp.compress(yd) + comp.flush(), zlib.crc32(yd), len(yd)),
        ("X.npy", raw, 0, len(head.getvalue()) + 4_000_000_000)])
    # Three gzip members of 1000 rows each.
    lines = [ring[i % len(ring)] for i in range(3000)]
    with open(os.path.join(fx, "three.libsvm.gz"), "wb") as f:
        for k in range(3):
            f.write(gzip.compress(("\n".join(lines[1000 * k:1000 * (k + 1)]) + "\n").encode()))
    # A CSV in UTF-16 with a BOM, and in UTF-16-LE without its final NUL;
    # one whose lines end in \r alone; a regression target of 1e308.
    rows = ["label,x1,x2"] + ["%d,%.4f,%.4f" % (k % 2, r.gauss(0, 1) + 2 * (k % 2), r.gauss(0, 1))
                               for k in range(300)]
    text = "\n".join(rows) + "\n"
    with open(os.path.join(fx, "utf16.csv"), "wb") as f:
        f.write(text.encode("utf-16"))
    with open(os.path.join(fx, "utf16le.csv"), "wb") as f:
        f.write(text.encode("utf-16-le")[:-1])
    write("cr.csv", text.replace("\n", "\r"))
    write("huge_target.csv", "x1,x2,target\n" + "".join(
        "%.4f,%.4f,%s\n" % (r.gauss(0, 1), r.gauss(0, 1), "1e308" if k == 57 else "%.3f" % r.gauss(0, 1))
        for k in range(300)))
    subprocess.run([newbin, "data", "ringnorm", "--n", "100000", "--seed", "3", "--out",
                    os.path.join(fx, "ring100k.libsvm")], check=True)


def write_zip64(path, entries):
    """Writes a zip archive of deflated entries (name, data, crc, size) in
    the zip64 format, each declaring size uncompressed bytes, whatever its
    data hold."""
    out = io.BytesIO()
    central = []
    for name, body, crc, size in entries:
        off = out.tell()
        nm = name.encode()
        extra = struct.pack("<HHQQ", 1, 16, size, len(body))
        out.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, 8, 0, 0, crc, 0xFFFFFFFF,
                              0xFFFFFFFF, len(nm), len(extra)) + nm + extra + body)
        cextra = struct.pack("<HHQQQ", 1, 24, size, len(body), off)
        central.append(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, 8, 0, 0, crc,
                                   0xFFFFFFFF, 0xFFFFFFFF, len(nm), len(cextra), 0, 0, 0, 0,
                                   0xFFFFFFFF) + nm + cextra)
    start = out.tell()
    for c in central:
        out.write(c)
    end, n = out.tell(), len(central)
    out.write(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, n, n, end - start, start))
    out.write(struct.pack("<IIQI", 0x07064B50, 0, end, 1))
    out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0))
    with open(path, "wb") as f:
        f.write(out.getvalue())


def edit_model(src, dst, gamma, drop_checksum):
    """Copies the safetensors model src to dst with the kernel's γ set in its
    metadata, the header length fixed; drop_checksum also removes the
    __sha256__ entry (and its 32 bytes, the last of the data)."""
    b = open(src, "rb").read()
    n = struct.unpack("<Q", b[:8])[0]
    h = json.loads(b[8:8 + n])
    data = b[8 + n:]
    k = json.loads(h["__metadata__"]["kernel"])
    k["gamma"] = gamma
    h["__metadata__"]["kernel"] = json.dumps(k, separators=(",", ":"))
    had = "__sha256__" in h
    if drop_checksum and had:
        s, e = h.pop("__sha256__")["data_offsets"]
        if e != len(data):
            raise SystemExit("edit_model: the checksum is not the last tensor")
        data = data[:s]
    hb = json.dumps(h, separators=(",", ":")).encode()
    hb += b" " * (-len(hb) % 8)
    with open(dst, "wb") as f:
        f.write(struct.pack("<Q", len(hb)) + hb + data)
    return had


# ---------------------------------------------------------------- cases
#
# A case is a function of (ctx) returning (cell, ok): ctx.bin is the binary,
# ctx.dir a fresh directory of its own, ctx.fx the fixtures, ctx.model a
# model the same binary trained on ring.libsvm. ok says whether the outcome
# is the one expected of the new binary.


class Ctx:
    def __init__(self, binary, d, fx, model):
        self.bin, self.dir, self.fx, self.model = binary, d, fx, model

    def f(self, name):
        return os.path.join(self.fx, name)

    def p(self, name):
        return os.path.join(self.dir, name)

    def copy(self, name, as_name=None):
        dst = self.p(as_name or name)
        shutil.copyfile(self.f(name), dst)
        return dst

    def run(self, *args, **kw):
        """Runs the binary with args in the case's directory; {fx} and
        {model} in an argument stand for the fixtures' directory and the
        binary's model."""
        args = [a.replace("{fx}", self.fx).replace("{model}", self.model) for a in args]
        return run([self.bin] + args, self.dir, **kw)


def c_model_device(c):
    full = c.p("full")
    mkdev(full, 7)
    r = c.run("train", "--data", c.f("ring.libsvm"), "--model", full, *SMO)
    now = describe(full)
    ok = r.failed_cleanly() and b"no space left on device" in r.err and now == "char device 1,7"
    return "%s · `full` now: %s" % (r.cell(), now), ok


def c_model_symlink(c):
    target = c.p("target.nsvm")
    with open(target, "w") as f:
        f.write("old\n")
    os.chmod(target, 0o600)
    os.symlink("target.nsvm", c.p("link.nsvm"))
    r = c.run("train", "--data", c.f("ring.libsvm"), "--model", "link.nsvm", *SMO)
    link, tgt = describe(c.p("link.nsvm")), describe(target)
    ok = (r.ok() and link.startswith("symlink") and tgt.startswith("regular")
          and tgt.endswith("mode 0600") and os.path.getsize(target) > 100)
    return "%s · link.nsvm: %s · target.nsvm: %s" % (r.cell(), link, tgt), ok


def c_train_same(c):
    f = c.copy("ring.libsvm", "same.libsvm")
    r = c.run("train", "--data", "same.libsvm", "--model", "same.libsvm", *SMO)
    kept = same_bytes(f, c.f("ring.libsvm"))
    return "%s · input %s" % (r.cell(), "unchanged" if kept else "**overwritten**"), \
        r.failed_cleanly() and kept


def c_predict_same(c):
    f = c.copy("test.libsvm", "x.libsvm")
    r = c.run("predict", "--model", c.model, "--data", "x.libsvm", "--out", "x.libsvm")
    kept = same_bytes(f, c.f("test.libsvm"))
    return "%s · input %s" % (r.cell(), "unchanged" if kept else "**overwritten**"), \
        r.failed_cleanly() and kept


def c_stale_temp(c):
    # Kill -9 a conversion of 200,000 rows once its temporary file has
    # grown past 1 MiB, then write the same target again.
    def writing():
        for n in temporaries(c.dir):
            try:
                if os.path.getsize(c.p(n)) > MiB:
                    return True
            except OSError:
                pass
        return False

    k = c.run("data", "convert", c.f("big.libsvm"), "conv.csv", kill_when=writing)
    left = temporaries(c.dir)
    if k.sig != signal.SIGKILL or not left:
        return "could not kill it during the write (%s; temporaries %s)" % (k.cell(), left), False
    size = sum(os.path.getsize(c.p(n)) for n in left)
    r = c.run("data", "convert", c.f("test.libsvm"), "conv.csv")
    after = temporaries(c.dir)
    cell = ("kill -9 after %.2f s left %d temporary (%s) · next write: %s · "
            "temporaries after it: %d" % (k.wall, len(left), human(size), r.cell(), len(after)))
    return cell, r.ok() and not after


def bound(path):
    """The bound on peak RSS: 4× the input's size + 200 MB."""
    return 4 * os.path.getsize(path) + 200 * 10**6


def memory_case(input_name, *args, long=False, repeat=1, limit=None, cap=None):
    """A case judged by its peak RSS against the bound. long: a run that may
    outlast the time cap (then judged on the memory it reached). repeat:
    runs it so many times and shows the one of largest peak (the old reader
    of LIBSVM model files allocated the dense support vector or not from one
    run to the next)."""
    def case(c):
        lim = limit or bound(c.f(input_name))
        runs = []
        if cap:
            saved, LIMITS["time"] = LIMITS["time"], cap
        for _ in range(repeat):
            for n in os.listdir(c.dir):
                if os.path.isfile(c.p(n)):
                    os.remove(c.p(n))
            runs.append(c.run(*args))
        if cap:
            LIMITS["time"] = saved
        r = max(runs, key=lambda x: x.peak_kib)
        over = sum(1 for x in runs if x.killed or x.peak_kib * 1024 > lim)
        within = over == 0 and all(x.killed in ((None, "time") if long else (None,)) for x in runs)
        cell = r.cell()
        if repeat > 1:
            cell = "largest of %d runs: %s" % (repeat, cell)
        cell += " · peak %s the bound %s" % ("within" if within else "**over**", human(lim))
        if repeat > 1:
            cell += " (over in %d of %d runs)" % (over, repeat)
        outs = [n for n in os.listdir(c.dir) if n.startswith("out")]
        if outs:
            cell += " · output %s" % ", ".join("%s %s" % (n, human(os.path.getsize(c.p(n))))
                                                for n in outs)
        left = temporaries(c.dir)
        if left:
            cell += " · %d temporary left (%s)" % (len(left), human(sum(
                os.path.getsize(c.p(n)) for n in left)))
        clean = all(x.ok() or x.failed_cleanly() or (long and x.killed == "time") for x in runs)
        return cell, within and clean and all(x.err_len < 1024 for x in runs)
    return case


def c_bom(c):
    c.copy("bom.csv")
    r = c.run("train", "--data", "bom.csv", "--model", "bom.nsvm", "--algo", "smo", "--quiet")
    said = r.out + r.err  # the summary line: stdout under --quiet
    task = ("classification" if b"accuracy" in said else
            "regression" if b"RMSE" in said else "no model")
    return "%s · trained as %s: %s" % (r.cell(), task, quote(r.out[:100], len(r.out) > 100)), \
        r.ok() and task == "classification"


def c_blank(c):
    r = c.run("predict", "--model", c.model, "--data", c.f("blank.libsvm"))
    n_out = len(r.out.splitlines())
    lines = len(open(c.f("blank.libsvm")).read().splitlines())
    cell = "%s · %d predictions for %d lines (%d rows)" % (r.cell(), n_out, lines, lines - 1)
    return cell, r.failed_cleanly() or n_out == lines


def c_frac(task):
    def case(c):
        args = ["train", "--data", c.f("frac.csv"), "--model", "frac.nsvm", "--algo", "smo",
                "--quiet"]
        if task:
            args += ["--task", task]
        r = c.run(*args)
        said = r.out + r.err
        what = ("regression" if b"RMSE" in said else
                "classification" if b"accuracy" in said else "no model")
        cell = "%s · %s" % (r.cell(errn=160), what)
        if r.out:
            cell += ": " + quote(r.out[:100], len(r.out) > 100)
        if task:
            return cell, r.ok() and what == "regression"
        return cell, r.failed_cleanly() and b"row 58" in r.err
    return case


def c_number(name):
    def case(c):
        r = c.run("data", "convert", c.f(name), "out.npz")
        made = os.path.exists(c.p("out.npz"))
        return "%s · out.npz %s" % (r.cell(), "written" if made else "not written"), \
            r.failed_cleanly() and not made
    return case


def c_gamma(drop):
    def case(c):
        had = edit_model(c.model, c.p("g.nsvm"), 1e308, drop)
        r = c.run("predict", "--model", "g.nsvm", "--data", c.f("test.libsvm"))
        intact = c.run("predict", "--model", c.model, "--data", c.f("test.libsvm"))
        decisions = [ln.split()[1] for ln in r.out.decode().splitlines() if len(ln.split()) > 1]
        nan = sum(1 for d in decisions if d.lower() in ("nan", "+inf", "-inf", "inf"))
        distinct = len(set(decisions))
        how = ("checksum entry removed" if drop and had else
               "checksum entry kept" if had else "no checksum entry in this format")
        cell = "%s · %s" % (how, r.cell())
        if r.ok():
            cell += (" · %d decisions: %d NaN/Inf, %d distinct, %d of %d labels as the intact "
                     "model's") % (
                len(decisions), nan, distinct,
                sum(a.split()[:1] == b.split()[:1] for a, b in
                    zip(r.out.decode().splitlines(), intact.out.decode().splitlines())),
                len(decisions))
        return cell, r.failed_cleanly()
    return case


def c_flips(c):
    data = c.f("test.libsvm")
    base = c.run("predict", "--model", c.model, "--data", data)
    if not base.ok():
        return "the intact model does not predict: %s" % base.cell(), False
    blob = open(c.model, "rb").read()
    rng = random.Random(FLIP_SEED)
    loaded = changed = labels = killed = panics = 0
    worst = 0
    base_labels = [ln.split()[:1] for ln in base.out.decode().splitlines()]
    for _ in range(FLIPS):
        bit = rng.randrange(len(blob) * 8)
        b = bytearray(blob)
        b[bit // 8] ^= 1 << (bit % 8)
        with open(c.p("flip.nsvm"), "wb") as f:
            f.write(b)
        r = c.run("predict", "--model", "flip.nsvm", "--data", data)
        worst = max(worst, r.peak_kib)
        if r.killed or r.sig is not None:
            killed += 1
        elif b"panic:" in r.err:
            panics += 1
        if r.ok():
            loaded += 1
            if r.out != base.out:
                changed += 1
                got = [ln.split()[:1] for ln in r.out.decode("utf-8", "replace").splitlines()]
                if got != base_labels:
                    labels += 1
    cell = ("%d of %d loaded with exit 0 · output changed in %d · labels changed in %d · "
            "panics %d · killed %d · largest peak %s (model %s)" % (
                loaded, FLIPS, changed, labels, panics, killed, human(worst * 1024),
                human(len(blob))))
    return cell, changed == 0 and panics == 0 and killed == 0


NSVM1 = ["--algo", "nsvm1", "--steps", "2000", "--quiet"]


def checkpoint(c):
    """ck in c.dir: a checkpoint of nsvm1 on ring.libsvm (seed 1). Returns a
    note when the plain command wrote none and --checkpoint-every was
    needed."""
    c.run("train", "--data", c.f("ring.libsvm"), "--model", "ck.nsvm", "--checkpoint", "ck",
          *NSVM1)
    if os.path.exists(c.p("ck")):
        return ""
    c.run("train", "--data", c.f("ring.libsvm"), "--model", "ck.nsvm", "--checkpoint", "ck",
          "--checkpoint-every", "100", *NSVM1)
    if not os.path.exists(c.p("ck")):
        raise SystemExit("no checkpoint written by %s" % c.bin)
    return "(`--checkpoint ck` alone wrote no checkpoint: made with `--checkpoint-every 100`) "


def c_resume(kind):
    def case(c):
        note = checkpoint(c)
        data, extra = c.f("ring.libsvm"), []
        if kind == "data":
            data = c.f("ring2.libsvm")
        elif kind == "seed":
            extra = ["--seed", "7"]
        elif kind == "flip":
            b = bytearray(open(c.p("ck"), "rb").read())
            n = struct.unpack("<Q", b[:8])[0]
            pos = random.Random(FLIP_SEED).randrange(8 + n, len(b))  # a byte of the tensors
            b[pos] ^= 0x10
            open(c.p("ck"), "wb").write(b)
        r = c.run("train", "--data", data, "--model", "out.nsvm", "--resume", "ck", *NSVM1,
                  *extra)
        cell = note + r.cell(errn=200)
        return cell, r.ok() if kind == "same" else r.failed_cleanly()
    return case


def c_stdout_full(*args):
    def case(c):
        full = c.p("full")
        mkdev(full, 7)
        with open(full, "wb") as out:
            r = c.run(*args, stdout=out)
        now = describe(full)
        ok = r.failed_cleanly() and now == "char device 1,7"
        return "%s · `full` now: %s" % (r.cell(), now), ok
    return case


def c_long_value(c):
    r = c.run("predict", "--model", c.model, "--data", c.f("longvalue.libsvm"))
    return r.cell(), r.failed_cleanly() and r.err_len < 1024


def c_quote(c):
    r = c.run("train", "--data", c.f("quote.csv"), "--model", "q.nsvm", "--algo", "smo", "--quiet")
    return r.cell(errn=140), r.failed_cleanly() and b":302:" in r.err


def c_stream_bomb(c):
    """The 2.5 GB gzip bomb of valid rows, trained on: it must stream, in
    at most 1 GiB, within a cap of 300 s."""
    saved, LIMITS["time"] = LIMITS["time"], 300
    r = c.run("train", "--data", c.f("bomb.libsvm.gz"), "--model", "out.nsvm", "--budget", "30s",
              "--quiet")
    LIMITS["time"] = saved
    within = not r.killed and r.peak_kib * 1024 <= STREAMED
    cell = "%s · peak %s %s" % (r.cell(errn=160), "within" if within else "**over**", human(STREAMED))
    return cell, r.ok() and within and b"training from a stream" in r.err


def c_lines(args, want, count_file=None):
    """A case judged by the lines its output holds (stdout, or a file)."""
    def case(c):
        r = c.run(*args)
        text = r.out if count_file is None else (
            open(c.p(count_file), "rb").read() if os.path.exists(c.p(count_file)) else b"")
        n = len(text.splitlines())
        return "%s · %d lines out (%d expected)" % (r.cell(), n, want), r.ok() and n == want
    return case


def c_refused(args, needle):
    """A case that must fail cleanly with needle in its message."""
    def case(c):
        r = c.run(*args)
        return r.cell(errn=160), r.failed_cleanly() and needle in r.err
    return case


def sigterm_latency(binary, args, cwd, after):
    """Starts binary with args, sends SIGTERM after seconds, and returns the
    seconds from the signal to the exit and the exit status (None: exited
    on its own before the signal)."""
    p = subprocess.Popen([binary] + args, cwd=cwd, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    try:
        p.wait(timeout=after)
        return None, p.returncode
    except subprocess.TimeoutExpired:
        pass
    t0 = time.monotonic()
    p.send_signal(signal.SIGTERM)
    try:
        rc = p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        rc = p.wait()
    return time.monotonic() - t0, rc


def c_sigterm(args, afters):
    def case(c):
        args_ = [a.replace("{fx}", c.fx) for a in args]
        parts, worst = [], 0.0
        for after in afters:
            secs, rc = sigterm_latency(c.bin, args_, c.dir, after)
            if secs is None:
                parts.append("at %g s: had ended (exit %d)" % (after, rc))
                continue
            worst = max(worst, secs)
            parts.append("at %g s: exit %d after %.2f s" % (after, rc, secs))
        return " · ".join(parts), worst <= 2.0
    return case


def py_run(c, code):
    """Runs Python code in a fresh interpreter with the side's package and
    library (beside its binary: py/nsvm, py/nsvm/libnsvm.so)."""
    py = os.path.join(os.path.dirname(c.bin), "py")
    return run(["env", "PYTHONPATH=" + py, "NSVM_LIBRARY=" + os.path.join(py, "nsvm", "libnsvm.so"),
                "/usr/bin/python3", "-c", code], c.dir)


def c_python(code, needle, limit=None):
    """A Python case: the interpreter must survive (exit 0) and print
    needle, within limit bytes of peak memory when given."""
    def case(c):
        r = py_run(c, code)
        out = r.out.decode("utf-8", "replace").strip().replace("\n", " ⏎ ")
        cell = "%s · stdout: %s" % (r.cell(errn=120), quote(out[:120].encode(), len(out) > 120))
        ok = r.ok() and needle in r.out
        if limit:
            within = r.peak_kib * 1024 <= limit
            cell += " · peak %s the bound %s" % ("within" if within else "**over**", human(limit))
            ok = ok and within
        return cell, ok
    return case


PY_CLASSES = """
import numpy as np, nsvm
rng = np.random.default_rng(1)
X = rng.random((50000, 3))
y = np.array(["c%d" % (i // 10) for i in range(50000)])
try:
    nsvm.NSVMClassifier().fit(X, y)
    print("fitted")
except Exception as e:
    print(type(e).__name__, str(e)[:200])
"""

PY_LOAD = """
import nsvm
try:
    nsvm.load("/dev/zero")
    print("loaded")
except Exception as e:
    print(type(e).__name__, str(e)[:200])
"""

PY_HUGE = """
import numpy as np, nsvm
rng = np.random.default_rng(2)
X, y = rng.random((200, 3)), rng.random(200)
X[7, 1] = 1e300
try:
    nsvm.NSVMRegressor(algorithm="smo").fit(X, y)
    print("fitted")
except Exception as e:
    print(type(e).__name__, str(e)[:200])
"""

PY_THREADS = """
import threading, time
import numpy as np, nsvm
rng = np.random.default_rng(6)
X = rng.random((150, 4))
y = (X[:, 0] + X[:, 1] > 1).astype(int)
sets = [y, np.where(y == 1, "yes", "no")]
want = [nsvm.NSVMClassifier(algorithm="smo", C=1).fit(X, ys).predict(X) for ys in sets]
est = nsvm.NSVMClassifier(algorithm="smo", C=1).fit(X, sets[0])
stop, bad, n = threading.Event(), [0], [0]
def refit():
    i = 0
    while not stop.is_set():
        i += 1
        est.fit(X, sets[i % 2])
t = threading.Thread(target=refit)
t.start()
end = time.monotonic() + 5
while time.monotonic() < end:
    try:
        p = est.predict(X)
    except Exception as e:
        bad[0] += 1
        continue
    n[0] += 1
    if not any(len(p) == len(w) and all(a == b for a, b in zip(p, w)) for w in want):
        bad[0] += 1
stop.set()
t.join()
print("%d predicts, %d mixed" % (n[0], bad[0]))
"""


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serving(c):
    """Starts the side's nsvm serve on c.model; returns the process and the
    base URL once it answers, or (process, None)."""
    import urllib.request
    port = free_port()
    p = subprocess.Popen([c.bin, "serve", "--model", c.model, "--addr", "127.0.0.1:%d" % port],
                         cwd=c.dir, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    base = "http://127.0.0.1:%d" % port
    for _ in range(200):
        try:
            urllib.request.urlopen(base + "/v1/models/m", timeout=1).read()
            return p, base
        except Exception:
            time.sleep(0.05)
    return p, None


def stop_serving(p):
    hwm = hwm_kib(p.pid)[0] if p.poll() is None else 0
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    p.wait()
    return hwm


def post(base, body, timeout=10):
    """POSTs body to the model's V1 predict; returns (status, seconds)."""
    import urllib.error
    import urllib.request
    req = urllib.request.Request(base + "/v1/models/m:predict", data=body,
                                 headers={"Content-Type": "application/json"})
    t0 = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            r.read()
            return r.status, time.monotonic() - t0
    except urllib.error.HTTPError as e:
        return e.code, time.monotonic() - t0
    except Exception as e:
        return type(e).__name__, time.monotonic() - t0


ROW = json.dumps({"instances": [[0.1] * 20]}).encode()


def c_stalled(c):
    """17 connections declare a 63 MiB body, send 1 KB of it and stall, and
    one more does every 0.3 s (about 1 KB of traffic each); five ordinary
    requests beside them must each be answered 200 within 3 s."""
    import socket
    import threading
    p, base = serving(c)
    if base is None:
        return "the server did not start (%s)" % p.poll(), False
    port = int(base.rsplit(":", 1)[1])
    socks, stop = [], threading.Event()

    def stalled():
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"POST /v1/models/m:predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 66060288\r\n\r\n" + b'{"instances": [' + b"[0.1," * 200)
        socks.append(s)

    def renew():
        while not stop.wait(0.3):
            stalled()
    t = threading.Thread(target=renew)
    try:
        for _ in range(17):
            stalled()
        t.start()
        time.sleep(1)
        answers = [post(base, ROW) for _ in range(5)]
    finally:
        stop.set()
        if t.is_alive():
            t.join()
        for s in socks:
            s.close()
        hwm = stop_serving(p)
    cell = "ordinary requests: " + ", ".join(
        "%s in %.2f s" % (st, secs) for st, secs in answers) + " · server peak %s" % human(hwm * 1024)
    return cell, all(st == 200 and secs <= 3 for st, secs in answers)


def c_duplicate_keys(c):
    p, base = serving(c)
    if base is None:
        return "the server did not start (%s)" % p.poll(), False
    try:
        body = b'{"instances": [' + json.dumps([0.1] * 20).encode() + b'], "instances": [' + \
            json.dumps([5.0] * 20).encode() + b"]}"
        st, secs = post(base, body)
        ok_st, _ = post(base, ROW)
    finally:
        stop_serving(p)
    return "two \"instances\": HTTP %s · one: HTTP %s" % (st, ok_st), st == 400 and ok_st == 200


CASES = [
    # (group, name, how it is run, expected of the new binary, function)
    ("1", "train --model full (a char device 1,7 in the scratch dir)",
     "`train --data ring.libsvm --model $dir/full " + " ".join(SMO) + "`",
     "no space left on device; device intact", c_model_device),
    ("1", "train --model link.nsvm → target.nsvm (mode 0600)",
     "`train --data ring.libsvm --model link.nsvm …`", "link kept, target written, mode 0600",
     c_model_symlink),
    ("1", "train --data same.libsvm --model same.libsvm", "", "refused, input unchanged",
     c_train_same),
    ("1", "predict --data x.libsvm --out x.libsvm", "", "refused, input unchanged",
     c_predict_same),
    ("1", "stale temporary of a kill -9 during a write",
     "`data convert big.libsvm conv.csv` (200,000 rows) killed once its temporary passes 1 MiB; "
     "then `data convert test.libsvm conv.csv`", "removed by the next write", c_stale_temp),
    ("2", "40 KB LIBSVM file, one row with feature index 2^30: default train",
     "`train --data bigindex.libsvm --model out.nsvm --quiet`",
     "bounded memory, one error", memory_case("bigindex.libsvm", "train", "--data",
                                              "{fx}/bigindex.libsvm", "--model", "out.nsvm",
                                              "--quiet")),
    ("2", "same file: train --algo smo", "`train --data bigindex.libsvm --model out.nsvm "
     "--algo smo --quiet`", "bounded memory, one error",
     memory_case("bigindex.libsvm", "train", "--data", "{fx}/bigindex.libsvm", "--model",
                 "out.nsvm", "--algo", "smo", "--quiet")),
    ("2", "same file: data convert to CSV", "`data convert bigindex.libsvm out.csv`",
     "bounded memory, one error",
     memory_case("bigindex.libsvm", "data", "convert", "{fx}/bigindex.libsvm", "out.csv")),
    ("2", "SciPy sparse .npz of shape (600, 2^31−1), 1200 nonzeros: train --algo linear",
     "`train --data wide.npz --model out.nsvm --algo linear --quiet`", "bounded memory",
     memory_case("wide.npz", "train", "--data", "{fx}/wide.npz", "--model", "out.nsvm",
                 "--algo", "linear", "--quiet")),
    ("2", "svm-train model with a support vector at index 2^30: predict LIBSVM rows",
     "`predict --model bigsv.model --data test.libsvm`, 5 times", "bounded memory, one error",
     memory_case("bigsv.model", "predict", "--model", "{fx}/bigsv.model", "--data",
                 "{fx}/test.libsvm", repeat=5)),
    ("2", "same model: predict CSV rows (dense)",
     "`predict --model bigsv.model --data test.csv`, 5 times", "bounded memory, one error",
     memory_case("bigsv.model", "predict", "--model", "{fx}/bigsv.model", "--data",
                 "{fx}/test.csv", repeat=5)),
    ("2", "gzip file holding one 320 MB line: predict",
     "`predict --model m.nsvm --data longline.libsvm.gz` (bound from the .gz's size)",
     "bounded memory, a short error",
     memory_case("longline.libsvm.gz", "predict", "--model", "{model}", "--data",
                 "{fx}/longline.libsvm.gz")),
    ("2", "1 MB CSV, text column 45 % distinct: data convert to .npz",
     "`data convert text.csv out.npz`", "bounded memory",
     memory_case("text.csv", "data", "convert", "{fx}/text.csv", "out.npz")),
    ("2", "same CSV: default train",
     "`train --data text.csv --model out.nsvm --quiet` (its selection has a 10 min budget: "
     "the memory it reached in 60 s)", "bounded memory",
     memory_case("text.csv", "train", "--data", "{fx}/text.csv", "--model", "out.nsvm",
                 "--quiet", long=True)),
    ("2", "same CSV: train --algo linear",
     "`train --data text.csv --model out.nsvm --quiet --algo linear`", "bounded memory",
     memory_case("text.csv", "train", "--data", "{fx}/text.csv", "--model", "out.nsvm",
                 "--quiet", "--algo", "linear")),
    ("3", "CSV with a UTF-8 BOM, header names `label` (first column)",
     "`train --data bom.csv --model bom.nsvm --algo smo --quiet`",
     "classification on the label", c_bom),
    ("3", "LIBSVM file with a blank line (11 lines, 10 rows): predict",
     "`predict --model m.nsvm --data blank.libsvm`",
     "refused, or one prediction per line", c_blank),
    ("3", "CSV with one label 1.5 among 0/1", "`train --data frac.csv --model frac.nsvm "
     "--algo smo --quiet`", "an error naming row 58", c_frac("")),
    ("3", "same CSV with --task regression", "… `--task regression`", "trains a regressor",
     c_frac("regression")),
    ("3", "`1_000` in a LIBSVM file", "`data convert underscore.libsvm out.npz`", "refused",
     c_number("underscore.libsvm")),
    ("3", "`0x1p3` in a LIBSVM file", "`data convert hex.libsvm out.npz`", "refused",
     c_number("hex.libsvm")),
    ("3", "`1_000` in a CSV file", "`data convert underscore.csv out.npz`", "refused",
     c_number("underscore.csv")),
    ("3", "`0x1p3` in a CSV file", "`data convert hex.csv out.npz`", "refused",
     c_number("hex.csv")),
    ("3", "hand-edited model, γ = 1e308 (checksum entry, if any, kept)",
     "`predict --model g.nsvm --data test.libsvm`", "refused (corrupt)", c_gamma(False)),
    ("3", "hand-edited model, γ = 1e308, checksum entry removed",
     "`predict --model g.nsvm --data test.libsvm`", "refused (γ out of range)", c_gamma(True)),
    ("4", "300 single-bit flips of a model file (seed 1): predict each",
     "`predict --model flip.nsvm --data test.libsvm` ×300 on the binary's own model",
     "no flip changes the output with exit 0", c_flips),
    ("4", "--resume, same data and seed (control)",
     "checkpoint: `train --data ring.libsvm --model ck.nsvm --algo nsvm1 --steps 2000 "
     "--checkpoint ck`; then `train … --resume ck`", "resumes", c_resume("same")),
    ("4", "--resume with a checkpoint made on other data", "`train --data ring2.libsvm … "
     "--resume ck`", "refused", c_resume("data")),
    ("4", "--resume with another seed", "`train --data ring.libsvm … --resume ck --seed 7`",
     "refused", c_resume("seed")),
    ("4", "--resume with a bit-flipped checkpoint (one bit of the tensors)",
     "`train --data ring.libsvm … --resume ck`", "refused", c_resume("flip")),
    ("5", "eval > full (a char device 1,7)", "`eval --model m.nsvm --data test.libsvm > $dir/full`",
     "non-zero exit", c_stdout_full("eval", "--model", "{model}", "--data", "{fx}/test.libsvm")),
    ("5", "train --cv 3 > full", "`train --cv 3 --data ring.libsvm " + " ".join(SMO) +
     " > $dir/full`", "non-zero exit",
     c_stdout_full("train", "--cv", "3", "--data", "{fx}/ring.libsvm", *SMO)),
    ("5", "LIBSVM value of 200 KB: predict", "`predict --model m.nsvm --data longvalue.libsvm`",
     "an error under 1 KiB", c_long_value),
    ("5", "unterminated CSV quote opened on line 302 of 602", "`train --data quote.csv --model "
     "q.nsvm --algo smo --quiet`", "the error names line 302", c_quote),
    ("6", "named label of 5000 classes × 10 rows (1.3 MB CSV): default train",
     "`train --data classes5000.csv --model out.nsvm --quiet`", "bounded memory, one error",
     memory_case("classes5000.csv", "train", "--data", "{fx}/classes5000.csv", "--model",
                 "out.nsvm", "--quiet", long=True)),
    ("6", "named label of 50000 classes × 2 rows: default train",
     "`train --data classes50000.csv --model out.nsvm --quiet`", "bounded memory, one error",
     memory_case("classes50000.csv", "train", "--data", "{fx}/classes50000.csv", "--model",
                 "out.nsvm", "--quiet", long=True)),
    ("6", "gzip of valid LIBSVM rows that expands to 2.5 GB: default train",
     "`train --data bomb.libsvm.gz --model out.nsvm --budget 30s --quiet` (cap 300 s)",
     "streams, within 1 GiB", c_stream_bomb),
    ("6", "gzip of valid LIBSVM rows that expands to 10 GB: predict",
     "`predict --model m.nsvm --data bomb10.libsvm.gz`", "one error, within 1 GiB",
     memory_case("bomb10.libsvm.gz", "predict", "--model", "{model}", "--data",
                 "{fx}/bomb10.libsvm.gz", limit=STREAMED)),
    ("6", "1 MB .npz whose float32 X expands to 1 GB: data convert to LIBSVM",
     "`data convert bomb.npz out.libsvm`", "within 1 GiB",
     memory_case("bomb.npz", "data", "convert", "{fx}/bomb.npz", "out.libsvm", limit=STREAMED)),
    ("6", ".npz whose X.npy entry declares 4 GB (1 KB of data): data convert",
     "`data convert claims.npz out.csv`", "bounded memory, one error",
     memory_case("claims.npz", "data", "convert", "{fx}/claims.npz", "out.csv")),
    ("6", "--dim 2000000000 on an 80 KB LIBSVM file: default train",
     "`train --data ring.libsvm --model out.nsvm --dim 2000000000 --quiet`",
     "bounded memory, one error",
     memory_case("ring.libsvm", "train", "--data", "{fx}/ring.libsvm", "--model", "out.nsvm",
                 "--dim", "2000000000", "--quiet")),
    ("6", "same: train --algo linear", "… `--algo linear`", "bounded memory, one error",
     memory_case("ring.libsvm", "train", "--data", "{fx}/ring.libsvm", "--model", "out.nsvm",
                 "--dim", "2000000000", "--quiet", "--algo", "linear")),
    ("6", "three gzip members of 1000 rows (cat a.gz b.gz c.gz): predict",
     "`predict --model m.nsvm --data three.libsvm.gz`", "3000 predictions",
     c_lines(["predict", "--model", "{model}", "--data", "{fx}/three.libsvm.gz"], 3000)),
    ("6", "same file: data convert to CSV", "`data convert three.libsvm.gz out.csv`",
     "3000 rows (and a header)",
     c_lines(["data", "convert", "{fx}/three.libsvm.gz", "out.csv"], 3001, count_file="out.csv")),
    ("6", "CSV in UTF-16 with a byte-order mark: train", "`train --data utf16.csv --model out.nsvm "
     "--algo smo --quiet`", "one error naming UTF-16",
     c_refused(["train", "--data", "{fx}/utf16.csv", "--model", "out.nsvm", "--algo", "smo",
                "--quiet"], b"UTF-16")),
    ("6", "CSV in UTF-16-LE, no mark, without its final NUL: train",
     "`train --data utf16le.csv …`", "one error naming UTF-16",
     c_refused(["train", "--data", "{fx}/utf16le.csv", "--model", "out.nsvm", "--algo", "smo",
                "--quiet"], b"UTF-16")),
    ("6", "CSV of 300 rows whose lines end in a carriage return alone: data convert to CSV",
     "`data convert cr.csv out.csv`", "300 rows (and a header)",
     c_lines(["data", "convert", "{fx}/cr.csv", "out.csv"], 301, count_file="out.csv")),
    ("6", "regression target 1e308 on row 58", "`train --data huge_target.csv --model out.nsvm "
     "--task regression --algo smo --quiet`", "one error naming row 58, too large",
     c_refused(["train", "--data", "{fx}/huge_target.csv", "--model", "out.nsvm", "--task",
                "regression", "--algo", "smo", "--quiet"], b"row 58's target 1e+308 is too large")),
    ("6", "SIGTERM 3 s into a long SMO fit (100000 Ringnorm rows, C = 100, γ = 1, 10 MB cache)",
     "`train --data ring100k.libsvm --model out.nsvm --algo smo -C 100 --gamma 1 --cache-mb 10 "
     "--scaling none --quiet`", "exit within 2 s",
     c_sigterm(["train", "--data", "{fx}/ring100k.libsvm", "--model", "out.nsvm", "--algo", "smo",
                "-C", "100", "--gamma", "1", "--cache-mb", "10", "--scaling", "none", "--quiet"],
               [3])),
    ("6", "SIGTERM 2, 5 and 10 s into a default train on the same rows",
     "`train --data ring100k.libsvm --model out.nsvm --quiet`", "exit within 2 s each time",
     c_sigterm(["train", "--data", "{fx}/ring100k.libsvm", "--model", "out.nsvm", "--quiet"],
               [2, 5, 10])),
    ("7", "Python: a class per 10 of 50000 rows, NSVMClassifier().fit", "`python3 -c …` (the package "
     "and library of each side)", "the interpreter survives: MemoryError, within the bound",
     c_python(PY_CLASSES, b"MemoryError", limit=4 * 50000 * 3 * 8 + 200 * 10**6)),
    ("7", "Python: nsvm.load(\"/dev/zero\")", "", "ValueError at once, bounded memory",
     c_python(PY_LOAD, b"ValueError", limit=200 * 10**6)),
    ("7", "Python: a feature value of 1e300, NSVMRegressor(algorithm=\"smo\").fit", "",
     "ValueError saying too large", c_python(PY_HUGE, b"too large")),
    ("7", "Python: predict in one thread while another refits (labels 0/1, then yes/no) for 5 s", "",
     "no mixed answer", c_python(PY_THREADS, b" 0 mixed")),
    ("8", "serve: 17 connections declare 63 MiB bodies and stall, one more every 0.3 s; 5 ordinary "
     "requests", "`serve --model m.nsvm` (defaults)", "each answered 200 within 3 s", c_stalled),
    ("8", "serve: a JSON body with two \"instances\" keys", "", "400, and an ordinary request 200",
     c_duplicate_keys),
]


def run_case(fn, binary, root, tag, idx, fx, model):
    d = os.path.join(root, tag, "%02d" % idx)
    os.makedirs(d)
    c = Ctx(binary, d, fx, model)
    SHORT[:] = [(d + "/", "$dir/"), (fx + "/", "$fx/"), (d, "$dir"),
                (os.path.dirname(model) + "/", "")]
    t0 = time.monotonic()
    cell, ok = fn(c)
    return cell, ok, time.monotonic() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True, help="the old nsvm binary")
    ap.add_argument("--new", required=True, help="the new nsvm binary")
    ap.add_argument("--old-rev", default="old")
    ap.add_argument("--new-rev", default="new")
    ap.add_argument("--scratch", required=True, help="an empty directory for every file")
    ap.add_argument("--readme", help="write the table into this README.md")
    ap.add_argument("--only", default="",
                    help="run only the cases whose name matches this regular expression")
    args = ap.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("edges.py makes device nodes (mknod): run it as root")
    check_devices()
    root = os.path.abspath(args.scratch)
    fx = os.path.join(root, "fixtures")
    t0 = time.monotonic()
    make_fixtures(fx, args.new)
    print("fixtures made in %.1f s" % (time.monotonic() - t0), file=sys.stderr)

    bins = {"old": args.old, "new": args.new}
    models = {}
    for tag, b in bins.items():
        d = os.path.join(root, tag)
        os.makedirs(d)
        m = os.path.join(d, "m.nsvm")
        r = run([b, "train", "--data", os.path.join(fx, "ring.libsvm"), "--model", m] + SMO, d)
        if not r.ok():
            raise SystemExit("%s cannot train the base model: %s" % (b, r.cell()))
        models[tag] = m

    rows = []
    for i, (group, name, how, expect, fn) in enumerate(CASES):
        if args.only and not re.search(args.only, name):
            continue
        cells = {}
        for tag in ("old", "new"):
            cell, ok, secs = run_case(fn, bins[tag], root, tag, i, fx, models[tag])
            cells[tag] = (cell, ok)
            print("%-4s %-60s %5.1f s  %s" % (tag, name[:60], secs, cell[:150]), file=sys.stderr)
        rows.append((group, name, how, expect, cells))

    table = render(rows)
    print(table)
    if args.readme:
        with open(args.readme, "w") as f:
            f.write(readme(table, rows, args, time.monotonic() - t0))
    check_devices()
    print("devices at the end: %s; repairs during the run: %s" % (
        devices_line(), ", ".join(REPAIRS) or "none"), file=sys.stderr)


def render(rows):
    out = ["| # | case — how — expected after | before | after |", "|---|---|---|---|"]
    for num, (group, name, how, expect, cells) in zip(numbers(rows), rows):
        case = name + (" — " + how if how else "") + " — *expected:* " + expect
        after, ok = cells["new"]
        out.append("| %s | %s | %s | %s %s |" % (num, case, cells["old"][0],
                                                "✅" if ok else "❌", after))
    return "\n".join(out) + "\n"


def numbers(rows):
    """Each row's number within its group: 1.1, 1.2, 2.1, …"""
    seen = {}
    out = []
    for row in rows:
        seen[row[0]] = seen.get(row[0], 0) + 1
        out.append("%s.%d" % (row[0], seen[row[0]]))
    return out


def readme(table, rows, args, secs):
    misses = [(num, row[1]) for num, row in zip(numbers(rows), rows) if not row[4]["new"][1]]
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    lines = [
        "# Hostile and careless inputs, before and after",
        "",
        "`bench/edges/run.sh [--old REV] [--new REV]` (default old = cc0bd12, new = HEAD) builds",
        "`nsvm` at both revisions (`git archive` into a temporary directory), makes every input",
        "at run time in a scratch directory and runs each case below against both binaries, one",
        "process at a time (`edges.py`, Python 3 with NumPy and SciPy for the sparse `.npz`).",
        "Every process runs in its own process group under a watchdog that kills the group when",
        "its resident memory passes %s, its directory %s or %d s pass. Peak RSS is the kernel's" % (
            human(LIMITS["rss"]), human(LIMITS["disk"]), LIMITS["time"]),
        "maximum resident set size as `/usr/bin/time` reports it (for a killed process, its last",
        "VmHWM); stderr is quoted to its first 100 bytes (scratch paths shortened to `$dir` and",
        "`$fx`, the fixtures) with its total length.",
        "Outputs never leave the scratch directory: `full` is a device node made there",
        "(`mknod full c 1 7`), and `/dev/null` and `/dev/full` are checked after every process",
        "(recreated if replaced). A cell ends with what survived: the device, the link and its",
        "target's mode, the input, stray temporaries. In the after column, ✅ marks the expected",
        "outcome and ❌ a case the new binary still gets wrong. The memory bound is the one asked",
        "of the readers: 4× the input file's size + 200 MB. `--only REGEXP` runs the cases whose",
        "name matches (without writing this file); `--keep` keeps the scratch directory.",
        "",
        "The server's hostile requests are measured by `bench/serve/abuse.sh`: see",
        "[bench/serve/README.md](../serve/README.md#hostile-requests-memory-against---max-memory).",
        "",
        "Notes on the cases. The small models are trained with `%s` on 300 generated Ringnorm" % (
            " ".join(SMO)),
        "rows, so that a case takes a fraction of a second; each binary predicts with a model it",
        "trained itself (the bit flips too: the new file carries a checksum, the old one none). At",
        "cadcffd `--checkpoint ck` alone writes no checkpoint (its default interval is not wired",
        "through), so the old binary's checkpoint is made with `--checkpoint-every 100` (the cell",
        "says so). The old binary reads a LIBSVM model's support vector at index 2^30 into a dense",
        "row in some runs and not in others, so cases 2.5 and 2.6 run five times and show the run",
        "of largest peak. The default `train` of case 2.9 selects for up to 10 minutes; the cap",
        "stops it at 60 s and the cell gives the memory it had reached.",
        "",
        "Group 6 is what data claim or imply. Its bound is the same but for compressed input",
        "that is legitimately large (the gzip bombs of valid rows, the .npz of a 1 GB array),",
        "held to 1 GiB; the 2.5 GB bomb's training has a cap of 300 s. The SIGTERM cases time",
        "the exit from the signal (2 s allowed). The Python process's own cases, which this",
        "harness does not run, are `python/tests/test_hostile.py`: a 5000-class fit raises",
        "MemoryError (before, Go's fatal error aborted the interpreter), `nsvm.load(\"/dev/zero\")`",
        "and a named pipe raise ValueError at once, a predict beside a refit in another thread",
        "sees one fit, a feature or target beyond float32 is named as too large.",
        "",
        "## Results (%s, %d cores shared with other work, %s RAM, %s; %.0f s in all)" % (
            cpu, os.cpu_count(), human(mem), datetime.date.today().isoformat(), secs),
        "",
        "Before = %s, after = %s." % (args.old_rev, args.new_rev),
        "",
        table,
    ]
    if misses:
        lines += ["Not as expected on the new binary: " + "; ".join(
            "%s (%s)" % m for m in misses) + ".", ""]
    else:
        lines += ["Every case behaves as expected on the new binary.", ""]
    lines += ["/dev/null and /dev/full after the run: %s; repaired during it: %s." % (
        devices_line(), ", ".join(REPAIRS) or "never"), ""]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
