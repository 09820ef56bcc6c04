package svm

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/nsvm-go/nsvm/svm/libsvm"
)

// writeGram writes LIBSVM's precomputed-kernel rows: for each row x of
// rows, its label, 0:serial (serial+1 for a training row, 0 for a test
// row) and K(x, z_j) = exp(−γ‖x − z_j‖²) at index j+1 for the training
// rows z, to 17 digits.
func writeGram(t *testing.T, path string, y []float64, rows, train []libsvm.Row, gamma float64, serial bool) {
	t.Helper()
	var b bytes.Buffer
	for i, x := range rows {
		s := 0
		if serial {
			s = i + 1
		}
		fmt.Fprintf(&b, "%g 0:%d", y[i], s)
		for j, z := range train {
			fmt.Fprintf(&b, " %d:%s", j+1, strconv.FormatFloat(math.Exp(-gamma*libsvm.SqDist(x, z)), 'g', 17, 64))
		}
		b.WriteByte('\n')
	}
	writeFile(t, filepath.Dir(path), filepath.Base(path), b.Bytes())
}

// TestPrecomputedAgainstLIBSVM trains on heart_scale's RBF kernel values
// given as LIBSVM's -t 4 data (the first 180 rows; the other 90 as rows of
// kernel values against them to test) with PrecomputedMatrix and the
// KernelMatrix solvers, and with svm-train -t 4 -s 0 … 4, and compares the
// predictions on the test rows (at least 99 % the same; the regressions'
// test RMSE within 1 %), and svm-predict on our models written by
// WriteLIBSVM against our predictions.
func TestPrecomputedAgainstLIBSVM(t *testing.T) {
	needLIBSVM(t)
	heartScaleRows(t)
	y, all := readRows(t, heartScale)
	const gamma = 1.0 / 13
	dir := t.TempDir()
	trainF, testF, modelF := filepath.Join(dir, "train"), filepath.Join(dir, "test"), filepath.Join(dir, "model")
	writeGram(t, trainF, y[:180], all[:180], all[:180], gamma, true)
	writeGram(t, testF, y[180:], all[180:], all[:180], gamma, false)
	_, trainRows := readRows(t, trainF)
	yTest, testRows := readRows(t, testF)
	km, err := PrecomputedMatrix(trainRows)
	if err != nil {
		t.Fatal(err)
	}
	if km.N != 180 || km.D != 180 {
		t.Fatalf("N = %d, D = %d", km.N, km.D)
	}
	// svm-train's order of a two-class problem: class +1 first.
	var order []int
	var yo []float32
	for _, sign := range []float64{1, -1} {
		for i, v := range y[:180] {
			if v == sign {
				order, yo = append(order, i), append(yo, float32(v))
			}
		}
	}
	idx := seq(0, 180)
	z := y[:180]
	ctx := t.Context()
	for _, c := range []struct {
		name string
		args []string
		fit  func() (*Model, error)
	}{
		{"c-svc", []string{"-s", "0", "-c", "2"}, func() (*Model, error) { return km.SMO(ctx, order, yo, SMOConfig{C: 2}, nil) }},
		{"nu-svc", []string{"-s", "1", "-n", "0.4"}, func() (*Model, error) { return km.NuSVC(ctx, order, yo, NuConfig{Nu: 0.4}, nil) }},
		{"one-class", []string{"-s", "2", "-n", "0.2"}, func() (*Model, error) { return km.OneClass(ctx, idx, NuConfig{Nu: 0.2}, nil) }},
		{"epsilon-svr", []string{"-s", "3", "-c", "2", "-p", "0.2"}, func() (*Model, error) {
			return km.SMOSVR(ctx, idx, z, SMOSVRConfig{C: 2, Epsilon: 0.2}, nil)
		}},
		{"nu-svr", []string{"-s", "4", "-c", "2", "-n", "0.3"}, func() (*Model, error) {
			return km.NuSVR(ctx, idx, z, NuConfig{C: 2, Nu: 0.3}, nil)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			svmTrain(t, append(append(c.args, "-t", "4"), trainF, modelF)...)
			lib := predictFile(t, testF, modelF)
			m, err := c.fit()
			if err != nil {
				t.Fatal(err)
			}
			regression := c.name == "epsilon-svr" || c.name == "nu-svr"
			ours := make([]float64, len(testRows))
			for i, r := range testRows {
				if regression {
					ours[i] = m.DecisionVec(r.Vec())
				} else {
					ours[i] = m.PredictVec(r.Vec())
				}
			}
			if regression {
				eo, el := rmseOf(ours, yTest), rmseOf(lib, yTest)
				t.Logf("%d SVs; test RMSE ours %.6g, svm-predict %.6g", m.NSV, eo, el)
				if relDiff(eo, el) > 0.01 {
					t.Errorf("test RMSE %.6g, svm-predict's %.6g: more than 1 %% apart", eo, el)
				}
			} else {
				a := sameShare(ours, lib)
				t.Logf("%d SVs; test predictions agree on %.2f %% of %d rows", m.NSV, 100*a, len(ours))
				if a < 0.99 {
					t.Errorf("test predictions agree on %.4f < 0.99", a)
				}
			}
			lm := readModelFile(t, modelF)
			serials := map[int]bool{}
			for _, s := range m.Serials() {
				serials[s] = true
			}
			common := 0
			for _, sv := range lm.SV {
				if s, _ := libsvm.PrecomputedSerial(sv); serials[s] {
					common++
				}
			}
			if common < len(lm.SV)*98/100 || len(serials) < len(lm.SV)*98/100 {
				t.Errorf("support vectors: %d serials ours, %d svm-train's, %d common", len(serials), len(lm.SV), common)
			}
			// Our model through svm-predict, on the same test file (whose
			// rows svm-predict indexes by position: 0:serial first).
			var b bytes.Buffer
			if err := m.WriteLIBSVM(&b); err != nil {
				t.Fatal(err)
			}
			pred := predictFile(t, testF, writeFile(t, dir, "ours.model", b.Bytes()))
			_, sumAbs := coefSums(m)
			for i, p := range pred {
				d := m.DecisionVec(testRows[i].Vec())
				if regression && math.Abs(p-d) > 1e-6+2e-7*sumAbs || !regression && p != ours[i] && math.Abs(d) > 1e-9 {
					t.Fatalf("row %d: svm-predict says %.9g with our model, we %.9g (decision %.9g)", i, p, ours[i], d)
				}
			}
		})
	}
}
