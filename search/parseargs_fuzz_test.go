package search

import (
	"strings"
	"testing"
)

// FuzzParseArgs: whatever the flags, ParseArgs refuses them with an error
// or returns a configuration that validates; it never panics.
func FuzzParseArgs(f *testing.F) {
	for _, s := range []string{
		"", "--algo smo --C 10 --gamma 5", "--arch dense(8),relu --algo nsvm4 --steps 300", "--input-shape 1x8x8",
		"--budget 30s --max-memory 8GiB", "--bias", "--bias=false --momentum 0.5", "--C", "--class-weight 1:2,0:1",
		"--mu 2", "--epochs 3 --algo perceptron", "--seed 18446744073709551616",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		c, err := ParseArgs(strings.Fields(text))
		if err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("accepted %q, which does not validate: %v", text, err)
		}
	})
}
