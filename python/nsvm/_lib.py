"""ctypes bindings of libnsvm, nsvm's C ABI (capi/nsvm.h in the source tree).

Every call is checked: a status other than NSVM_OK becomes ValueError (bad
data or configuration), MemoryError (data that need more memory than the
bound, refused before allocating it), KeyboardInterrupt (a cancelled fit)
or RuntimeError, with the library's message. A Model owns its handle and frees it when it is
collected. ctypes releases the GIL during each call, so predictions from many
threads run at once.
"""

import ctypes
import json
import os
import sys
import threading
from pathlib import Path

ABI_VERSION = 2

# Status codes, kinds of input and element types of nsvm.h.
OK, ERR_DATA, ERR_CONFIG, ERR_CANCELED, ERR_FAILED, ERR_INTERNAL, ERR_MEMORY = range(7)
DENSE, CSR, CSV = range(3)
F32, F64, I32, I64 = range(4)


class Input(ctypes.Structure):
    """nsvm_input: a block of rows (dense, compressed sparse rows or CSV text)."""

    _fields_ = [
        ("kind", ctypes.c_int32),
        ("dtype", ctypes.c_int32),
        ("fortran", ctypes.c_int32),
        ("index_dtype", ctypes.c_int32),
        ("rows", ctypes.c_int64),
        ("cols", ctypes.c_int64),
        ("values", ctypes.c_void_p),
        ("indptr", ctypes.c_void_p),
        ("indices", ctypes.c_void_p),
        ("nnz", ctypes.c_int64),
        ("fill_missing", ctypes.c_int32),
    ]


PROGRESS = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)

_P = ctypes.c_void_p
_CHARPP = ctypes.POINTER(ctypes.c_char_p)


def library_path():
    """The shared library to load: $NSVM_LIBRARY, else the one installed beside this module."""
    env = os.environ.get("NSVM_LIBRARY")
    if env:
        return env
    name = {"darwin": "libnsvm.dylib", "win32": "nsvm.dll"}.get(sys.platform, "libnsvm.so")
    return str(Path(__file__).with_name(name))


def _load():
    path = library_path()
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError(
            f"nsvm: cannot load the library {path} ({e}); install the package with "
            "'python3 -m pip install --no-build-isolation ./python' from nsvm's source tree "
            "(it builds the library with Go)"
        ) from e
    lib.nsvm_abi_version.restype = ctypes.c_int32
    lib.nsvm_abi_version.argtypes = []
    version = lib.nsvm_abi_version()
    if version != ABI_VERSION:
        raise ImportError(f"nsvm: {path} implements ABI {version}, this package needs {ABI_VERSION}; reinstall it")
    st = ctypes.c_int32
    sigs = {
        "nsvm_fit": [_P, _P, _P, ctypes.c_int64, _P, ctypes.c_char_p, PROGRESS, _P, _P, _P, _P, _P],
        "nsvm_predict": [ctypes.c_size_t, _P, _P, _P, _P, _P, _P],
        "nsvm_model_info": [ctypes.c_size_t, _P, _P],
        "nsvm_model_bytes": [ctypes.c_size_t, _P, _P, _P],
        "nsvm_model_read": [ctypes.c_char_p, ctypes.c_int64, _P, _P],
        "nsvm_model_save": [ctypes.c_size_t, ctypes.c_char_p, _P],
        "nsvm_model_free": [ctypes.c_size_t, _P],
        "nsvm_model_export_onnx": [ctypes.c_size_t, ctypes.c_char_p, ctypes.c_char_p, _P],
        "nsvm_config_params": [_P, _P],
        "nsvm_continue": [ctypes.c_size_t, _P, _P, _P, ctypes.c_int64, _P, ctypes.c_char_p, PROGRESS, _P, _P, _P, _P, _P],
    }
    for name, args in sigs.items():
        f = getattr(lib, name)
        f.argtypes = args
        f.restype = st
    lib.nsvm_free.argtypes = [_P]
    lib.nsvm_free.restype = None
    return lib


_lib = _load()


class FitStopped(Exception):
    """A fit stopped: its progress callback returned False."""


def _take(p):
    """The string at the library's pointer p (a c_void_p), freed."""
    if not p.value:
        return ""
    try:
        return ctypes.string_at(p.value).decode("utf-8", "replace")
    finally:
        _lib.nsvm_free(p.value)


def _check(status, err):
    if status == OK:
        return
    msg = _take(err) or f"nsvm: status {status}"
    if status in (ERR_DATA, ERR_CONFIG):
        raise ValueError(msg)
    if status == ERR_CANCELED:
        raise FitStopped(msg)
    if status == ERR_MEMORY:
        raise MemoryError(msg)
    raise RuntimeError(msg)


class Model:
    """A model of the Go library: a handle, freed with the object, and its description."""

    __slots__ = ("handle", "info", "__weakref__")

    def __init__(self, handle):
        self.handle = handle
        err = ctypes.c_void_p()
        out = ctypes.c_void_p()
        _check(_lib.nsvm_model_info(handle, ctypes.byref(out), ctypes.byref(err)), err)
        self.info = json.loads(_take(out))

    def __del__(self):
        h, self.handle = getattr(self, "handle", 0), 0
        if h and _lib is not None:
            _lib.nsvm_model_free(h, None)

    @classmethod
    def from_bytes(cls, data):
        """Reads a model file's bytes (nsvm's, or svm-train's)."""
        data = bytes(data)
        h = ctypes.c_size_t()
        err = ctypes.c_void_p()
        _check(_lib.nsvm_model_read(data, len(data), ctypes.byref(h), ctypes.byref(err)), err)
        return cls(h.value)

    def to_bytes(self):
        """The model file's bytes, as nsvm train writes them."""
        buf = ctypes.c_void_p()
        n = ctypes.c_int64()
        err = ctypes.c_void_p()
        _check(_lib.nsvm_model_bytes(self.handle, ctypes.byref(buf), ctypes.byref(n), ctypes.byref(err)), err)
        try:
            return ctypes.string_at(buf.value, n.value)
        finally:
            _lib.nsvm_free(buf.value)

    def save(self, path):
        """Writes the model file to path through a temporary file and a rename."""
        err = ctypes.c_void_p()
        _check(_lib.nsvm_model_save(self.handle, os.fsencode(path), ctypes.byref(err)), err)

    def export_onnx(self, path, operators="standard"):
        """Writes the model to path as an ONNX graph, as nsvm export --format onnx does."""
        err = ctypes.c_void_p()
        _check(_lib.nsvm_model_export_onnx(self.handle, os.fsencode(path), operators.encode(), ctypes.byref(err)), err)

    def predict(self, inp, labels, decisions=None, scores=None, probabilities=None):
        """Fills the float64 arrays given (None: not wanted) with the predictions of inp."""
        err = ctypes.c_void_p()
        status = _lib.nsvm_predict(
            self.handle,
            ctypes.byref(inp),
            None if labels is None else labels.ctypes.data,
            None if decisions is None else decisions.ctypes.data,
            None if scores is None else scores.ctypes.data,
            None if probabilities is None else probabilities.ctypes.data,
            ctypes.byref(err),
        )
        if status != OK:
            _check(status, err)

    def __reduce__(self):
        return (Model.from_bytes, (self.to_bytes(),))


def fit(inp, y, names, weights, config, progress=None):
    """Trains a model: returns (Model, warning or None).

    inp is an Input, y a float64 array, names None or the sorted label names,
    weights None or a float64 array, config a dict (FitConfig's fields, see
    capi/config.go), progress None or a function of a report dict that returns
    False to stop. The fit runs on a thread of its own so that an interrupt
    (Ctrl-C) stops it; the progress function's exceptions stop it too and are
    raised again here.
    """
    return _train(None, inp, y, names, weights, config, progress)


def continue_(model, inp, y, names, weights, config, progress=None):
    """Trains model on from the rows inp (nsvm_continue): returns (Model,
    warning or None), model unchanged. The arguments are fit's; config holds
    ContinueConfig's fields."""
    return _train(model, inp, y, names, weights, config, progress)


def _train(model, inp, y, names, weights, config, progress):
    stop = ctypes.c_int32(0)
    raised = []

    def report(_user, data, size):
        try:
            keep = progress(json.loads(ctypes.string_at(data, size)))
            return 0 if keep is None or keep else 1
        except BaseException as e:  # noqa: B902 - raised again by fit
            raised.append(e)
            return 1

    cb = PROGRESS(report) if progress is not None else PROGRESS()
    names_arr = None
    if names is not None:
        names_arr = (ctypes.c_char_p * max(len(names), 1))(*[s.encode("utf-8") for s in names])
    cfg = json.dumps(config).encode("utf-8")
    h = ctypes.c_size_t()
    warning = ctypes.c_void_p()
    err = ctypes.c_void_p()
    result = []
    args = (
        ctypes.byref(inp),
        y.ctypes.data,
        None if names_arr is None else ctypes.cast(names_arr, ctypes.c_void_p),
        0 if names is None else len(names),
        None if weights is None else weights.ctypes.data,
        cfg,
        cb,
        None,
        ctypes.byref(stop),
        ctypes.byref(h),
        ctypes.byref(warning),
        ctypes.byref(err),
    )

    def run():
        if model is None:
            result.append(_lib.nsvm_fit(*args))
        else:
            result.append(_lib.nsvm_continue(model.handle, *args))

    t = threading.Thread(target=run, name="nsvm-fit", daemon=True)
    t.start()
    try:
        while t.is_alive():
            t.join(0.25)
    except BaseException:
        stop.value = 1
        t.join()
        if result and result[0] == OK and h.value:
            Model(h.value)  # freed at once
        _take(warning)
        _take(err)
        raise
    status = result[0]
    if raised:
        if status == OK:
            Model(h.value)
        _take(warning)
        _take(err)
        raise raised[0]
    _check(status, err)
    return Model(h.value), (_take(warning) or None)


def params():
    """The training parameters the library takes (its search.Params): a list
    of dicts with field, flag, key, python, values, tasks, default, doc."""
    out, err = ctypes.c_void_p(), ctypes.c_void_p()
    _check(_lib.nsvm_config_params(ctypes.byref(out), ctypes.byref(err)), err)
    return json.loads(_take(out))
