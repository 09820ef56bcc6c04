# Writes the SciPy sparse .npz files of the data tests (sparse_npz_test.go):
# python3 make.py, in this directory (SciPy 1.10, NumPy 1.24).
import numpy as np
import scipy.sparse as sp

X = np.array([
    [0, 1.5, 0, 0, -2, 0, 0],
    [0, 0, 0, 0, 0, 0, 0],
    [3, 0, 0, 0.25, 0, 0, 1],
    [0, 0, -0.125, 0, 0, 0, 0],
    [0, 4, 0, 0, 0, 5, 0],
])
y = np.array([1, 0, 1, 2, 0], dtype=np.int64)
w = np.array([1, 0.5, 2, 1, 0])

csr = sp.csr_matrix(X.astype(np.float32))
sp.save_npz("csr.npz", csr)  # compressed, data float32, indices int32
sp.save_npz("csr_stored.npz", csr, compressed=False)
sp.save_npz("csc.npz", sp.csc_matrix(X))  # float64
sp.save_npz("coo.npz", sp.coo_matrix(X))
np.save("y.npy", y)


def arrays(m):
    return dict(indices=m.indices, indptr=m.indptr, format=m.format.encode("ascii"), shape=m.shape, data=m.data)


# int64 indices and float64 data, with the labels y in the archive.
m = sp.csr_matrix(X)
a = arrays(m)
a["indices"] = a["indices"].astype(np.int64)
a["indptr"] = a["indptr"].astype(np.int64)
np.savez_compressed("csr_i8_y.npz", y=y, **a)

# Column indices out of order within rows and a duplicate (summed), as
# scipy.sparse keeps them until sort_indices and sum_duplicates; and the
# weights w.
m = sp.csr_matrix((np.array([-2, 1.5, 0.25, 1, 1, 2, -0.125, 5, 4]),
                   np.array([4, 1, 3, 6, 0, 0, 2, 5, 1]),
                   np.array([0, 2, 2, 6, 7, 9])), shape=(5, 7))
assert not m.has_canonical_format and np.array_equal(m.toarray(), X)
np.savez("csr_unsorted_w.npz", y=y, w=w, **arrays(m))

# The golden file: what WriteSparseNPZ writes, as numpy.savez writes it.
np.savez("golden.npz", **arrays(sp.csr_matrix(X.astype(np.float32))), y=y.astype(np.float64))

# Malformed files.
a = arrays(sp.csr_matrix(X))
a["indices"] = a["indices"].copy()
a["indices"][2] = 7
np.savez("bad_index.npz", y=y, **a)
a = arrays(sp.csr_matrix(X))
a["indptr"] = a["indptr"][:-1]
np.savez("bad_indptr.npz", y=y, **a)
a = arrays(sp.csr_matrix(X))
a["data"] = a["data"][:-1]
np.savez("bad_data.npz", y=y, **a)
a = arrays(sp.csr_matrix(X))
a["format"] = b"dia"
np.savez("bad_format.npz", y=y, **a)
np.savez("bad_y.npz", y=y[:4], **arrays(sp.csr_matrix(X)))
a = arrays(sp.csr_matrix(X))
a["data"] = a["data"].copy()
a["data"][0] = np.nan
np.savez("nan.npz", y=y, **a)
a = arrays(sp.csr_matrix(X))
del a["indptr"]
np.savez("no_indptr.npz", y=y, **a)
