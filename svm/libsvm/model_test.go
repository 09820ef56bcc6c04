package libsvm

import (
	"os"
	"strings"
	"testing"
)

// validModel is a small valid model of three classes: 2 + 1 + 1 support

// validModel is a small valid model of three classes: 2 + 1 + 1 support
// vectors (testdata/three.model).
var validModel = func() string {
	b, err := os.ReadFile("testdata/three.model")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

// TestReadModelErrors: every malformed model file is one error naming the
// fault (and its line), never a model.
func TestReadModelErrors(t *testing.T) {
	m, err := ReadModel(strings.NewReader(validModel))
	if err != nil {
		t.Fatal(err)
	}
	if m.NrClass != 3 || len(m.SV) != 4 || m.SVCoef[1][3] != -1 || m.Kernel.Gamma != 0.5 {
		t.Fatalf("%+v", m)
	}
	dec := make([]float64, 3)
	if got := m.PredictValues(Row{Index: []int32{1}, Value: []float64{1}}, dec); got != 1 && got != 2 && got != 3 {
		t.Errorf("prediction %g", got)
	}
	edit := func(old, new string) string { return strings.Replace(validModel, old, new, 1) }
	for _, c := range []struct{ text, want string }{
		{"", "no SV line"},
		{"svm_type c_svc\n", "no SV line"},
		{edit("svm_type c_svc", "svm_type c_svr"), `line 1: unknown svm_type "c_svr"`},
		{edit("kernel_type rbf", "kernel_type gaussian"), `line 2: unknown kernel_type "gaussian"`},
		{edit("gamma 0.5\n", ""), "no gamma line"},
		{edit("gamma 0.5", "gamma x"), `line 3: gamma: bad number "x"`},
		{edit("gamma 0.5", "gamma 0.5 1"), "gamma takes one value, got 2"},
		{edit("nr_class 3", "nr_class 1"), "nr_class 1 is not in 2"},
		{edit("nr_class 3", "nr_class 1000000000"), "nr_class 1000000000 is not in 2"},
		{edit("total_sv 4", "total_sv -4"), "total_sv -4 < 0"},
		{edit("rho 0.1 -0.2 0.3", "rho 0.1 -0.2"), "2 rho values for nr_class 3 (want 3)"},
		{edit("rho 0.1 -0.2 0.3", "rho 0.1 nan 0.3"), `rho: bad number "nan"`},
		{edit("label 1 2 3", "label 1 2"), "2 labels and 3 nr_sv counts"},
		{edit("label 1 2 3", "label 1 2 1"), "label 1 appears twice"},
		{edit("label 1 2 3", "label 1 2 3.5"), `label: "3.5" is not an integer`},
		{edit("nr_sv 2 1 1", "nr_sv 2 1 2"), "nr_sv adds up to 5, total_sv is 4"},
		{edit("nr_sv 2 1 1", "nr_sv 3 2 -1"), "nr_sv holds -1"},
		{edit("nr_sv 2 1 1\n", ""), "no nr_sv line"},
		{edit("nr_class 3\n", "nr_class 3\nnr_class 3\n"), `line 5: "nr_class" given twice`},
		{edit("SV\n", "probA 1 2\nSV\n"), "2 probA and 0 probB values for 3 pairs"},
		{edit("SV\n", "foo 1\nSV\n"), `unknown keyword "foo"`},
		{edit("SV\n", "SV 1\n"), "text after SV"},
		{edit("-0.5 -1 3:2\n", ""), "support vector 4 of total_sv = 4 missing"},
		{strings.TrimSuffix(edit("-0.5 -1 3:2\n", ""), "\n"), "the file ends after 3 of total_sv = 4"},
		{validModel + "1 1 1:1\n", "line 14: more support vectors than total_sv = 4"},
		{edit("0.5 0 2:0.5", "0.5"), "1 fields, want 2 coefficients"},
		{edit("0.5 0 2:0.5", "0.5 x 2:0.5"), `bad coefficient "x"`},
		{edit("0.5 0 2:0.5", "0.5 0 2:y"), `bad value "y"`},
		{edit("0.5 0 2:0.5", "0.5 0 2"), `"2" is not index:value`},
		{edit("0.5 0.25 1:1 3:-1", "0.5 0.25 3:1 1:-1"), "index 1 after 3"},
		{edit("0.5 0.25 1:1 3:-1", "0.5 0.25 -1:1"), `bad index "-1"`},
		{edit("kernel_type rbf\ngamma 0.5", "kernel_type precomputed"), "single node 0:serial"},
		{strings.Replace(edit("kernel_type rbf\ngamma 0.5", "kernel_type precomputed"), "1:1 3:-1", "0:1.5", 1), "serial 1.5 is not an integer"},
		{"svm_type one_class\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 1\nlabel 1 2\nSV\n1 1:1\n", "one_class: nr_class must be 2 and there are no label and nr_sv lines"},
		{"svm_type epsilon_svr\nkernel_type linear\nnr_class 3\ntotal_sv 1\nrho 1 2 3\nSV\n1 1 1:1\n", "epsilon_svr: nr_class must be 2"},
		{"svm_type epsilon_svr\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 1\nprobB 1\nSV\n1 1:1\n", "a regression has at most one probA"},
		{"svm_type epsilon_svr\nkernel_type polynomial\ngamma 1\ncoef0 0\nnr_class 2\ntotal_sv 0\nrho 1\nSV\n", "no degree line"},
		{"svm_type epsilon_svr\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 1\nSV\n1 1:1e999\n", `bad value "1e999"`},
	} {
		m, err := ReadModel(strings.NewReader(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.60q: %v, want %q", c.text, err, c.want)
		}
		if m != nil {
			t.Errorf("%.60q: a model with the error", c.text)
		}
	}
}

// TestWriteReadsBack: a model with every list line (rho, label, probA,
// probB, nr_sv; a one-class model's prob_density_marks) reads and writes
// back byte for byte, its lines in svm_save_model's order (which ends every
// support vector's line with a space).
func TestWriteReadsBack(t *testing.T) {
	withProb := strings.Replace(validModel, "label 1 2 3\n", "label 1 2 3\nprobA -1.5 2 0.25\nprobB 0.5 -0 1\n", 1)
	withProb = strings.Replace(withProb, "rho 0.1 -0.2 0.3", "rho 0.5 -0.25 0.125", 1)
	head, svs, _ := strings.Cut(withProb, "SV\n")
	withProb = head + "SV\n" + strings.ReplaceAll(svs, "\n", " \n")
	oneClass := "svm_type one_class\nkernel_type linear\nnr_class 2\ntotal_sv 2\nrho 0.5\nprob_density_marks 0.25 0.5 0.75\nSV\n0.5 1:1 2:-2 \n0.5 2:4 \n"
	for _, text := range []string{withProb, oneClass} {
		m, err := ReadModel(strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := m.Write(&b); err != nil {
			t.Fatal(err)
		}
		if b.String() != text {
			t.Errorf("wrote\n%s\nwant\n%s", b.String(), text)
		}
	}
}
