package vec

import (
	"math"
	"testing"
)

// lengths covers every tail length of the 8-, 16- and 32-wide loops.
var lengths = []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 1000, 1027}

func TestLevel1(t *testing.T) {
	r := newRand(10)
	for _, n := range lengths {
		for _, off := range []int{0, 1, 3} { // unaligned starts
			a := randSlice(r, n+off)[off:]
			b := randSlice(r, n+off)[off:]
			var d64, sd, mag float64
			for i := range a {
				d64 += float64(a[i]) * float64(b[i])
				sd += (float64(a[i]) - float64(b[i])) * (float64(a[i]) - float64(b[i]))
				mag += math.Abs(float64(a[i]) * float64(b[i]))
			}
			if got := Dot(a, b); math.Abs(float64(got)-d64) > 1e-6*float64(n+1)*mag+1e-30 {
				t.Errorf("Dot n=%d: %g, want %g", n, got, d64)
			}
			if got := dotGo(a, b); math.Abs(float64(got)-d64) > 1e-6*float64(n+1)*mag+1e-30 {
				t.Errorf("dotGo n=%d: %g, want %g", n, got, d64)
			}
			if got := Dot64(a, b); math.Abs(got-d64) > 1e-12*mag {
				t.Errorf("Dot64 n=%d: %g, want %g", n, got, d64)
			}
			if got := SqDist(a, b); math.Abs(got-sd) > 1e-12*sd {
				t.Errorf("SqDist n=%d: %g, want %g", n, got, sd)
			}
			// The pure-Go references (one loop, sum64Go) on their own.
			if got := dot64Go(a, b); math.Abs(got-d64) > 1e-12*mag {
				t.Errorf("dot64Go n=%d: %g, want %g", n, got, d64)
			}
			if got := sqDistGo(a, b); math.Abs(got-sd) > 1e-12*sd {
				t.Errorf("sqDistGo n=%d: %g, want %g", n, got, sd)
			}
			if got, want := SqNorm(a), dot64Go(a, a); math.Abs(got-want) > 1e-12*want {
				t.Errorf("SqNorm n=%d: %g, want %g", n, got, want)
			}
			y := append([]float32(nil), b...)
			Axpy(-0.75, a, y)
			for i := range y {
				if want := b[i] + -0.75*a[i]; math.Abs(float64(y[i]-want)) > 1e-6*(1+math.Abs(float64(want))) {
					t.Fatalf("Axpy n=%d: y[%d] = %g, want %g", n, i, y[i], want)
				}
			}
		}
	}
}

func TestLevel1Panics(t *testing.T) {
	a, b := make([]float32, 3), make([]float32, 4)
	for name, f := range map[string]func(){
		"Dot":    func() { Dot(a, b) },
		"Dot64":  func() { Dot64(a, b) },
		"SqDist": func() { SqDist(a, b) },
		"Axpy":   func() { Axpy(1, a, b) },
		"ExpTo":  func() { ExpTo(a, b) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic on length mismatch")
				}
			}()
			f()
		})
	}
}

// ulpDiff returns |got−want| in units of the spacing of float32 at want
// (the subnormal spacing 2⁻¹⁴⁹ below the normal range).
func ulpDiff(got, want float32) float64 {
	if got == want {
		return 0
	}
	w := math.Abs(float64(want))
	ulp := math.Ldexp(1, -149)
	if w >= 0x1p-126 {
		_, e := math.Frexp(w) // w = f·2^e, f in [0.5, 1)
		ulp = math.Ldexp(1, e-24)
	}
	return math.Abs(float64(got)-float64(want)) / ulp
}

func TestExpTo(t *testing.T) {
	impls := map[string]func(dst, src []float32){"dispatch": ExpTo, "go": expToGo}
	// Dense sweep of [−88, 88] plus the subnormal and overflow ranges.
	const n = 1 << 20
	src := make([]float32, 0, n+64)
	for i := 0; i < n; i++ {
		src = append(src, -88+176*float32(i)/(n-1))
	}
	r := newRand(11)
	for i := 0; i < 4096; i++ {
		src = append(src, -110+25*float32(r.Float64()), 88+float32(r.Float64()))
	}
	for name, f := range impls {
		t.Run(name, func(t *testing.T) {
			dst := make([]float32, len(src))
			f(dst, src)
			worst, at := 0.0, float32(0)
			for i, x := range src {
				want := float32(math.Exp(float64(x)))
				d := ulpDiff(dst[i], want) // subnormal results: in units of 2⁻¹⁴⁹
				if d > worst {
					worst, at = d, x
				}
			}
			t.Logf("max error %.2f ulp at x=%g", worst, at)
			if worst > 2 {
				t.Errorf("max error %.2f ulp at x=%g exceeds 2 ulp", worst, at)
			}
		})
		t.Run(name+"/special", func(t *testing.T) {
			in := []float32{0, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), -104, -200, 89, 1e30, -1e30, 1}
			want := []float32{1, float32(math.Inf(1)), 0, float32(math.NaN()), 0, 0, float32(math.Inf(1)), float32(math.Inf(1)), 0, float32(math.E)}
			got := make([]float32, len(in))
			f(got, in)
			for i := range in {
				w, g := want[i], got[i]
				if w != w {
					if g == g {
						t.Errorf("exp(%g) = %g, want NaN", in[i], g)
					}
					continue
				}
				if ulpDiff(g, w) > 1 {
					t.Errorf("exp(%g) = %g, want %g", in[i], g, w)
				}
			}
		})
		t.Run(name+"/tails", func(t *testing.T) {
			for _, n := range lengths {
				x := randSlice(r, n)
				want := make([]float32, n)
				expToGo(want, x)
				f(x, x) // in place
				for i := range x {
					if ulpDiff(x[i], want[i]) > 1 {
						t.Fatalf("n=%d: exp[%d] = %g, want %g", n, i, x[i], want[i])
					}
				}
			}
		})
	}
}

func TestScaleF64(t *testing.T) {
	r := newRand(46)
	for _, n := range []int{0, 1, 7, 8, 9, 20, 33, 320} {
		src := randSlice(r, n)
		if n > 3 {
			src[1] = float32(math.NaN())
			src[2] = float32(math.Inf(-1))
			src[3] = 1e-40 // subnormal
		}
		for _, s := range []float64{1, 1 / 3.0, -7.25, 1e30} {
			dst := make([]float32, n)
			ScaleF64(dst, src, s)
			for i, v := range src {
				want := float32(float64(v) * s)
				if math.Float32bits(dst[i]) != math.Float32bits(want) && !(want != want && dst[i] != dst[i]) {
					t.Fatalf("n=%d s=%g: dst[%d] = %g, want %g", n, s, i, dst[i], want)
				}
			}
		}
	}
}
