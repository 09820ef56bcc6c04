package paper

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data"

	"github.com/nsvm-go/nsvm/data/datasets"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/nn"
)

// ringnormProblem returns standardised generated Ringnorm train and test sets.
func ringnormProblem(t testing.TB, nTrain, nTest int, seed uint64) (Problem, Problem) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	ds := datasets.Ringnorm(nTrain+nTest, rng)
	train, test := data.Split(ds, nTest, rng)
	st := data.FitStandardizer(train)
	st.Apply(train)
	st.Apply(test)
	conv := func(d *data.Dataset) Problem {
		y, _, err := d.BinaryLabels()
		if err != nil {
			t.Fatal(err)
		}
		return Problem{X: d.X, N: d.N, D: d.D, Y: y}
	}
	return conv(train), conv(test)
}

// saveLoad saves m to a file in a temporary directory and loads it back; it
// returns the file's path and the loaded model.
func saveLoad(t testing.TB, m *model.Model) (string, *model.Model) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.nsvm")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	l, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, l
}

func testAccuracy(m *model.Model, p Problem) float64 {
	dec := make([]float64, p.N)
	m.DecisionBatch(dec, p.X, p.N)
	var ok int
	for i, v := range dec {
		if (v >= 0) == (p.Y[i] > 0) {
			ok++
		}
	}
	return float64(ok) / float64(p.N)
}

func newNet(t testing.TB, arch string, d int, seed uint64) *nn.Net {
	t.Helper()
	net, err := nn.New(arch, []int{d}, rand.New(rand.NewPCG(seed, 2)))
	if err != nil {
		t.Fatal(err)
	}
	return net
}

// train runs algorithm alg with a short preset on p.
func train(t testing.TB, alg int, p Problem, steps, steps2 int, o Options) *model.Model {
	t.Helper()
	pr, err := RingnormPreset(alg)
	if err != nil {
		t.Fatal(err)
	}
	pr.Config().T = steps
	pr.Alg4.Part2.T = steps2
	net := newNet(t, pr.Arch, p.D, 3)
	var m *model.Model
	ctx := context.Background()
	switch alg {
	case 1:
		m, err = TrainAlg1(ctx, net, p, pr.Alg1, o)
	case 2:
		m, err = TrainAlg2(ctx, net, p, pr.Alg2, o)
	case 3:
		m, err = TrainAlg3(ctx, net, p, pr.Alg3, o)
	case 4:
		m, err = TrainAlg4(ctx, net, p, pr.Alg4, o)
	}
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestAlgorithmsLearnRingnorm trains each algorithm briefly on generated
// Ringnorm and checks that it learns far beyond chance (the paper's γ = 1
// RBF-SVM without a network reaches about 78 %).
func TestAlgorithmsLearnRingnorm(t *testing.T) {
	p, test := ringnormProblem(t, 1500, 500, 1)
	cases := []struct {
		alg, steps, steps2 int
		min                float64
	}{
		{1, 6000, 0, 0.85},
		{2, 3000, 0, 0.85},
		{3, 1500, 0, 0.85},
		{4, 600, 8000, 0.90},
	}
	for _, c := range cases {
		t.Run("alg"+string(rune('0'+c.alg)), func(t *testing.T) {
			m := train(t, c.alg, p, c.steps, c.steps2, Options{Seed: 1})
			acc := testAccuracy(m, test)
			t.Logf("algorithm %d: test accuracy %.2f%%, %d support vectors", c.alg, 100*acc, m.Head.NSV)
			if acc < c.min {
				t.Fatalf("test accuracy %.3f < %.2f", acc, c.min)
			}
		})
	}
}

func TestSaveLoadBitIdentical(t *testing.T) {
	p, test := ringnormProblem(t, 300, 200, 2)
	m := train(t, 4, p, 50, 500, Options{Seed: 2})
	m.Mean = make([]float64, p.D)
	m.Std = make([]float64, p.D)
	for i := range m.Std {
		m.Mean[i], m.Std[i] = 0.1*float64(i), 1+0.05*float64(i)
	}
	m.Head.Neg, m.Head.Pos = 1, 2
	path, l := saveLoad(t, m)
	a := make([]float64, test.N)
	b := make([]float64, test.N)
	m.DecisionBatch(a, test.X, test.N)
	l.DecisionBatch(b, test.X, test.N)
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			t.Fatalf("decision %d: %v before save, %v after load", i, a[i], b[i])
		}
	}
	if l.Head.Neg != 1 || l.Head.Pos != 2 || l.Algorithm != "nsvm4" || l.Info["part2_solver"] != "pegasos" {
		t.Fatalf("metadata lost: %+v %v", l.Head, l.Info)
	}
	// Saving the loaded model gives the same bytes.
	path2 := filepath.Join(t.TempDir(), "m2.nsvm")
	if err := l.Save(path2); err != nil {
		t.Fatal(err)
	}
	b1, _ := os.ReadFile(path)
	b2, _ := os.ReadFile(path2)
	if !bytes.Equal(b1, b2) {
		t.Fatal("save → load → save changed the file")
	}
}

// TestSaveSparseLayout checks that a model saves its network in PyTorch's
// layout whatever the layout of the first weight in memory.
func TestSaveSparseLayout(t *testing.T) {
	p, _ := ringnormProblem(t, 200, 10, 3)
	m := train(t, 3, p, 20, 0, Options{Seed: 3})
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.nsvm"), filepath.Join(dir, "b.nsvm")
	if err := m.Save(a); err != nil {
		t.Fatal(err)
	}
	if err := m.Net.SetSparseLayout(true); err != nil {
		t.Fatal(err)
	}
	if err := m.Save(b); err != nil {
		t.Fatal(err)
	}
	ba, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	if !bytes.Equal(ba, bb) {
		t.Fatal("the sparse layout changed the saved file")
	}
}

// TestModelFileLayout reads a model file with a plain reader of the
// documented layout: u64 header length, JSON header, raw tensors.
func TestModelFileLayout(t *testing.T) {
	p, _ := ringnormProblem(t, 200, 10, 3)
	m := train(t, 3, p, 20, 0, Options{Seed: 3})
	path := filepath.Join(t.TempDir(), "m.nsvm")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := binary.LittleEndian.Uint64(raw[:8])
	var hdr map[string]json.RawMessage
	if err := json.Unmarshal(raw[8:8+n], &hdr); err != nil {
		t.Fatalf("header is not JSON: %v", err)
	}
	var meta map[string]string
	if err := json.Unmarshal(hdr["__metadata__"], &meta); err != nil {
		t.Fatal(err)
	}
	if meta["format"] != model.FormatVersion || meta["algorithm"] != "nsvm3" || meta["arch"] != m.Net.Spec() {
		t.Fatalf("metadata %v", meta)
	}
	var coef struct {
		DType   string  `json:"dtype"`
		Shape   []int   `json:"shape"`
		Offsets []int64 `json:"data_offsets"`
	}
	if err := json.Unmarshal(hdr["coef"], &coef); err != nil {
		t.Fatal(err)
	}
	if coef.DType != "F64" || len(coef.Shape) != 1 || coef.Shape[0] != m.Head.NSV {
		t.Fatalf("coef entry %+v", coef)
	}
	body := raw[8+n:]
	for i := 0; i < m.Head.NSV; i++ {
		v := math.Float64frombits(binary.LittleEndian.Uint64(body[coef.Offsets[0]+int64(8*i):]))
		if v != m.Head.Coef[i] {
			t.Fatalf("coef[%d] = %v in the file, %v in the model", i, v, m.Head.Coef[i])
		}
	}
}

func TestDeterministic(t *testing.T) {
	p, _ := ringnormProblem(t, 300, 10, 4)
	for alg := 1; alg <= 4; alg++ {
		steps := map[int]int{1: 800, 2: 400, 3: 60, 4: 60}[alg]
		a := train(t, alg, p, steps, 300, Options{Seed: 9})
		b := train(t, alg, p, steps, 300, Options{Seed: 9})
		pa, pb := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
		if err := a.Save(pa); err != nil {
			t.Fatal(err)
		}
		if err := b.Save(pb); err != nil {
			t.Fatal(err)
		}
		ba, _ := os.ReadFile(pa)
		bb, _ := os.ReadFile(pb)
		if !bytes.Equal(ba, bb) {
			t.Fatalf("algorithm %d: two runs with the same seed wrote different model files", alg)
		}
	}
}

// TestResumeEqualsUninterrupted stops runs midway (by cancelling the
// context), resumes them from the checkpoint written then, and checks that
// the final model file is byte-identical to an uninterrupted run's.
func TestResumeEqualsUninterrupted(t *testing.T) {
	p, _ := ringnormProblem(t, 300, 10, 5)
	for alg := 1; alg <= 4; alg++ {
		t.Run("alg"+string(rune('0'+alg)), func(t *testing.T) {
			steps := map[int]int{1: 600, 2: 300, 3: 50, 4: 50}[alg]
			full := train(t, alg, p, steps, 300, Options{Seed: 11})
			ctx, cancel := context.WithCancel(context.Background())
			var ck *Checkpoint
			var periodic int
			pr, _ := RingnormPreset(alg)
			pr.Config().T = steps
			pr.Alg4.Part2.T = 300
			stopAt := steps / 2
			o := Options{Seed: 11, CheckpointEvery: steps / 5, Checkpoint: func(c *Checkpoint) error {
				path := filepath.Join(t.TempDir(), "ck")
				if err := c.Save(path); err != nil {
					return err
				}
				l, err := LoadCheckpoint(path)
				if err != nil {
					return err
				}
				ck = l
				periodic++
				return nil
			}, Progress: func(pg Progress) {
				if pg.Phase == "train" && pg.Step >= stopAt {
					cancel()
				}
			}}
			pr.Config().ReportEvery = 1
			net := newNet(t, pr.Arch, p.D, 3)
			_, err := trainPreset(ctx, pr, net, p, o)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted run returned %v", err)
			}
			if ck == nil || ck.Step < stopAt || ck.Step >= steps {
				t.Fatalf("no usable checkpoint (step %v)", ck)
			}
			net2 := newNet(t, pr.Arch, p.D, 999) // parameters come from the checkpoint
			pr.Config().ReportEvery = 0
			resumed, err := trainPreset(context.Background(), pr, net2, p, Options{Seed: 11, Resume: ck})
			if err != nil {
				t.Fatal(err)
			}
			pa, pb := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
			full.Save(pa)
			resumed.Save(pb)
			ba, _ := os.ReadFile(pa)
			bb, _ := os.ReadFile(pb)
			if !bytes.Equal(ba, bb) {
				t.Fatalf("resumed from step %d: model differs from the uninterrupted run", ck.Step)
			}
		})
	}
}

func trainPreset(ctx context.Context, pr Preset, net *nn.Net, p Problem, o Options) (*model.Model, error) {
	switch pr.Alg {
	case 1:
		return TrainAlg1(ctx, net, p, pr.Alg1, o)
	case 2:
		return TrainAlg2(ctx, net, p, pr.Alg2, o)
	case 3:
		return TrainAlg3(ctx, net, p, pr.Alg3, o)
	default:
		return TrainAlg4(ctx, net, p, pr.Alg4, o)
	}
}

func TestBadInput(t *testing.T) {
	p, _ := ringnormProblem(t, 50, 10, 6)
	pr, _ := RingnormPreset(4)
	pr.Alg4.T = 5
	pr.Alg4.Part2.T = 10
	oneClass := p
	oneClass.Y = make([]float32, p.N)
	for i := range oneClass.Y {
		oneClass.Y[i] = 1
	}
	nan := p
	nan.X = append([]float32(nil), p.X...)
	nan.X[7] = float32(math.NaN())
	cases := map[string]struct {
		p   Problem
		cfg func(*Alg4Config)
	}{
		"one class":  {oneClass, nil},
		"nan":        {nan, nil},
		"lambda":     {p, func(c *Alg4Config) { c.Lambda = 0 }},
		"lr":         {p, func(c *Alg4Config) { c.Opt.LR = -1 }},
		"batch":      {p, func(c *Alg4Config) { c.Batch = 1 }},
		"big batch":  {p, func(c *Alg4Config) { c.Batch = 1000 }},
		"solver":     {p, func(c *Alg4Config) { c.Part2.Solver = "newton" }},
		"kernel":     {p, func(c *Alg4Config) { c.Kernel.Gamma = -1 }},
		"wrong dims": {Problem{X: p.X[:p.N*10], N: p.N, D: 10, Y: p.Y}, nil},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			cfg := pr.Alg4
			if c.cfg != nil {
				c.cfg(&cfg)
			}
			_, err := TrainAlg4(context.Background(), newNet(t, pr.Arch, 20, 1), c.p, cfg, Options{})
			if err == nil {
				t.Fatal("no error")
			}
			t.Log(err)
		})
	}
}

// nanMap poisons its outputs from the given forward call on.
type nanMap struct {
	*tanhMap
	calls, from int
}

func (m *nanMap) Forward(x []float32, batch int, train bool) []float32 {
	out := m.tanhMap.Forward(x, batch, train)
	if m.calls++; m.calls >= m.from {
		out[0] = float32(math.NaN())
	}
	return out
}

// TestNonFiniteStopsTraining: a NaN in the features must end training with
// an error naming the step, not in a garbage model.
func TestNonFiniteStopsTraining(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	p := toyProblem(rng, 40, 5)
	for alg := 1; alg <= 4; alg++ {
		f := &nanMap{tanhMap: newTanhMap(5, 3, rng), from: 30}
		cfg := toyConfig(100, 0.001)
		r := newRun(alg, cfg, &plainSGD{m: f.tanhMap}, 1, nil)
		var tr trainer
		switch alg {
		case 1:
			tr = newAlg1(f, p, Alg1Config{cfg}, r, false)
		case 2:
			tr = newAlg2(f, p, Alg2Config{Config: cfg}, r, true, nil)
		case 3:
			tr, _ = newAlg3(f, p, Alg3Config{Config: cfg, Mu: 1, Batch: 4}, r)
		case 4:
			tr, _ = newAlg4(f, p, Alg4Config{Config: cfg, Batch: 4}, r)
		}
		_, err := runPlain(context.Background(), tr, r, cfg.T)
		if err == nil || !strings.Contains(err.Error(), "not finite at step") {
			t.Fatalf("algorithm %d: err = %v, want a non-finite error naming the step", alg, err)
		}
		t.Log(err)
	}
}
