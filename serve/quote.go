package serve

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxQuoted bounds the characters of a value an error message quotes.
const maxQuoted = 64

// quote returns s as a Go-quoted string of at most about 80 characters: a
// longer value is cut, and its length follows, as in "abc…"… (100000 bytes).
func quote(s string) string { return quotePrefix(s, len(s)) }

// quoteBytes is quote for a byte slice (only its first bytes are copied).
func quoteBytes(b []byte) string { return quotePrefix(string(b[:min(len(b), 4*maxQuoted)]), len(b)) }

// quotePrefix quotes s, the first bytes of a value of total bytes.
func quotePrefix(s string, total int) string {
	b := []byte{'"'}
	for i := 0; i < len(s); {
		_, w := utf8.DecodeRuneInString(s[i:])
		q := strconv.Quote(s[i : i+w])
		if len(b)+len(q)-2 > maxQuoted {
			b = append(b, `"…`...)
			return string(b) + " (" + strconv.Itoa(total) + " bytes)"
		}
		b = append(b, q[1:len(q)-1]...)
		i += w
	}
	if len(s) < total {
		b = append(b, `"…`...)
		return string(b) + " (" + strconv.Itoa(total) + " bytes)"
	}
	return string(append(b, '"'))
}

// maxMessage bounds an error answer's message: whatever a message quotes
// from the request (a package's message may quote a whole value), the
// answer keeps its head and its tail.
const maxMessage = 240

// clipMessage shortens the quoted strings of msg ("…", as %q writes them)
// longer than maxQuoted, then msg itself to about maxMessage bytes, keeping
// its start and its end (which usually says what is wrong).
func clipMessage(msg string) string {
	var b []byte
	last := 0
	for i := 0; i < len(msg); i++ {
		if msg[i] != '"' {
			continue
		}
		end := i + 1
		for end < len(msg) && msg[end] != '"' {
			if msg[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(msg) {
			break
		}
		if inner := msg[i+1 : end]; len(inner) > maxQuoted {
			cut := maxQuoted
			for cut > 0 && !utf8.RuneStart(inner[cut]) {
				cut--
			}
			if k := strings.LastIndexByte(inner[:cut], '\\'); k >= 0 && k >= cut-6 {
				cut = k // not in the middle of an escape
			}
			b = append(b, msg[last:i+1]...)
			b = append(b, inner[:cut]...)
			b = append(b, `"…`...)
			last = end + 1
		}
		i = end
	}
	if b != nil {
		msg = string(append(b, msg[last:]...))
	}
	if len(msg) <= maxMessage {
		return msg
	}
	head, tail := 160, 64
	for head > 0 && !utf8.RuneStart(msg[head]) {
		head--
	}
	t := len(msg) - tail
	for t < len(msg) && !utf8.RuneStart(msg[t]) {
		t++
	}
	return msg[:head] + " … " + msg[t:]
}
