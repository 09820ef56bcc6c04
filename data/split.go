package data

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Split draws a random test set of nTest rows; the remaining rows form the
// training set. Both keep the original row order. The same rng state gives
// the same split. It panics unless 0 ≤ nTest ≤ d.N.
func Split(d *Dataset, nTest int, rng *rand.Rand) (train, test *Dataset) {
	if nTest < 0 || nTest > d.N {
		panic(fmt.Sprintf("data: Split: %d test rows out of %d", nTest, d.N))
	}
	perm := rng.Perm(d.N)
	testIdx := perm[:nTest]
	trainIdx := perm[nTest:]
	slices.Sort(testIdx)
	slices.Sort(trainIdx)
	return d.Subset(trainIdx), d.Subset(testIdx)
}

// StratifiedHoldout holds out perClass random rows of every class (all rows
// of a class that has fewer), as in the paper's validation splits ("200
// samples from each class", §5.1). held and rest keep the original row
// order. It panics when perClass < 0.
func StratifiedHoldout(d *Dataset, perClass int, rng *rand.Rand) (rest, held *Dataset) {
	if perClass < 0 {
		panic(fmt.Sprintf("data: StratifiedHoldout: %d rows per class", perClass))
	}
	hold := make([]bool, d.N)
	for _, c := range d.Classes() {
		var idx []int
		for i, y := range d.Y[:d.N] {
			if y == c {
				idx = append(idx, i)
			}
		}
		rng.Shuffle(len(idx), func(a, b int) { idx[a], idx[b] = idx[b], idx[a] })
		for _, i := range idx[:min(perClass, len(idx))] {
			hold[i] = true
		}
	}
	var restIdx, heldIdx []int
	for i, h := range hold {
		if h {
			heldIdx = append(heldIdx, i)
		} else {
			restIdx = append(restIdx, i)
		}
	}
	return d.Subset(restIdx), d.Subset(heldIdx)
}
