package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/nsvm-go/nsvm/internal/numparse"
)

// parseTensor reads a JSON array of numbers, nested to any depth, into
// flat float32 values in row-major order and its shape (the length of each
// nesting level). Nested arrays must be rectangular; values must be finite
// and within float32's range. It is the fast path for the numbers of a
// request, which encoding/json would box one by one.
func parseTensor(b []byte) (vals []float32, shape []int, err error) {
	p := tensorParser{b: b}
	p.skip()
	if p.i >= len(p.b) || p.b[p.i] != '[' {
		return nil, nil, errors.New("want an array of numbers")
	}
	if err := p.array(0); err != nil {
		return nil, nil, err
	}
	p.skip()
	if p.i != len(p.b) {
		return nil, nil, errors.New("unexpected text after the array")
	}
	return p.vals, p.shape, nil
}

type tensorParser struct {
	b     []byte
	i     int
	vals  []float32
	shape []int  // length at each depth, set by the first array of that depth
	kind  []byte // per depth: 0 not seen, 'n' numbers, 'a' arrays
}

func (p *tensorParser) skip() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// array parses the array at p.i, at nesting depth.
func (p *tensorParser) array(depth int) error {
	if depth >= 8 {
		return errors.New("arrays nested deeper than 8 levels")
	}
	p.i++ // '['
	if len(p.shape) <= depth {
		p.shape = append(p.shape, -1)
		p.kind = append(p.kind, 0)
	}
	n := 0
	p.skip()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return p.setLen(depth, 0)
	}
	for {
		p.skip()
		if p.i >= len(p.b) {
			return errors.New("unexpected end of the array")
		}
		kind := byte('n')
		if p.b[p.i] == '[' {
			kind = 'a'
		}
		if p.kind[depth] != 0 && p.kind[depth] != kind {
			return errors.New("numbers and arrays mixed at one level")
		}
		p.kind[depth] = kind
		var err error
		if kind == 'a' {
			err = p.array(depth + 1)
		} else {
			err = p.number()
		}
		if err != nil {
			return err
		}
		n++
		p.skip()
		if p.i >= len(p.b) {
			return errors.New("unexpected end of the array")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return p.setLen(depth, n)
		default:
			return fmt.Errorf("unexpected %q in an array", p.b[p.i])
		}
	}
}

func (p *tensorParser) setLen(depth, n int) error {
	if p.shape[depth] < 0 {
		p.shape[depth] = n
		return nil
	}
	if p.shape[depth] != n {
		return fmt.Errorf("ragged arrays: %d and %d values at one level", p.shape[depth], n)
	}
	return nil
}

// number parses one JSON number into p.vals.
func (p *tensorParser) number() error {
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			p.i++
			continue
		}
		break
	}
	tok := p.b[start:p.i]
	if len(tok) == 0 {
		if p.i < len(p.b) {
			return fmt.Errorf("want a number, got %q", p.b[p.i])
		}
		return errors.New("want a number")
	}
	if !validJSONNumber(tok) {
		return fmt.Errorf("%q is not a JSON number", tok)
	}
	v, err := numparse.Float32(tok)
	if err != nil || math.IsInf(float64(v), 0) || math.IsNaN(float64(v)) {
		return fmt.Errorf("value %s is not a finite float32", tok)
	}
	p.vals = append(p.vals, v)
	return nil
}

// validJSONNumber reports whether tok has JSON's number syntax:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func validJSONNumber(tok []byte) bool {
	i := 0
	if i < len(tok) && tok[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(tok) && tok[i] >= '0' && tok[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(tok) && tok[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(tok) && tok[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(tok) && (tok[i] == 'e' || tok[i] == 'E') {
		i++
		if i < len(tok) && (tok[i] == '+' || tok[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(tok)
}

// appendFloats appends v as a JSON array, as rows of width cols (cols ≤ 0:
// one flat array). Values print in the shortest form that round-trips.
func appendFloats(b []byte, v []float64, cols int) []byte {
	if cols <= 0 {
		cols = len(v) + 1
	}
	b = append(b, '[')
	nested := cols <= len(v) && cols > 0 && cols != len(v)+1
	for i, x := range v {
		if nested && i%cols == 0 {
			if i > 0 {
				b = append(b, "],"...)
			}
			b = append(b, '[')
		} else if i > 0 {
			b = append(b, ',')
		}
		b = appendFloat(b, x)
	}
	if nested && len(v) > 0 {
		b = append(b, ']')
	}
	return append(b, ']')
}

// appendFloat appends one number (null for NaN or Inf, which JSON lacks).
func appendFloat(b []byte, x float64) []byte {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return append(b, "null"...)
	}
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.AppendInt(b, int64(x), 10)
	}
	return strconv.AppendFloat(b, x, 'g', -1, 64)
}

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}

// errMalformed reports JSON that does not parse.
var errMalformed = errors.New("malformed JSON")

// scanObject calls f with the key and the raw value of each member of the
// JSON object b, in order. It checks the object's structure (strings,
// nesting, separators) but leaves the values to f, so that a request's
// large arrays of numbers are read once, by parseTensor, instead of being
// validated by encoding/json first.
func scanObject(b []byte, f func(key string, val []byte) error) error {
	return scanObjectFast(b, nil, f)
}

// scanObjectFast is scanObject where the values of the keys in tensors are
// only delimited, not checked, when they are arrays: f must check them (as
// parseTensor does).
func scanObjectFast(b []byte, tensors []string, f func(key string, val []byte) error) error {
	s := jsonScanner{b: b}
	s.ws()
	if !s.eat('{') {
		return fmt.Errorf("%w: want an object", errMalformed)
	}
	s.ws()
	if s.eat('}') {
		return s.end()
	}
	for {
		s.ws()
		ks := s.i
		if err := s.str(); err != nil {
			return err
		}
		var key string
		if err := json.Unmarshal(s.b[ks:s.i], &key); err != nil {
			return fmt.Errorf("%w: %v", errMalformed, err)
		}
		s.ws()
		if !s.eat(':') {
			return fmt.Errorf("%w: want ':' after key %q", errMalformed, key)
		}
		s.ws()
		vs := s.i
		var err error
		if s.i < len(s.b) && s.b[s.i] == '[' && slices.Contains(tensors, key) {
			err = s.delimit()
		} else {
			err = s.value(0)
		}
		if err != nil {
			return err
		}
		if err := f(key, s.b[vs:s.i]); err != nil {
			return err
		}
		s.ws()
		if s.eat(',') {
			continue
		}
		if s.eat('}') {
			return s.end()
		}
		return fmt.Errorf("%w: want ',' or '}' at offset %d", errMalformed, s.i)
	}
}

// scanArray calls f with the raw value of each element of the JSON array b.
// Elements that are objects are only delimited: f must check them (as
// scanObject does).
func scanArray(b []byte, f func(val []byte) error) error {
	s := jsonScanner{b: b}
	s.ws()
	if !s.eat('[') {
		return fmt.Errorf("%w: want an array", errMalformed)
	}
	s.ws()
	if s.eat(']') {
		return s.end()
	}
	for {
		s.ws()
		vs := s.i
		var err error
		if s.i < len(s.b) && s.b[s.i] == '{' {
			err = s.delimit()
		} else {
			err = s.value(0)
		}
		if err != nil {
			return err
		}
		if err := f(s.b[vs:s.i]); err != nil {
			return err
		}
		s.ws()
		if s.eat(',') {
			continue
		}
		if s.eat(']') {
			return s.end()
		}
		return fmt.Errorf("%w: want ',' or ']' at offset %d", errMalformed, s.i)
	}
}

type jsonScanner struct {
	b []byte
	i int
}

func (s *jsonScanner) ws() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

func (s *jsonScanner) eat(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *jsonScanner) end() error {
	s.ws()
	if s.i != len(s.b) {
		return fmt.Errorf("%w: text after the value at offset %d", errMalformed, s.i)
	}
	return nil
}

// delimit skips the array or object at s.i by its brackets alone (strings
// are skipped whole): the caller parses it.
func (s *jsonScanner) delimit() error {
	depth := 0
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth == 0 {
				s.i++
				return nil
			}
		case '"':
			if err := s.str(); err != nil {
				return err
			}
			continue
		}
		s.i++
	}
	return fmt.Errorf("%w: unterminated array", errMalformed)
}

// str skips a string (with its escapes).
func (s *jsonScanner) str() error {
	if !s.eat('"') {
		return fmt.Errorf("%w: want a string at offset %d", errMalformed, s.i)
	}
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '\\':
			if s.i+1 >= len(s.b) {
				return fmt.Errorf("%w: unterminated string", errMalformed)
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.b) || !isHex(s.b[s.i+2:s.i+6]) {
					return fmt.Errorf("%w: bad \\u escape", errMalformed)
				}
				s.i += 6
			default:
				return fmt.Errorf("%w: bad escape \\%c", errMalformed, s.b[s.i+1])
			}
		case c == '"':
			s.i++
			return nil
		case c < 0x20:
			return fmt.Errorf("%w: control character in a string", errMalformed)
		default:
			s.i++
		}
	}
	return fmt.Errorf("%w: unterminated string", errMalformed)
}

// value skips one value, checking its structure.
func (s *jsonScanner) value(depth int) error {
	if depth > 64 {
		return fmt.Errorf("%w: nested too deeply", errMalformed)
	}
	if s.i >= len(s.b) {
		return fmt.Errorf("%w: unexpected end of input", errMalformed)
	}
	switch c := s.b[s.i]; {
	case c == '"':
		return s.str()
	case c == '{', c == '[':
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		s.i++
		s.ws()
		if s.eat(closer) {
			return nil
		}
		for {
			s.ws()
			if c == '{' {
				if err := s.str(); err != nil {
					return err
				}
				s.ws()
				if !s.eat(':') {
					return fmt.Errorf("%w: want ':' at offset %d", errMalformed, s.i)
				}
				s.ws()
			}
			if err := s.value(depth + 1); err != nil {
				return err
			}
			s.ws()
			if s.eat(',') {
				continue
			}
			if s.eat(closer) {
				return nil
			}
			return fmt.Errorf("%w: want ',' or '%c' at offset %d", errMalformed, closer, s.i)
		}
	case c == '-' || c >= '0' && c <= '9':
		st := s.i
		for s.i < len(s.b) {
			if d := s.b[s.i]; d >= '0' && d <= '9' || d == '-' || d == '+' || d == '.' || d == 'e' || d == 'E' {
				s.i++
				continue
			}
			break
		}
		if !validJSONNumber(s.b[st:s.i]) {
			return fmt.Errorf("%w: bad number %q", errMalformed, s.b[st:s.i])
		}
		return nil
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit {
				s.i += len(lit)
				return nil
			}
		}
		return fmt.Errorf("%w: unexpected %q at offset %d", errMalformed, c, s.i)
	}
}

func isHex(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
