package svm

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/svm/libsvm"
)

// gramRows returns the kernel values of the rows of x (n×d) against the
// points of z (m×d): row i holds K(x_i, z_j) at column j.
func gramRows(k kernel.Kernel, x []float32, n int, z []float32, m, d int) []float32 {
	g := make([]float32, n*m)
	k.Cross(g, x, n, nil, z, m, nil, d)
	return g
}

// TestPrecomputedEqualsComputed trains every solver of a KernelMatrix on
// the given Gram matrix of points (NewGramMatrix) and on the matrix
// computed from them: the decision on a row of kernel values equals the
// computed model's on the point, the support vectors are the indicators
// of the training points' columns, and the models save and load.
func TestPrecomputedEqualsComputed(t *testing.T) {
	ctx := context.Background()
	rng := newRNG(61)
	train, test := ringnorm(200, 5, rng), ringnorm(100, 5, rng)
	k := kernel.RBF{Gamma: 0.2}
	km := NewKernelMatrix(k, train.X, train.N, train.D)
	gram, err := NewGramMatrix(km.k, train.N)
	if err != nil {
		t.Fatal(err)
	}
	rows := gramRows(k, test.X, test.N, train.X, train.N, train.D)
	idx := seq(0, train.N)
	z := make([]float64, train.N)
	for i := range z {
		z[i] = float64(train.X[i*train.D]) + 0.5*float64(train.Y[i])
	}
	for _, c := range []struct {
		name string
		fit  func(m *KernelMatrix) (*Model, error)
	}{
		{"smo", func(m *KernelMatrix) (*Model, error) { return m.SMO(ctx, idx, train.Y, SMOConfig{C: 2}, nil) }},
		{"smo-svr", func(m *KernelMatrix) (*Model, error) {
			return m.SMOSVR(ctx, idx, z, SMOSVRConfig{C: 2, Epsilon: 0.2}, nil)
		}},
		{"nu-svc", func(m *KernelMatrix) (*Model, error) { return m.NuSVC(ctx, idx, train.Y, NuConfig{Nu: 0.4}, nil) }},
		{"one-class", func(m *KernelMatrix) (*Model, error) { return m.OneClass(ctx, idx, NuConfig{Nu: 0.2}, nil) }},
		{"nu-svr", func(m *KernelMatrix) (*Model, error) { return m.NuSVR(ctx, idx, z, NuConfig{Nu: 0.3, C: 2}, nil) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			want, err := c.fit(km)
			if err != nil {
				t.Fatal(err)
			}
			m, err := c.fit(gram)
			if err != nil {
				t.Fatal(err)
			}
			if m.Kernel.Name != kernel.Precomputed || m.D != train.N || m.SVSparse == nil {
				t.Fatalf("kernel %s, D = %d, sparse %v", m.Kernel, m.D, m.SVSparse != nil)
			}
			if m.NSV != want.NSV || m.Info["iterations"] != want.Info["iterations"] {
				t.Errorf("%d SVs in %s iterations, computed kernel %d in %s", m.NSV, m.Info["iterations"], want.NSV, want.Info["iterations"])
			}
			serials := m.Serials()
			for s, sn := range serials {
				if sn < 1 || sn > train.N || !slices.Equal(want.SV[s*train.D:(s+1)*train.D], train.row(sn-1)) {
					t.Fatalf("support vector %d: serial %d is not the computed model's point", s, sn)
				}
			}
			dec := make([]float64, test.N)
			m.DecisionBatch(dec, rows, test.N)
			for i := 0; i < test.N; i++ {
				w := want.Decision(test.row(i))
				r := rows[i*train.N : (i+1)*train.N]
				if math.Abs(m.Decision(r)-w) > 1e-5 || math.Abs(dec[i]-w) > 1e-5 {
					t.Fatalf("row %d: decision %g (batch %g), computed kernel %g", i, m.Decision(r), dec[i], w)
				}
				// The row as sparse kernel values: its nonzeros.
				if v := m.DecisionVec(libsvm.RowOf(data.Dense(r)).Vec()); math.Abs(v-w) > 1e-5 {
					t.Fatalf("row %d: sparse decision %g, computed kernel %g", i, v, w)
				}
			}
			path := filepath.Join(t.TempDir(), "m.safetensors")
			if err := m.Save(path); err != nil {
				t.Fatal(err)
			}
			back, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(back.Serials(), serials) || back.Kernel != m.Kernel {
				t.Errorf("loaded: serials or kernel differ")
			}
			r := rows[:train.N]
			if back.Decision(r) != m.Decision(r) {
				t.Errorf("loaded model decides %g, saved %g", back.Decision(r), m.Decision(r))
			}
		})
	}
}

// TestPrecomputedMatrix reads LIBSVM's precomputed-kernel rows, in an order
// of serials other than the rows' own, and checks the matrix against the
// Gram matrix; then its errors.
func TestPrecomputedMatrix(t *testing.T) {
	const n = 5
	g := make([]float32, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			g[i*n+j] = float32(1 / (1 + math.Abs(float64(i-j))))
		}
	}
	// Row q is point perm[q], serial perm[q] + 1; the values are at the
	// serials' indices (full rows, 1 … n).
	perm := []int{3, 0, 4, 1, 2}
	var text strings.Builder
	for _, i := range perm {
		text.WriteString("1 0:" + strconv.Itoa(i+1))
		for j := 0; j < n; j++ {
			text.WriteString(" " + strconv.Itoa(j+1) + ":" + strconv.FormatFloat(float64(g[i*n+j]), 'g', -1, 32))
		}
		text.WriteString("\n")
	}
	_, rows, err := libsvm.ReadRows(strings.NewReader(text.String()))
	if err != nil {
		t.Fatal(err)
	}
	m, err := PrecomputedMatrix(rows)
	if err != nil {
		t.Fatal(err)
	}
	if m.N != n || m.D != n {
		t.Fatalf("N = %d, D = %d", m.N, m.D)
	}
	for q, i := range perm {
		for r, j := range perm {
			if m.At(q, r) != g[i*n+j] {
				t.Fatalf("K[%d][%d] = %g, want %g", q, r, m.At(q, r), g[i*n+j])
			}
		}
		if v := m.point(q); len(v.Idx) != 1 || int(v.Idx[0]) != i {
			t.Fatalf("point %d: %+v, want the indicator of column %d", q, v, i)
		}
	}
	for _, c := range []struct{ text, want string }{
		{"1 1:1\n", "does not start with 0:serial"},
		{"1 0:1.5 1:1\n", "serial 1.5 is not an integer"},
		{"1 0:0 1:1\n", "serial 0 is not an integer ≥ 1"},
		{"1 0:1 1:1\n1 0:3 1:1 3:1\n", "row 1 has no kernel value at index 3 (the serial of row 2)"},
	} {
		_, rows, err := libsvm.ReadRows(strings.NewReader(c.text))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := PrecomputedMatrix(rows); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
	if _, err := PrecomputedMatrix(nil); err == nil {
		t.Error("no rows: no error")
	}
	if _, err := NewGramMatrix([]float32{1, 2, 3}, 2); err == nil {
		t.Error("3 values for 2 points: no error")
	}
	if _, err := NewGramMatrix([]float32{1, float32(math.NaN()), 0, 1}, 2); err == nil {
		t.Error("NaN: no error")
	}
}

func TestReadLIBSVMRows(t *testing.T) {
	y, rows, err := libsvm.ReadRows(strings.NewReader("+1 1:0.5 3:-2\n-1\n2.5 0:7 2:1e-3\t4:4 \n"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(y, []float64{1, -1, 2.5}) || len(rows) != 3 {
		t.Fatalf("labels %v, %d rows", y, len(rows))
	}
	if r := rows[2]; !slices.Equal(r.Index, []int32{0, 2, 4}) || !slices.Equal(r.Value, []float64{7, 1e-3, 4}) {
		t.Errorf("row 3: %+v", r)
	}
	if r := rows[2]; r.At(2) != 1e-3 || r.At(3) != 0 || r.At(0) != 7 || r.At(-1) != 0 || r.At(9) != 0 {
		t.Errorf("At: %g %g %g", r.At(2), r.At(3), r.At(0))
	}
	if v := rows[2].Vec(); !slices.Equal(v.Idx, []int32{1, 3}) || !slices.Equal(v.Val, []float32{1e-3, 4}) {
		t.Errorf("Vec: %+v", v)
	}
	if len(rows[1].Index) != 0 {
		t.Errorf("row 2: %+v", rows[1])
	}
	for _, c := range []struct{ text, want string }{
		{"1 1:1\n\n1 1:1\n", "line 2: no label"},
		{"x 1:1\n", "line 1: bad label"},
		{"1 2:1 1:1\n", "line 1: index 1 after 2"},
		{"1 1:nan\n", "bad value"},
		{"1 -1:1\n", "bad index"},
		{"1 1\n", "is not index:value"},
	} {
		if _, _, err := libsvm.ReadRows(strings.NewReader(c.text)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
	r := libsvm.RowOf(data.Dense([]float32{0, 1.5, 0, -2}))
	if !slices.Equal(r.Index, []int32{2, 4}) || !slices.Equal(r.Value, []float64{1.5, -2}) {
		t.Errorf("libsvm.RowOf: %+v", r)
	}
}
