package svm

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/svm/libsvm"
)

// classCase is a binary data set for the comparisons with svm-train.
type classCase struct {
	name        string
	train, test Problem
}

// classCases returns heart_scale (the first 180 rows to train, the other
// 90 to test) and Ringnorm (1000 + 1000 points of 20 features,
// standardised).
func classCases(t *testing.T) []classCase {
	h := heartScaleRows(t)
	rng := newRNG(31)
	rtrain, rtest := ringnorm(1000, 20, rng), ringnorm(1000, 20, rng)
	standardize(rtrain, rtest)
	return []classCase{
		{"heart_scale", rowsOf(h, seq(0, 180)), rowsOf(h, seq(180, 270))},
		{"ringnorm", rtrain, rtest},
	}
}

// TestNuSVCAgainstLIBSVM trains ν-SVMs with NuSVC and with svm-train -s 1
// on the same points (in svm-train's order, class +1 first) and compares:
// at a tolerance of 1e-6 the objective, ρ/r and C = 1/r that svm-train
// prints and the number of support vectors; at the default tolerance the
// predictions on held-out points (at least 99 % the same); and svm-predict
// on our model written by WriteLIBSVM against our predictions. (Not with
// a linear kernel: on heart_scale its Q has rank 13, and the dual optimum
// is not unique — both solvers reach ½αᵀQα to 7 digits, but at different
// α, whose multiplier r, and with it C = 1/r and ρ/r, differ by 0.7 %.)
func TestNuSVCAgainstLIBSVM(t *testing.T) {
	needLIBSVM(t)
	for _, c := range classCases(t) {
		ks := []kernel.Kernel{kernel.RBF{Gamma: 1 / float64(c.train.D)}}
		if c.name == "heart_scale" {
			ks = append(ks, kernel.Poly{Gamma: 0.1, Coef0: 1, Degree: 3})
		}
		for _, k := range ks {
			for _, nu := range []float64{0.3, 0.6} {
				t.Run(fmt.Sprintf("%s/%s/nu=%g", c.name, k.Spec(), nu), func(t *testing.T) {
					dir := t.TempDir()
					trainF, modelF := filepath.Join(dir, "train"), filepath.Join(dir, "model")
					train := rowsOf(c.train, positivesFirst(c.train))
					writeLabelled(t, trainF, labels64(train), train.vec)
					args := append([]string{"-s", "1", "-n", fmt.Sprint(nu)}, libsvmKernelArgs(k)...)

					out := svmTrain(t, append(append(args, "-e", "1e-6"), trainF, modelF)...)
					m, err := NuSVC(t.Context(), train, k, NuConfig{Nu: nu, Eps: 1e-6}, nil)
					if err != nil {
						t.Fatal(err)
					}
					for _, s := range []struct{ info, lib string }{{"objective", "obj"}, {"rho", "rho"}, {"C", "C"}} {
						ours, _ := strconv.ParseFloat(m.Info[s.info], 64)
						lib := trainStat(t, out, s.lib)
						if math.Abs(ours-lib) > 1e-4*max(1, math.Abs(lib)) {
							t.Errorf("%s: ours %.9g, svm-train %.9g", s.info, ours, lib)
						}
					}
					if lib := int(trainStat(t, out, "nSV")); m.NSV < lib-2 || m.NSV > lib+2 {
						t.Errorf("nSV ours %d, svm-train %d", m.NSV, lib)
					}

					svmTrain(t, append(args, trainF, modelF)...)
					m, err = NuSVC(t.Context(), train, k, NuConfig{Nu: nu}, nil)
					if err != nil {
						t.Fatal(err)
					}
					y := labels64(c.test)
					lib := libsvmPredict(t, dir, modelF, y, c.test.vec)
					ours := make([]float64, c.test.N)
					for i := range ours {
						ours[i] = m.PredictVec(c.test.vec(i))
					}
					a := sameShare(ours, lib)
					t.Logf("C = 1/r %s (svm-train %g), nSV %d; test predictions agree on %.2f %% of %d rows", m.Info["C"], trainStat(t, out, "C"), m.NSV, 100*a, c.test.N)
					if a < 0.99 {
						t.Errorf("test predictions agree on %.4f < 0.99", a)
					}
					checkWritten(t, dir, m, y, c.test.vec, 1e-9)
				})
			}
		}
	}
}

// TestOneClassAgainstLIBSVM trains one-class SVMs with OneClass and with
// svm-train -s 2 on the same rows and compares the objective and ρ (at a
// tolerance of 1e-6) and the predictions on the training rows and on
// held-out ones at the default tolerance.
func TestOneClassAgainstLIBSVM(t *testing.T) {
	needLIBSVM(t)
	for _, c := range classCases(t) {
		k := kernel.RBF{Gamma: 1 / float64(c.train.D)}
		for _, nu := range []float64{0.1, 0.5} {
			t.Run(fmt.Sprintf("%s/nu=%g", c.name, nu), func(t *testing.T) {
				dir := t.TempDir()
				trainF, modelF := filepath.Join(dir, "train"), filepath.Join(dir, "model")
				writeLabelled(t, trainF, labels64(c.train), c.train.vec)
				args := append([]string{"-s", "2", "-n", fmt.Sprint(nu)}, libsvmKernelArgs(k)...)

				out := svmTrain(t, append(append(args, "-e", "1e-6"), trainF, modelF)...)
				m, err := OneClass(t.Context(), c.train, k, NuConfig{Nu: nu, Eps: 1e-6}, nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range []struct{ info, lib string }{{"objective", "obj"}, {"rho", "rho"}} {
					ours, _ := strconv.ParseFloat(m.Info[s.info], 64)
					lib := trainStat(t, out, s.lib)
					if math.Abs(ours-lib) > 1e-4*max(1, math.Abs(lib)) {
						t.Errorf("%s: ours %.9g, svm-train %.9g", s.info, ours, lib)
					}
				}
				if lib := int(trainStat(t, out, "nSV")); m.NSV < lib-2 || m.NSV > lib+2 {
					t.Errorf("nSV ours %d, svm-train %d", m.NSV, lib)
				}

				svmTrain(t, append(args, trainF, modelF)...)
				m, err = OneClass(t.Context(), c.train, k, NuConfig{Nu: nu}, nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, set := range []Problem{c.train, c.test} {
					y := labels64(set)
					lib := libsvmPredict(t, dir, modelF, y, set.vec)
					ours := make([]float64, set.N)
					out := 0
					for i := range ours {
						ours[i] = m.PredictVec(set.vec(i))
						if ours[i] < 0 {
							out++
						}
					}
					a := sameShare(ours, lib)
					t.Logf("%d rows: %d outliers, predictions agree on %.2f %%", set.N, out, 100*a)
					if a < 0.99 {
						t.Errorf("predictions agree on %.4f < 0.99", a)
					}
				}
				checkWritten(t, dir, m, labels64(c.test), c.test.vec, 1e-9)
			})
		}
	}
}

// regCase is a regression data set for the comparisons with svm-train.
type regCase struct {
	name        string
	train, test RegProblem
}

// TestNuSVRAgainstLIBSVM trains ν-SVRs with NuSVR and with svm-train -s 4
// on Friedman #1 (standardised) and on heart_scale (its labels ±1 as
// targets) and compares the objective and the tube width ε = −r at a
// tolerance of 1e-6, and at the default tolerance the test RMSE (within
// 1 % of svm-predict's) and the predictions themselves.
func TestNuSVRAgainstLIBSVM(t *testing.T) {
	needLIBSVM(t)
	h := heartScaleRows(t)
	hreg := RegProblem{X: h.X, N: h.N, D: h.D, Y: labels64(h)}
	ftrain, ftest := friedman1(500, 3), friedman1(500, 4)
	standardizeReg(ftrain, &ftest)
	cases := []regCase{
		{"heart_scale", subsetReg(hreg, 0, 180), subsetReg(hreg, 180, 270)},
		{"friedman1", ftrain, ftest},
	}
	for _, c := range cases {
		k := kernel.RBF{Gamma: 1 / float64(c.train.D)}
		for _, s := range []struct{ nu, c float64 }{{0.2, 1}, {0.5, 10}} {
			t.Run(fmt.Sprintf("%s/nu=%g,C=%g", c.name, s.nu, s.c), func(t *testing.T) {
				dir := t.TempDir()
				trainF, modelF := filepath.Join(dir, "train"), filepath.Join(dir, "model")
				writeLabelled(t, trainF, c.train.Y, c.train.vec)
				args := append([]string{"-s", "4", "-n", fmt.Sprint(s.nu), "-c", fmt.Sprint(s.c)}, libsvmKernelArgs(k)...)

				out := svmTrain(t, append(append(args, "-e", "1e-6"), trainF, modelF)...)
				m, err := NuSVR(t.Context(), c.train, k, NuConfig{Nu: s.nu, C: s.c, Eps: 1e-6}, nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, st := range []struct{ info, lib string }{{"objective", "obj"}, {"epsilon", "epsilon"}, {"rho", "rho"}} {
					ours, _ := strconv.ParseFloat(m.Info[st.info], 64)
					lib := trainStat(t, out, st.lib)
					if math.Abs(ours-lib) > 1e-4*max(1, math.Abs(lib)) {
						t.Errorf("%s: ours %.9g, svm-train %.9g", st.info, ours, lib)
					}
				}

				svmTrain(t, append(args, trainF, modelF)...)
				m, err = NuSVR(t.Context(), c.train, k, NuConfig{Nu: s.nu, C: s.c}, nil)
				if err != nil {
					t.Fatal(err)
				}
				lib := libsvmPredict(t, dir, modelF, c.test.Y, c.test.vec)
				ours := make([]float64, c.test.N)
				var maxDiff float64
				for i := range ours {
					ours[i] = m.DecisionVec(c.test.vec(i))
					maxDiff = max(maxDiff, math.Abs(ours[i]-lib[i]))
				}
				eo, el := rmseOf(ours, c.test.Y), rmseOf(lib, c.test.Y)
				t.Logf("test RMSE ours %.6g, svm-predict %.6g (rel. %.2g); max |Δ prediction| %.2g; ε ours %s, svm-train %g",
					eo, el, relDiff(eo, el), maxDiff, m.Info["epsilon"], trainStat(t, out, "epsilon"))
				if relDiff(eo, el) > 0.01 {
					t.Errorf("test RMSE %.6g, svm-predict's %.6g: more than 1 %% apart", eo, el)
				}
				if maxDiff > 0.01 {
					t.Errorf("predictions differ from svm-predict's by up to %.3g", maxDiff)
				}
				checkWritten(t, dir, m, c.test.Y, c.test.vec, 0)
			})
		}
	}
}

// TestNuSparseAgainstLIBSVM runs ν-SVC, one-class and ν-SVR on sparse rows
// (600 rows of 2000 features, about 20 nonzeros each) against svm-train on
// the same file: predictions on 400 held-out rows agree on at least 99 %
// (ν-SVR: test RMSE within 1 %), and the sparse fits equal the dense ones.
func TestNuSparseAgainstLIBSVM(t *testing.T) {
	needLIBSVM(t)
	rng := newRNG(41)
	all := sparseRandom(1000, 2000, 20, rng)
	train, test := rowsOf(all, seq(0, 600)), rowsOf(all, seq(600, 1000))
	dense := Problem{N: train.N, D: train.D, Y: train.Y, X: make([]float32, train.N*train.D)}
	for i := 0; i < train.N; i++ {
		train.vec(i).Scatter(dense.X[i*train.D:])
	}
	k := kernel.RBF{Gamma: 0.05}
	dir := t.TempDir()
	trainF, modelF := filepath.Join(dir, "train"), filepath.Join(dir, "model")
	ordered := rowsOf(train, positivesFirst(train))
	y := labels64(test)
	for _, c := range []struct {
		name string
		s    string
		fit  func(p Problem) (*Model, error)
	}{
		{"nu-svc", "1", func(p Problem) (*Model, error) { return NuSVC(t.Context(), p, k, NuConfig{Nu: 0.4}, nil) }},
		{"one-class", "2", func(p Problem) (*Model, error) { return OneClass(t.Context(), p, k, NuConfig{Nu: 0.2}, nil) }},
		{"nu-svr", "4", func(p Problem) (*Model, error) {
			return NuSVR(t.Context(), RegProblem{X: p.X, Sparse: p.Sparse, N: p.N, D: p.D, Y: labels64(p)}, k, NuConfig{Nu: 0.4, C: 2}, nil)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := train
			if c.name == "nu-svc" {
				p = ordered
			}
			writeLabelled(t, trainF, labels64(p), p.vec)
			nu := map[string]string{"1": "0.4", "2": "0.2", "4": "0.4"}[c.s]
			svmTrain(t, "-s", c.s, "-n", nu, "-c", "2", "-t", "2", "-g", "0.05", trainF, modelF)
			m, err := c.fit(p)
			if err != nil {
				t.Fatal(err)
			}
			if m.SVSparse == nil {
				t.Error("support vectors of sparse rows are not sparse")
			}
			lib := libsvmPredict(t, dir, modelF, y, test.vec)
			ours := make([]float64, test.N)
			for i := range ours {
				if c.name == "nu-svr" {
					ours[i] = m.DecisionVec(test.vec(i))
				} else {
					ours[i] = m.PredictVec(test.vec(i))
				}
			}
			if c.name == "nu-svr" {
				eo, el := rmseOf(ours, y), rmseOf(lib, y)
				t.Logf("test RMSE ours %.6g, svm-predict %.6g", eo, el)
				if relDiff(eo, el) > 0.01 {
					t.Errorf("test RMSE %.6g, svm-predict's %.6g: more than 1 %% apart", eo, el)
				}
			} else {
				a := sameShare(ours, lib)
				t.Logf("nSV %d; test predictions agree on %.2f %%", m.NSV, 100*a)
				if a < 0.99 {
					t.Errorf("test predictions agree on %.4f < 0.99", a)
				}
			}
			checkWritten(t, dir, m, y, test.vec, 1e-9)
			// The same points dense: the same fit up to the rounding of
			// the kernel values.
			dp := dense
			if c.name == "nu-svc" {
				dp = rowsOf(dense, positivesFirst(dense))
			}
			md, err := c.fit(dp)
			if err != nil {
				t.Fatal(err)
			}
			var maxDiff float64
			for i := 0; i < test.N; i++ {
				maxDiff = max(maxDiff, math.Abs(md.DecisionVec(test.vec(i))-m.DecisionVec(test.vec(i))))
			}
			if maxDiff > 1e-3 {
				t.Errorf("dense and sparse fits differ by up to %.3g", maxDiff)
			}
		})
	}
}

// TestThreeClassAgainstLIBSVM trains one-vs-one ν-SVC (NuSVCOneVsOne) and
// C-SVC (FitOneVsOne) heads on three classes, labels 2, 1, 3 in order of
// first occurrence, and checks that the model NewLIBSVMOneVsOne writes
// gives, through svm-predict, the heads' vote on every held-out row, and
// that the heads agree with svm-train -s 1 and -s 0 on at least 99 % of
// them.
func TestThreeClassAgainstLIBSVM(t *testing.T) {
	needLIBSVM(t)
	rng := newRNG(51)
	const d = 4
	xtr, ytr := threeClass(600, d, rng)
	xte, yte := threeClass(600, d, rng)
	cls, order := classIndex(ytr)
	p := ClassProblem{X: xtr, N: len(ytr), D: d, Y: cls, C: 3}
	k := kernel.RBF{Gamma: 0.25}
	dir := t.TempDir()
	trainF, modelF := filepath.Join(dir, "train"), filepath.Join(dir, "model")
	writeLabelled(t, trainF, ytr, p.vec)
	test := func(i int) data.Vec { return data.Dense(xte[i*d : (i+1)*d]) }
	for _, c := range []struct {
		name string
		args []string
		fit  func() ([]*Model, error)
	}{
		{"nu-svc", []string{"-s", "1", "-n", "0.3"}, func() ([]*Model, error) {
			return NuSVCOneVsOne(t.Context(), p, k, NuConfig{Nu: 0.3}, nil)
		}},
		{"c-svc", []string{"-s", "0", "-c", "2"}, func() ([]*Model, error) {
			return FitOneVsOne(t.Context(), p, k, 2, GridConfig{})
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			svmTrain(t, append(append(c.args, "-t", "2", "-g", "0.25"), trainF, modelF)...)
			lib := libsvmPredict(t, dir, modelF, yte, test)
			heads, err := c.fit()
			if err != nil {
				t.Fatal(err)
			}
			lm, err := NewLIBSVMOneVsOne(heads, order)
			if err != nil {
				t.Fatal(err)
			}
			if lm.SVMType != map[string]string{"nu-svc": "nu_svc", "c-svc": "c_svc"}[c.name] {
				t.Errorf("svm_type %s", lm.SVMType)
			}
			written := libsvmPredict(t, dir, writeModelFile(t, dir, "ours.model", lm), yte, test)
			ours := make([]float64, len(yte))
			for i := range ours {
				c, minAbs := voteHeads(heads, 3, test(i))
				ours[i] = order[c]
				if written[i] != ours[i] && minAbs > 1e-9 {
					t.Fatalf("row %d: svm-predict says %g with our model, the heads' vote %g", i, written[i], ours[i])
				}
				// The written model predicts as the heads in float64.
				dec := make([]float64, 3)
				if got := lm.PredictValues(libsvm.RowOf(test(i)), dec); got != written[i] {
					t.Fatalf("row %d: PredictValues %g, svm-predict %g", i, got, written[i])
				}
				for q, h := range heads {
					if dv := h.DecisionVec(test(i)); math.Abs(dv-dec[q]) > 1e-5 {
						t.Fatalf("row %d pair %d: decision %g, LIBSVM form %g", i, q, dv, dec[q])
					}
				}
			}
			a := sameShare(ours, lib)
			t.Logf("%d support vectors over %d heads (%d in the LIBSVM form); test predictions agree with svm-train's on %.2f %%",
				func() (n int) {
					for _, h := range heads {
						n += h.NSV
					}
					return n
				}(), len(heads), len(lm.SV), 100*a)
			if a < 0.99 {
				t.Errorf("test predictions agree on %.4f < 0.99", a)
			}
		})
	}
}
