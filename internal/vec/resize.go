package vec

import "slices"

// Resize returns b with length n, reallocated only when its capacity is
// short, with append's room to grow (twice a small buffer, a quarter more
// of a large one), so that a buffer kept between calls of growing sizes is
// reallocated a logarithmic number of times. The contents are unspecified.
func Resize[T any](b []T, n int) []T {
	return slices.Grow(b[:0], n)[:n]
}
