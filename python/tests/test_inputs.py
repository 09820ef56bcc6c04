"""Inputs (dtypes, orders, sparse matrices, DataFrames), threads, progress,
interruption, files and errors."""

import os
import signal
import threading
import time
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification, make_regression

import nsvm


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=500, n_features=10, n_informative=6, n_classes=3, random_state=1)
    return X[:300], y[:300], X[300:], y[300:]


@pytest.fixture(scope="module")
def fitted(data):
    X, y, _, _ = data
    return nsvm.NSVMClassifier(algorithm="smo", probability=True).fit(X, y)


def test_dtypes_and_orders(data, fitted):
    """Any float or int dtype in either order, and lists, predict what
    float64 rows in C order predict; the fit does not depend on them."""
    X, y, Xt, _ = data
    want = fitted.decision_function(Xt)
    for x in (Xt.astype(np.float32), np.asfortranarray(Xt), np.asfortranarray(Xt.astype(np.float32)), Xt[:, ::1].copy(), Xt.tolist()):
        np.testing.assert_allclose(fitted.decision_function(x), want, rtol=1e-6)
    sliced = np.hstack([Xt, Xt])[:, :10]  # neither C- nor Fortran-contiguous
    np.testing.assert_allclose(fitted.decision_function(sliced), want, rtol=1e-6)
    ints = np.round(X * 10).astype(np.int32)
    a = nsvm.NSVMClassifier(algorithm="smo").fit(ints, y).model_.to_bytes()
    b = nsvm.NSVMClassifier(algorithm="smo").fit(np.asfortranarray(ints.astype(np.float64)), y.astype(np.float32)).model_.to_bytes()
    assert a == b


def test_outputs(data, fitted):
    X, y, Xt, yt = data
    p = fitted.predict(Xt)
    assert p.dtype == y.dtype and set(p) <= {0, 1, 2}
    assert fitted.score(Xt, yt) > 0.7
    scores = fitted.decision_function(Xt)  # one-vs-one votes
    assert scores.shape == (200, 3)
    np.testing.assert_array_equal(fitted.classes_[scores.argmax(axis=1)], p)
    proba = fitted.predict_proba(Xt)
    np.testing.assert_allclose(proba.sum(axis=1), 1, rtol=1e-9)
    np.testing.assert_allclose(fitted.predict_log_proba(Xt), np.log(proba))
    ovo = nsvm.NSVMClassifier(algorithm="smo", decision_function_shape="ovo").fit(X, y)
    assert ovo.decision_function(Xt).shape == (200, 3)  # 3 pairs
    binary = nsvm.NSVMClassifier(algorithm="smo").fit(X, y == 2)
    dec = binary.decision_function(Xt)
    assert dec.shape == (200,) and list(binary.classes_) == [False, True]
    np.testing.assert_array_equal(binary.predict(Xt), dec >= 0)
    assert not hasattr(nsvm.NSVMClassifier().fit(X, y == 2), "predict_proba")
    sel = nsvm.NSVMClassifier(folds=3).fit(X, y).selection_
    assert sel["validation"] == "3-fold" and sel["metric"] == "accuracy" and len(sel["candidates"]) > 10
    assert all(c["seconds"] > 0 for c in sel["candidates"]) and sel["selected"] == sel["candidates"][sel["winner"]]["name"]


def test_sparse_never_dense():
    """Wide sparse rows reach the library as they are, as nsvm train keeps
    those of LIBSVM text: 2·10⁶ columns would need gigabytes dense."""
    rng = np.random.RandomState(0)
    n, d = 400, 2_000_000
    y = rng.choice([0, 1], size=n)
    cols = np.concatenate([rng.choice(d, size=(n, 20)), (y * 7 + rng.choice(3, size=n))[:, None]], axis=1)
    X = sp.csr_matrix((np.ones(n * 21), np.sort(cols, axis=1).ravel(), np.arange(0, n * 21 + 1, 21)), shape=(n, d))
    X.sum_duplicates()
    est = nsvm.NSVMClassifier(algorithm="linear", C=1).fit(X, y)
    assert est.n_features_in_ == d
    assert est.score(X, y) > 0.9
    np.testing.assert_array_equal(est.predict(X.tocsc()), est.predict(X))
    np.testing.assert_array_equal(est.predict(X[:5].astype(np.float32)), est.predict(X[:5]))


def test_sparse_and_dense_rows_predict_alike(data, fitted):
    _, _, Xt, _ = data
    np.testing.assert_allclose(fitted.predict_proba(sp.csr_matrix(Xt)), fitted.predict_proba(Xt), rtol=1e-6)


def frame(n, seed):
    rng = np.random.RandomState(seed)
    color = rng.choice(["red", "green", "blue"], size=n)
    size = rng.normal(size=n)
    X = pd.DataFrame({"color": pd.Categorical(color), "size": size, "flag": rng.rand(n) < 0.5, "id": [f"row{i}" for i in range(n)]})
    y = np.where((color == "red") ^ (size > 0.5), "yes", "no")
    return X, y


def test_dataframe_text_columns():
    X, y = frame(300, 1)
    with pytest.warns(UserWarning, match="left out"):
        est = nsvm.NSVMClassifier(algorithm="smo").fit(X, y)  # "id" is an identifier
    assert list(est.feature_names_in_) == ["color", "size", "flag", "id"] and est.n_features_in_ == 4
    cols = est.model_.info["columns"]
    assert cols[0]["categories"] == ["blue", "green", "red"] and cols[2]["categories"] == ["False", "True"] and cols[3]["dropped"]
    assert est.score(X, y) > 0.9
    Xt, yt = frame(100, 2)
    Xt["color"] = Xt["color"].astype(object)
    Xt.loc[0, "color"] = "purple"  # not seen in training: zeros
    p = est.predict(Xt)
    assert set(p) <= {"yes", "no"} and (p[1:] == yt[1:]).mean() > 0.85
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        np.testing.assert_array_equal(est.predict(Xt.to_numpy()), p)
    with pytest.raises(ValueError, match="feature names"):
        est.predict(Xt.rename(columns={"size": "weight"}))


def test_dataframe_missing_values():
    X, y = frame(200, 3)
    X = X.drop(columns="id")
    X.loc[5, "size"] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        nsvm.NSVMClassifier(algorithm="smo").fit(X.assign(color=X["color"].cat.codes, flag=X["flag"].astype(float)), y)
    with pytest.raises(ValueError, match="data frame, row 5: empty value in column (1 |\"size\").*; fill_missing=True fills"):
        nsvm.NSVMClassifier(algorithm="smo").fit(X, y)
    est = nsvm.NSVMClassifier(algorithm="smo", fill_missing=True).fit(X, y)
    fill = est.model_.info["columns"][1]["fill"]
    assert fill == pytest.approx(X["size"].mean(), rel=1e-6)
    Xt = X.iloc[:10].copy()
    Xt.loc[5, "size"] = fill
    np.testing.assert_array_equal(est.predict(X.iloc[:10]), est.predict(Xt))


def churn_frame(n, seed):
    """A churn table: a signup date (datetime64) that decides the label, a plan and a number."""
    rng = np.random.RandomState(seed)
    day = rng.randint(0, 700, size=n)
    X = pd.DataFrame({
        "signup": pd.Timestamp("2021-01-01") + pd.to_timedelta(day, unit="D"),
        "plan": rng.choice(["basic", "pro"], size=n),
        "spend": np.round(rng.normal(20, 5, size=n), 2),
    })
    return X, np.where(day > 450, "churn", "stay")


def test_dataframe_dates():
    X, y = churn_frame(300, 6)
    est = nsvm.NSVMClassifier(algorithm="smo", C=10).fit(X, y)
    cols = est.model_.info["columns"]
    assert cols[0]["dates"] == "YYYY-MM-DD" and "categories" not in cols[0]
    assert est.model_.info["n_inputs"] == 7 and est.n_features_in_ == 3
    Xt, yt = churn_frame(100, 7)
    p = est.predict(Xt)
    assert (p == yt).mean() > 0.9
    # The same rows as an object array: dates as date objects, or as text.
    raw = Xt.to_numpy(dtype=object)
    raw[:, 0] = [d.date() for d in Xt["signup"]]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "X does not have valid feature names")
        np.testing.assert_array_equal(est.predict(raw), p)
        raw[:, 0] = [d.strftime("%Y-%m-%d") for d in Xt["signup"]]
        np.testing.assert_array_equal(est.predict(raw), p)
        raw[3, 0] = "03/02/2022"
        with pytest.raises(ValueError, match=r"row 3: value \"03/02/2022\" in column \"signup\" is not a date"):
            est.predict(raw)
    # One date in another format among text dates: an error naming its row.
    Xs = X.assign(signup=X["signup"].dt.strftime("%Y-%m-%d"))
    Xs.loc[17, "signup"] = "03/02/2022"
    with pytest.raises(ValueError, match=r"value \"03/02/2022\" in column \"signup\" \(row 17\) is not a date of the format"):
        nsvm.NSVMClassifier(algorithm="smo").fit(Xs, y)
    # A missing date (NaT): an error, or the means of its features.
    X.loc[4, "signup"] = pd.NaT
    with pytest.raises(ValueError, match="row 4: empty value in column \"signup\", a column of dates; fill_missing=True"):
        nsvm.NSVMClassifier(algorithm="smo").fit(X, y)
    est = nsvm.NSVMClassifier(algorithm="smo", fill_missing=True).fit(X, y)
    fill = est.model_.info["columns"][0]["date_fill"]
    days = (X["signup"].drop(index=4) - pd.Timestamp("1970-01-01")).dt.days
    assert len(fill) == 4 and fill[0] == pytest.approx(days.mean(), rel=1e-6)
    # Timestamps with an offset: the instant they name.
    Xz = Xt.assign(signup=Xt["signup"].dt.tz_localize("UTC").dt.tz_convert("Asia/Tokyo"))
    np.testing.assert_array_equal(est.predict(Xz), est.predict(Xt))


def test_eight_threads(data, fitted):
    """Predictions from 8 threads at once equal one thread's."""
    _, _, Xt, _ = data
    big = np.tile(Xt, (20, 1))
    want = fitted.predict_proba(big)
    got = [None] * 8
    start = threading.Barrier(8)

    def work(i):
        start.wait()
        got[i] = fitted.predict_proba(big)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for g in got:
        np.testing.assert_array_equal(g, want)


def test_regressor_and_one_class(tmp_path):
    X, y = make_regression(n_samples=300, n_features=5, noise=1, random_state=2)
    reg = nsvm.NSVMRegressor(algorithm="smo", epsilon=0).fit(X[:200], y[:200])
    assert reg.model_.info["task"] == "regression" and reg.model_.info["info"]["epsilon"] == "0"
    assert reg.score(X[200:], y[200:]) > 0.8
    reg.save(tmp_path / "reg.nsvm")
    back = nsvm.load(tmp_path / "reg.nsvm")
    assert isinstance(back, nsvm.NSVMRegressor)
    np.testing.assert_array_equal(back.predict(X), reg.predict(X))
    rng = np.random.RandomState(0)
    inliers = rng.normal(size=(200, 3))
    oc = nsvm.NSVMOneClass(nu=0.1).fit(inliers)
    test = np.vstack([rng.normal(size=(50, 3)), rng.normal(size=(50, 3)) + 6])
    p = oc.predict(test)
    assert (p[50:] == -1).all() and (p[:50] == 1).mean() > 0.8
    np.testing.assert_allclose(oc.score_samples(test) - oc.offset_, oc.decision_function(test))
    oc.save(tmp_path / "oc.nsvm")
    assert isinstance(nsvm.load(tmp_path / "oc.nsvm"), nsvm.NSVMOneClass)


def test_chance_level_warns():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(200, 4))
    y = rng.choice([0, 1], size=200, p=[0.6, 0.4])
    with pytest.warns(nsvm.NSVMChanceLevelWarning, match="learned nothing"):
        est = nsvm.NSVMClassifier(algorithm="smo", C=0.001, class_weight="none").fit(X, y)
    assert est.predict(X).shape == (200,)  # the model is kept


def test_labels_differing_in_case_warn():
    X, y = make_classification(n_samples=120, n_features=4, random_state=5)
    names = np.where(y == 1, "yes", "no").astype(object)
    names[::7] = np.where(y[::7] == 1, "Yes", "no")
    with pytest.warns(UserWarning, match="labels 'Yes' and 'yes' differ only in case: they are two classes"):
        est = nsvm.NSVMClassifier(algorithm="smo").fit(X, names)
    assert list(est.classes_) == ["Yes", "no", "yes"]


def test_progress(data, capsys):
    X, y, _, _ = data
    reports = []
    nsvm.NSVMClassifier(folds=3, callback=reports.append, verbose=1).fit(X, y)
    stages = [r["stage"] for r in reports]
    assert stages.count("select") > 10 and "fit" in stages
    assert all(r["done"] <= r["total"] for r in reports if r["stage"] == "select")
    out = capsys.readouterr().out
    assert out.count("candidate ") == stages.count("select") and "training smo" in out

    def stop(r):
        return len(reports) < 3 and reports.append(r) is None

    reports.clear()
    with pytest.raises(nsvm.FitStopped):
        nsvm.NSVMClassifier(callback=stop).fit(X, y)
    assert len(reports) == 3

    def boom(r):
        raise KeyError("from the callback")

    with pytest.raises(KeyError, match="from the callback"):
        nsvm.NSVMClassifier(callback=boom).fit(X, y)


def test_interrupt_stops_fit():
    """Ctrl-C during a long fit stops it promptly."""
    X, y = make_classification(n_samples=2000, n_features=20, random_state=0)
    # A process started in the background of a shell starts with SIGINT
    # ignored, and Python then leaves it so: Ctrl-C's handler is set here.
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
        start = time.monotonic()
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            nsvm.NSVMClassifier(algorithm="nsvm4", steps=10**7).fit(X, y)
        assert time.monotonic() - start < 10
    finally:
        signal.signal(signal.SIGINT, old)


def test_errors(data, fitted, tmp_path):
    X, y, Xt, _ = data
    bad = Xt.copy()
    bad[3, 2] = np.inf
    with pytest.raises(ValueError, match="row 3, feature 2: value is \\+Inf"):
        fitted.predict(bad)
    with pytest.raises(ValueError, match="X has 9 features, but NSVMClassifier is expecting 10"):
        fitted.predict(Xt[:, :9])
    for params, msg in [({"kernel": "cubic"}, "unknown kernel"), ({"C": -1}, "C must be a finite number > 0"),
                        ({"algorithm": "svm"}, "unknown algorithm"), ({"budget": -1}, "budget")]:
        with pytest.raises(ValueError, match=msg):
            nsvm.NSVMClassifier(**params).fit(X, y)
    with pytest.raises(ValueError, match="sample weight"):
        nsvm.NSVMClassifier(algorithm="smo").fit(X, y, sample_weight=-np.ones(len(y)))
    with pytest.raises(ValueError, match="holds ',' or ':'"):
        nsvm.NSVMClassifier(class_weight={"a:b": 2}).fit(X, np.where(y == 0, "a:b", "c"))
    (tmp_path / "junk.nsvm").write_bytes(b"not a model")
    with pytest.raises(ValueError):
        nsvm.load(tmp_path / "junk.nsvm")
    with pytest.raises(FileNotFoundError):
        nsvm.load(tmp_path / "missing.nsvm")
    with pytest.raises(RuntimeError):
        fitted.save(tmp_path / "no" / "such" / "dir" / "m.nsvm")
    assert not (tmp_path / "no").exists()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nsvm.NSVMClassifier(algorithm="smo", class_weight={0: 2, 1: 1, 2: 1}, random_state=np.random.RandomState(3)).fit(X, y)
