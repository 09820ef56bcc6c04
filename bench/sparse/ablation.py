#!/usr/bin/env python3
"""The measurements behind two choices of nsvm's linear search on text.

  ablation.py copies SET [SET ...]
      How near the validation rows of a random 20 % hold-out of SET's
      training file are to its other rows, against its test rows (quantiles
      of the largest cosine to a training row), and LinearSVC's hold-out
      accuracy at C = 0.316, 1, 3.16 on every row and on the rows without a
      near copy (cosine ≥ 0.9) in the training part: why the search leaves
      near copies out of validation (search/nearcopy.go).
  ablation.py losses SET [SET ...]
      LinearSVC(C=1)'s test accuracy with the squared hinge (l2), the hinge
      (l1), and the mean of the two models' decision values: the mean that
      `nsvm train --linear-loss l2+l1` fits, tried as the default and dropped.

SET names a directory of $NSVM_BENCH_DIR (default /tmp/nsvm-bench) holding
train.libsvm and test.libsvm, as bench/sparse/run.sh makes them.
"""
import os, sys

import numpy as np
from sklearn.datasets import load_svmlight_files
from sklearn.model_selection import train_test_split
from sklearn.svm import LinearSVC

DIR = os.environ.get("NSVM_BENCH_DIR", "/tmp/nsvm-bench")


def load(name):
    d = os.path.join(DIR, name)
    return load_svmlight_files([os.path.join(d, "train.libsvm"), os.path.join(d, "test.libsvm")])


def nearest(X, Y):
    """The largest cosine of each row of X to a row of Y (rows unit-norm)."""
    YT = Y.T.tocsc()
    out = np.zeros(X.shape[0])
    for s in range(0, X.shape[0], 500):
        out[s:s + 500] = (X[s:s + 500] @ YT).max(axis=1).toarray().ravel()
    return out


def accuracy(clf, X, y):
    return 100 * (clf.predict(X) == y).mean()


def copies(name):
    Xtr, ytr, Xte, yte = load(name)
    Xa, Xv, ya, yv = train_test_split(Xtr, ytr, test_size=0.2, random_state=1)
    q = [0.1, 0.25, 0.5, 0.75, 0.9]
    mv, mt = nearest(Xv, Xa), nearest(Xte, Xtr)
    print(f"{name}: largest cosine to a training row, quantiles {q}")
    print(f"  random hold-out rows {np.quantile(mv, q).round(3)}; {100 * (mv >= 0.9).mean():.0f} % at 0.9 or more")
    print(f"  test rows            {np.quantile(mt, q).round(3)}; {100 * (mt >= 0.9).mean():.0f} % at 0.9 or more")
    novel = mv < 0.9
    for c in [0.316, 1, 3.16]:
        m = LinearSVC(C=c).fit(Xa, ya)
        print(f"  LinearSVC(C={c}) hold-out accuracy: all {accuracy(m, Xv, yv):.2f} %, without near copies {accuracy(m, Xv[novel], yv[novel]):.2f} %")


def losses(name):
    Xtr, ytr, Xte, yte = load(name)
    l2 = LinearSVC(C=1).fit(Xtr, ytr)
    l1 = LinearSVC(C=1, loss="hinge", max_iter=3000).fit(Xtr, ytr)
    d2, d1 = l2.decision_function(Xte), l1.decision_function(Xte)

    def acc(dec):
        if dec.ndim > 1:
            return 100 * (l2.classes_[dec.argmax(1)] == yte).mean()
        return 100 * ((dec > 0) == (yte == l2.classes_[1])).mean()
    print(f"{name}: LinearSVC(C=1) test accuracy: l2 {acc(d2):.2f} %, l1 {acc(d1):.2f} %, mean {acc(d2 + d1):.2f} %")


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("copies", "losses"):
        sys.exit(__doc__)
    for name in sys.argv[2:]:
        {"copies": copies, "losses": losses}[sys.argv[1]](name)
