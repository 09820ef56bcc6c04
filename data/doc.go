// Package data holds labelled data sets in memory and moves them between
// files and the trainers: readers and writers for LIBSVM text, CSV, MNIST
// IDX and NumPy .npy/.npz files, a streaming reader, standardization and
// random splits. The generated data sets (Ringnorm, Friedman #1) and the
// MNIST fetcher are in package data/datasets.
//
// # Model
//
// A Dataset is N points x_1 … x_N ∈ ℝ^D with labels y_i (the paper's
// training set S = {(x_i, y_i)}, §2). X holds the points row-major as float32
// (row i is X[i·D:(i+1)·D], see Row); Y holds the labels as float64 exactly as
// read, so class labels keep their original values (Ringnorm 1/2, MNIST
// digits 0–9) and regression targets are allowed. Shape is the shape of one
// input for networks that care (MNIST: {1, 28, 28}, channels first); nil means
// a flat vector of D features.
//
// The SVM side of the paper wants y ∈ {−1, +1}. BinaryLabels makes that
// mapping for a two-class data set (smaller label ↦ −1, larger ↦ +1) and
// returns a LabelMap that turns a decision value back into an original label
// (decision ≥ 0 ↦ Pos).
//
// # Conventions
//
// Functions never mutate their inputs except Standardizer.Apply and ApplyRow,
// which work in place, as their names say. Subset, Split, StratifiedHoldout
// and FilterLabels copy rows. Randomness comes only from the *rand.Rand the
// caller passes; the same seed gives the same data and the same splits.
//
// A Dataset with Y nil has no labels: rows to be scored (see Dataset).
//
// Failures that depend on the data (a malformed file, NaN values, one class
// only) are returned as errors starting with "data: ". Errors from readers
// name the file and, for text formats, the 1-based line, and quote at most
// 80 characters of a value (Quote); some are typed (*WidthError,
// *MissingValueError, ErrLineTooLong, ErrNoLabels):
//
//	data: train.txt:12: feature index 0, indices are 1-based
//
// Programmer errors (slice lengths that disagree with N and D, an
// out-of-range row or split size) panic with the same prefix.
//
// # Formats
//
//   - LIBSVM text (ReadLIBSVM, WriteLIBSVM): "label index:value …", sparse,
//     1-based increasing indices, '#' comments; lines without a label
//     ("index:value …") for rows to be scored.
//   - CSV (ReadCSV, WriteCSV): one point per record, label column selectable
//     (CSVOptions.LabelCol: by default, LabelAuto, the header field named
//     "label", "class", "target", …, else the last column, as nsvm train
//     reads it; LabelFirst, LabelLast or a column number), header row
//     detected or forced, an optional column of sample weights
//     (CSVOptions.WeightCol, into Dataset.W). A label
//     column that is not all numbers holds class names: Dataset.LabelNames
//     lists them sorted and Y indexes them. A first row with text is a
//     header when its text sits over columns of numbers, data when its
//     values recur below (names, categories). A feature column
//     with text in it is categorical: Dataset.Columns lists its sorted
//     categories and X holds one 0/1 feature per category (one-hot). Rows
//     whose dense features would not fit in memory are kept sparse
//     (Dataset.Sparse, every category) when they are wide and mostly
//     zeros (SparseLayout), else the most frequent categories are kept,
//     the others grouped (Column.Other); a header names the columns (Column.Name,
//     Dataset.LabelColumn). CSVOptions.Columns reads a file with given
//     columns (a model's): by name when both have names, else by
//     position; a file without the label column has no labels. A
//     missing value (empty, NA, ?, …) is a category in a text column and
//     an error that says so in a column of numbers. A text column whose
//     every value but the missing ones is a date in one format is a column
//     of dates (Column.Dates), however many distinct values it has: ISO
//     8601 (2024-03-05, with a time 2024-03-05T14:30:00 or with a space,
//     seconds and fractions optional, Z or an offset ±hh:mm), 2024/03/05,
//     2024.03.05, and day or month first (05/03/2024, 05-03-2024,
//     05.03.2024) only when some value's day is past the 12th, which tells
//     the order: else the column is categorical. Its DateWidth features are
//     DateFeatures: days since 1970-01-01 (fractional with a time), year,
//     month (1–12), day of the week (0 Monday … 6 Sunday), of the instant
//     the value names (no offset: UTC), in UTC. A missing date is an error
//     unless FillMissing, which fills each feature with its mean
//     (Column.DateFill); read with the columns, a value that is not a date
//     of the column's format is an error naming its line and column. An
//     unnamed first column holding 0, 1, …, N−1 in order, the index pandas'
//     DataFrame.to_csv writes, is left out (Column.RowIndex, with a
//     notice; a stream judges by its first megabyte, see OpenStream), and
//     a file read with those columns may have it or not.
//     WriteCSV puts the
//     label (or its name) first under a header "label,x1,…", and the
//     features as X holds them.
//   - IDX (ReadIDXImages, ReadIDXLabels, WriteIDXImages, WriteIDXLabels,
//     LoadMNIST): the MNIST distribution format; gzip is detected. Readers
//     allocate in proportion to the bytes actually present, never to the
//     sizes a header claims.
//   - NumPy (ReadNPY, ReadNPYLabels, OpenNPY, OpenNPZ, WriteNPY,
//     WriteNPYLabels, WriteNPZ): a .npy of X (rows × features, or rows × an
//     image shape kept as Shape) with a .npy of y, or a .npz holding X.npy
//     and y.npy (and w.npy, sample weights). X may be float32, float64,
//     int8–64, uint8–64 or bool and y any of these, little-endian in C
//     order. WriteNPZ stores its arrays uncompressed with X's data aligned,
//     so that opening it maps the file.
//   - SciPy sparse matrices (OpenNPZ, WriteSparseNPZ): a .npz as
//     scipy.sparse.save_npz writes it (csr, csc or coo; compressed or not;
//     int32 or int64 indices), with the labels in an array y added to the
//     archive or in a .npy (OpenOptions.Labels), and weights in an array w.
//     Its rows are kept sparse when wide and sparse (OpenOptions.Layout).
//     WriteSparseNPZ writes a canonical float32 csr matrix, y and w, which
//     scipy.sparse.load_npz reads.
//   - Sample weights alone (ReadWeights): one number a line, or a .npy.
//
// # Text and its bounds
//
// Every text reader reads UTF-8: it drops a leading UTF-8 byte-order mark,
// refuses UTF-16 and UTF-32 text (told by their marks or by the zero bytes
// of their first characters) with an error wrapping ErrEncoding, reads
// lines ended by '\r' alone (old Mac files) as lines, refuses empty
// lines (a file's final newline is not one) and lines longer than
// MaxLineBytes, and reads numbers in the syntax of internal/numparse:
// plain decimals, no "1_000", "0x1p3" or "inf". What a file may make a
// reader allocate is bounded by its size, MemoryBudget (four times it and
// 200 MiB), checked before allocating: a width inferred from a sparse
// index or a shape at most MaxWidth (OpenOptions.Dim gives a larger one),
// dense rows from sparse text within the budget (else sparse rows), the
// one-hot features of text columns within half of it. A compressed file's
// size bounds nothing until it is decompressed: every gzip member is read
// (as gzip -dc reads them), and a reader that holds the content whole stops
// with a *TooLargeError (ErrTooLarge) once it passes MemoryBudget of the
// compressed size, at least StreamBytes, where OpenStream reads on in
// bounded memory. What a reader did
// that its caller may show (columns ignored, categories grouped) is in
// Dataset.Notices.
//
// Writers format numbers in their shortest exact form, so a write followed
// by a read gives back the same float32 features and float64 labels. Open
// reads any of these from a path, guessing the format when none is given.
//
// # Large files
//
// Open parses a regular LIBSVM or CSV file in parallel over line-aligned
// chunks straight into one allocation (a first pass counts the lines of
// every chunk); ReadLIBSVM, ReadCSV and Open on a gzipped file read the
// stream in chunks parsed in parallel, whose rows are gathered in order in
// segments outside the Go heap (anonymous mappings on Unix) and copied at
// the end into one allocation, each segment released as soon as it is
// copied, so that the data are not held twice. Numbers are parsed by internal/numparse, whose results equal
// strconv's; anything off the fast path goes to the sequential reference
// code, so the data and the errors (with file and line) are the
// sequential readers' whatever the chunking.
//
// A float32 X from an uncompressed .npy or a stored .npz aliases a
// copy-on-write memory mapping of the file (Dataset.Mapped): opening costs
// no reading, writes stay private to the process, and Dataset.Close
// releases the mapping (X must not be used after it; without Close it
// lives until the process ends).
//
// OpenStream reads LIBSVM, CSV (gzipped too), .npy and .npz files in
// blocks of rows (Stream.Next) in memory bounded by the block and the
// reader's buffers, with Rewind for another epoch. A wide, sparse LIBSVM
// file (Stream.Layout) reads in blocks of sparse rows (Stream.ReadSparse),
// never D values a row.
//
// # Experiments (paper §5)
//
// Ringnorm (§5.1; datasets.Ringnorm) draws Breiman's two Gaussian classes
// in 20 dimensions; the DELVE file of 7400 rows reads with ReadCSV (label
// column "Class", last). The protocol splits 6660/740 with Split, holds out 200 rows per class for
// validation with StratifiedHoldout, and standardizes with the training
// set's mean and sample standard deviation (FitStandardizer, then Apply to
// every set). MNIST (§5.2): datasets.FetchMNIST puts the four IDX files in a
// directory, LoadMNIST with digits {0, 1} gives 12665 training and 2115 test
// images with pixels/255, and StratifiedHoldout(…, 500, …) the validation
// split.
package data
