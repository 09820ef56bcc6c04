package data

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"strings"
	"unsafe"

	"github.com/nsvm-go/nsvm/internal/countio"
)

// npyArray is an opened .npy array: its header, and where its data lie in
// an uncompressed file (off ≥ 0), or a reader of the (possibly
// decompressed) stream positioned at the data.
type npyArray struct {
	h    *npyHeader
	f    *os.File // the file holding the data uncompressed at off, or nil
	off  int64
	r    io.Reader // the data as a stream, when f is nil
	name string
	// limit, when > 0, is the most a compressed .npz entry (whose size
	// the archive's directory declares) may expand to when read whole:
	// wholeLimit of the archive's size.
	limit int64
}

// openNPYFile opens a .npy file (gzip-compressed too) at its data.
func openNPYFile(path string) (*npyArray, io.Closer, error) {
	r, f, gz, err := openFile(path)
	if err != nil {
		return nil, nil, err
	}
	h, err := readNPYHeader(r, path)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	a := &npyArray{h: h, name: path, r: r}
	if !gz {
		st, err := f.Stat()
		if err == nil && st.Mode().IsRegular() {
			if st.Size() < h.dataOff+h.npyBytes() {
				f.Close()
				return nil, nil, npyErr(path, "file truncated: %d data bytes of %d present", max(0, st.Size()-h.dataOff), h.npyBytes())
			}
			a.f, a.off, a.r = f, h.dataOff, nil
		}
	}
	return a, f, nil
}

// npzArrays returns the arrays of an opened .npz archive by name (the
// entry's name without ".npy"), and the entries' names in order.
func npzArrays(zr *zip.Reader) (map[string]*zip.File, []string) {
	arr := make(map[string]*zip.File, len(zr.File))
	var names []string
	for _, e := range zr.File {
		arr[strings.TrimSuffix(e.Name, ".npy")] = e
		names = append(names, e.Name)
	}
	return arr, names
}

// npzArray returns the first of the arrays names that arr holds, or nil.
func npzArray(arr map[string]*zip.File, names ...string) *zip.File {
	for _, n := range names {
		if e := arr[n]; e != nil {
			return e
		}
	}
	return nil
}

// npzEntries finds X.npy and y.npy in an opened .npz archive.
func npzEntries(zr *zip.Reader, path string) (xf, yf *zip.File, err error) {
	arr, names := npzArrays(zr)
	xf, yf = npzArray(arr, "X", "x"), npzArray(arr, "y", "Y")
	switch {
	case xf == nil && arr["format"] != nil:
		return nil, nil, fmt.Errorf("data: %s: a SciPy sparse matrix (scipy.sparse.save_npz) does not stream; open it whole (Open), its rows kept sparse", path)
	case xf == nil || yf == nil:
		return nil, nil, npyErr(path, "a .npz needs arrays X and y (X.npy and y.npy), or a SciPy sparse matrix (scipy.sparse.save_npz); it holds %s", strings.Join(names, ", "))
	}
	return xf, yf, nil
}

// openNPZEntry opens one array of a .npz: at its data in the file when it
// is stored uncompressed, else as a decompressing stream.
func openNPZEntry(f *os.File, e *zip.File, path string) (*npyArray, io.Closer, error) {
	return openNPZArray(f, e, path, false)
}

// openNPZArray is openNPZEntry that opens arrays of text too when text is
// true.
func openNPZArray(f *os.File, e *zip.File, path string, text bool) (*npyArray, io.Closer, error) {
	name := path + ":" + e.Name
	rc, err := e.Open()
	if err != nil {
		return nil, nil, fmt.Errorf("data: %s: %w", name, err)
	}
	br := bufio.NewReaderSize(rc, 64<<10)
	var h *npyHeader
	if text {
		h, err = readNPYHeaderText(br, name)
	} else {
		h, err = readNPYHeader(br, name)
	}
	if err != nil {
		rc.Close()
		return nil, nil, err
	}
	a := &npyArray{h: h, name: name, r: br}
	if uint64(h.dataOff)+uint64(h.npyBytes()) > e.UncompressedSize64 {
		rc.Close()
		return nil, nil, npyErr(name, "array truncated: %d data bytes of %d present", max(0, int64(e.UncompressedSize64)-h.dataOff), h.npyBytes())
	}
	if e.Method == zip.Store {
		if off, err := e.DataOffset(); err == nil {
			rc.Close()
			a.f, a.off, a.r = f, off+h.dataOff, nil
			return a, nopCloser{}, nil
		}
	}
	a.limit = wholeLimit(sizeOf(f))
	return a, rc, nil
}

type nopCloser struct{}

func (nopCloser) Close() error { return nil }

// stream returns a reader of the array's data.
func (a *npyArray) stream() io.Reader {
	if a.f != nil {
		return bufio.NewReaderSize(io.NewSectionReader(a.f, a.off, a.h.npyBytes()), 1<<20)
	}
	return a.r
}

// features reads the array as X: mapped when it is little-endian float32
// data in a file at an aligned offset, read and converted otherwise.
func (a *npyArray) features() (x []float32, mapping []byte, err error) {
	h := a.h
	if a.f != nil && h.descr() == "f4" && littleEndian && a.off%4 == 0 && h.numElems > 0 {
		region, b, err := mapFile(a.f, a.off, h.npyBytes())
		if err == nil {
			return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), h.numElems), region, nil
		}
	}
	present, err := a.present()
	if err != nil {
		return nil, nil, err
	}
	x, err = readNPYData[float32](a.stream(), h, a.name, present)
	return x, nil, err
}

// present reports whether the array's data are known to be there (in an
// uncompressed file, or declared by a compressed entry within its limit),
// so that reading them allocates once; a compressed entry beyond its limit
// is a *TooLargeError.
func (a *npyArray) present() (bool, error) {
	switch {
	case a.f != nil:
		return true, nil
	case a.limit <= 0:
		return false, nil
	case a.h.npyBytes() > a.limit:
		return false, fmt.Errorf("data: %w", &TooLargeError{Name: a.name, Limit: a.limit, Compressed: -1})
	}
	return true, nil
}

func (a *npyArray) labels() ([]float64, error) {
	if len(a.h.shape) != 1 {
		return nil, npyErr(a.name, "labels of shape %v; want a one-dimensional array", a.h.shape)
	}
	present, err := a.present()
	if err != nil {
		return nil, err
	}
	return readNPYData[float64](a.stream(), a.h, a.name, present)
}

// dataset reads X and y and checks them.
func npyArraysDataset(xa, ya *npyArray) (*Dataset, error) {
	if len(xa.h.shape) < 2 {
		return nil, npyErr(xa.name, "X of shape %v; want rows × features (two or more dimensions)", xa.h.shape)
	}
	y, err := ya.labels()
	if err != nil {
		return nil, err
	}
	x, mapping, err := xa.features()
	if err != nil {
		return nil, err
	}
	ds, err := npyDataset(x, xa.h.shape, y, xa.name, ya.name)
	if err != nil {
		if mapping != nil {
			unmap(mapping)
		}
		return nil, err
	}
	ds.mapping = mapping
	return ds, nil
}

// OpenNPY reads a data set from two .npy files: the features X (rows ×
// features, or rows × a shape kept as Dataset.Shape, such as N×1×28×28) and
// the labels y (one-dimensional, as many as the rows). X may be float32,
// float64, int8/16/32/64, uint8/16/32/64 or bool, converted to float32; y any of
// these, converted to float64. Arrays must be little-endian and in C order;
// files may be gzip-compressed. An uncompressed float32 X is memory-mapped
// (see Dataset). NaN or infinite values are errors.
func OpenNPY(xPath, yPath string) (*Dataset, error) {
	xa, xc, err := openNPYFile(xPath)
	if err != nil {
		return nil, err
	}
	defer xc.Close()
	ya, yc, err := openNPYFile(yPath)
	if err != nil {
		return nil, err
	}
	defer yc.Close()
	return npyArraysDataset(xa, ya)
}

// OpenNPZ reads a data set from a .npz archive (numpy.savez or
// numpy.savez_compressed) that holds either
//
//   - the arrays X and y, read as OpenNPY reads them; a float32 X stored
//     uncompressed (as WriteNPZ writes it) is memory-mapped; or
//   - a SciPy sparse matrix as scipy.sparse.save_npz writes it (csr, csc
//     or coo; see WriteSparseNPZ) with its labels in an array y added to
//     the archive: its rows are kept sparse (Dataset.Sparse) when they are
//     wide and sparse (SparseLayout), dense otherwise.
//
// An array w, if present, holds the sample weights (Dataset.W). Open reads
// a .npz with options: the layout of a sparse matrix's rows, and the .npy
// of the labels of a sparse matrix saved without them (OpenOptions.Labels).
func OpenNPZ(path string) (*Dataset, error) { return openNPZ(path, OpenOptions{}) }

// openNPZ is OpenNPZ with the options of Open: Layout and Labels.
func openNPZ(path string, opt OpenOptions) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	zr, err := zip.NewReader(f, st.Size())
	if err != nil {
		return nil, npyErr(path, "not a .npz (zip) archive: %v", err)
	}
	arr, names := npzArrays(zr)
	xf, yf := npzArray(arr, "X", "x"), npzArray(arr, "y", "Y")
	switch {
	case xf == nil && arr["format"] != nil:
		return readSparseNPZ(f, arr, path, opt)
	case xf == nil || yf == nil && opt.Labels == "":
		return nil, npyErr(path, "a .npz needs arrays X and y (X.npy and y.npy), or a SciPy sparse matrix (scipy.sparse.save_npz) and its labels; it holds %s", strings.Join(names, ", "))
	case yf != nil && opt.Labels != "":
		return nil, fmt.Errorf("data: %s holds its labels y; a labels file (%s) is for a .npy of X or a SciPy sparse matrix saved without them", path, opt.Labels)
	}
	xa, xc, err := openNPZEntry(f, xf, path)
	if err != nil {
		return nil, err
	}
	defer xc.Close()
	ya, yc, err := npzLabels(f, yf, path, opt.Labels)
	if err != nil {
		return nil, err
	}
	defer yc.Close()
	ds, err := npyArraysDataset(xa, ya)
	if err != nil {
		return nil, err
	}
	if ds.W, err = npzWeights(f, arr["w"], path, ds.N); err != nil {
		ds.Close()
		return nil, err
	}
	return ds, nil
}

// npzLabels opens the labels of a .npz: its array yf, or else the .npy at
// labelsPath.
func npzLabels(f *os.File, yf *zip.File, path, labelsPath string) (*npyArray, io.Closer, error) {
	if yf != nil {
		return openNPZEntry(f, yf, path)
	}
	return openNPYFile(labelsPath)
}

// npzWeights reads the weights of n rows from the array wf of a .npz (nil:
// no weights).
func npzWeights(f *os.File, wf *zip.File, path string, n int) ([]float64, error) {
	if wf == nil {
		return nil, nil
	}
	a, c, err := openNPZEntry(f, wf, path)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if len(a.h.shape) != 1 {
		return nil, npyErr(a.name, "weights of shape %v; want a one-dimensional array", a.h.shape)
	}
	w, err := a.labels()
	if err != nil {
		return nil, err
	}
	if len(w) != n {
		return nil, fmt.Errorf("data: %s has %d weights for %d rows", a.name, len(w), n)
	}
	for i, v := range w {
		if !(v >= 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("data: %s: weight %d is %v; weights must be finite numbers ≥ 0", a.name, i, v)
		}
	}
	return w, nil
}

// WriteNPZ writes d as a .npz archive of X.npy (float32, shape (N, D) or
// (N, Shape...)) and y.npy (float64), and w.npy (float64) if d has
// weights, all stored uncompressed with X's data aligned to 64 bytes in
// the file, so that OpenNPZ can memory-map it; numpy.load reads it as any
// .npz. It writes dense rows: for sparse rows it returns an error wrapping
// ErrSparse (WriteSparseNPZ writes them as SciPy does; Save chooses).
func WriteNPZ(w io.Writer, d *Dataset) error {
	if err := denseOnly(d, "WriteNPZ writes dense rows"); err != nil {
		return err
	}
	if d.Y == nil {
		return fmt.Errorf("%w: a .npz holds y", ErrNoLabels)
	}
	checkLens(d)
	cw := &countio.Writer{W: w}
	zw := zip.NewWriter(cw)
	xhdr := npyHeaderBytes("<f4", append([]int{d.N}, d.InputShape()...))
	yhdr := npyHeaderBytes("<f8", []int{d.N})
	type entry struct {
		name string
		hdr  []byte
		body func(io.Writer) error
		size int64
	}
	entries := []entry{
		{"X.npy", xhdr, func(w io.Writer) error { return writeNPYValues(w, d.X) }, 4 * int64(len(d.X))},
		{"y.npy", yhdr, func(w io.Writer) error { return writeNPYValues(w, d.Y) }, 8 * int64(len(d.Y))},
	}
	if d.W != nil {
		if len(d.W) != d.N {
			panic(fmt.Sprintf("data: inconsistent data set: N=%d, len(W)=%d", d.N, len(d.W)))
		}
		entries = append(entries, entry{"w.npy", yhdr, func(w io.Writer) error { return writeNPYValues(w, d.W) }, 8 * int64(len(d.W))})
	}
	for _, e := range entries {
		crc := crc32.NewIEEE()
		crc.Write(e.hdr)
		if err := e.body(crc); err != nil {
			return err
		}
		if err := zw.Flush(); err != nil {
			return fmt.Errorf("data: writing .npz: %w", err)
		}
		size := uint64(int64(len(e.hdr)) + e.size)
		fh := &zip.FileHeader{
			Name:               e.name,
			Method:             zip.Store,
			CRC32:              crc.Sum32(),
			CompressedSize64:   size,
			UncompressedSize64: size,
		}
		fh.SetMode(0o644)
		// An extra field of padding puts the data at a multiple of 64
		// bytes: the local header is 30 bytes and the name, then the
		// extra fields (archive/zip puts a zip64 one only in the central
		// directory).
		fixed := cw.N + 30 + int64(len(e.name))
		pad := (64 - (fixed+4)%64) % 64
		extra := binary.LittleEndian.AppendUint16(nil, 0x6e70) // "np", a private id
		extra = binary.LittleEndian.AppendUint16(extra, uint16(pad))
		fh.Extra = append(extra, make([]byte, pad)...)
		ew, err := zw.CreateRaw(fh)
		if err != nil {
			return fmt.Errorf("data: writing .npz: %w", err)
		}
		if _, err := ew.Write(e.hdr); err != nil {
			return fmt.Errorf("data: writing .npz: %w", err)
		}
		if err := e.body(ew); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("data: writing .npz: %w", err)
	}
	return nil
}

// denseOnly returns the error of a writer of dense rows (what says so)
// given sparse ones.
func denseOnly(d *Dataset, what string) error {
	if d.Sparse == nil {
		return nil
	}
	return fmt.Errorf("%w: %s; write these %d×%d as a SciPy sparse .npz (WriteSparseNPZ, or Save to a .npz), or Densify them first", ErrSparse, what, d.N, d.D)
}

// isZip reports whether b starts as a zip archive does.
func isZip(b []byte) bool { return bytes.HasPrefix(b, []byte("PK\x03\x04")) }
