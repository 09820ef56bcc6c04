package svm

import (
	"context"
	"strconv"
	"testing"
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
