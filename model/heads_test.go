package model

import "testing"

func TestPairOf(t *testing.T) {
	for c := 2; c <= 6; c++ {
		q := 0
		for i := 0; i < c; i++ {
			for j := i + 1; j < c; j++ {
				if a, b := pairOf(q, c); a != i || b != j {
					t.Fatalf("pairOf(%d, %d) = (%d, %d), want (%d, %d)", q, c, a, b, i, j)
				}
				q++
			}
		}
		if q != HeadCount(OneVsOne, c) {
			t.Fatalf("%d pairs for %d classes, numHeads says %d", q, c, HeadCount(OneVsOne, c))
		}
	}
}
