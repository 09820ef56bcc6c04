package data

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
)

func BenchmarkReadLIBSVM(b *testing.B) {
	var buf bytes.Buffer
	d := ringnorm(7400, newRNG(1))
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
	d := ringnorm(7400, newRNG(1))
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

// BenchmarkOpen compares, for 10⁵ Ringnorm rows, Open on a file (the
// parallel readers over a line count), Open on the gzipped file and the
// stream readers (ReadLIBSVM, ReadCSV) on the text in memory, all parallel,
// with the sequential reference readers on the same text. MB/s are of
// uncompressed text.
func BenchmarkOpen(b *testing.B) {
	d := ringnorm(100000, newRNG(1))
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
		dir := b.TempDir()
		path := filepath.Join(dir, "bench."+format)
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(buf.Bytes())
		zw.Close()
		gzPath := path + ".gz"
		if err := os.WriteFile(gzPath, gz.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
		run := func(name string, read func() error) {
			b.Run(format+"/"+name, func(b *testing.B) {
				b.SetBytes(int64(buf.Len()))
				b.ReportAllocs()
				for b.Loop() {
					if err := read(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		open := func(p string) func() error {
			return func() error { _, err := Open(p, OpenOptions{}); return err }
		}
		run("file", open(path))
		run("gzip", open(gzPath))
		run("reader", func() error {
			var err error
			if format == "libsvm" {
				_, err = ReadLIBSVM(bytes.NewReader(buf.Bytes()), "bench", 0)
			} else {
				_, err = ReadCSV(bytes.NewReader(buf.Bytes()), "bench", CSVOptions{})
			}
			return err
		})
		run("sequential", func() error {
			var err error
			if format == "libsvm" {
				_, err = readLIBSVMSeq(bytes.NewReader(buf.Bytes()), "bench", 0, maxDenseValues, LayoutDense)
			} else {
				_, err = seqCSV(bytes.NewReader(buf.Bytes()), "bench", CSVOptions{})
			}
			return err
		})
	}
}

// BenchmarkOpenNPZ opens a written .npz of 10⁵ Ringnorm rows (mapped).
func BenchmarkOpenNPZ(b *testing.B) {
	d := ringnorm(100000, newRNG(1))
	var buf bytes.Buffer
	if err := WriteNPZ(&buf, d); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "bench.npz")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		ds, err := Open(path, OpenOptions{})
		if err != nil {
			b.Fatal(err)
		}
		ds.Close()
	}
}
