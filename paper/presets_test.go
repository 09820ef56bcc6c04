package paper

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/nn"
)

// TestRingnormCoordPreset checks the per-coordinate preset: it differs from
// the paper's only in the network, its shape and Algorithm 3's rate; every
// algorithm's network builds for 1×20×1 rows; and Algorithm 4 at a tenth of
// the steps learns generated Ringnorm and survives save → load → predict.
func TestRingnormCoordPreset(t *testing.T) {
	for alg := 1; alg <= 4; alg++ {
		paper, err := RingnormPreset(alg)
		if err != nil {
			t.Fatal(err)
		}
		p, err := RingnormCoordPreset(alg)
		if err != nil {
			t.Fatal(err)
		}
		want := nn.RingnormCoordArch
		if alg <= 2 {
			want += ",l2norm"
		}
		if p.Arch != want || len(p.InShape) != 3 || p.InShape[0]*p.InShape[1]*p.InShape[2] != 20 {
			t.Errorf("algorithm %d: arch %q shape %v", alg, p.Arch, p.InShape)
		}
		if _, err := nn.New(p.Arch, p.InShape, rand.New(rand.NewPCG(1, 2))); err != nil {
			t.Errorf("algorithm %d: %v", alg, err)
		}
		pc, qc := *paper.Config(), *p.Config()
		if alg == 3 {
			if qc.Opt.LR != 1e-3 {
				t.Errorf("algorithm 3: LR %g, want 1e-3", qc.Opt.LR)
			}
			qc.Opt.LR = pc.Opt.LR
		}
		if qc != pc || p.Alg4.Part2 != paper.Alg4.Part2 {
			t.Errorf("algorithm %d: the trainer differs from the paper's beyond the rate: %+v against %+v", alg, qc, pc)
		}
	}
	if _, err := RingnormCoordPreset(5); err == nil || !strings.Contains(err.Error(), "no algorithm 5") {
		t.Errorf("algorithm 5: %v", err)
	}

	train, test := ringnormProblem(t, 2000, 1000, 31)
	pr, _ := RingnormCoordPreset(4)
	pr.Alg4.T /= 10
	pr.Alg4.Part2.T /= 10
	net, err := nn.New(pr.Arch, pr.InShape, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	m, err := TrainAlg4(context.Background(), net, train, pr.Alg4, Options{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	_, back := saveLoad(t, m)
	before, after := make([]float64, test.N), make([]float64, test.N)
	m.DecisionBatch(before, test.X, test.N)
	back.DecisionBatch(after, test.X, test.N)
	for i := range before {
		if before[i] != after[i] {
			t.Fatalf("test point %d: decision %v before saving, %v after loading", i, before[i], after[i])
		}
	}
	acc := testAccuracy(back, test)
	t.Logf("accuracy %.4f with %d support vectors", acc, m.Head.NSV)
	if acc < 0.95 {
		t.Errorf("accuracy %.4f at a tenth of the steps, want ≥ 0.95", acc)
	}
}

// TestArchWithDropout: the rate reaches every dropout layer, 0 removes them,
// and the MNIST presets of Algorithms 1 and 2 keep the paper's network.
func TestArchWithDropout(t *testing.T) {
	for _, c := range []struct {
		arch       string
		rate       float64
		want, fail string
	}{
		{nn.MNISTArchNoNorm, 0, "conv(10,5),maxpool(2),relu,conv(20,5),maxpool(2),relu,flatten", ""},
		{nn.MNISTArchNoNorm, 0.25, "conv(10,5),maxpool(2),relu,conv(20,5),dropout2d(0.25),maxpool(2),relu,flatten", ""},
		{"dense(8),dropout(0.1),relu,dropout2d(0.2)", 0.3, "dense(8),dropout(0.3),relu,dropout2d(0.3)", ""},
		{nn.RingnormArch, 0, nn.RingnormArch, ""},
		{nn.RingnormArch, 0.5, "", "no dropout layer"},
		{nn.MNISTArch, 1, "", "must be in [0, 1)"},
		{nn.MNISTArch, -0.1, "", "must be in [0, 1)"},
	} {
		got, err := ArchWithDropout(c.arch, c.rate)
		if c.fail != "" {
			if err == nil || !strings.Contains(err.Error(), c.fail) {
				t.Errorf("%q at %g: err = %v, want %q", c.arch, c.rate, err, c.fail)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q at %g: %q, %v; want %q", c.arch, c.rate, got, err, c.want)
		}
	}
	for alg := 1; alg <= 2; alg++ {
		p, _ := MNISTPreset(alg)
		if p.Arch != nn.MNISTArch || p.Dropout != 0.5 {
			t.Errorf("MNIST algorithm %d: arch %q dropout %g, want the paper's network at 0.5", alg, p.Arch, p.Dropout)
		}
	}
	for alg := 1; alg <= 4; alg++ {
		p, _ := MNISTPreset(alg)
		specs, _ := nn.ParseArch(p.Arch)
		var rates []float64
		for _, s := range specs {
			if s.Kind == nn.Dropout2D {
				rates = append(rates, s.P)
			}
		}
		if (p.Dropout == 0 && len(rates) != 0) || (p.Dropout > 0 && (len(rates) != 1 || rates[0] != p.Dropout)) {
			t.Errorf("MNIST algorithm %d: Dropout %g, the network's dropout layers %v", alg, p.Dropout, rates)
		}
		if _, err := nn.New(p.Arch, []int{1, 28, 28}, rand.New(rand.NewPCG(1, 2))); err != nil {
			t.Errorf("MNIST algorithm %d: %v", alg, err)
		}
	}
}
