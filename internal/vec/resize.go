package vec

// Resize returns b with length n: b itself when its capacity allows, else
// a new zeroed buffer with a quarter more room than b had (at least 8), so
// that a buffer kept between calls of growing sizes is reallocated a
// logarithmic number of times. The contents are unspecified.
func Resize[T any](b []T, n int) []T {
	if cap(b) >= n {
		return b[:n]
	}
	return make([]T, n, max(n, cap(b)+cap(b)/4, 8))
}
