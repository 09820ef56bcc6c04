package vec

import "testing"

// TestResize: a buffer long enough is resliced in place; a short one is
// reallocated, with room, and growing it by one a thousand times
// reallocates it only a few times.
func TestResize(t *testing.T) {
	b := make([]float32, 10, 100)
	if r := Resize(b, 50); len(r) != 50 || &r[0] != &b[0] {
		t.Errorf("in capacity: len %d, moved %v", len(r), &r[0] != &b[0])
	}
	if r := Resize(b, 101); len(r) != 101 || cap(r) < 101 {
		t.Errorf("beyond capacity: len %d cap %d", len(r), cap(r))
	}
	var g []float64
	allocs := 0
	for n := 1; n <= 1000; n++ {
		old := cap(g)
		if g = Resize(g, n); len(g) != n {
			t.Fatalf("len %d, want %d", len(g), n)
		}
		if cap(g) != old {
			allocs++
		}
	}
	if allocs > 40 {
		t.Errorf("%d reallocations growing to 1000 by one", allocs)
	}
}
