"""Images (input_shape): the test-time shifts, pinned or refused."""

import pickle

import numpy as np
import pytest

import nsvm


def strokes(n, seed):
    """n 8×8 grey images of three classes: a horizontal, a vertical or a
    diagonal stroke at a random place, with noise."""
    rng = np.random.default_rng(seed)
    x = (0.3 * rng.random((n, 8, 8))).astype(np.float32)
    y = np.arange(n) % 3
    for i in range(n):
        p = rng.integers(1, 7)
        for k in range(1, 7):
            if y[i] == 0:
                x[i, p, k] += 1
            elif y[i] == 1:
                x[i, k, p] += 1
            else:
                x[i, k, k] += 1
    return x.reshape(n, 64), y


ARCH = "conv(8,3),relu,maxpool(2),flatten,dense(16),relu"


def test_test_augment_pinned():
    x, y = strokes(600, 1)
    xt, yt = strokes(150, 2)
    kw = dict(algorithm="nsvm4", arch=ARCH, input_shape=(1, 8, 8), augment="shift", random_state=0,
              decision_function_shape="ovo")
    shifted = nsvm.NSVMClassifier(test_augment="shift", **kw).fit(x, y)
    plain = nsvm.NSVMClassifier(test_augment="none", **kw).fit(x, y)
    assert shifted.model_.info["test_shift"] == 1
    assert plain.model_.info.get("test_shift", 0) == 0
    assert shifted.score(xt, yt) > 0.9
    # The same network, its features averaged over the shifts or not: the
    # heads' decisions (not their votes) differ.
    assert not np.array_equal(shifted.decision_function(xt), plain.decision_function(xt))
    copy = pickle.loads(pickle.dumps(shifted))
    assert np.array_equal(copy.decision_function(xt), shifted.decision_function(xt))


def test_test_augment_needs_images():
    x, y = strokes(100, 1)
    with pytest.raises(ValueError, match="needs images"):
        nsvm.NSVMClassifier(test_augment="shift").fit(x, y)
    with pytest.raises(ValueError, match="test_augment"):
        nsvm.NSVMClassifier(test_augment="flip", input_shape=(1, 8, 8)).fit(x, y)
