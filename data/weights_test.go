package data

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// weightedCSV returns a CSV file of n rows with the columns x1, weight,
// x2, label (header too when header is true), and the data set it holds.
func weightedCSV(n int, header bool) (string, *Dataset) {
	var b strings.Builder
	if header {
		b.WriteString("x1,Weight,x2,label\n")
	}
	want := &Dataset{N: n, D: 2}
	for i := range n {
		x1, x2, w, y := float32(i)/4, float32(-i), float64(i%5)/2, float64(i%3)
		fmt.Fprintf(&b, "%v,%v,%v,%v\n", x1, w, x2, y)
		want.X = append(want.X, x1, x2)
		want.Y = append(want.Y, y)
		want.W = append(want.W, w)
	}
	return b.String(), want
}

// TestCSVWeightColumn: every reader (sequential, parallel over chunks,
// the fast file reader, a gzipped file) reads a weight column into W and
// leaves it out of the features, named by its header field or its number.
func TestCSVWeightColumn(t *testing.T) {
	text, want := weightedCSV(3000, true)
	dir := t.TempDir()
	path := filepath.Join(dir, "w.csv")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(text))
	zw.Close()
	gzPath := filepath.Join(dir, "w.csv.gz")
	if err := os.WriteFile(gzPath, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, spec := range []string{"weight", "sample_weight", "1"} {
		if spec == "sample_weight" {
			text := strings.Replace(text, "Weight", "sample_weight", 1)
			ds, err := ReadCSV(strings.NewReader(text), "w.csv", CSVOptions{WeightCol: spec})
			if err != nil || !bitsEqual(ds, want) {
				t.Fatalf("%q: %v", spec, err)
			}
			continue
		}
		opt := CSVOptions{WeightCol: spec}
		read := map[string]func() (*Dataset, error){
			"seq": func() (*Dataset, error) { return seqCSV(strings.NewReader(text), "w.csv", opt) },
			"chunks": func() (*Dataset, error) {
				var ds *Dataset
				var err error
				withReadChunks(1<<10, func() { ds, err = ReadCSV(strings.NewReader(text), "w.csv", opt) })
				return ds, err
			},
			"fast": func() (*Dataset, error) {
				ds, ok := readFast(path, "csv", OpenOptions{CSV: opt})
				if !ok {
					return nil, fmt.Errorf("the fast reader left the file to the others")
				}
				return ds, nil
			},
			"open":    func() (*Dataset, error) { return Open(path, OpenOptions{CSV: opt}) },
			"open gz": func() (*Dataset, error) { return Open(gzPath, OpenOptions{CSV: opt}) },
		}
		for name, f := range read {
			ds, err := f()
			if err != nil {
				t.Fatalf("%q %s: %v", spec, name, err)
			}
			if !bitsEqual(ds, want) {
				t.Fatalf("%q %s: %d×%d W[:4] = %v, want %d×%d %v", spec, name, ds.N, ds.D, ds.W[:min(4, len(ds.W))], want.N, want.D, want.W[:4])
			}
			if err := ds.Validate(); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Without WeightCol the weights are a feature.
	ds, err := ReadCSV(strings.NewReader(text), "w.csv", CSVOptions{})
	if err != nil || ds.D != 3 || ds.W != nil {
		t.Fatalf("no weight column: D=%d W=%v %v", ds.D, ds.W != nil, err)
	}
	// A late quoted field sends the rest to the sequential reader, which
	// reads the weights of the rows it reads.
	quoted := text + "\"1\",2,3,1\n"
	withReadChunks(1<<10, func() { ds, err = ReadCSV(strings.NewReader(quoted), "w.csv", CSVOptions{WeightCol: "weight"}) })
	if err != nil || ds.N != 3001 || len(ds.W) != 3001 || ds.W[3000] != 2 || !slices.Equal(ds.W[:3000], want.W) {
		t.Fatalf("a quoted last row: %v", err)
	}
	// The weight in the last column: the label is the last but one.
	ds, err = ReadCSV(strings.NewReader("a,y,w\n1,0,0.5\n2,1,2\n"), "t.csv", CSVOptions{WeightCol: "w"})
	if err != nil || !slices.Equal(ds.Y, []float64{0, 1}) || !slices.Equal(ds.W, []float64{0.5, 2}) || !slices.Equal(ds.X, []float32{1, 2}) {
		t.Fatalf("weights last: %+v %v", ds, err)
	}
	// With categorical columns and class names.
	ds, err = ReadCSV(strings.NewReader("color,w,class\nred,1,a\nblue,3,b\nred,0,a\n"), "t.csv", CSVOptions{WeightCol: "w"})
	if err != nil || !slices.Equal(ds.W, []float64{1, 3, 0}) || ds.D != 2 || !slices.Equal(ds.LabelNames, []string{"a", "b"}) {
		t.Fatalf("categorical: %+v %v", ds, err)
	}
}

func TestCSVWeightColumnErrors(t *testing.T) {
	tests := []struct {
		name, in string
		opt      CSVOptions
		want     string
	}{
		{"negative", "x,w,y\n1,1,0\n2,-1,1\n", CSVOptions{WeightCol: "w"}, `t.csv:3: weight "-1" is not a finite number ≥ 0 in column "w"`},
		{"NaN", "x,w,y\n1,NaN,0\n", CSVOptions{WeightCol: "w"}, `t.csv:2: weight "NaN" is not a finite number ≥ 0 in column "w"`},
		{"text", "x,w,y\n1,heavy,0\n", CSVOptions{WeightCol: "w"}, `t.csv:2: weight "heavy" is not a number in column "w"`},
		{"missing", "x,w,y\n1,,0\n", CSVOptions{WeightCol: "w"}, `t.csv:2: empty weight in column "w"`},
		{"NA", "x,w,y\n1,NA,0\n", CSVOptions{WeightCol: "w"}, `t.csv:2: missing weight "NA" in column "w"`},
		{"no such field", "x,w,y\n1,1,0\n", CSVOptions{WeightCol: "weight"}, `t.csv:1: no header field named "weight" for the weights`},
		{"no header", "1,1,0\n2,1,1\n", CSVOptions{WeightCol: "weight"}, `t.csv:1: weight column "weight" names a header field, but the first row is not a header`},
		{"out of range", "1,1,0\n", CSVOptions{WeightCol: "3"}, `t.csv:1: weight column 3, but the rows have 3 fields`},
		{"negative column", "1,1,0\n", CSVOptions{WeightCol: "-2"}, `t.csv:1: weight column -2; want`},
		{"label too", "1,1,0\n", CSVOptions{WeightCol: "0", LabelCol: LabelFirst}, `t.csv:1: column 0 is both the label and the weight column`},
		{"no feature", "w,y\n1,0\n", CSVOptions{WeightCol: "w"}, `t.csv:1: 2 fields; want a label, a weight and at least one feature`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.csv")
			if err := os.WriteFile(path, []byte(tc.in), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadCSV(strings.NewReader(tc.in), "t.csv", tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ReadCSV: error %v, want %q", err, tc.want)
			}
			_, err = Open(path, OpenOptions{CSV: tc.opt})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Open: error %v, want %q", err, tc.want)
			}
		})
	}
	// All weights 0: read, then refused by Validate.
	ds, err := ReadCSV(strings.NewReader("x,w,y\n1,0,0\n"), "t.csv", CSVOptions{WeightCol: "w"})
	if err != nil || ds.Validate() == nil {
		t.Fatalf("zero weights: %v, Validate accepted them", err)
	}
	// Streams do not read weights.
	path := filepath.Join(t.TempDir(), "s.csv")
	os.WriteFile(path, []byte("x,w,y\n1,1,0\n"), 0o644)
	if _, err := OpenStream(path, OpenOptions{CSV: CSVOptions{WeightCol: "w"}}); err == nil || !strings.Contains(err.Error(), "streaming does not read a weight column") {
		t.Fatalf("stream: %v", err)
	}
}

// TestCSVWeightsRoundTrip: WriteCSV writes the weights after the label,
// and WeightCol "weight" reads them back.
func TestCSVWeightsRoundTrip(t *testing.T) {
	_, want := weightedCSV(50, false)
	want.W[0] = 1e-300
	for _, header := range []bool{true, false} {
		var buf bytes.Buffer
		if err := WriteCSV(&buf, want, header); err != nil {
			t.Fatal(err)
		}
		opt := CSVOptions{WeightCol: "weight"}
		if !header {
			opt = CSVOptions{WeightCol: "1", LabelCol: LabelFirst}
		}
		got, err := ReadCSV(&buf, "rt.csv", opt)
		if err != nil {
			t.Fatal(err)
		}
		if !bitsEqual(got, want) {
			t.Fatalf("header %v: the weights or rows differ", header)
		}
	}
}

func TestReadWeights(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	w, err := ReadWeights(write("w.txt", "\xef\xbb\xbfsample_weight\n1\n0.5 # a comment\n# a line of comment\n2e0\r\n0"), 4)
	if err != nil || !slices.Equal(w, []float64{1, 0.5, 2, 0}) {
		t.Fatalf("text: %v %v", w, err)
	}
	// An empty line would shift the weights after it; 1_000 is not a
	// number.
	for text, want := range map[string]string{"1\n\n2\n": "w.txt:2: an empty line", "1\n1_000\n": `w.txt:2: weight "1_000" is not a number`} {
		if _, err := ReadWeights(write("w.txt", text), -1); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", text, err, want)
		}
	}
	var npy bytes.Buffer
	WriteNPYLabels(&npy, []float64{3, 0, 1})
	if w, err = ReadWeights(write("w.npy", npy.String()), 3); err != nil || !slices.Equal(w, []float64{3, 0, 1}) {
		t.Fatalf(".npy: %v %v", w, err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("1\n2\n"))
	zw.Close()
	if w, err = ReadWeights(write("w.txt.gz", gz.String()), -1); err != nil || !slices.Equal(w, []float64{1, 2}) {
		t.Fatalf("gzip: %v %v", w, err)
	}
	var bad bytes.Buffer
	WriteNPYLabels(&bad, []float64{1, -2})
	for _, tc := range []struct{ name, text, want string }{
		{"count.txt", "1\n2\n3\n", "count.txt: 3 weights for 4 rows"},
		{"negative.txt", "1\n-2\n", `negative.txt:2: weight "-2" is not a finite number ≥ 0`},
		{"nan.txt", "nan\n", `nan.txt:1: weight "nan" is not a finite number ≥ 0`},
		{"inf.txt", "1\n+Inf\n", `inf.txt:2: weight "+Inf" is not a finite number ≥ 0`},
		{"text.txt", "w\n1\nheavy\n", `text.txt:3: weight "heavy" is not a number`},
		{"fields.txt", "1,2\n", `fields.txt:1: 2 fields; want one weight a line`},
		{"zeros.txt", "0\n0\n", "zeros.txt: every weight is 0"},
		{"empty.txt", "# nothing\n", "empty.txt: no weights"},
		{"bad.npy", bad.String(), "bad.npy: weight 1 is -2"},
	} {
		n := 4
		if tc.name != "count.txt" {
			n = -1
		}
		if _, err := ReadWeights(write(tc.name, tc.text), n); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := ReadWeights(filepath.Join(dir, "absent"), 1); err == nil {
		t.Error("a missing file was read")
	}
}
