"""Hostile inputs in the Python process: whatever the data claim or imply,
the interpreter survives with one clear exception."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import nsvm


def _survives(code, timeout=120):
    """Runs code in a fresh interpreter and returns its result; a Go fatal
    error (an abort) would end it with a signal instead."""
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"the interpreter died ({r.returncode}): {r.stderr[-2000:]}"
    return r.stdout


def test_a_class_a_row_is_refused_not_fatal():
    # As many classes as rows: one-vs-one's heads would need terabytes.
    out = _survives(
        """
        import numpy as np, nsvm
        rng = np.random.default_rng(1)
        X = rng.random((50000, 3))
        y = np.array([f"c{i // 10}" for i in range(50000)])
        try:
            nsvm.NSVMClassifier().fit(X, y)
        except MemoryError as e:
            print("MemoryError:", e)
        """
    )
    assert "MemoryError: nsvm: the data need more memory than the bound: 5000 classes" in out
    assert "--multiclass ovr" in out


def test_load_refuses_what_is_not_a_regular_file(tmp_path):
    with pytest.raises(ValueError, match="not a regular file"):
        nsvm.load("/dev/zero")
    with pytest.raises((ValueError, IsADirectoryError)):
        nsvm.load(tmp_path)
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe"
        os.mkfifo(fifo)
        # Opening a pipe for reading waits for a writer: give it one.
        w = subprocess.Popen(["sh", "-c", f"head -c 100000000 /dev/zero > {fifo}"])
        try:
            with pytest.raises(ValueError, match="not a regular file"):
                nsvm.load(fifo)
        finally:
            w.kill()
            w.wait()


def test_overflowing_values_are_named():
    rng = np.random.default_rng(2)
    X, y = rng.random((200, 3)), rng.random(200)
    bad = X.copy()
    bad[7, 1] = 1e300
    with pytest.raises(ValueError, match="value 1e\\+300 is too large"):
        nsvm.NSVMRegressor(algorithm="smo").fit(bad, y)
    y[57] = 1e300
    with pytest.raises(ValueError, match="row 58's target 1e\\+300 is too large"):
        nsvm.NSVMRegressor(algorithm="smo").fit(X, y)


def test_max_memory_bounds_a_fit():
    rng = np.random.default_rng(3)
    X = rng.random((600, 2))
    y = np.arange(600) % 60
    with pytest.raises(MemoryError, match="60 classes in 600 rows"):
        nsvm.NSVMClassifier(algorithm="smo", max_memory=1 << 20).fit(X, y)


def test_messages_name_the_parameter():
    rng = np.random.default_rng(5)
    X = rng.random((120, 3))
    y = (X[:, 0] > 0.5).astype(int)
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="fill_missing=True"):
        nsvm.NSVMClassifier(algorithm="smo").fit(Xn, y)
    est = nsvm.NSVMClassifier(algorithm="smo").fit(X, y)
    with pytest.raises(ValueError, match="fill_missing=True"):
        est.predict(Xn)
    assert not hasattr(est, "predict_proba")
    with pytest.raises(AttributeError, match="probability=True"):
        est.predict_proba(X)
    # fill_missing fills an array's NaN as a DataFrame's, and the model
    # fills new rows' with the same means.
    filled = nsvm.NSVMClassifier(algorithm="smo", fill_missing=True).fit(Xn, y)
    assert filled.predict(Xn).shape == (120,)
    assert filled.score(X, y) > 0.9


def test_predict_during_refit_sees_one_fit():
    """A predict from one thread while another refits the same estimator
    gives the old fit's answer or the new one's, never a mix (the new
    classes on the old model, say)."""
    import threading

    rng = np.random.default_rng(6)
    X = rng.random((150, 4))
    y = (X[:, 0] + X[:, 1] > 1).astype(int)
    sets = [y, np.where(y == 1, "yes", "no")]
    want = [nsvm.NSVMClassifier(algorithm="smo", C=1).fit(X, ys).predict(X) for ys in sets]
    est = nsvm.NSVMClassifier(algorithm="smo", C=1).fit(X, sets[0])
    stop = threading.Event()
    bad = []

    def refit():
        i = 0
        while not stop.is_set():
            i += 1
            est.fit(X, sets[i % 2])

    t = threading.Thread(target=refit)
    t.start()
    try:
        for _ in range(300):
            got = est.predict(X)
            if not any(got.dtype == w.dtype and np.array_equal(got, w) for w in want):
                bad.append(got[:5])
    finally:
        stop.set()
        t.join()
    assert not bad, f"{len(bad)} predictions mixed two fits, e.g. {bad[0]}"
