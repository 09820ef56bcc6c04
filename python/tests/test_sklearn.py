"""scikit-learn's estimator contract, and the estimators inside its tools."""

import copy
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import check_sample_weights_invariance, parametrize_with_checks

import nsvm


@parametrize_with_checks([nsvm.NSVMClassifier(), nsvm.NSVMClassifier(probability=True), nsvm.NSVMRegressor(), nsvm.NSVMOneClass()])
def test_check_estimator(estimator, check):
    # check_sample_weights_invariance is marked xfail by the estimators' tags
    # (its reason is nsvm._estimators._ZERO_WEIGHTS); its kind="ones" half
    # runs below.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", nsvm.NSVMChanceLevelWarning)
        check(estimator)


def test_sample_weights_ones():
    """Weights of 1 are no weights (check_sample_weights_invariance, kind="ones")."""
    check_sample_weights_invariance("NSVMClassifier", nsvm.NSVMClassifier(), kind="ones")


@pytest.fixture(scope="module")
def blobs():
    X, y = make_classification(n_samples=400, n_features=6, n_informative=4, random_state=0)
    return X[:300], y[:300], X[300:], y[300:]


def test_pipeline_grid_search_cross_val(blobs):
    X, y, Xt, yt = blobs
    pipe = make_pipeline(StandardScaler(), nsvm.NSVMClassifier(algorithm="smo", C=1))
    assert pipe.fit(X, y).score(Xt, yt) > 0.85
    grid = GridSearchCV(nsvm.NSVMClassifier(gamma=0.1), {"C": [0.1, 1, 10], "algorithm": ["smo", "linear"]}, cv=3, n_jobs=2)
    grid.fit(X, y)
    assert grid.best_params_["algorithm"] in ("smo", "linear")
    assert len(grid.cv_results_["mean_test_score"]) == 6
    assert grid.score(Xt, yt) > 0.8
    scores = cross_val_score(nsvm.NSVMClassifier(algorithm="smo"), X, y, cv=4)
    assert scores.shape == (4,) and scores.mean() > 0.85


def test_grid_over_gamma_keeps_the_scaling():
    """GridSearchCV over C and gamma on unscaled features (breast_cancer's,
    from 0.001 to 4000): a pinned gamma is in the units of the scaled inputs,
    so the grid finds a good model, not a chance-level one."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split

    X, y = load_breast_cancer(return_X_y=True)
    X, Xt, y, yt = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", nsvm.NSVMChanceLevelWarning)
        grid = GridSearchCV(nsvm.NSVMClassifier(algorithm="smo"), {"C": [0.1, 1, 10], "gamma": [0.01, 0.03, 0.1]}, cv=3)
        grid.fit(X, y)
    assert grid.score(Xt, yt) >= 0.95
    # Pinned as svm-train takes them, the same γ on unscaled inputs learns little.
    raw = nsvm.NSVMClassifier(algorithm="smo", C=1, gamma=0.1, scaling="none")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", nsvm.NSVMChanceLevelWarning)
        assert raw.fit(X, y).score(Xt, yt) < 0.8


def test_pickle_in_a_fresh_process(blobs, tmp_path):
    X, y, Xt, _ = blobs
    est = nsvm.NSVMClassifier(algorithm="smo", probability=True).fit(X, y)
    (tmp_path / "est.pkl").write_bytes(pickle.dumps(est))
    np.save(tmp_path / "x.npy", Xt)
    code = (
        "import pickle, sys, numpy as np\n"
        f"est = pickle.loads(open({str(tmp_path / 'est.pkl')!r}, 'rb').read())\n"
        f"x = np.load({str(tmp_path / 'x.npy')!r})\n"
        f"np.save({str(tmp_path / 'p.npy')!r}, est.predict_proba(x))\n"
        f"np.save({str(tmp_path / 'y.npy')!r}, est.predict(x))\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), est.predict(Xt))
    np.testing.assert_array_equal(np.load(tmp_path / "p.npy"), est.predict_proba(Xt))
    # The pickle holds the model file's bytes.
    assert est.model_.to_bytes() in pickle.dumps(est)


def test_clone_and_deepcopy(blobs):
    X, y, Xt, _ = blobs
    est = nsvm.NSVMClassifier(C=3, algorithm="smo", class_weight={0: 2, 1: 1}).fit(X, y)
    fresh = clone(est)
    assert fresh.get_params() == est.get_params() and not hasattr(fresh, "model_")
    dup = copy.deepcopy(est)
    assert dup.model_ is not est.model_ and dup.model_.handle != est.model_.handle
    assert dup.model_.to_bytes() == est.model_.to_bytes()
    np.testing.assert_array_equal(dup.decision_function(Xt), est.decision_function(Xt))
    assert fresh.fit(X, y).model_.to_bytes() == est.model_.to_bytes()
