package data

import "io"

// Spaces is the CSVOptions.Comma of text whose fields are separated by
// runs of spaces and tabs (what NumPy's savetxt, R's write.table and many
// UCI .data files write): leading and trailing spaces on a line are
// ignored, and double quotes enclose a field with spaces in it. A '#'
// that starts the first line is left out, so that the header NumPy's
// savetxt writes ("# a b label") names the columns. A file whose first
// line (after '#' comments) has no comma, semicolon or tab but two or more
// fields separated by spaces is read so without being told.
const Spaces = ' '

// spaceFields reads text separated by runs of spaces and tabs as the same
// text separated by single tabs: a run of spaces, tabs and carriage
// returns between two fields of a line becomes one tab, a run at the
// start or the end of a line nothing; a field that starts with a double
// quote is copied as it is to its closing quote. The readers then take it
// as tab-separated text, and its lines, fields and values are the
// original's. Each byte read gives at most one byte out, so the text
// never grows.
type spaceFields struct {
	r    io.Reader
	in   []byte
	i, n int
	err  error
	// quoted: inside a quoted field; closed: the last byte closed one (a
	// quote next is an escaped quote, and the field goes on quoted);
	// field: a field has started on this line; sep: spaces followed a
	// field (a tab is owed before the next); start: the next byte starts
	// a field; later: a line with a field has ended (the first line's
	// leading '#' is left out).
	quoted, closed, field, sep, start, later bool
}

// newSpaceFields wraps r, the text of a line start.
func newSpaceFields(r io.Reader) *spaceFields {
	return &spaceFields{r: r, in: make([]byte, 64<<10), start: true}
}

func (s *spaceFields) Read(p []byte) (int, error) {
	out := 0
	for out < len(p) {
		if s.i == s.n {
			if out > 0 || s.err != nil {
				break
			}
			s.n, s.err = s.r.Read(s.in)
			s.i = 0
			continue
		}
		c := s.in[s.i]
		if s.quoted {
			p[out] = c
			out++
			s.i++
			s.quoted = c != '"'
			s.closed = !s.quoted
			continue
		}
		closed := s.closed
		s.closed = false
		switch c {
		case ' ', '\t', '\r':
			s.sep = s.sep || s.field
			s.i++
		case '\n':
			p[out] = c
			out++
			s.i++
			s.later = s.later || s.field
			s.field, s.sep, s.start = false, false, true
		default:
			if c == '#' && !s.later && !s.field {
				s.i++ // NumPy's "# " before the header
				continue
			}
			if s.sep {
				// The tab owed, in place of the spaces; c is looked at again.
				p[out] = '\t'
				out++
				s.sep, s.start = false, true
				continue
			}
			s.quoted = c == '"' && (s.start || closed)
			p[out] = c
			out++
			s.i++
			s.field, s.start = true, false
		}
	}
	if out == 0 {
		return 0, s.err
	}
	return out, nil
}
