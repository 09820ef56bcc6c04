package data

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func newRNG(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// ringnorm draws n rows of two Gaussian classes in 20 dimensions, labels 1
// and 2, as datasets.Ringnorm draws them (the same values for the same
// rng): the tests of this package cannot import datasets, which imports it.
func ringnorm(n int, rng *rand.Rand) *Dataset {
	const dim = 20
	a := 2 / math.Sqrt(dim)
	d := &Dataset{X: make([]float32, n*dim), Y: make([]float64, n), N: n, D: dim}
	for i := range n {
		row := d.X[i*dim : (i+1)*dim]
		sd, mean := 2.0, 0.0
		d.Y[i] = 1
		if rng.Float64() >= 0.5 {
			sd, mean, d.Y[i] = 1, a, 2
		}
		for j := range row {
			row[j] = float32(mean + sd*rng.NormFloat64())
		}
	}
	return d
}

// equalData reports whether two data sets hold the same N, D, X and Y.
func equalData(t *testing.T, got, want *Dataset) {
	t.Helper()
	if got.N != want.N || got.D != want.D {
		t.Fatalf("size %d×%d, want %d×%d", got.N, got.D, want.N, want.D)
	}
	for i := range want.Y {
		if got.Y[i] != want.Y[i] {
			t.Fatalf("Y[%d] = %v, want %v", i, got.Y[i], want.Y[i])
		}
	}
	for k := range want.X {
		if got.X[k] != want.X[k] {
			t.Fatalf("X[%d] (row %d, feature %d) = %v, want %v", k, k/want.D, k%want.D, got.X[k], want.X[k])
		}
	}
}

func TestValidate(t *testing.T) {
	ok := func() *Dataset {
		return &Dataset{X: []float32{1, 2, 3, 4, 5, 6}, Y: []float64{1, 2}, N: 2, D: 3}
	}
	tests := []struct {
		name   string
		modify func(d *Dataset)
		want   string // substring of the error; "" = valid
	}{
		{"valid", func(d *Dataset) {}, ""},
		{"shape ok", func(d *Dataset) { d.Shape = []int{1, 3} }, ""},
		{"empty", func(d *Dataset) { d.N, d.X, d.Y = 0, nil, nil }, "no rows"},
		{"no features", func(d *Dataset) { d.D, d.X = 0, nil }, "no features"},
		{"short X", func(d *Dataset) { d.X = d.X[:5] }, "X has 5 values"},
		{"short Y", func(d *Dataset) { d.Y = d.Y[:1] }, "Y has 1 labels"},
		{"bad shape", func(d *Dataset) { d.Shape = []int{2, 2} }, "shape [2 2] holds 4"},
		{"NaN", func(d *Dataset) { d.X[4] = float32(math.NaN()) }, "row 1, feature 1: value is NaN"},
		{"Inf", func(d *Dataset) { d.X[2] = float32(math.Inf(-1)) }, "row 0, feature 2: value is -Inf"},
		{"NaN label", func(d *Dataset) { d.Y[1] = math.NaN() }, "row 1: label is NaN"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := ok()
			tc.modify(d)
			err := d.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "data: ")):
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestRowSubsetClasses(t *testing.T) {
	d := &Dataset{X: []float32{1, 2, 3, 4, 5, 6}, Y: []float64{3, -1, 3}, N: 3, D: 2, Shape: []int{2}}
	if r := d.Row(1); !slices.Equal(r, []float32{3, 4}) || cap(r) != 2 {
		t.Fatalf("Row(1) = %v (cap %d)", r, cap(r))
	}
	s := d.Subset([]int{2, 0, 2})
	want := &Dataset{X: []float32{5, 6, 1, 2, 5, 6}, Y: []float64{3, 3, 3}, N: 3, D: 2}
	equalData(t, s, want)
	s.X[0], s.Shape[0] = 99, 99
	if d.X[4] != 5 || d.Shape[0] != 2 {
		t.Fatal("Subset shares memory with its source")
	}
	if c := d.Classes(); !slices.Equal(c, []float64{-1, 3}) {
		t.Fatalf("Classes = %v", c)
	}
	f := FilterLabels(d, []float64{3})
	equalData(t, f, &Dataset{X: []float32{1, 2, 5, 6}, Y: []float64{3, 3}, N: 2, D: 2})
	defer func() {
		if r := recover(); r == nil || !strings.HasPrefix(r.(string), "data: ") {
			t.Fatalf("Row(3) panicked with %v, want a data: panic", r)
		}
	}()
	d.Row(3)
}

func TestBinaryLabels(t *testing.T) {
	tests := []struct {
		name  string
		y     []float64
		want  []float32
		m     LabelMap
		error string
	}{
		{"pm1", []float64{1, -1, -1, 1}, []float32{1, -1, -1, 1}, LabelMap{-1, 1}, ""},
		{"01", []float64{0, 1, 1}, []float32{-1, 1, 1}, LabelMap{0, 1}, ""},
		{"ringnorm", []float64{2, 1, 2}, []float32{1, -1, 1}, LabelMap{1, 2}, ""},
		{"digits 7 3", []float64{7, 3}, []float32{1, -1}, LabelMap{3, 7}, ""},
		{"one class", []float64{3, 3}, nil, LabelMap{}, "data: only one class (label 3) in the data; a binary classifier needs two"},
		{"three", []float64{0, 1, 2}, nil, LabelMap{}, "3 classes (labels 0, 1, 2)"},
		{"fraction", []float64{0.5, 1}, nil, LabelMap{}, "label 0.5 is not an integer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := &Dataset{X: make([]float32, len(tc.y)), Y: tc.y, N: len(tc.y), D: 1}
			y, m, err := d.BinaryLabels()
			if tc.error != "" {
				if err == nil || !strings.Contains(err.Error(), tc.error) {
					t.Fatalf("error %v, want %q", err, tc.error)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(y, tc.want) || m != tc.m {
				t.Fatalf("got %v %+v, want %v %+v", y, m, tc.want, tc.m)
			}
			for i, v := range y {
				if got := m.Label(float64(v) * 0.3); got != tc.y[i] {
					t.Fatalf("Label(%v) = %v, want %v", v, got, tc.y[i])
				}
			}
		})
	}
	if m := (LabelMap{Neg: 1, Pos: 2}); m.Label(0) != 2 || m.Label(-1e-9) != 1 || m.Label(math.NaN()) != 1 {
		t.Fatal("Label: decision 0 must give Pos, negative and NaN Neg")
	}
}

// TestFitStandardizerRows checks that fitting on rows in place gives what
// fitting on their copy gives, bit for bit, and that nil means every row.
func TestFitStandardizerRows(t *testing.T) {
	rng := newRNG(3)
	const n, D = 500, 7
	d := &Dataset{X: make([]float32, n*D), Y: make([]float64, n), N: n, D: D}
	for i := range d.X {
		d.X[i] = float32(rng.NormFloat64()*1e3 + float64(i%D))
	}
	rows := []int{499, 3, 3, 250, 17, 0, 42, 42, 42, 301}
	for _, idx := range [][]int{rows, rows[:1], {}, nil} {
		want := FitStandardizer(d)
		if idx != nil {
			want = FitStandardizer(d.Subset(idx))
		}
		got := FitStandardizerRows(d.X, D, idx)
		if !slices.Equal(got.Mean, want.Mean) || !slices.Equal(got.Std, want.Std) {
			t.Fatalf("rows %v: mean %v std %v, want %v %v", idx, got.Mean, got.Std, want.Mean, want.Std)
		}
	}
	if s := FitStandardizerRows(d.X, D, rows[:1]); s.Std[0] != 1 || s.Mean[0] != float64(d.X[499*D]) {
		t.Fatalf("one row: mean %v std %v, want the row and std 1", s.Mean[0], s.Std[0])
	}
}

func TestStandardizer(t *testing.T) {
	// Column 0: 1, 2, 3, 4 → mean 2.5, sample variance 5/3.
	// Column 1: constant 7 → std 1, maps to 0.
	// Column 2: -2, 0, 0, 2 → mean 0, sample variance 8/3.
	d := &Dataset{X: []float32{1, 7, -2, 2, 7, 0, 3, 7, 0, 4, 7, 2}, Y: make([]float64, 4), N: 4, D: 3}
	s := FitStandardizer(d)
	wantMean := []float64{2.5, 7, 0}
	wantStd := []float64{math.Sqrt(5.0 / 3), 1, math.Sqrt(8.0 / 3)}
	for j := range wantMean {
		if math.Abs(s.Mean[j]-wantMean[j]) > 1e-12 || math.Abs(s.Std[j]-wantStd[j]) > 1e-12 {
			t.Fatalf("feature %d: mean %v std %v, want %v %v", j, s.Mean[j], s.Std[j], wantMean[j], wantStd[j])
		}
	}
	s.Apply(d)
	after := FitStandardizer(d)
	for j := range 3 {
		wantS := 1.0
		if j == 1 {
			wantS = 1 // constant column: all zeros, std falls back to 1
			for i := range 4 {
				if d.X[i*3+1] != 0 {
					t.Fatalf("constant column maps to %v, want 0", d.X[i*3+1])
				}
			}
		}
		if math.Abs(after.Mean[j]) > 1e-6 || math.Abs(after.Std[j]-wantS) > 1e-6 {
			t.Fatalf("after Apply feature %d: mean %v std %v", j, after.Mean[j], after.Std[j])
		}
	}
	x := []float32{2.5 + float32(math.Sqrt(5.0/3)), 8, -1}
	s.ApplyRow(x)
	if math.Abs(float64(x[0])-1) > 1e-6 || x[1] != 1 || math.Abs(float64(x[2])+math.Sqrt(3.0/8)) > 1e-6 {
		t.Fatalf("ApplyRow = %v", x)
	}
	var id Standardizer
	y := []float32{5, 6}
	id.ApplyRow(y)
	if y[0] != 5 || y[1] != 6 {
		t.Fatal("the zero Standardizer must be the identity")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("ApplyRow on a row of the wrong width did not panic")
		}
	}()
	s.ApplyRow(y)
}

func TestSplit(t *testing.T) {
	d := ringnorm(100, newRNG(1))
	for i := range d.N {
		d.X[i*d.D] = float32(i) // tag rows
	}
	tr1, te1 := Split(d, 30, newRNG(7))
	tr2, te2 := Split(d, 30, newRNG(7))
	_, te3 := Split(d, 30, newRNG(8))
	if tr1.N != 70 || te1.N != 30 {
		t.Fatalf("sizes %d/%d, want 70/30", tr1.N, te1.N)
	}
	equalData(t, tr1, tr2)
	equalData(t, te1, te2)
	if slices.Equal(te1.X, te3.X) {
		t.Fatal("different seeds gave the same split")
	}
	seen := make([]int, d.N)
	for _, s := range []*Dataset{tr1, te1} {
		prev := -1
		for i := range s.N {
			tag := int(s.X[i*s.D])
			if tag <= prev {
				t.Fatal("rows are not in their original order")
			}
			prev = tag
			seen[tag]++
			if s.Y[i] != d.Y[tag] {
				t.Fatal("label does not follow its row")
			}
		}
	}
	for i, c := range seen {
		if c != 1 {
			t.Fatalf("row %d appears %d times", i, c)
		}
	}
}

func TestStratifiedHoldout(t *testing.T) {
	d := ringnorm(1000, newRNG(2))
	rest, held := StratifiedHoldout(d, 200, newRNG(3))
	if held.N != 400 || rest.N != 600 {
		t.Fatalf("sizes %d/%d, want 600/400", rest.N, held.N)
	}
	count := map[float64]int{}
	for _, y := range held.Y {
		count[y]++
	}
	if count[1] != 200 || count[2] != 200 {
		t.Fatalf("held classes %v, want 200 each", count)
	}
	rest2, held2 := StratifiedHoldout(d, 200, newRNG(3))
	equalData(t, rest, rest2)
	equalData(t, held, held2)
	// A class smaller than perClass is held out whole.
	small := d.Subset([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	_, h := StratifiedHoldout(small, 100, newRNG(4))
	if h.N != 10 {
		t.Fatalf("held %d of 10 rows", h.N)
	}
}
