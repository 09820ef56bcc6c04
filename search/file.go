package search

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/model"
)

// FileOptions say how FitFile reads its data file.
type FileOptions struct {
	// Open configures the reader (format, CSV columns, width, layout).
	Open data.OpenOptions
	// Stream is "" to choose — a LIBSVM or CSV file of data.StreamBytes
	// or more streams, and so does a compressed one whose content turns
	// out larger than is read whole (data.ErrTooLarge), unless Weights or
	// NoStream ask for the rows whole — "on" to stream, "off" not to.
	Stream string
	// NoStream, when Stream is "", keeps the rows whole whatever their size
	// (checkpoints and their resumption need them).
	NoStream bool
	// Weights is a file of sample weights, one a row (data.ReadWeights);
	// weights need the rows whole.
	Weights string
	// Notice, if not nil, receives one line each what reading the file did
	// that a person should know: columns left out, categories grouped,
	// the choice of a stream.
	Notice func(string)
}

// FileResult is what FitFile trained: the model, rows of the data to score
// it on (the first rows of a stream) and the seconds the reading took
// (of rows read whole).
type FileResult struct {
	Model       *model.Model
	Rows        *data.Dataset
	LoadSeconds float64
}

// FitFile trains on the data file at path as nsvm train does: its rows
// whole (Fit), a stream of them (FitStream) when the file is large (see
// FileOptions.Stream) — a stream of wide, sparse rows is read whole into
// sparse rows, its nonzeros being the bounded form of the data — or rows
// of kernel values (FitPrecomputed) when cfg.Kernel is KernelPrecomputed.
func FitFile(ctx context.Context, path string, fo FileOptions, cfg *FitConfig) (*FileResult, error) {
	notice := func(format string, args ...any) {
		if fo.Notice != nil {
			fo.Notice(fmt.Sprintf(format, args...))
		}
	}
	if cfg != nil && cfg.Kernel == KernelPrecomputed {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("nsvm: %w", err)
		}
		defer f.Close()
		ds, err := ReadPrecomputed(f, path, 0)
		if err != nil {
			return nil, err
		}
		m, err := FitPrecomputed(ctx, ds, cfg)
		return &FileResult{Model: m, Rows: ds}, err
	}
	whole := fo.NoStream || fo.Weights != "" || fo.Open.CSV.WeightCol != "" // rows needed whole
	if fo.Stream == "on" || fo.Stream == "" && !whole && largeFile(path, fo.Open.Format) {
		return fitFileStream(ctx, path, fo, cfg, notice)
	}
	start := time.Now()
	ds, err := data.Open(path, fo.Open)
	if big := (*data.TooLargeError)(nil); errors.As(err, &big) && fo.Stream == "" && !whole && fo.Open.Format != "idx" {
		// A compressed file is known to be large only once decompressed.
		notice("%s decompresses to more than %.1f GiB: training from a stream, in bounded memory", path, float64(big.Limit)/(1<<30))
		return fitFileStream(ctx, path, fo, cfg, notice)
	}
	if err != nil {
		return nil, err
	}
	if err := ds.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", model.ErrBadData, err)
	}
	if fo.Weights != "" {
		if ds.W != nil {
			return nil, configErr("sample weights come from a weights file and a weight column; give one")
		}
		if ds.W, err = data.ReadWeights(fo.Weights, ds.N); err != nil {
			return nil, err
		}
	}
	r := &FileResult{Rows: ds, LoadSeconds: time.Since(start).Seconds()}
	for _, line := range ReadNotices(ds, true) {
		notice("%s", line)
	}
	r.Model, err = Fit(ctx, ds, cfg)
	return r, err
}

// ReadNotices are the lines that tell what reading ds did: columns of
// the file left out as not the model's, categories grouped, and (train)
// feature columns left out as identifiers.
func ReadNotices(ds *data.Dataset, train bool) []string {
	lines := append([]string(nil), ds.Notices...)
	for k, c := range ds.Columns {
		if c.Dropped && !c.RowIndex && !c.Empty && train {
			name := c.Name
			if name == "" {
				name = strconv.Itoa(k)
			}
			lines = append(lines, fmt.Sprintf("feature column %s holds %d different texts (an identifier or free text?); it is left out", name, c.Distinct))
		}
	}
	return lines
}

// largeFile reports whether the LIBSVM or CSV file at path (format, or
// told by its name) is large enough to stream (data.StreamBytes).
func largeFile(path, format string) bool {
	st, err := os.Stat(path)
	if err != nil || st.Size() < data.StreamBytes || format == "idx" {
		return false
	}
	base := strings.ToLower(strings.TrimSuffix(path, ".gz"))
	return format != "" || strings.HasSuffix(base, ".csv") || strings.HasSuffix(base, ".libsvm") || strings.HasSuffix(base, ".svm")
}

// fitFileStream is FitFile on a stream of the file's rows.
func fitFileStream(ctx context.Context, path string, fo FileOptions, cfg *FitConfig, notice func(string, ...any)) (*FileResult, error) {
	if fo.Weights != "" || fo.Open.CSV.WeightCol != "" {
		return nil, configErr("sample weights need the whole data in memory; they do not stream (leave out --stream, or the weights)")
	}
	s, err := data.OpenStream(path, fo.Open)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	for _, line := range s.Notices() {
		notice("%s", line)
	}
	if s.Layout() == data.LayoutSparse && fo.Open.Layout != data.LayoutDense {
		notice("%s holds wide, sparse rows (%d features); reading its nonzeros into memory as sparse rows", path, s.D())
		ds, err := s.ReadSparse(math.MaxInt32)
		if err != nil {
			return nil, err
		}
		if err := ds.Validate(); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", model.ErrBadData, path, err)
		}
		m, err := Fit(ctx, ds, cfg)
		return &FileResult{Model: m, Rows: ds}, err
	}
	m, err := FitStream(ctx, s, cfg)
	if err != nil {
		return &FileResult{Model: m}, err
	}
	// The model is scored on the first rows of the stream.
	if err := s.Rewind(); err != nil {
		return nil, err
	}
	var rows *data.Dataset
	if s.Layout() == data.LayoutSparse {
		rows, err = s.ReadSparse(summaryRows)
	} else {
		rows, err = s.ReadRows(summaryRows)
	}
	return &FileResult{Model: m, Rows: rows}, err
}

// summaryRows is how many rows of a stream FitFile returns to score the
// model on (report.SummaryRows).
const summaryRows = 20000

// OpenFor reads the data file at path as model m takes its rows: with m's
// width, CSV columns and label column, or as rows of kernel values
// (ReadPrecomputed) when m is precomputed. A LIBSVM model's rows meet the
// data at the wider of their widths (model.WidenFor). o carries the
// reader's other options (format, separator, columns to keep); an o.Dim
// other than 0 and m's width is an error. Labelled asks for labels on
// every row (to score or continue m); without it rows may have none.
func OpenFor(m *model.Model, path string, o data.OpenOptions, labelled bool) (*data.Dataset, error) {
	width := m.InSize()
	if m.FromLIBSVM() {
		// LIBSVM's features are an unbounded index space.
		width = 0
	}
	switch {
	case o.Dim > 0 && width > 0 && o.Dim != width:
		return nil, fmt.Errorf("nsvm: %s: rows of %d features asked for, but the model takes %d", path, o.Dim, width)
	case o.Dim == 0:
		o.Dim = width
	}
	if o.CSV.Columns = m.Columns; o.CSV.Columns == nil && width > 0 {
		// A model's features are numbers: a CSV file of as many columns
		// has no labels, one more column holds them.
		o.CSV.Columns = make([]data.Column, width)
	}
	if o.CSV.LabelColumn == "" && o.CSV.LabelCol == data.LabelAuto {
		o.CSV.LabelColumn = m.LabelColumn
	}
	var ds *data.Dataset
	var err error
	if m.Precomputed() {
		var f *os.File
		if f, err = os.Open(path); err != nil {
			return nil, fmt.Errorf("nsvm: %w", err)
		}
		defer f.Close()
		ds, err = ReadPrecomputed(f, path, o.Dim)
	} else {
		ds, err = data.Open(path, o)
	}
	if err != nil {
		return nil, err
	}
	validate := ds.ValidateInputs
	if labelled {
		validate = ds.Validate
	}
	if err := validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := m.WidenFor(ds); err != nil {
		return nil, err
	}
	if ds.D != m.InSize() {
		return nil, fmt.Errorf("nsvm: the model expects %d values per row, %s has %d", m.InSize(), path, ds.D)
	}
	return ds, nil
}
