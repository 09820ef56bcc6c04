package svm

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data"
)

// heartScale is LIBLINEAR's example data set as Debian's liblinear-tools
// installs it (270 points, 13 features scaled to [−1, 1], labels ±1).
const heartScale = "/usr/share/doc/liblinear-tools/examples/heart_scale"

// readLIBLINEARModel returns w (nr_feature values, plus the bias weight
// when the model has one) oriented so that wᵀx > 0 means label +1.
func readLIBLINEARModel(t testing.TB, path string) []float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var w []float64
	sign := 1.0
	inW := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case inW:
			v, err := strconv.ParseFloat(line, 64)
			if err != nil {
				t.Fatalf("model %s: weight %q: %v", path, line, err)
			}
			w = append(w, v)
		case line == "w":
			inW = true
		case strings.HasPrefix(line, "label "):
			if strings.Fields(line)[1] == "-1" {
				sign = -1
			}
		}
	}
	for i := range w {
		w[i] *= sign
	}
	return w
}

var llObjRE = regexp.MustCompile(`Objective value = (-?[0-9.eE+-]+)`)

// TestLinearDCDAgainstLIBLINEAR trains the same linear SVMs and logistic
// regressions by LinearDCD and by liblinear-train -s 1 / -s 3 / -s 7 -B 1 on
// generated overlapping Gaussians (-e 1e-3) and on heart_scale (-e 1e-5),
// and compares the dual objective, w (the bias weight included) and the
// predictions of liblinear-predict on held-out points. The two draw different random orders, so they meet only at the
// optimum: the cases are ones both reach within LIBLINEAR's 1000 epochs (with
// the hinge loss at C = 1 the Gaussians take about 7000).
func TestLinearDCDAgainstLIBLINEAR(t *testing.T) {
	if _, err := exec.LookPath("liblinear-train"); err != nil {
		t.Skip("liblinear-train not on PATH (Debian package liblinear-tools)")
	}
	type dcdCase struct {
		loss DCDLoss
		s    string // liblinear-train -s
		c    float64
	}
	type set struct {
		name        string
		train, test Problem
		eps         float64
		cases       []dcdCase
	}
	n := 1000
	if !testing.Short() {
		n = 4000
	}
	rng := newRNG(31)
	g := gaussians(n+1000, 20, 1.5, rng)
	for i := 0; i < g.N; i++ { // shift it off the origin so that the bias matters
		g.X[i*g.D+1] += 1.5
	}
	sets := []set{{"gaussians", subset(g, 0, n), subset(g, n, n+1000), 1e-3,
		[]dcdCase{{SquaredHinge, "1", 1}, {SquaredHinge, "1", 0.1}, {SquaredHinge, "1", 0.01}, {Hinge, "3", 0.01}, {Hinge, "3", 0.003}, {Logistic, "7", 1}, {Logistic, "7", 0.01}}}}
	if f, err := os.Open(heartScale); err == nil {
		ds, err := data.ReadLIBSVM(f, heartScale, 0)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		y, _, err := ds.BinaryLabels()
		if err != nil {
			t.Fatal(err)
		}
		hp := Problem{X: ds.X, N: ds.N, D: ds.D, Y: y}
		sets = append(sets, set{"heart_scale", subset(hp, 0, 200), subset(hp, 200, hp.N), 1e-5,
			[]dcdCase{{SquaredHinge, "1", 1}, {SquaredHinge, "1", 0.1}, {Hinge, "3", 0.1}, {Hinge, "3", 0.01}, {Logistic, "7", 1}, {Logistic, "7", 0.1}}})
	}
	for _, st := range sets {
		dir := t.TempDir()
		trainF, testF := filepath.Join(dir, "train"), filepath.Join(dir, "test")
		writeData(t, trainF, st.train)
		writeData(t, testF, st.test)
		for _, c := range st.cases {
			t.Run(fmt.Sprintf("%s/%v/C=%g", st.name, c.loss, c.c), func(t *testing.T) {
				eps := st.eps
				modelF := filepath.Join(dir, "model")
				out, err := exec.Command("liblinear-train", "-s", c.s, "-c", fmt.Sprint(c.c), "-B", "1", "-e", fmt.Sprint(eps), trainF, modelF).CombinedOutput()
				if err != nil {
					t.Fatalf("liblinear-train: %v\n%s", err, out)
				}
				mm := llObjRE.FindSubmatch(out)
				if mm == nil {
					t.Fatalf("no objective in liblinear-train's output:\n%s", out)
				}
				libObj, _ := strconv.ParseFloat(string(mm[1]), 64)
				libW := readLIBLINEARModel(t, modelF)
				if len(libW) != st.train.D+1 {
					t.Fatalf("liblinear model has %d weights, want %d", len(libW), st.train.D+1)
				}
				m, err := LinearDCD(t.Context(), st.train, LinearDCDConfig{Loss: c.loss, C: c.c, Eps: eps}, newRNG(1), nil)
				if err != nil {
					t.Fatal(err)
				}
				obj := objective(t, m)
				w := append(m.evalW(), m.Bias)
				var dw, nw float64
				for j := range w {
					dw += (w[j] - libW[j]) * (w[j] - libW[j])
					nw += libW[j] * libW[j]
				}
				relW := math.Sqrt(dw / nw)
				it := regexp.MustCompile(`#iter = (\d+)`).FindSubmatch(out)
				t.Logf("objective ours %.6f, liblinear %.6f; ‖Δw‖/‖w‖ = %.2g; %s epochs, liblinear %s", obj, libObj, relW, m.Info["epochs"], it[1])
				if m.Info["max_iter_reached"] != "" || string(it[1]) == "1000" {
					t.Fatalf("no convergence in 1000 epochs (ours %s, liblinear %s)", m.Info["epochs"], it[1])
				}
				// liblinear prints the objective with %lf (six decimals).
				if d := math.Abs(obj - libObj); d > 1e-6*math.Abs(libObj)+1e-6 {
					t.Errorf("objective %.6f, liblinear %.6f", obj, libObj)
				}
				if relW > 2e-3 {
					t.Errorf("‖w − w_liblinear‖/‖w_liblinear‖ = %.3g", relW)
				}
				pred := predictWith(t, "liblinear-predict", testF, modelF)
				for i := 0; i < st.test.N; i++ {
					x := st.test.row(i)
					if m.Predict(x) != pred[i] && math.Abs(m.Decision(x)) > 1e-3 {
						t.Errorf("test point %d: ours %g (decision %g), liblinear-predict %g", i, m.Predict(x), m.Decision(x), pred[i])
					}
				}
			})
		}
	}
}

// subset returns the rows lo ≤ i < hi of p (copied).
func subset(p Problem, lo, hi int) Problem {
	return Problem{X: append([]float32(nil), p.X[lo*p.D:hi*p.D]...), N: hi - lo, D: p.D, Y: append([]float32(nil), p.Y[lo:hi]...)}
}

// evalW returns w of a linear model.
func (m *Model) evalW() []float64 { return append([]float64(nil), m.eval().w...) }

// TestLinearDCDSVRAgainstLIBLINEAR trains linear ε-SVRs by LinearDCDSVR and
// by liblinear-train -s 12 / -s 13 -B 1 -e 1e-6 on Friedman #1 and the
// sklearn diabetes data (features and targets standardised) and compares the
// dual objective, w and the held-out predictions of liblinear-predict.
func TestLinearDCDSVRAgainstLIBLINEAR(t *testing.T) {
	if _, err := exec.LookPath("liblinear-train"); err != nil {
		t.Skip("liblinear-train not on PATH (Debian package liblinear-tools)")
	}
	type set struct {
		name        string
		train, test RegProblem
	}
	ftrain, ftest := friedman1(2000, 1), friedman1(500, 2)
	standardizeReg(ftrain, &ftest)
	sets := []set{{"friedman1", ftrain, ftest}}
	if _, err := os.Stat(filepath.Join(diabetesDir, "diabetes_target.csv.gz")); err == nil {
		all := diabetes(t)
		train, test := subsetReg(all, 0, 342), subsetReg(all, 342, 442)
		standardizeReg(train, &test)
		sets = append(sets, set{"diabetes", train, test})
	}
	for _, st := range sets {
		dir := t.TempDir()
		trainF, testF := filepath.Join(dir, "train"), filepath.Join(dir, "test")
		writeRegData(t, trainF, st.train)
		writeRegData(t, testF, st.test)
		for _, c := range []struct {
			loss    DCDLoss
			s       string
			c, epsl float64
		}{{SquaredHinge, "12", 1, 0.1}, {SquaredHinge, "12", 0.01, 0.3}, {Hinge, "13", 0.03, 0.1}, {Hinge, "13", 0.01, 0}} {
			t.Run(fmt.Sprintf("%s/%v/C=%g/p=%g", st.name, c.loss, c.c, c.epsl), func(t *testing.T) {
				const eps = 1e-6
				modelF := filepath.Join(dir, "model")
				out, err := exec.Command("liblinear-train", "-s", c.s, "-c", fmt.Sprint(c.c), "-p", fmt.Sprint(c.epsl), "-B", "1", "-e", fmt.Sprint(eps), trainF, modelF).CombinedOutput()
				if err != nil {
					t.Fatalf("liblinear-train: %v\n%s", err, out)
				}
				mm := llObjRE.FindSubmatch(out)
				if mm == nil {
					t.Fatalf("no objective in liblinear-train's output:\n%s", out)
				}
				libObj, _ := strconv.ParseFloat(string(mm[1]), 64)
				libW := readLIBLINEARModel(t, modelF)
				tube := c.epsl
				if tube == 0 {
					tube = -1
				}
				m, err := LinearDCDSVR(t.Context(), st.train, LinearDCDSVRConfig{Loss: c.loss, C: c.c, Epsilon: tube, Eps: eps}, newRNG(1), nil)
				if err != nil {
					t.Fatal(err)
				}
				if m.Info["max_iter_reached"] != "" {
					t.Fatalf("no convergence in %s epochs", m.Info["epochs"])
				}
				obj := objective(t, m)
				w := append(m.evalW(), m.Bias)
				var dw, nw float64
				for j := range w {
					dw += (w[j] - libW[j]) * (w[j] - libW[j])
					nw += libW[j] * libW[j]
				}
				relW := math.Sqrt(dw / nw)
				t.Logf("objective ours %.6f, liblinear %.6f; ‖Δw‖/‖w‖ = %.2g; %s epochs", obj, libObj, relW, m.Info["epochs"])
				if d := math.Abs(obj - libObj); d > 1e-6*math.Abs(libObj)+1e-6 {
					t.Errorf("objective %.6f, liblinear %.6f", obj, libObj)
				}
				if relW > 1e-3 {
					t.Errorf("‖w − w_liblinear‖/‖w_liblinear‖ = %.3g", relW)
				}
				pred := predictWith(t, "liblinear-predict", testF, modelF)
				var maxDiff float64
				for i := 0; i < st.test.N; i++ {
					maxDiff = max(maxDiff, math.Abs(m.Decision(st.test.row(i))-pred[i]))
				}
				t.Logf("max |Δ prediction| %.2g", maxDiff)
				if maxDiff > 1e-3 {
					t.Errorf("predictions differ from liblinear-predict's by up to %.3g", maxDiff)
				}
			})
		}
	}
}

// TestLinearDCDSparseAgainstLIBLINEAR trains LinearDCD and liblinear-train
// (-s 1, -s 3, -s 7, -B 1, -e 1e-3) on a generated sparse problem of 2000
// points of 20000 features with about 30 nonzeros each and a planted linear
// rule (sparseLinear), with and without the class weight -w1 2, and with
// point weights 1, 2 or 3 against LIBLINEAR on a file with each point
// repeated as often (which has no point weights). The dual objectives agree
// to 10⁻³ and the predictions on 1000 held-out points to 99 %.
func TestLinearDCDSparseAgainstLIBLINEAR(t *testing.T) {
	if _, err := exec.LookPath("liblinear-train"); err != nil {
		t.Skip("liblinear-train not on PATH (Debian package liblinear-tools)")
	}
	all := sparseLinear(3000, 20000, 30, 0.2, newRNG(41))
	train, test := rowsOfProblem(all, 0, 2000), rowsOfProblem(all, 2000, 3000)
	dir := t.TempDir()
	trainF, testF, repF := filepath.Join(dir, "train"), filepath.Join(dir, "test"), filepath.Join(dir, "repeated")
	writeRows(t, trainF, train, nil)
	writeRows(t, testF, test, nil)
	times := make([]int, train.N)
	weights := make([]float32, train.N)
	rng := newRNG(42)
	for i := range times {
		times[i] = 1 + rng.IntN(3)
		weights[i] = float32(times[i])
	}
	writeRows(t, repF, train, times)
	const eps = 1e-3
	for _, c := range []struct {
		loss     DCDLoss
		s        string
		c, wPos  float64
		weighted bool
	}{
		{SquaredHinge, "1", 1, 1, false}, {SquaredHinge, "1", 0.05, 1, false}, {SquaredHinge, "1", 0.3, 2, false}, {SquaredHinge, "1", 0.3, 1, true},
		{Hinge, "3", 1, 1, false}, {Hinge, "3", 0.05, 1, false}, {Hinge, "3", 0.3, 2, false}, {Hinge, "3", 0.3, 1, true},
		{Logistic, "7", 1, 1, false}, {Logistic, "7", 0.1, 2, false}, {Logistic, "7", 0.5, 1, true},
	} {
		name := fmt.Sprintf("%v/C=%g", c.loss, c.c)
		if c.wPos != 1 {
			name += fmt.Sprintf("/w1=%g", c.wPos)
		}
		if c.weighted {
			name += "/weighted"
		}
		t.Run(name, func(t *testing.T) {
			modelF := filepath.Join(t.TempDir(), "model")
			file, p := trainF, train
			if c.weighted {
				file, p.W = repF, weights
			}
			out, err := exec.Command("liblinear-train", "-s", c.s, "-c", fmt.Sprint(c.c), "-w1", fmt.Sprint(c.wPos), "-B", "1", "-e", fmt.Sprint(eps), file, modelF).CombinedOutput()
			if err != nil {
				t.Fatalf("liblinear-train: %v\n%s", err, out)
			}
			mm := llObjRE.FindSubmatch(out)
			if mm == nil {
				t.Fatalf("no objective in liblinear-train's output:\n%s", out)
			}
			libObj, _ := strconv.ParseFloat(string(mm[1]), 64)
			libW, libB := readLIBLINEARW(t, modelF, train.D)
			m, err := LinearDCD(t.Context(), p, LinearDCDConfig{Loss: c.loss, C: c.c, WeightPos: c.wPos, Eps: eps}, newRNG(1), nil)
			if err != nil {
				t.Fatal(err)
			}
			obj := objective(t, m)
			w, b := modelW(m)
			pred := predictWith(t, "liblinear-predict", testF, modelF)
			ours, lib := linearDecisions(w, b, test), linearDecisions(libW, libB, test)
			agree, acc := 0, 0
			for i, v := range ours {
				if (v > 0) == (pred[i] > 0) {
					agree++
				}
				if (v > 0) == (test.Y[i] > 0) {
					acc++
				}
				if (lib[i] > 0) != (pred[i] > 0) && math.Abs(lib[i]) > 1e-6 {
					t.Fatalf("test point %d: LIBLINEAR's w gives %g, liblinear-predict %g", i, lib[i], pred[i])
				}
			}
			it := regexp.MustCompile(`#iter = (\d+)`).FindSubmatch(out)
			t.Logf("objective ours %.6f, liblinear %.6f; %s epochs, liblinear %s; predictions agree on %d/%d, test accuracy %.3f",
				obj, libObj, m.Info["epochs"], it[1], agree, test.N, float64(acc)/float64(test.N))
			if m.Info["max_iter_reached"] != "" {
				t.Errorf("no convergence in %s epochs", m.Info["epochs"])
			}
			if d := math.Abs(obj - libObj); d > 1e-3*math.Abs(libObj) {
				t.Errorf("objective %.6f, liblinear %.6f", obj, libObj)
			}
			if agree < test.N*99/100 {
				t.Errorf("predictions agree on %d of %d test points", agree, test.N)
			}
		})
	}
}
