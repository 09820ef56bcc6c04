package data

import (
	"bytes"
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
