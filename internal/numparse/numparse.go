// Package numparse parses decimal numbers from bytes without allocating:
// the readers of data files and the inference server's request parser
// share it, so that every one of them takes the same numbers.
//
// # Syntax
//
// A number is a plain decimal number and nothing else:
//
//	[+-] digits [. digits] [(e|E) [+-] digits]
//
// where the digits before or after the point (not both) may be left out
// (".5", "5."). strconv.ParseFloat takes more — digits separated by
// underscores ("1_000"), hexadecimal mantissas ("0x1p3"), the words inf,
// infinity and nan — which a data file means as text, not as those
// numbers: here they are errors. The words give ErrNotFinite, so that a
// reader can say that a value is not finite; any other form ErrSyntax; a
// number beyond the type's range ErrRange (with ±Inf, as strconv).
//
// # Speed
//
// Float32 takes the fast path of Clinger ("How to read floating point
// numbers accurately", PLDI 1990) when it applies — at most 19 significant
// digits whose value fits in 53 bits and a power of ten up to 10²² — where
// one IEEE multiplication or division gives the correctly rounded float64.
// Rounding that float64 to float32 is then the correctly rounded float32
// unless the float64 lies exactly halfway between two float32 values (the
// double-rounding case), which, like every number the fast path does not
// cover, goes to strconv.ParseFloat. Values equal strconv's for every
// number of the syntax above.
package numparse

import (
	"errors"
	"math"
	"strconv"
	"unsafe"
)

// The errors of Float32 and Float64 (returned as they are, not wrapped).
var (
	// ErrSyntax: the text is not a plain decimal number.
	ErrSyntax = errors.New("not a number")
	// ErrNotFinite: the text is inf, infinity or nan (in any case, with
	// an optional sign).
	ErrNotFinite = errors.New("not finite")
	// ErrRange: the number is beyond the type's largest finite value.
	ErrRange = errors.New("out of range")
)

var pow10 = [23]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
	1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// Float32 parses b, the whole number (no surrounding spaces), as a
// float32: the value strconv.ParseFloat(string(b), 32) gives for the
// syntax of the package, else one of its errors.
func Float32(b []byte) (float32, error) {
	if v, ok := fast(b); ok {
		return float32(v), nil
	}
	f, err := slow(b, 32)
	return float32(f), err
}

// Float64 parses b as a float64 (see Float32).
func Float64(b []byte) (float64, error) {
	if v, ok := fast64(b); ok {
		return v, nil
	}
	return slow(b, 64)
}

// String32 is Float32 of a string.
func String32(s string) (float32, error) { return Float32(bytesOf(s)) }

// String64 is Float64 of a string.
func String64(s string) (float64, error) { return Float64(bytesOf(s)) }

// IsNumber reports whether s is a number of the package's syntax or one
// of the words of a value that is not finite (ErrNotFinite): text that
// stands for a number, whatever its value.
func IsNumber(s string) bool {
	_, err := String64(s)
	return err == nil || err == ErrNotFinite || err == ErrRange
}

// bytesOf returns the bytes of s without copying them; they are only read.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// slow checks the syntax of b, which the fast path did not take, and
// parses it with strconv.
func slow(b []byte, bits int) (float64, error) {
	if !valid(b) {
		if notFinite(b) {
			return 0, ErrNotFinite
		}
		return 0, ErrSyntax
	}
	f, err := strconv.ParseFloat(unsafe.String(&b[0], len(b)), bits)
	if err != nil {
		return f, ErrRange // the syntax is valid: only the range can fail
	}
	return f, nil
}

// valid reports whether b has the package's syntax.
func valid(b []byte) bool {
	i := 0
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	n := digits()
	if i < len(b) && b[i] == '.' {
		i++
		n += digits()
	}
	if n == 0 {
		return false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(b)
}

// notFinite reports whether b is inf, infinity or nan, signed or not, in
// any case.
func notFinite(b []byte) bool {
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		b = b[1:]
	}
	if len(b) > 8 {
		return false
	}
	var low [8]byte
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	switch string(low[:len(b)]) {
	case "inf", "infinity", "nan":
		return true
	}
	return false
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
