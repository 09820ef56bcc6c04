package data

import "unsafe"

// rowSink gathers the rows of the parsed chunks, in order, in segments of
// memory outside the Go heap (anonymous mappings, where the system has
// them), and at the end copies them into one allocation of the final size,
// releasing each segment as soon as it is copied: the data are never held
// twice, whatever the length of the stream, which need not be known.
// LIBSVM rows that turn out narrower than the final width are padded then.
type rowSink struct {
	segs      []rowSeg
	ysegs     [][]byte // the labels, segBytes/8 to a segment
	d         int      // width of the rows being placed
	n         int
	maxValues int
	full      bool // more than maxValues: rows are counted, not kept
	weighted  bool // the rows have weights (chunk.wt), gathered in w
	w         []float64
}

// rowSeg holds rows of width d.
type rowSeg struct {
	mem  []byte // the mapping
	x    []float32
	d    int
	rows int
}

// segBytes is the size of a segment (at least one row).
var segBytes = 16 << 20

// widen makes the rows placed from now on d wide (d > s.d).
func (s *rowSink) widen(d int) {
	s.d = d
	if s.n > s.maxValues/d {
		s.drop()
	}
}

// drop releases the row segments once the data are known to be too large
// (or to be kept sparse); labels are still kept, rows only counted from
// then on.
func (s *rowSink) drop() {
	for i := range s.segs {
		if s.segs[i].mem != nil {
			freeSegment(s.segs[i].mem)
		}
	}
	s.segs = nil
	s.full = true
}

// addLabels appends y to the label segments.
func (s *rowSink) addLabels(y []float64) {
	per := segBytes / 8
	for len(y) > 0 {
		i := s.n % per // s.n counts the labels added before
		if i == 0 && s.n/per == len(s.ysegs) {
			s.ysegs = append(s.ysegs, allocSegment(per*8))
		}
		seg := s.ysegs[s.n/per]
		k := copy(unsafe.Slice((*float64)(unsafe.Pointer(&seg[0])), per)[i:], y)
		y = y[k:]
		s.n += k
	}
}

// free releases the segments.
func (s *rowSink) free() {
	for _, g := range s.ysegs {
		freeSegment(g)
	}
	s.ysegs = nil
	for i := range s.segs {
		if s.segs[i].mem != nil {
			freeSegment(s.segs[i].mem)
		}
	}
	s.segs = nil
}

// room returns the segment to place rows in, with room for one row.
func (s *rowSink) room() *rowSeg {
	if k := len(s.segs); k > 0 {
		g := &s.segs[k-1]
		if g.d == s.d && (g.rows+1)*g.d <= len(g.x) {
			return g
		}
	}
	nb := max(segBytes, 4*s.d)
	mem := allocSegment(nb)
	x := unsafe.Slice((*float32)(unsafe.Pointer(&mem[0])), nb/4)
	s.segs = append(s.segs, rowSeg{mem: mem, x: x, d: s.d})
	return &s.segs[len(s.segs)-1]
}

// place appends the rows of a parsed chunk (dense or sparse).
func (s *rowSink) place(c *chunk) {
	k := len(c.y)
	defer s.addLabels(c.y)
	if s.weighted {
		s.w = append(s.w, c.wt...)
	}
	if s.n+k > s.maxValues/max(s.d, 1) {
		s.drop()
	}
	if s.full {
		return
	}
	if s.d == 0 { // rows without features (so far): no memory
		if g := len(s.segs) - 1; g >= 0 && s.segs[g].d == 0 {
			s.segs[g].rows += k
		} else {
			s.segs = append(s.segs, rowSeg{rows: k})
		}
		return
	}
	d := s.d
	start := 0
	for r := range k {
		g := s.room()
		row := g.x[g.rows*d : (g.rows+1)*d]
		clear(row)
		if c.x == nil {
			end := c.rowEnd[r]
			for q := start; q < end; q++ {
				row[c.idx[q]] = c.val[q]
			}
			start = end
		} else {
			w := min(c.w, d)
			copy(row[:w], c.x[r*c.w:r*c.w+w])
		}
		g.rows++
	}
}

// csr returns the rows placed so far as sparse rows (zeros left out) and
// releases their segments; rows are counted, not kept, from then on.
func (s *rowSink) csr() *csrBuilder {
	b := &csrBuilder{}
	b.m.Ptr = []int64{0}
	for k := range s.segs {
		g := &s.segs[k]
		for r := range g.rows {
			if g.d == 0 {
				b.m.Ptr = append(b.m.Ptr, int64(len(b.m.Val)))
				continue
			}
			b.appendDense(g.x[r*g.d : (r+1)*g.d])
		}
		if g.mem != nil {
			freeSegment(g.mem)
		}
		g.mem, g.x = nil, nil
	}
	s.drop()
	return b
}

// appendRows appends dense rows of width s.d, with their weights w if the
// rows have weights.
func (s *rowSink) appendRows(x []float32, y, w []float64) {
	if s.weighted {
		s.w = append(s.w, w...)
	}
	for r := range y {
		g := s.room()
		copy(g.x[g.rows*s.d:(g.rows+1)*s.d], x[r*s.d:(r+1)*s.d])
		g.rows++
	}
	s.addLabels(y)
}

// dataset copies the rows into a Dataset of width d ≥ every row's and
// releases the segments.
func (s *rowSink) dataset(d int) *Dataset {
	x := make([]float32, s.n*d)
	i := 0
	for k := range s.segs {
		g := &s.segs[k]
		switch {
		case g.d == 0: // zeros
		case g.d == d:
			copy(x[i*d:], g.x[:g.rows*d])
		default:
			for r := range g.rows {
				copy(x[(i+r)*d:(i+r)*d+g.d], g.x[r*g.d:(r+1)*g.d])
			}
		}
		i += g.rows
		if g.mem != nil {
			freeSegment(g.mem)
		}
		g.mem, g.x = nil, nil
	}
	s.segs = nil
	return &Dataset{X: x, Y: s.labels(), W: s.w, N: s.n, D: d}
}

// labels copies the labels out and releases their segments.
func (s *rowSink) labels() []float64 {
	y := make([]float64, s.n)
	per := segBytes / 8
	for k, g := range s.ysegs {
		copy(y[k*per:], unsafe.Slice((*float64)(unsafe.Pointer(&g[0])), per)[:min(per, s.n-k*per)])
		freeSegment(g)
	}
	s.ysegs = nil
	return y
}
