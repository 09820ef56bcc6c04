"""partial_fit: a model that keeps learning from the chunks of a stream."""

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification

import nsvm


def rings(n, seed):
    """Two classes: a ball inside a shell (not linearly separable)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    x = rng.normal(size=(n, 4))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    x *= np.where(y == 1, 2.0, 0.8)[:, None] + 0.25 * rng.normal(size=(n, 1))
    return x, y


@pytest.fixture(scope="module")
def stream():
    x, y = rings(3400, 1)
    return x[:3000], y[:3000], x[3000:], y[3000:]


def chunks(x, y, size):
    for lo in range(0, len(y), size):
        yield x[lo : lo + size], y[lo : lo + size]


def test_first_call_needs_classes(stream):
    x, y, _, _ = stream
    with pytest.raises(ValueError, match="classes must be passed"):
        nsvm.NSVMClassifier().partial_fit(x[:300], y[:300])
    with pytest.raises(ValueError, match="must hold every class"):
        nsvm.NSVMClassifier().partial_fit(x[:300], y[:300], classes=[0, 1, 2])


def test_partial_fit_learns_and_records(stream):
    x, y, xt, yt = stream
    clf = nsvm.NSVMClassifier(random_state=3, sv_budget=100)
    assert clf.partial_fit(x[:300], y[:300], classes=[0, 1]) is clf
    first = clf.score(xt, yt)
    for xc, yc in chunks(x[300:], y[300:], 300):
        clf.partial_fit(xc, yc)
    info = clf.model_.info
    assert clf.score(xt, yt) >= first - 0.01
    assert clf.score(xt, yt) > 0.9
    assert info["info"]["seen_rows"] == "3000" and info["info"]["seen_chunks"] == "10"
    assert info["n_support"] <= 100
    np.testing.assert_array_equal(clf.classes_, [0, 1])


def test_pickled_midstream_continues_alike(stream):
    x, y, xt, _ = stream
    a = nsvm.NSVMClassifier(random_state=2)
    parts = list(chunks(x, y, 500))
    a.partial_fit(*parts[0], classes=[0, 1])
    a.partial_fit(*parts[1])
    b = pickle.loads(pickle.dumps(a))
    for xc, yc in parts[2:]:
        a.partial_fit(xc, yc)
        b.partial_fit(xc, yc)
    np.testing.assert_array_equal(a.predict(xt), b.predict(xt))
    np.testing.assert_allclose(a.decision_function(xt), b.decision_function(xt))


def test_partial_fit_after_fit_continues(stream):
    x, y, xt, yt = stream
    clf = nsvm.NSVMClassifier(algorithm="smo", C=1.0, gamma=0.5).fit(x[:500], y[:500])
    clf.partial_fit(x[500:1500], y[500:1500])
    assert clf.model_.info["info"]["seen_chunks"] == "2"
    assert clf.score(xt, yt) > 0.9


def test_mismatches_are_errors(stream):
    x, y, _, _ = stream
    clf = nsvm.NSVMClassifier(algorithm="smo").partial_fit(x[:300], y[:300], classes=[0, 1])
    with pytest.raises(ValueError, match="class 7"):
        clf.partial_fit(x[:3], np.array([0, 1, 7]))
    with pytest.raises(ValueError, match="features"):
        clf.partial_fit(x[:10, :3], y[:10])
    with pytest.raises(ValueError, match="not classes_"):
        clf.partial_fit(x[:10], y[:10], classes=[0, 1, 2])
    frame = pd.DataFrame(x[:300], columns=["a", "b", "c", "d"])
    named = nsvm.NSVMClassifier(algorithm="smo").partial_fit(frame, y[:300], classes=[0, 1])
    with pytest.raises(ValueError, match="feature names"):
        named.partial_fit(frame.rename(columns={"a": "z"}), y[:300])
    named.partial_fit(frame, y[:300])


def test_named_classes():
    x, y = make_classification(n_samples=900, n_features=5, n_informative=3, n_classes=3, random_state=4)
    names = np.array(["ant", "bee", "cat"], dtype=object)[y]
    clf = nsvm.NSVMClassifier(algorithm="smo")
    clf.partial_fit(x[:300], names[:300], classes=["ant", "bee", "cat"])
    clf.partial_fit(x[300:600], names[300:600])
    assert set(clf.predict(x[600:])) <= {"ant", "bee", "cat"}
    assert clf.score(x[600:], names[600:]) > 0.6
    with pytest.raises(ValueError, match="dog"):
        clf.partial_fit(x[:2], np.array(["ant", "dog"], dtype=object))


def test_regressor_partial_fit():
    rng = np.random.default_rng(5)
    x = rng.uniform(-2, 2, size=(2000, 3))
    y = np.sin(x[:, 0]) + 0.5 * x[:, 1]
    reg = nsvm.NSVMRegressor(algorithm="smo", C=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", nsvm.NSVMChanceLevelWarning)
        for lo in range(0, 1500, 500):
            assert reg.partial_fit(x[lo : lo + 500], y[lo : lo + 500]) is reg
    assert reg.model_.info["info"]["seen_rows"] == "1500"
    assert np.all(np.isfinite(reg.predict(x[1500:])))
    assert reg.score(x[1500:], y[1500:]) > 0.5
