package svm

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/svm/libsvm"
)

// pairAsRegression returns pair p of a LIBSVM model (its single decision
// for one_class and the regressions) as an epsilon_svr model, whose
// prediction svm-predict prints to 17 digits: the pair's decision value.
func pairAsRegression(m *libsvm.Model, p int) *libsvm.Model {
	r := &libsvm.Model{SVMType: "epsilon_svr", Kernel: m.Kernel, NrClass: 2, Rho: []float64{m.Rho[p]}, SVCoef: [][]float64{nil}}
	if !libsvm.IsClassifier(m.SVMType) {
		r.SVCoef[0] = m.SVCoef[0]
		r.SV = m.SV
		return r
	}
	i, j := PairClasses(p, m.NrClass)
	start := 0
	for c := 0; c < m.NrClass; c++ {
		row := -1
		switch c {
		case i:
			row = j - 1
		case j:
			row = i
		}
		for s := start; s < start+m.NrSV[c]; s++ {
			if row >= 0 {
				r.SV = append(r.SV, m.SV[s])
				r.SVCoef[0] = append(r.SVCoef[0], m.SVCoef[row][s])
			}
		}
		start += m.NrSV[c]
	}
	return r
}

// gramFile writes the RBF kernel values of the rows of src against
// themselves as LIBSVM's precomputed-kernel data (0:serial, then the 17
// digits of K(x_i, x_j) at index j) and returns its path.
func gramFile(t *testing.T, dir, src string, gamma float64) string {
	t.Helper()
	y, rows := readRows(t, src)
	var b bytes.Buffer
	for i, ri := range rows {
		fmt.Fprintf(&b, "%g 0:%d", y[i], i+1)
		for j, rj := range rows {
			fmt.Fprintf(&b, " %d:%s", j+1, strconv.FormatFloat(math.Exp(-gamma*libsvm.SqDist(ri, rj)), 'g', 17, 64))
		}
		b.WriteByte('\n')
	}
	return writeFile(t, dir, "gram", b.Bytes())
}

// TestReadLIBSVMModelAgainstPredict trains svm-train models of every
// svm_type and kernel_type (and probability models) on heart_scale, its
// precomputed RBF kernel, three classes and sparse rows, reads them with
// libsvm.ReadModel and checks PredictValues against svm-predict on every
// row: the same labels (the same values for the regressions, to 1e-9),
// and decision values equal to svm-predict's for each pair (the pair
// written as an epsilon_svr model, whose predictions svm-predict prints
// to 17 digits) to 1e-9. The model written back by Write reads back equal
// and predicts the same through svm-predict, and Heads gives models that
// predict the same apart from decisions within 1e-4 of 0 (float32
// support vectors and kernel values).
func TestReadLIBSVMModelAgainstPredict(t *testing.T) {
	needLIBSVM(t)
	heartScaleRows(t) // skips without the file
	dir := t.TempDir()
	gram := gramFile(t, dir, heartScale, 1.0/13)

	rng := newRNG(71)
	x3, y3 := threeClass(300, 4, rng)
	three := filepath.Join(dir, "three")
	writeLabelled(t, three, y3, func(i int) data.Vec { return data.Dense(x3[i*4 : (i+1)*4]) })
	sp := sparseRandom(300, 500, 15, rng)
	sparse := filepath.Join(dir, "sparse")
	writeLabelled(t, sparse, labels64(sp), sp.vec)

	type run struct {
		data string
		args []string
	}
	var runs []run
	for s := 0; s <= 4; s++ {
		for k := 0; k <= 3; k++ {
			runs = append(runs, run{heartScale, []string{"-s", strconv.Itoa(s), "-t", strconv.Itoa(k)}})
		}
		runs = append(runs, run{gram, []string{"-s", strconv.Itoa(s), "-t", "4"}})
	}
	runs = append(runs,
		run{heartScale, []string{"-s", "0", "-b", "1"}},
		run{heartScale, []string{"-s", "3", "-b", "1"}},
		run{three, []string{"-s", "0", "-c", "4"}},
		run{three, []string{"-s", "1", "-n", "0.4", "-t", "1", "-r", "1"}},
		run{three, []string{"-s", "1", "-b", "1"}},
		run{sparse, []string{"-s", "0", "-g", "0.1"}},
		run{sparse, []string{"-s", "2", "-n", "0.3"}},
	)
	for _, r := range runs {
		name := filepath.Base(r.data) + strings.Join(r.args, "")
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			modelF := filepath.Join(dir, "model")
			svmTrain(t, append(append([]string{"-q"}, r.args...), r.data, modelF)...)
			lm := readModelFile(t, modelF)
			_, rows := readRows(t, r.data)
			lib := predictFile(t, r.data, modelF)
			regression := lm.SVMType == "epsilon_svr" || lm.SVMType == "nu_svr"
			dec := make([][]float64, len(rows))
			for i, x := range rows {
				dec[i] = make([]float64, lm.Pairs())
				got := lm.PredictValues(x, dec[i])
				if regression && math.Abs(got-lib[i]) > 1e-9*max(1, math.Abs(lib[i])) || !regression && got != lib[i] {
					t.Fatalf("row %d: PredictValues %.17g, svm-predict %.17g", i+1, got, lib[i])
				}
			}
			var maxDiff float64
			for p := 0; p < lm.Pairs(); p++ {
				pf := writeModelFile(t, dir, "pair", pairAsRegression(lm, p))
				vals := predictFile(t, r.data, pf)
				for i := range rows {
					maxDiff = max(maxDiff, math.Abs(vals[i]-dec[i][p])/max(1, math.Abs(vals[i])))
				}
			}
			if maxDiff > 1e-9 {
				t.Errorf("decision values differ from svm-predict's by up to %.3g", maxDiff)
			}

			var b bytes.Buffer
			if err := lm.Write(&b); err != nil {
				t.Fatal(err)
			}
			back, err := libsvm.ReadModel(bytes.NewReader(b.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, lm) {
				t.Error("the model written and read back differs")
			}
			if again := predictFile(t, r.data, writeFile(t, dir, "again", b.Bytes())); !reflect.DeepEqual(again, lib) {
				t.Error("svm-predict predicts differently with the model written back")
			}

			width := 0
			for _, x := range rows {
				width = max(width, x.MaxIndex())
			}
			heads, err := HeadsOf(lm, width)
			if err != nil {
				t.Fatal(err)
			}
			if len(heads) != max(lm.Pairs(), 1) || heads[0].D != width {
				t.Fatalf("%d heads of width %d for %d pairs", len(heads), heads[0].D, lm.Pairs())
			}
			for i, x := range rows {
				v := x.Vec()
				var got float64
				near := false
				switch {
				case regression:
					got = heads[0].DecisionVec(v)
					if math.Abs(got-lib[i]) > 1e-4*max(1, math.Abs(lib[i])) {
						t.Fatalf("row %d: head decides %g, svm-predict %g", i+1, got, lib[i])
					}
					continue
				case lm.SVMType == "one_class":
					got = heads[0].PredictVec(v)
					near = math.Abs(heads[0].DecisionVec(v)) < 1e-4
				default:
					c, minAbs := voteHeads(heads, lm.NrClass, v)
					got, near = float64(lm.Label[c]), minAbs < 1e-4
				}
				if got != lib[i] && !near {
					t.Fatalf("row %d: heads predict %g, svm-predict %g", i+1, got, lib[i])
				}
			}
			t.Logf("%s, %s kernel, %d classes, %d SVs: labels and values of %d rows equal; decision values within %.2g",
				lm.SVMType, lm.Kernel.Name, lm.NrClass, len(lm.SV), len(rows), maxDiff)
		})
	}
}

// TestWriteLIBSVMTypes writes ε-SVR (SMOSVR) and precomputed-kernel models
// and checks the svm_type and kernel_type lines and svm-predict's
// predictions from them.
func TestWriteLIBSVMTypes(t *testing.T) {
	needLIBSVM(t)
	ctx := t.Context()
	rng := newRNG(81)
	train, test := ringnorm(200, 5, rng), ringnorm(200, 5, rng)
	k := kernel.RBF{Gamma: 0.2}
	dir := t.TempDir()
	reg := RegProblem{X: train.X, N: train.N, D: train.D, Y: labels64(train)}
	svr, err := SMOSVR(ctx, reg, k, SMOSVRConfig{C: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := svr.WriteLIBSVM(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "svm_type epsilon_svr\nkernel_type rbf\n") {
		t.Errorf("SMOSVR's model starts %q", b.String()[:40])
	}
	pred := libsvmPredict(t, dir, writeFile(t, dir, "svr", b.Bytes()), labels64(test), test.vec)
	for i, p := range pred {
		if d := svr.Decision(test.row(i)); math.Abs(p-d) > 1e-5 {
			t.Fatalf("row %d: svm-predict %g, Decision %g", i, p, d)
		}
	}

	// Precomputed: train on the Gram matrix, predict from rows of kernel
	// values written as LIBSVM's test rows (0:serial first).
	km := NewKernelMatrix(k, train.X, train.N, train.D)
	gram, err := NewGramMatrix(km.k, train.N)
	if err != nil {
		t.Fatal(err)
	}
	rows := gramRows(k, test.X, test.N, train.X, train.N, train.D)
	var text bytes.Buffer
	for i := 0; i < test.N; i++ {
		fmt.Fprintf(&text, "%g 0:%d", test.Y[i], i+1)
		for j, v := range rows[i*train.N : (i+1)*train.N] {
			fmt.Fprintf(&text, " %d:%s", j+1, strconv.FormatFloat(float64(v), 'g', -1, 32))
		}
		text.WriteByte('\n')
	}
	testF := writeFile(t, dir, "test.gram", text.Bytes())
	for _, fit := range []func() (*Model, error){
		func() (*Model, error) { return gram.SMO(ctx, seq(0, train.N), train.Y, SMOConfig{C: 2}, nil) },
		func() (*Model, error) { return gram.NuSVC(ctx, seq(0, train.N), train.Y, NuConfig{Nu: 0.3}, nil) },
		func() (*Model, error) { return gram.OneClass(ctx, seq(0, train.N), NuConfig{Nu: 0.3}, nil) },
	} {
		m, err := fit()
		if err != nil {
			t.Fatal(err)
		}
		b.Reset()
		if err := m.WriteLIBSVM(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "kernel_type precomputed\n") || !strings.Contains(b.String(), " 0:") {
			t.Fatalf("precomputed model file:\n%.300s", b.String())
		}
		pred := predictFile(t, testF, writeFile(t, dir, "gram.model", b.Bytes()))
		for i, p := range pred {
			r := rows[i*train.N : (i+1)*train.N]
			if p != m.Predict(r) && math.Abs(m.Decision(r)) > 1e-9 {
				t.Fatalf("%s row %d: svm-predict %g, Predict %g (decision %g)", m.Info["solver"], i, p, m.Predict(r), m.Decision(r))
			}
		}
	}
}

// validModel is a small valid model of three classes: 2 + 1 + 1 support
// vectors (package libsvm's test model).
var validModel = func() string {
	b, err := os.ReadFile("libsvm/testdata/three.model")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

// FuzzReadLIBSVMModel: libsvm.ReadModel never panics; what it accepts
// writes, reads back equal, predicts and converts to heads without
// panicking.
func FuzzReadLIBSVMModel(f *testing.F) {
	f.Add(validModel)
	f.Add(strings.Replace(validModel, "kernel_type rbf\ngamma 0.5", "kernel_type polynomial\ndegree 2\ngamma 0.5\ncoef0 1", 1))
	f.Add("svm_type one_class\nkernel_type precomputed\nnr_class 2\ntotal_sv 2\nrho 0.5\nSV\n1 0:1\n0.5 0:3\n")
	f.Add("svm_type nu_svr\nkernel_type sigmoid\ngamma 0.1\ncoef0 -1\nnr_class 2\ntotal_sv 1\nrho -1\nprobA 0.3\nSV\n2 1:1 7:2\n")
	f.Add("svm_type c_svc\nkernel_type linear\nnr_class 2\ntotal_sv 0\nrho 0\nlabel 1 -1\nnr_sv 0 0\nSV\n")
	f.Fuzz(func(t *testing.T, text string) {
		m, err := libsvm.ReadModel(strings.NewReader(text))
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := m.Write(&b); err != nil {
			t.Fatalf("Write: %v", err)
		}
		back, err := libsvm.ReadModel(&b)
		if err != nil {
			t.Fatalf("reading back: %v", err)
		}
		if !reflect.DeepEqual(back, m) {
			t.Fatal("read back differs")
		}
		x := libsvm.Row{Index: []int32{0, 1, 2, 3}, Value: []float64{1, 0.5, -1, 2}}
		m.PredictValues(x, make([]float64, m.Pairs()))
		widest := 0
		for _, sv := range m.SV {
			widest = max(widest, sv.MaxIndex(), int(sv.At(0)))
		}
		if widest > 1<<20 {
			return // a linear head would hold a weight per column
		}
		if heads, err := HeadsOf(m, 0); err == nil {
			for _, h := range heads {
				h.DecisionVec(data.Vec{Idx: []int32{}, Val: []float32{}})
			}
		}
	})
}

// TestLIBSVMWriterErrors: the LIBSVM forms refuse what LIBSVM cannot hold.
func TestLIBSVMWriterErrors(t *testing.T) {
	p := gaussians(60, 3, 1.5, newRNG(5))
	k := kernel.RBF{Gamma: 0.5}
	m := mustSMO(t, p, k, SMOConfig{})
	half := &Model{Kernel: m.Kernel, SV: m.SV, NSV: m.NSV, D: m.D, Coef: m.Coef, Bias: m.Bias, Neg: 0.5, Pos: 1}
	if _, err := NewLIBSVMModel(half); err == nil || !strings.Contains(err.Error(), "label 0.5 is not an integer") {
		t.Errorf("label 0.5: %v", err)
	}
	norm := &Model{Kernel: m.Kernel, SV: m.SV, NSV: m.NSV, D: m.D, Coef: m.Coef, Bias: m.Bias}
	norm.Kernel.Normalized = true
	if _, err := NewLIBSVMModel(norm); err == nil || !strings.Contains(err.Error(), "no normalized kernels") {
		t.Errorf("normalized kernel: %v", err)
	}
	other := mustSMO(t, p, kernel.RBF{Gamma: 0.25}, SMOConfig{})
	one, err := OneClass(t.Context(), p, k, NuConfig{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		heads  []*Model
		labels []float64
		want   string
	}{
		{[]*Model{m, m}, []float64{1, 2, 3}, "2 heads for 3 classes"},
		{[]*Model{m, m, other}, []float64{1, 2, 3}, "head 2 has kernel rbf(gamma=0.25)"},
		{[]*Model{m, one, m}, []float64{1, 2, 3}, "head 1 is one_class"},
		{[]*Model{one}, []float64{1, 2}, "one_class models, not classifiers"},
		{[]*Model{m, m, m}, []float64{1, 2, 1}, "label 1 appears twice"},
		{[]*Model{m, m, m}, []float64{1, 2, 2.5}, "label 2.5 is not an integer"},
		{[]*Model{m, nil, m}, []float64{1, 2, 3}, "head 1 is nil"},
	} {
		if _, err := NewLIBSVMOneVsOne(c.heads, c.labels); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.labels, err, c.want)
		}
	}
	bad := &libsvm.Model{SVMType: "c_svc", Kernel: kernel.Spec{Name: "rbf", Gamma: 1}, NrClass: 2, Rho: []float64{0}}
	if err := bad.Write(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "0 labels and 0 nr_sv counts") {
		t.Errorf("Write of an invalid model: %v", err)
	}
	if _, err := HeadsOf(bad, 0); err == nil {
		t.Error("Heads of an invalid model: no error")
	}
	zero := &libsvm.Model{SVMType: "one_class", Kernel: kernel.Spec{Name: "rbf"}, NrClass: 2, Rho: []float64{0}, SVCoef: [][]float64{{1}}, SV: []libsvm.Row{{Index: []int32{1}, Value: []float64{1}}}}
	if _, err := HeadsOf(zero, 0); err == nil || !strings.Contains(err.Error(), "rbf needs gamma > 0") {
		t.Errorf("Heads of gamma 0: %v", err)
	}
	zero.Kernel.Gamma = 1
	if _, err := HeadsOf(zero, 0); err != nil {
		t.Error(err)
	}
	if _, err := HeadsOf(zero, -1); err == nil {
		t.Error("width −1: no error")
	}
}

// TestReadLIBSVMModelBounds: a small model file cannot ask for inputs of
// a width that dwarfs it (one support vector at index 2³⁰ made every input
// a vector of 2³⁰ values), a long token is quoted short, a byte-order mark
// is dropped, and numbers are plain decimals.
func TestReadLIBSVMModelBounds(t *testing.T) {
	head := "svm_type c_svc\nkernel_type linear\nnr_class 2\ntotal_sv 2\nrho 0.5\nlabel 1 -1\nnr_sv 1 1\nSV\n"
	good := head + "1 1:0.5 3:1\n-1 2:1\n"
	if _, err := libsvm.ReadModel(strings.NewReader("\xef\xbb\xbf" + good)); err != nil {
		t.Fatalf("a model file with a byte-order mark: %v", err)
	}
	for _, tc := range []struct{ name, text, want string }{
		{"wide", head + "1 1:0.5 1073741824:1\n-1 2:1\n", "support vector 1 has feature index 1073741824"},
		{"long token", head + "1 1:" + strings.Repeat("7", 5000) + "x\n-1 2:1\n", "… (5001 bytes) at index 1"},
		{"underscore", head + "1 1:1_0\n-1 2:1\n", `bad value "1_0" at index 1`},
		{"hex rho", strings.Replace(good, "rho 0.5", "rho 0x1p3", 1), `rho: bad number "0x1p3"`},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		m, err := libsvm.ReadModel(strings.NewReader(tc.text))
		runtime.ReadMemStats(&after)
		if err == nil {
			_, err = HeadsOf(m, 0)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || len(err.Error()) > 400 {
			t.Errorf("%s: error %v, want one with %q", tc.name, err, tc.want)
		}
		if a := after.TotalAlloc - before.TotalAlloc; a > 1<<20 {
			t.Errorf("%s: %d bytes allocated", tc.name, a)
		}
	}
}
