package bench_test

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"sluice/core"
)

// keyedEmpty is the task of the KeyedQueue benchmarks, made once so that
// no benchmark counts a closure allocation per task.
var keyedEmpty = func(context.Context) error { return nil }

// BenchmarkKeyedQueue measures the per-key serial queue; one op is one
// task. None of the peers has a per-key queue, so it stands alone; its
// Throughput is held against WorkQueue's.
//
//   - Throughput: submit b.N empty tasks spread over 10,000 keys, at
//     parallelism GOMAXPROCS, then wait for all of them.
//   - RetainedHeap: submit b.N empty tasks spread over up to 100,000 keys,
//     let every lane go idle and be evicted, and report how many more bytes
//     the queue's live objects take than before the run, in percent of the
//     live heap before it (retained-%); the heap profile tells the queue's
//     objects from the runtime's caches. heap-delta-B is the growth of the
//     whole live heap, those caches included.
func BenchmarkKeyedQueue(b *testing.B) {
	n := runtime.GOMAXPROCS(0)
	ctx := context.Background()
	b.Run("Throughput", func(b *testing.B) {
		b.Run("sluice", func(b *testing.B) {
			const keys = 10_000
			b.ReportAllocs()
			q := core.NewKeyedQueue[int](core.WithParallelism(n))
			key := 0
			for b.Loop() {
				if _, err := q.Submit(ctx, key, keyedEmpty); err != nil {
					b.Fatal(err)
				}
				if key++; key == keys {
					key = 0
				}
			}
			if err := q.Drain(ctx); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("RetainedHeap", func(b *testing.B) {
		b.Run("sluice", func(b *testing.B) {
			b.ReportAllocs()
			// Record every allocation, so that the heap profile tells
			// the queue's live objects from the runtime's own caches
			// (goroutine descriptors, sudogs), which a run may grow and
			// which are never given back.
			defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
			runtime.MemProfileRate = 1
			r := newEvictionRun(n)
			base, baseCore := liveHeap(), liveCoreHeap()
			for i := 0; b.Loop(); i++ {
				r.submit(i)
			}
			r.evictAll()
			heap, core := liveHeap(), liveCoreHeap()
			runtime.KeepAlive(r)
			b.ReportMetric(100*float64(max(core-baseCore, 0))/float64(base), "retained-%")
			b.ReportMetric(float64(heap-base), "heap-delta-B")
			r.q.Close()
		})
	})
}

// liveCoreHeap returns the bytes of live heap objects that sluice/core
// allocated, according to the heap profile: objects whose allocation
// stack, past the runtime's allocator, starts in sluice/core. Goroutine
// descriptors and wait records (sudogs), which the runtime allocates for
// core's goroutines and lock waits and then keeps in caches of its own,
// are not core's. It is exact only while runtime.MemProfileRate is 1.
func liveCoreHeap() int64 {
	for range 3 {
		runtime.GC() // the profile lags the heap by up to two cycles
	}
	recs := make([]runtime.MemProfileRecord, 1024)
	for {
		n, ok := runtime.MemProfile(recs, false)
		if ok {
			recs = recs[:n]
			break
		}
		recs = make([]runtime.MemProfileRecord, n+n/4)
	}
	var total int64
	for _, rec := range recs {
		if coreAllocated(rec.Stack()) {
			total += rec.InUseBytes()
		}
	}
	return total
}

func coreAllocated(stack []uintptr) bool {
	frames := runtime.CallersFrames(stack)
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.malg" || f.Function == "runtime.acquireSudog":
			return false
		case strings.HasPrefix(f.Function, "runtime.") || strings.HasPrefix(f.Function, "internal/runtime/"):
			// the allocator, or a map's or slice's growth
		default:
			return strings.HasPrefix(f.Function, "sluice/core.")
		}
		if !more {
			return false
		}
	}
}

// evictionRun is a KeyedQueue whose idle timeout runs on a manual clock,
// to measure what the queue keeps once its lanes are evicted.
type evictionRun struct {
	q   *core.KeyedQueue[int]
	clk *manualClock
}

const (
	evictionKeys    = 100_000
	evictionTimeout = time.Minute
)

func newEvictionRun(parallelism int) *evictionRun {
	clk := newManualClock()
	q := core.NewKeyedQueue[int](core.WithParallelism(parallelism), core.WithIdleTimeout(evictionTimeout), core.WithClock(clk))
	return &evictionRun{q: q, clk: clk}
}

// submit submits task i, to key i modulo 100,000.
func (r *evictionRun) submit(i int) {
	if _, err := r.q.Submit(context.Background(), i%evictionKeys, keyedEmpty); err != nil {
		panic(err)
	}
}

// waitIdle waits for every task to end.
func (r *evictionRun) waitIdle() {
	for st := r.q.Stats(); st.Pending+st.Running > 0; st = r.q.Stats() {
		runtime.Gosched()
	}
}

// evictAll waits for every task to end, then lets every lane time out and
// waits for them to be evicted.
func (r *evictionRun) evictAll() {
	r.waitIdle()
	r.clk.advance(evictionTimeout)
	for r.q.Stats().Lanes > 0 {
		runtime.Gosched()
	}
}

// liveHeap returns the bytes of live heap objects after a full collection.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// manualClock is a core.Clock whose time moves only when advance is
// called. It keeps only the timers that are set, so that what it holds
// does not grow with the timers a run has made.
type manualClock struct {
	mu     sync.Mutex
	now    time.Time
	timers map[*manualTimer]struct{} // the set ones
}

type manualTimer struct {
	clk  *manualClock
	when time.Time
	f    func()
}

func newManualClock() *manualClock {
	return &manualClock{
		now:    time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC),
		timers: map[*manualTimer]struct{}{},
	}
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) AfterFunc(d time.Duration, f func()) core.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &manualTimer{clk: c, when: c.now.Add(d), f: f}
	c.timers[t] = struct{}{}
	return t
}

// advance moves the time on by d, then runs the timers that are due, one
// after another on the calling goroutine (never inside AfterFunc, as
// core.Clock requires), and returns once they have. The timers left are
// moved to a new map, since a map never gives back the room of the
// entries deleted from it.
func (c *manualClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []func()
	left := map[*manualTimer]struct{}{}
	for t := range c.timers {
		if t.when.After(c.now) {
			left[t] = struct{}{}
		} else {
			due = append(due, t.f)
		}
	}
	c.timers = left
	c.mu.Unlock()
	for _, f := range due {
		f()
	}
}

func (t *manualTimer) Stop() bool {
	t.clk.mu.Lock()
	defer t.clk.mu.Unlock()
	_, was := t.clk.timers[t]
	delete(t.clk.timers, t)
	return was
}

func (t *manualTimer) Reset(d time.Duration) bool {
	t.clk.mu.Lock()
	defer t.clk.mu.Unlock()
	_, was := t.clk.timers[t]
	t.when = t.clk.now.Add(d)
	t.clk.timers[t] = struct{}{}
	return was
}
