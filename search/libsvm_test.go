package search

import (
	"bytes"
	"context"
	"errors"
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
	std, err := Fit(context.Background(), binary, &FitConfig{Algorithm: "smo", C: 1, Gamma: 0.5, Scaling: ScaleStandardize})
	if err != nil {
		t.Fatal(err)
	}
	if err := std.WriteLIBSVM(&bytes.Buffer{}); !errors.Is(err, model.ErrNotExportable) {
		t.Fatalf("a standardising model: %v", err)
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
		m, err := Fit(context.Background(), train, &FitConfig{SVMType: tc.typ, Nu: 0.3, Gamma: 0.25, Scaling: ScaleNone})
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
