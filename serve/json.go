package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unsafe"

	"github.com/nsvm-go/nsvm/internal/numparse"
)

// maxNumber bounds the characters of a number in a request's data (more
// digits than a float64 can tell apart, many times over), so that no
// parser copies a huge one (strconv's errors copy their input).
const maxNumber = 1000

// dtype is what the values of a tensor may be: a V2 datatype, with the
// range and integrality of its values, or (name "") V1's numbers.
type dtype struct {
	name    string
	integer bool    // integral values only
	signed  bool    // integer: whether negative values exist
	bits    int     // integer: the width
	limit   float64 // floating point: the largest magnitude
	boolean bool    // JSON true and false (1 and 0)
	// instances: the array holds V1 instances, whose errors name the
	// instance.
	instances bool
}

// dtypes are the V2 datatypes of numbers (BYTES is read by rawRows). Every
// value reaches the model as a float32, as nsvm predict reads a data file.
var dtypes = map[string]dtype{
	"BOOL":   {name: "BOOL", boolean: true},
	"INT8":   {name: "INT8", integer: true, signed: true, bits: 8},
	"INT16":  {name: "INT16", integer: true, signed: true, bits: 16},
	"INT32":  {name: "INT32", integer: true, signed: true, bits: 32},
	"INT64":  {name: "INT64", integer: true, signed: true, bits: 64},
	"UINT8":  {name: "UINT8", integer: true, bits: 8},
	"UINT16": {name: "UINT16", integer: true, bits: 16},
	"UINT32": {name: "UINT32", integer: true, bits: 32},
	"UINT64": {name: "UINT64", integer: true, bits: 64},
	"FP16":   {name: "FP16", limit: 65504},
	"FP32":   {name: "FP32", limit: math.MaxFloat32},
	"FP64":   {name: "FP64", limit: math.MaxFloat64},
}

// v1Numbers is the dtype of V1 instances: finite float32 values;
// v1Values that of an array of them that are not instances.
var (
	v1Numbers = dtype{limit: math.MaxFloat32, instances: true}
	v1Values  = dtype{limit: math.MaxFloat32}
)

// rangeText describes the values of an integer type, e.g. "-128..127".
func (t dtype) rangeText() string {
	switch {
	case t.signed:
		return fmt.Sprintf("%d..%d", int64(-1)<<(t.bits-1), uint64(1)<<(t.bits-1)-1)
	case t.bits == 64:
		return "0..18446744073709551615"
	default:
		return fmt.Sprintf("0..%d", uint64(1)<<t.bits-1)
	}
}

// maxTensorValues is an upper bound on the values of the JSON array b: each
// value is followed by a ',' or a ']'. parseTensor allocates exactly this
// many.
func maxTensorValues(b []byte) int {
	return bytes.Count(b, []byte{','}) + bytes.Count(b, []byte{']'})
}

// parseTensor reads a JSON array of numbers, nested to any depth, into
// flat float32 values in row-major order and its shape (the length of each
// nesting level). Nested arrays must be rectangular; values must be those
// of t (V1: finite float32 numbers). It is the fast path for the numbers of
// a request, which encoding/json would box one by one; it allocates
// 4·maxTensorValues(b) bytes and little else, after alloc accepted them
// (alloc's error is returned as it is). Errors name the offending value:
// its instance (V1) or its index in the flat data (V2, data[i]).
func parseTensor(b []byte, t dtype, alloc func(int64) error) (vals []float32, shape []int, err error) {
	n := maxTensorValues(b)
	if err := alloc(4 * int64(n)); err != nil {
		return nil, nil, err
	}
	return parseTensorTo(make([]float32, 0, n), b, t)
}

// parseTensorTo is parseTensor appending the values to dst.
func parseTensorTo(dst []float32, b []byte, t dtype) (vals []float32, shape []int, err error) {
	p := tensorParser{b: b, t: t, vals: dst, first: len(dst)}
	p.skip()
	if p.i >= len(p.b) || p.b[p.i] != '[' {
		return nil, nil, fmt.Errorf("want an array of numbers, got %s", describe(p.b[p.i:]))
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
	t     dtype
	vals  []float32
	shape []int  // length at each depth, set by the first array of that depth
	kind  []byte // per depth: 0 not seen, 'n' numbers, 'a' arrays
	inst  int    // index of the current element at depth 0
	first int    // len(vals) before the first value
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

// errorf returns an error about the value at p.i: in V1, of instance
// p.inst (or value p.inst of one flat instance); in V2, of data[k], k the
// index of the value in the flat data.
func (p *tensorParser) errorf(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	switch {
	case p.t.name != "":
		return fmt.Errorf("data[%d]: %s", len(p.vals)-p.first, msg)
	case len(p.kind) > 0 && p.kind[0] == 'n':
		return fmt.Errorf("value %d: %s", p.inst, msg)
	default:
		return fmt.Errorf("instance %d: %s", p.inst, msg)
	}
}

// array parses the array at p.i, at nesting depth.
func (p *tensorParser) array(depth int) error {
	if depth >= 8 {
		return p.errorf("arrays nested deeper than 8 levels")
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
		if depth == 0 {
			p.inst = n
		}
		if p.i >= len(p.b) {
			return p.errorf("unexpected end of the array")
		}
		kind := byte('n')
		if p.b[p.i] == '[' {
			kind = 'a'
		}
		if depth == 0 && p.t.instances && kind == 'n' && p.kind[0] != 'n' && !numberStart(p.b[p.i]) {
			// V1: null, a string, … where an instance is.
			return fmt.Errorf("instance %d is %s; want an array of numbers", n, describe(p.b[p.i:]))
		}
		if p.kind[depth] == 'a' && kind != 'a' {
			return p.errorf("%s where an array was", describe(p.b[p.i:]))
		}
		if p.kind[depth] == 'n' && kind != 'n' {
			return p.errorf("an array where a value was")
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
			return p.errorf("unexpected end of the array")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return p.setLen(depth, n)
		default:
			return p.errorf("unexpected %s in an array", quoteBytes(p.b[p.i:p.i+1]))
		}
	}
}

func (p *tensorParser) setLen(depth, n int) error {
	if p.shape[depth] < 0 {
		p.shape[depth] = n
		return nil
	}
	if p.shape[depth] != n {
		return p.errorf("ragged arrays: %d and %d values at one level", p.shape[depth], n)
	}
	return nil
}

// number parses one value of type p.t into p.vals.
func (p *tensorParser) number() error {
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || c >= 'a' && c <= 'z' {
			p.i++
			continue
		}
		break
	}
	tok := p.b[start:p.i]
	if p.t.boolean {
		switch string(tok) {
		case "true":
			p.vals = append(p.vals, 1)
		case "false":
			p.vals = append(p.vals, 0)
		default:
			return p.errorf("%s is not true or false (BOOL)", describeToken(p.b[start:], tok))
		}
		return nil
	}
	if len(tok) == 0 || !validJSONNumber(tok) {
		return p.errorf("%s is not a number", describeToken(p.b[start:], tok))
	}
	if len(tok) > maxNumber {
		return p.errorf("a number of %d characters; at most %d", len(tok), maxNumber)
	}
	v, err := numparse.Float32(tok)
	switch t := p.t; {
	case t.integer:
		if err := checkInteger(tok, t); err != nil {
			return p.errorf("%s %v", quoteBytes(tok), err)
		}
	case err != nil && !errors.Is(err, numparse.ErrRange), math.IsNaN(float64(v)):
		return p.errorf("%s is not a number", quoteBytes(tok))
	case t.limit > math.MaxFloat32:
		// FP64: any float64, but the model takes float32.
		if f, err := numparse.Float64(tok); err != nil || math.IsInf(f, 0) {
			return p.errorf("%s is outside FP64's range", quoteBytes(tok))
		}
		if math.IsInf(float64(v), 0) {
			return p.errorf("%s is outside float32's range (the model's inputs are float32)", quoteBytes(tok))
		}
	case math.IsInf(float64(v), 0) || math.Abs(float64(v)) > t.limit:
		if t.name == "" {
			return p.errorf("%s is not a finite float32", quoteBytes(tok))
		}
		return p.errorf("%s is outside %s's range (±%g)", quoteBytes(tok), t.name, t.limit)
	}
	p.vals = append(p.vals, v)
	return nil
}

// checkInteger reports whether tok, a JSON number, is an integer in the
// range of the integer type t.
func checkInteger(tok []byte, t dtype) error {
	plain := !bytes.ContainsAny(tok, ".eE")
	var ok bool
	switch {
	case plain && t.signed:
		_, err := strconv.ParseInt(unsafeString(tok), 10, t.bits)
		ok = err == nil
	case plain:
		_, err := strconv.ParseUint(unsafeString(tok), 10, t.bits)
		ok = err == nil && tok[0] != '-' || string(tok) == "-0"
	default:
		f, err := numparse.Float64(tok)
		if err == nil && f != math.Trunc(f) {
			return fmt.Errorf("is not an integer (%s)", t.name)
		}
		lo, hi := 0.0, math.Ldexp(1, t.bits) // [lo, hi)
		if t.signed {
			lo, hi = -math.Ldexp(1, t.bits-1), math.Ldexp(1, t.bits-1)
		}
		ok = err == nil && f >= lo && f < hi
	}
	if !ok {
		return fmt.Errorf("is outside %s's range %s", t.name, t.rangeText())
	}
	return nil
}

func numberStart(c byte) bool { return c == '-' || c >= '0' && c <= '9' }

// describe names the JSON value that b starts with, for error messages:
// null, true, false, a string, an object, an array, or the value quoted.
func describe(b []byte) string {
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	for _, lit := range []string{"null", "true", "false"} {
		if bytes.HasPrefix(b, []byte(lit)) {
			return lit
		}
	}
	end := bytes.IndexAny(b, ",]} \t\r\n")
	if end < 0 {
		end = len(b)
	}
	return quoteBytes(b[:max(end, 1)])
}

// describeToken is describe for the token tok that starts rest, quoting
// the token when it is one.
func describeToken(rest, tok []byte) string {
	if len(tok) > 0 && numberStart(tok[0]) {
		return quoteBytes(tok)
	}
	return describe(rest)
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
//
// A key that appears twice in one object is an error: encoding/json would
// take the last, a streaming reader the first, and a request that means
// two things is answered by neither.
func scanObjectFast(b []byte, tensors []string, f func(key string, val []byte) error) error {
	s := jsonScanner{b: b}
	var seen []string
	var seenSet map[string]bool
	return s.elements('{', func() error {
		ks := s.i
		if err := s.str(); err != nil {
			return err
		}
		key, err := objectKey(s.b[ks:s.i])
		if err != nil {
			return err
		}
		if seenSet == nil && len(seen) < 16 {
			if slices.Contains(seen, key) {
				return fmt.Errorf("the key %s appears twice in an object", quote(key))
			}
			seen = append(seen, key)
		} else {
			if seenSet == nil {
				seenSet = make(map[string]bool, 32)
				for _, k := range seen {
					seenSet[k] = true
				}
			}
			if seenSet[key] {
				return fmt.Errorf("the key %s appears twice in an object", quote(key))
			}
			seenSet[key] = true
		}
		s.ws()
		if !s.eat(':') {
			return fmt.Errorf("%w: want ':' after key %s", errMalformed, quote(key))
		}
		s.ws()
		val, err := s.raw(s.i < len(s.b) && s.b[s.i] == '[' && slices.Contains(tensors, key))
		if err != nil {
			return err
		}
		return f(key, val)
	})
}

// maxEscapedKey bounds the keys that objectKey unescapes.
const maxEscapedKey = 1024

// objectKey returns the key of an object member, raw its JSON string
// (checked by jsonScanner.str). A key of ASCII without escapes is raw's
// text without a copy (so a huge key costs no memory); another key is
// unescaped (invalid UTF-8 becoming U+FFFD, as encoding/json does) if it is
// at most maxEscapedKey bytes, else left as it is, which no key a caller
// looks for is.
func objectKey(raw []byte) (string, error) {
	inner := raw[1 : len(raw)-1]
	plain := true
	for _, c := range inner {
		if c == '\\' || c >= 0x80 {
			plain = false
			break
		}
	}
	if plain || len(raw) > maxEscapedKey {
		return unsafeString(inner), nil
	}
	var key string
	if err := json.Unmarshal(raw, &key); err != nil {
		return "", fmt.Errorf("%w: %v", errMalformed, err)
	}
	return key, nil
}

// unsafeString is b's text without a copy, for a string that does not
// outlive b and during whose life b does not change (a request body).
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// scanArray calls f with the raw value of each element of the JSON array b.
// Elements that are objects are only delimited: f must check them (as
// scanObject does).
func scanArray(b []byte, f func(val []byte) error) error {
	s := jsonScanner{b: b}
	return s.elements('[', func() error {
		val, err := s.raw(s.i < len(s.b) && s.b[s.i] == '{')
		if err != nil {
			return err
		}
		return f(val)
	})
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

// elements scans the JSON object or array at s.i (open is '{' or '['),
// which must be all that is left of s.b but whitespace: elem is called at
// each member or element and moves s past it; elements checks the
// brackets and the separators.
func (s *jsonScanner) elements(open byte, elem func() error) error {
	closing, want := byte('}'), "an object"
	if open == '[' {
		closing, want = ']', "an array"
	}
	s.ws()
	if !s.eat(open) {
		return fmt.Errorf("%w: want %s", errMalformed, want)
	}
	s.ws()
	if s.eat(closing) {
		return s.end()
	}
	for {
		s.ws()
		if err := elem(); err != nil {
			return err
		}
		s.ws()
		if s.eat(',') {
			continue
		}
		if s.eat(closing) {
			return s.end()
		}
		return fmt.Errorf("%w: want ',' or '%c' at offset %d", errMalformed, closing, s.i)
	}
}

// raw moves s past the value at s.i and returns its text. With delimitOnly
// the value, an array or an object, is only delimited: the caller checks it.
func (s *jsonScanner) raw(delimitOnly bool) ([]byte, error) {
	vs := s.i
	var err error
	if delimitOnly {
		err = s.delimit()
	} else {
		err = s.value(0)
	}
	return s.b[vs:s.i], err
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
			return fmt.Errorf("%w: bad number %s", errMalformed, quoteBytes(s.b[st:s.i]))
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
