// Package vec holds the hot loops of nsvm: dot products, axpy, squared
// distances, a vectorised exp and single-precision GEMM/GEMV.
//
// All data is float32 and row-major. Functions that write take the
// destination first and end in To where they fill a caller-owned slice;
// inputs are never mutated. Length mismatches are programmer errors and
// panic with a "vec:" prefix.
//
// Every function has a pure-Go reference implementation in this package.
// Faster paths (amd64 assembly) sit behind one seam per function and are
// selected at run time from the CPU's features; building with the noasm tag
// forces the pure-Go code everywhere. Tests compare each fast path against its
// reference.
package vec
