package search

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/paper"
)

// RowStream is a source of labelled rows read in blocks, such as
// data.Stream: Next fills up to len(y) rows of x (D values each) and
// returns how many, with io.EOF (and 0 rows) at the end; Rewind starts
// over from the first row.
type RowStream interface {
	D() int
	Shape() []int
	Next(x []float32, y []float64) (int, error)
	Rewind() error
}

// DatasetStream returns a RowStream over an in-memory data set (for tests
// and for code that has its rows in memory but wants FitStream's bounded
// working set).
func DatasetStream(ds *data.Dataset) RowStream { return &dsStream{ds: ds} }

type dsStream struct {
	ds  *data.Dataset
	pos int
}

func (s *dsStream) D() int       { return s.ds.D }
func (s *dsStream) Shape() []int { return s.ds.InputShape() }
func (s *dsStream) Rewind() error {
	s.pos = 0
	return nil
}
func (s *dsStream) Next(x []float32, y []float64) (int, error) {
	n := min(len(y), s.ds.N-s.pos)
	if n == 0 {
		return 0, io.EOF
	}
	D := s.ds.D
	copy(x[:n*D], s.ds.X[s.pos*D:(s.pos+n)*D])
	copy(y[:n], s.ds.Y[s.pos:s.pos+n])
	s.pos += n
	return n, nil
}

// defaultSampleBytes bounds the memory of FitStream's sample when
// FitConfig.SampleRows is 0; maxSampleRows bounds its rows.
const (
	defaultSampleBytes = 256 << 20
	maxSampleRows      = 1000000
	streamBlock        = 4096
	streamWindow       = 1 << 16
)

// FitStream trains like Fit on rows read from src, holding a bounded
// sample in memory instead of the whole data set, so that a file larger
// than memory trains in bounded memory:
//
//  1. One pass over src draws a uniform random sample of
//     FitConfig.SampleRows rows (reservoir sampling, seeded by
//     FitConfig.Seed; 0: as many rows as 256 MB hold, at most 10⁶) and
//     checks every row (non-finite values, labels).
//  2. Model selection runs on the sample exactly as Fit runs it on a data
//     set of that size (Fit's large-data protocol: a stratified hold-out,
//     classical SVMs on subsamples).
//  3. When the winner is a classification NSVM and src has more rows than
//     the sample, its final Part I streams: mini-batches are drawn from
//     windows of 65536 consecutive rows read ahead from src (rewound at its
//     end), for one epoch of src (at least the steps the search allowed),
//     with early stopping on the sample's held-out rows, which the windows
//     skip. The head is then fitted on the sample's features (a kernel head
//     on at most 10⁴ rows or a linear one on at most 10⁵, as in Fit).
//
// When src has no more rows than the sample, the sample is the whole data
// in file order and FitStream returns what Fit returns on it.
func FitStream(ctx context.Context, src RowStream, cfg *FitConfig) (*model.Model, error) {
	ctx, c, err := fitArgs(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if src == nil {
		return nil, fmt.Errorf("%w: no data stream", model.ErrBadData)
	}
	D := src.D()
	if D <= 0 {
		return nil, fmt.Errorf("%w: the stream has rows of %d values", model.ErrBadData, D)
	}
	if c.InShape != nil && prodInts(c.InShape) != D {
		return nil, configErr("the input shape %v has %d values, the data has %d per row", c.InShape, prodInts(c.InShape), D)
	}
	if l, ok := src.(interface{ Labelled() bool }); ok && !l.Labelled() {
		return nil, fmt.Errorf("%w: the stream's rows have no labels to train on", data.ErrNoLabels)
	}
	R := c.SampleRows
	if R == 0 {
		R = min(maxSampleRows, defaultSampleBytes/(4*D+8))
	}
	R = max(R, 1)
	start := time.Now()
	smp, err := reservoir(ctx, src, D, R, c.Seed, func(rows int64) {
		if c.Progress != nil {
			c.Progress(FitProgress{Stage: "sample", Done: int(min(rows, math.MaxInt32)), Elapsed: time.Since(start)})
		}
	})
	if err != nil {
		return nil, err
	}
	ds := &data.Dataset{X: smp.x, Y: smp.y, N: len(smp.y), D: D, Shape: slices.Clone(src.Shape())}
	if cs, ok := src.(interface{ Columns() []data.Column }); ok {
		// A CSV file's columns, named by its header, as Open gives them.
		ds.Columns = cs.Columns()
	}
	if lc, ok := src.(interface{ LabelColumn() string }); ok {
		ds.LabelColumn = lc.LabelColumn()
	}
	if nl, ok := src.(interface{ LabelNames() []string }); ok && nl.LabelNames() != nil {
		// Named labels come numbered in order of first appearance; the
		// model's are the names in increasing order.
		var perm []int
		ds.LabelNames, perm = data.SortNames(nl.LabelNames())
		for i, v := range ds.Y {
			ds.Y[i] = float64(perm[int(v)])
		}
		for i, v := range smp.labels {
			smp.labels[i] = float64(perm[int(v)])
		}
		src = &renamedStream{RowStream: src, perm: perm}
	}
	d, err := prepare(ds, &c)
	if err != nil {
		return nil, err
	}
	if smp.total > int64(ds.N) {
		if d.task == model.Classification {
			for _, v := range smp.labels {
				if _, ok := slices.BinarySearch(d.classes, v); !ok {
					return nil, fmt.Errorf("%w: label %s occurs in the stream but not in its sample of %d rows; raise the sample size", model.ErrBadData, strconv.FormatFloat(v, 'g', -1, 64), ds.N)
				}
			}
		}
		d.stream = &streamRows{src: src, row: smp.row, total: smp.total}
	}
	m, err := fitPrepared(ctx, d, &c, time.Now())
	if err != nil {
		return nil, err
	}
	m.Info["stream_rows"] = strconv.FormatInt(smp.total, 10)
	m.Info["sample_rows"] = strconv.Itoa(ds.N)
	return m, nil
}

// renamedStream gives the labels of a stream of named labels as indices
// of the names in increasing order (perm maps the stream's indices).
type renamedStream struct {
	RowStream
	perm []int
}

func (r *renamedStream) Next(x []float32, y []float64) (int, error) {
	n, err := r.RowStream.Next(x, y)
	for i := range y[:n] {
		y[i] = float64(r.perm[int(y[i])])
	}
	return n, err
}

// streamRows is the stream behind a FitStream sample: row[i] is the
// stream position of sample row i, total the stream's length.
type streamRows struct {
	src   RowStream
	row   []int64
	total int64
}

type sampleRows struct {
	x      []float32
	y      []float64
	row    []int64
	total  int64
	labels []float64 // the distinct labels of the stream (up to maxLabels)
}

// maxLabels bounds the distinct labels FitStream records (more are
// regression targets, which need no check).
const maxLabels = 1 << 16

// reservoir draws a uniform sample of at most R rows of src (Vitter's
// Algorithm R), returned in stream order with their stream positions.
func reservoir(ctx context.Context, src RowStream, D, R int, seed uint64, progress func(int64)) (*sampleRows, error) {
	if err := src.Rewind(); err != nil {
		return nil, fmt.Errorf("%w: %v", model.ErrBadData, err)
	}
	rng := rand.New(seedPCG(seed ^ 0x7265736572766f69))
	s := &sampleRows{}
	labels := map[float64]struct{}{}
	bx := make([]float32, streamBlock*D)
	by := make([]float64, streamBlock)
	var g int64
	last := time.Now()
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("nsvm: fit: stopped while sampling the stream: %w", err)
		}
		n, err := src.Next(bx, by)
		for i := range n {
			x, y := bx[i*D:(i+1)*D], by[i]
			if nonFinite(x) || math.IsNaN(y) || math.IsInf(y, 0) {
				return nil, fmt.Errorf("%w: row %d of the stream has a non-finite value", model.ErrBadData, g+1)
			}
			if len(labels) <= maxLabels {
				labels[y] = struct{}{}
			}
			switch {
			case g < int64(R):
				s.x = append(s.x, x...)
				s.y = append(s.y, y)
				s.row = append(s.row, g)
			default:
				if j := rng.Int64N(g + 1); j < int64(R) {
					copy(s.x[j*int64(D):(j+1)*int64(D)], x)
					s.y[j], s.row[j] = y, g
				}
			}
			g++
		}
		if progress != nil && time.Since(last) > 250*time.Millisecond {
			progress(g)
			last = time.Now()
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", model.ErrBadData, err)
		}
	}
	if g == 0 {
		return nil, fmt.Errorf("%w: the stream has no rows", model.ErrBadData)
	}
	s.total = g
	if progress != nil {
		progress(g)
	}
	if len(labels) <= maxLabels {
		for v := range labels {
			s.labels = append(s.labels, v)
		}
		slices.Sort(s.labels)
	}
	// Stream order.
	perm := make([]int, len(s.y))
	for i := range perm {
		perm[i] = i
	}
	slices.SortFunc(perm, func(a, b int) int {
		switch {
		case s.row[a] < s.row[b]:
			return -1
		case s.row[a] > s.row[b]:
			return 1
		}
		return 0
	})
	x := make([]float32, len(s.x))
	y := make([]float64, len(s.y))
	row := make([]int64, len(s.row))
	for k, p := range perm {
		copy(x[k*D:(k+1)*D], s.x[p*D:(p+1)*D])
		y[k], row[k] = s.y[p], s.row[p]
	}
	s.x, s.y, s.row = x, y, row
	return s, nil
}

// streamWindows reads windows of w stream rows (skipping the positions in
// skip, rewinding at the end), scaled by sc and with class indices from
// classes, ahead of the trainer on a goroutine.
type streamWindows struct {
	next chan window
	done chan struct{}
	err  error
}

type window struct {
	x   []float32
	cls []int
}

func newStreamWindows(ctx context.Context, st *streamRows, D, w int, sc scaler, classes []float64, skip map[int64]struct{}) *streamWindows {
	sw := &streamWindows{next: make(chan window, 1), done: make(chan struct{})}
	go func() {
		defer close(sw.next)
		bx := make([]float32, streamBlock*D)
		by := make([]float64, streamBlock)
		var g int64
		fill := func() (window, error) {
			win := window{x: make([]float32, w*D), cls: make([]int, w)}
			k := 0
			for k < w {
				m := min(streamBlock, w-k)
				n, err := st.src.Next(bx[:m*D], by[:m])
				if errors.Is(err, io.EOF) && n == 0 {
					if g == 0 {
						return win, errors.New("the stream has no rows")
					}
					if err := st.src.Rewind(); err != nil {
						return win, err
					}
					g = 0
					continue
				}
				if err != nil && !errors.Is(err, io.EOF) {
					return win, err
				}
				for i := range n {
					if _, ok := skip[g]; !ok {
						c, ok := slices.BinarySearch(classes, by[i])
						if !ok {
							return win, fmt.Errorf("row %d of the stream has the label %g, which its sample does not have", g+1, by[i])
						}
						copy(win.x[k*D:(k+1)*D], bx[i*D:(i+1)*D])
						win.cls[k] = c
						k++
					}
					g++
				}
			}
			sc.apply(win.x, D)
			return win, nil
		}
		if err := st.src.Rewind(); err != nil {
			sw.err = err
			return
		}
		for {
			win, err := fill()
			if err != nil {
				sw.err = err
				return
			}
			select {
			case sw.next <- win:
			case <-sw.done:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return sw
}

// stop ends the reader goroutine.
func (sw *streamWindows) stop() {
	close(sw.done)
	for range sw.next {
	}
}

// streamPart1 runs Part I of an auto recipe's final fit over the stream
// behind its sample (FitStream step 3): s is the whole sample, stop its
// held-out part for early stopping.
func (r *recipe) streamPart1(ctx context.Context, net *nn.Net, s, fitPart, stop subProblem, cfg paper.Alg4Config, aug paper.Augmenter, o paper.Options, seed uint64, notes *fitNotes) error {
	d := s.d
	st := d.stream
	skip := make(map[int64]struct{}, stop.n)
	for _, i := range stop.idx {
		skip[st.row[i]] = struct{}{}
	}
	avail := st.total - int64(len(skip))
	w := int(min(int64(streamWindow), avail))
	cfg.Batch = min(cfg.Batch, w)
	// One epoch of the stream, at least what the search allowed.
	cfg.T = int(max(int64(cfg.T), avail/int64(cfg.Batch)))
	rr := *r
	rr.preset.Alg4.T = cfg.T
	notes.steps = cfg.T
	if stop.n > 0 {
		mon := rr.monitor(ctx, net, fitPart, stop, seed, notes)
		o.Monitor, o.MonitorEvery = mon.check, max(1, cfg.T/monitorChecks)
	}
	sw := newStreamWindows(ctx, st, d.d, w, s.sc, d.classes, skip)
	defer sw.stop()
	first, ok := <-sw.next
	if !ok {
		return fmt.Errorf("nsvm: reading the stream: %v", sw.err)
	}
	x, cls := first.x, first.cls
	notes.windows = 1
	target := paper.ClassTarget(cls, d.nclass())
	every := max(1, w/cfg.Batch)
	refill := func(t int) error {
		if t == 1 || (t-1)%every != 0 {
			return nil
		}
		next, ok := <-sw.next
		if !ok {
			if sw.err != nil {
				return fmt.Errorf("nsvm: reading the stream: %v", sw.err)
			}
			return ctx.Err()
		}
		copy(x, next.x)
		copy(cls, next.cls)
		notes.windows++
		return nil
	}
	return paper.TrainPart1(ctx, net, paper.Part1{X: x, N: w, D: d.d, Target: target, Augment: aug, Refill: refill}, cfg, o)
}
