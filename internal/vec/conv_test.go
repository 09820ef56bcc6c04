package vec

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

// convGeom is a convolution of n samples of cin×h×w by a k×k kernel, stride
// 1, no padding, with the input channel-first across the batch (cf) or in
// rows (NCHW). Output rows must split into whole vectors.
type convGeom struct {
	n, cin, h, w, k int
	cf              bool
}

func (g convGeom) String() string {
	return fmt.Sprintf("n%d/c%d/%dx%d/k%d/cf=%v", g.n, g.cin, g.h, g.w, g.k, g.cf)
}

func (g convGeom) ho() int { return g.h - g.k + 1 }
func (g convGeom) wo() int { return g.w - g.k + 1 }

// at returns the offset of input element (c, s, y, x).
func (g convGeom) at(c, s, y, x int) int {
	if g.cf {
		return ((c*g.n+s)*g.h+y)*g.w + x
	}
	return ((s*g.cin+c)*g.h+y)*g.w + x
}

// tables returns off (rows in (c, ky, kx) order) and xo.
func (g convGeom) tables() (off, xo []int32) {
	for c := 0; c < g.cin; c++ {
		for ky := 0; ky < g.k; ky++ {
			for kx := 0; kx < g.k; kx++ {
				off = append(off, int32(g.at(c, 0, ky, kx)-g.at(0, 0, 0, 0)))
			}
		}
	}
	for s := 0; s < g.n; s++ {
		for oy := 0; oy < g.ho(); oy++ {
			for ox := 0; ox < g.wo(); ox += ConvVec {
				xo = append(xo, int32(g.at(0, s, oy, ox)))
			}
		}
	}
	return off, xo
}

var convGeoms = []convGeom{
	{1, 1, 28, 28, 5, false},
	{3, 1, 28, 28, 5, false},
	{2, 10, 12, 12, 5, true},
	{3, 10, 12, 12, 5, false},
	{1, 3, 9, 10, 3, true},
	{5, 2, 8, 8, 1, true},
	{2, 7, 20, 11, 4, false},
}

const convTol = 1e-5

// closeTo reports whether got is within tol of want relative to scale.
func closeTo(got float32, want, scale float64) bool {
	return math.Abs(float64(got)-want) <= convTol*math.Max(scale, 1e-3)
}

func TestConvForward(t *testing.T) {
	r := newRand(41)
	for _, g := range convGeoms {
		for _, m := range []int{1, 2, 3, 4, 5, 6, 7, 10, 13, 20} {
			off, xo := g.tables()
			k := len(off)
			x := randSlice(r, g.n*g.cin*g.h*g.w)
			ldw := k + 3
			w := randSlice(r, m*ldw)
			bias := randSlice(r, m)
			np := ConvVec * len(xo)
			ldy := np + 5
			for name, f := range map[string]func(y []float32){
				"ConvForward": func(y []float32) { ConvForward(m, w, ldw, bias, x, off, xo, y, ldy) },
				"go":          func(y []float32) { convForwardGo(m, k, w, ldw, bias, x, off, xo, y, ldy) },
			} {
				y := make([]float32, m*ldy)
				for i := range y {
					y[i] = 777
				}
				f(y)
				for c := 0; c < m; c++ {
					for j := np; j < ldy && c < m-1; j++ {
						if y[c*ldy+j] != 777 {
							t.Fatalf("%s %v m=%d: padding of row %d overwritten", name, g, m, c)
						}
					}
					p := 0
					for s := 0; s < g.n; s++ {
						for oy := 0; oy < g.ho(); oy++ {
							for ox := 0; ox < g.wo(); ox++ {
								want, scale := float64(bias[c]), math.Abs(float64(bias[c]))
								rr := 0
								for ci := 0; ci < g.cin; ci++ {
									for ky := 0; ky < g.k; ky++ {
										for kx := 0; kx < g.k; kx++ {
											term := float64(w[c*ldw+rr]) * float64(x[g.at(ci, s, oy+ky, ox+kx)])
											want += term
											scale += math.Abs(term)
											rr++
										}
									}
								}
								if got := y[c*ldy+p]; !closeTo(got, want, scale) {
									t.Fatalf("%s %v m=%d: y[%d][%d] = %g, want %g", name, g, m, c, p, got, want)
								}
								p++
							}
						}
					}
				}
			}
		}
	}
}

func TestConvWeightGrad(t *testing.T) {
	r := newRand(42)
	for _, g := range convGeoms {
		for _, m := range []int{1, 2, 3, 4, 5, 7, 10, 20} {
			off, xo := g.tables()
			k := len(off)
			x := randSlice(r, g.n*g.cin*g.h*g.w)
			np := ConvVec * len(xo)
			ldy := np + 3
			dy := randSlice(r, m*ldy)
			ldg := k + 2
			g0 := randSlice(r, m*ldg)
			for name, f := range map[string]func(gr []float32){
				"ConvWeightGrad": func(gr []float32) { ConvWeightGrad(m, dy, ldy, x, off, xo, gr, ldg) },
				"go":             func(gr []float32) { convWeightGradGo(m, k, dy, ldy, x, off, xo, gr, ldg) },
			} {
				gr := slices.Clone(g0)
				f(gr)
				for c := 0; c < m; c++ {
					for j := k; j < ldg && c < m-1; j++ {
						if gr[c*ldg+j] != g0[c*ldg+j] {
							t.Fatalf("%s %v m=%d: padding of row %d changed", name, g, m, c)
						}
					}
					rr := 0
					for ci := 0; ci < g.cin; ci++ {
						for ky := 0; ky < g.k; ky++ {
							for kx := 0; kx < g.k; kx++ {
								want, scale := float64(g0[c*ldg+rr]), math.Abs(float64(g0[c*ldg+rr]))
								p := 0
								for s := 0; s < g.n; s++ {
									for oy := 0; oy < g.ho(); oy++ {
										for ox := 0; ox < g.wo(); ox++ {
											term := float64(dy[c*ldy+p]) * float64(x[g.at(ci, s, oy+ky, ox+kx)])
											want += term
											scale += math.Abs(term)
											p++
										}
									}
								}
								if got := gr[c*ldg+rr]; !closeTo(got, want, scale) {
									t.Fatalf("%s %v m=%d: g[%d][%d] = %g, want %g", name, g, m, c, rr, got, want)
								}
								rr++
							}
						}
					}
				}
			}
		}
	}
}

func TestConvInputGrad(t *testing.T) {
	r := newRand(43)
	for _, g := range convGeoms {
		for _, m := range []int{1, 2, 5, 20} {
			off, xo := g.tables()
			k := len(off)
			np := ConvVec * len(xo)
			ldy := np + 1
			dy := randSlice(r, m*ldy)
			ldw := k + 4
			w := randSlice(r, m*ldw)
			dx0 := randSlice(r, g.n*g.cin*g.h*g.w)
			// Rows in (ky, kx, c) order, as nn orders them, and in the
			// natural order (overlapping targets within a block).
			perm := make([]int, 0, k)
			for ky := 0; ky < g.k; ky++ {
				for kx := 0; kx < g.k; kx++ {
					for c := 0; c < g.cin; c++ {
						perm = append(perm, (c*g.k+ky)*g.k+kx)
					}
				}
			}
			for _, permuted := range []bool{false, true} {
				offp, wp := off, w
				if permuted {
					offp = make([]int32, k)
					wp = make([]float32, len(w))
					for i, rr := range perm {
						offp[i] = off[rr]
						for c := 0; c < m; c++ {
							wp[c*ldw+i] = w[c*ldw+rr]
						}
					}
				}
				for name, f := range map[string]func(dx []float32){
					"ConvInputGrad": func(dx []float32) { ConvInputGrad(m, wp, ldw, dy, ldy, offp, xo, dx) },
					"go":            func(dx []float32) { convInputGradGo(m, k, wp, ldw, dy, ldy, offp, xo, dx) },
				} {
					dx := slices.Clone(dx0)
					f(dx)
					want := make([]float64, len(dx0))
					scale := make([]float64, len(dx0))
					for i, v := range dx0 {
						want[i], scale[i] = float64(v), math.Abs(float64(v))
					}
					for c := 0; c < m; c++ {
						p := 0
						for s := 0; s < g.n; s++ {
							for oy := 0; oy < g.ho(); oy++ {
								for ox := 0; ox < g.wo(); ox++ {
									rr := 0
									for ci := 0; ci < g.cin; ci++ {
										for ky := 0; ky < g.k; ky++ {
											for kx := 0; kx < g.k; kx++ {
												i := g.at(ci, s, oy+ky, ox+kx)
												term := float64(w[c*ldw+rr]) * float64(dy[c*ldy+p])
												want[i] += term
												scale[i] += math.Abs(term)
												rr++
											}
										}
									}
									p++
								}
							}
						}
					}
					for i := range dx {
						if !closeTo(dx[i], want[i], scale[i]) {
							t.Fatalf("%s %v m=%d permuted=%v: dx[%d] = %g, want %g", name, g, m, permuted, i, dx[i], want[i])
						}
					}
				}
			}
		}
	}
}

func TestConvPanics(t *testing.T) {
	off := []int32{0, 1, 2}
	xo := []int32{0, 8}
	x := make([]float32, 18)
	y := make([]float32, 16)
	w := make([]float32, 3)
	for name, f := range map[string]func(){
		"gather past the end": func() { ConvForward(1, w, 3, []float32{0}, x[:17], off, xo, y, 16) },
		"negative offset":     func() { ConvForward(1, w, 3, []float32{0}, x, []int32{-1, 0, 1}, xo, y, 16) },
		"short y":             func() { ConvForward(1, w, 3, []float32{0}, x, off, xo, y[:15], 16) },
		"short bias":          func() { ConvForward(1, w, 3, nil, x, off, xo, y, 16) },
		"short g":             func() { ConvWeightGrad(1, y, 16, x, off, xo, w[:2], 3) },
		"short dx":            func() { ConvInputGrad(1, w, 3, y, 16, off, xo, x[:17]) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func TestMaxPool2Grad(t *testing.T) {
	r := newRand(44)
	for _, w := range []int{2, 6, 8, 16, 24, 30} {
		for _, relu := range []bool{false, true} {
			pairs := 7
			x := randSlice(r, 2*w*pairs)
			// Ties, zeros and NaNs in some windows.
			for i := 0; i+3 < len(x); i += 11 {
				x[i+1] = x[i]
			}
			x[3] = float32(math.NaN())
			x[w+5] = float32(math.NaN())
			x[2*w] = 0
			x[2*w+1] = float32(math.Copysign(0, -1))
			dy := randSlice(r, len(x)/4)
			want := make([]float32, len(x))
			maxPool2GradGo(want, x, dy, w, relu)
			got := make([]float32, len(x))
			for i := range got {
				got[i] = 99
			}
			MaxPool2Grad(got, x, dy, w, relu)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("w=%d relu=%v: dx[%d] = %g, want %g", w, relu, i, got[i], want[i])
				}
			}
			// Every window routes its gradient to exactly one element.
			wo := w / 2
			for p := 0; p < pairs; p++ {
				for j := 0; j < wo; j++ {
					n := 0
					for _, i := range []int{2*p*w + 2*j, 2*p*w + 2*j + 1, (2*p+1)*w + 2*j, (2*p+1)*w + 2*j + 1} {
						if want[i] != 0 {
							n++
						}
					}
					if n > 1 {
						t.Fatalf("w=%d: window %d,%d routes to %d elements", w, p, j, n)
					}
				}
			}
		}
	}
}

func TestMaxPool2(t *testing.T) {
	r := newRand(45)
	for _, w := range []int{2, 6, 8, 16, 24, 40} {
		for _, relu := range []bool{false, true} {
			pairs := 9
			x := randSlice(r, 2*w*pairs)
			x[1] = float32(math.NaN())
			x[w+4] = float32(math.NaN())
			x[2*w] = float32(math.Copysign(0, -1))
			// Reference: the two passes of the inference pool.
			v := make([]float32, w*pairs)
			for p := 0; p < pairs; p++ {
				MaxTo(v[p*w:(p+1)*w], x[2*p*w:(2*p+1)*w], x[(2*p+1)*w:(2*p+2)*w])
			}
			want := make([]float32, len(x)/4)
			PairMax(want, v, relu)
			got := make([]float32, len(want))
			MaxPool2(got, x, w, relu)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(want[i] != want[i] && got[i] != got[i]) {
					t.Fatalf("w=%d relu=%v: y[%d] = %g, want %g", w, relu, i, got[i], want[i])
				}
			}
		}
	}
}

// TestConvEveryKernel runs the convolution functions on shapes that reach
// every kernel of the three families (each block height, and each tile width
// or column count, edge tiles included) and compares them with the pure-Go
// versions, on tables of random offsets.
func TestConvEveryKernel(t *testing.T) {
	r := newRand(77)
	table := func(n, limit int) []int32 {
		s := make([]int32, n)
		for i := range s {
			s[i] = int32(r.IntN(limit))
		}
		return s
	}
	x := randSlice(r, 400) // offsets below 100 + 200 + ConvVec
	check := func(name string, got, want []float32) {
		t.Helper()
		for i := range want {
			if math.Abs(float64(got[i]-want[i])) > 1e-4*(1+math.Abs(float64(want[i]))) {
				t.Fatalf("%s: element %d = %g, want %g", name, i, got[i], want[i])
			}
		}
	}
	for m := 1; m <= 6; m++ {
		for nvec := 1; nvec <= 6; nvec++ {
			for _, k := range []int{1, 2, 7} {
				off, xo := table(k, 100), table(nvec, 200)
				w, bias := randSlice(r, m*k), randSlice(r, m)
				got, want := make([]float32, m*ConvVec*nvec), make([]float32, m*ConvVec*nvec)
				ConvForward(m, w, k, bias, x, off, xo, got, ConvVec*nvec)
				convForwardGo(m, k, w, k, bias, x, off, xo, want, ConvVec*nvec)
				check(fmt.Sprintf("ConvForward m=%d nvec=%d k=%d", m, nvec, k), got, want)
			}
		}
	}
	for m := 1; m <= 3; m++ {
		for k := 1; k <= 8; k++ {
			for nvec := 1; nvec <= 3; nvec++ {
				off, xo := table(k, 100), table(nvec, 200)
				dy := randSlice(r, m*ConvVec*nvec)
				got := randSlice(r, m*k)
				want := slices.Clone(got)
				ConvWeightGrad(m, dy, ConvVec*nvec, x, off, xo, got, k)
				convWeightGradGo(m, k, dy, ConvVec*nvec, x, off, xo, want, k)
				check(fmt.Sprintf("ConvWeightGrad m=%d k=%d nvec=%d", m, k, nvec), got, want)
			}
		}
	}
	for m := 1; m <= 3; m++ {
		for k := 1; k <= 6; k++ {
			for nvec := 1; nvec <= 3; nvec++ {
				off, xo := table(k, 100), table(nvec, 200)
				w, dy := randSlice(r, m*k), randSlice(r, m*ConvVec*nvec)
				got := randSlice(r, len(x))
				want := slices.Clone(got)
				ConvInputGrad(m, w, k, dy, ConvVec*nvec, off, xo, got)
				convInputGradGo(m, k, w, k, dy, ConvVec*nvec, off, xo, want)
				check(fmt.Sprintf("ConvInputGrad m=%d k=%d nvec=%d", m, k, nvec), got, want)
			}
		}
	}
}
