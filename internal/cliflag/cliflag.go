// Package cliflag holds the flag.Value types of the command lines: a
// choice among names, a positive number, a count; each checks its value
// when it is set, so that a bad value is one usage error naming the flag.
package cliflag

import (
	"flag"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Choice is a string flag whose value is one of Values, stored in *Dst;
// with Auto, "auto" stores "" (let the library choose).
type Choice struct {
	Dst    *string
	Name   string
	Values []string
	Auto   bool
}

func (c Choice) String() string {
	if c.Dst == nil {
		return ""
	}
	return *c.Dst
}

// Set stores s if it is one of the choices.
func (c Choice) Set(s string) error {
	if c.Auto && s == "auto" {
		*c.Dst = ""
		return nil
	}
	for _, v := range c.Values {
		if s == v {
			*c.Dst = s
			return nil
		}
	}
	want := c.Values
	if c.Auto {
		want = append([]string{"auto"}, want...)
	}
	return fmt.Errorf("unknown --%s %q (want %s)", c.Name, s, strings.Join(want, ", "))
}

// Positive is a float flag whose value must be a finite number > 0.
type Positive struct {
	Dst  *float64
	Name string
}

func (p Positive) String() string {
	if p.Dst == nil {
		return "0"
	}
	return strconv.FormatFloat(*p.Dst, 'g', -1, 64)
}

// Set stores s if it is a finite number > 0.
func (p Positive) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return fmt.Errorf("--%s must be a finite number > 0, got %s", p.Name, s)
	}
	*p.Dst = v
	return nil
}

// Count is an int flag whose value must be at least 1.
type Count struct {
	Dst  *int
	Name string
}

func (c Count) String() string {
	if c.Dst == nil {
		return "0"
	}
	return strconv.Itoa(*c.Dst)
}

// Set stores s if it is an integer ≥ 1.
func (c Count) Set(s string) error {
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 {
		return fmt.Errorf("--%s must be ≥ 1, got %s", c.Name, s)
	}
	*c.Dst = v
	return nil
}

// Given returns the names of the flags set on the command line.
func Given(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// Shape is a flag of an input shape: one number (a vector of that many
// values) or three, channels × height × width, as 20 or 1x28x28.
type Shape struct {
	Dst *[]int
}

func (s Shape) String() string {
	if s.Dst == nil {
		return ""
	}
	return strings.Trim(strings.ReplaceAll(fmt.Sprint(*s.Dst), " ", "x"), "[]")
}

// Set reads s into *s.Dst.
func (s Shape) Set(v string) error {
	var out []int
	for _, part := range strings.FieldsFunc(v, func(r rune) bool { return r == 'x' || r == 'X' || r == ',' || r == '×' }) {
		n, err := strconv.Atoi(part)
		if err != nil || n < 1 {
			out = nil
			break
		}
		out = append(out, n)
	}
	if len(out) != 1 && len(out) != 3 {
		return fmt.Errorf("bad input shape %q (want e.g. 20 or 1x28x28)", v)
	}
	*s.Dst = out
	return nil
}

// flagValueError is the flag package's preamble to the error of a Set of
// this package's types, which already names the flag.
var flagValueError = regexp.MustCompile(`^invalid value ".*?" for flag -\S+: (unknown --|--)`)

// ParseError is the text of an error of flag.FlagSet.Parse, without the
// flag package's preamble where the value's own error names the flag.
func ParseError(err error) string {
	return flagValueError.ReplaceAllString(err.Error(), "$1")
}
