package core_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"sluice/core"
)

// laneEvents returns the lane events, in order.
func (r *recorder) laneEvents() []core.Event {
	var es []core.Event
	for _, e := range r.all() {
		if e.Kind == core.LaneCreated || e.Kind == core.LaneEvicted {
			es = append(es, e)
		}
	}
	return es
}

// gate is a task function that blocks until released, after reporting
// that it started.
type gate struct {
	started chan struct{}
	release chan struct{}
}

func newGate() *gate { return &gate{started: make(chan struct{}), release: make(chan struct{})} }

func (g *gate) fn(ctx context.Context) error {
	close(g.started)
	<-g.release
	return nil
}

func nop(context.Context) error { return nil }

// TestKeyedQueueOrderAndExclusivity submits tasks for 10,000 keys from
// several goroutines and checks, in the handlers and through the observer,
// that no key ever runs two tasks at once and that each key's tasks run in
// submission order.
func TestKeyedQueueOrderAndExclusivity(t *testing.T) {
	const (
		keys       = 10_000
		rounds     = 4
		submitters = 4
	)
	for _, par := range []int{0, 4} {
		t.Run("parallelism="+strconv.Itoa(par), func(t *testing.T) {
			var (
				running [keys]atomic.Int32
				next    [keys]atomic.Int32
				bad     atomic.Int64
			)
			// The observer's own view: per key, the running task and the
			// last started task id.
			var (
				omu      sync.Mutex
				oRunning = map[string]uint64{}
				oLast    = map[string]uint64{}
				oErrs    []string
				started  atomic.Int64
			)
			observe := func(e core.Event) {
				if e.Task == 0 {
					return
				}
				omu.Lock()
				defer omu.Unlock()
				switch {
				case e.Kind == core.Started:
					started.Add(1)
					if cur := oRunning[e.Key]; cur != 0 {
						oErrs = append(oErrs, fmt.Sprintf("key %s: task %d started while %d runs", e.Key, e.Task, cur))
					}
					if e.Task <= oLast[e.Key] {
						oErrs = append(oErrs, fmt.Sprintf("key %s: task %d started after %d", e.Key, e.Task, oLast[e.Key]))
					}
					oRunning[e.Key], oLast[e.Key] = e.Task, e.Task
				case e.Kind.Terminal():
					if oRunning[e.Key] == e.Task {
						oRunning[e.Key] = 0
					}
				}
			}
			q := core.NewKeyedQueue[int](core.WithParallelism(par), core.WithObserver(observe))
			ctx := context.Background()
			var wg sync.WaitGroup
			for s := range submitters {
				wg.Go(func() {
					rng := rand.New(rand.NewPCG(uint64(s), 1))
					for r := range rounds {
						for k := s; k < keys; k += submitters {
							spins := rng.IntN(4)
							_, err := q.Submit(ctx, k, func(context.Context) error {
								if !running[k].CompareAndSwap(0, 1) {
									bad.Add(1)
								}
								for range spins {
									runtime.Gosched()
								}
								if got := next[k].Add(1) - 1; got != int32(r) {
									bad.Add(1)
								}
								running[k].Store(0)
								return nil
							})
							if err != nil {
								t.Errorf("Submit = %v, want nil", err)
								return
							}
						}
					}
				})
			}
			wg.Wait()
			if err := q.Drain(ctx); err != nil {
				t.Fatalf("Drain = %v, want nil", err)
			}
			if got := bad.Load(); got != 0 {
				t.Errorf("handlers saw %d overlaps or out-of-order runs, want 0", got)
			}
			for k := range keys {
				if got := next[k].Load(); got != rounds {
					t.Fatalf("key %d ran %d tasks, want %d", k, got, rounds)
				}
			}
			omu.Lock()
			defer omu.Unlock()
			if len(oErrs) > 0 {
				t.Errorf("observer saw %d violations, first: %s", len(oErrs), oErrs[0])
			}
			if got, want := started.Load(), int64(keys*rounds); got != want {
				t.Errorf("observer saw %d starts, want %d", got, want)
			}
			st := q.Stats()
			if st.Succeeded != keys*rounds || st.Submitted != keys*rounds {
				t.Errorf("Stats = %+v, want %d submitted and succeeded", st, keys*rounds)
			}
			if par > 0 && st.MaxRunning > par {
				t.Errorf("MaxRunning = %d, want at most %d", st.MaxRunning, par)
			}
		})
	}
}

func TestKeyedQueueParallelism(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const par = 3
		q := core.NewKeyedQueue[int](core.WithParallelism(par))
		defer q.Close()
		var now, peak atomic.Int32
		for k := range 10 {
			for range 3 {
				q.Submit(t.Context(), k, func(context.Context) error {
					n := now.Add(1)
					for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
					}
					time.Sleep(time.Second)
					now.Add(-1)
					return nil
				})
			}
		}
		time.Sleep(time.Second / 2)
		synctest.Wait()
		if got := q.Stats().Running; got != par {
			t.Errorf("Running = %d, want %d", got, par)
		}
		if got := queueGoroutines(); got != par {
			t.Errorf("goroutines in the queue = %d, want %d", got, par)
		}
		if err := q.Drain(t.Context()); err != nil {
			t.Fatalf("Drain = %v, want nil", err)
		}
		if got := peak.Load(); got != par {
			t.Errorf("peak running = %d, want %d", got, par)
		}
		if got := q.Stats().MaxRunning; got != par {
			t.Errorf("MaxRunning = %d, want %d", got, par)
		}
	})
}

func TestKeyedQueueUnlimitedParallelism(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := core.NewKeyedQueue[int]()
		defer q.Close()
		for k := range 50 {
			q.Submit(t.Context(), k, func(context.Context) error { time.Sleep(time.Second); return nil })
			q.Submit(t.Context(), k, func(context.Context) error { time.Sleep(time.Second); return nil })
		}
		synctest.Wait()
		if st := q.Stats(); st.Running != 50 || st.Pending != 50 || st.Parallelism != 0 {
			t.Errorf("Stats = %+v, want Running 50, Pending 50, Parallelism 0", st)
		}
	})
}

// TestKeyedQueueFairness checks that keys waiting for a slot take turns:
// a key with a long backlog does not delay the others. With one shard the
// turns are exact; with several, the keys of a shard take turns and the
// shards take turns for the slots.
func TestKeyedQueueFairness(t *testing.T) {
	for _, shards := range []int{1, 4} {
		t.Run("shards="+strconv.Itoa(shards), func(t *testing.T) {
			testKeyedQueueFairness(t, shards)
		})
	}
}

func testKeyedQueueFairness(t *testing.T, shards int) {
	t.Run("backlog", func(t *testing.T) {
		q := core.NewKeyedQueueShards[string](shards, core.WithParallelism(1))
		defer q.Close()
		ctx := context.Background()
		var mu sync.Mutex
		var order []string
		record := func(s string) func(context.Context) error {
			return func(context.Context) error {
				mu.Lock()
				order = append(order, s)
				mu.Unlock()
				return nil
			}
		}
		g := newGate()
		q.Submit(ctx, "hot", g.fn)
		<-g.started
		for i := range 100 {
			q.Submit(ctx, "hot", record("hot"+strconv.Itoa(i)))
		}
		for i := range 10 {
			q.Submit(ctx, "k"+strconv.Itoa(i), record("k"+strconv.Itoa(i)))
		}
		close(g.release)
		if err := q.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		want := []string{"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9", "hot0"}
		if shards == 1 {
			if got := order[:len(want)]; !slices.Equal(got, want) {
				t.Errorf("first runs = %v, want %v", got, want)
			}
			return
		}
		// Every other key runs before the hot key has run ten of its
		// hundred tasks.
		end := slices.Index(order, "hot9")
		for _, k := range want[:10] {
			if i := slices.Index(order, k); i < 0 || i > end {
				t.Errorf("%s ran at %d, after hot9 at %d: %v", k, i, end, order[:min(len(order), 30)])
			}
		}
	})
	t.Run("alternate", func(t *testing.T) {
		q := core.NewKeyedQueueShards[string](shards, core.WithParallelism(1))
		defer q.Close()
		ctx := context.Background()
		var mu sync.Mutex
		var order []string
		g := newGate()
		q.Submit(ctx, "gate", g.fn)
		<-g.started
		for range 20 {
			for _, k := range []string{"a", "b"} {
				q.Submit(ctx, k, func(context.Context) error {
					mu.Lock()
					order = append(order, k)
					mu.Unlock()
					return nil
				})
			}
		}
		close(g.release)
		q.Drain(ctx)
		// One shard alternates the keys task by task; shards take turns
		// of at most ShardTurn tasks while both have work.
		run := 0
		for i, k := range order {
			if want := []string{"a", "b"}[i%2]; shards == 1 && k != want {
				t.Fatalf("run %d was key %s, want %s (order %v)", i, k, want, order)
			}
			if i > 0 && k == order[i-1] {
				run++
			} else {
				run = 1
			}
			if rest := order[i+1:]; run > core.ShardTurn && slices.Contains(rest, map[string]string{"a": "b", "b": "a"}[k]) {
				t.Fatalf("key %s ran %d times in a row at run %d while the other key waited, want at most %d (order %v)", k, run, i, core.ShardTurn, order)
			}
		}
		if len(order) != 40 {
			t.Errorf("ran %d tasks, want 40", len(order))
		}
	})
}

func TestKeyedQueueEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec recorder
		start := time.Now()
		q := core.NewKeyedQueue[int](core.WithParallelism(1), core.WithObserver(rec.observe), core.WithIdleTimeout(time.Minute))
		ctx := t.Context()
		a1, _ := q.Submit(ctx, 7, func(context.Context) error { time.Sleep(time.Second); return nil }, core.WithName("a1"), core.WithPriority(core.High))
		a2, _ := q.Submit(ctx, 7, func(context.Context) error { return errors.New("boom") })
		b1, _ := q.Submit(ctx, 8, func(context.Context) error { panic("oops") })
		synctest.Wait()
		if err := q.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			task *core.Task
			want []core.EventKind
		}{
			{a1, []core.EventKind{core.Enqueued, core.Started, core.Finished}},
			{a2, []core.EventKind{core.Enqueued, core.Waiting, core.Started, core.Failed}},
			{b1, []core.EventKind{core.Enqueued, core.Waiting, core.Started, core.Panicked}},
		} {
			if got := rec.kinds(c.task.ID()); !slices.Equal(got, c.want) {
				t.Errorf("task %d events = %v, want %v", c.task.ID(), got, c.want)
			}
		}
		events := rec.all()
		for _, e := range events {
			if e.Task == a1.ID() && (e.Name != "a1" || e.Priority != core.High || e.Key != "7" || e.Lane != 0 || e.Weight != 1) {
				t.Errorf("a1 event = %+v, want Name a1, Priority high, Key 7, Lane 0, Weight 1", e)
			}
			if e.Task == b1.ID() && (e.Key != "8" || e.Lane != 1) {
				t.Errorf("b1 event = %+v, want Key 8, Lane 1", e)
			}
			if e.Task == b1.ID() && e.Kind == core.Panicked {
				if _, ok := e.Err.(*core.PanicError); !ok {
					t.Errorf("Panicked event Err = %T, want *core.PanicError", e.Err)
				}
			}
			if e.Time.Before(start) {
				t.Errorf("event %v at %v, before the start %v", e.Kind, e.Time, start)
			}
		}
		if first := events[0]; first.Kind != core.LaneCreated || first.Key != "7" || first.Task != 0 {
			t.Errorf("first event = %+v, want LaneCreated for key 7", first)
		}
		last := events[len(events)-1]
		if last.Kind != core.Closed {
			t.Errorf("last event = %v, want closed", last.Kind)
		}
		checkLives(t, events)
	})
}

// TestKeyedQueueEviction checks, in virtual time, that a lane is removed
// exactly when it has had no work for the idle timeout.
func TestKeyedQueueEviction(t *testing.T) {
	const idle = time.Minute
	synctest.Test(t, func(t *testing.T) {
		var rec recorder
		q := core.NewKeyedQueue[string](core.WithIdleTimeout(idle), core.WithObserver(rec.observe))
		defer q.Close()
		ctx := t.Context()
		if err := q.Do(ctx, "a", func(context.Context) error { time.Sleep(time.Second); return nil }); err != nil {
			t.Fatal(err)
		}
		lastDone := time.Now()
		q.Do(ctx, "b", nop)
		synctest.Wait()
		if got := q.Stats().Lanes; got != 2 {
			t.Fatalf("Lanes = %d, want 2", got)
		}
		// Work 50s later restarts the clock for "a".
		time.Sleep(50 * time.Second)
		q.Do(ctx, "a", nop)
		lastDone = time.Now()
		time.Sleep(idle - 50*time.Second - time.Nanosecond)
		synctest.Wait()
		if got := q.Stats().Lanes; got != 2 {
			t.Fatalf("Lanes one nanosecond before b's timeout = %d, want 2", got)
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		if got := q.Stats().Lanes; got != 1 {
			t.Fatalf("Lanes at b's timeout = %d, want 1", got)
		}
		time.Sleep(lastDone.Add(idle).Sub(time.Now()) - time.Nanosecond)
		synctest.Wait()
		if got := q.Stats().Lanes; got != 1 {
			t.Fatalf("Lanes one nanosecond before a's timeout = %d, want 1", got)
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		if got := q.Stats().Lanes; got != 0 {
			t.Fatalf("Lanes at a's timeout = %d, want 0", got)
		}
		var evicted []core.Event
		for _, e := range rec.laneEvents() {
			if e.Kind == core.LaneEvicted {
				evicted = append(evicted, e)
			}
		}
		if len(evicted) != 2 || evicted[0].Key != "b" || evicted[1].Key != "a" {
			t.Fatalf("evictions = %+v, want b then a", evicted)
		}
		if got, want := evicted[1].Time, lastDone.Add(idle); !got.Equal(want) {
			t.Errorf("a evicted at %v, want %v", got, want)
		}
		// A new task re-creates the lane, with the smallest free number.
		q.Do(ctx, "c", nop)
		es := rec.laneEvents()
		if last := es[len(es)-1]; last.Kind != core.LaneCreated || last.Key != "c" || last.Lane != 0 {
			t.Errorf("last lane event = %+v, want LaneCreated for c on lane 0", last)
		}
	})
}

// TestKeyedQueueEvictionBusyLane checks that a lane with running or pending
// work is never evicted, however long the work takes.
func TestKeyedQueueEvictionBusyLane(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := core.NewKeyedQueue[string](core.WithIdleTimeout(time.Second))
		defer q.Close()
		q.Submit(t.Context(), "a", func(context.Context) error { time.Sleep(time.Hour); return nil })
		q.Submit(t.Context(), "a", nop)
		time.Sleep(time.Hour - time.Nanosecond)
		synctest.Wait()
		if got := q.Stats().Lanes; got != 1 {
			t.Errorf("Lanes while busy = %d, want 1", got)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if got := q.Stats().Lanes; got != 1 {
			t.Errorf("Lanes just under the timeout after the work = %d, want 1", got)
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		if got := q.Stats().Lanes; got != 0 {
			t.Errorf("Lanes at the timeout after the work = %d, want 0", got)
		}
	})
}

// TestKeyedQueueEvictionRace submits a task at the very instant its lane
// times out, again and again, and checks that no task is lost, reordered
// or run alongside another of its key, and that the lane events stay
// consistent.
func TestKeyedQueueEvictionRace(t *testing.T) {
	const idle = time.Second
	synctest.Test(t, func(t *testing.T) {
		var rec recorder
		q := core.NewKeyedQueue[string](core.WithIdleTimeout(idle), core.WithObserver(rec.observe))
		defer q.Close()
		ctx := t.Context()
		var running atomic.Int32
		var order []int
		task := func(i int) func(context.Context) error {
			return func(context.Context) error {
				if running.Add(1) != 1 {
					t.Errorf("task %d ran alongside another", i)
				}
				order = append(order, i) // serialized by the key
				running.Add(-1)
				return nil
			}
		}
		const n = 300
		for i := 0; i < n; i += 3 {
			q.Submit(ctx, "k", task(i))
			synctest.Wait()
			time.Sleep(idle) // wake exactly as the timer fires
			// Two submitters race the eviction: one right now, one after
			// the timer's function may have run.
			done := make(chan struct{})
			go func() {
				q.Submit(ctx, "k", task(i+1))
				close(done)
			}()
			<-done
			runtime.Gosched()
			q.Submit(ctx, "k", task(i+2))
		}
		if err := q.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		if len(order) != n {
			t.Fatalf("ran %d tasks, want %d", len(order), n)
		}
		for i, got := range order {
			if got != i {
				t.Fatalf("run %d was task %d, want %d", i, got, i)
			}
		}
		// Lane events alternate: created, evicted, created, ...
		es := rec.laneEvents()
		for i, e := range es {
			want := core.LaneCreated
			if i%2 == 1 {
				want = core.LaneEvicted
			}
			if e.Kind != want || e.Lane != 0 {
				t.Fatalf("lane event %d = %v on lane %d, want %v on lane 0", i, e.Kind, e.Lane, want)
			}
		}
		if len(es) < 4 {
			t.Errorf("saw %d lane events, want several evictions", len(es))
		}
		checkLives(t, rec.all())
	})
}

// TestKeyedQueueEvictionStress races submissions against evictions in real
// time, with an idle timeout so short that a lane is removed between most
// tasks.
func TestKeyedQueueEvictionStress(t *testing.T) {
	const (
		keys  = 8
		tasks = 400
	)
	var rec recorder
	q := core.NewKeyedQueue[int](core.WithIdleTimeout(time.Microsecond), core.WithParallelism(3), core.WithObserver(rec.observe))
	ctx := context.Background()
	var wg sync.WaitGroup
	var bad atomic.Int64
	ran := make([]int, keys)
	for k := range keys {
		var running atomic.Int32
		wg.Go(func() {
			for i := range tasks {
				fn := func(context.Context) error {
					if running.Add(1) != 1 || ran[k] != i {
						bad.Add(1)
					}
					ran[k]++
					running.Add(-1)
					return nil
				}
				if i%7 == 0 {
					q.Do(ctx, k, fn)
				} else {
					q.Submit(ctx, k, fn)
				}
				if i%3 == 0 {
					runtime.Gosched()
				}
			}
		})
	}
	wg.Wait()
	if err := q.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if got := bad.Load(); got != 0 {
		t.Errorf("%d tasks overlapped or ran out of order, want 0", got)
	}
	for k, n := range ran {
		if n != tasks {
			t.Errorf("key %d ran %d tasks, want %d", k, n, tasks)
		}
	}
	// Per key, lane events alternate created/evicted.
	created := map[string]bool{}
	for _, e := range rec.laneEvents() {
		if (e.Kind == core.LaneCreated) == created[e.Key] {
			t.Fatalf("key %s: %v while created=%v", e.Key, e.Kind, created[e.Key])
		}
		created[e.Key] = e.Kind == core.LaneCreated
	}
	checkLives(t, rec.all())
}

// TestKeyedQueueIdleCostsNothing checks that 100,000 keys, once idle, hold
// no goroutine, and once evicted, no memory.
func TestKeyedQueueIdleCostsNothing(t *testing.T) {
	const (
		keys = 100_000
		idle = time.Minute
	)
	synctest.Test(t, func(t *testing.T) {
		baseHeap := heapInUse()
		q := core.NewKeyedQueue[int](core.WithIdleTimeout(idle), core.WithParallelism(4))
		// Not t.Context(): a cancelable context keeps, in its own map of
		// children, the memory of the most tasks pending at once.
		ctx := context.Background()
		var ran atomic.Int64
		fn := func(context.Context) error { ran.Add(1); return nil }
		for k := range keys {
			if _, err := q.Submit(ctx, k, fn); err != nil {
				t.Fatal(err)
			}
		}
		synctest.Wait()
		if got := ran.Load(); got != keys {
			t.Fatalf("ran %d tasks, want %d", got, keys)
		}
		if got := q.Stats().Lanes; got != keys {
			t.Fatalf("Lanes = %d, want %d", got, keys)
		}
		if got := queueGoroutines(); got != 0 {
			t.Errorf("goroutines in the queue with %d idle lanes = %d, want 0", keys, got)
		}
		loaded := heapInUse()
		time.Sleep(idle)
		synctest.Wait()
		if got := q.Stats().Lanes; got != 0 {
			t.Fatalf("Lanes after the idle timeout = %d, want 0", got)
		}
		if got := queueGoroutines(); got != 0 {
			t.Errorf("goroutines in the queue after eviction = %d, want 0", got)
		}
		after := heapInUse()
		// The lanes took megabytes; what is left must be a small fraction.
		if grown := after - baseHeap; grown > 256<<10 || grown*20 > loaded-baseHeap {
			t.Errorf("heap after eviction = %d bytes above the baseline (%d with idle lanes), want under 256 KiB and 5%%", grown, loaded-baseHeap)
		}
		runtime.KeepAlive(q)
		q.Close()
	})
}

// TestKeyedQueueEvictedShardsHoldNothing checks that a sharded queue whose
// lanes have all been evicted holds no more memory than when it was made:
// each shard lets go of its lane map, the pending ring its lanes' tasks
// filled, its idle timer, the watches of its tasks' contexts and the
// buffers its busy time grew.
func TestKeyedQueueEvictedShardsHoldNothing(t *testing.T) {
	const (
		shards = 64
		keys   = shards * 40 // a pending ring of up to 64 tasks per shard
		idle   = time.Minute
	)
	for _, contexts := range []int{0, 256} {
		t.Run(fmt.Sprintf("%d cancelable contexts", contexts), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				testEvictedShards(t, shards, keys, contexts, idle)
			})
		})
	}
}

// testEvictedShards runs a queue of the given shards through every lane
// being filled and evicted, twice, and checks that the live heap is back
// where it was once the queue was made. The tasks' contexts take turns
// among that many cancelable ones, or are context.Background.
func testEvictedShards(t *testing.T, shards, keys, contexts int, idle time.Duration) {
	newQueue := func() *core.KeyedQueue[int] {
		return core.NewKeyedQueueShards[int](shards, core.WithIdleTimeout(idle), core.WithParallelism(1))
	}
	// Fill every lane, with key 0's task holding the one slot while the
	// others wait in their shards' pending queues; then let every lane be
	// evicted.
	run := func(q *core.KeyedQueue[int]) {
		ctxs := []context.Context{context.Background()}
		if contexts > 0 {
			ctxs = ctxs[:0]
			for range contexts {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				ctxs = append(ctxs, ctx)
			}
		}
		g := newGate()
		if _, err := q.Submit(context.Background(), 0, g.fn); err != nil {
			t.Fatal(err)
		}
		<-g.started
		for k := 1; k < keys; k++ {
			if _, err := q.Submit(ctxs[k%len(ctxs)], k, nop); err != nil {
				t.Fatal(err)
			}
		}
		close(g.release)
		synctest.Wait()
		if st := q.Stats(); st.Pending+st.Running != 0 || st.Lanes != keys {
			t.Fatalf("Stats = %+v, want nothing pending or running in %d lanes", st, keys)
		}
		time.Sleep(idle)
		synctest.Wait()
		if got := q.Stats().Lanes; got != 0 {
			t.Fatalf("Lanes after the idle timeout = %d, want 0", got)
		}
	}
	// The runtime keeps what such a run makes it grow (the descriptors of
	// the goroutines that timers start, say): one run on another queue,
	// and many goroutines, first, so that it is not counted.
	warm := newQueue()
	run(warm)
	warm.Close()
	var wg sync.WaitGroup
	for range 1024 {
		wg.Go(func() { time.Sleep(time.Millisecond) })
	}
	wg.Wait()
	q := newQueue()
	base := heapInUse()
	run(q)
	run(q)
	grown := heapInUse() - base
	runtime.KeepAlive(q)
	if grown > 16<<10 {
		t.Errorf("a queue of %d shards with every lane evicted holds %d B more than when it was made, want under 16 KiB", shards, grown)
	}
	q.Close()
}

// queueGoroutines counts the goroutines running KeyedQueue code in the
// caller's synctest bubble, so that goroutines of earlier tests still on
// their way out do not count.
func queueGoroutines() int {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	gs := strings.Split(string(buf), "\n\n")
	// The caller's own stack comes first; its header names its bubble,
	// as in "goroutine 9 [running, synctest bubble 1]:".
	header, _, _ := strings.Cut(gs[0], "\n")
	bubble := "" // as in "synctest bubble 1]", or none
	if i := strings.Index(header, "synctest bubble "); i >= 0 {
		if j := strings.Index(header[i:], "]"); j >= 0 {
			bubble = header[i : i+j+1]
		}
	}
	count := 0
	for _, g := range gs {
		header, _, _ := strings.Cut(g, "\n")
		if strings.Contains(header, bubble) && strings.Contains(g, "sluice/core.(*engine).work(") {
			count++
		}
	}
	return count
}

func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

func TestKeyedQueueCapacity(t *testing.T) {
	t.Run("blocks until room, in order", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var rec recorder
			q := core.NewKeyedQueue[string](core.WithCapacity(2), core.WithObserver(rec.observe))
			defer q.Close()
			ctx := t.Context()
			g := newGate()
			q.Submit(ctx, "a", g.fn)
			<-g.started
			var order []int
			add := func(i int) func(context.Context) error {
				return func(context.Context) error { order = append(order, i); return nil }
			}
			q.Submit(ctx, "a", add(1))
			q.Submit(ctx, "a", add(2))
			// Other keys have their own room.
			if _, err := q.Submit(ctx, "b", nop); err != nil {
				t.Fatal(err)
			}
			returned := make(chan int, 2)
			for _, i := range []int{3, 4} {
				go func() {
					if _, err := q.Submit(ctx, "a", add(i)); err != nil {
						t.Errorf("Submit = %v, want nil", err)
					}
					returned <- i
				}()
				synctest.Wait() // 3 waits before 4
			}
			if len(returned) != 0 {
				t.Fatalf("Submit returned with the lane full")
			}
			if got := q.Stats().Pending; got != 2 {
				t.Errorf("Pending = %d, want 2", got)
			}
			close(g.release)
			synctest.Wait()
			if len(returned) != 2 {
				t.Fatalf("%d waiting Submit calls returned, want 2", len(returned))
			}
			if want := []int{1, 2, 3, 4}; !slices.Equal(order, want) {
				t.Errorf("order = %v, want %v", order, want)
			}
			checkLives(t, rec.all())
		})
	})
	t.Run("TrySubmit refuses a full lane", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := core.NewKeyedQueue[string](core.WithCapacity(1))
			defer q.Close()
			g := newGate()
			if _, err := q.TrySubmit("a", g.fn); err != nil {
				t.Fatalf("TrySubmit on an empty lane = %v, want nil", err)
			}
			<-g.started
			if _, err := q.TrySubmit("a", nop); err != nil {
				t.Fatalf("TrySubmit with room = %v, want nil", err)
			}
			before := q.Stats()
			ran := false
			tk, err := q.TrySubmit("a", func(context.Context) error { ran = true; return nil })
			if tk != nil || err != core.ErrFull {
				t.Errorf("TrySubmit on a full lane = %v, %v, want nil, ErrFull", tk, err)
			}
			after := q.Stats()
			after.OldestPending = before.OldestPending // the pending task waited on
			if after != before {
				t.Errorf("Stats after the refusal = %+v, want %+v", after, before)
			}
			if _, err := q.TrySubmit("b", nop); err != nil {
				t.Errorf("TrySubmit on another key = %v, want nil", err)
			}
			close(g.release)
			q.Drain(t.Context())
			if ran {
				t.Error("the refused task ran")
			}
			if _, err := q.TrySubmit("a", nop); err != core.ErrClosed {
				t.Errorf("TrySubmit after Drain = %v, want ErrClosed", err)
			}
		})
	})
	t.Run("context ends the wait", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := core.NewKeyedQueue[string](core.WithCapacity(1))
			defer q.Close()
			g := newGate()
			q.Submit(t.Context(), "a", g.fn)
			<-g.started
			q.Submit(t.Context(), "a", nop)
			before := q.Stats()
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			defer cancel()
			ran := false
			tk, err := q.Submit(ctx, "a", func(context.Context) error { ran = true; return nil })
			if tk != nil || err != context.DeadlineExceeded {
				t.Errorf("Submit = %v, %v, want nil, %v", tk, err, context.DeadlineExceeded)
			}
			if err := q.Do(ctx, "a", nop); err != context.DeadlineExceeded {
				t.Errorf("Do with an ended context = %v, want %v", err, context.DeadlineExceeded)
			}
			after := q.Stats()
			after.OldestPending = before.OldestPending // the pending task waited on
			if after != before {
				t.Errorf("Stats after the failed wait = %+v, want %+v", after, before)
			}
			close(g.release)
			q.Drain(t.Context())
			if ran {
				t.Error("the refused task ran")
			}
		})
	})
	t.Run("close ends the wait", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := core.NewKeyedQueue[string](core.WithCapacity(1))
			g := newGate()
			q.Submit(t.Context(), "a", g.fn)
			<-g.started
			q.Submit(t.Context(), "a", nop)
			errc := make(chan error, 2)
			go func() { _, err := q.Submit(t.Context(), "a", nop); errc <- err }()
			go func() { errc <- q.Do(t.Context(), "a", nop) }()
			synctest.Wait()
			drained := make(chan error)
			go func() { drained <- q.Drain(t.Context()) }()
			for range 2 {
				if err := <-errc; err != core.ErrClosed {
					t.Errorf("waiting Submit after Drain = %v, want ErrClosed", err)
				}
			}
			close(g.release)
			if err := <-drained; err != nil {
				t.Errorf("Drain = %v, want nil", err)
			}
			if st := q.Stats(); st.Succeeded != 2 || st.Submitted != 2 {
				t.Errorf("Stats = %+v, want 2 submitted and succeeded", st)
			}
		})
	})
}

func TestKeyedQueueCancel(t *testing.T) {
	t.Run("context ends before start", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var rec recorder
			q := core.NewKeyedQueue[string](core.WithObserver(rec.observe))
			defer q.Close()
			g := newGate()
			q.Submit(t.Context(), "a", g.fn)
			<-g.started
			ctx, cancel := context.WithCancelCause(t.Context())
			ran := false
			tk, err := q.Submit(ctx, "a", func(context.Context) error { ran = true; return nil })
			if err != nil {
				t.Fatal(err)
			}
			cancel(errors.New("why"))
			synctest.Wait()
			// Canceled at once, though the lane is still busy.
			if got := tk.State(); got != core.TaskCanceled {
				t.Errorf("State = %v, want canceled", got)
			}
			if err := tk.Wait(t.Context()); err != context.Canceled {
				t.Errorf("Wait = %v, want %v", err, context.Canceled)
			}
			if st := q.Stats(); st.Canceled != 1 || st.Pending != 0 || st.Running != 1 {
				t.Errorf("Stats = %+v, want 1 canceled, 0 pending, 1 running", st)
			}
			close(g.release)
			q.Drain(t.Context())
			if ran {
				t.Error("the canceled task ran")
			}
			if got, want := rec.kinds(tk.ID()), []core.EventKind{core.Enqueued, core.Waiting, core.Canceled}; !slices.Equal(got, want) {
				t.Errorf("events = %v, want %v", got, want)
			}
		})
	})
	t.Run("Do context ends before start", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := core.NewKeyedQueue[string]()
			defer q.Close()
			g := newGate()
			q.Submit(t.Context(), "a", g.fn)
			<-g.started
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			defer cancel()
			ran := false
			if err := q.Do(ctx, "a", func(context.Context) error { ran = true; return nil }); err != context.DeadlineExceeded {
				t.Errorf("Do = %v, want %v", err, context.DeadlineExceeded)
			}
			close(g.release)
			q.Drain(t.Context())
			if ran {
				t.Error("the canceled task ran")
			}
		})
	})
	t.Run("Do context ends while running", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := core.NewKeyedQueue[string]()
			defer q.Close()
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			defer cancel()
			returned := false
			err := q.Do(ctx, "a", func(ctx context.Context) error {
				<-ctx.Done()
				time.Sleep(time.Second) // Do waits for the function
				returned = true
				return ctx.Err()
			})
			if err != context.DeadlineExceeded || !returned {
				t.Errorf("Do = %v (function returned: %v), want %v after the function returned", err, returned, context.DeadlineExceeded)
			}
		})
	})
	t.Run("context already ended", func(t *testing.T) {
		q := core.NewKeyedQueue[string]()
		defer q.Close()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if tk, err := q.Submit(ctx, "a", nop); tk != nil || err != context.Canceled {
			t.Errorf("Submit = %v, %v, want nil, %v", tk, err, context.Canceled)
		}
		if err := q.Do(ctx, "a", nop); err != context.Canceled {
			t.Errorf("Do = %v, want %v", err, context.Canceled)
		}
		if st := q.Stats(); st != (core.QueueStats{}) {
			t.Errorf("Stats = %+v, want zero", st)
		}
	})
	t.Run("Task.Cancel pending", func(t *testing.T) {
		q := core.NewKeyedQueue[string]()
		defer q.Close()
		g := newGate()
		q.Submit(context.Background(), "a", g.fn)
		<-g.started
		ran := false
		tk, _ := q.Submit(context.Background(), "a", func(context.Context) error { ran = true; return nil })
		after, _ := q.Submit(context.Background(), "a", nop)
		tk.Cancel()
		if err := tk.Wait(context.Background()); err != context.Canceled {
			t.Errorf("Wait = %v, want %v", err, context.Canceled)
		}
		close(g.release)
		if err := after.Wait(context.Background()); err != nil {
			t.Errorf("the next task's Wait = %v, want nil", err)
		}
		if ran {
			t.Error("the canceled task ran")
		}
	})
	t.Run("Task.Cancel running", func(t *testing.T) {
		q := core.NewKeyedQueue[string]()
		defer q.Close()
		started := make(chan struct{})
		tk, _ := q.Submit(context.Background(), "a", func(ctx context.Context) error {
			close(started)
			<-ctx.Done()
			return ctx.Err()
		})
		<-started
		tk.Cancel()
		if err := tk.Wait(context.Background()); err != context.Canceled {
			t.Errorf("Wait = %v, want %v", err, context.Canceled)
		}
		if got := tk.State(); got != core.TaskCanceled {
			t.Errorf("State = %v, want canceled", got)
		}
	})
	t.Run("submitter context ends while running", func(t *testing.T) {
		q := core.NewKeyedQueue[string]()
		defer q.Close()
		ctx, cancel := context.WithCancel(context.Background())
		started := make(chan struct{})
		tk, _ := q.Submit(ctx, "a", func(ctx context.Context) error {
			close(started)
			<-ctx.Done()
			return fmt.Errorf("stopped: %w", ctx.Err())
		})
		<-started
		cancel()
		if err := tk.Wait(context.Background()); !errors.Is(err, context.Canceled) {
			t.Errorf("Wait = %v, want one wrapping %v", err, context.Canceled)
		}
		if got := tk.State(); got != core.TaskCanceled {
			t.Errorf("State = %v, want canceled", got)
		}
	})
}

type ctxKey struct{}

// TestKeyedQueueTaskContext checks the context a task runs with: it
// carries the submitter's values and deadline, ends with the submitter's
// context, Task.Cancel or Close, lets derived contexts and AfterFunc follow
// it, and has ended once the function returned.
func TestKeyedQueueTaskContext(t *testing.T) {
	t.Run("values and deadline", func(t *testing.T) {
		q := core.NewKeyedQueue[int]()
		defer q.Close()
		deadline := time.Now().Add(time.Hour)
		ctx, cancel := context.WithDeadline(context.WithValue(context.Background(), ctxKey{}, "v"), deadline)
		defer cancel()
		var kept context.Context
		err := q.Do(ctx, 1, func(ctx context.Context) error {
			kept = ctx
			if got := ctx.Value(ctxKey{}); got != "v" {
				t.Errorf("Value = %v, want v", got)
			}
			if got, ok := ctx.Deadline(); !ok || !got.Equal(deadline) {
				t.Errorf("Deadline = %v, %v, want %v, true", got, ok, deadline)
			}
			if err := ctx.Err(); err != nil {
				t.Errorf("Err while running = %v, want nil", err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := kept.Err(); err != context.Canceled {
			t.Errorf("Err after the function returned = %v, want %v", err, context.Canceled)
		}
		select {
		case <-kept.Done():
		default:
			t.Error("Done is open after the function returned")
		}
	})
	for _, how := range []string{"submitter deadline", "Task.Cancel", "Close"} {
		t.Run(how, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := core.NewKeyedQueue[int]()
				defer q.Close()
				ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
				defer cancel()
				started := make(chan struct{})
				var afterRan atomic.Bool
				var derivedErr, doneErr error
				tk, _ := q.Submit(ctx, 1, func(ctx context.Context) error {
					derived, stop := context.WithCancel(context.WithValue(ctx, ctxKey{}, 1))
					defer stop()
					context.AfterFunc(ctx, func() { afterRan.Store(true) })
					unused := context.AfterFunc(ctx, func() { t.Error("stopped AfterFunc ran") })
					if !unused() {
						t.Error("AfterFunc stop = false, want true")
					}
					close(started)
					<-derived.Done()
					derivedErr = derived.Err()
					<-ctx.Done()
					doneErr = ctx.Err()
					return ctx.Err()
				})
				<-started
				synctest.Wait()
				want := context.Canceled
				switch how {
				case "submitter deadline":
					time.Sleep(time.Hour)
					want = context.DeadlineExceeded
				case "Task.Cancel":
					tk.Cancel()
				case "Close":
					q.Close()
				}
				if err := tk.Wait(t.Context()); err != want {
					t.Errorf("Wait = %v, want %v", err, want)
				}
				if derivedErr != want || doneErr != want {
					t.Errorf("derived context Err = %v, task context Err = %v, want %v", derivedErr, doneErr, want)
				}
				synctest.Wait()
				if !afterRan.Load() {
					t.Error("AfterFunc did not run")
				}
			})
		})
	}
	t.Run("Do context ends while running", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := core.NewKeyedQueue[int]()
			defer q.Close()
			ctx, cancel := context.WithCancel(t.Context())
			time.AfterFunc(time.Second, cancel)
			err := q.Do(ctx, 1, func(ctx context.Context) error {
				<-ctx.Done()
				return ctx.Err()
			})
			if err != context.Canceled {
				t.Errorf("Do = %v, want %v", err, context.Canceled)
			}
		})
	})
}

// TestKeyedQueueGoexit checks that a task calling runtime.Goexit ends as
// failed and that its key and the queue go on working.
func TestKeyedQueueGoexit(t *testing.T) {
	q := core.NewKeyedQueue[int](core.WithParallelism(1))
	tk, _ := q.Submit(context.Background(), 1, func(context.Context) error {
		runtime.Goexit()
		return nil
	})
	after, _ := q.Submit(context.Background(), 1, nop)
	other, _ := q.Submit(context.Background(), 2, nop)
	if err := tk.Wait(context.Background()); err == nil || tk.State() != core.TaskFailed {
		t.Errorf("Goexit task: Wait = %v, State = %v, want an error and failed", err, tk.State())
	}
	for _, tk := range []*core.Task{after, other} {
		if err := tk.Wait(context.Background()); err != nil {
			t.Errorf("next task: Wait = %v, want nil", err)
		}
	}
	if err := q.Drain(context.Background()); err != nil {
		t.Errorf("Drain = %v, want nil", err)
	}
	if st := q.Stats(); st.Failed != 1 || st.Succeeded != 2 || st.Running != 0 {
		t.Errorf("Stats = %+v, want 1 failed, 2 succeeded, 0 running", st)
	}
}

func TestKeyedQueuePanic(t *testing.T) {
	q := core.NewKeyedQueue[string](core.WithParallelism(1))
	defer q.Close()
	ctx := context.Background()
	err := q.Do(ctx, "a", func(context.Context) error { panic("oops") })
	var pe *core.PanicError
	if !errors.As(err, &pe) || pe.Value != "oops" || len(pe.Stack) == 0 {
		t.Fatalf("Do = %v, want a *PanicError with value oops and a stack", err)
	}
	// The slot was released: the same key and another one still run.
	if err := q.Do(ctx, "a", nop); err != nil {
		t.Errorf("next Do on the key = %v, want nil", err)
	}
	if err := q.Do(ctx, "b", nop); err != nil {
		t.Errorf("Do on another key = %v, want nil", err)
	}
	tk, _ := q.Submit(ctx, "a", func(context.Context) error { panic(errors.New("inner")) })
	tk.Wait(ctx)
	if got := tk.State(); got != core.TaskPanicked {
		t.Errorf("State = %v, want panicked", got)
	}
	if st := q.Stats(); st.Panicked != 2 || st.Succeeded != 2 || st.Running != 0 {
		t.Errorf("Stats = %+v, want 2 panicked, 2 succeeded, 0 running", st)
	}
}

func TestKeyedQueueClose(t *testing.T) {
	t.Run("cancels pending and running work and waits", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var rec recorder
			q := core.NewKeyedQueue[int](core.WithParallelism(2), core.WithObserver(rec.observe))
			ctx := t.Context()
			returned := make(chan int, 2)
			var running []*core.Task
			for k := range 2 {
				tk, _ := q.Submit(ctx, k, func(ctx context.Context) error {
					<-ctx.Done()
					time.Sleep(time.Second) // Close waits for this
					returned <- k
					return ctx.Err()
				})
				running = append(running, tk)
			}
			synctest.Wait()
			ran := false
			var pending []*core.Task
			for k := range 4 {
				tk, _ := q.Submit(ctx, k, func(context.Context) error { ran = true; return nil })
				pending = append(pending, tk)
			}
			if err := q.Close(); err != nil {
				t.Errorf("Close = %v, want nil", err)
			}
			if len(returned) != 2 {
				t.Errorf("Close returned before the running tasks")
			}
			if ran {
				t.Error("a pending task ran")
			}
			for _, tk := range pending {
				if got := tk.Err(); got != context.Canceled {
					t.Errorf("pending task Err = %v, want %v", got, context.Canceled)
				}
			}
			for _, tk := range running {
				if got := tk.State(); got != core.TaskCanceled {
					t.Errorf("running task State = %v, want canceled", got)
				}
			}
			if _, err := q.Submit(ctx, 1, nop); err != core.ErrClosed {
				t.Errorf("Submit after Close = %v, want ErrClosed", err)
			}
			if err := q.Do(ctx, 1, nop); err != core.ErrClosed {
				t.Errorf("Do after Close = %v, want ErrClosed", err)
			}
			if err := q.Close(); err != nil {
				t.Errorf("second Close = %v, want nil", err)
			}
			if err := q.Drain(ctx); err != nil {
				t.Errorf("Drain after Close = %v, want nil", err)
			}
			st := q.Stats()
			if st.Lanes != 0 || st.Canceled != 6 || st.Pending != 0 || st.Running != 0 {
				t.Errorf("Stats = %+v, want 0 lanes, 6 canceled, nothing pending or running", st)
			}
			events := rec.all()
			if last := events[len(events)-1]; last.Kind != core.Closed {
				t.Errorf("last event = %v, want closed", last.Kind)
			}
			checkLives(t, events)
		})
	})
	t.Run("concurrent Close and Drain", func(t *testing.T) {
		for range 50 {
			q := core.NewKeyedQueue[int](core.WithParallelism(2))
			for k := range 20 {
				q.Submit(context.Background(), k%5, func(ctx context.Context) error { runtime.Gosched(); return nil })
			}
			var wg sync.WaitGroup
			for i := range 4 {
				wg.Go(func() {
					if i%2 == 0 {
						q.Close()
					} else {
						q.Drain(context.Background())
					}
					if _, err := q.Submit(context.Background(), 1, nop); err != core.ErrClosed {
						t.Errorf("Submit after Close/Drain = %v, want ErrClosed", err)
					}
				})
			}
			wg.Wait()
			if st := q.Stats(); st.Submitted != st.Succeeded+st.Canceled || st.Submitted != 20 || st.Lanes != 0 {
				t.Fatalf("Stats = %+v, want all 20 tasks ended and no lane", st)
			}
		}
	})
}

func TestKeyedQueueDrain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec recorder
		q := core.NewKeyedQueue[int](core.WithParallelism(2), core.WithIdleTimeout(time.Hour), core.WithObserver(rec.observe))
		ctx := t.Context()
		var done atomic.Int32
		for k := range 3 {
			for range 2 {
				q.Submit(ctx, k, func(context.Context) error {
					time.Sleep(time.Second)
					done.Add(1)
					return nil
				})
			}
		}
		short, cancel := context.WithTimeout(ctx, time.Second/2)
		defer cancel()
		if err := q.Drain(short); err != context.DeadlineExceeded {
			t.Errorf("Drain with a short context = %v, want %v", err, context.DeadlineExceeded)
		}
		if _, err := q.Submit(ctx, 9, nop); err != core.ErrClosed {
			t.Errorf("Submit while draining = %v, want ErrClosed", err)
		}
		if err := q.Drain(ctx); err != nil {
			t.Errorf("Drain = %v, want nil", err)
		}
		if got := done.Load(); got != 6 {
			t.Errorf("%d tasks finished, want 6", got)
		}
		if st := q.Stats(); st.Succeeded != 6 || st.Lanes != 0 {
			t.Errorf("Stats = %+v, want 6 succeeded and no lane", st)
		}
		// Every lane is reported removed, then the queue closed.
		es := rec.all()
		evicted := 0
		for _, e := range es {
			if e.Kind == core.LaneEvicted {
				evicted++
			}
		}
		if evicted != 3 || es[len(es)-1].Kind != core.Closed {
			t.Errorf("saw %d lane evictions and last event %v, want 3 and closed", evicted, es[len(es)-1].Kind)
		}
		if err := q.Close(); err != nil {
			t.Errorf("Close after Drain = %v, want nil", err)
		}
	})
}

// TestKeyedQueueDrainHandOffCanceled drains a sharded queue while a
// worker hands its slot to a starved shard whose only task's context has
// just ended, its watch not yet fired: the shard ends that task as it takes
// it, and must stop then, for no later call would stop it. On one core the
// worker reaches the shard before the watch's goroutine runs.
func TestKeyedQueueDrainHandOffCanceled(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for i := range 20 {
		synctest.Test(t, func(t *testing.T) {
			q := core.NewKeyedQueueShards[int](2, core.WithParallelism(1))
			defer q.Close()
			b := 1
			for core.KeyShard(q, b) == core.KeyShard(q, 0) {
				b++
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			g := newGate()
			q.Submit(context.Background(), 0, func(context.Context) error {
				g.fn(ctx)
				cancel()
				return nil
			})
			<-g.started
			h, err := q.Submit(ctx, b, nop) // pending: its shard is starved
			if err != nil {
				t.Fatal(err)
			}
			drained := make(chan error, 1)
			go func() { drained <- q.Drain(context.Background()) }()
			synctest.Wait()
			close(g.release)
			synctest.Wait()
			select {
			case err := <-drained:
				if err != nil {
					t.Errorf("run %d: Drain = %v, want nil", i, err)
				}
			default:
				t.Fatalf("run %d: Drain has not returned with every task ended (%v: %v); Stats = %+v", i, h.State(), h.Err(), q.Stats())
			}
		})
	}
}

func TestKeyedQueueNilFunctionPanics(t *testing.T) {
	q := core.NewKeyedQueue[int]()
	defer q.Close()
	defer func() {
		if v, _ := recover().(string); len(v) < 5 || v[:5] != "core:" {
			t.Errorf("panic = %q, want a core: message", v)
		}
	}()
	q.Submit(context.Background(), 1, nil)
}

func ExampleKeyedQueue() {
	// Readings from several devices: each device's readings are handled
	// one at a time and in order; different devices in parallel.
	q := core.NewKeyedQueue[string](core.WithParallelism(4), core.WithIdleTimeout(time.Minute))
	ctx := context.Background()

	var mu sync.Mutex
	handled := map[string][]int{}
	for reading := range 3 {
		for _, device := range []string{"thermostat", "door", "meter"} {
			q.Submit(ctx, device, func(ctx context.Context) error {
				mu.Lock()
				defer mu.Unlock()
				handled[device] = append(handled[device], reading)
				return nil
			})
		}
	}
	fmt.Println("lanes:", q.Stats().Lanes)
	q.Drain(ctx) // finish everything, then stop

	for _, device := range []string{"door", "meter", "thermostat"} {
		fmt.Println(device, handled[device])
	}
	fmt.Println("lanes after Drain:", q.Stats().Lanes)
	// Output:
	// lanes: 3
	// door [0 1 2]
	// meter [0 1 2]
	// thermostat [0 1 2]
	// lanes after Drain: 0
}

func ExampleKeyedQueue_Do() {
	q := core.NewKeyedQueue[int]()
	defer q.Close()
	err := q.Do(context.Background(), 42, func(ctx context.Context) error {
		return errors.New("sensor offline")
	})
	fmt.Println(err)
	// Output:
	// sensor offline
}

// lockingKey is a key whose String method reads its queue's Stats, which
// takes the queue's lock: naming it under that lock would deadlock.
type lockingKey struct {
	n int
	q *core.KeyedQueue[lockingKey]
}

func (k lockingKey) String() string {
	if k.q != nil {
		k.q.Stats()
	}
	return strconv.Itoa(k.n)
}

// TestKeyedQueueKeyStringOutsideLock checks that an observed queue names a
// new lane's key (fmt.Sprint, which calls String) without holding its lock.
func TestKeyedQueueKeyStringOutsideLock(t *testing.T) {
	var keys []string
	q := core.NewKeyedQueue[lockingKey](core.WithObserver(func(e core.Event) {
		if e.Kind == core.Enqueued {
			keys = append(keys, e.Key)
		}
	}))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 3 {
			q.Do(t.Context(), lockingKey{i, q}, func(context.Context) error { return nil })
		}
		q.Close()
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Submit with a key whose String takes the queue's lock did not return: deadlock")
	}
	if got, want := strings.Join(keys, ","), "0,1,2"; got != want {
		t.Errorf("event keys = %q, want %q", got, want)
	}
}
