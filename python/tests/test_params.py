"""The estimators' parameters derive from the library's one description of
its training parameters (search.Params): a parameter missing here, or in a
docstring, fails."""

import inspect

import numpy as np
import pytest

import nsvm
from nsvm import _lib


def _applies(p, task):
    return p.get("python") and p.get("tasks", "") in ("", task)


@pytest.mark.parametrize("est,task", [(nsvm.NSVMClassifier, "classification"), (nsvm.NSVMRegressor, "regression")])
def test_every_parameter_is_offered_and_documented(est, task):
    sig = inspect.signature(est.__init__).parameters
    doc = inspect.getdoc(est) + "\n" + inspect.getdoc(nsvm.NSVMClassifier)
    for p in _lib.params():
        if not _applies(p, task):
            continue
        assert p["python"] in sig, f"{est.__name__} lacks the parameter {p['python']} ({p['field']})"
        assert p["python"] in doc, f"{est.__name__}'s docstring does not document {p['python']}"


def test_bad_values_name_the_parameter():
    rng = np.random.default_rng(7)
    X, y = rng.random((60, 3)), np.arange(60) % 2
    for params, name in [({"C": -1}, "C"), ({"gamma": -2}, "gamma"), ({"svm_type": "nu-svc", "nu": 2}, "nu"),
                         ({"algorithm": "nope"}, "algorithm"), ({"epochs": -3}, "epochs"), ({"scaling": "bogus"}, "scaling"),
                         ({"cache_size": -1}, "cache_size"), ({"alpha": -1}, "alpha")]:
        with pytest.raises(ValueError, match=name):
            nsvm.NSVMClassifier(**params).fit(X, y)
