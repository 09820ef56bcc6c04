package serve

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// TestBudget: reservations within the limit are granted at once; one past
// the whole limit fails at once; one that does not fit now waits in FIFO
// order (a request already holding memory first), gets the memory when it
// is released, or fails when its wait ends, and then lets the requests
// behind it through.
func TestBudget(t *testing.T) {
	ctx := context.Background()
	var idle atomic.Int32
	b := &budget{limit: 100, idle: func() { idle.Add(1) }, idleAfter: 50}
	if err := b.acquire(ctx, 60, 0, false); err != nil {
		t.Fatal(err)
	}
	if err := b.acquire(ctx, 101, time.Second, false); !errors.Is(err, errOverBudget) {
		t.Fatalf("past the limit: %v", err)
	}
	if err := b.acquire(ctx, 50, 0, false); !errors.Is(err, errMemoryBusy) {
		t.Fatalf("no wait: %v", err)
	}
	start := time.Now()
	if err := b.acquire(ctx, 50, 30*time.Millisecond, false); !errors.Is(err, errMemoryBusy) || time.Since(start) < 30*time.Millisecond {
		t.Fatalf("wait: %v after %v", err, time.Since(start))
	}
	// Two waiters: a new request, then one that holds memory (front).
	granted := make(chan int64, 2)
	go func() {
		if b.acquire(ctx, 44, 5*time.Second, false) == nil {
			granted <- 44
		}
	}()
	waitQueue(t, b, 1)
	go func() {
		if b.acquire(ctx, 45, 5*time.Second, true) == nil {
			granted <- 45
		}
	}()
	waitQueue(t, b, 2)
	b.mu.Lock()
	first := b.queue.Front().Value.(*waiter).n
	b.mu.Unlock()
	if first != 45 {
		t.Fatalf("the queue starts with a new request (%d bytes), not the one holding memory", first)
	}
	b.release(60) // 0 held: both fit
	<-granted
	<-granted
	if got := b.inUse(); got != 89 {
		t.Fatalf("in use %d, want 89", got)
	}
	if idle.Load() != 0 {
		t.Fatal("idle called while memory is held")
	}
	// A waiter that times out lets a smaller one behind it through.
	got, behind := make(chan error, 1), make(chan error, 1)
	go func() { got <- b.acquire(ctx, 30, 20*time.Millisecond, false) }()
	waitQueue(t, b, 1)
	go func() { behind <- b.acquire(ctx, 11, 5*time.Second, false) }()
	if err := <-got; !errors.Is(err, errMemoryBusy) {
		t.Fatalf("first waiter: %v", err)
	}
	if err := <-behind; err != nil {
		t.Fatalf("the one behind it: %v", err)
	}
	// A cancelled context ends the wait.
	cctx, cancel := context.WithCancel(ctx)
	go func() { got <- b.acquire(cctx, 50, time.Minute, false) }()
	waitQueue(t, b, 1)
	cancel()
	if err := <-got; !errors.Is(err, errMemoryBusy) {
		t.Fatalf("cancelled: %v", err)
	}
	b.release(100)
	if b.inUse() != 0 || b.most != 100 || b.queue.Len() != 0 {
		t.Fatalf("in use %d, most %d, queue %d", b.inUse(), b.most, b.queue.Len())
	}
	if idle.Load() != 1 || !b.idleReset() || b.peak != 0 {
		t.Fatalf("idle called %d times after a burst of 100 > 50 fell to 0", idle.Load())
	}
	// A reservation gives back everything it took.
	r := &reservation{b: b, ctx: ctx}
	if err := r.grow(70); err != nil {
		t.Fatal(err)
	}
	if err := r.grow(31); !errors.Is(err, errOverBudget) {
		t.Fatalf("a request past the limit with what it holds: %v", err)
	}
	r.done()
	if b.inUse() != 0 {
		t.Fatalf("after done: %d in use", b.inUse())
	}
}

// waitQueue waits until n reservations wait.
func waitQueue(t *testing.T, b *budget, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		b.mu.Lock()
		k := b.queue.Len()
		b.mu.Unlock()
		if k == n {
			return
		}
	}
	t.Fatalf("%d waiters never queued", n)
}

// TestParseBytes: byte counts with and without units; bad ones are errors
// that quote the value short.
func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "1073741824": 1 << 30, "512MiB": 512 << 20, "1GiB": 1 << 30,
		"64 KiB": 64 << 10, "2GB": 2e9, "10B": 10, "3TiB": 3 << 40} {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("%q: %d %v, want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "lots", "-1", "1.5GiB", "1 GiBs", "99999999999TiB", string(make([]byte, 10000))} {
		if _, err := ParseBytes(bad); err == nil || len(err.Error()) > 160 {
			t.Errorf("%.20q: %v", bad, err)
		}
	}
}

// TestDefaultMaxMemory: a quarter of what the machine or cgroup allows, at
// most 1 GiB.
func TestDefaultMaxMemory(t *testing.T) {
	if m := defaultMaxMemory(); m <= 0 || m > 1<<30 {
		t.Fatalf("default %d", m)
	}
}
