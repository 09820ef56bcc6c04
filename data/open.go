package data

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nsvm-go/nsvm/internal/numparse"
)

// OpenOptions configure Open. The zero value guesses the format and reads a
// whole file with the defaults of each reader.
type OpenOptions struct {
	// Format is "libsvm", "csv", "idx", "npy", "npz", or "" to guess it
	// from the file name (.csv; .libsvm, .svm; -ubyte, .idx; .npy; .npz)
	// and otherwise from the content (IDX, NumPy and zip magic numbers;
	// "label index:value" lines; commas).
	Format string
	// Dim is the number of features of LIBSVM data (see ReadLIBSVM) and
	// of a SciPy sparse .npz (at least its matrix's columns), whole or
	// streamed; 0 infers it from the largest index or the shape, within
	// MaxWidth of the file's size (beyond, a *WidthError that Dim lifts).
	Dim int
	// CSV configures CSV reading.
	CSV CSVOptions
	// Labels is the IDX labels file (empty: the images file's name with
	// "images-idx3" replaced by "labels-idx1", in the same directory), or
	// the .npy file of the labels y when the data file is a .npy of the
	// features X (required then) or a .npz of a SciPy sparse matrix saved
	// without them (scipy.sparse.save_npz writes none; see OpenNPZ).
	Labels string
	// Digits keeps only IDX images of these digits; nil keeps all.
	Digits []int
	// Layout is LayoutAuto (""), LayoutDense or LayoutSparse: the rows of
	// LIBSVM text and SciPy sparse .npz files are kept sparse when they are
	// wide and sparse (SparseLayout), or as asked. Other formats are dense.
	Layout string
}

// Open reads a data set from a file in LIBSVM, CSV, IDX, NumPy .npy or
// .npz (X and y, or a SciPy sparse matrix) format. Files may be
// gzip-compressed (detected from their first bytes; not .npz; every member
// of a file of several), and are read whole only while their content stays
// within MemoryBudget of the compressed size, at least StreamBytes: beyond,
// the error wraps ErrTooLarge and the file is read as a stream
// (OpenStream). For IDX,
// path is the images file and the labels file comes from opt.Labels or
// the name; for .npy, path holds X and opt.Labels names the .npy of y (see
// OpenNPY, OpenNPZ). A float32 X in an uncompressed .npy or a stored .npz
// is memory-mapped (see Dataset.Close). The zero OpenOptions read a CSV
// file as nsvm train does (CSVOptions, LabelAuto).
func Open(path string, opt OpenOptions) (*Dataset, error) {
	if err := checkLayout(opt.Layout); err != nil {
		return nil, err
	}
	format := opt.Format
	if format == "" {
		var err error
		if format, err = guessFormat(path); err != nil {
			return nil, err
		}
	}
	switch format {
	case "idx":
		labels := opt.Labels
		if labels == "" {
			dir, base := filepath.Split(path)
			if !strings.Contains(base, "images-idx3") {
				return nil, fmt.Errorf("data: %s: cannot name the labels file (the name has no \"images-idx3\"); give it explicitly", path)
			}
			labels = filepath.Join(dir, strings.Replace(base, "images-idx3", "labels-idx1", 1))
		}
		return LoadMNIST(path, labels, opt.Digits)
	case "npy":
		if opt.Labels == "" {
			return nil, fmt.Errorf("data: %s: a .npy file holds the features X only; give the .npy file of the labels y (OpenOptions.Labels, --labels), or use a .npz holding X and y", path)
		}
		return OpenNPY(path, opt.Labels)
	case "npz":
		return openNPZ(path, opt)
	case "libsvm", "csv":
	default:
		return nil, fmt.Errorf("data: unknown format %q (want libsvm, csv, idx, npy or npz)", format)
	}
	if format == "csv" && opt.CSV.Comma == 0 {
		opt.CSV.Comma = sniffComma(path)
	}
	if ds, ok := readFast(path, format, opt); ok {
		return ds, nil
	}
	r, f, _, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readText(r, path, format, opt)
}

// readText reads LIBSVM ("libsvm") or CSV ("csv", opt.CSV.Comma set)
// text, decompressed.
func readText(r io.Reader, name, format string, opt OpenOptions) (*Dataset, error) {
	if format == "libsvm" {
		return readLIBSVM(r, name, opt.Dim, maxDenseValues, opt.Layout)
	}
	return ReadCSV(r, name, opt.CSV)
}

// sniffWindow is how much of a stream OpenReader looks at to guess its
// format and CSV separator, as Open looks at the start of a file.
const sniffWindow = 1 << 20

// OpenReader reads a data set in LIBSVM or CSV text from r, as Open reads a
// file in that format: r may be gzip-compressed (detected from its first
// bytes), and the rows, labels and errors are those Open gives for a file
// holding the same bytes. name names the source in errors and, when
// opt.Format is "", gives the format by its extension as Open's does
// (.csv, .tsv; .libsvm, .svm; a trailing .gz ignored); else the content
// decides, as it does for Open. A CSV separator not given (opt.CSV.Comma
// 0) is taken from the first line that is not blank. IDX and NumPy data
// need files (Open). OpenReader reads r to its end and does not close it.
// Compressed input is read whole only while its content stays within
// MemoryBudget of r's size (at least StreamBytes; see ErrTooLarge).
func OpenReader(r io.Reader, name string, opt OpenOptions) (*Dataset, error) {
	if err := checkLayout(opt.Layout); err != nil {
		return nil, err
	}
	zr, _, err := Uncompressed(r)
	if err != nil {
		return nil, fmt.Errorf("data: %s: %w", name, err)
	}
	limitWhole(zr, name, sizeOf(r))
	br := bufio.NewReaderSize(zr, sniffWindow)
	head, err := br.Peek(sniffWindow)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, fmt.Errorf("data: %s: %w", name, err)
	}
	format := opt.Format
	if format == "" {
		format = FormatOf(name, head)
	}
	switch format {
	case "libsvm", "csv":
	case "":
		return nil, fmt.Errorf("data: %s: cannot tell the format from the name or the content; give it (libsvm or csv)", name)
	case "idx", "npy", "npz":
		return nil, fmt.Errorf("data: %s: %s data are read from a file (Open), not a stream", name, format)
	default:
		return nil, fmt.Errorf("data: unknown format %q (want libsvm or csv)", format)
	}
	if format == "csv" && opt.CSV.Comma == 0 {
		opt.CSV.Comma = commaIn(bytes.NewReader(head))
	}
	return readText(br, name, format, opt)
}

// FormatOf names the format that Open and OpenReader take data of this
// name, starting with the bytes head, to be in when OpenOptions.Format is
// "": "libsvm", "csv", "idx", "npy", "npz", or "" when neither the name
// nor the content tells. head is the start of the decompressed content;
// its first megabyte is looked at.
func FormatOf(name string, head []byte) string {
	if format := formatOfName(name); format != "" {
		return format
	}
	return sniffFormat(bytes.NewReader(head))
}

// formatOfName names the format a file name says, or "".
func formatOfName(path string) string {
	base := strings.ToLower(filepath.Base(path))
	base = strings.TrimSuffix(base, ".gz")
	switch {
	case strings.HasSuffix(base, ".csv"), strings.HasSuffix(base, ".tsv"):
		return "csv"
	case strings.HasSuffix(base, ".libsvm"), strings.HasSuffix(base, ".svm"):
		return "libsvm"
	case strings.HasSuffix(base, "-ubyte"), strings.HasSuffix(base, ".idx"):
		return "idx"
	case strings.HasSuffix(base, ".npy"):
		return "npy"
	case strings.HasSuffix(base, ".npz"):
		return "npz"
	}
	return ""
}

// otherFormats are the names of files of formats the readers do not read,
// by their extension, and how pandas (or SciPy) reads each, to convert it.
var otherFormats = []struct{ ext, what, read string }{
	{".xlsx", "a spreadsheet", "pd.read_excel(path)"},
	{".xlsm", "a spreadsheet", "pd.read_excel(path)"},
	{".xls", "a spreadsheet", "pd.read_excel(path)"},
	{".ods", "a spreadsheet", "pd.read_excel(path)"},
	{".parquet", "a Parquet file", "pd.read_parquet(path)"},
	{".feather", "a Feather file", "pd.read_feather(path)"},
	{".json", "a JSON file", "pd.read_json(path)"},
	{".jsonl", "a file of JSON lines", "pd.read_json(path, lines=True)"},
	{".ndjson", "a file of JSON lines", "pd.read_json(path, lines=True)"},
	{".pkl", "a pickle", "pd.read_pickle(path)"},
	{".pickle", "a pickle", "pd.read_pickle(path)"},
	{".h5", "an HDF5 file", "pd.read_hdf(path)"},
	{".hdf5", "an HDF5 file", "pd.read_hdf(path)"},
	{".dta", "a Stata file", "pd.read_stata(path)"},
	{".sav", "an SPSS file", "pd.read_spss(path)"},
	{".sas7bdat", "a SAS file", "pd.read_sas(path)"},
	{".arff", "an ARFF file", "pd.DataFrame(scipy.io.arff.loadarff(path)[0])"},
}

// guessFormat names the format of a file from its name, or else from its
// first bytes. A file named as one of otherFormats is an error that says
// how to convert it.
func guessFormat(path string) (string, error) {
	if format := formatOfName(path); format != "" {
		return format, nil
	}
	base := strings.ToLower(strings.TrimSuffix(filepath.Base(path), ".gz"))
	for _, o := range otherFormats {
		if strings.HasSuffix(base, o.ext) {
			return "", fmt.Errorf("data: %s: %s is not read (nsvm reads LIBSVM text, CSV, NumPy .npy and .npz, and IDX); write it as CSV, e.g. with pandas: %s.to_csv(\"data.csv\", index=False)", path, o.what, o.read)
		}
	}
	r, f, _, err := openFile(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if format := sniffFormat(r); format != "" {
		return format, nil
	}
	return "", fmt.Errorf("data: %s: cannot tell the format from the name or the content; give it (libsvm, csv, idx, npy or npz)", path)
}

// sniffFormat guesses the format from the start of a stream: the IDX
// images, NumPy or zip magic number, or the first line that is not blank
// or a comment.
func sniffFormat(r io.Reader) string {
	br := bufio.NewReader(io.LimitReader(r, 1<<20))
	head, _ := br.Peek(6)
	switch {
	case len(head) >= 4 && head[0] == 0 && head[1] == 0 && head[2] == 8 && head[3] == 3:
		return "idx"
	case string(head) == npyMagic:
		return "npy"
	case isZip(head):
		return "npz"
	}
	for {
		line, err := br.ReadString('\n')
		if k := strings.IndexByte(line, '#'); k >= 0 {
			line = line[:k]
		}
		if f := strings.Fields(line); len(f) > 0 {
			switch {
			case len(f) > 1 && strings.Contains(f[1], ":") && !strings.Contains(line, ","):
				return "libsvm"
			case strings.Contains(line, ","):
				return "csv"
			case strings.ContainsAny(line, ";\t"):
				return "csv" // separated by semicolons or tabs
			case len(f) == 1 && isNumber(f[0]):
				return "libsvm" // a label alone: a row of zeros
			case len(f) > 1 && !strings.Contains(line, ":") && spaceTable(f, br):
				return "csv" // separated by spaces (Spaces)
			}
			return ""
		}
		if err != nil {
			return ""
		}
	}
}

// spaceTable reports whether first, the fields of a first line separated
// by spaces, start a table of numbers: numbers themselves, or a header
// whose next line that is not blank (read from br) has as many fields, a
// number among them. A line of prose is not one.
func spaceTable(first []string, br *bufio.Reader) bool {
	if !slices.ContainsFunc(first, func(f string) bool { return !isNumber(f) }) {
		return true
	}
	for {
		line, err := br.ReadString('\n')
		if strings.TrimSpace(line) != "" {
			// The fields as the reader takes them, quoted ones whole.
			b, _ := io.ReadAll(newSpaceFields(strings.NewReader(strings.TrimSpace(line))))
			f := strings.Split(string(b), "\t")
			return len(f) == len(first) && slices.ContainsFunc(f, isNumber)
		}
		if err != nil {
			return false
		}
	}
}

// sniffComma returns the field separator of the CSV file at path: ',' if
// its first line that is not blank or a '#' comment has one (outside
// quotes), else ';' or a tab if it has one of those (as files written with
// a decimal comma have), else Spaces if it has two or more fields
// separated by spaces, else ','.
func sniffComma(path string) rune {
	r, f, _, err := openFile(path)
	if err != nil {
		return ','
	}
	defer f.Close()
	return commaIn(r)
}

// commaIn is sniffComma on the start of a stream.
func commaIn(r io.Reader) rune {
	br := bufio.NewReader(io.LimitReader(r, sniffWindow))
	comment := "" // the first line that starts with '#', if it came first
	for {
		line, err := br.ReadString('\n')
		switch t := strings.TrimSpace(line); {
		case t == "":
		case strings.HasPrefix(t, "#"):
			// A comment, or a header as NumPy's savetxt writes it ("# a
			// b c"): the separator is the next line's.
			if comment == "" {
				comment = line
			}
		default:
			return commaOf(line)
		}
		if err != nil {
			if comment != "" {
				return commaOf(comment)
			}
			return ','
		}
	}
}

// commaOf picks the separator of one CSV line (see sniffComma).
func commaOf(line string) rune {
	count := map[rune]int{}
	quoted := false
	for _, c := range line {
		switch {
		case c == '"':
			quoted = !quoted
		case !quoted && (c == ',' || c == ';' || c == '\t'):
			count[c]++
		}
	}
	for _, c := range []rune{',', ';', '\t'} {
		if count[c] > 0 {
			return c
		}
	}
	if len(strings.Fields(line)) > 1 {
		return Spaces
	}
	return ','
}

// isNumber reports whether s stands for a number (numparse.IsNumber): a
// plain decimal number, or inf or nan.
func isNumber(s string) bool { return numparse.IsNumber(s) }
