package svm

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/kernel"
)

// writeData writes p, dense or sparse, in LIBSVM's text format with every
// float32 written exactly.
func writeData(t testing.TB, path string, p Problem) {
	t.Helper()
	var b bytes.Buffer
	for i := 0; i < p.N; i++ {
		fmt.Fprintf(&b, "%g", p.Y[i])
		x := p.vec(i)
		for k, v := range x.Val {
			j := k
			if x.Idx != nil {
				j = int(x.Idx[k])
			}
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

// readLIBSVMModel returns the support vectors (dense, d columns) and the
// label line of a LIBSVM model file.
func readLIBSVMModel(t testing.TB, path string, d int) (sv [][]float64, labels string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	inSV := false
	for sc.Scan() {
		line := sc.Text()
		if !inSV {
			if strings.HasPrefix(line, "label ") {
				labels = strings.TrimPrefix(line, "label ")
			}
			inSV = line == "SV"
			continue
		}
		fields := strings.Fields(line)
		x := make([]float64, d)
		for _, fld := range fields[1:] {
			idx, val, _ := strings.Cut(fld, ":")
			j, _ := strconv.Atoi(idx)
			x[j-1], _ = strconv.ParseFloat(val, 64)
		}
		sv = append(sv, x)
	}
	return sv, labels
}

// predictFile runs svm-predict and returns its predictions.
func predictFile(t testing.TB, test, model string) []float64 {
	t.Helper()
	return predictWith(t, "svm-predict", test, model)
}

// predictWith runs svm-predict or liblinear-predict and returns its
// predictions.
func predictWith(t testing.TB, tool, test, model string) []float64 {
	t.Helper()
	out := filepath.Join(t.TempDir(), "pred")
	if b, err := exec.Command(tool, test, model, out).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", tool, err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var labels []float64
	for _, f := range strings.Fields(string(b)) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			t.Fatal(err)
		}
		labels = append(labels, v)
	}
	return labels
}

var objRE = regexp.MustCompile(`obj = (-?[0-9.eE+-]+)`)

// TestSMOAgainstLIBSVM trains the same RBF C-SVM with SMO and with Debian's
// svm-train and compares the dual objective, the support vectors and the
// test predictions; then checks that svm-predict reads WriteLIBSVM's file and
// predicts exactly as Predict.
func TestSMOAgainstLIBSVM(t *testing.T) {
	if _, err := exec.LookPath("svm-train"); err != nil {
		t.Skip("svm-train not on PATH (Debian package libsvm-tools)")
	}
	n := 600
	if !testing.Short() {
		n = 2000
	}
	const d, gamma, c = 20, 0.05, 1.0
	rng := newRNG(11)
	train, test := ringnorm(n, d, rng), ringnorm(1000, d, rng)
	standardize(train, test)
	dir := t.TempDir()
	trainF, testF, modelF := filepath.Join(dir, "train"), filepath.Join(dir, "test"), filepath.Join(dir, "model")
	writeData(t, trainF, train)
	writeData(t, testF, test)
	out, err := exec.Command("svm-train", "-s", "0", "-t", "2", "-g", fmt.Sprint(gamma), "-c", fmt.Sprint(c),
		"-e", "0.001", "-m", "100", "-h", "1", trainF, modelF).CombinedOutput()
	if err != nil {
		t.Fatalf("svm-train: %v\n%s", err, out)
	}
	mm := objRE.FindSubmatch(out)
	if mm == nil {
		t.Fatalf("no objective in svm-train's output:\n%s", out)
	}
	libObj, _ := strconv.ParseFloat(string(mm[1]), 64)

	k := kernel.RBF{Gamma: gamma}
	m := mustSMO(t, train, k, SMOConfig{C: c, Eps: 1e-3})
	obj, _ := strconv.ParseFloat(m.Info["objective"], 64)
	t.Logf("n=%d: objective ours %.6f, svm-train %.6f; #SV ours %d", n, obj, libObj, m.NSV)
	if relDiff(obj, libObj) > 1e-3 {
		t.Errorf("objective %.6f, svm-train %.6f", obj, libObj)
	}

	// Support vectors: match svm-train's (written with 8 digits) to the
	// nearest training point.
	libSV, _ := readLIBSVMModel(t, modelF, d)
	ours := map[int]bool{}
	for i, a := range alphaOf(m, train) {
		if a > 0 {
			ours[i] = true
		}
	}
	common := 0
	for _, x := range libSV {
		best, bestD := -1, math.Inf(1)
		for i := 0; i < train.N; i++ {
			var s float64
			for j, v := range train.row(i) {
				s += (float64(v) - x[j]) * (float64(v) - x[j])
			}
			if s < bestD {
				best, bestD = i, s
			}
		}
		if bestD > 1e-10 {
			t.Fatalf("svm-train SV %v matches no training point (distance² %g)", x[:3], bestD)
		}
		if ours[best] {
			common++
		}
	}
	overlap := float64(common) / float64(max(len(libSV), len(ours)))
	t.Logf("#SV svm-train %d, common %d (%.2f%%)", len(libSV), common, 100*overlap)
	if overlap < 0.98 {
		t.Errorf("support vector overlap %.3f < 0.98", overlap)
	}

	// Test predictions of the two fits.
	libPred := predictFile(t, testF, modelF)
	if len(libPred) != test.N {
		t.Fatalf("%d predictions for %d points", len(libPred), test.N)
	}
	agree := 0
	for i := 0; i < test.N; i++ {
		if m.Predict(test.row(i)) == libPred[i] {
			agree++
		}
	}
	if frac := float64(agree) / float64(test.N); frac < 0.999 {
		t.Errorf("test predictions agree on %.4f < 0.999", frac)
	}

	// Our model exported to LIBSVM predicts exactly as Predict, with our
	// own labels.
	m.Neg, m.Pos = 3, 7
	ourF := filepath.Join(dir, "ours.model")
	var b bytes.Buffer
	if err := m.WriteLIBSVM(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ourF, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	pred := predictFile(t, testF, ourF)
	for i := 0; i < test.N; i++ {
		x := test.row(i)
		if got, want := pred[i], m.Predict(x); got != want && math.Abs(m.Decision(x)) > 1e-9 {
			t.Errorf("point %d: svm-predict says %g, Predict %g (decision %g)", i, got, want, m.Decision(x))
		}
	}
}

// TestWriteLIBSVMKernels checks svm-predict accepts every kernel type.
func TestWriteLIBSVMKernels(t *testing.T) {
	if _, err := exec.LookPath("svm-predict"); err != nil {
		t.Skip("svm-predict not on PATH (Debian package libsvm-tools)")
	}
	rng := newRNG(5)
	train, test := ringnorm(200, 5, rng), ringnorm(300, 5, rng)
	standardize(train, test)
	dir := t.TempDir()
	testF := filepath.Join(dir, "test")
	writeData(t, testF, test)
	models := map[string]*Model{}
	for _, k := range []kernel.Kernel{
		kernel.Linear{},
		kernel.Poly{Gamma: 0.3, Coef0: 1, Degree: 3},
		kernel.RBF{Gamma: 0.2},
		kernel.Sigmoid{Gamma: 0.01, Coef0: -0.5},
	} {
		models["smo-"+k.Spec().Name] = mustSMO(t, train, k, SMOConfig{C: 1})
	}
	var err error
	if models["pegasos-linear"], err = PegasosLinear(context.Background(), train, PegasosLinearConfig{Lambda: 1e-2, Bias: true}, newRNG(1), nil); err != nil {
		t.Fatal(err)
	}
	if models["pegasos-rbf"], err = Pegasos(context.Background(), train, kernel.RBF{Gamma: 0.2}, PegasosConfig{Lambda: 1e-3, T: 1000}, newRNG(1), nil); err != nil {
		t.Fatal(err)
	}
	for name, m := range models {
		t.Run(name, func(t *testing.T) {
			f := filepath.Join(dir, name+".model")
			var b bytes.Buffer
			if err := m.WriteLIBSVM(&b); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(f, b.Bytes(), 0o644)
			pred := predictFile(t, testF, f)
			for i := 0; i < test.N; i++ {
				x := test.row(i)
				if got, want := pred[i], m.Predict(x); got != want && math.Abs(m.Decision(x)) > 1e-7 {
					t.Fatalf("point %d: svm-predict says %g, Predict %g (decision %g)", i, got, want, m.Decision(x))
				}
			}
		})
	}
	m := &Model{Kernel: kernel.Spec{Name: "rbf", Gamma: 1, Normalized: true}, D: 1}
	if err := m.WriteLIBSVM(&bytes.Buffer{}); err == nil {
		t.Error("normalized kernel: no error")
	}
}

// TestSMOWeightsAgainstLIBSVM trains an unbalanced RBF C-SVM with class
// weights (C₊ = C·WeightPos, C₋ = C·WeightNeg) by SMO and by svm-train
// -w1 -w-1 and compares objective, support vectors and test predictions.
func TestSMOWeightsAgainstLIBSVM(t *testing.T) {
	if _, err := exec.LookPath("svm-train"); err != nil {
		t.Skip("svm-train not on PATH (Debian package libsvm-tools)")
	}
	rng := newRNG(21)
	all := ringnorm(1600, 10, rng)
	// Keep every positive point and one negative in four: 4:1 unbalanced.
	var train Problem
	train.D = all.D
	for i := 0; i < all.N; i++ {
		if all.Y[i] > 0 || i%8 == 1 {
			train.X = append(train.X, all.row(i)...)
			train.Y = append(train.Y, all.Y[i])
			train.N++
		}
	}
	test := ringnorm(1000, 10, rng)
	standardize(train, test)
	dir := t.TempDir()
	trainF, testF := filepath.Join(dir, "train"), filepath.Join(dir, "test")
	writeData(t, trainF, train)
	writeData(t, testF, test)
	const gamma, c = 0.1, 2.0
	for _, w := range []struct{ pos, neg float64 }{{1, 1}, {0.25, 1}, {1, 4}, {0.5, 3}} {
		t.Run(fmt.Sprintf("w+=%g,w-=%g", w.pos, w.neg), func(t *testing.T) {
			modelF := filepath.Join(dir, "model")
			out, err := exec.Command("svm-train", "-s", "0", "-t", "2", "-g", fmt.Sprint(gamma), "-c", fmt.Sprint(c),
				"-w1", fmt.Sprint(w.pos), "-w-1", fmt.Sprint(w.neg), "-e", "1e-5", "-m", "100", trainF, modelF).CombinedOutput()
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
			m := mustSMO(t, train, kernel.RBF{Gamma: gamma}, SMOConfig{C: c, Eps: 1e-5, WeightPos: w.pos, WeightNeg: w.neg})
			obj := objective(t, m)
			nbsv, _ := strconv.Atoi(m.Info["nbsv"])
			t.Logf("objective ours %.9g, svm-train %.9g; nSV %d / %d, nBSV %d / %d", obj, libObj, m.NSV, libNSV, nbsv, libNBSV)
			if d := relDiff(obj, libObj); d > 1e-6 {
				t.Errorf("objective %.9g, svm-train %.9g (rel. diff %.2g)", obj, libObj, d)
			}
			if m.NSV < libNSV-1 || m.NSV > libNSV+1 || nbsv < libNBSV-1 || nbsv > libNBSV+1 {
				t.Errorf("nSV %d, nBSV %d; svm-train %d, %d", m.NSV, nbsv, libNSV, libNBSV)
			}
			for i, a := range alphaOf(m, train) {
				if b := c * map[bool]float64{true: w.pos, false: w.neg}[train.Y[i] > 0]; a > b*(1+1e-12) {
					t.Fatalf("α_%d = %g above its bound %g", i, a, b)
				}
			}
			libPred := predictFile(t, testF, modelF)
			for i := 0; i < test.N; i++ {
				x := test.row(i)
				if m.Predict(x) != libPred[i] && math.Abs(m.Decision(x)) > 1e-4 {
					t.Errorf("test point %d: ours %g (decision %g), svm-predict %g", i, m.Predict(x), m.Decision(x), libPred[i])
				}
			}
		})
	}
}
