package numparse

import (
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// strict reports whether s has the package's syntax, by a regular
// expression rather than the parser's loop.
var strict = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

func same32(t *testing.T, s string) {
	t.Helper()
	got, gerr := Float32([]byte(s))
	g64, gerr64 := String64(s)
	if !strict.MatchString(s) {
		want := ErrSyntax
		if w := strings.TrimLeft(strings.ToLower(s), "+-"); len(s)-len(w) <= 1 && (w == "inf" || w == "infinity" || w == "nan") {
			want = ErrNotFinite
		}
		if gerr != want || gerr64 != want {
			t.Fatalf("Float32(%q) = %v, %v and Float64 %v, %v; want the error %v", s, got, gerr, g64, gerr64, want)
		}
		return
	}
	want, werr := strconv.ParseFloat(s, 32)
	if (gerr == nil) != (werr == nil) || gerr == nil && math.Float32bits(got) != math.Float32bits(float32(want)) || gerr != nil && gerr != ErrRange {
		t.Fatalf("Float32(%q) = %v, %v; strconv: %v, %v", s, got, gerr, float32(want), werr)
	}
	w64, werr := strconv.ParseFloat(s, 64)
	if (gerr64 == nil) != (werr == nil) || gerr64 == nil && math.Float64bits(g64) != math.Float64bits(w64) {
		t.Fatalf("Float64(%q) = %v, %v; strconv: %v, %v", s, g64, gerr64, w64, werr)
	}
}

// TestStrict: the forms strconv takes beyond plain decimal numbers are
// errors, the words of values that are not finite ErrNotFinite.
func TestStrict(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want error
	}{
		{"1_000", ErrSyntax}, {"0x1p3", ErrSyntax}, {"0x10", ErrSyntax}, {"1_0.5", ErrSyntax}, {" 1", ErrSyntax},
		{"1 ", ErrSyntax}, {".", ErrSyntax}, {"+", ErrSyntax}, {"1e", ErrSyntax}, {"e1", ErrSyntax}, {"1.2.3", ErrSyntax},
		{"inf", ErrNotFinite}, {"-Inf", ErrNotFinite}, {"+INFINITY", ErrNotFinite}, {"NaN", ErrNotFinite}, {"--inf", ErrSyntax},
		{"1e39", nil}, {"1e309", ErrRange}, {".5", nil}, {"5.", nil}, {"-5.e3", nil},
	} {
		_, err := String64(tc.s)
		if tc.s == "1e39" {
			_, err = String32(tc.s)
			tc.want = ErrRange
		}
		if err != tc.want {
			t.Errorf("%q: error %v, want %v", tc.s, err, tc.want)
		}
	}
	if !IsNumber("nan") || !IsNumber("1e999") || IsNumber("1_0") || IsNumber("x") {
		t.Error("IsNumber: nan and 1e999 stand for numbers, 1_0 and x do not")
	}
}

// TestAgainstStrconv: edge cases and random numbers in every form give
// strconv's bits, and the forms outside the syntax an error.
func TestAgainstStrconv(t *testing.T) {
	for _, s := range []string{"0", "-0", "+1", "1.", ".5", "5.", "1e5", "1E-5", "3.4028235e38", "3.4028236e38", "1e39",
		"1e-45", "1.4e-45", "1e-46", "1.17549435e-38", "16777217", "16777216.5", "0.1", "-2.6043153", "123456789012345678901",
		"9007199254740993", "1e22", "1e23", "1e-22", "nan", "inf", "-Inf", "", "-", "e5", "1e", "1e+", "1.2.3", "0x10", "1_0", "1_000", "0x1p3", "Infinity", "+nan",
		"00012", "1e0000000012", "33554431", "33554433", "0.000000000000000000001234"} {
		same32(t, s)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200000; i++ {
		var s string
		switch i % 4 {
		case 0:
			s = strconv.FormatFloat(float64(math.Float32frombits(rng.Uint32())), 'g', -1, 32)
		case 1:
			s = strconv.FormatFloat(rng.NormFloat64()*math.Pow(10, float64(rng.IntN(20)-10)), 'g', rng.IntN(12)+1, 64)
		case 2:
			s = strconv.FormatFloat(rng.Float64()*1e6, 'f', rng.IntN(8), 64)
		default:
			// Halfway between two float32 values, and next to it.
			f := float64(math.Float32frombits(rng.Uint32()&0x7effffff | 0x3f000000))
			up := float64(math.Nextafter32(float32(f), math.MaxFloat32))
			s = strconv.FormatFloat((f+up)/2, 'g', -1, 64)
		}
		same32(t, s)
	}
}

// FuzzFloat32: any input in the syntax gives strconv's value, any other
// an error.
func FuzzFloat32(f *testing.F) {
	for _, s := range []string{"1", "-0.5", "1e38", "16777217", "1.00000006", "0.1e-44", "9999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { same32(t, s) })
}

func BenchmarkFloat32(b *testing.B) {
	nums := [][]byte{[]byte("-2.6043153"), []byte("0.91250354"), []byte("3.357256"), []byte("1.0356691e-3")}
	for i := 0; i < b.N; i++ {
		Float32(nums[i%len(nums)])
	}
}

func BenchmarkStrconv(b *testing.B) {
	nums := []string{"-2.6043153", "0.91250354", "3.357256", "1.0356691e-3"}
	for i := 0; i < b.N; i++ {
		strconv.ParseFloat(nums[i%len(nums)], 32)
	}
}
