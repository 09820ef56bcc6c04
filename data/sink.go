package data

import (
	"io"
	"os"
)

// sizedReader is a stream whose total size is known or estimated (a gzip
// stream's from its trailer).
type sizedReader struct {
	io.Reader
	size int64
}

// sizeHint returns the number of bytes left in r when it can tell (a
// regular file, an in-memory reader, a sizedReader), else -1.
func sizeHint(r io.Reader) int64 {
	switch r := r.(type) {
	case *sizedReader:
		return r.size
	case interface{ Len() int }:
		return int64(r.Len())
	case *os.File:
		st, err := r.Stat()
		if err != nil || !st.Mode().IsRegular() {
			return -1
		}
		off, err := r.Seek(0, io.SeekCurrent)
		if err != nil {
			return -1
		}
		return st.Size() - off
	}
	return -1
}

// rowSink gathers the rows of the chunks, in order, in one allocation of
// a capacity estimated from the bytes of the stream (when their number is
// known) and the rows per byte seen so far, so that the data are not held
// twice: capacity past the rows is never touched, and costs address space,
// not memory. An underestimate grows the allocation by at least a quarter.
type rowSink struct {
	x         []float32
	y         []float64
	d         int
	size      int64 // bytes in the stream, -1 if unknown
	seen      int64 // bytes of the chunks placed
	maxValues int
	full      bool // more than maxValues: rows are counted, not kept
	n         int
}

// reserve makes room for k more rows of width s.d, from a chunk of b bytes.
func (s *rowSink) reserve(k int, b int64) {
	need := s.n + k
	if s.full || need*s.d <= cap(s.x) {
		return
	}
	if need > s.maxValues/max(s.d, 1) {
		s.full = true
		s.x = nil
		return
	}
	rows := max(need+need/4, 1024)
	if s.size > 0 && s.seen+b > 0 {
		est := int(float64(need)*float64(s.size)/float64(s.seen+b)*1.03) + 64
		rows = max(need, est)
	} else {
		rows = max(rows, 2*need)
	}
	rows = min(rows, s.maxValues/max(s.d, 1))
	s.grow(rows, s.d)
}

// rowCap is the number of rows the allocation holds.
func (s *rowSink) rowCap() int {
	if s.d == 0 {
		return 0
	}
	return cap(s.x) / s.d
}

// grow moves the rows into an allocation of rows×d values, d ≥ s.d.
func (s *rowSink) grow(rows, d int) {
	if cap(s.y) < rows {
		y := make([]float64, len(s.y), rows)
		copy(y, s.y)
		s.y = y
	}
	x := make([]float32, s.n*d, rows*d)
	if d == s.d {
		copy(x, s.x[:s.n*s.d])
	} else {
		for i := 0; i < s.n; i++ {
			copy(x[i*d:i*d+s.d], s.x[i*s.d:(i+1)*s.d])
		}
	}
	s.x, s.d = x, d
}

// widen makes the rows d wide (d > s.d), in place when the capacity
// allows.
func (s *rowSink) widen(d int) {
	if s.full {
		s.d = d
		return
	}
	if s.n > s.maxValues/d {
		s.full, s.x, s.d = true, nil, d
		return
	}
	if s.n*d > cap(s.x) {
		s.grow(max(s.n+s.n/4, s.rowCap()), d)
		return
	}
	// From the last row down, each row moves up, over rows already moved.
	x := s.x[:s.n*d]
	for i := s.n - 1; i >= 0; i-- {
		copy(x[i*d:i*d+s.d], x[i*s.d:(i+1)*s.d])
		clear(x[i*d+s.d : (i+1)*d])
	}
	s.x, s.d = x, d
}

// appendRows appends k dense rows of width s.d.
func (s *rowSink) appendRows(x []float32, y []float64) {
	s.reserve(len(y), 0)
	s.y = append(s.y, y...)
	if !s.full {
		s.x = append(s.x, x...)
	}
	s.n += len(y)
}

// dataset returns the rows as a Dataset of width d ≥ s.d.
func (s *rowSink) dataset(d int) *Dataset {
	if d != s.d {
		s.widen(d)
	}
	return &Dataset{X: s.x[: s.n*d : s.n*d], Y: s.y[:s.n:s.n], N: s.n, D: d}
}

// place appends the rows of a parsed chunk (dense or sparse) of b bytes.
func (s *rowSink) place(c *chunk, b int64) {
	k := len(c.y)
	s.reserve(k, b)
	s.seen += b
	s.y = append(s.y, c.y...)
	if s.full {
		s.n += k
		return
	}
	d := s.d
	s.x = s.x[:(s.n+k)*d] // fresh capacity is zero
	rows := s.x[s.n*d:]
	if c.x == nil {
		start := 0
		for r, end := range c.rowEnd {
			row := rows[r*d : (r+1)*d]
			for q := start; q < end; q++ {
				row[c.idx[q]] = c.val[q]
			}
			start = end
		}
	} else if c.w == d {
		copy(rows, c.x[:k*d])
	} else {
		w := min(c.w, d)
		for r := range k {
			copy(rows[r*d:r*d+w], c.x[r*c.w:r*c.w+w])
		}
	}
	s.n += k
}
