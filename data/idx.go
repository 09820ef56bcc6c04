package data

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"slices"
)

// IDX magic numbers: two zero bytes, the element type (0x08 = unsigned byte)
// and the number of dimensions.
const (
	idxImagesMagic = 0x00000803
	idxLabelsMagic = 0x00000801
)

// readIDXHeader reads the magic number and the dimensions of an IDX file.
func readIDXHeader(r io.Reader, name string, magic uint32, ndim int) ([]uint32, error) {
	short := func(err error) error {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("data: %s: file too short for an IDX header (%d bytes)", name, 4+4*ndim)
		}
		return fmt.Errorf("data: %s: %w", name, err)
	}
	var buf [16]byte
	if _, err := io.ReadFull(r, buf[:4]); err != nil {
		return nil, short(err)
	}
	if got := binary.BigEndian.Uint32(buf[:4]); got != magic {
		what := map[uint32]string{idxImagesMagic: "images", idxLabelsMagic: "labels"}
		msg := fmt.Sprintf("data: %s: magic number 0x%08x, want 0x%08x (an IDX %s file)", name, got, magic, what[magic])
		if w, ok := what[got]; ok {
			msg += "; this is an IDX " + w + " file"
		}
		return nil, errors.New(msg)
	}
	h := buf[4 : 4+4*ndim]
	if _, err := io.ReadFull(r, h); err != nil {
		return nil, short(err)
	}
	dims := make([]uint32, ndim)
	for i := range dims {
		dims[i] = binary.BigEndian.Uint32(h[4*i:])
	}
	return dims, nil
}

// readExact reads exactly size bytes followed by the end of the stream. It
// allocates in proportion to the bytes actually present (at most twice), never
// to the size a header claims, so a hostile header cannot force a huge
// allocation.
//
// avail, when non-negative, is the number of bytes the stream is known to
// hold; if they cover size, the buffer is allocated once at its final size.
func readExact(r io.Reader, name string, size uint64, what string, avail int64) ([]byte, error) {
	const chunk = 64 << 10
	buf := make([]byte, 0, min(size, chunk))
	if avail >= 0 && uint64(avail) >= size {
		buf = make([]byte, 0, size)
	}
	for uint64(len(buf)) < size {
		if len(buf) == cap(buf) {
			// Double, but never past size.
			buf = slices.Grow(buf, int(min(size-uint64(len(buf)), uint64(len(buf)))))
		}
		end := min(uint64(cap(buf)), size)
		n, err := io.ReadFull(r, buf[len(buf):end])
		buf = buf[:len(buf)+n]
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, fmt.Errorf("data: %s: truncated: the header promises %d bytes of %s but only %d follow", name, size, what, len(buf))
			}
			return nil, fmt.Errorf("data: %s: %w", name, err)
		}
	}
	var one [1]byte
	switch n, err := io.ReadFull(r, one[:]); {
	case n > 0:
		return nil, fmt.Errorf("data: %s: trailing bytes after the %d bytes of %s the header promises", name, size, what)
	case err != nil && !errors.Is(err, io.EOF):
		return nil, fmt.Errorf("data: %s: %w", name, err)
	}
	return buf, nil
}

// ReadIDXImages reads an IDX file of unsigned-byte images (magic 0x00000803,
// dimensions n, rows, cols), gzip-compressed or not, and returns the n·rows·cols
// pixels in row-major order. The stream must end right after the pixels.
func ReadIDXImages(r io.Reader, name string) (pixels []uint8, n, rows, cols int, err error) {
	zr, gz, err := Uncompressed(r)
	if err != nil {
		return nil, 0, 0, 0, fmt.Errorf("data: %s: %w", name, err)
	}
	if g, ok := zr.(*gzipReader); ok {
		// A byte a pixel here, four as a float32 feature: the pixels get
		// a fifth of what a compressed file may take.
		g.name, g.limit, g.size = name, wholeLimit(sizeOf(r))/5, sizeOf(r)
	}
	dims, err := readIDXHeader(zr, name, idxImagesMagic, 3)
	if err != nil {
		return nil, 0, 0, 0, err
	}
	if dims[1] == 0 || dims[2] == 0 {
		return nil, 0, 0, 0, fmt.Errorf("data: %s: images of %d×%d pixels", name, dims[1], dims[2])
	}
	hi, size := bits.Mul64(uint64(dims[1]), uint64(dims[2]))
	hi2, size2 := bits.Mul64(size, uint64(dims[0]))
	if hi != 0 || hi2 != 0 || size2 > 1<<46 {
		return nil, 0, 0, 0, fmt.Errorf("data: %s: header claims %d images of %d×%d pixels, more than any real file holds", name, dims[0], dims[1], dims[2])
	}
	pixels, err = readExact(zr, name, size2, "pixels", remaining(r, gz, 16))
	if err == nil && gz {
		err = closeGzip(zr, name)
	}
	if err != nil {
		return nil, 0, 0, 0, err
	}
	return pixels, int(dims[0]), int(dims[1]), int(dims[2]), nil
}

// ReadIDXLabels reads an IDX file of unsigned-byte labels (magic 0x00000801,
// one dimension n), gzip-compressed or not. The stream must end right after
// the labels.
func ReadIDXLabels(r io.Reader, name string) ([]uint8, error) {
	zr, gz, err := Uncompressed(r)
	if err != nil {
		return nil, fmt.Errorf("data: %s: %w", name, err)
	}
	limitWhole(zr, name, sizeOf(r))
	dims, err := readIDXHeader(zr, name, idxLabelsMagic, 1)
	if err != nil {
		return nil, err
	}
	labels, err := readExact(zr, name, uint64(dims[0]), "labels", remaining(r, gz, 8))
	if err == nil && gz {
		err = closeGzip(zr, name)
	}
	if err != nil {
		return nil, err
	}
	return labels, nil
}

// remaining bounds how many bytes of an uncompressed IDX stream r can follow
// its header of headerLen bytes: the whole size of an open regular file or an
// in-memory reader less the header, and -1 (unknown) otherwise. It is an
// upper bound (the reader may not be at its start), so sizing a buffer by it
// still allocates no more than the data really there.
func remaining(r io.Reader, gz bool, headerLen int64) int64 {
	if size := sizeOf(r); !gz && size >= 0 {
		return size - headerLen
	}
	return -1
}

// sizeOf returns the size of an open regular file or an in-memory reader,
// and -1 (unknown) for any other reader.
func sizeOf(r io.Reader) int64 {
	switch r := r.(type) {
	case *os.File:
		fi, err := r.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return -1
		}
		return fi.Size()
	case interface{ Size() int64 }: // bytes.Reader, strings.Reader, io.SectionReader
		return r.Size()
	}
	return -1
}

func closeGzip(r io.Reader, name string) error {
	if err := r.(*gzipReader).Close(); err != nil {
		return fmt.Errorf("data: %s: gzip: %w", name, err)
	}
	return nil
}

// WriteIDXImages writes n images of rows×cols unsigned-byte pixels as an
// uncompressed IDX file. It panics when len(pixels) != n·rows·cols.
func WriteIDXImages(w io.Writer, pixels []uint8, n, rows, cols int) error {
	if n < 0 || rows < 0 || cols < 0 || len(pixels) != n*rows*cols ||
		uint64(n) > 1<<32-1 || uint64(rows) > 1<<32-1 || uint64(cols) > 1<<32-1 {
		panic(fmt.Sprintf("data: WriteIDXImages: %d pixels for %d images of %d×%d", len(pixels), n, rows, cols))
	}
	var h [16]byte
	binary.BigEndian.PutUint32(h[0:], idxImagesMagic)
	binary.BigEndian.PutUint32(h[4:], uint32(n))
	binary.BigEndian.PutUint32(h[8:], uint32(rows))
	binary.BigEndian.PutUint32(h[12:], uint32(cols))
	return writeIDX(w, h[:], pixels)
}

// WriteIDXLabels writes unsigned-byte labels as an uncompressed IDX file.
func WriteIDXLabels(w io.Writer, labels []uint8) error {
	if uint64(len(labels)) > 1<<32-1 {
		panic(fmt.Sprintf("data: WriteIDXLabels: %d labels do not fit an IDX header", len(labels)))
	}
	var h [8]byte
	binary.BigEndian.PutUint32(h[0:], idxLabelsMagic)
	binary.BigEndian.PutUint32(h[4:], uint32(len(labels)))
	return writeIDX(w, h[:], labels)
}

func writeIDX(w io.Writer, header, body []byte) error {
	if _, err := w.Write(header); err != nil {
		return fmt.Errorf("data: writing IDX: %w", err)
	}
	if _, err := w.Write(body); err != nil {
		return fmt.Errorf("data: writing IDX: %w", err)
	}
	return nil
}

// LoadMNIST reads an MNIST images file and its labels file (IDX, gzip or
// not) into a data set with pixels scaled to [0, 1] (value/255), labels the
// digits 0–9 as float64, and Shape {1, rows, cols} ({1, 28, 28} for MNIST).
// digits keeps only images of those digits, in file order; nil keeps all.
func LoadMNIST(imagesPath, labelsPath string, digits []int) (*Dataset, error) {
	for _, dg := range digits {
		if dg < 0 || dg > 9 {
			return nil, fmt.Errorf("data: digit %d is not in 0–9", dg)
		}
	}
	fi, err := os.Open(imagesPath)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	defer fi.Close()
	pixels, n, rows, cols, err := ReadIDXImages(fi, imagesPath)
	if err != nil {
		return nil, err
	}
	fl, err := os.Open(labelsPath)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	defer fl.Close()
	labels, err := ReadIDXLabels(fl, labelsPath)
	if err != nil {
		return nil, err
	}
	return mnistDataset(pixels, n, rows, cols, labels, digits, imagesPath, labelsPath)
}

// mnistDataset builds the data set of LoadMNIST from decoded IDX contents.
func mnistDataset(pixels []uint8, n, rows, cols int, labels []uint8, digits []int, imagesName, labelsName string) (*Dataset, error) {
	if len(labels) != n {
		return nil, fmt.Errorf("data: %s has %d images but %s has %d labels", imagesName, n, labelsName, len(labels))
	}
	var keep [256]bool
	for i, l := range labels {
		if l > 9 {
			return nil, fmt.Errorf("data: %s: label %d of image %d is not a digit", labelsName, l, i)
		}
		keep[l] = digits == nil
	}
	for _, dg := range digits {
		keep[dg] = true
	}
	m := 0
	for _, l := range labels {
		if keep[l] {
			m++
		}
	}
	if m == 0 {
		return nil, fmt.Errorf("data: %s: no images of the digits %v", labelsName, digits)
	}
	d := rows * cols
	ds := &Dataset{X: make([]float32, m*d), Y: make([]float64, m), N: m, D: d, Shape: []int{1, rows, cols}}
	k := 0
	for i, l := range labels {
		if !keep[l] {
			continue
		}
		row := ds.X[k*d : (k+1)*d]
		for j, p := range pixels[i*d : (i+1)*d] {
			row[j] = float32(p) / 255
		}
		ds.Y[k] = float64(l)
		k++
	}
	return ds, nil
}
