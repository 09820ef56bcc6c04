package nsvm

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// splitInPlace gives the parts holdout gives, without copying the rest, and
// leaves s holding every row once, x and idx together.
func TestSplitInPlace(t *testing.T) {
	ds := threeClasses(300, 4, 1)
	d, err := prepare(ds, &FitConfig{})
	if err != nil {
		t.Fatal(err)
	}
	all := d.all()
	a := d.subProblem(ScaleStandardize, all)
	b := d.subProblem(ScaleStandardize, all)
	r1, h1 := a.holdout(0.2, rand.New(rand.NewPCG(7, 7)))
	r2, h2 := b.splitInPlace(0.2, rand.New(rand.NewPCG(7, 7)))
	for _, c := range [][2]subProblem{{r1, r2}, {h1, h2}} {
		if c[0].n != c[1].n || !slices.Equal(c[0].idx, c[1].idx) || !slices.Equal(c[0].x, c[1].x) {
			t.Fatalf("splitInPlace's part differs from holdout's: %d rows %v…, want %d rows %v…", c[1].n, c[1].idx[:3], c[0].n, c[0].idx[:3])
		}
	}
	if &r2.x[0] != &b.x[0] || &h2.x[0] != &b.x[r2.n*d.d] {
		t.Fatal("the parts are not views of s")
	}
	// Every row of s still holds its own values.
	ref := d.subProblem(ScaleStandardize, all)
	for k, i := range b.idx {
		if !slices.Equal(b.x[k*d.d:(k+1)*d.d], ref.x[i*d.d:(i+1)*d.d]) {
			t.Fatalf("row %d (data row %d) was scrambled", k, i)
		}
	}
	if s := slices.Sorted(slices.Values(b.idx)); !slices.Equal(s, all) {
		t.Fatal("s lost or repeated rows")
	}
	if !slices.Equal(all, seq(d.n)) {
		t.Fatal("the caller's row indices were reordered")
	}
}
