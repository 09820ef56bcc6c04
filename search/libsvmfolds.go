package search

import (
	"slices"

	"github.com/nsvm-go/nsvm/model"
)

// glibcRand is the C library's rand() as GNU libc implements it (random(3)
// with its default TYPE_3 state: an additive feedback generator over 31
// words, seeded by a Lehmer generator and warmed up by 310 draws), so that
// the folds of CrossValidate are those of svm-train -v, which draws them
// with rand() from the default seed 1.
type glibcRand struct {
	r [34]int32
	i int
}

func newGlibcRand(seed uint32) *glibcRand {
	g := &glibcRand{}
	var r [344]int32
	if seed == 0 {
		seed = 1
	}
	r[0] = int32(seed)
	for i := 1; i < 31; i++ {
		// 16807·r mod (2³¹ − 1), as glibc computes it.
		hi, lo := int64(r[i-1])/127773, int64(r[i-1])%127773
		w := 16807*lo - 2836*hi
		if w < 0 {
			w += 2147483647
		}
		r[i] = int32(w)
	}
	for i := 31; i < 34; i++ {
		r[i] = r[i-31]
	}
	for i := 34; i < 344; i++ {
		r[i] = int32(uint32(r[i-31]) + uint32(r[i-3]))
	}
	copy(g.r[:], r[344-34:])
	return g
}

// next returns rand()'s next value in [0, 2³¹).
func (g *glibcRand) next() int {
	// The state keeps the last 34 values; the next is the sum of the ones
	// 31 and 3 back.
	v := uint32(g.r[(g.i+3)%34]) + uint32(g.r[(g.i+31)%34])
	g.r[g.i%34] = int32(v)
	g.i++
	return int(v >> 1)
}

// libsvmFolds returns the k folds of svm_cross_validation (LIBSVM 3.x) on
// the rows of d with rand() seeded by seed: for classes, every class's rows
// (classes in the order of their first row, except that labels −1 and +1
// of two classes are taken +1 first) shuffled and dealt into consecutive
// blocks per fold; for regression, all rows shuffled and cut into k blocks.
func libsvmFolds(d *fitData, y []float64, k int, seed uint64) []split {
	n := d.n
	g := newGlibcRand(uint32(seed))
	perm := make([]int, n)
	foldStart := make([]int, k+1)
	if d.task == model.Classification && k < n {
		// svm_group_classes: labels by first occurrence.
		var labels []float64
		var count []int
		dl := make([]int, n)
		for i, v := range y {
			c := slices.Index(labels, v)
			if c < 0 {
				c = len(labels)
				labels = append(labels, v)
				count = append(count, 0)
			}
			count[c]++
			dl[i] = c
		}
		if len(labels) == 2 && labels[0] == -1 && labels[1] == 1 {
			count[0], count[1] = count[1], count[0]
			for i := range dl {
				dl[i] = 1 - dl[i]
			}
		}
		nc := len(count)
		start := make([]int, nc)
		for c := 1; c < nc; c++ {
			start[c] = start[c-1] + count[c-1]
		}
		next := slices.Clone(start)
		for i := range n {
			perm[next[dl[i]]] = i
			next[dl[i]]++
		}
		index := slices.Clone(perm)
		for c := range nc {
			for i := 0; i < count[c]; i++ {
				j := i + g.next()%(count[c]-i)
				index[start[c]+j], index[start[c]+i] = index[start[c]+i], index[start[c]+j]
			}
		}
		foldCount := make([]int, k)
		for i := range k {
			for c := range nc {
				foldCount[i] += (i+1)*count[c]/k - i*count[c]/k
			}
		}
		for i := 1; i <= k; i++ {
			foldStart[i] = foldStart[i-1] + foldCount[i-1]
		}
		fill := slices.Clone(foldStart)
		for c := range nc {
			for i := range k {
				for j := start[c] + i*count[c]/k; j < start[c]+(i+1)*count[c]/k; j++ {
					perm[fill[i]] = index[j]
					fill[i]++
				}
			}
		}
	} else {
		for i := range perm {
			perm[i] = i
		}
		for i := range n {
			j := i + g.next()%(n-i)
			perm[i], perm[j] = perm[j], perm[i]
		}
		for i := 0; i <= k; i++ {
			foldStart[i] = i * n / k
		}
	}
	out := make([]split, k)
	for f := range k {
		b, e := foldStart[f], foldStart[f+1]
		out[f].val = slices.Clone(perm[b:e])
		out[f].train = append(slices.Clone(perm[:b]), perm[e:]...)
	}
	return out
}
