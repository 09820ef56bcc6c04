package predict

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/nsvm-go/nsvm/beam/beamio"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/model"
)

func init() {
	beam.RegisterType(reflect.TypeOf((*rowBatch)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*shardFn)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*scoreFn)(nil)).Elem())
	register.DoFn3x1[context.Context, fileio.ReadableFile, func(rowBatch), error](&shardFn{})
	register.DoFn4x1[context.Context, rowBatch, func(string), func(string), error](&scoreFn{})
	register.Emitter1[rowBatch]()
	register.Emitter1[string]()
}

// Options configure Predict. Model and Input are required; the
// zero value of every other field is nsvm predict's default.
type Options struct {
	// Model is the model file written by nsvm train, on any Beam file
	// system (a local path, gs://…, s3://…).
	Model string
	// Input is a glob of the LIBSVM or CSV files to score, on any Beam
	// file system; they may be gzip-compressed.
	Input string
	// Format is "libsvm", "csv", or "" to tell each file's format from its
	// name, else its content, as nsvm's readers do (data.FormatOf).
	Format string
	// Probability adds every class's probability, in the model's class
	// order, as nsvm predict --probability prints them (models trained
	// with Probability, or svm-train -b 1).
	Probability bool
	// Batch is the number of rows read and scored at once (0: 1024).
	Batch int
	// CSV files: the header row (data.HeaderAuto, HeaderYes, HeaderNo),
	// the label column (as data.CSVOptions.LabelCol) and the separator
	// (0: a comma, or a semicolon or a tab when the first line has no
	// comma). The model's columns decide the features.
	Header   data.HeaderMode
	LabelCol int
	Comma    rune
}

// defaultBatch is Options.Batch's default.
const defaultBatch = 1024

// Predict adds to s the scoring of the rows of the files opt.Input
// matches, and returns the predictions and the dead letters, lines of
// text (see the package documentation). A file that cannot be read as a
// whole (its format unknown, its bytes unreadable) is one dead letter,
// with line 0. The pipeline's counters "nsvm/rows" and "nsvm/bad_rows"
// count the rows scored and the dead letters.
func Predict(s beam.Scope, opt Options) (predictions, deadLetters beam.PCollection) {
	s = s.Scope("nsvm.Predict")
	if opt.Batch <= 0 {
		opt.Batch = defaultBatch
	}
	files := fileio.ReadMatches(s, fileio.MatchFiles(s, opt.Input), fileio.ReadUncompressed())
	batches := beam.ParDo(s, &shardFn{Opt: opt}, files)
	// Spread the batches of a few large files over the workers.
	batches = beam.Reshuffle(s, batches)
	return beam.ParDo2(s, &scoreFn{Opt: opt}, batches)
}

// rowBatch is a batch of a file's lines that hold rows (comment lines of
// LIBSVM files are left out), with the lines before the data of a CSV
// file (a header, a preamble) that make them readable alone; or a line
// that cannot be a row (Err, with its number in Lines), or a file that
// cannot be read (Err, no lines).
type rowBatch struct {
	File   string
	Format string
	Top    []string
	Lines  []int // the lines' numbers, from 1
	Text   []string
	Err    string // why the file or the line could not be read
}

// maxLineBytes bounds a line as nsvm's readers do (data.MaxLineBytes): a
// longer one is a dead letter, read past without being held.
var maxLineBytes = data.MaxLineBytes

// readLine reads the next line of br without its line end, holding at
// most max bytes of it: a longer one is read to its end and reported
// long, with its first bytes.
func readLine(br *bufio.Reader, max int) (line string, long bool, err error) {
	var b []byte
	for {
		frag, err := br.ReadSlice('\n')
		if !long {
			if len(b)+len(frag) > max+2 { // the line end may be \r\n
				long = true
				b = append(b, frag[:min(len(frag), 320)]...)
			} else {
				b = append(b, frag...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return strings.TrimRight(string(b), "\r\n"), long, err
	}
}

// shardFn reads a file into batches of lines.
type shardFn struct {
	Opt Options
}

func (fn *shardFn) ProcessElement(ctx context.Context, f fileio.ReadableFile, emit func(rowBatch)) error {
	path := f.Metadata.Path
	fail := func(err error) error {
		emit(rowBatch{File: path, Err: err.Error()})
		return nil
	}
	m, err := beamio.LoadModel(ctx, fn.Opt.Model)
	if err != nil {
		return err // the model, not the data: the pipeline cannot work
	}
	rc, err := beamio.OpenRead(ctx, path)
	if err != nil {
		return fail(err)
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 1<<20)
	format := fn.Opt.Format
	if format == "" {
		head, _ := br.Peek(1 << 20)
		format = data.FormatOf(path, head)
	}
	if format != "libsvm" && format != "csv" {
		if format == "" {
			return fail(fmt.Errorf("cannot tell the format from the name or the content; give it (libsvm or csv)"))
		}
		return fail(fmt.Errorf("%s data are not scored line by line; convert them to LIBSVM or CSV (nsvm convert)", format))
	}
	b := rowBatch{File: path, Format: format}
	first := true
	flush := func() {
		if len(b.Text) == 0 {
			return
		}
		if first && format == "csv" {
			top := fn.Opt.csvTop(m, path, b.Text)
			b.Top = b.Text[:top]
			b.Lines, b.Text = b.Lines[top:], b.Text[top:]
		}
		first = false
		if len(b.Text) > 0 {
			emit(b)
		}
		b = rowBatch{File: path, Format: format, Top: b.Top}
	}
	// A line that cannot be a row: a dead letter of its own.
	bad := func(n int, why string) {
		emit(rowBatch{File: path, Format: format, Lines: []int{n}, Err: why})
	}
	for n := 1; ; n++ {
		line, long, err := readLine(br, maxLineBytes)
		if err != nil && err != io.EOF {
			flush()
			return fail(fmt.Errorf("line %d: %w", n, err))
		}
		if n == 1 {
			line = strings.TrimPrefix(line, "\xef\xbb\xbf") // a byte-order mark
		}
		t := strings.TrimSpace(line)
		switch {
		case err == io.EOF && line == "":
		case long:
			bad(n, fmt.Sprintf("a line of more than %d bytes (it starts %s)", maxLineBytes, data.Quote(line)))
		case t == "":
			bad(n, "an empty line; every line holds a row")
		case format == "libsvm" && t[0] == '#':
		default:
			b.Lines = append(b.Lines, n)
			b.Text = append(b.Text, line)
			if len(b.Text) >= fn.Opt.Batch && (!first || format != "csv" || len(b.Text) >= csvFirstBatch) {
				flush()
			}
		}
		if err == io.EOF {
			break
		}
	}
	flush()
	return nil
}

// csvTop returns how many of the first lines of a CSV file (lines, its
// first batch) come before the data — a preamble, a header — as nsvm's
// CSV reader decides it on the whole batch or, when a row of the batch is
// bad, the most lines, up to three, that read as no row before a line
// that reads as one.
func (o Options) csvTop(m *model.Model, path string, lines []string) int {
	if ds, err := o.parse(m, path, "csv", nil, lines); err == nil {
		return max(0, len(lines)-ds.N)
	}
	for j := min(3, len(lines)-1); j > 0; j-- {
		for q := j; q < min(len(lines), j+8); q++ {
			if ds, err := o.parse(m, path, "csv", lines[:j], lines[q:q+1]); err == nil && ds.N == 1 {
				return j
			}
		}
	}
	return 0
}

// csvFirstBatch is the least number of lines of a CSV file's first batch,
// from which csvTop tells the lines before the data.
const csvFirstBatch = 16

// parse reads lines (after the top lines) with nsvm's reader of the
// format, for the model m.
func (o Options) parse(m *model.Model, path, format string, top, lines []string) (*data.Dataset, error) {
	opt := data.OpenOptions{Format: format, Dim: m.InSize(),
		CSV: data.CSVOptions{Header: o.Header, LabelCol: o.LabelCol, Comma: o.Comma, Columns: m.Columns}}
	if format == "csv" && opt.CSV.Columns == nil {
		// The model's features are numbers: a text is an error, not a
		// category of its own.
		opt.CSV.Columns = make([]data.Column, m.InSize())
	}
	var sb strings.Builder
	for _, l := range top {
		sb.WriteString(l)
		sb.WriteByte('\n')
	}
	for _, l := range lines {
		sb.WriteString(l)
		sb.WriteByte('\n')
	}
	return data.OpenReader(strings.NewReader(sb.String()), path, opt)
}

// scoreFn parses and scores batches of rows.
type scoreFn struct {
	Opt Options

	m *model.Model
}

// The counters of Predict.
var (
	rowsCounter    = beam.NewCounter("nsvm", "rows")
	badRowsCounter = beam.NewCounter("nsvm", "bad_rows")
)

// Setup loads the model, once per worker process.
func (fn *scoreFn) Setup(ctx context.Context) error {
	var err error
	if fn.m, err = beamio.LoadModel(ctx, fn.Opt.Model); err != nil {
		return err
	}
	return fn.Opt.fits(fn.m)
}

// fits reports options the model cannot serve.
func (o Options) fits(m *model.Model) error {
	if o.Probability && (m.Regression() || !m.Calibrated()) {
		return fmt.Errorf("%s has no probability calibration (a regressor, or a classifier trained without probabilities)", o.Model)
	}
	return nil
}

func (fn *scoreFn) ProcessElement(ctx context.Context, b rowBatch, emit, dead func(string)) error {
	if b.Err != "" {
		badRowsCounter.Inc(ctx, 1)
		line := 0
		if len(b.Lines) > 0 {
			line = b.Lines[0]
		}
		dead(deadLetter(b.File, line, b.Err))
		return nil
	}
	fn.score(ctx, b, seq(len(b.Text)), emit, dead)
	return nil
}

// score parses and scores the lines idx of b together or, when one of
// them is bad, in halves, down to the bad lines, which are dead letters.
func (fn *scoreFn) score(ctx context.Context, b rowBatch, idx []int, emit, dead func(string)) {
	lines := make([]string, len(idx))
	for k, i := range idx {
		lines[k] = b.Text[i]
	}
	ds, err := fn.Opt.parse(fn.m, b.File, b.Format, b.Top, lines)
	if err == nil && ds.N != len(idx) {
		err = fmt.Errorf("%d lines read as %d rows", len(idx), ds.N)
	}
	var p model.Prediction
	if err == nil {
		p, err = fn.m.PredictDataset(ds, fn.Opt.Probability)
	}
	if err == nil {
		for k, i := range idx {
			emit(fn.line(b.File, b.Lines[i], p, k))
		}
		rowsCounter.Inc(ctx, int64(len(idx)))
		return
	}
	if len(idx) == 1 {
		badRowsCounter.Inc(ctx, 1)
		dead(deadLetter(b.File, b.Lines[idx[0]], reason(err, b.File)))
		return
	}
	h := len(idx) / 2
	fn.score(ctx, b, idx[:h], emit, dead)
	fn.score(ctx, b, idx[h:], emit, dead)
}

// line renders the prediction of row k of p: the label and decision value
// (a multiclass model's score, a regressor's value twice) and, with
// probabilities, every class's probability in the model's class order,
// as nsvm predict prints them.
func (fn *scoreFn) line(file string, line int, p model.Prediction, k int) string {
	m := fn.m
	var label, dec string
	nc := len(m.Labels())
	switch {
	case m.Regression():
		label = strconv.FormatFloat(p.Labels[k], 'g', -1, 64)
		dec = label
	case m.Multiclass():
		label = m.LabelName(p.Labels[k])
		c := max(0, slices.Index(m.Labels(), p.Labels[k]))
		dec = strconv.FormatFloat(p.Scores[k*nc+c], 'g', -1, 64)
	default:
		label = m.LabelName(p.Labels[k])
		dec = strconv.FormatFloat(p.Decisions[k], 'g', -1, 64)
	}
	out := file + "\t" + strconv.Itoa(line) + "\t" + label + "\t" + dec
	if p.Probabilities != nil {
		for _, v := range p.Probabilities[k*nc : (k+1)*nc] {
			out += "\t" + strconv.FormatFloat(v, 'g', -1, 64)
		}
	}
	return out
}

// deadLetter renders a row that could not be scored.
func deadLetter(file string, line int, why string) string {
	why = strings.Join(strings.Fields(why), " ") // one line, no tabs
	return file + "\t" + strconv.Itoa(line) + "\t" + why
}

// reason is a reader's error without the "data: FILE:LINE: " that names
// a place in the batch's text rather than in the file.
func reason(err error, file string) string {
	s := err.Error()
	if rest, ok := strings.CutPrefix(s, "data: "+file+":"); ok {
		if k := strings.Index(rest, ": "); k > 0 && strings.Trim(rest[:k], "0123456789") == "" {
			return rest[k+2:]
		}
		return rest
	}
	return strings.TrimPrefix(s, "nsvm: ")
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// PredictCounts counts what a prediction run did.
type PredictCounts struct {
	Rows    int64 // rows scored
	BadRows int64 // dead letters
}

// PredictionsFile and DeadLettersFile name the outputs of Run.
func PredictionsFile(prefix string) string { return prefix + ".predictions.tsv" }

// DeadLettersFile names the dead letters' file of Run.
func DeadLettersFile(prefix string) string { return prefix + ".bad.tsv" }

// Run builds the pipeline of Predict, with the predictions written
// to PredictionsFile(prefix) and the dead letters to
// DeadLettersFile(prefix), runs it and returns its counters. The model is
// loaded and the glob matched first, so that a missing model or input is
// an error before the pipeline starts.
func Run(ctx context.Context, opt Options, prefix string, run beamio.Runner) (PredictCounts, error) {
	var none PredictCounts
	switch {
	case opt.Model == "":
		return none, fmt.Errorf("no model")
	case opt.Input == "":
		return none, fmt.Errorf("no input files")
	case prefix == "":
		return none, fmt.Errorf("no output prefix")
	case opt.Format != "" && opt.Format != "libsvm" && opt.Format != "csv":
		return none, fmt.Errorf("unknown format %q (want libsvm or csv)", opt.Format)
	}
	m, err := beamio.LoadModel(ctx, opt.Model)
	if err != nil {
		return none, err
	}
	if err := opt.fits(m); err != nil {
		return none, err
	}
	files, err := beamio.ListFiles(ctx, opt.Input)
	if err != nil {
		return none, fmt.Errorf("%s: %w", opt.Input, err)
	}
	if len(files) == 0 {
		return none, fmt.Errorf("%s: no files match", opt.Input)
	}
	p, s := beam.NewPipelineWithRoot()
	preds, dead := Predict(s, opt)
	beamio.WriteLines(s, PredictionsFile(prefix), preds)
	beamio.WriteLines(s, DeadLettersFile(prefix), dead)
	res, err := run(ctx, p)
	if err != nil {
		return none, err
	}
	return countsOf(res), nil
}

// countsOf reads Predict's counters from a pipeline's result.
func countsOf(res beam.PipelineResult) PredictCounts {
	var c PredictCounts
	if res == nil {
		return c
	}
	for _, r := range res.Metrics().AllMetrics().Counters() {
		if r.Namespace() != "nsvm" {
			continue
		}
		switch r.Name() {
		case "rows":
			c.Rows += r.Result()
		case "bad_rows":
			c.BadRows += r.Result()
		}
	}
	return c
}
