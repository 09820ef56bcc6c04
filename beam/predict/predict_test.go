package predict

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/data/datasets"
)

func init() {
	beam.RegisterType(reflect.TypeOf((*checkFn)(nil)).Elem())
	register.DoFn1x1[string, error](&checkFn{})
	register.Function1x1[string, string](placeOf)
	register.Function1x1[string, bool](wellFormedDead)
}

// wellFormedDead reports whether a dead letter has a file, a line and a
// reason.
func wellFormedDead(line string) bool {
	f := strings.Split(line, "\t")
	return len(f) == 3 && f[0] != "" && f[2] != ""
}

// want is what nsvm predicts for one row: the label, the decision value
// and, with probabilities, the probability it prints.
type want struct {
	label string
	dec   float64
	prob  float64
}

// checkFn fails on a prediction line that is not the expected one: the
// label exactly, the decision value and probability within 1e-5.
type checkFn struct {
	Want map[string]string // "FILE\tLINE" → "label\tdecision[\tprobability]"
}

func (fn *checkFn) ProcessElement(line string) error {
	f := strings.Split(line, "\t")
	if len(f) < 4 {
		return fmt.Errorf("line %q: %d fields", line, len(f))
	}
	w, ok := fn.Want[f[0]+"\t"+f[1]]
	if !ok {
		return fmt.Errorf("line %q: no such row", line)
	}
	g := strings.Split(w, "\t")
	if len(g) != len(f)-2 || g[0] != f[2] {
		return fmt.Errorf("line %q: want %q", line, w)
	}
	for k := 1; k < len(g); k++ {
		a, err1 := strconv.ParseFloat(f[k+2], 64)
		b, err2 := strconv.ParseFloat(g[k], 64)
		if err1 != nil || err2 != nil || math.Abs(a-b) > 1e-5 {
			return fmt.Errorf("line %q: want %q", line, w)
		}
	}
	return nil
}

// placeOf keeps the FILE<TAB>LINE of an output line.
func placeOf(line string) string {
	f := strings.SplitN(line, "\t", 3)
	return f[0] + "\t" + f[1]
}

// shard is a data file written by a test, with the rows it holds.
type shard struct {
	path  string
	lines []int // of the rows, from 1
	ds    *data.Dataset
}

// writeShards writes the rows of ds to k LIBSVM files in dir: the second
// gzip-compressed, the third with comment lines and a comment after a
// row among its rows.
func writeShards(t *testing.T, dir string, ds *data.Dataset, k int) []shard {
	t.Helper()
	var out []shard
	per := (ds.N + k - 1) / k
	for s := range k {
		lo, hi := s*per, min(ds.N, (s+1)*per)
		part := &data.Dataset{X: ds.X[lo*ds.D : hi*ds.D], Y: ds.Y[lo:hi], N: hi - lo, D: ds.D}
		var rows bytes.Buffer
		if err := data.WriteLIBSVM(&rows, part); err != nil {
			t.Fatal(err)
		}
		text := strings.SplitAfter(rows.String(), "\n")
		text = text[:len(text)-1] // after the last newline
		sh := shard{path: filepath.Join(dir, fmt.Sprintf("part-%05d.libsvm", s)), ds: part}
		var b bytes.Buffer
		n := 0
		for i, l := range text {
			if s == 2 && i == 0 {
				b.WriteString("# exported rows\n# by a test\n")
				n += 2
			}
			if s == 2 && i == 3 {
				l = strings.TrimSuffix(l, "\n") + " # a comment after a row\n"
			}
			b.WriteString(l)
			n++
			sh.lines = append(sh.lines, n)
		}
		body := b.Bytes()
		if s == 1 {
			sh.path += ".gz"
			var z bytes.Buffer
			zw := gzip.NewWriter(&z)
			zw.Write(body)
			zw.Close()
			body = z.Bytes()
		}
		if err := os.WriteFile(sh.path, body, 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, sh)
	}
	return out
}

// expect computes, in this process, what nsvm predict prints for the rows
// of the shards.
func expect(t *testing.T, m *nsvm.Model, shards []shard, prob bool) map[string]string {
	t.Helper()
	w := map[string]string{}
	for _, sh := range shards {
		p, err := m.PredictDataset(sh.ds, prob)
		if err != nil {
			t.Fatal(err)
		}
		nc := len(m.Labels())
		for i, line := range sh.lines {
			label, dec := m.LabelName(p.Labels[i]), p.Decisions[i]
			switch {
			case m.Regression():
				label, dec = strconv.FormatFloat(p.Labels[i], 'g', -1, 64), p.Labels[i]
			case m.Multiclass():
				dec = p.Scores[i*nc+slices.Index(m.Labels(), p.Labels[i])]
			}
			v := label + "\t" + strconv.FormatFloat(dec, 'g', -1, 64)
			if prob {
				// Every class's probability, as nsvm predict --probability.
				for _, q := range p.Probabilities[i*nc : (i+1)*nc] {
					v += "\t" + strconv.FormatFloat(q, 'g', -1, 64)
				}
			}
			w[sh.path+"\t"+strconv.Itoa(line)] = v
		}
	}
	return w
}

// fitModel trains a model and saves it in dir.
func fitModel(t *testing.T, dir string, ds *data.Dataset, cfg *nsvm.FitConfig) (*nsvm.Model, string) {
	t.Helper()
	m, err := nsvm.Fit(context.Background(), ds, cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "model.nsvm")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	return m, path
}

// checkPredictions adds to s the checks that preds are the rows of want.
func checkPredictions(s beam.Scope, preds beam.PCollection, want map[string]string) {
	var places []any
	for k := range want {
		places = append(places, k)
	}
	passert.Equals(s, beam.ParDo(s, placeOf, preds), places...)
	beam.ParDo0(s, &checkFn{Want: want}, preds)
}

// TestPredictMatchesInProcess: four shards (one compressed, one with
// comments and a blank line) scored on prism give, row for row, the
// label and decision value of in-process prediction, in batches smaller
// than a shard; a model with probabilities adds them.
func TestPredictMatchesInProcess(t *testing.T) {
	dir := t.TempDir()
	train := datasets.Ringnorm(400, rand.New(rand.NewPCG(1, 1)))
	rows := datasets.Ringnorm(2000, rand.New(rand.NewPCG(2, 2)))
	shards := writeShards(t, dir, rows, 4)
	for _, prob := range []bool{false, true} {
		t.Run(fmt.Sprintf("probability=%v", prob), func(t *testing.T) {
			m, model := fitModel(t, t.TempDir(), train, &nsvm.FitConfig{Seed: 1, Algorithm: "smo", Probability: prob})
			want := expect(t, m, shards, prob)
			p, s := beam.NewPipelineWithRoot()
			preds, dead := Predict(s, Options{Model: model, Input: filepath.Join(dir, "part-*"), Batch: 300, Probability: prob})
			passert.Empty(s, dead)
			checkPredictions(s, preds, want)
			res, err := ptest.RunWithMetrics(p)
			if err != nil {
				t.Fatal(err)
			}
			if c := countsOf(res); c.Rows != int64(rows.N) || c.BadRows != 0 {
				t.Errorf("counters %+v, want %d rows and no bad ones", c, rows.N)
			}
		})
	}
}

// TestPredictDeadLetters: bad rows of LIBSVM and CSV files, and a file
// that is no data at all, become dead letters naming the file and line,
// counted; every good row is scored and the pipeline succeeds.
func TestPredictDeadLetters(t *testing.T) {
	dir := t.TempDir()
	// A model on CSV data with a header, a categorical column and named
	// classes.
	var csv strings.Builder
	csv.WriteString("width;colour;label\n")
	rng := rand.New(rand.NewPCG(3, 3))
	colours := []string{"red", "green", "blue"}
	for range 300 {
		w, c := rng.Float64()*4, rng.IntN(3)
		label := "small"
		if w+float64(c) > 3 {
			label = "large"
		}
		fmt.Fprintf(&csv, "%.3f;%s;%s\n", w, colours[c], label)
	}
	trainPath := filepath.Join(dir, "train.csv")
	if err := os.WriteFile(trainPath, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := data.Open(trainPath, data.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, model := fitModel(t, dir, ds, &nsvm.FitConfig{Seed: 1, Algorithm: "smo", C: 10, Gamma: 0.5})
	in := filepath.Join(dir, "in")
	os.Mkdir(in, 0o755)
	files := map[string]string{
		// line 3: a value that is not a number in the numeric column;
		// line 5: a field missing.
		"a.csv": "width;colour;label\n1.5;red;small\nwide;red;small\n3.9;blue;large\n2.0;green\n0.5;purple;small\n",
		// A LIBSVM file for a model of 4 features (the CSV's one-hot
		// width): line 2 a bad value, line 4 an index past the width,
		// line 5 no label (scored all the same).
		"b.libsvm": "1 1:0.5 2:1\n1 1:zz\n1 1:3.5 4:1\n1 9:1\n2:1 3:1\n",
		// A line longer than the bound (lowered to 4 KB here), then an
		// empty one: dead letters, and reading goes on after them.
		"e.libsvm": "1 1:0.5 2:1\n1 1:" + strings.Repeat("7", 100000) + "\n\n1 1:1 2:0\n",
		"c.bin":    "\x00\x01\x02\x03 this is not data\n",
		// The first row bad: the header is still the header.
		"d.csv": "width;colour;label\nwide;red;small\n1.0;red;small\n",
	}
	for name, text := range files {
		body := []byte(text)
		if name == "e.libsvm" { // compressed: 100 KB in a few hundred bytes
			var z bytes.Buffer
			zw := gzip.NewWriter(&z)
			zw.Write(body)
			zw.Close()
			body = z.Bytes()
		}
		if err := os.WriteFile(filepath.Join(in, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	defer func(n int) { maxLineBytes = n }(maxLineBytes)
	maxLineBytes = 4096
	p, s := beam.NewPipelineWithRoot()
	preds, dead := Predict(s, Options{Model: model, Input: filepath.Join(in, "*"), Batch: 2})
	at := func(name string, line int) string { return filepath.Join(in, name) + "\t" + strconv.Itoa(line) }
	passert.Equals(s, beam.ParDo(s, placeOf, dead),
		at("a.csv", 3), at("a.csv", 5), at("b.libsvm", 2), at("b.libsvm", 4), at("c.bin", 0), at("d.csv", 2), at("e.libsvm", 2), at("e.libsvm", 3))
	// The good rows, as nsvm predicts them.
	good := map[string][]int{"a.csv": {2, 4, 6}, "b.libsvm": {1, 3, 5}, "d.csv": {3}, "e.libsvm": {1, 4}}
	var shards []shard
	for name, lines := range good {
		all := strings.Split(files[name], "\n")
		for _, l := range lines { // one at a time: rows with and without labels
			var text []string
			if strings.HasSuffix(name, ".csv") {
				text = append(text, all[0])
			}
			text = append(text, all[l-1])
			rows, err := data.OpenReader(strings.NewReader(strings.Join(text, "\n")), name,
				data.OpenOptions{Dim: m.InSize(), CSV: data.CSVOptions{Columns: m.Columns}})
			if err != nil {
				t.Fatal(err)
			}
			shards = append(shards, shard{path: filepath.Join(in, name), lines: []int{l}, ds: rows})
		}
	}
	checkPredictions(s, preds, expect(t, m, shards, false))
	// The reasons are the readers'.
	passert.True(s, dead, wellFormedDead)
	res, err := ptest.RunWithMetrics(p)
	if err != nil {
		t.Fatal(err)
	}
	if c := countsOf(res); c.Rows != 9 || c.BadRows != 8 {
		t.Errorf("counters %+v, want 9 rows and 8 bad ones", c)
	}
}
