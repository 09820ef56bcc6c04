package search

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/model"
)

// TestFitStreamSmall: a stream no longer than the sample gives Fit's model.
func TestFitStreamSmall(t *testing.T) {
	train := shellsData(300, 4, 3, 1)
	want, err := Fit(context.Background(), train, &FitConfig{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	got, err := FitStream(context.Background(), DatasetStream(train), &FitConfig{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got.Info["stream_rows"] != "300" || got.Info["sample_rows"] != "300" {
		t.Fatalf("info %v", got.Info)
	}
	test := shellsData(300, 4, 3, 5)
	pw, pg := want.Predictions(test.X, test.N, false), got.Predictions(test.X, test.N, false)
	if !slices.Equal(pw.Decisions, pg.Decisions) {
		t.Fatal("FitStream on a stream that fits its sample predicts otherwise than Fit")
	}
}

// TestReservoir: the sample is uniform over the stream and in stream order.
func TestReservoir(t *testing.T) {
	const n, R = 20000, 2000
	ds := &data.Dataset{X: make([]float32, n), Y: make([]float64, n), N: n, D: 1}
	for i := range n {
		ds.X[i], ds.Y[i] = float32(i), float64(i%2)
	}
	s, err := reservoir(context.Background(), DatasetStream(ds), 1, R, 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.total != n || len(s.y) != R || len(s.labels) != 2 {
		t.Fatalf("total %d, %d rows, labels %v", s.total, len(s.y), s.labels)
	}
	var mean float64
	for k, g := range s.row {
		if k > 0 && g <= s.row[k-1] {
			t.Fatal("sample not in stream order")
		}
		if s.x[k] != float32(g) || s.y[k] != float64(g%2) {
			t.Fatalf("row %d holds %v, %v", g, s.x[k], s.y[k])
		}
		mean += float64(g) / R
	}
	// Uniform positions have mean (n−1)/2 and standard error n/√(12R).
	if se := n / math.Sqrt(12*R); math.Abs(mean-(n-1)/2.0) > 4*se {
		t.Errorf("mean position %.0f, want %.0f ± %.0f", mean, (n-1)/2.0, se)
	}
}

// TestFitStreamNetwork: an NSVM pinned on a stream eight times its sample
// trains Part I over the whole stream and learns.
func TestFitStreamNetwork(t *testing.T) {
	train, test := ringData(16000, 1), ringData(2000, 2)
	m, err := FitStream(context.Background(), DatasetStream(train), &FitConfig{Algorithm: "nsvm4", SampleRows: 2000, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if m.Info["stream_rows"] != "16000" || m.Info["sample_rows"] != "2000" {
		t.Fatalf("info %v", m.Info)
	}
	if w, _ := strconv.Atoi(m.Info["part1_windows"]); w < 2 {
		t.Errorf("Part I read %d windows of the stream, want ≥ 2 (info %v)", w, m.Info)
	}
	if acc := accuracyOn(t, m, test); acc < 0.9 {
		t.Errorf("test accuracy %.3f, want ≥ 0.9", acc)
	}
}

type badStream struct {
	RowStream
	n int
}

func (b *badStream) Next(x []float32, y []float64) (int, error) {
	b.n++
	if b.n > 2 {
		return 0, errors.New("line 9000: bad number")
	}
	n, err := b.RowStream.Next(x, y)
	if b.n == 2 && n > 0 {
		x[0] = float32(math.NaN())
	}
	return n, err
}

func TestFitStreamErrors(t *testing.T) {
	one := ringData(100, 1)
	for i := range one.Y {
		one.Y[i] = 1
	}
	for _, tc := range []struct {
		name string
		src  RowStream
	}{
		{"empty", DatasetStream(&data.Dataset{D: 2})},
		{"one class", DatasetStream(one)},
		{"NaN", &badStream{RowStream: DatasetStream(ringData(10000, 1))}},
	} {
		_, err := FitStream(context.Background(), tc.src, nil)
		if !errors.Is(err, model.ErrBadData) {
			t.Errorf("%s: %v, want ErrBadData", tc.name, err)
		}
	}
}

var _ RowStream = (*data.Stream)(nil)

// TestFitStreamNamedLabels: a stream whose labels are names trains a model
// that predicts the names (numbered in increasing order, however the file
// first met them); a stream of unlabelled rows is refused with ErrNoLabels.
func TestFitStreamNamedLabels(t *testing.T) {
	dir := t.TempDir()
	ring := ringData(600, 3)
	var b strings.Builder
	b.WriteString("a,b,c,d,label\n")
	for i := range ring.N {
		name := map[float64]string{1: "wide", 2: "narrow"}[ring.Y[i]]
		x := ring.X[i*ring.D:]
		fmt.Fprintf(&b, "%g,%g,%g,%g,%s\n", x[0], x[1], x[2], x[3], name)
	}
	path := filepath.Join(dir, "named.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := data.OpenStream(path, data.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m, err := FitStream(context.Background(), s, &FitConfig{Algorithm: "smo", SampleRows: 300})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.LabelNames, []string{"narrow", "wide"}) {
		t.Fatalf("label names %v", m.LabelNames)
	}
	ds, err := data.Open(path, data.OpenOptions{CSV: data.CSVOptions{Columns: m.Columns, LabelColumn: m.LabelColumn}})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := m.Evaluate(ds)
	if err != nil || sc.Accuracy < 0.6 {
		t.Fatalf("accuracy %v on the named rows (%v)", sc.Accuracy, err)
	}
	unl := filepath.Join(dir, "unlabelled.libsvm")
	if err := os.WriteFile(unl, []byte("1:0.5 2:1\n1:0.1 2:3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	us, err := data.OpenStream(unl, data.OpenOptions{Dim: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer us.Close()
	if _, err := FitStream(context.Background(), us, nil); !errors.Is(err, data.ErrNoLabels) {
		t.Fatalf("unlabelled stream: %v", err)
	}
}
