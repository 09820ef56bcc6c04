"""to_onnx writes the graph nsvm export --format onnx writes, and (where
onnx and onnxruntime are installed) a graph that checks and predicts as the
estimator does."""

import subprocess

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, load_iris

import nsvm


def test_to_onnx_same_bytes_as_cli(cli, tmp_path):
    X, y = load_iris(return_X_y=True)
    est = nsvm.NSVMClassifier(algorithm="smo", C=1, gamma=0.5, probability=True, random_state=1).fit(X, y)
    est.save(tmp_path / "m.nsvm").to_onnx(tmp_path / "est.onnx")
    subprocess.run([cli, "export", "--format", "onnx", "--model", str(tmp_path / "m.nsvm"), "--out", str(tmp_path / "cli.onnx")], check=True)
    assert (tmp_path / "est.onnx").read_bytes() == (tmp_path / "cli.onnx").read_bytes()


def test_to_onnx_refuses_unknown_operators(tmp_path):
    X, y = load_iris(return_X_y=True)
    est = nsvm.NSVMClassifier(algorithm="smo", C=1, gamma=0.5).fit(X, y)
    with pytest.raises(ValueError, match="ONNX operators"):
        est.to_onnx(tmp_path / "m.onnx", operators="gpu")


def test_to_onnx_checks(tmp_path):
    onnx = pytest.importorskip("onnx", reason="onnx (Debian's python3-onnx) is not installed")
    X, y = load_breast_cancer(return_X_y=True)
    nsvm.NSVMClassifier(algorithm="smo", C=1, gamma=0.05, probability=True, random_state=1).fit(X, y).to_onnx(tmp_path / "c.onnx")
    nsvm.NSVMRegressor(algorithm="smo", C=10, gamma=0.1).fit(X, X[:, 0]).to_onnx(tmp_path / "r.onnx", operators="ml")
    for p in ("c.onnx", "r.onnx"):
        onnx.checker.check_model(onnx.load(str(tmp_path / p)), full_check=True)


def test_to_onnx_predicts_as_the_estimator(tmp_path):
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed (pip install onnxruntime)")
    X, y = load_breast_cancer(return_X_y=True)
    names = np.where(y == 1, "benign", "malignant")
    est = nsvm.NSVMClassifier(algorithm="smo", C=1, gamma=0.05, probability=True, random_state=1).fit(X[:400], names[:400])
    est.to_onnx(tmp_path / "m.onnx")
    sess = ort.InferenceSession(str(tmp_path / "m.onnx"))
    label, scores, proba = sess.run(None, {"X": X[400:].astype(np.float32)})
    assert (label == est.predict(X[400:])).mean() >= 0.99
    np.testing.assert_allclose(proba, est.predict_proba(X[400:]), atol=1e-3)
    frame = pd.DataFrame({"size": X[:, 0], "kind": np.where(X[:, 1] > 20, "rough", "smooth")})
    est = nsvm.NSVMRegressor(algorithm="smo", C=10, gamma=0.1).fit(frame, X[:, 2])
    est.to_onnx(tmp_path / "f.onnx")
    sess = ort.InferenceSession(str(tmp_path / "f.onnx"))
    (value,) = sess.run(None, {"size": frame[["size"]].to_numpy(np.float32), "kind": frame[["kind"]].to_numpy(object)})
    np.testing.assert_allclose(value, est.predict(frame), rtol=1e-3)
