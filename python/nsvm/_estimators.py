"""scikit-learn estimators over the Go library's Fit and Model."""

import numbers
import os
import re
import stat
import sys
import warnings

import numpy as np
import scipy.sparse as sp
import sklearn.utils.validation as skv
from sklearn.base import BaseEstimator, ClassifierMixin, OutlierMixin, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets

from . import _lib


class NSVMChanceLevelWarning(UserWarning):
    """The model learned nothing: it is no better than predicting the most
    frequent class (a regressor: the mean) on its own training data.

    nsvm train refuses to write such a model; an estimator keeps it and warns.
    """


# Parameters passed to the library's FitConfig, by their configuration key:
# the library's own table of its parameters (search.Params), less those
# handled apart (random_state, n_jobs, class_weight). None leaves a key out:
# "choose for me".
_SPECIAL = ("random_state", "n_jobs", "class_weight")
_CONFIG_KEYS = {p["python"]: p["key"] for p in _lib.params() if p.get("python") and p["python"] not in _SPECIAL}


def _json_value(name, v):
    """v as a JSON value: numpy scalars become Python numbers."""
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, numbers.Integral):
        return int(v)
    if isinstance(v, numbers.Real):
        return float(v)
    if isinstance(v, str):
        return v
    if name == "input_shape" and isinstance(v, (tuple, list, np.ndarray)):
        return [_json_value(name, s) for s in v]
    raise ValueError(f"nsvm: parameter {name}={v!r}: want a number, a string or a bool")


def _label_text(v):
    """A class label as nsvm's class weights name it."""
    if isinstance(v, (numbers.Real, np.number)) and not isinstance(v, (bool, np.bool_)):
        f = float(v)
        return str(int(f)) if f.is_integer() else repr(f)
    s = str(v)
    if "," in s or ":" in s:
        raise ValueError(f"nsvm: class_weight: the label {s[:80]!r} holds ',' or ':'")
    return s


def _seed(random_state):
    """random_state as the library's seed (0: its default, nsvm train's)."""
    if random_state is None:
        return 0
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, (bool, np.bool_)):
        if random_state < 0:
            raise ValueError(f"nsvm: random_state must be ≥ 0, got {random_state}")
        return int(random_state)
    if hasattr(random_state, "integers"):  # numpy.random.Generator
        return int(random_state.integers(1, 2**31))
    return int(check_random_state(random_state).randint(1, 2**31 - 1))


def _workers(n_jobs):
    """n_jobs as the library's worker count (0: all cores), as joblib reads it."""
    if n_jobs is None or n_jobs == -1:
        return 0
    n_jobs = int(n_jobs)
    if n_jobs == 0:
        raise ValueError("nsvm: n_jobs == 0 has no meaning")
    if n_jobs < 0:
        return max(1, (os.cpu_count() or 1) + 1 + n_jobs)
    return n_jobs


# The data validation of scikit-learn ≥ 1.6 is a function; before, a method.
if hasattr(skv, "validate_data"):

    def _validate(est, *args, **kw):
        return skv.validate_data(est, *args, **kw)

    def _check_columns(est, X, reset):
        skv._check_feature_names(est, X, reset=reset)
        skv._check_n_features(est, X, reset=reset)

else:

    def _validate(est, *args, **kw):
        return est._validate_data(*args, **kw)

    def _check_columns(est, X, reset):
        est._check_feature_names(X, reset=reset)
        est._check_n_features(X, reset=reset)


def _is_frame(X):
    return hasattr(X, "dtypes") and hasattr(X, "columns") and hasattr(X, "to_csv")


def _text_frame(X, fill_missing):
    """Whether the DataFrame X goes to the library as CSV text: it has a
    column that is not numbers (text, categories, booleans, dates), or
    missing values to fill."""
    import pandas as pd

    for dt in X.dtypes:
        if not pd.api.types.is_numeric_dtype(dt) or pd.api.types.is_bool_dtype(dt):
            return True
    return bool(fill_missing) and bool(X.isna().to_numpy().any())


def _csv_input(X, fill_missing, columns=None, label_name=None):
    """The rows of X (a DataFrame, or a 2-D array of raw values) as CSV text
    with a last label column (ignored), named label_name when given (as the
    file nsvm train would read): what the library reads as nsvm train reads a
    CSV file. columns are the model's (model_.info), for prediction."""
    import pandas as pd

    frame = X.copy(deep=False) if _is_frame(X) else pd.DataFrame(np.asarray(X, dtype=object))
    header = [str(c) for c in frame.columns]
    if not _is_frame(X) and columns:
        # Raw rows of an array: the model's columns in order (but a pandas
        # index its file had), by their names where the model knows them.
        columns = [c for c in columns if not c.get("row_index")]
        header = [c.get("name") or h for c, h in zip(columns, header)]
    label = "label" if label_name is None else str(label_name)
    while label in header:
        label = "_" + label
    frame.columns = range(len(header))
    frame[len(header)] = 0
    text = frame.to_csv(index=False, header=header + [label]).encode("utf-8")
    buf = np.frombuffer(text, dtype=np.uint8)
    inp = _lib.Input(kind=_lib.CSV, rows=len(frame), cols=len(header), values=buf.ctypes.data if len(buf) else None,
                     nnz=len(text), fill_missing=int(bool(fill_missing)))
    return inp, buf


def _frame_error(err, inp, text):
    """err, raised on the CSV text of a frame, with the lines it names as the
    frame's rows (line 1 is the header) when no value holds a line break,
    and the reader's option as the estimators' parameter."""
    msg = str(err).replace("read with FillMissing, nsvm's --fill-missing", "fit with fill_missing=True")
    if bytes(text).count(b"\n") == inp.rows + 1:
        msg = re.sub(r"data frame:(\d+):", lambda m: f"data frame, row {int(m.group(1)) - 2}:", msg)
        msg = re.sub(r"\(row (\d+)\)", lambda m: f"(row {int(m.group(1)) - 1})", msg)
    if re.search(r"(empty|missing) value .*, a column of (numbers|dates)$", msg):
        msg += f"; {_FILL_HINT}"
    return ValueError(msg)


def _dense_input(X):
    if X.dtype != np.float32 and X.dtype != np.float64:
        X = X.astype(np.float64)
    fortran = 0
    if not X.flags.c_contiguous:
        if X.flags.f_contiguous:
            fortran = 1
        else:
            X = np.ascontiguousarray(X)
    dtype = _lib.F32 if X.dtype == np.float32 else _lib.F64
    inp = _lib.Input(kind=_lib.DENSE, dtype=dtype, fortran=fortran, rows=X.shape[0], cols=X.shape[1], values=X.ctypes.data)
    return inp, X


def _sparse_input(X):
    """Compressed sparse rows, never made dense: CSC and other formats are
    converted to CSR, duplicates summed, columns sorted and stored zeros
    left out (as nsvm's LIBSVM reader leaves them out)."""
    X = X.tocsr()
    if not X.has_canonical_format or not X.data.all():
        X = X.copy()
        X.sum_duplicates()
        X.eliminate_zeros()
    data = X.data
    if data.dtype != np.float32 and data.dtype != np.float64:
        data = data.astype(np.float64)
    indptr, indices = X.indptr, X.indices
    if indptr.dtype != indices.dtype or indptr.dtype not in (np.int32, np.int64):
        indptr, indices = indptr.astype(np.int64), indices.astype(np.int64)
    data, indptr, indices = (np.ascontiguousarray(a) for a in (data, indptr, indices))
    inp = _lib.Input(
        kind=_lib.CSR,
        dtype=_lib.F32 if data.dtype == np.float32 else _lib.F64,
        index_dtype=_lib.I32 if indptr.dtype == np.int32 else _lib.I64,
        rows=X.shape[0],
        cols=X.shape[1],
        values=data.ctypes.data,
        indptr=indptr.ctypes.data,
        indices=indices.ctypes.data,
        nnz=len(data),
    )
    return inp, (data, indptr, indices)


def _matrix_input(X):
    if sp.issparse(X):
        return _sparse_input(X)
    return _dense_input(X)


def _format_score(metric, score):
    if score is None:
        return "failed"
    if metric == "rmse":
        return f"RMSE {score:.4g}"
    if metric in ("accuracy", "", None):
        return f"accuracy {100 * score:.2f} %"
    return f"{metric} {score:.4f}"


def _print_report(p, verbose):
    """Prints a progress report as nsvm train does."""
    stage = p["stage"]
    line = None
    if stage == "select":
        score = "pruned" if p.get("error", "").startswith("pruned") else _format_score(p.get("metric"), p.get("score"))
        line = f"candidate {p['done']:3d}/{p['total']:<3d} {p.get('candidate', ''):<60s} {score:<16s} {p['seconds']:6.2f}s"
    elif stage == "fit" and p.get("train") is None:
        line = f"training {p.get('candidate', '')} on all the data"
    elif stage == "fit" and verbose >= 2:
        t = p["train"]
        line = f"  {t['phase']} step {t['step']}/{t['total']}  support vectors {t['n_sv']}  {t['elapsed']:.1f}s"
    elif stage == "keep":
        line = f"keeping {p.get('candidate', '')} as the search trained it on {p['done']} rows"
    elif stage == "calibrate":
        line = f"calibrating {p.get('candidate', '')}'s probabilities"
    if line is not None:
        print(line, flush=True)


def _store(est, params):
    """Stores __init__'s arguments as they are (scikit-learn's contract)."""
    for k, v in params.items():
        if k not in ("self", "__class__"):
            setattr(est, k, v)


class _NSVMBase(BaseEstimator):
    """What the estimators share: the configuration, the data handed to the
    library, the model and its file.

    Threads: a fit works on a copy of the estimator's attributes and makes
    them the estimator's in one step (_refit); every method that reads the
    fitted state reads it from one such set (_view). A predict from one
    thread while another refits sees the old fit or the new one, never parts
    of both."""

    _task = None

    def _refit(self, fit, *args):
        """Runs fit (an unbound _fit) on a copy of the estimator's attributes,
        then swaps them in at once; returns self."""
        new = object.__new__(type(self))
        new.__dict__ = dict(self.__dict__)
        fit(new, *args)
        self.__dict__ = new.__dict__
        return self

    def _view(self):
        """The estimator as it is now: a view of one fit's attributes that a
        refit in another thread does not change."""
        v = object.__new__(type(self))
        v.__dict__ = self.__dict__
        return v

    def _config(self):
        params = self.get_params(deep=False)
        c = {}
        for name, key in _CONFIG_KEYS.items():
            v = params.get(name)
            if v is not None:
                c[key] = _json_value(name, v)
        cw = params.get("class_weight")
        if isinstance(cw, dict):
            c["class_weight"] = ",".join(f"{_label_text(k)}:{_json_value('class_weight', w)!r}" for k, w in cw.items())
        elif cw is not None:
            c["class_weight"] = _json_value("class_weight", cw)
        if self._task is not None:
            c["task"] = self._task
        c["spelling"] = "python"  # errors name the parameters as here
        seed = _seed(params.get("random_state"))
        if seed:
            c["seed"] = seed
        workers = _workers(params.get("n_jobs"))
        if workers:
            c["workers"] = workers
        return c

    def _progress(self):
        cb, verbose = getattr(self, "callback", None), getattr(self, "verbose", 0)
        if cb is None and not verbose:
            return None

        def report(p):
            if verbose:
                _print_report(p, verbose)
            if cb is not None:
                return cb(p)
            return True

        return report

    def _fit_model(self, X, y, names, sample_weight, label_name=None, extra=None):
        """Fits the library's model on X (validated, or a text DataFrame), the
        labels y, the label names (None: numbers) and the validated sample
        weights (None: none). A numeric DataFrame's column names and the
        labels' name (a Series' name) go into the model as nsvm train
        records a CSV file's header. extra holds configuration keys to add;
        with a model_ already fitted, partial_fit continues it instead."""
        fill = getattr(self, "fill_missing", False)
        continuing = extra is not None and hasattr(self, "model_")
        config = self._continue_config() if continuing else dict(self._config(), **(extra or {}))
        if _is_frame(X) and _text_frame(X, fill):
            inp, keep = _csv_input(X, fill, label_name=label_name)
        else:
            inp, keep = _matrix_input(X)
            if hasattr(self, "feature_names_in_"):
                config["feature_names"] = [str(n) for n in self.feature_names_in_]
                if label_name is not None and not continuing:
                    config["label_name"] = str(label_name)
        w = None
        if sample_weight is not None and not np.all(sample_weight == 1):  # a weight of 1 is no weight
            w = np.ascontiguousarray(sample_weight, dtype=np.float64)
        y = np.ascontiguousarray(y, dtype=np.float64)
        try:
            if continuing:
                model, warning = _lib.continue_(self.model_, inp, y, names, w, config, self._progress())
            else:
                model, warning = _lib.fit(inp, y, names, w, config, self._progress())
        except ValueError as e:
            if inp.kind != _lib.CSV:
                raise
            raise _frame_error(e, inp, keep) from None
        del keep
        if warning:
            warnings.warn(warning, NSVMChanceLevelWarning, stacklevel=3)
        self._set_model(model)
        for col in model.info.get("columns") or []:
            if col.get("dropped") and not col.get("row_index"):
                warnings.warn(
                    f"nsvm: a text column with {col.get('distinct')} different values in {len(y)} rows "
                    "(an identifier or free text?) is left out",
                    UserWarning,
                    stacklevel=3,
                )
        return self

    def _continue_config(self):
        """The configuration of a continuation (nsvm_continue's)."""
        c = {}
        seed = _seed(getattr(self, "random_state", None))
        if seed:
            c["seed"] = seed
        for name, key in (("sv_budget", "budget"), ("window", "window")):
            v = getattr(self, name, None)
            if v is not None:
                c[key] = _json_value(name, v)
        return c

    def _first_partial(self):
        """Configuration keys of partial_fit's first call: the default search
        on its rows, validated on one hold-out split unless folds is set (a
        stream's first chunk is its smallest sample: one training a candidate
        instead of five), an NSVM's heads keeping their support vectors'
        inputs so that the next calls can recompute their features."""
        extra = {"keep_inputs": True}
        if getattr(self, "folds", None) is None:
            extra["folds"] = 1
        return extra

    def _validate_partial(self, X, y, classification):
        """Checks X and y of a later partial_fit call against the first's
        columns; returns X as the library takes it and y."""
        if _is_frame(X) and _text_frame(X, getattr(self, "fill_missing", False)):
            _check_columns(self, X, reset=False)
            y = skv.column_or_1d(y, warn=True)
            skv.check_consistent_length(X, y)
            return X, y
        return _validate(
            self, X, y, reset=False, accept_sparse=("csr", "csc"), dtype=(np.float64, np.float32),
            y_numeric=not classification,
        )

    def _validate_fit(self, X, y, classification):
        """Checks X and y; returns X as the library takes it and y."""
        fill = getattr(self, "fill_missing", False)
        if fill and not _is_frame(X) and not sp.issparse(X):
            # Missing numbers to fill: the rows go as a frame does, as CSV
            # text with empty fields, which the library fills.
            arr = np.asarray(X)
            if arr.ndim == 2 and arr.dtype.kind == "f" and np.isnan(arr).any():
                import pandas as pd

                X = pd.DataFrame(arr)
        if _is_frame(X) and _text_frame(X, fill):
            _check_columns(self, X, reset=True)
            if y is None:
                raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
            y = skv.column_or_1d(y, warn=True)
            if not classification:
                y = skv.check_array(y, ensure_2d=False, dtype=np.float64)
            elif y.dtype.kind == "f":
                skv.check_array(y, ensure_2d=False, dtype=None)
            skv.check_consistent_length(X, y)
            return X, y
        try:
            return _validate(
                self, X, y, accept_sparse=("csr", "csc"), dtype=(np.float64, np.float32), y_numeric=not classification
            )
        except ValueError as e:
            if "Input X contains NaN" not in str(e):
                raise
            raise ValueError(f"nsvm: {str(e).splitlines()[0]} {_FILL_HINT}") from None

    def _set_model(self, model):
        self.model_ = model
        info = model.info
        cols = info.get("columns")
        if not hasattr(self, "n_features_in_"):
            # A pandas index the model's file had (row_index) is no feature.
            self.n_features_in_ = len([c for c in cols if not c.get("row_index")]) if cols else info["n_inputs"]
            # A model read from a file (nsvm train's on a CSV file with a
            # header, or an estimator's fitted on a DataFrame) names its
            # columns: they are the feature names, as fit on a DataFrame
            # read from that file would set them.
            names = [c.get("name", "") for c in cols or [] if not c.get("row_index")]
            if names and all(names) and len(set(names)) == len(names):
                self.feature_names_in_ = np.asarray(names, dtype=object)
        sel = info.get("selection")
        if sel:
            sel = dict(sel)
            sel["selected"] = sel["candidates"][sel["winner"]]["name"]
        self.selection_ = sel

    def _predict_input(self, X):
        """X as the library takes it for prediction, and what must stay alive."""
        skv.check_is_fitted(self, "model_")
        columns = self.model_.info.get("columns")
        if columns and any(c.get("categories") or c.get("dropped") or c.get("dates") or "fill" in c for c in columns):
            # Raw values to encode with the model's columns, as nsvm predict
            # encodes a CSV file (dates as text, which the library parses).
            if _is_frame(X):
                _check_columns(self, X, reset=False)
            else:
                X = np.asarray(X, dtype=object)
                if X.ndim != 2:
                    raise ValueError(f"Expected 2D array, got {X.ndim}D array instead")
                _check_columns(self, X, reset=False)
            return _csv_input(X, False, columns)
        if (
            type(X) is np.ndarray
            and X.ndim == 2
            and (X.dtype == np.float64 or X.dtype == np.float32)
            and X.shape[1] == self.n_features_in_
            and X.shape[0] > 0
            and not hasattr(self, "feature_names_in_")
        ):
            return _dense_input(X)  # the library checks the values are finite
        X = _validate(self, X, reset=False, accept_sparse=("csr", "csc"), dtype=(np.float64, np.float32))
        return _matrix_input(X)

    def _predictions(self, X, decisions=False, scores=False, probabilities=False):
        inp, keep = self._predict_input(X)
        info = self.model_.info
        n = inp.rows
        labels = np.empty(n)
        dec = np.empty((n, info["n_heads"])) if decisions else None
        k = len(info.get("classes") or ())
        sc = np.empty((n, k)) if scores else None
        pr = np.empty((n, k)) if probabilities else None
        try:
            self.model_.predict(inp, labels, dec, sc, pr)
        except ValueError as e:
            if inp.kind != _lib.CSV:
                if "value is NaN" in str(e):
                    raise ValueError(f"{e}; {_FILL_HINT}") from None
                raise
            raise _frame_error(e, inp, keep) from None
        del keep
        return labels, dec, sc, pr

    def save(self, path):
        """Writes the model to path as an nsvm model file, the bytes nsvm train
        writes (through a temporary file and a rename: never a partial file).
        nsvm predict, eval and serve read it; so does nsvm.load."""
        me = self._view()
        skv.check_is_fitted(me, "model_")
        me.model_.save(path)
        return self

    def to_onnx(self, path, operators="standard"):
        """Writes the model to path as an ONNX graph, as nsvm export --format
        onnx does: ONNX Runtime (onnxruntime in Python, onnxruntime-node,
        onnxruntime-web, C#, Java …) then predicts without nsvm. Its input is X,
        float32 rows of the features (one input per column for a data frame
        with text columns); its outputs label, scores and, when calibrated,
        probabilities (a regressor: value). operators="ml" writes the SVM heads
        with ai.onnx.ml's operators instead of standard ones."""
        me = self._view()
        skv.check_is_fitted(me, "model_")
        me.model_.export_onnx(path, operators)
        return self

    def _more_tags(self):
        return {"_xfail_checks": {"check_sample_weights_invariance": _ZERO_WEIGHTS}}


# The hint of an error on a missing value, as nsvm train's names --fill-missing.
_FILL_HINT = (
    "fill_missing=True fills missing values with their column's mean, which the model keeps to fill new "
    "data with (as nsvm train --fill-missing)"
)


# Why check_estimator's check_sample_weights_invariance is skipped (its
# kind="ones" half passes: tests/test_sklearn.py runs it).
_ZERO_WEIGHTS = (
    "a row of zero weight is not a removed row in nsvm: the input scaling (mean and deviation) and the "
    "validation folds are computed over every row, as nsvm train --weights computes them; the weights "
    "act on the losses and scores only"
)


class _Classes:
    """The class labels of a classifier: scikit-learn's classes_ and the
    library's labels, in the same (increasing) order."""

    def _encode_labels(self, y):
        """Returns the labels as the library takes them (values or indices
        of names) and the names (None for numbers); sets classes_."""
        check_classification_targets(y)
        classes, codes = np.unique(y, return_inverse=True)
        kinds = {type(c) for c in classes.tolist()} if classes.dtype.kind == "O" else set()
        if classes.dtype.kind in "biuf" or kinds and all(issubclass(t, numbers.Real) and t is not bool for t in kinds):
            values = classes.astype(np.float64)
            if len(np.unique(values)) != len(classes):
                raise ValueError("nsvm: class labels too large to tell apart as float64 numbers")
            self.classes_ = classes
            return values[codes], None
        names = [str(c) for c in classes]
        if sorted(set(names)) != names:
            raise ValueError("nsvm: class labels must be numbers or strings (of one kind)")
        seen = {}
        for n in names:
            k = n.strip().lower()
            if k in seen:
                # As nsvm train's notice on such a file.
                warnings.warn(f"nsvm: labels {seen[k]!r} and {n!r} differ only in case: they are two classes "
                              "(write them alike if they name one)", UserWarning, stacklevel=4)
                break
            seen[k] = n
        self.classes_ = classes
        return codes.astype(np.float64), names

    def _label_order(self):
        """Indices that sort the library's labels, and whether a binary
        model's decision values need their sign turned (for a model whose
        first label is the larger one, as in some svm-train files)."""
        lv = np.asarray(self.model_.info["classes"], dtype=np.float64)
        order = np.argsort(lv, kind="stable")
        return lv[order], (None if np.all(order == np.arange(len(lv))) else order)

    def _set_model(self, model):
        super()._set_model(model)
        self._labels, self._order = self._label_order()
        if not hasattr(self, "classes_"):
            names = model.info.get("label_names")
            if names:
                self.classes_ = np.asarray([names[int(v)] for v in self._labels], dtype=object)
            elif np.all(self._labels == np.round(self._labels)):
                self.classes_ = self._labels.astype(np.int64)
            else:
                self.classes_ = self._labels.copy()

    def _continue_labels(self, y):
        """The labels of a later partial_fit call as the library takes them,
        and the names; a label not among classes_ is an error naming it."""
        check_classification_targets(y)
        y = np.asarray(y)
        unknown = np.setdiff1d(np.unique(y), self.classes_)
        if len(unknown):
            raise ValueError(
                f"nsvm: y holds the class {unknown.tolist()[0]!r}, which is not one of the classes of the first call "
                f"({self.classes_.tolist()[:20]})"
            )
        codes = np.searchsorted(self.classes_, y)
        if self.model_.info.get("label_names"):
            return codes.astype(np.float64), [str(c) for c in self.classes_]
        return self._labels[codes], None

    def _classes_of(self, labels):
        return self.classes_[np.searchsorted(self._labels, labels)]

    def _by_class(self, a):
        """Columns of class scores or probabilities in classes_' order."""
        return a if self._order is None else a[:, self._order]


class NSVMClassifier(_Classes, ClassifierMixin, _NSVMBase):
    """Neural support vector machine classifier, or a classical SVM: what
    nsvm train fits, behind scikit-learn's estimator contract.

    With every parameter None the library chooses everything by validation on
    the training data (the RBF SVM over a C × γ grid, NSVMs whose networks
    follow the data), exactly as nsvm train with no flags does; each parameter
    set pins that choice. The same data and random_state give the same model,
    byte for byte, as nsvm train --seed.

    Parameters (None: chosen, or the library's default)
    ----------
    C, kernel ('linear', 'poly', 'rbf', 'sigmoid'), gamma, degree, coef0, tol,
    cache_size (MB): the SVM's, as scikit-learn's SVC names them. gamma is in
        the units of the scaled inputs: pinning it (in GridSearchCV, say)
        keeps the scaling the library chooses, unless scaling is pinned too.
    class_weight : 'balanced', 'none', or a dict {label: weight}. None weighs
        classes balanced only when they are strongly imbalanced, as nsvm train.
    probability : calibrate probabilities (Platt scaling on out-of-fold
        decision values): predict_proba and predict_log_proba.
    random_state : int seed (0 and None: nsvm train's default seed, 1).
    n_jobs : workers of the search and the solvers (None, -1: all cores).
        The model does not depend on it.
    algorithm : 'nsvm1' … 'nsvm4' (the paper's), or 'smo', 'linear',
        'pegasos', 'pegasos-linear', 'perceptron', 'dual-sga', 'chunking'.
    arch : the network ('dense(64),relu,dense(32),relu', …).
    scaling : 'standardize', 'global' or 'none' (the inputs as they are, as
        SVC takes them; None: chosen by validation, also with gamma pinned).
    input_shape : the shape of one row, e.g. (1, 28, 28) for images (CNNs join).
    budget : bound on the search's wall time, in seconds (default 600).
    max_memory : bound in bytes on what the data imply beyond their rows (the
        heads of many classes, vectors over many features), checked before
        the fit, which raises MemoryError past it (default: half of the
        machine's memory).
    metric : the selection's score: 'accuracy', 'balanced_accuracy', 'f1',
        'roc_auc'.
    folds : validation folds of the selection (1: one hold-out split).
    multiclass : 'ovo' or 'ovr' heads on more than two classes.
    decision_function_shape : 'ovr' (class scores: one-vs-one votes, or
        one-vs-rest decisions) or 'ovo' (every head's decision), as SVC's.
    svm_type : 'c-svc' or 'nu-svc' (then nu).
    linear_loss : 'l1', 'l2' or 'l2+l1' (the mean of the two) of the linear solver.
    near_copies : 'keep' or 'drop': whether validation scores rows that are near
        copies (cosine >= 0.9) of training rows (default: dropped on wide sparse
        rows such as text, kept otherwise).
    alpha : λ of Pegasos and the NSVM trainers (SGDClassifier's alpha).
    steps, steps2, epochs, batch_size, chunk, learning_rate_init, momentum,
    weight_decay, optimizer ('sgd', 'adam'), schedule ('constant', 'invt',
    'cosine', 'onecycle'), objective ('align', 'softmax'), augment,
    test_augment ('none', 'shift'),
    mu, align_loss ('squared', 'neg'), solver2 ('smo', 'pegasos'), reg,
    reg_weight, reg_target, bias, balanced, normalize_kernel : the NSVM
        trainers' knobs, as nsvm train's flags of the same names.
    fill_missing : a DataFrame's missing numbers become their column's mean,
        a missing date (NaT) the means of its features (kept in the model),
        as nsvm train --fill-missing; else an error.
    sv_budget : partial_fit: the most support vectors a continued kernel
        model keeps (None: 1000, or the last continuation's).
    window : partial_fit: forget rows older than about this many steps
        (an exponential average, for drifting data; None: keep all); an
        NSVM's network then learns on every chunk.
    verbose : 1 prints each candidate as it is scored, 2 the trainer's steps.
    callback : a function receiving each progress report (a dict); returning
        False (or raising) stops the fit.

    Attributes
    ----------
    classes_, n_features_in_, feature_names_in_ (DataFrames with string
    column names), selection_ (the selection: validation, metric, selected,
    candidates with their scores, deviations and seconds; None when nothing
    was selected), model_ (the library's model; model_.info describes it).
    """

    def __init__(
        self,
        *,
        C=None,
        kernel=None,
        gamma=None,
        degree=None,
        coef0=None,
        tol=None,
        cache_size=None,
        class_weight=None,
        probability=False,
        random_state=None,
        n_jobs=None,
        algorithm=None,
        arch=None,
        scaling=None,
        input_shape=None,
        budget=None,
        max_memory=None,
        metric=None,
        folds=None,
        multiclass=None,
        decision_function_shape="ovr",
        svm_type=None,
        nu=None,
        linear_loss=None,
        near_copies=None,
        alpha=None,
        steps=None,
        steps2=None,
        epochs=None,
        batch_size=None,
        chunk=None,
        learning_rate_init=None,
        momentum=None,
        weight_decay=None,
        optimizer=None,
        schedule=None,
        objective=None,
        augment=None,
        test_augment=None,
        mu=None,
        align_loss=None,
        solver2=None,
        reg=None,
        reg_weight=None,
        reg_target=None,
        bias=None,
        balanced=None,
        normalize_kernel=None,
        fill_missing=False,
        sv_budget=None,
        window=None,
        verbose=0,
        callback=None,
    ):
        _store(self, locals())

    _task = "classification"

    def fit(self, X, y, sample_weight=None):
        """Fits the model to X (array, sparse matrix or DataFrame) and y
        (class labels: numbers or strings); returns self."""
        return self._refit(NSVMClassifier._fit, X, y, sample_weight)

    def _fit(self, X, y, sample_weight):
        for attr in ("classes_", "feature_names_in_", "n_features_in_"):
            self.__dict__.pop(attr, None)
        label_name = getattr(y, "name", None)
        X, y = self._validate_fit(X, y, classification=True)
        yv, names = self._encode_labels(y)
        w = None
        if sample_weight is not None:
            w = skv._check_sample_weight(sample_weight, X, dtype=np.float64)
            weighed = np.unique(yv[w > 0])
            if len(weighed) == 1:
                raise ValueError(
                    f"nsvm: only one class ({self.classes_[np.searchsorted(np.unique(yv), weighed[0])]!r}) has rows "
                    "of nonzero sample weight; a classifier needs two or more classes"
                )
        return self._fit_model(X, yv, names, w, label_name)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Trains on the rows X, y of a stream; returns self.

        The first call (of an estimator not fitted yet) needs classes, every
        class the stream holds, and its rows must hold each of them: it
        chooses the model as fit does on these rows (the default search,
        validated on one hold-out split unless folds is set), and later calls
        keep that model family. Each later call continues the model on its
        rows (nsvm_continue): an NSVM takes its network's steps and budgeted
        Pegasos over its support set, a kernel SVM budgeted kernel Pegasos
        (at most sv_budget support vectors), a linear SVM Pegasos from its
        weights. An NSVM's network stops taking steps once its errors on each
        new chunk, scored before it learns from it, stop falling (over the
        last five chunks against the five before; model_.info
        "network_frozen"), and takes them again if they rise: its head goes on
        learning. With window set it never stops. A model fitted with fit
        continues the same way. The rows must have the first call's columns,
        and their labels must be among classes_."""
        return self._refit(NSVMClassifier._partial_fit, X, y, classes, sample_weight)

    def _partial_fit(self, X, y, classes, sample_weight):
        first = not hasattr(self, "model_")
        label_name = getattr(y, "name", None)
        if first:
            if classes is None:
                raise ValueError("nsvm: classes must be passed on the first call to partial_fit")
            for attr in ("classes_", "feature_names_in_", "n_features_in_"):
                self.__dict__.pop(attr, None)
            X, y = self._validate_fit(X, y, classification=True)
            classes = np.unique(np.asarray(classes))
            missing = np.setdiff1d(classes, np.unique(y))
            if len(missing):
                raise ValueError(
                    f"nsvm: the first call to partial_fit chooses the model on its rows, which must hold every class of "
                    f"classes; {missing.tolist()[:10]} are missing"
                )
            unknown = np.setdiff1d(np.unique(y), classes)
            if len(unknown):
                raise ValueError(f"nsvm: y holds classes {unknown.tolist()[:10]} that are not in classes {classes.tolist()[:20]}")
            yv, names = self._encode_labels(y)
        else:
            if classes is not None and not np.array_equal(np.unique(np.asarray(classes)), self.classes_):
                raise ValueError(f"nsvm: classes={np.asarray(classes).tolist()[:20]} is not classes_ of the first call, {self.classes_.tolist()[:20]}")
            X, y = self._validate_partial(X, y, classification=True)
            yv, names = self._continue_labels(y)
        w = None
        if sample_weight is not None:
            w = skv._check_sample_weight(sample_weight, X, dtype=np.float64)
        return self._fit_model(X, yv, names, w, label_name, extra=self._first_partial())

    def predict(self, X):
        """The class of each row."""
        me = self._view()
        labels, _, _, _ = me._predictions(X)
        return me._classes_of(labels)

    def decision_function(self, X):
        """Two classes: the decision value of each row (positive: classes_[1]).
        More: class scores (one-vs-one votes, or the one-vs-rest heads'
        decisions), or with decision_function_shape='ovo' every head's
        decision value (LIBSVM's pair order)."""
        me = self._view()
        skv.check_is_fitted(me, "model_")
        if len(me.classes_) == 2:
            _, dec, _, _ = me._predictions(X, decisions=True)
            return -dec[:, 0] if me._order is not None else dec[:, 0]
        if me.decision_function_shape == "ovo":
            return me._predictions(X, decisions=True)[1]
        return me._by_class(me._predictions(X, scores=True)[2])

    def _calibrated(self):
        if hasattr(self, "model_"):
            calibrated = bool(self.model_.info.get("probability"))
        else:
            calibrated = bool(self.probability)
        if not calibrated:
            # hasattr() is False all the same; a call says why.
            raise AttributeError(
                f"This '{type(self).__name__}' has no probabilities (predict_proba, predict_log_proba): they need "
                "probability=True (Platt scaling on out-of-fold decision values, as nsvm train --probability)"
            )
        return True

    @available_if(_calibrated)
    def predict_proba(self, X):
        """Class probabilities (columns in classes_' order), from Platt scaling
        on out-of-fold decision values; needs probability=True."""
        me = self._view()
        return me._by_class(me._predictions(X, probabilities=True)[3])

    @available_if(_calibrated)
    def predict_log_proba(self, X):
        """The logarithm of predict_proba."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


class NSVMRegressor(RegressorMixin, _NSVMBase):
    """Neural support vector regression, or a classical ε-SVR: what nsvm
    train fits on real targets, behind scikit-learn's estimator contract.

    The parameters are NSVMClassifier's that apply to regression, and
    epsilon (the SVR's ε in target units; 0 is ε = 0), target (the Part I
    target kernel of nsvm4: 'rbf' or 'linear'), svm_type ('epsilon-svr',
    'nu-svr') and metric (regression's one, 'rmse'). The library's SVR solvers take no sample weights, so fit has
    no sample_weight. Attributes: n_features_in_, feature_names_in_,
    selection_, model_.
    """

    def __init__(
        self,
        *,
        C=None,
        epsilon=None,
        kernel=None,
        gamma=None,
        degree=None,
        coef0=None,
        tol=None,
        cache_size=None,
        random_state=None,
        n_jobs=None,
        algorithm=None,
        arch=None,
        scaling=None,
        input_shape=None,
        budget=None,
        max_memory=None,
        folds=None,
        metric=None,
        near_copies=None,
        svm_type=None,
        nu=None,
        alpha=None,
        steps=None,
        steps2=None,
        epochs=None,
        batch_size=None,
        chunk=None,
        learning_rate_init=None,
        momentum=None,
        weight_decay=None,
        optimizer=None,
        schedule=None,
        augment=None,
        test_augment=None,
        align_loss=None,
        solver2=None,
        reg=None,
        reg_weight=None,
        reg_target=None,
        bias=None,
        target=None,
        normalize_kernel=None,
        fill_missing=False,
        sv_budget=None,
        window=None,
        verbose=0,
        callback=None,
    ):
        _store(self, locals())

    _task = "regression"

    def fit(self, X, y):
        """Fits the model to X (array, sparse matrix or DataFrame) and the
        real targets y; returns self."""
        return self._refit(NSVMRegressor._fit, X, y)

    def _fit(self, X, y):
        for attr in ("feature_names_in_", "n_features_in_"):
            self.__dict__.pop(attr, None)
        label_name = getattr(y, "name", None)
        X, y = self._validate_fit(X, y, classification=False)
        if len(y) < 2:
            raise ValueError(f"nsvm: regression needs at least 2 samples, got n_samples = {len(y)}")
        return self._fit_model(X, y, None, None, label_name)

    def partial_fit(self, X, y):
        """Trains on the rows X, y of a stream; returns self. The first call
        chooses the model as fit does (the default search on its rows, one
        hold-out split unless folds is set); later calls continue it
        (nsvm_continue: an NSVM's network steps and budgeted Pegasos SVR over
        its support set, a kernel SVR budgeted Pegasos). The rows must have
        the first call's columns."""
        return self._refit(NSVMRegressor._partial_fit, X, y)

    def _partial_fit(self, X, y):
        label_name = getattr(y, "name", None)
        if not hasattr(self, "model_"):
            for attr in ("feature_names_in_", "n_features_in_"):
                self.__dict__.pop(attr, None)
            X, y = self._validate_fit(X, y, classification=False)
            if len(y) < 2:
                raise ValueError(f"nsvm: regression needs at least 2 samples, got n_samples = {len(y)}")
        else:
            X, y = self._validate_partial(X, y, classification=False)
        return self._fit_model(X, y, None, None, label_name, extra=self._first_partial())

    def predict(self, X):
        """The predicted value of each row."""
        return self._view()._predictions(X)[0]


class NSVMOneClass(OutlierMixin, _NSVMBase):
    """LIBSVM's one-class SVM (svm_type one-class) as nsvm train fits it:
    standardised inputs, RBF with γ = 1/D and ν = 0.5 unless pinned. predict
    gives +1 for inliers and −1 for outliers; decision_function is positive
    for inliers; score_samples = decision_function + offset_.

    Parameters: kernel, gamma, degree, coef0, nu, tol, cache_size, scaling,
    n_jobs, fill_missing as NSVMClassifier's. Attributes: offset_,
    n_features_in_, feature_names_in_, model_.
    """

    def __init__(
        self,
        *,
        kernel=None,
        gamma=None,
        degree=None,
        coef0=None,
        nu=None,
        tol=None,
        cache_size=None,
        scaling=None,
        n_jobs=None,
        fill_missing=False,
    ):
        _store(self, locals())

    def _config(self):
        c = super()._config()
        c["svm_type"] = "one-class"
        return c

    def fit(self, X, y=None):
        """Fits the one-class SVM to the rows of X (y is ignored); returns self."""
        return self._refit(NSVMOneClass._fit, X)

    def _fit(self, X):
        for attr in ("feature_names_in_", "n_features_in_"):
            self.__dict__.pop(attr, None)
        if _is_frame(X) and _text_frame(X, self.fill_missing):
            _check_columns(self, X, reset=True)
        else:
            X = _validate(self, X, accept_sparse=("csr", "csc"), dtype=(np.float64, np.float32))
        if X.shape[0] < 2:
            raise ValueError(f"nsvm: the one-class SVM needs at least 2 samples, got n_samples = {X.shape[0]}")
        return self._fit_model(X, np.zeros(X.shape[0]), None, None)

    def _set_model(self, model):
        super()._set_model(model)
        self.offset_ = -float(model.info.get("bias") or 0.0)

    def predict(self, X):
        """+1 for an inlier, −1 for an outlier."""
        return self._view()._predictions(X)[0].astype(np.int64)

    def decision_function(self, X):
        """Positive for inliers, negative for outliers."""
        return self._view()._predictions(X, decisions=True)[1][:, 0]

    def score_samples(self, X):
        """The kernel expansion: decision_function + offset_."""
        me = self._view()
        return me.decision_function(X) + me.offset_


def load(path):
    """Reads an nsvm model file (nsvm train's, or an estimator's save) or an
    svm-train model file, and returns the fitted estimator it makes:
    NSVMClassifier, NSVMRegressor or NSVMOneClass."""
    path = os.fspath(path)
    with open(path, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            # A device or a pipe has no size to bound the reading by.
            raise ValueError(f"nsvm: {path} is not a regular file; a model file is read from one")
        if st.st_size > _memory_bound():
            raise ValueError(
                f"nsvm: {path} holds {st.st_size} bytes, more than half of this machine's memory: "
                "too large to be a model it can hold"
            )
        data = f.read(st.st_size + 1)
    return _estimator_of(_lib.Model.from_bytes(data))


def _memory_bound():
    """Half of the machine's memory (the library's default bound), or 2**62
    where it cannot be told."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2
    except (ValueError, OSError, AttributeError):
        return 1 << 62


def _estimator_of(model):
    task = model.info["task"]
    if task == "regression":
        est = NSVMRegressor()
    elif task == "one-class":
        est = NSVMOneClass()
    else:
        est = NSVMClassifier(probability=bool(model.info.get("probability")))
    est._set_model(model)
    return est


if sys.version_info < (3, 9):  # pragma: no cover
    raise ImportError("nsvm needs Python ≥ 3.9")
