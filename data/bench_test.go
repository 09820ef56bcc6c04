package data

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func BenchmarkReadLIBSVM(b *testing.B) {
	var buf bytes.Buffer
	d := Ringnorm(7400, newRNG(1))
	if err := WriteLIBSVM(&buf, d); err != nil {
		b.Fatal(err)
	}
	in := buf.Bytes()
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadLIBSVM(bytes.NewReader(in), "bench", 0); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadCSV(b *testing.B) {
	var buf bytes.Buffer
	d := Ringnorm(7400, newRNG(1))
	if err := WriteCSV(&buf, d, true); err != nil {
		b.Fatal(err)
	}
	in := buf.Bytes()
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadCSV(bytes.NewReader(in), "bench", CSVOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadIDXImages(b *testing.B) {
	const n = 10000
	var buf bytes.Buffer
	if err := WriteIDXImages(&buf, make([]uint8, n*28*28), n, 28, 28); err != nil {
		b.Fatal(err)
	}
	in := buf.Bytes()
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, _, _, err := ReadIDXImages(bytes.NewReader(in), "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpen compares Open on a file (the parallel readers) with the
// sequential readers on the same bytes, for 10⁵ Ringnorm rows.
func BenchmarkOpen(b *testing.B) {
	d := Ringnorm(100000, newRNG(1))
	for _, format := range []string{"libsvm", "csv"} {
		var buf bytes.Buffer
		var err error
		if format == "libsvm" {
			err = WriteLIBSVM(&buf, d)
		} else {
			err = WriteCSV(&buf, d, true)
		}
		if err != nil {
			b.Fatal(err)
		}
		path := filepath.Join(b.TempDir(), "bench."+format)
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
		b.Run(format+"/parallel", func(b *testing.B) {
			b.SetBytes(int64(buf.Len()))
			for b.Loop() {
				if _, err := Open(path, OpenOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(format+"/sequential", func(b *testing.B) {
			b.SetBytes(int64(buf.Len()))
			for b.Loop() {
				var err error
				if format == "libsvm" {
					_, err = ReadLIBSVM(bytes.NewReader(buf.Bytes()), "bench", 0)
				} else {
					_, err = ReadCSV(bytes.NewReader(buf.Bytes()), "bench", CSVOptions{})
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
