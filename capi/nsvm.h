/*
 * nsvm.h: the types of nsvm's C ABI (libnsvm, built with
 *   go build -buildmode=c-shared -o libnsvm.so ./capi
 * which also writes libnsvm.h, the functions' prototypes, next to it).
 *
 * Conventions. Every function returns an nsvm_status; on anything but
 * NSVM_OK it sets *err (when err is not NULL) to a message the caller
 * frees with nsvm_free. A model is a handle (nsvm_model) the caller frees
 * with nsvm_model_free; a model predicts from many threads at once. Strings
 * and buffers the library returns are freed with nsvm_free. Inputs are
 * never modified, and nothing the caller passes is kept after a call
 * returns.
 */
#ifndef NSVM_H
#define NSVM_H

#include <stdint.h>

typedef uintptr_t nsvm_model;
typedef int32_t nsvm_status;

enum {
	NSVM_OK = 0,
	NSVM_ERR_DATA = 1,     /* the data cannot be used (ValueError)         */
	NSVM_ERR_CONFIG = 2,   /* the configuration cannot work (ValueError)   */
	NSVM_ERR_CANCELED = 3, /* stopped by *stop or the progress callback    */
	NSVM_ERR_FAILED = 4,   /* anything else: training failed, I/O, ...     */
	NSVM_ERR_INTERNAL = 5, /* a bug in nsvm (a recovered panic)            */
	NSVM_ERR_MEMORY = 6    /* the data need more memory than the bound
	                          (MemoryError); refused before allocating it */
};

/* Kinds of input (nsvm_input.kind). */
enum {
	NSVM_DENSE = 0, /* rows × cols values, row-major or column-major        */
	NSVM_CSR = 1,   /* compressed sparse rows: indptr, indices, values      */
	NSVM_CSV = 2    /* CSV text, read as nsvm train reads a CSV file        */
};

/* Element types (nsvm_input.dtype, index_dtype). */
enum { NSVM_F32 = 0, NSVM_F64 = 1, NSVM_I32 = 2, NSVM_I64 = 3 };

/*
 * nsvm_input is a block of rows.
 *
 * NSVM_DENSE: values holds rows × cols numbers of type dtype (NSVM_F32 or
 * NSVM_F64), row after row, or column after column when fortran is 1.
 *
 * NSVM_CSR: row i's nonzeros are values[indptr[i] .. indptr[i+1]) at the
 * 0-based columns indices[...] (strictly increasing within a row); indptr
 * (rows + 1 entries) and indices (nnz entries) are of type index_dtype
 * (NSVM_I32 or NSVM_I64), values of type dtype.
 *
 * NSVM_CSV: values points to nnz bytes of CSV text: a header line naming
 * the columns, then one line per row whose last field is a label the
 * library ignores (the labels come as an argument of nsvm_fit). The
 * feature columns are read as nsvm train reads a CSV file: a column with
 * text in it is categorical (one-hot), a missing value in a column of
 * numbers is an error unless fill_missing is 1 (the column's mean, kept in
 * the model). For prediction the model's columns encode the text. rows
 * must be the number of data lines; cols is ignored.
 */
typedef struct {
	int32_t kind;
	int32_t dtype;
	int32_t fortran;
	int32_t index_dtype;
	int64_t rows;
	int64_t cols;
	const void *values;
	const void *indptr;
	const void *indices;
	int64_t nnz;
	int32_t fill_missing;
} nsvm_input;

/*
 * nsvm_progress_fn receives each progress report of nsvm_fit as JSON
 * (len bytes, not NUL-terminated): Fit's FitProgress with snake_case keys.
 * Reports come one at a time, from threads of the library's. A nonzero
 * return value stops the fit (nsvm_fit then returns NSVM_ERR_CANCELED).
 */
typedef int32_t (*nsvm_progress_fn)(void *user, const char *json, int64_t len);

#endif
