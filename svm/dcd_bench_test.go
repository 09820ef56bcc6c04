package svm

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/nsvm-go/nsvm/data"
)

// BenchmarkLinearDCDDense trains LinearDCD (LIBLINEAR's defaults: C = 1,
// bias feature, ε = 0.1, at most 1000 epochs) on 5000 overlapping Gaussian
// points of 50 dense features, for each loss.
func BenchmarkLinearDCDDense(b *testing.B) {
	p := gaussians(5000, 50, 0.5, newRNG(1))
	for _, loss := range []DCDLoss{SquaredHinge, Hinge} {
		b.Run(loss.String(), func(b *testing.B) {
			benchDCD(b, p, LinearDCDConfig{Loss: loss})
		})
	}
}

// benchDCD times LinearDCD on p and reports the epochs per run, the time
// per epoch and the training accuracy.
func benchDCD(b *testing.B, p Problem, cfg LinearDCDConfig) *Model {
	b.ReportAllocs()
	var m *Model
	epochs := 0
	for b.Loop() {
		var err error
		if m, err = LinearDCD(context.Background(), p, cfg, newRNG(1), nil); err != nil {
			b.Fatal(err)
		}
		e, _ := strconv.Atoi(m.Info["epochs"])
		epochs += e
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(epochs)/1e6, "ms/epoch")
	b.ReportMetric(float64(epochs)/float64(b.N), "epochs")
	return m
}

// BenchmarkLinearDCDSparse trains LinearDCD (LIBLINEAR's defaults: squared
// hinge, C = 1, bias feature, ε = 0.1) on 20000 sparse points of 50000
// features, 0.1 % of them nonzero (~50 a row, sparseLinear: a noisy planted
// linear rule). With liblinear-train on PATH it also runs liblinear-train
// -s 1 -q once on the same points, written to a LIBSVM file, and reports
// its wall time (reading the file included; read-ms is the time
// data.ReadLIBSVMLayout takes to read that file sparse), the share of 5000
// held-out points on which the two models agree and both test accuracies.
func BenchmarkLinearDCDSparse(b *testing.B) {
	all := sparseLinear(25000, 50000, 50, 0.2, newRNG(1))
	p, test := rowsOfProblem(all, 0, 20000), rowsOfProblem(all, 20000, 25000)
	m := benchDCD(b, p, LinearDCDConfig{})
	w, bias := modelW(m)
	dec := linearDecisions(w, bias, test)
	b.ReportMetric(100*agreement(dec, test.Y), "test-acc-%")
	if _, err := exec.LookPath("liblinear-train"); err != nil {
		return
	}
	dir := b.TempDir()
	trainF, modelF := filepath.Join(dir, "train"), filepath.Join(dir, "model")
	writeRows(b, trainF, p, nil)
	start := time.Now()
	f, err := os.Open(trainF)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := data.ReadLIBSVMLayout(f, trainF, 0, data.LayoutSparse); err != nil {
		b.Fatal(err)
	}
	f.Close()
	b.ReportMetric(float64(time.Since(start).Milliseconds()), "read-ms")
	start = time.Now()
	if out, err := exec.Command("liblinear-train", "-s", "1", "-q", trainF, modelF).CombinedOutput(); err != nil {
		b.Fatalf("liblinear-train: %v\n%s", err, out)
	}
	b.ReportMetric(float64(time.Since(start).Milliseconds()), "liblinear-ms")
	lw, lb := readLIBLINEARW(b, modelF, p.D)
	ldec := linearDecisions(lw, lb, test)
	same := 0
	for i := range dec {
		if (dec[i] > 0) == (ldec[i] > 0) {
			same++
		}
	}
	b.ReportMetric(100*float64(same)/float64(test.N), "agree-%")
	b.ReportMetric(100*agreement(ldec, test.Y), "liblinear-test-acc-%")
}

// agreement returns the share of the decisions whose sign is the label's.
func agreement(dec []float64, y []float32) float64 {
	ok := 0
	for i, v := range dec {
		if (v > 0) == (y[i] > 0) {
			ok++
		}
	}
	return float64(ok) / float64(len(dec))
}
