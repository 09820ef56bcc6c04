#!/usr/bin/python3
"""Reference classifiers for Ringnorm: how far can any classifier get?

Ringnorm's coordinates are independent given the class, so the Bayes rule
is a sum over the 20 coordinates of log p1(x_i) - log p2(x_i). This script
estimates it with "naive Bayes" on a kernel density estimate of the one
dimensional marginal of each class (all 20 coordinates pooled: they share
one distribution), next to QDA (the Bayes rule if both classes are
Gaussian) and an RBF-SVM (gamma 0.05, C = 1).

Usage:
    nsvm reproduce ringnorm --algo 4 --seeds 5 --data ringnorm.csv --save-splits /tmp/splits
    /usr/bin/python3 bench/ringnorm_bayes.py /tmp/splits [--file ringnorm.csv]

It prints the test accuracy of each reference on each saved split (the
splits `nsvm reproduce` uses, standardized), their means, and with --file a
10-fold cross-validated accuracy over all rows of the file, which does not
depend on the choice of five splits. Needs numpy, scipy and scikit-learn
(Debian: python3-scipy, python3-sklearn).
"""
import argparse
import glob
import os

import numpy as np
from scipy.stats import gaussian_kde
from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis
from sklearn.svm import SVC

BANDWIDTH = 0.05  # Scott's factor of gaussian_kde; 0.03-0.1 give the same accuracy to 0.1 %


def naive_bayes_kde(xtr, ytr, xte):
    """Predicts with the product of per-class KDE marginals (pooled over
    coordinates) and the class priors."""
    classes = np.unique(ytr)
    grid = np.linspace(-8, 8, 3201)
    ll = np.zeros((len(xte), len(classes)))
    for k, c in enumerate(classes):
        kde = gaussian_kde(xtr[ytr == c].ravel(), bw_method=BANDWIDTH)
        logp = np.log(kde(grid) + 1e-300)
        ll[:, k] = np.interp(xte, grid, logp).sum(axis=1) + np.log(np.mean(ytr == c))
    return classes[ll.argmax(axis=1)]


def references(xtr, ytr, xte, yte):
    out = {}
    out["naive Bayes (KDE)"] = np.mean(naive_bayes_kde(xtr, ytr, xte) == yte)
    out["QDA"] = np.mean(QuadraticDiscriminantAnalysis().fit(xtr, ytr).predict(xte) == yte)
    out["RBF-SVM (gamma 0.05, C 1)"] = np.mean(SVC(C=1, gamma=0.05).fit(xtr, ytr).predict(xte) == yte)
    return out


def load_split(d):
    tr = np.loadtxt(os.path.join(d, "train.csv"), delimiter=",", skiprows=1)
    te = np.loadtxt(os.path.join(d, "test.csv"), delimiter=",", skiprows=1)
    return tr[:, 1:], tr[:, 0], te[:, 1:], te[:, 0]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("splits", help="directory written by nsvm reproduce --save-splits")
    ap.add_argument("--file", help="the Ringnorm CSV (label last, header row) for 10-fold cross-validation")
    a = ap.parse_args()
    dirs = sorted(glob.glob(os.path.join(a.splits, "split*")), key=lambda p: int(p.rsplit("split", 1)[1]))
    if not dirs:
        raise SystemExit("ringnorm_bayes: no split*/ directories in %s" % a.splits)
    acc = {}
    for d in dirs:
        r = references(*load_split(d))
        print("%-8s " % os.path.basename(d) + "  ".join("%s %.2f %%" % (k, 100 * v) for k, v in r.items()))
        for k, v in r.items():
            acc.setdefault(k, []).append(v)
    for k, v in acc.items():
        print("mean over %d splits: %-26s %.2f ± %.2f %%" % (len(v), k, 100 * np.mean(v), 100 * np.std(v, ddof=1) if len(v) > 1 else 0))
    if a.file:
        d = np.loadtxt(a.file, delimiter=",", skiprows=1)
        x, y = d[:, :-1], d[:, -1]
        perm = np.random.default_rng(1).permutation(len(y))
        wrong = {}
        for fold in np.array_split(perm, 10):
            tr = np.setdiff1d(perm, fold)
            mu, sd = x[tr].mean(axis=0), x[tr].std(axis=0, ddof=1)
            r = references((x[tr] - mu) / sd, y[tr], (x[fold] - mu) / sd, y[fold])
            for k, v in r.items():
                wrong[k] = wrong.get(k, 0) + round((1 - v) * len(fold))
        for k, v in wrong.items():
            print("10-fold over all %d rows: %-26s %.2f %%" % (len(y), k, 100 * (1 - v / len(y))))


if __name__ == "__main__":
    main()
