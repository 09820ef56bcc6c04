package data

import (
	"math/rand/v2"
	"testing"
)

// TestFingerprint: the same contents give the same fingerprint, dense or
// sparse rows alike only when they are the same layout; a changed value,
// label, weight or order changes it.
func TestFingerprint(t *testing.T) {
	ds := ringnorm(50, rand.New(rand.NewPCG(1, 2)))
	fp := Fingerprint(ds)
	if len(fp) != len("sha256:")+16 || Fingerprint(ds.Subset(seqInts(50))) != fp {
		t.Fatalf("fingerprint %q, of a copy %q", fp, Fingerprint(ds.Subset(seqInts(50))))
	}
	change := func(name string, edit func(d *Dataset)) {
		t.Helper()
		d := ds.Subset(seqInts(50))
		edit(d)
		if Fingerprint(d) == fp {
			t.Errorf("%s: the fingerprint did not change", name)
		}
	}
	change("value", func(d *Dataset) { d.X[17] += 1e-6 })
	change("label", func(d *Dataset) { d.Y[3] = 3 - d.Y[3] })
	change("weights", func(d *Dataset) { d.W = make([]float64, d.N) })
	change("order", func(d *Dataset) { *d = *d.Subset(append([]int{1, 0}, seqInts(50)[2:]...)) })
	sp := ds.Subset(seqInts(50))
	sp.Sparsify()
	if Fingerprint(sp) == fp {
		t.Error("sparse rows fingerprinted as the dense ones")
	}
	if Fingerprint(sp) != Fingerprint(func() *Dataset { d := ds.Subset(seqInts(50)); d.Sparsify(); return d }()) {
		t.Error("the same sparse rows fingerprinted differently")
	}
}

func seqInts(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
