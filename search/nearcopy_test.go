package search

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data"
)

// nearCopyRows returns n unit-norm bags of k of d words, the rows i of
// copies being copies of rows copies[i] (earlier ones) with each word
// swapped for a random one with probability jitter.
func nearCopyRows(n, d, k int, copies map[int]int, jitter float64, seed uint64) *data.CSR {
	rng := rand.New(rand.NewPCG(seed, 5))
	m := &data.CSR{Ptr: make([]int64, n+1)}
	rows := make([]map[int32]float64, n)
	for i := range n {
		row := map[int32]float64{}
		if src, ok := copies[i]; ok {
			for j, v := range rows[src] {
				row[j] = v
			}
			// Swap words: each of the source's words is replaced by a
			// random one with probability jitter.
			for j, v := range rows[src] {
				if rng.Float64() < jitter {
					delete(row, j)
					row[int32(rng.IntN(d))] = v
				}
			}
		} else {
			for range k {
				row[int32(rng.IntN(d))] += 1 + rng.Float64()
			}
		}
		rows[i] = row
		appendUnitRow(m, i, row)
	}
	return m
}

// TestNearCopies: rows with a copy whose cosine to it is 0.9 or more are
// grouped with it (a copy of a copy too), rows whose cosine is below are
// not, nor are unrelated rows, and an empty row is a group of its own.
func TestNearCopies(t *testing.T) {
	const n = 3000
	close, far := map[int]int{}, map[int]int{}
	for i := 1000; i < 1300; i++ {
		close[i] = i - 1000 // 5 % of the words swapped
	}
	for i := 1300; i < 1400; i++ {
		close[i] = i - 300 // a copy of a copy
	}
	for i := 1400; i < 1600; i++ {
		far[i] = i - 1100 // 40 % swapped
	}
	// Rows 1000–1299 copy 0–299 with 5 % of their words swapped (and
	// 1300–1399 copy those); in another set, 1400–1599 copy 300–499 with
	// 40 % swapped.
	m := nearCopyRows(n, 50000, 60, close, 0.05, 1)
	far2 := nearCopyRows(n, 50000, 60, far, 0.4, 1)
	norms := func(m *data.CSR) []float64 {
		out := make([]float64, m.Rows())
		for i := range out {
			out[i] = math.Sqrt(m.Row(i).SqNorm())
		}
		return out
	}
	g := nearCopies(m, 7, 2)
	nm := norms(m)
	joined, missed := 0, 0
	for i, s := range close {
		if cosine(m, i, s, nm) < nearCopyCos {
			continue // the swaps went further than 0.9
		}
		if g[i] == g[s] {
			joined++
		} else {
			missed++
		}
	}
	if joined < 350 || missed > joined/50 {
		t.Errorf("copies of cosine ≥ %g: %d grouped with their source, %d not", nearCopyCos, joined, missed)
	}
	sizes := map[int32]int{}
	for _, x := range g {
		sizes[x]++
	}
	for i := 1600; i < n; i++ {
		if sizes[g[i]] > 1 {
			t.Fatalf("unrelated row %d in a group of %d", i, sizes[g[i]])
		}
	}
	gf := nearCopies(far2, 7, 2)
	nf := norms(far2)
	for i, s := range far {
		if gf[i] == gf[s] && cosine(far2, i, s, nf) < nearCopyCos {
			t.Fatalf("row %d grouped with %d at cosine %.3f", i, s, cosine(far2, i, s, nf))
		}
	}
	empty := &data.CSR{Ptr: []int64{0, 0, 0, 1}, Idx: []int32{3}, Val: []float32{1}}
	if ge := nearCopies(empty, 1, 1); ge[0] == ge[1] || ge[1] == ge[2] {
		t.Errorf("empty rows grouped: %v", ge)
	}
}

// TestDropNearCopies: a validation row whose group has a row in the
// split's training part is not scored; one whose group is all in the
// validation part is; a split left with too few rows keeps them all, and
// the notes say which.
func TestDropNearCopies(t *testing.T) {
	group := make([]int32, 1000)
	for i := range group {
		group[i] = int32(i)
	}
	for i := 800; i < 900; i++ {
		group[i] = int32(i - 800) // copies of training rows 0–99
	}
	group[950], group[951] = 950, 950 // a pair within the validation part
	splits := []split{{train: seq(800), val: seqFrom(800, 1000)}}
	note := dropNearCopies(splits, group)
	if len(splits[0].val) != 100 || splits[0].val[0] != 900 || !strings.HasPrefix(note, "100 of the 200 validation rows are near copies") {
		t.Errorf("validation rows %d (first %d), note %q", len(splits[0].val), splits[0].val[0], note)
	}
	for i := 900; i < 1000; i++ {
		group[i] = int32(i - 900)
	}
	splits = []split{{train: seq(800), val: seqFrom(800, 1000)}}
	note = dropNearCopies(splits, group)
	if len(splits[0].val) != 200 || !strings.Contains(note, "too many to leave out") {
		t.Errorf("all near copies: validation rows %d, note %q", len(splits[0].val), note)
	}
	for i := range group {
		group[i] = int32(i)
	}
	if note := dropNearCopies(splits, group); note != "" {
		t.Errorf("no copies: note %q", note)
	}
}

func seqFrom(lo, hi int) []int {
	out := make([]int, 0, hi-lo)
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}

// TestFitNearCopies: on sparse rows where a fifth are near copies of other
// rows, the search scores its hold-out without the copies of training rows
// and says so, unless told to keep them (NearCopies "keep"); on rows
// without copies it says nothing; an unknown rule is refused.
func TestFitNearCopies(t *testing.T) {
	ds := textLike(12000, 20000, 4, 40, 30, 0.3, 41)
	copies := map[int]int{}
	for i := 9600; i < 12000; i++ {
		copies[i] = i - 9600
	}
	// Rows 9600–11999 become copies of rows 0–2399, labels and all.
	for i, s := range copies {
		ds.Y[i] = ds.Y[s]
	}
	ds.Sparse = copyRows(ds.Sparse, copies)
	m, err := Fit(context.Background(), ds, &FitConfig{Seed: 1, Algorithm: "linear"})
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(m.Selection.Notes, "\n")
	if !strings.Contains(notes, "validation rows are near copies") || !strings.Contains(notes, "not scored") {
		t.Errorf("notes %q", notes)
	}
	m, err = Fit(context.Background(), ds, &FitConfig{Seed: 1, Algorithm: "linear", NearCopies: "keep"})
	if err != nil {
		t.Fatal(err)
	}
	if notes := strings.Join(m.Selection.Notes, "\n"); strings.Contains(notes, "near copies") {
		t.Errorf("near copies kept, notes %q", notes)
	}
	if _, err := Fit(context.Background(), ds, &FitConfig{NearCopies: "skip"}); err == nil || !strings.Contains(err.Error(), `unknown NearCopies "skip"`) {
		t.Errorf("unknown rule: error %v", err)
	}
	clean := textLike(12000, 20000, 4, 40, 30, 0.3, 41)
	m, err = Fit(context.Background(), clean, &FitConfig{Seed: 1, Algorithm: "linear"})
	if err != nil {
		t.Fatal(err)
	}
	if notes := strings.Join(m.Selection.Notes, "\n"); strings.Contains(notes, "near copies") {
		t.Errorf("no copies, notes %q", notes)
	}
}

// copyRows returns m with row i replaced by row copies[i] for each i.
func copyRows(m *data.CSR, copies map[int]int) *data.CSR {
	out := &data.CSR{Ptr: make([]int64, m.Rows()+1)}
	for i := range m.Rows() {
		src := i
		if s, ok := copies[i]; ok {
			src = s
		}
		r := m.Row(src)
		out.Idx = append(out.Idx, r.Idx...)
		out.Val = append(out.Val, r.Val...)
		out.Ptr[i+1] = int64(len(out.Val))
	}
	return out
}
