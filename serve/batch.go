package serve

import (
	"sync"
	"time"

	"github.com/nsvm-go/nsvm/model"
)

// job is one request's rows waiting for a forward pass.
type job struct {
	st    *modelState
	x     []float32
	rows  int
	probs bool
	out   model.Prediction
	done  chan struct{}
}

// batcher gathers concurrent requests into one forward pass. Each of its
// workers takes the first waiting job and, without waiting, every job queued
// behind it (same model, at most maxBatch rows in all); only with maxDelay >
// 0 does it wait that long for more when the batch is not full. So a lone
// request runs at once, and when every worker is busy the requests that
// arrive meanwhile form the next batch. A row's values do not depend on the
// rows batched with it (model.Model.Predictions is batch-invariant), so the
// answers equal those of unbatched calls bit for bit.
type batcher struct {
	queue    chan *job
	maxBatch int
	maxDelay time.Duration
	observe  func(rows int) // batch-size metric
	wg       sync.WaitGroup
	stop     chan struct{}
}

func newBatcher(workers, maxBatch int, maxDelay time.Duration, observe func(int)) *batcher {
	b := &batcher{queue: make(chan *job, 4096), maxBatch: maxBatch, maxDelay: maxDelay, observe: observe, stop: make(chan struct{})}
	for w := 0; w < workers; w++ {
		b.wg.Go(b.work)
	}
	return b
}

// submit queues j and waits for its results.
func (b *batcher) submit(j *job) {
	j.done = make(chan struct{})
	b.queue <- j
	<-j.done
}

// close stops the workers after the queued jobs are done.
func (b *batcher) close() {
	close(b.stop)
	b.wg.Wait()
}

func (b *batcher) work() {
	var held *job // a job taken but left for the next batch
	var x []float32
	for {
		first := held
		held = nil
		if first == nil {
			select {
			case first = <-b.queue:
			case <-b.stop:
				// Finish what is queued, then exit.
				for {
					select {
					case j := <-b.queue:
						b.run([]*job{j}, &x)
					default:
						return
					}
				}
			}
		}
		batch := []*job{first}
		rows := first.rows
		var timer <-chan time.Time
		if b.maxDelay > 0 && rows < b.maxBatch {
			timer = time.After(b.maxDelay)
		}
	gather:
		for rows < b.maxBatch {
			var j *job
			if timer == nil {
				select {
				case j = <-b.queue:
				default:
					break gather
				}
			} else {
				select {
				case j = <-b.queue:
				case <-timer:
					break gather
				}
			}
			if j.st != first.st || rows+j.rows > b.maxBatch {
				held = j
				break
			}
			batch = append(batch, j)
			rows += j.rows
		}
		b.run(batch, &x)
	}
}

// run computes one batch and hands each job its rows of the results.
func (b *batcher) run(batch []*job, buf *[]float32) {
	m := batch[0].st.m
	rows, probs := 0, false
	for _, j := range batch {
		rows += j.rows
		probs = probs || j.probs
	}
	x := batch[0].x
	if len(batch) > 1 {
		*buf = (*buf)[:0]
		for _, j := range batch {
			*buf = append(*buf, j.x...)
		}
		x = *buf
	}
	if b.observe != nil {
		b.observe(rows)
	}
	p := m.Predictions(x, rows, probs)
	nh, nc := m.NumHeads(), len(m.Labels())
	lo := 0
	for _, j := range batch {
		hi := lo + j.rows
		j.out = model.Prediction{Rows: j.rows, Labels: p.Labels[lo:hi], Decisions: p.Decisions[lo*nh : hi*nh]}
		if p.Scores != nil {
			j.out.Scores = p.Scores[lo*nc : hi*nc]
		}
		if j.probs && p.Probabilities != nil {
			j.out.Probabilities = p.Probabilities[lo*nc : hi*nc]
		}
		lo = hi
		close(j.done)
	}
}
