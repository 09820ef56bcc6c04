package data

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"os"
)

// npyStream reads the X and y arrays of a .npy pair or a .npz in blocks of
// rows.
type npyStream struct {
	open   func() (x, y *npyArray, c []io.Closer, err error)
	x, y   *npyArray
	xr, yr io.Reader
	c      []io.Closer
	n, d   int
	shape  []int
	row    int
	buf    []byte
}

// openNPYStream opens path (a .npy of X, labels in opt.Labels, or a .npz)
// for streaming.
func openNPYStream(path, format string, opt OpenOptions) (*npyStream, error) {
	s := &npyStream{}
	switch format {
	case "npy":
		if opt.Labels == "" {
			return nil, fmt.Errorf("data: %s: a .npy file holds the features X only; give the .npy file of the labels y (OpenOptions.Labels, --labels), or use a .npz holding X and y", path)
		}
		s.open = func() (*npyArray, *npyArray, []io.Closer, error) {
			xa, xc, err := openNPYFile(path)
			if err != nil {
				return nil, nil, nil, err
			}
			ya, yc, err := openNPYFile(opt.Labels)
			if err != nil {
				xc.Close()
				return nil, nil, nil, err
			}
			return xa, ya, []io.Closer{xc, yc}, nil
		}
	case "npz":
		s.open = func() (*npyArray, *npyArray, []io.Closer, error) {
			f, err := os.Open(path)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("data: %w", err)
			}
			cs := []io.Closer{f}
			fail := func(err error) (*npyArray, *npyArray, []io.Closer, error) {
				closeAll(cs)
				return nil, nil, nil, err
			}
			st, err := f.Stat()
			if err != nil {
				return fail(fmt.Errorf("data: %w", err))
			}
			zr, err := zip.NewReader(f, st.Size())
			if err != nil {
				return fail(npyErr(path, "not a .npz (zip) archive: %v", err))
			}
			xf, yf, err := npzEntries(zr, path)
			if err != nil {
				return fail(err)
			}
			xa, xc, err := openNPZEntry(f, xf, path)
			if err != nil {
				return fail(err)
			}
			cs = append(cs, xc)
			ya, yc, err := openNPZEntry(f, yf, path)
			if err != nil {
				return fail(err)
			}
			return xa, ya, append(cs, yc), nil
		}
	}
	if err := s.rewind(); err != nil {
		return nil, err
	}
	h := s.x.h
	if len(h.shape) < 2 {
		s.close()
		return nil, npyErr(s.x.name, "X of shape %v; want rows × features (two or more dimensions)", h.shape)
	}
	if len(s.y.h.shape) != 1 {
		s.close()
		return nil, npyErr(s.y.name, "labels of shape %v; want a one-dimensional array", s.y.h.shape)
	}
	s.n, s.d = h.shape[0], 1
	for _, v := range h.shape[1:] {
		s.d *= v
	}
	if len(h.shape) > 2 {
		s.shape = append([]int(nil), h.shape[1:]...)
	}
	switch {
	case s.d == 0:
		s.close()
		return nil, npyErr(s.x.name, "X of shape %v has no features", h.shape)
	case s.y.h.shape[0] != s.n:
		s.close()
		return nil, fmt.Errorf("data: %s has %d labels for the %d rows of %s", s.y.name, s.y.h.shape[0], s.n, s.x.name)
	case s.n == 0:
		s.close()
		return nil, fmt.Errorf("data: %s: no data rows", s.x.name)
	}
	return s, nil
}

func closeAll(cs []io.Closer) {
	for _, c := range cs {
		c.Close()
	}
}

func (s *npyStream) rewind() error {
	s.close()
	x, y, c, err := s.open()
	if err != nil {
		return err
	}
	s.x, s.y, s.c, s.row = x, y, c, 0
	s.xr, s.yr = x.stream(), y.stream()
	return nil
}

func (s *npyStream) close() error {
	var err error
	for _, c := range s.c {
		if e := c.Close(); e != nil && err == nil {
			err = e
		}
	}
	s.c, s.xr, s.yr = nil, nil, nil
	return err
}

// next fills up to len(y) rows, as Stream.Next.
func (s *npyStream) next(x []float32, y []float64) (int, error) {
	if s.xr == nil {
		return 0, fmt.Errorf("data: %s: stream closed", s.x.name)
	}
	k := min(len(y), s.n-s.row)
	if k == 0 {
		return 0, io.EOF
	}
	read := func(a *npyArray, r io.Reader, elems int) ([]byte, error) {
		nb := elems * a.h.size
		if cap(s.buf) < nb {
			s.buf = make([]byte, nb)
		}
		b := s.buf[:nb]
		if _, err := io.ReadFull(r, b); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, npyErr(a.name, "file truncated at row %d", s.row)
			}
			return nil, fmt.Errorf("data: %s: %w", a.name, err)
		}
		return b, nil
	}
	b, err := read(s.y, s.yr, k)
	if err != nil {
		return 0, err
	}
	decodeTo(y[:k], b, s.y.h.kind, s.y.h.size)
	if b, err = read(s.x, s.xr, k*s.d); err != nil {
		return 0, err
	}
	decodeTo(x[:k*s.d], b, s.x.h.kind, s.x.h.size)
	blk := &Dataset{X: x[:k*s.d], Y: y[:k], N: k, D: s.d}
	if err := checkFinite(blk, s.x.name, s.y.name, s.row); err != nil {
		return 0, err
	}
	s.row += k
	return k, nil
}
