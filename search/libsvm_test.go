package search

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/model"
)

// threeClasses returns n points of d features in three shifted classes
// labelled 7, 2 and 5 (so that LIBSVM's label order, by first appearance,
// is not the increasing one).
func threeClasses(n, d int, seed uint64) *data.Dataset {
	rng := rand.New(rand.NewPCG(seed, 5))
	ds := &data.Dataset{N: n, D: d, X: make([]float32, n*d), Y: make([]float64, n)}
	labels := []float64{7, 2, 5}
	for i := range n {
		c := i % 3
		ds.Y[i] = labels[c]
		for j := range d {
			v := rng.NormFloat64()
			if j == c {
				v += 2
			}
			ds.X[i*d+j] = float32(v)
		}
	}
	return ds
}

// TestLIBSVMModelFiles: a model svm-train wrote predicts through Load as
// svm-predict does, and a model written by WriteLIBSVM predicts through
// svm-predict as it does here, for two and three classes.
func TestLIBSVMModelFiles(t *testing.T) {
	for _, tool := range []string{"svm-train", "svm-predict"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found", tool)
		}
	}
	dir := t.TempDir()
	train, test := threeClasses(300, 4, 1), threeClasses(150, 4, 2)
	binary := data.FilterLabels(train, []float64{2, 7})
	for name, ds := range map[string]*data.Dataset{"three": train, "two": binary} {
		trainPath, testPath := filepath.Join(dir, name+".train"), filepath.Join(dir, name+".test")
		writeLIBSVMFile(t, trainPath, ds)
		writeLIBSVMFile(t, testPath, test)
		// svm-train's model, read here.
		modelPath := filepath.Join(dir, name+".model")
		run(t, "svm-train", "-q", "-c", "2", "-g", "0.3", trainPath, modelPath)
		want := svmPredict(t, testPath, modelPath)
		m, err := model.Load(modelPath)
		if err != nil {
			t.Fatal(err)
		}
		if !m.FromLIBSVM() {
			t.Fatal("not recognised as a LIBSVM model")
		}
		// Support vectors counted as svm-train counts them (total_sv), not
		// once per head that holds them.
		raw, _ := os.ReadFile(modelPath)
		var total int
		for _, l := range strings.Split(string(raw), "\n") {
			if v, ok := strings.CutPrefix(l, "total_sv "); ok {
				total, _ = strconv.Atoi(v)
			}
		}
		if m.NumSV() != total || total == 0 {
			t.Fatalf("%s: %d support vectors, svm-train's total_sv %d", name, m.NumSV(), total)
		}
		if err := m.WidenFor(test); err != nil {
			t.Fatal(err)
		}
		p, err := m.PredictDataset(test, false)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range p.Labels {
			if v != want[i] {
				t.Fatalf("%s: row %d: %v here, %v by svm-predict", name, i, v, want[i])
			}
		}
		// Ours, written for svm-predict.
		ours, err := Fit(context.Background(), ds, &FitConfig{Algorithm: "smo", C: 1, Gamma: 0.5, Scaling: ScaleNone})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := ours.WriteLIBSVM(&b); err != nil {
			t.Fatal(err)
		}
		exported := filepath.Join(dir, name+".exported")
		if err := os.WriteFile(exported, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if r, err := model.Read(bytes.NewReader(b.Bytes())); err != nil || !r.FromLIBSVM() {
			t.Fatalf("Read of the exported model: %v", err)
		}
		got := svmPredict(t, testPath, exported)
		po, _ := ours.PredictDataset(test, false)
		for i, v := range po.Labels {
			if v != got[i] {
				t.Fatalf("%s: row %d: %v here, %v by svm-predict on the exported model", name, i, v, got[i])
			}
		}
	}
	// What LIBSVM cannot hold.
	net, err := Fit(context.Background(), binary, &FitConfig{Algorithm: "nsvm4", Steps: 50, Steps2: 200})
	if err != nil {
		t.Fatal(err)
	}
	if err := net.WriteLIBSVM(&bytes.Buffer{}); !errors.Is(err, model.ErrNotExportable) {
		t.Fatalf("a network: %v", err)
	}
}

// TestLIBSVMExportForms: what a LIBSVM model file cannot say travels
// beside it — a standardising model's scaling in svm-scale's range file, a
// global scaling of an RBF model folded into γ, named classes as their
// indices with the names in a label map — and svm-predict then gives the
// model's labels; probabilities survive both ways (svm-train -b 1's probA
// and probB read here, ours written for svm-predict -b 1), and svm-predict's
// order of the labels is kept.
func TestLIBSVMExportForms(t *testing.T) {
	for _, tool := range []string{"svm-train", "svm-predict", "svm-scale"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found", tool)
		}
	}
	dir := t.TempDir()
	write := func(name string, fn func(io.Writer) error) string {
		t.Helper()
		path := filepath.Join(dir, name)
		var b bytes.Buffer
		if err := fn(&b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	train, test := threeClasses(300, 4, 5), threeClasses(200, 4, 6)
	// Shift and stretch the inputs so that scaling matters.
	for _, ds := range []*data.Dataset{train, test} {
		for i := range ds.X {
			ds.X[i] = 3*ds.X[i] + float32(10*(i%4))
		}
	}
	testPath := filepath.Join(dir, "test")
	writeLIBSVMFile(t, testPath, test)
	agree := func(name string, want, got []float64) {
		t.Helper()
		same := 0
		for i := range want {
			if want[i] == got[i] {
				same++
			}
		}
		if same < len(want)-1 { // a row on a boundary may round either way
			t.Fatalf("%s: %d of %d rows agree with svm-predict", name, same, len(want))
		}
	}
	for _, sc := range []string{ScaleStandardize, ScaleGlobal} {
		m, err := Fit(context.Background(), train, &FitConfig{Algorithm: "smo", C: 1, Gamma: 0.5, Scaling: Scaling(sc)})
		if err != nil {
			t.Fatal(err)
		}
		mp := write(sc+".model", m.WriteLIBSVM)
		in := testPath
		if m.NeedsSVMScale() != (sc == ScaleStandardize) {
			t.Fatalf("%s: NeedsSVMScale %v", sc, m.NeedsSVMScale())
		}
		if m.NeedsSVMScale() {
			rp := write(sc+".range", m.WriteSVMScale)
			out, err := exec.Command("svm-scale", "-r", rp, testPath).Output()
			if err != nil {
				t.Fatal(err)
			}
			in = filepath.Join(dir, sc+".scaled")
			if err := os.WriteFile(in, out, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		p, _ := m.PredictDataset(test, false)
		agree(sc, p.Labels, svmPredict(t, in, mp))
	}
	// Named classes: LIBSVM's labels are their indices.
	named := *train
	named.Y = make([]float64, train.N)
	named.LabelNames = []string{"cat", "cow", "dog"}
	for i, v := range train.Y {
		named.Y[i] = map[float64]float64{2: 0, 5: 1, 7: 2}[v]
	}
	nm, err := Fit(context.Background(), &named, &FitConfig{Algorithm: "smo", C: 1, Gamma: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	np := write("named.model", nm.WriteLIBSVM)
	var names bytes.Buffer
	if err := nm.WriteLabelNames(&names); err != nil || names.String() != "0\tcat\n1\tcow\n2\tdog\n" {
		t.Fatalf("label map %q, %v", names.String(), err)
	}
	pn, _ := nm.PredictDataset(test, false)
	agree("named", pn.Labels, svmPredict(t, testPath, np))

	// Probabilities, LIBSVM's into ours: svm-train -b 1.
	trainPath := filepath.Join(dir, "train")
	writeLIBSVMFile(t, trainPath, train)
	for _, ds := range []struct {
		name string
		keep []float64
	}{{"two", []float64{2, 7}}, {"three", nil}} {
		tp, mp := trainPath, filepath.Join(dir, ds.name+".b1")
		if ds.keep != nil {
			tp = filepath.Join(dir, ds.name+".train")
			writeLIBSVMFile(t, tp, data.FilterLabels(train, ds.keep))
		}
		run(t, "svm-train", "-q", "-b", "1", "-c", "1", "-g", "0.02", tp, mp)
		out := mp + ".out"
		run(t, "svm-predict", "-b", "1", testPath, mp, out)
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		lm, err := model.Load(mp)
		if err != nil {
			t.Fatal(err)
		}
		if !lm.Calibrated() {
			t.Fatalf("%s: svm-train -b 1 model read without its probabilities", ds.name)
		}
		if err := lm.WidenFor(test); err != nil {
			t.Fatal(err)
		}
		p, err := lm.PredictDataset(test, true)
		if err != nil {
			t.Fatal(err)
		}
		var ours strings.Builder
		if err := lm.WritePredictions(&ours, p, model.PredictionLayout{LIBSVM: true, Probabilities: true}); err != nil {
			t.Fatal(err)
		}
		theirs := strings.Split(strings.TrimSpace(string(b)), "\n")
		mine := strings.Split(strings.TrimSpace(ours.String()), "\n")
		if theirs[0] != mine[0] || len(theirs) != len(mine) {
			t.Fatalf("%s: first line %q here, %q by svm-predict -b 1 (%d/%d lines)", ds.name, mine[0], theirs[0], len(mine), len(theirs))
		}
		closeRows(t, ds.name+" -b 1", theirs[1:], mine[1:])
		// The sigmoids and LIBSVM's order of the labels survive an nsvm
		// model file.
		var mb bytes.Buffer
		if _, err := lm.WriteTo(&mb); err != nil {
			t.Fatal(err)
		}
		back, err := model.Read(&mb)
		if err != nil {
			t.Fatal(err)
		}
		pb, _ := back.PredictDataset(test, true)
		var again strings.Builder
		if err := back.WritePredictions(&again, pb, model.PredictionLayout{LIBSVM: true, Probabilities: true}); err != nil || again.String() != ours.String() {
			t.Fatalf("%s: the model read back from its nsvm file predicts otherwise (%v)", ds.name, err)
		}
	}

	// Ours into LIBSVM's: a calibrated model exported for svm-predict -b 1.
	for _, scheme := range []string{"binary", model.OneVsOne} {
		ds := train
		if scheme == "binary" {
			ds = data.FilterLabels(train, []float64{2, 7})
		}
		m, err := Fit(context.Background(), ds, &FitConfig{Algorithm: "smo", C: 1, Gamma: 0.02, Scaling: ScaleNone, Probability: true})
		if err != nil {
			t.Fatal(err)
		}
		mp := write(scheme+".prob", m.WriteLIBSVM)
		out := mp + ".out"
		run(t, "svm-predict", "-b", "1", testPath, mp, out)
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		p, err := m.PredictDataset(test, true)
		if err != nil {
			t.Fatal(err)
		}
		var ours strings.Builder
		if err := m.WritePredictions(&ours, p, model.PredictionLayout{LIBSVM: true, Probabilities: true}); err != nil {
			t.Fatal(err)
		}
		theirs := strings.Split(strings.TrimSpace(string(b)), "\n")
		mine := strings.Split(strings.TrimSpace(ours.String()), "\n")
		if theirs[0] != mine[0] {
			t.Fatalf("%s: first line %q here, %q by svm-predict -b 1", scheme, mine[0], theirs[0])
		}
		closeRows(t, scheme+" exported", theirs[1:], mine[1:])
	}
}

// closeRows checks that two svm-predict -b 1 outputs agree: the same label
// on all but one row (a tie may break either way) and probabilities within
// svm-predict's printed precision for two classes; for more, within the
// tolerance at which LIBSVM's pairwise coupling stops iterating (0.005/k:
// decision values computed in float32 here and in float64 there can end
// it an iteration apart).
func closeRows(t *testing.T, name string, want, got []string) {
	t.Helper()
	diff := 0
	for i := range want {
		w, g := strings.Fields(want[i]), strings.Fields(got[i])
		if len(w) != len(g) {
			t.Fatalf("%s: row %d: %q here, %q by svm-predict", name, i, got[i], want[i])
		}
		if w[0] != g[0] {
			diff++
		}
		tol := 1e-4
		if len(w) > 3 {
			tol = 0.005
		}
		for k := 1; k < len(w); k++ {
			a, _ := strconv.ParseFloat(w[k], 64)
			b, _ := strconv.ParseFloat(g[k], 64)
			if math.Abs(a-b) > tol {
				t.Fatalf("%s: row %d: %q here, %q by svm-predict", name, i, got[i], want[i])
			}
		}
	}
	if diff > 1 {
		t.Fatalf("%s: %d rows with another label than svm-predict's", name, diff)
	}
}

func writeLIBSVMFile(t *testing.T, path string, ds *data.Dataset) {
	t.Helper()
	var b bytes.Buffer
	if err := data.WriteLIBSVM(&b, ds); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func run(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, out)
	}
}

// svmPredict returns svm-predict's labels of the rows of testPath.
func svmPredict(t *testing.T, testPath, model string) []float64 {
	t.Helper()
	out := model + ".out"
	run(t, "svm-predict", testPath, model, out)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var labels []float64
	for _, l := range strings.Fields(string(b)) {
		v, err := strconv.ParseFloat(l, 64)
		if err != nil {
			t.Fatal(err)
		}
		labels = append(labels, v)
	}
	return labels
}

// TestSVMTypesAgainstLIBSVM: ν-SVC and the one-class SVM pinned as
// svm-train -s 1 and -s 2 are at the same parameters predict as svm-predict
// does on ≥ 99 % of the rows; one-class trains whatever the labels.
func TestSVMTypesAgainstLIBSVM(t *testing.T) {
	for _, tool := range []string{"svm-train", "svm-predict"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found", tool)
		}
	}
	dir := t.TempDir()
	train, test := threeClasses(300, 4, 3), threeClasses(300, 4, 4)
	trainPath, testPath := filepath.Join(dir, "train"), filepath.Join(dir, "test")
	writeLIBSVMFile(t, trainPath, train)
	writeLIBSVMFile(t, testPath, test)
	for _, tc := range []struct {
		typ, s string
	}{{SVMNuSVC, "1"}, {SVMOneClass, "2"}} {
		model := filepath.Join(dir, tc.typ+".model")
		run(t, "svm-train", "-q", "-s", tc.s, "-n", "0.3", "-g", "0.25", trainPath, model)
		want := svmPredict(t, testPath, model)
		m, err := Fit(context.Background(), train, &FitConfig{SVMType: SVMType(tc.typ), Nu: 0.3, Gamma: 0.25, Scaling: ScaleNone})
		if err != nil {
			t.Fatal(err)
		}
		p, _ := m.PredictDataset(test, false)
		agree := 0
		for i, v := range p.Labels {
			if v == want[i] {
				agree++
			}
		}
		if agree < 99*test.N/100 {
			t.Fatalf("%s: %d of %d rows agree with svm-predict", tc.typ, agree, test.N)
		}
	}
	if _, err := Fit(context.Background(), train, &FitConfig{SVMType: SVMNuSVC, ClassWeight: "2:3"}); !errors.Is(err, ErrBadConfig) {
		t.Fatalf("ν-SVC with class weights: %v", err)
	}
	if _, err := Fit(context.Background(), train, &FitConfig{SVMType: SVMOneClass, Nu: 1.5}); !errors.Is(err, ErrBadConfig) {
		t.Fatalf("ν = 1.5: %v", err)
	}
}
