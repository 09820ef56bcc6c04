// Package numparse parses decimal numbers from bytes without allocating,
// with strconv's results: the readers of data files and the inference
// server's request parser share it.
//
// Float32 takes the fast path of Clinger ("How to read floating point
// numbers accurately", PLDI 1990) when it applies — at most 19 significant
// digits whose value fits in 53 bits and a power of ten up to 10²² — where
// one IEEE multiplication or division gives the correctly rounded float64.
// Rounding that float64 to float32 is then the correctly rounded float32
// unless the float64 lies exactly halfway between two float32 values (the
// double-rounding case), which, like every number the fast path does not
// cover, goes to strconv.ParseFloat.
package numparse

import (
	"math"
	"strconv"
	"unsafe"
)

var pow10 = [23]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
	1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// Float32 parses b as strconv.ParseFloat(string(b), 32) does and returns
// the same value and error (a *strconv.NumError naming "ParseFloat"). b is
// the whole number: no surrounding spaces.
func Float32(b []byte) (float32, error) {
	if v, ok := fast(b); ok {
		return float32(v), nil
	}
	return slow(b, 32)
}

// Float64 parses b as strconv.ParseFloat(string(b), 64) does.
func Float64(b []byte) (float64, error) {
	if v, ok := fast64(b); ok {
		return v, nil
	}
	f, err := slowStr(b, 64)
	return f, err
}

func slow(b []byte, bits int) (float32, error) {
	f, err := slowStr(b, bits)
	return float32(f), err
}

func slowStr(b []byte, bits int) (float64, error) {
	if len(b) == 0 {
		return strconv.ParseFloat("", bits)
	}
	return strconv.ParseFloat(unsafe.String(&b[0], len(b)), bits)
}

// decimal reads [+-]digits[.digits][(e|E)[+-]digits]: the significant
// digits as an integer w (at most 19 of them), the power of ten e, and
// whether the form was plain enough for the fast path.
func decimal(b []byte) (neg bool, w uint64, e int, ok bool) {
	i := 0
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	digits, sawDigit, sawDot := 0, false, false
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			sawDigit = true
			if c == '0' && digits == 0 {
				if sawDot {
					e--
				}
				continue
			}
			if digits == 19 {
				return // too many significant digits
			}
			w = w*10 + uint64(c-'0')
			digits++
			if sawDot {
				e--
			}
		case c == '.':
			if sawDot {
				return
			}
			sawDot = true
		default:
			goto exp
		}
	}
exp:
	if !sawDigit {
		return
	}
	if i < len(b) {
		if b[i] != 'e' && b[i] != 'E' {
			return
		}
		i++
		eneg := false
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			eneg = b[i] == '-'
			i++
		}
		if i == len(b) {
			return
		}
		x := 0
		for ; i < len(b); i++ {
			c := b[i]
			if c < '0' || c > '9' || x > 10000 {
				return
			}
			x = x*10 + int(c-'0')
		}
		if eneg {
			x = -x
		}
		e += x
	}
	return neg, w, e, true
}

// fast64 is Clinger's fast path for float64.
func fast64(b []byte) (float64, bool) {
	neg, w, e, ok := decimal(b)
	if !ok || w > 1<<53 || e < -22 || e > 22 {
		return 0, false
	}
	f := float64(w)
	if e >= 0 {
		f *= pow10[e]
	} else {
		f /= pow10[-e]
	}
	if neg {
		f = -f
	}
	return f, true
}

// fast is fast64 for a float32 result: refused when the float64 lies
// exactly halfway between two float32 values, or outside float32's range.
func fast(b []byte) (float64, bool) {
	f, ok := fast64(b)
	if !ok {
		return 0, false
	}
	a := math.Abs(f)
	if a != 0 && (a < 0x1p-126 || a > math.MaxFloat32) {
		return 0, false // subnormal or overflowing float32: strconv's rules
	}
	// The 29 mantissa bits below float32's precision: a tie is 1 followed
	// by zeros.
	if math.Float64bits(f)&(1<<29-1) == 1<<28 {
		return 0, false
	}
	return f, true
}
