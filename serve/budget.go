package serve

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/nsvm-go/nsvm/internal/sysmem"
)

// budget bounds the bytes held by the requests in flight (Config.MaxMemory).
// A request reserves what it is about to allocate before allocating it: its
// body as it is read, its decoded rows, its prediction and its answer; it
// gives everything back when its answer is written. A reservation that does
// not fit waits in a FIFO queue for at most the configured time; one that
// holds memory already and needs more (the next stage of a request) goes to
// the front, since the memory it holds comes back only when it finishes.
type budget struct {
	limit int64
	mu    sync.Mutex
	used  int64
	peak  int64     // most bytes held since the last return to the OS
	most  int64     // most bytes ever held
	queue list.List // of *waiter
	// idle, if not nil, is called (without the lock) when the bytes held
	// fall to 0 after a burst of more than idleAfter bytes.
	idle      func()
	idleAfter int64
}

type waiter struct {
	n     int64
	ready chan struct{} // closed when granted
}

// Errors of a reservation that does not fit.
var (
	// errOverBudget: the request alone needs more than the whole budget.
	errOverBudget = errors.New("more than the server's memory limit")
	// errMemoryBusy: the memory is held by other requests.
	errMemoryBusy = errors.New("memory held by other requests")
)

// acquire reserves n bytes, waiting at most wait for other requests to give
// memory back. front puts the request ahead of the queue: for a request
// that already holds memory.
func (b *budget) acquire(ctx context.Context, n int64, wait time.Duration, front bool) error {
	if n <= 0 {
		return nil
	}
	if n > b.limit {
		return errOverBudget
	}
	b.mu.Lock()
	if b.used+n <= b.limit && (front || b.queue.Len() == 0) {
		b.take(n)
		b.mu.Unlock()
		return nil
	}
	if wait <= 0 {
		b.mu.Unlock()
		return errMemoryBusy
	}
	w := &waiter{n: n, ready: make(chan struct{})}
	var e *list.Element
	if front {
		e = b.queue.PushFront(w)
	} else {
		e = b.queue.PushBack(w)
	}
	b.mu.Unlock()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-w.ready:
		return nil
	case <-t.C:
	case <-ctx.Done():
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-w.ready: // granted while the timer fired
		return nil
	default:
	}
	b.queue.Remove(e)
	b.grant() // the requests behind it may fit
	return errMemoryBusy
}

// take records n more bytes held (b.mu held).
func (b *budget) take(n int64) {
	b.used += n
	b.peak = max(b.peak, b.used)
	b.most = max(b.most, b.used)
}

// grant hands memory to the waiters at the head of the queue while they
// fit (b.mu held).
func (b *budget) grant() {
	for e := b.queue.Front(); e != nil; e = b.queue.Front() {
		w := e.Value.(*waiter)
		if b.used+w.n > b.limit {
			return
		}
		b.take(w.n)
		b.queue.Remove(e)
		close(w.ready)
	}
}

// release gives n bytes back.
func (b *budget) release(n int64) {
	if n <= 0 {
		return
	}
	b.mu.Lock()
	b.used -= n
	if b.used < 0 {
		b.mu.Unlock()
		panic("serve: budget released more than it gave")
	}
	b.grant()
	idle := b.used == 0 && b.idle != nil && b.idleAfter > 0 && b.peak > b.idleAfter
	b.mu.Unlock()
	if idle {
		b.idle()
	}
}

// idleReset reports whether no memory is held and, if so, forgets the peak.
func (b *budget) idleReset() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used != 0 {
		return false
	}
	b.peak = 0
	return true
}

// inUse returns the bytes held.
func (b *budget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// reservation is what one request holds of the budget.
type reservation struct {
	b     *budget
	ctx   context.Context
	wait  time.Duration
	held  int64
	asked int64 // the last amount asked for, for error messages
	// deadline, if not nil, sets the read deadline of the request's
	// connection (http.ResponseController.SetReadDeadline).
	deadline func(time.Time) error
}

// grow reserves n more bytes for the request.
func (r *reservation) grow(n int64) error {
	if n <= 0 {
		return nil
	}
	r.asked = n
	if r.held+n > r.b.limit {
		return errOverBudget
	}
	if err := r.b.acquire(r.ctx, n, r.wait, r.held > 0); err != nil {
		return err
	}
	r.held += n
	return nil
}

// give gives n of the bytes held back before the request ends.
func (r *reservation) give(n int64) {
	n = min(n, r.held)
	r.b.release(n)
	r.held -= n
}

// done gives everything back.
func (r *reservation) done() {
	r.b.release(r.held)
	r.held = 0
}

// defaultMaxMemory is Config.MaxMemory's default: a quarter of the memory
// this process may use (the cgroup's limit, else the machine's memory), at
// most 1 GiB; 1 GiB when neither is known. A quarter, because Go's
// collector lets the heap grow to about twice what is live before it
// collects, and the model and the runtime need their share.
func defaultMaxMemory() int64 {
	const most = 1 << 30
	if m := sysmem.Limit(); m > 0 {
		return min(most, m/4)
	}
	return most
}

// ByteSize is a flag.Value of a byte count in ParseBytes' syntax, stored
// in *P; with Never set, "never" stores −1 (ReleaseAfter's "never").
type ByteSize struct {
	P     *int64
	Never bool
}

func (f ByteSize) String() string {
	if f.P == nil {
		return "0"
	}
	return strconv.FormatInt(*f.P, 10)
}

// Set reads s into *f.P.
func (f ByteSize) Set(s string) error {
	if f.Never && s == "never" {
		*f.P = -1
		return nil
	}
	v, err := ParseBytes(s)
	if err != nil {
		return err
	}
	*f.P = v
	return nil
}

// ParseBytes reads a byte count in sysmem.ParseBytes' syntax: an integer,
// optionally followed by a unit B, KB, MB, GB, TB (powers of 1000) or KiB,
// MiB, GiB, TiB (powers of 1024), as in "512MiB" or "1GB".
func ParseBytes(s string) (int64, error) {
	v, ok := sysmem.ParseBytes(s)
	if !ok {
		return 0, fmt.Errorf("serve: %s is not a byte count (e.g. 1073741824, 512MiB or 1GB)", quote(s))
	}
	return v, nil
}
