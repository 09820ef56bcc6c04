// Command sparsebench generates a sparse LIBSVM problem and trains SMO on
// it as svm-train does, for comparing the two on time and memory:
//
//	go run ./svm/testdata/sparsebench gen -n 20000 -d 50000 -density 0.001 -o /tmp/sparse.train
//	go build -o /tmp/sparsebench ./svm/testdata/sparsebench
//	/usr/bin/time -v /tmp/sparsebench train -c 1 -g 0.03 -m 100 /tmp/sparse.train
//	/usr/bin/time -v svm-train -c 1 -g 0.03 -m 100 /tmp/sparse.train /tmp/sparse.model
//
// gen prints the mean squared norm of the rows and γ = 1/(2·mean ‖x‖²).
//
// On the 20000 × 50000 file at 0.1 % density (1.0 million nonzeros, mean
// ‖x‖² 16.6, γ = 0.03), C = 1, a 100 MB cache, ε = 1e-3, one core (2-core
// machine shared with other work, each run alone):
//
//	                          wall     user     peak RSS  iterations  obj
//	svm-train (LIBSVM 3.24)   201.4 s  200.2 s  147 MB    12459       −13077.172257
//	sparsebench train          32.6 s   32.2 s  217 MB    12398       −13077.172178
//	  GOMEMLIMIT=140MiB                 34.0 s  144 MB
//
// Both end with ρ = 0.3046 and 19999 support vectors. A kernel column is
// one gather per row at its nonzeros from the scattered query (about 1 ns
// a nonzero) against LIBSVM's merge of two index lists per pair. The peak
// memory above the cache comes from the end of the run, when un-shrinking
// extends the cached columns of the shrunk problem to full length and the
// short ones are left to the garbage collector, which lets the heap reach
// twice the live data before it collects; a memory limit makes it collect
// sooner.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"time"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/svm"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: sparsebench gen|train [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = gen(os.Args[2:])
	case "train":
		err = train(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "sparsebench:", err)
		os.Exit(1)
	}
}

// gen writes n rows of d features, each nonzero with probability density
// (values uniform in (0, 1], term-frequency-like), labelled by the sign of
// a fixed sparse linear rule plus noise; 1-based indices as LIBSVM's.
func gen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	n := fs.Int("n", 20000, "rows")
	d := fs.Int("d", 50000, "features")
	dens := fs.Float64("density", 0.001, "fraction of nonzero features")
	seed := fs.Uint64("seed", 1, "seed")
	out := fs.String("o", "", "output file")
	fs.Parse(args)
	rng := rand.New(rand.NewPCG(*seed, *seed^0x9e3779b97f4a7c15))
	w := make([]float64, *d)
	for j := range w {
		if rng.Float64() < 0.5 {
			w[j] = rng.NormFloat64()
		}
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	var sq float64
	k := int(float64(*d) * *dens) // nonzeros per row on average
	var buf []byte
	for i := 0; i < *n; i++ {
		// A row: about k distinct columns, in increasing order.
		cols := map[int]bool{}
		m := k/2 + rng.IntN(k+1)
		for len(cols) < m {
			cols[rng.IntN(*d)] = true
		}
		idx := make([]int, 0, m)
		for j := range cols {
			idx = append(idx, j)
		}
		sortInts(idx)
		var s float64
		buf = buf[:0]
		for _, j := range idx {
			v := float32(1 - rng.Float64())
			s += w[j] * float64(v)
			sq += float64(v) * float64(v)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(j+1), 10)
			buf = append(buf, ':')
			buf = strconv.AppendFloat(buf, float64(v), 'g', -1, 32)
		}
		y := "+1"
		if s+0.5*rng.NormFloat64() < 0 {
			y = "-1"
		}
		bw.WriteString(y)
		bw.Write(buf)
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	mean := sq / float64(*n)
	fmt.Printf("mean ‖x‖² %.6g, gamma 1/(2·mean) = %.6g\n", mean, 1/(2*mean))
	return nil
}

func sortInts(a []int) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// train reads a LIBSVM file as sparse rows and trains an RBF C-SVM by SMO.
func train(args []string) error {
	fs := flag.NewFlagSet("train", flag.ExitOnError)
	c := fs.Float64("c", 1, "C")
	g := fs.Float64("g", 0, "RBF gamma")
	mb := fs.Int("m", 100, "cache MB")
	eps := fs.Float64("e", 1e-3, "tolerance")
	workers := fs.Int("workers", 1, "goroutines per kernel column")
	layout := fs.String("layout", data.LayoutSparse, "sparse or dense")
	wpos := fs.Float64("w1", 1, "weight of class +1")
	wneg := fs.Float64("w-1", 1, "weight of class −1")
	memprof := fs.String("memprofile", "", "write an allocation profile here")
	cpuprof := fs.String("cpuprofile", "", "write a CPU profile here")
	fs.Parse(args)
	if *cpuprof != "" {
		f, err := os.Create(*cpuprof)
		if err != nil {
			return err
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	if *memprof != "" {
		runtime.MemProfileRate = 64 << 10
		defer func() {
			f, err := os.Create(*memprof)
			if err == nil {
				pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		}()
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("train: one data file")
	}
	t0 := time.Now()
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	ds, err := data.ReadLIBSVMLayout(bufio.NewReaderSize(f, 1<<20), fs.Arg(0), 0, *layout)
	f.Close()
	if err != nil {
		return err
	}
	p := svm.Problem{X: ds.X, Sparse: ds.Sparse, N: ds.N, D: ds.D, Y: make([]float32, ds.N)}
	for i, y := range ds.Y {
		p.Y[i] = 1
		if y < 0 {
			p.Y[i] = -1
		}
	}
	ds = nil
	t1 := time.Now()
	m, err := svm.SMO(context.Background(), p, kernel.RBF{Gamma: *g}, svm.SMOConfig{C: *c, Eps: *eps, CacheMB: *mb, Workers: *workers, WeightPos: *wpos, WeightNeg: *wneg}, nil)
	if err != nil {
		return err
	}
	t2 := time.Now()
	fmt.Printf("read %.2fs, train %.2fs; N=%d D=%d; iterations %s, obj = %s, rho = %s, nSV = %s, nBSV = %s\n",
		t1.Sub(t0).Seconds(), t2.Sub(t1).Seconds(), p.N, p.D, m.Info["iterations"], m.Info["objective"], m.Info["rho"], m.Info["nsv"], m.Info["nbsv"])
	return nil
}
