package data

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/nsvm-go/nsvm/internal/atomicfile"
)

// SaveFormat names the format Save writes to path, from its extension:
// "csv" (.csv), "libsvm" (.libsvm, .svm, .txt), "npy" or "npz"; "" for
// any other extension.
func SaveFormat(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		return "csv"
	case ".libsvm", ".svm", ".txt":
		return "libsvm"
	case ".npy":
		return "npy"
	case ".npz":
		return "npz"
	}
	return ""
}

// NPYLabelsPath is where Save writes the labels of a .npy path unless told
// otherwise: path with its extension replaced by _y.npy.
func NPYLabelsPath(path string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + "_y.npy"
}

// Save writes ds to path in the format its extension names (SaveFormat):
// CSV with the label first under a header (WriteCSV), LIBSVM text, a .npz
// of X and y stored uncompressed (so that it opens memory-mapped), or a
// .npy of X as float32 with y as float64 in the .npy at labelsPath
// (default NPYLabelsPath(path)). Every file is written through a
// temporary file and renamed, so that a failure leaves no partial file; a
// .npy pair is written labels first, and the labels are removed again if
// X fails. Formats without class names keep Y's numbers.
//
// Sparse rows are written without making the data set dense: as CSV (an
// error when its zeros would take more than MemoryBudget of the rows'
// size) and LIBSVM text, or as a .npz in SciPy's sparse layout with the labels y
// (WriteSparseNPZ; scipy.sparse.load_npz reads it); a .npy holds dense
// rows only, and is an error. Sample weights (Dataset.W) go into a CSV
// file's weight column and a .npz's array w; LIBSVM text and a .npy pair
// have no place for them, and are an error (set W to nil to leave them
// out).
func Save(path string, ds *Dataset, labelsPath string) error {
	format := SaveFormat(path)
	if format == "" {
		return fmt.Errorf("data: cannot tell the format of %s from its extension (want .csv, .libsvm, .svm, .txt, .npy or .npz)", path)
	}
	if labelsPath != "" && format != "npy" {
		return fmt.Errorf("data: a labels file is for a .npy of X, not %s", path)
	}
	if ds.Y == nil && format != "csv" && format != "libsvm" {
		return fmt.Errorf("%w: %s holds labels; save rows without them as .csv or LIBSVM text", ErrNoLabels, path)
	}
	if ds.W != nil && (format == "libsvm" || format == "npy") {
		return fmt.Errorf("data: %s: %s has no place for the sample weights; save to .csv or .npz, or leave the weights out (Dataset.W = nil)", path, map[string]string{"libsvm": "LIBSVM text", "npy": "a .npy pair"}[format])
	}
	switch format {
	case "csv":
		if ds.Sparse != nil {
			// Every zero is written: at least "0," a value. Refused when
			// that dwarfs the rows' own size (MemoryBudget of it).
			text, own := 2*float64(ds.N)*float64(ds.D), int64(ds.Sparse.NNZ())*8+int64(ds.N)*8
			if text > float64(MemoryBudget(own)) {
				return fmt.Errorf("data: %s: %d sparse rows of %d features (%d nonzeros) would be at least %s of CSV text, every zero written; save them as LIBSVM text or .npz, which keep them sparse",
					path, ds.N, ds.D, ds.Sparse.NNZ(), byteSize(int64(min(text, 1<<62))))
			}
		}
		return saveFile(path, func(w io.Writer) error { return WriteCSV(w, ds, true) })
	case "libsvm":
		return saveFile(path, func(w io.Writer) error { return WriteLIBSVM(w, ds) })
	case "npz":
		if ds.Sparse != nil {
			return saveFile(path, func(w io.Writer) error { return WriteSparseNPZ(w, ds) })
		}
		return saveFile(path, func(w io.Writer) error { return WriteNPZ(w, ds) })
	}
	if err := denseOnly(ds, path+": a .npy holds dense rows"); err != nil {
		return err
	}
	if labelsPath == "" {
		labelsPath = NPYLabelsPath(path)
	}
	if err := saveFile(labelsPath, func(w io.Writer) error { return WriteNPYLabels(w, ds.Y) }); err != nil {
		return err
	}
	if err := saveFile(path, func(w io.Writer) error { return WriteNPY(w, ds) }); err != nil {
		os.Remove(labelsPath)
		return err
	}
	return nil
}

// saveFile writes one file of Save.
func saveFile(path string, write func(io.Writer) error) error {
	err := atomicfile.Write(path, func(w io.Writer) error {
		if err := write(w); err != nil {
			return fmt.Errorf("data: writing %s: %w", path, err)
		}
		return nil
	})
	if ae := (*atomicfile.Error)(nil); errors.As(err, &ae) {
		return fmt.Errorf("data: cannot write %s: %w", path, ae.Err)
	}
	return err
}
