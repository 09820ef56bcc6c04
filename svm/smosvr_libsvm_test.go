package svm

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data/datasets"
	"github.com/nsvm-go/nsvm/kernel"
)

// diabetesDir holds python3-sklearn's copy of the diabetes data (442
// patients, 10 features).
const diabetesDir = "/usr/lib/python3/dist-packages/sklearn/datasets/data"

// readGzFloats reads a gzipped table of numbers separated by blanks or
// commas.
func readGzFloats(t testing.TB, path string) [][]float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("no %s (python3-sklearn): %v", path, err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := b.ReadFrom(zr); err != nil {
		t.Fatal(err)
	}
	var rows [][]float64
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		var row []float64
		for _, fld := range strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
			v, err := strconv.ParseFloat(fld, 64)
			if err != nil {
				t.Fatal(err)
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	return rows
}

// diabetes returns sklearn's diabetes data as a regression problem with raw
// features and targets.
func diabetes(t testing.TB) RegProblem {
	t.Helper()
	x := readGzFloats(t, filepath.Join(diabetesDir, "diabetes_data_raw.csv.gz"))
	y := readGzFloats(t, filepath.Join(diabetesDir, "diabetes_target.csv.gz"))
	if len(x) != 442 || len(y) != 442 {
		t.Fatalf("diabetes: %d rows and %d targets, want 442", len(x), len(y))
	}
	p := RegProblem{N: 442, D: len(x[0]), Y: make([]float64, 442)}
	for i, r := range x {
		for _, v := range r {
			p.X = append(p.X, float32(v))
		}
		p.Y[i] = y[i][0]
	}
	return p
}

// friedman1 draws n points of Friedman #1 (noise 1).
func friedman1(n int, seed uint64) RegProblem {
	ds := datasets.Friedman1(n, 1, rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)))
	return RegProblem{X: ds.X, N: ds.N, D: ds.D, Y: ds.Y}
}

// standardizeReg scales the features and targets of train to mean 0 and
// standard deviation 1 and applies the same maps to the others.
func standardizeReg(train RegProblem, others ...*RegProblem) {
	cls := func(r RegProblem) Problem { return Problem{X: r.X, N: r.N, D: r.D} }
	var rest []Problem
	for _, o := range others {
		rest = append(rest, cls(*o))
	}
	standardize(cls(train), rest...)
	var mean, sd float64
	for _, v := range train.Y {
		mean += v
	}
	mean /= float64(train.N)
	for _, v := range train.Y {
		sd += (v - mean) * (v - mean)
	}
	sd = math.Sqrt(sd / float64(train.N))
	for _, r := range append([]*RegProblem{&train}, others...) {
		for i := range r.Y {
			r.Y[i] = (r.Y[i] - mean) / sd
		}
	}
}

// subsetReg returns the rows lo ≤ i < hi of p (copied).
func subsetReg(p RegProblem, lo, hi int) RegProblem {
	return RegProblem{
		X: append([]float32(nil), p.X[lo*p.D:hi*p.D]...), N: hi - lo, D: p.D,
		Y: append([]float64(nil), p.Y[lo:hi]...),
	}
}

// writeRegData writes p in LIBSVM's text format, every value exactly.
func writeRegData(t testing.TB, path string, p RegProblem) {
	t.Helper()
	var b bytes.Buffer
	for i := 0; i < p.N; i++ {
		b.WriteString(strconv.FormatFloat(p.Y[i], 'g', -1, 64))
		for j, v := range p.row(i) {
			if v != 0 {
				fmt.Fprintf(&b, " %d:%s", j+1, strconv.FormatFloat(float64(v), 'g', -1, 64))
			}
		}
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

var nsvRE = regexp.MustCompile(`nSV = (\d+), nBSV = (\d+)`)

// TestSMOSVRAgainstLIBSVM trains the same RBF ε-SVR with SMOSVR and with
// svm-train -s 3 on the sklearn diabetes data and on Friedman #1 (features
// and targets standardised with the training set's statistics) and compares
// the dual objective, the number of support vectors and the predictions on
// held-out points. Both stop at a violation of 1e-5: at LIBSVM's default
// 1e-3, ρ is only pinned down to about that much and the predictions of two
// solvers whose float32 kernel values differ in the last bit drift apart by
// up to 5e-4.
func TestSMOSVRAgainstLIBSVM(t *testing.T) {
	if _, err := exec.LookPath("svm-train"); err != nil {
		t.Skip("svm-train not on PATH (Debian package libsvm-tools)")
	}
	type svrCase struct {
		name              string
		train, test       RegProblem
		gamma, c, epsilon float64
		objTol, predTol   float64
	}
	var cases []svrCase
	if _, err := os.Stat(filepath.Join(diabetesDir, "diabetes_target.csv.gz")); err == nil {
		all := diabetes(t)
		for _, c := range []struct{ gamma, c, eps float64 }{{0.1, 1, 0.1}, {0.0125, 10, 0.3}, {0.5, 100, 0.05}} {
			train, test := subsetReg(all, 0, 342), subsetReg(all, 342, 442)
			standardizeReg(train, &test)
			cases = append(cases, svrCase{fmt.Sprintf("diabetes γ=%g C=%g ε=%g", c.gamma, c.c, c.eps), train, test, c.gamma, c.c, c.eps, 1e-6, 1e-4})
		}
	}
	nf := 500
	if !testing.Short() {
		nf = 1500
	}
	// With the wide kernel (γ = 0.02) and C = 30 the problem is flat near
	// the optimum: at a violation of 1e-5 the objective is determined only
	// to about 1e-5·Σ|β_i| ≈ 0.1 (391 points at the bound C), i.e. 4e-5
	// relative. The two solvers land 1.8e-6 apart (5.2e-6 when our kernel
	// values are computed in float64 like LIBSVM's), hence the looser
	// tolerance for that case.
	for _, c := range []struct{ gamma, c, eps, objTol, predTol float64 }{
		{0.1, 1, 0.1, 1e-6, 1e-4},
		{0.1, 10, 0.05, 1e-6, 1e-4},
		{0.02, 30, 0.2, 1e-5, 5e-4},
	} {
		train, test := friedman1(nf, 1), friedman1(500, 2)
		standardizeReg(train, &test)
		cases = append(cases, svrCase{fmt.Sprintf("friedman1 n=%d γ=%g C=%g ε=%g", nf, c.gamma, c.c, c.eps), train, test, c.gamma, c.c, c.eps, c.objTol, c.predTol})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			trainF, testF, modelF := filepath.Join(dir, "train"), filepath.Join(dir, "test"), filepath.Join(dir, "model")
			writeRegData(t, trainF, c.train)
			writeRegData(t, testF, c.test)
			out, err := exec.Command("svm-train", "-s", "3", "-t", "2", "-g", fmt.Sprint(c.gamma), "-c", fmt.Sprint(c.c),
				"-p", fmt.Sprint(c.epsilon), "-e", "1e-5", "-m", "100", "-h", "1", trainF, modelF).CombinedOutput()
			if err != nil {
				t.Fatalf("svm-train: %v\n%s", err, out)
			}
			mm, ms := objRE.FindSubmatch(out), nsvRE.FindSubmatch(out)
			if mm == nil || ms == nil {
				t.Fatalf("no objective or nSV in svm-train's output:\n%s", out)
			}
			libObj, _ := strconv.ParseFloat(string(mm[1]), 64)
			libNSV, _ := strconv.Atoi(string(ms[1]))
			libNBSV, _ := strconv.Atoi(string(ms[2]))

			k := kernel.RBF{Gamma: c.gamma}
			m, err := SMOSVR(t.Context(), c.train, k, SMOSVRConfig{C: c.c, Epsilon: c.epsilon, Eps: 1e-5}, nil)
			if err != nil {
				t.Fatal(err)
			}
			obj, _ := strconv.ParseFloat(m.Info["objective"], 64)
			nbsv, _ := strconv.Atoi(m.Info["nbsv"])
			libPred := predictFile(t, testF, modelF)
			var maxDiff float64
			for i := 0; i < c.test.N; i++ {
				maxDiff = max(maxDiff, math.Abs(m.Decision(c.test.row(i))-libPred[i]))
			}
			t.Logf("objective ours %.9g, svm-train %.9g (rel. %.2g); nSV %d / %d, nBSV %d / %d; iterations %s; max |Δ prediction| %.2g",
				obj, libObj, relDiff(obj, libObj), m.NSV, libNSV, nbsv, libNBSV, m.Info["iterations"], maxDiff)
			if d := relDiff(obj, libObj); d > c.objTol {
				t.Errorf("objective %.9g, svm-train %.9g (rel. diff %.2g > %g)", obj, libObj, d, c.objTol)
			}
			if m.NSV < libNSV-1 || m.NSV > libNSV+1 {
				t.Errorf("%d support vectors, svm-train %d", m.NSV, libNSV)
			}
			if maxDiff > c.predTol {
				t.Errorf("predictions differ from svm-predict's by up to %.3g > %g", maxDiff, c.predTol)
			}
		})
	}
}
