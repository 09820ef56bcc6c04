"""The estimators train what nsvm train trains: the same data and seed give
the same model file, byte for byte; the files go both ways."""

import subprocess
import warnings

import numpy as np
import scipy.sparse as sp
import pandas as pd
import pytest
from sklearn.datasets import load_svmlight_file, make_classification, make_regression

import nsvm


def train(cli, data, model, *flags):
    subprocess.run([cli, "train", "--data", str(data), "--model", str(model), "--quiet", *flags], check=True)
    return model.read_bytes()


def write_csv(path, X, y):
    """X as float32 values in text that reads back exactly, the label last,
    without a header: columns without names (as an array's)."""
    lines = [",".join([f"{v:.9g}" for v in row] + [str(label)]) for row, label in zip(X.astype(np.float32), y)]
    path.write_text("\n".join(lines) + "\n")
    back = pd.read_csv(path, header=None)
    return back.iloc[:, :-1].to_numpy(), back.iloc[:, -1].to_numpy()


@pytest.fixture(scope="module")
def classes(tmp_path_factory):
    d = tmp_path_factory.mktemp("classes")
    X, y = make_classification(n_samples=240, n_features=8, n_informative=5, n_classes=3, random_state=1)
    X, y = write_csv(d / "train.csv", X, y)
    return d, X, y


def test_default_fit_same_model(cli, classes, tmp_path):
    """No flag and no parameter: the search over the same candidates, the same winner, the same bytes."""
    d, X, y = classes
    want = train(cli, d / "train.csv", tmp_path / "cli.nsvm", "--seed", "5")
    est = nsvm.NSVMClassifier(random_state=5).fit(X, y)
    est.save(tmp_path / "py.nsvm")
    assert (tmp_path / "py.nsvm").read_bytes() == want
    assert est.model_.to_bytes() == want
    assert est.selection_["selected"] == est.model_.info["info"]["selected"]
    # random_state None is nsvm train's default seed.
    default = train(cli, d / "train.csv", tmp_path / "cli1.nsvm")
    assert nsvm.NSVMClassifier().fit(X, y).model_.to_bytes() == default


def test_pinned_fit_same_model(cli, classes, tmp_path):
    d, X, y = classes
    want = train(cli, d / "train.csv", tmp_path / "cli.nsvm",
                 "--algo", "smo", "--C", "10", "--gamma", "0.05", "--probability", "--class-weight", "balanced",
                 "--multiclass", "ovr", "--scaling", "global")
    est = nsvm.NSVMClassifier(algorithm="smo", C=10, gamma=0.05, probability=True, class_weight="balanced",
                              multiclass="ovr", scaling="global").fit(X, y)
    assert est.model_.to_bytes() == want


def test_numeric_frame_same_model(cli, tmp_path):
    """A numeric DataFrame read from a CSV file with a header trains what nsvm
    train trains on the file: the model records the same column names and
    label column."""
    X, y = make_classification(n_samples=200, n_features=4, random_state=4)
    frame = pd.DataFrame(X.astype(np.float32), columns=["alcohol", "ash", "hue", "proline"])
    frame["quality"] = y
    path = tmp_path / "wine.csv"
    frame.to_csv(path, index=False, float_format="%.9g")
    want = train(cli, path, tmp_path / "cli.nsvm", "--algo", "smo")
    back = pd.read_csv(path)
    est = nsvm.NSVMClassifier(algorithm="smo").fit(back.drop(columns="quality"), back["quality"])
    assert est.model_.to_bytes() == want
    assert list(est.feature_names_in_) == ["alcohol", "ash", "hue", "proline"]


def test_named_labels_same_model(cli, tmp_path):
    X, y = make_classification(n_samples=150, n_features=5, random_state=2)
    names = np.array(["cat", "dog"])[y]
    X, names = write_csv(tmp_path / "pets.csv", X, names)
    want = train(cli, tmp_path / "pets.csv", tmp_path / "cli.nsvm", "--algo", "smo")
    est = nsvm.NSVMClassifier(algorithm="smo").fit(X, names)
    assert est.model_.to_bytes() == want
    assert list(est.classes_) == ["cat", "dog"]


def test_regression_same_model(cli, tmp_path):
    X, y = make_regression(n_samples=200, n_features=6, noise=5, random_state=3)
    X, y = write_csv(tmp_path / "reg.csv", X, np.round(y, 3))
    want = train(cli, tmp_path / "reg.csv", tmp_path / "cli.nsvm", "--seed", "2")
    est = nsvm.NSVMRegressor(random_state=2).fit(X, y)
    assert est.model_.to_bytes() == want


def test_text_columns_same_model(cli, tmp_path):
    """A DataFrame read from a CSV file with text columns and missing values
    trains what nsvm train --fill-missing trains on the file."""
    rng = np.random.RandomState(4)
    n = 300
    work = rng.choice(["private", "state", "self", "?"], size=n)
    age = rng.randint(18, 80, size=n).astype(object)
    age[rng.rand(n) < 0.05] = ""
    hours = np.round(rng.normal(40, 8, size=n), 1)
    score = (np.where(work == "self", 15, 0) + hours - 40 + rng.normal(0, 5, size=n)) > 0
    label = np.where(score, ">50K", "<=50K")
    pd.DataFrame({"age": age, "workclass": work, "hours": hours, "class": label}).to_csv(tmp_path / "adult.csv", index=False)
    want = train(cli, tmp_path / "adult.csv", tmp_path / "cli.nsvm", "--fill-missing", "--seed", "3")
    frame = pd.read_csv(tmp_path / "adult.csv")
    X, y = frame.drop(columns="class"), frame["class"]
    est = nsvm.NSVMClassifier(fill_missing=True, random_state=3).fit(X, y)
    assert est.model_.to_bytes() == want
    assert list(est.feature_names_in_) == ["age", "workclass", "hours"]
    assert [c.get("categories") for c in est.model_.info["columns"]] == [None, ["?", "private", "self", "state"], None]
    # nsvm predict on the file and the estimator on the frame agree.
    out = subprocess.run([cli, "predict", "--model", str(tmp_path / "cli.nsvm"), "--data", str(tmp_path / "adult.csv")],
                         check=True, capture_output=True, text=True).stdout.split("\n")
    assert [line.split()[0] for line in out if line] == list(est.predict(X))


def test_pandas_index_file(cli, tmp_path):
    """A file DataFrame.to_csv writes with its index trains on the columns
    alone: the model predicts files with the index and without it, as the
    estimator predicts the frame."""
    rng = np.random.RandomState(8)
    X = pd.DataFrame({"a": np.round(rng.normal(size=200), 4), "b": np.round(rng.normal(size=200), 4)})
    y = (X["a"] - X["b"] > 0).astype(int)
    X.assign(label=y).to_csv(tmp_path / "frame.csv")
    X.to_csv(tmp_path / "with.csv")
    X.to_csv(tmp_path / "without.csv", index=False)
    train(cli, tmp_path / "frame.csv", tmp_path / "cli.nsvm", "--algo", "smo", "--seed", "2")
    est = nsvm.NSVMClassifier(algorithm="smo", random_state=2).fit(X, y)
    for f in ["with.csv", "without.csv"]:
        out = subprocess.run([cli, "predict", "--model", str(tmp_path / "cli.nsvm"), "--data", str(tmp_path / f)],
                             check=True, capture_output=True, text=True).stdout.split("\n")
        assert [int(line.split()[0]) for line in out if line] == list(est.predict(X)), f
    # The CLI's model, loaded, has the file's column names as its feature
    # names, and predicts the frame and its array as the estimator.
    back = nsvm.load(tmp_path / "cli.nsvm")
    assert back.n_features_in_ == 2 and list(back.feature_names_in_) == ["a", "b"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(back.predict(X), est.predict(X))
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        np.testing.assert_array_equal(back.predict(X.to_numpy()), est.predict(X))
    with pytest.raises(ValueError, match="feature names"):
        back.predict(X[["b", "a"]])
    # So has an estimator's file of a model fitted on a frame.
    est.save(tmp_path / "py.nsvm")
    assert list(nsvm.load(tmp_path / "py.nsvm").feature_names_in_) == ["a", "b"]


def test_sparse_same_model(cli, tmp_path):
    """Wide sparse LIBSVM rows: the CLI keeps them sparse, and so does a CSR matrix."""
    rng = np.random.RandomState(5)
    n, d = 300, 2000
    rows = []
    y = rng.choice([-1, 1], size=n)
    for i in range(n):
        idx = np.sort(rng.choice(d, size=15, replace=False))
        if i == 0:
            idx[-1] = d - 1  # the width is the largest index
        vals = np.round(rng.rand(15) + (y[i] > 0) * (idx < 100), 4)
        rows.append(f"{y[i]} " + " ".join(f"{j + 1}:{v:g}" for j, v in zip(idx, vals)))
    (tmp_path / "wide.libsvm").write_text("\n".join(rows) + "\n")
    want = train(cli, tmp_path / "wide.libsvm", tmp_path / "cli.nsvm", "--seed", "7")
    X, yy = load_svmlight_file(str(tmp_path / "wide.libsvm"), n_features=d)
    est = nsvm.NSVMClassifier(random_state=7).fit(X, yy)
    assert est.model_.to_bytes() == want
    assert est.model_.to_bytes() == nsvm.NSVMClassifier(random_state=7).fit(X.tocsc(), yy).model_.to_bytes()


def test_narrow_libsvm_file_same_model(cli, tmp_path):
    """Narrow LIBSVM rows (heart_scale's 13 features): the CLI reads them
    dense, and a CSR matrix read from the same file takes the same path, to
    the same model."""
    rng = np.random.RandomState(9)
    n, d = 270, 13
    y = rng.choice([-1, 1], size=n)
    rows = []
    for i in range(n):
        vals = np.round(rng.rand(d) * 2 - 1 + 0.3 * y[i], 4)
        vals[rng.rand(d) < 0.2] = 0  # LIBSVM text leaves zeros out
        rows.append(f"{y[i]} " + " ".join(f"{j + 1}:{v:g}" for j, v in enumerate(vals) if v != 0))
    (tmp_path / "narrow.libsvm").write_text("\n".join(rows) + "\n")
    want = train(cli, tmp_path / "narrow.libsvm", tmp_path / "cli.nsvm", "--seed", "3")
    X, yy = load_svmlight_file(str(tmp_path / "narrow.libsvm"))
    assert X.shape[1] == d and sp.issparse(X)
    est = nsvm.NSVMClassifier(random_state=3).fit(X, yy)
    assert "linear" not in est.selection_["selected"]
    assert est.model_.to_bytes() == want


def test_files_both_ways(cli, classes, tmp_path):
    """nsvm predict reads an estimator's file; nsvm.load reads nsvm train's."""
    d, X, y = classes
    est = nsvm.NSVMClassifier(algorithm="smo", probability=True).fit(X, y)
    est.save(tmp_path / "py.nsvm")
    out = subprocess.run([cli, "predict", "--model", str(tmp_path / "py.nsvm"), "--data", str(d / "train.csv"),
                          "--decision-values"], check=True, capture_output=True, text=True).stdout
    rows = [line.split() for line in out.strip().split("\n")]
    assert [int(r[0]) for r in rows] == list(est.predict(X))
    # Every head's decision value, in LIBSVM's pair order, printed to 8 digits.
    est.set_params(decision_function_shape="ovo")
    np.testing.assert_allclose([[float(v) for v in r[1:]] for r in rows], est.decision_function(X), rtol=1e-6, atol=1e-7)
    train(cli, d / "train.csv", tmp_path / "cli.nsvm", "--algo", "smo", "--probability")
    back = nsvm.load(tmp_path / "cli.nsvm")
    assert isinstance(back, nsvm.NSVMClassifier)
    assert list(back.classes_) == [0, 1, 2] and back.n_features_in_ == 8
    np.testing.assert_array_equal(back.predict(X), est.predict(X))
    np.testing.assert_allclose(back.predict_proba(X), est.predict_proba(X))


def test_svm_train_model(tmp_path):
    """nsvm.load reads svm-train's model files; the labels and decision
    values follow scikit-learn's order even when LIBSVM's first label is
    the larger one."""
    import shutil

    from sklearn.datasets import dump_svmlight_file

    if not shutil.which("svm-train") or not shutil.which("svm-predict"):
        pytest.skip("needs LIBSVM's svm-train and svm-predict (libsvm-tools)")
    X, y = make_classification(n_samples=200, n_features=5, random_state=6)
    y = np.where(y == 1, 7, 3)
    order = np.argsort(-y, kind="stable")  # the first row is of class 7
    X, y = X[order], y[order]
    dump_svmlight_file(X, y, tmp_path / "d.libsvm", zero_based=False)
    subprocess.run(["svm-train", "-q", "-c", "2", str(tmp_path / "d.libsvm"), str(tmp_path / "d.model")], check=True)
    subprocess.run(["svm-predict", str(tmp_path / "d.libsvm"), str(tmp_path / "d.model"), str(tmp_path / "out")],
                   check=True, capture_output=True)
    want = np.loadtxt(tmp_path / "out")
    est = nsvm.load(tmp_path / "d.model")
    assert list(est.classes_) == [3, 7]
    np.testing.assert_array_equal(est.predict(X), want)
    np.testing.assert_array_equal(est.decision_function(X) >= 0, want == 7)


@pytest.mark.parametrize("k", [2, 3])
def test_svm_train_probability_model(cli, tmp_path, k):
    """An svm-train -b 1 model keeps its probabilities through nsvm.load:
    predict_proba gives nsvm predict --probability's, and svm-predict -b 1's
    (LIBSVM stops coupling the pairs of many classes at a tolerance of
    0.005/K, where nsvm solves the coupling)."""
    import shutil

    from sklearn.datasets import dump_svmlight_file

    if not shutil.which("svm-train") or not shutil.which("svm-predict"):
        pytest.skip("needs LIBSVM's svm-train and svm-predict (libsvm-tools)")
    X, y = make_classification(n_samples=300, n_features=5, n_informative=4, n_redundant=0, n_classes=k,
                               random_state=8)
    dump_svmlight_file(X, y, tmp_path / "d.libsvm", zero_based=False)
    subprocess.run(["svm-train", "-q", "-b", "1", str(tmp_path / "d.libsvm"), str(tmp_path / "d.model")], check=True)
    subprocess.run(["svm-predict", "-b", "1", str(tmp_path / "d.libsvm"), str(tmp_path / "d.model"),
                    str(tmp_path / "out")], check=True, capture_output=True)
    lines = (tmp_path / "out").read_text().split("\n")
    labels = [int(v) for v in lines[0].split()[1:]]
    rows = np.array([[float(v) for v in line.split()] for line in lines[1:] if line])
    est = nsvm.load(tmp_path / "d.model")
    assert est.probability
    proba = est.predict_proba(X)
    want = rows[:, 1:][:, np.argsort(labels)]  # svm-predict's columns in classes_' order
    np.testing.assert_allclose(proba, want, atol=1e-6 if k == 2 else 1e-2)
    out = subprocess.run([cli, "predict", "--model", str(tmp_path / "d.model"), "--data", str(tmp_path / "d.libsvm"),
                          "--probability"], check=True, capture_output=True, text=True).stdout
    np.testing.assert_allclose(proba, np.loadtxt(out.splitlines())[:, -k:], atol=1e-7)
