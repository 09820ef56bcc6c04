package data

import (
	"bytes"
	"compress/gzip"
	"io"
	"testing"
)

// fuzzMaxValues bounds the dense size in FuzzReadLIBSVM so that a large
// feature index costs an error, not gigabytes.
const fuzzMaxValues = 1 << 20

func FuzzReadLIBSVM(f *testing.F) {
	f.Add([]byte("+1 1:0.5 3:-2\n-1 2:1e-3 # c\n"), uint8(0))
	f.Add([]byte("3 4:1\n\n0.25\n"), uint8(6))
	f.Add([]byte("1 0:1\n"), uint8(0))
	f.Fuzz(func(t *testing.T, in []byte, dim uint8) {
		d, err := readLIBSVM(bytes.NewReader(in), "fuzz", int(dim), fuzzMaxValues, LayoutDense)
		if err != nil {
			shortError(t, err)
			return
		}
		if err := d.ValidateInputs(); err != nil {
			t.Fatalf("read data does not validate: %v", err)
		}
		if dim != 0 && d.D != int(dim) {
			t.Fatalf("D = %d, want the forced %d", d.D, dim)
		}
		var buf bytes.Buffer
		if err := WriteLIBSVM(&buf, d); err != nil {
			t.Fatal(err)
		}
		back, err := readLIBSVM(&buf, "rt", d.D, fuzzMaxValues, LayoutDense)
		if err != nil {
			t.Fatalf("written data does not read back: %v\n%s", err, buf.Bytes())
		}
		equalData(t, back, d)
	})
}

func FuzzReadCSV(f *testing.F) {
	f.Add([]byte("a,b,Class\n1,2,1\n3, 4 ,2\n"), int8(-1), uint8(0), uint8(0))
	f.Add([]byte("1;2\r\n\"3\";4\r\n"), int8(0), uint8(2), uint8(1))
	f.Add([]byte("1\t2\t3\n4\t5\t6\n"), int8(1), uint8(1), uint8(2))
	f.Fuzz(func(t *testing.T, in []byte, labelCol int8, header, comma uint8) {
		opt := CSVOptions{
			LabelCol: int(labelCol),
			Header:   HeaderMode(header % 3),
			Comma:    []rune{0, ';', '\t', ' ', '|'}[int(comma)%5],
		}
		d, err := ReadCSV(bytes.NewReader(in), "fuzz.csv", opt)
		if err != nil {
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("read data does not validate: %v", err)
		}
		for _, h := range []bool{false, true} {
			if !h && d.LabelNames != nil {
				continue // ambiguous without a header (see WriteCSV)
			}
			var buf bytes.Buffer
			if err := WriteCSV(&buf, d, h); err != nil {
				t.Fatal(err)
			}
			opt := CSVOptions{}
			if !h {
				opt.LabelCol = LabelFirst
			}
			back, err := ReadCSV(&buf, "rt.csv", opt)
			if err != nil {
				t.Fatalf("written data does not read back: %v\n%s", err, buf.Bytes())
			}
			equalData(t, back, d)
		}
	})
}

func FuzzReadIDX(f *testing.F) {
	f.Add([]byte{0, 0, 8, 3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2, 0, 255, 7, 9},
		[]byte{0, 0, 8, 1, 0, 0, 0, 2, 1, 0})
	f.Add([]byte{0, 0, 8, 3, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 28, 0, 0, 0, 28},
		[]byte{0, 0, 8, 1, 0xff, 0xff, 0xff, 0xff})
	f.Add(gzipBytes([]byte{0, 0, 8, 3, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 42}),
		gzipBytes([]byte{0, 0, 8, 1, 0, 0, 0, 1, 3}))
	f.Fuzz(func(t *testing.T, images, labels []byte) {
		pixels, n, rows, cols, errI := ReadIDXImages(bytes.NewReader(images), "img")
		if errI == nil {
			if len(pixels) != n*rows*cols {
				t.Fatalf("%d pixels for %d×%d×%d", len(pixels), n, rows, cols)
			}
			var buf bytes.Buffer
			if err := WriteIDXImages(&buf, pixels, n, rows, cols); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), plain(t, images)) {
				t.Fatal("written images differ from the input")
			}
		}
		lab, errL := ReadIDXLabels(bytes.NewReader(labels), "lab")
		if errL == nil {
			var buf bytes.Buffer
			if err := WriteIDXLabels(&buf, lab); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), plain(t, labels)) {
				t.Fatal("written labels differ from the input")
			}
		}
		if errI != nil || errL != nil {
			return
		}
		d, err := mnistDataset(pixels, n, rows, cols, lab, nil, "img", "lab")
		if err != nil {
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("MNIST data does not validate: %v", err)
		}
	})
}

// plain returns b, decompressed if it is gzipped.
func plain(t *testing.T, b []byte) []byte {
	t.Helper()
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		return b
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	zr.Multistream(false)
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// maxErrorBytes bounds the message of a reader's error: a file name, a
// line, and at most a few quoted values of 80 characters.
const maxErrorBytes = 600

// shortError fails when a reader's error message is long (it echoes its
// input).
func shortError(t *testing.T, err error) {
	t.Helper()
	if err != nil && len(err.Error()) > maxErrorBytes {
		t.Fatalf("an error of %d bytes: %.300s…", len(err.Error()), err)
	}
}
