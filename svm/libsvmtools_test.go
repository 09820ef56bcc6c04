package svm

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/svm/libsvm"
)

// needLIBSVM skips the test unless svm-train and svm-predict are on PATH.
func needLIBSVM(t testing.TB) {
	t.Helper()
	for _, tool := range []string{"svm-train", "svm-predict"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not on PATH (Debian package libsvm-tools)", tool)
		}
	}
}

// heartScaleRows returns heart_scale (LIBSVM's example data: 270 points,
// 13 features, labels ±1) as dense rows, skipping the test if the
// file is missing.
func heartScaleRows(t testing.TB) Problem {
	t.Helper()
	f, err := os.Open(heartScale)
	if err != nil {
		t.Skipf("no %s (Debian package liblinear-tools): %v", heartScale, err)
	}
	defer f.Close()
	ds, err := data.ReadLIBSVMLayout(f, heartScale, 13, data.LayoutDense)
	if err != nil {
		t.Fatal(err)
	}
	p := Problem{X: ds.X, N: ds.N, D: ds.D, Y: make([]float32, ds.N)}
	for i, y := range ds.Y {
		p.Y[i] = float32(y)
	}
	return p
}

// subset returns the points idx of p (copied, dense or sparse).
func rowsOf(p Problem, idx []int) Problem {
	s := Problem{N: len(idx), D: p.D, Y: make([]float32, len(idx))}
	if p.Sparse != nil {
		s.Sparse = csrRows(p.Sparse, idx)
	}
	for q, i := range idx {
		s.Y[q] = p.Y[i]
		if p.Sparse == nil {
			s.X = append(s.X, p.row(i)...)
		}
	}
	return s
}

// positivesFirst returns the order of p's points that svm-train gives a
// two-class problem with labels ±1: class +1 first, each class in its
// order in p.
func positivesFirst(p Problem) []int {
	var pos, neg []int
	for i, y := range p.Y {
		if y > 0 {
			pos = append(pos, i)
		} else {
			neg = append(neg, i)
		}
	}
	return append(pos, neg...)
}

// svmTrain runs svm-train with args and returns its output.
func svmTrain(t testing.TB, args ...string) string {
	t.Helper()
	out, err := exec.Command("svm-train", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("svm-train %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// trainStat returns the number svm-train printed as "name = value" (the
// last one, for multiclass runs).
func trainStat(t testing.TB, out, name string) float64 {
	t.Helper()
	all := regexp.MustCompile(regexp.QuoteMeta(name)+` = (-?[0-9.eE+-]+|-?nan|-?inf)`).FindAllStringSubmatch(out, -1)
	if all == nil {
		t.Fatalf("no %q in svm-train's output:\n%s", name, out)
	}
	v, err := strconv.ParseFloat(all[len(all)-1][1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// writeRows writes n points in LIBSVM's format: labels[i] and row(i), every
// float32 exactly.
func writeLabelled(t testing.TB, path string, labels []float64, row func(i int) data.Vec) {
	t.Helper()
	var b bytes.Buffer
	for i, y := range labels {
		b.WriteString(strconv.FormatFloat(y, 'g', -1, 64))
		x := libsvm.RowOf(row(i))
		for k, j := range x.Index {
			fmt.Fprintf(&b, " %d:%s", j, strconv.FormatFloat(x.Value[k], 'g', -1, 64))
		}
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeFile writes b to a file in dir and returns its path.
func writeFile(t testing.TB, dir, name string, b []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// readRows reads a LIBSVM data file with libsvm.ReadRows.
func readRows(t testing.TB, path string) ([]float64, []libsvm.Row) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	y, rows, err := libsvm.ReadRows(f)
	if err != nil {
		t.Fatal(err)
	}
	return y, rows
}

// readModelFile reads a LIBSVM model file with libsvm.ReadModel.
func readModelFile(t testing.TB, path string) *libsvm.Model {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := libsvm.ReadModel(f)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// writeModelFile writes m to a file in dir and returns its path.
func writeModelFile(t testing.TB, dir, name string, m *libsvm.Model) string {
	t.Helper()
	var b bytes.Buffer
	if err := m.Write(&b); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, name, b.Bytes())
}

// agreement returns the fraction of equal entries of a and b.
func sameShare(a, b []float64) float64 {
	n := 0
	for i := range a {
		if a[i] == b[i] {
			n++
		}
	}
	return float64(n) / float64(len(a))
}

// rmse returns the root mean squared difference of a and b.
func rmseOf(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s / float64(len(a)))
}

// threeClass draws n points of three overlapping Gaussian classes in d
// dimensions, with labels 2, 1 and 3 in the order of first occurrence (so
// that LIBSVM's label order is not the sorted one): class c around
// 1.5·e_c, unit noise, classes drawn at random.
func threeClass(n, d int, rng *rand.Rand) ([]float32, []float64) {
	x := make([]float32, n*d)
	y := make([]float64, n)
	labels := []float64{2, 1, 3}
	for i := 0; i < n; i++ {
		c := rng.IntN(3)
		if i < 3 {
			c = i
		}
		y[i] = labels[c]
		for j := 0; j < d; j++ {
			v := rng.NormFloat64()
			if j == c {
				v += 1.5
			}
			x[i*d+j] = float32(v)
		}
	}
	return x, y
}

// classIndex maps labels to class indices in the order of first
// occurrence (LIBSVM's label order) and returns the indices and the
// labels in that order.
func classIndex(y []float64) ([]int, []float64) {
	var order []float64
	idx := make([]int, len(y))
	for i, v := range y {
		c := -1
		for k, u := range order {
			if u == v {
				c = k
			}
		}
		if c < 0 {
			c = len(order)
			order = append(order, v)
		}
		idx[i] = c
	}
	return idx, order
}

// voteHeads returns the class index of x's one-vs-one vote over heads in
// PairClasses order, as the root package votes: a vote for a where the
// decision is ≥ 0, ties to the smaller index. It also returns the
// smallest |decision|.
func voteHeads(heads []*Model, nc int, x data.Vec) (int, float64) {
	votes := make([]int, nc)
	minAbs := math.Inf(1)
	for q, h := range heads {
		a, b := PairClasses(q, nc)
		d := h.DecisionVec(x)
		minAbs = min(minAbs, math.Abs(d))
		if d >= 0 {
			votes[a]++
		} else {
			votes[b]++
		}
	}
	return libsvm.VoteOneVsOne(votes), minAbs
}

// libsvmKernelArgs returns svm-train's kernel options for k.
func libsvmKernelArgs(k kernel.Kernel) []string {
	s := k.Spec()
	g := fmt.Sprint(s.Gamma)
	switch s.Name {
	case "linear":
		return []string{"-t", "0"}
	case "poly":
		return []string{"-t", "1", "-g", g, "-r", fmt.Sprint(s.Coef0), "-d", strconv.Itoa(s.Degree)}
	case "rbf":
		return []string{"-t", "2", "-g", g}
	case "sigmoid":
		return []string{"-t", "3", "-g", g, "-r", fmt.Sprint(s.Coef0)}
	}
	panic("no LIBSVM kernel for " + s.Name)
}

// libsvmPredict writes p's rows (labels y) to a file in dir, runs
// svm-predict with the model file and returns its output.
func libsvmPredict(t *testing.T, dir, model string, y []float64, row func(int) data.Vec) []float64 {
	t.Helper()
	test := filepath.Join(dir, "predict.data")
	writeLabelled(t, test, y, row)
	pred := predictFile(t, test, model)
	if len(pred) != len(y) {
		t.Fatalf("svm-predict: %d predictions for %d rows", len(pred), len(y))
	}
	return pred
}

func labels64(p Problem) []float64 {
	y := make([]float64, p.N)
	for i, v := range p.Y {
		y[i] = float64(v)
	}
	return y
}

// checkWritten writes m with WriteLIBSVM and checks that svm-predict
// predicts rows as m does, apart from decisions within tol of 0 (for a
// regression, the same values up to the rounding of float32 kernel
// values).
func checkWritten(t *testing.T, dir string, m *Model, y []float64, row func(int) data.Vec, tol float64) {
	t.Helper()
	var b bytes.Buffer
	if err := m.WriteLIBSVM(&b); err != nil {
		t.Fatal(err)
	}
	pred := libsvmPredict(t, dir, writeFile(t, dir, "ours.model", b.Bytes()), y, row)
	regression := libsvmType(m) == "epsilon_svr" || libsvmType(m) == "nu_svr"
	// Our kernel values are float32, LIBSVM's float64: the sums differ by
	// up to a few float32 roundings of Σ|Coef|.
	_, sumAbs := coefSums(m)
	for i, p := range pred {
		d := m.DecisionVec(row(i))
		if regression {
			if math.Abs(p-d) > 1e-6+2e-7*sumAbs {
				t.Fatalf("row %d: svm-predict says %.9g with our model, we %.9g", i, p, d)
			}
		} else if p != m.PredictVec(row(i)) && math.Abs(d) > tol {
			t.Fatalf("row %d: svm-predict says %g with our model, we %g (decision %g)", i, p, m.PredictVec(row(i)), d)
		}
	}
}
