package data

import (
	"archive/zip"
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The files in testdata/npy were written by NumPy 1.24 (numpy.save,
// numpy.savez, numpy.savez_compressed) from
//
//	X = [[1.5, -2, 0], [3, 4.25, -0.125]] (abs(X) for unsigned dtypes), y = [1, -1]
var (
	npyX  = []float32{1.5, -2, 0, 3, 4.25, -0.125}
	npyY  = []float64{1, -1}
	npyTD = filepath.Join("testdata", "npy")
)

// TestNPYDtypes: every supported dtype NumPy writes reads as its values in float32.
func TestNPYDtypes(t *testing.T) {
	for _, dt := range []string{"f4", "f8", "i1", "i2", "i4", "i8", "u1", "u2", "u4"} {
		t.Run(dt, func(t *testing.T) {
			ds, err := OpenNPY(filepath.Join(npyTD, "x_"+dt+".npy"), filepath.Join(npyTD, "y_i8.npy"))
			if err != nil {
				t.Fatal(err)
			}
			defer ds.Close()
			want := slices.Clone(npyX)
			for i, v := range want {
				switch {
				case dt[0] == 'u':
					want[i] = float32(int(max(v, -v)))
				case dt[0] == 'i':
					want[i] = float32(int(v))
				}
			}
			if ds.N != 2 || ds.D != 3 || ds.Shape != nil || !slices.Equal(ds.X, want) || !slices.Equal(ds.Y, npyY) {
				t.Fatalf("%d×%d %v %v %v, want 2×3 %v %v", ds.N, ds.D, ds.Shape, ds.X, ds.Y, want, npyY)
			}
			if ds.Mapped() != (dt == "f4") {
				t.Errorf("Mapped() = %v", ds.Mapped())
			}
		})
	}
}

// TestNPYGolden: WriteNPY writes NumPy's bytes for the same array.
func TestNPYGolden(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(npyTD, "x_f4.npy"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteNPY(&buf, &Dataset{X: npyX, Y: npyY, N: 2, D: 3}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("WriteNPY:\n%q\nnumpy.save:\n%q", buf.Bytes(), want)
	}
}

func TestNPZNumPy(t *testing.T) {
	for _, name := range []string{"savez.npz", "compressed.npz"} {
		ds, err := Open(filepath.Join(npyTD, name), OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if ds.N != 2 || ds.D != 3 || !slices.Equal(ds.X, npyX) || !slices.Equal(ds.Y, npyY) {
			t.Fatalf("%s: %d×%d %v %v", name, ds.N, ds.D, ds.X, ds.Y)
		}
		if ds.Mapped() {
			t.Errorf("%s: mapped, but NumPy does not align the data", name)
		}
		ds.Close()
	}
}

// TestNPZRoundTrip: WriteNPZ and WriteNPY/WriteNPYLabels read back the
// same data, images keep their shape, and a written .npz is mapped.
func TestNPZRoundTrip(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 6))
	ring := ringnorm(1000, rng)
	img := &Dataset{N: 3, D: 2 * 4 * 4, Shape: []int{2, 4, 4}, Y: []float64{0, 7, 3}}
	img.X = make([]float32, img.N*img.D)
	for i := range img.X {
		img.X[i] = float32(i%251) / 255
	}
	for _, want := range []*Dataset{ring, img} {
		npz := filepath.Join(dir, "d.npz")
		writeFile(t, npz, func(b *bytes.Buffer) error { return WriteNPZ(b, want) })
		xp, yp := filepath.Join(dir, "X.npy"), filepath.Join(dir, "y.npy")
		writeFile(t, xp, func(b *bytes.Buffer) error { return WriteNPY(b, want) })
		writeFile(t, yp, func(b *bytes.Buffer) error { return WriteNPYLabels(b, want.Y) })
		for _, open := range []func() (*Dataset, error){
			func() (*Dataset, error) { return Open(npz, OpenOptions{}) },
			func() (*Dataset, error) { return Open(xp, OpenOptions{Labels: yp}) },
		} {
			got, err := open()
			if err != nil {
				t.Fatal(err)
			}
			if !sameData(got, want) || !slices.Equal(got.Shape, want.Shape) {
				t.Fatalf("%d×%d %v, want %d×%d %v", got.N, got.D, got.Shape, want.N, want.D, want.Shape)
			}
			if !got.Mapped() {
				t.Error("not mapped")
			}
			got.X[0] = 42 // copy-on-write: the file keeps its value
			if err := got.Close(); err != nil || got.X != nil {
				t.Fatalf("Close: %v, X %v", err, got.X == nil)
			}
			again, err := open()
			if err != nil || again.X[0] != want.X[0] {
				t.Fatalf("after a write to the mapping: %v, X[0] = %v, want %v", err, again.X[0], want.X[0])
			}
			again.Close()
		}
	}
}

func writeFile(t *testing.T, path string, write func(*bytes.Buffer) error) {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestNPYErrors: clear errors for what cannot be read.
func TestNPYErrors(t *testing.T) {
	dir := t.TempDir()
	full, _ := os.ReadFile(filepath.Join(npyTD, "x_f4.npy"))
	trunc := filepath.Join(dir, "trunc.npy")
	os.WriteFile(trunc, full[:len(full)-3], 0o644)
	hdrOnly := filepath.Join(dir, "hdr.npy")
	os.WriteFile(hdrOnly, full[:40], 0o644)
	magic := filepath.Join(dir, "magic.npy")
	os.WriteFile(magic, append([]byte("\x93NUMPX"), full[6:]...), 0o644)
	noY := filepath.Join(dir, "noy.npz")
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	w, _ := zw.Create("X.npy")
	w.Write(full)
	zw.Close()
	os.WriteFile(noY, zb.Bytes(), 0o644)
	y := filepath.Join(npyTD, "y_i8.npy")
	for _, tc := range []struct {
		name, x, y, want string
	}{
		{"magic", magic, y, `magic "\x93NUMPX"`},
		{"fortran", filepath.Join(npyTD, "fortran.npy"), y, "Fortran"},
		{"big-endian", filepath.Join(npyTD, "bigendian.npy"), y, "big-endian"},
		{"dtype", filepath.Join(npyTD, "complex.npy"), y, `dtype "<c8"`},
		{"truncated data", trunc, y, "truncated: 21 data bytes of 24"},
		{"truncated header", hdrOnly, y, "truncated in the header"},
		{"NaN", filepath.Join(npyTD, "nan.npy"), y, "row 0, feature 1 is NaN"},
		{"labels 2-D", filepath.Join(npyTD, "x_f4.npy"), filepath.Join(npyTD, "y2d.npy"), "want a one-dimensional array"},
		{"X 1-D", y, y, "want rows × features"},
		{"count", filepath.Join(npyTD, "images.npy"), filepath.Join(npyTD, "x_f4.npy"), "want a one-dimensional"},
		{"no labels", filepath.Join(npyTD, "x_f4.npy"), "", "give the .npy file of the labels"},
		{"npz without y", noY, "", "needs arrays X and y"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Open(tc.x, OpenOptions{Labels: tc.y})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if tc.name != "no labels" && tc.name != "NaN" && !errors.Is(err, ErrNPY) {
				t.Errorf("error %v does not wrap ErrNPY", err)
			}
		})
	}
}

// TestNPYImages: N×1×2×3 keeps the shape of one image.
func TestNPYImages(t *testing.T) {
	yp := filepath.Join(t.TempDir(), "y.npy")
	writeFile(t, yp, func(b *bytes.Buffer) error { return WriteNPYLabels(b, []float64{0, 1}) })
	ds, err := Open(filepath.Join(npyTD, "images.npy"), OpenOptions{Labels: yp})
	if err != nil {
		t.Fatal(err)
	}
	if ds.N != 2 || ds.D != 6 || !slices.Equal(ds.Shape, []int{1, 2, 3}) || ds.X[11] != 11 {
		t.Fatalf("%d×%d shape %v X %v", ds.N, ds.D, ds.Shape, ds.X)
	}
	if err := ds.Validate(); err != nil {
		t.Fatal(err)
	}
}

// FuzzReadNPY: whatever the bytes, ReadNPY returns an error or an array
// whose size its shape gives, which WriteNPY writes back readably.
func FuzzReadNPY(f *testing.F) {
	for _, name := range []string{"x_f4.npy", "x_i2.npy", "images.npy", "fortran.npy"} {
		b, err := os.ReadFile(filepath.Join(npyTD, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("\\x93NUMPY\\x01\\x00\\x40\\x00{'descr': '<f8', 'fortran_order': False, 'shape': (100000000000,), }"))
	f.Fuzz(func(t *testing.T, b []byte) {
		x, shape, err := ReadNPY(bytes.NewReader(b), "fuzz.npy")
		if err != nil {
			shortError(t, err)
			return
		}
		n := 1
		for _, s := range shape {
			n *= s
		}
		if len(x) != n {
			t.Fatalf("%d values for shape %v", len(x), shape)
		}
		if len(shape) < 2 || shape[0] == 0 {
			return
		}
		ds := &Dataset{X: x, N: shape[0], D: n / shape[0], Y: make([]float64, shape[0])}
		if len(shape) > 2 {
			ds.Shape = shape[1:]
		}
		var buf bytes.Buffer
		if err := WriteNPY(&buf, ds); err != nil {
			t.Fatal(err)
		}
		back, bshape, err := ReadNPY(&buf, "back.npy")
		if err != nil || !slices.Equal(bshape, shape) || len(back) != len(x) {
			t.Fatalf("written back: %v, shape %v, want %v", err, bshape, shape)
		}
	})
}
