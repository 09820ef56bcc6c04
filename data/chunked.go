package data

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
)

// The readers of a stream (ReadLIBSVM, ReadCSV, and Open on a compressed
// file) read it sequentially in line-aligned chunks of readChunkBytes and
// parse the chunks on GOMAXPROCS goroutines, each into a block of dense
// rows; the blocks are gathered in order (rowSink) and copied into one
// allocation at the end, when the size is known; Stream.Next takes its rows
// from them. Line numbers come from counting the newlines of
// every chunk as it is cut. A line off the fast path is parsed by the
// reference code (LIBSVM), or makes the rest of the stream go through the
// sequential reader from the start of its chunk (CSV, whose quoted fields
// may hold newlines); either way the data and the first error are the
// sequential reader's.

// readChunkBytes is the size of the chunks a stream is cut into.
var readChunkBytes = 4 << 20

// chunk is a line-aligned piece of a stream and what a worker made of it.
type chunk struct {
	buf   []byte // whole lines; only the last chunk may end without a newline
	line  int    // lines before it in the stream
	lines int    // lines in it
	done  chan struct{}
	p     *pipeline

	// The parse: rows of width w in x (dense) or as (idx, val, rowEnd)
	// (sparse), their labels y, the largest feature index, or an error.
	x      []float32
	w      int
	y      []float64
	idx    []int32
	val    []float32
	rowEnd []int
	maxIdx int
	// the line of the largest index, the kind of the first row and its
	// line, the line of the error
	maxLine, kindLine, errLine int
	kind                       rowKind
	wt                         []float64 // the rows' weights (a CSV file's weight column)
	ynames                     []string  // the labels that are names, in order (streams)
	nnz                        int64     // values counted by a first pass (Stream)
	err                        error
	mixed                      bool // err is a row of the other kind than the chunk's first
}

// pipeline cuts a stream into chunks and parses them in parallel.
type pipeline struct {
	r     io.Reader
	order chan *chunk // chunks in stream order
	work  chan *chunk
	pool  chan []byte
	xfree chan []float32 // blocks given back, for the next chunks
	yfree chan []float64
	stop  chan struct{}
	once  sync.Once
	wg    sync.WaitGroup
	bufs  [][]byte // the chunk buffers, outside the heap, freed by close

	// Set by the producer before it closes order.
	carry    []byte // bytes read after the last chunk (when stopped)
	rerr     error  // a read error
	rerrLine int    // the line being read when it happened (1-based)
}

// startPipeline starts reading r and parsing its chunks with parse.
func startPipeline(r io.Reader, parse func(*chunk)) *pipeline {
	workers := runtime.GOMAXPROCS(0)
	nbuf := workers + 2
	p := &pipeline{
		r:     r,
		order: make(chan *chunk, nbuf),
		work:  make(chan *chunk, nbuf),
		pool:  make(chan []byte, nbuf),
		xfree: make(chan []float32, nbuf),
		yfree: make(chan []float64, nbuf),
		stop:  make(chan struct{}),
	}
	for range nbuf {
		b := allocSegment(readChunkBytes)
		p.bufs = append(p.bufs, b)
		p.pool <- b[:0]
	}
	for range workers {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for c := range p.work {
				if !p.stopped() {
					parse(c)
				}
				close(c.done)
			}
		}()
	}
	go p.produce()
	return p
}

func (p *pipeline) stopped() bool {
	select {
	case <-p.stop:
		return true
	default:
		return false
	}
}

func (p *pipeline) produce() {
	defer close(p.work)
	defer close(p.order)
	var carry []byte
	line := 0
	emit := func(b []byte, lines int) {
		c := &chunk{buf: b, line: line, lines: lines, done: make(chan struct{}), p: p}
		line += lines
		p.order <- c // never blocks: at most nbuf chunks hold buffers
		p.work <- c
	}
	for {
		var buf []byte
		select {
		case buf = <-p.pool:
		case <-p.stop:
			p.carry = carry
			return
		}
		buf = append(buf[:0], carry...)
		carry = carry[:0]
		eof := false
		cut := -1
		for {
			if len(buf) == cap(buf) {
				if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
					cut = i
					break
				}
				nb := make([]byte, len(buf), 2*cap(buf)) // a line longer than a chunk
				copy(nb, buf)
				buf = nb
			}
			n, err := p.r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if err == io.EOF {
				eof = true
				break
			}
			if err != nil {
				// The whole lines before the failure are parsed first,
				// as the sequential reader would.
				if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
					emit(buf[:i+1], bytes.Count(buf[:i+1], []byte{'\n'}))
					buf = buf[i+1:]
				}
				p.carry = buf
				p.rerr, p.rerrLine = err, line+1
				return
			}
		}
		if eof {
			if len(buf) > 0 {
				lines := bytes.Count(buf, []byte{'\n'})
				if buf[len(buf)-1] != '\n' {
					lines++ // a last line without a newline
				}
				emit(buf, lines)
			}
			return
		}
		carry = append(carry, buf[cut+1:]...)
		emit(buf[:cut+1], bytes.Count(buf[:cut+1], []byte{'\n'}))
	}
}

// next returns the next chunk in stream order once it is parsed, or false
// at the end.
func (p *pipeline) next() (*chunk, bool) {
	c, ok := <-p.order
	if ok {
		<-c.done
	}
	return c, ok
}

// block returns n zero values, in a block given back by release if one is
// large enough: reusing the blocks keeps the garbage, and so the memory
// the heap grows to, small.
func (p *pipeline) block(n int) []float32 {
	select {
	case x := <-p.xfree:
		if cap(x) >= n {
			x = x[:n]
			clear(x)
			return x
		}
	default:
	}
	return make([]float32, n)
}

// labels returns an empty slice of capacity n, reused as block does.
func (p *pipeline) labels(n int) []float64 {
	select {
	case y := <-p.yfree:
		if cap(y) >= n {
			return y[:0]
		}
	default:
	}
	return make([]float64, 0, n)
}

// recycle gives the chunk's blocks back once they are placed.
func (p *pipeline) recycle(c *chunk) {
	if c.x != nil {
		select {
		case p.xfree <- c.x:
		default:
		}
	}
	if c.y != nil {
		select {
		case p.yfree <- c.y:
		default:
		}
	}
	c.x, c.y = nil, nil
}

// release gives the chunk's buffer back for the next chunks.
func (p *pipeline) release(c *chunk) {
	if c.buf != nil {
		select {
		case p.pool <- c.buf[:0]:
		default:
		}
		c.buf = nil
	}
}

// rest stops the pipeline and returns the text from the start of c (the
// last chunk next returned, not released) to the end of the stream: c,
// the chunks read after it, and the unread rest of r.
func (p *pipeline) rest(c *chunk) io.Reader {
	p.once.Do(func() { close(p.stop) })
	parts := []io.Reader{bytes.NewReader(c.buf)}
	for c := range p.order {
		parts = append(parts, bytes.NewReader(c.buf))
	}
	p.wg.Wait()
	parts = append(parts, bytes.NewReader(p.carry))
	if p.rerr != nil {
		parts = append(parts, &errReader{p.rerr})
	} else {
		parts = append(parts, p.r)
	}
	return io.MultiReader(parts...)
}

// close stops the pipeline, waits for its goroutines, so that r is no
// longer read when it returns, and releases the chunk buffers: no chunk's
// text may be used after it.
func (p *pipeline) close() {
	p.once.Do(func() { close(p.stop) })
	for range p.order {
	}
	p.wg.Wait()
	for _, b := range p.bufs {
		freeSegment(b)
	}
	p.bufs = nil
}

type errReader struct{ err error }

func (e *errReader) Read([]byte) (int, error) { return 0, e.err }

// readError is the error of reading name's bytes (p.rerr), worded by
// readErr with the line it stopped at.
func (p *pipeline) readError(name string) error {
	return readErr(name, p.rerrLine, p.rerr)
}

// readErr words err, met reading line of the text name: the file's
// encoding and its size are about the whole file, other errors about the
// line.
func readErr(name string, line int, err error) error {
	switch {
	case errors.Is(err, ErrTooLarge):
		return fmt.Errorf("data: %w", err)
	case errors.Is(err, ErrEncoding):
		return fmt.Errorf("data: %s: %w", name, err)
	}
	return fmt.Errorf("data: %s:%d: %w", name, line, err)
}
