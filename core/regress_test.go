package core_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"sluice/core"
)

// TestTrySubmitWithIdleSlots is errgroup's TryGo test ported: with free
// slots, TrySubmit never reports the queue full, however small its
// capacity.
func TestTrySubmitWithIdleSlots(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		block := make(chan struct{})
		wait := func(context.Context) error { <-block; return nil }
		q := core.NewWorkQueue(4, core.WithCapacity(1))
		p := core.NewProcessor(4, func(ctx context.Context, _ int) (int, error) { return 0, wait(ctx) }, core.WithCapacity(1))
		for i := range 4 {
			if _, err := q.TrySubmit(wait); err != nil {
				t.Errorf("WorkQueue.TrySubmit %d with a free slot = %v, want nil", i, err)
			}
			if _, err := p.TrySubmit(i); err != nil {
				t.Errorf("Processor.TrySubmit %d with a free slot = %v, want nil", i, err)
			}
		}
		if _, err := q.TrySubmit(wait); err != nil {
			t.Errorf("TrySubmit into the one pending place = %v, want nil", err)
		}
		if _, err := q.TrySubmit(wait); err != core.ErrFull {
			t.Errorf("TrySubmit with every slot busy and the queue full = %v, want ErrFull", err)
		}
		close(block)
		q.Drain(t.Context())
		p.Drain(t.Context())
	})
	t.Run("nested", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := core.NewWorkQueue(2, core.WithCapacity(1))
			defer q.Close()
			got := make(chan error, 1)
			q.Go(t.Context(), func(ctx context.Context) error {
				_, err := q.Submit(ctx, wqNop) // a slot is free
				got <- err
				return nil
			})
			if err := <-got; err != nil {
				t.Errorf("nested Submit with a free slot = %v, want nil", err)
			}
		})
	})
}

// TestGoexitReleasesTokens checks that runtime.Goexit in a handler or in
// Semaphore.Do gives the semaphore's tokens back and reports the message.
func TestGoexitReleasesTokens(t *testing.T) {
	t.Run("Consume", func(t *testing.T) {
		sem := core.NewSemaphore(1)
		msgs := make(chan int, 2)
		msgs <- 1
		msgs <- 2
		close(msgs)
		reported := make(chan error, 2)
		exited := make(chan struct{})
		go func() {
			defer close(exited)
			core.Consume(context.Background(), msgs, func(_ context.Context, m int) error {
				if m == 1 {
					runtime.Goexit()
				}
				return nil
			}, core.WithSemaphore(sem), core.OnError(func(_ int, err error) { reported <- err }))
		}()
		<-exited
		if err := <-reported; err == nil || !strings.Contains(err.Error(), "Goexit") {
			t.Errorf("OnError got %v, want an error naming runtime.Goexit", err)
		}
		if s := sem.Stats(); s.InUse != 0 {
			t.Errorf("tokens held after the handler called runtime.Goexit = %d, want 0", s.InUse)
		}
	})
	t.Run("Semaphore.Do", func(t *testing.T) {
		sem := core.NewSemaphore(2)
		done := make(chan struct{})
		go func() {
			defer close(done)
			sem.Do(context.Background(), 2, func(context.Context) error { runtime.Goexit(); return nil })
		}()
		<-done
		if s := sem.Stats(); s.InUse != 0 {
			t.Errorf("tokens held after Do's function called runtime.Goexit = %d, want 0", s.InUse)
		}
	})
}

// TestNilArguments checks that a nil context or function panics with a
// "core:" message, and that the primitive is unchanged.
func TestNilArguments(t *testing.T) {
	q := core.NewWorkQueue(1)
	defer q.Close()
	p := core.NewProcessor(1, func(context.Context, int) (int, error) { return 0, nil })
	defer p.Close()
	k := core.NewKeyedQueue[int]()
	defer k.Close()
	s := core.NewSemaphore(1)
	var nilCtx context.Context
	calls := map[string]func(){
		"WorkQueue.Do":          func() { q.Do(nilCtx, wqNop) },
		"WorkQueue.Submit":      func() { q.Submit(nilCtx, wqNop) },
		"WorkQueue.Go":          func() { q.Go(nilCtx, wqNop) },
		"WorkQueue.Drain":       func() { q.Drain(nilCtx) },
		"Processor.Submit":      func() { p.Submit(nilCtx, 1) },
		"Processor.Drain":       func() { p.Drain(nilCtx) },
		"KeyedQueue.Submit":     func() { k.Submit(nilCtx, 1, nop) },
		"KeyedQueue.Drain":      func() { k.Drain(nilCtx) },
		"Semaphore.Acquire":     func() { s.Acquire(nilCtx, 1) },
		"Semaphore.Do":          func() { s.Do(nilCtx, 1, wqNop) },
		"Semaphore.Do nil func": func() { s.Do(context.Background(), 1, nil) },
		"Consume":               func() { core.Consume(nilCtx, make(chan int), func(context.Context, int) error { return nil }) },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			defer func() {
				v := recover()
				if msg, ok := v.(string); !ok || !strings.HasPrefix(msg, "core: ") {
					t.Errorf("panic = %v, want a message prefixed \"core: \"", v)
				}
			}()
			call()
		})
	}
	if err := q.Do(context.Background(), wqNop); err != nil {
		t.Errorf("Do after the panics = %v, want nil: the queue must be unchanged", err)
	}
	if st := s.Stats(); st.InUse != 0 {
		t.Errorf("semaphore after the panics = %+v, want nothing held", st)
	}
}

// TestStoppedQueueKeepsNoBuffer checks that a queue drained of a large
// backlog holds no memory for it, while still referenced.
func TestStoppedQueueKeepsNoBuffer(t *testing.T) {
	base := heapInUse()
	q := core.NewWorkQueue(1)
	block := make(chan struct{})
	q.Go(context.Background(), func(context.Context) error { <-block; return nil })
	for range 200_000 {
		q.Go(context.Background(), wqNop)
	}
	loaded := heapInUse()
	close(block)
	if err := q.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	after := heapInUse()
	if grown := after - base; grown > 64<<10 {
		t.Errorf("heap of a drained queue = %d bytes above the baseline (%d with the backlog), want under 64 KiB", grown, loaded-base)
	}
	runtime.KeepAlive(q)
}

// TestOldestPending checks Stats.OldestPending on every queue.
func TestOldestPending(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		block := make(chan struct{})
		wait := func(context.Context) error { <-block; return nil }
		q := core.NewWorkQueue(1)
		k := core.NewKeyedQueue[string]()
		q.Go(t.Context(), wait)
		k.Submit(t.Context(), "a", wait)
		if got := q.Stats().OldestPending; got != 0 {
			t.Errorf("WorkQueue.OldestPending with nothing pending = %v, want 0", got)
		}
		q.Go(t.Context(), wqNop, core.WithPriority(core.Low))
		k.Submit(t.Context(), "a", nop)
		time.Sleep(2 * time.Second)
		q.Go(t.Context(), wqNop, core.WithPriority(core.High))
		k.Submit(t.Context(), "a", nop)
		time.Sleep(time.Second)
		if got := q.Stats().OldestPending; got != 3*time.Second {
			t.Errorf("WorkQueue.OldestPending = %v, want 3s", got)
		}
		if got := k.Stats().OldestPending; got != 3*time.Second {
			t.Errorf("KeyedQueue.OldestPending = %v, want 3s", got)
		}
		close(block)
		q.Drain(t.Context())
		k.Drain(t.Context())
		if got := q.Stats().OldestPending; got != 0 {
			t.Errorf("OldestPending after the drain = %v, want 0", got)
		}
	})
}

// TestKeyedQueueSetParallelism checks growing and shrinking a keyed
// queue's cap at run time.
func TestKeyedQueueSetParallelism(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := core.NewKeyedQueue[int](core.WithParallelism(1))
		defer k.Close()
		var f inFlight
		work := func(context.Context) error {
			f.enter()
			defer f.leave()
			time.Sleep(time.Second)
			return nil
		}
		for key := range 6 {
			k.Submit(t.Context(), key, work)
		}
		synctest.Wait()
		if got := k.Stats().Running; got != 1 {
			t.Errorf("Running at parallelism 1 = %d, want 1", got)
		}
		k.SetParallelism(3)
		synctest.Wait()
		if got := k.Stats().Running; got != 3 {
			t.Errorf("Running after growing to 3 = %d, want 3", got)
		}
		k.SetParallelism(0) // no cap
		synctest.Wait()
		if got := k.Stats(); got.Running != 6 || got.Parallelism != 0 {
			t.Errorf("after lifting the cap: %+v, want 6 running, parallelism 0", got)
		}
		k.Drain(t.Context())
		if got := f.peak.Load(); got != 6 {
			t.Errorf("peak = %d, want 6", got)
		}
	})
	t.Run("negative", func(t *testing.T) {
		k := core.NewKeyedQueue[int]()
		defer k.Close()
		defer func() {
			if v, _ := recover().(string); !strings.HasPrefix(v, "core: ") {
				t.Errorf("SetParallelism(-1) panic = %q, want a core: message", v)
			}
		}()
		k.SetParallelism(-1)
	})
}

// TestKeyedQueueTotalCapacity checks the bound on the pending tasks of all
// keys together.
func TestKeyedQueueTotalCapacity(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := core.NewKeyedQueue[int](core.WithParallelism(1), core.WithTotalCapacity(3))
		defer k.Close()
		g := newGate()
		k.Submit(t.Context(), 0, g.fn)
		<-g.started
		for key := 1; key <= 3; key++ {
			if _, err := k.TrySubmit(key, nop); err != nil {
				t.Fatalf("TrySubmit key %d = %v, want nil", key, err)
			}
		}
		if _, err := k.TrySubmit(4, nop); !errors.Is(err, core.ErrFull) {
			t.Errorf("TrySubmit past the total capacity = %v, want ErrFull", err)
		}
		returned := make(chan error, 1)
		go func() {
			_, err := k.Submit(t.Context(), 5, nop)
			returned <- err
		}()
		synctest.Wait()
		if len(returned) != 0 {
			t.Fatal("Submit returned with the queue full")
		}
		close(g.release)
		if err := <-returned; err != nil {
			t.Errorf("Submit after room was made = %v, want nil", err)
		}
		k.Drain(t.Context())
		if s := k.Stats(); s.Succeeded != 5 {
			t.Errorf("stats = %+v, want 5 succeeded", s)
		}
	})
}

// TestKeyedQueueRefusedNewKey checks that a Submit or TrySubmit refused
// for a key with no lane leaves no lane behind: TrySubmit leaves the queue
// unchanged, as documented, and the observer sees no lane for the key.
func TestKeyedQueueRefusedNewKey(t *testing.T) {
	for _, how := range []string{"TrySubmit", "Submit canceled", "Submit on close"} {
		t.Run(how, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var rec recorder
				k := core.NewKeyedQueue[int](core.WithParallelism(1), core.WithTotalCapacity(1), core.WithObserver(rec.observe))
				g := newGate()
				k.Submit(t.Context(), 0, g.fn)
				<-g.started
				k.Submit(t.Context(), 1, nop) // fills the total capacity
				var err error
				switch how {
				case "TrySubmit":
					_, err = k.TrySubmit(2, nop)
				case "Submit canceled":
					ctx, cancel := context.WithTimeout(t.Context(), time.Second)
					_, err = k.Submit(ctx, 2, nop)
					cancel()
				case "Submit on close":
					go func() {
						synctest.Wait()
						close(g.release)
						k.Close()
					}()
					_, err = k.Submit(t.Context(), 2, nop)
				}
				if err == nil {
					t.Fatalf("%s for a new key with the queue full = nil, want an error", how)
				}
				if how != "Submit on close" {
					if s := k.Stats(); s.Lanes != 2 {
						t.Errorf("lanes after the refusal = %d, want 2 (keys 0 and 1)", s.Lanes)
					}
					close(g.release)
				}
				k.Drain(t.Context())
				for _, e := range rec.all() {
					if e.Kind == core.LaneCreated && e.Key == "2" {
						t.Errorf("observer saw %v for key 2, whose task was refused", e)
					}
				}
			})
		})
	}
}

// ExampleKeyedQueue_SetParallelism lifts the cap on a keyed queue's
// parallelism at run time.
func ExampleKeyedQueue_SetParallelism() {
	ctx := context.Background()
	devices := core.NewKeyedQueue[string](core.WithParallelism(1))
	defer devices.Close()
	release := make(chan struct{})
	for _, d := range []string{"a", "b", "c"} {
		devices.Submit(ctx, d, func(context.Context) error { <-release; return nil })
	}
	for devices.Stats().Running != 1 {
		runtime.Gosched()
	}
	devices.SetParallelism(3)
	for devices.Stats().Running != 3 {
		runtime.Gosched()
	}
	fmt.Println("running:", devices.Stats().Running)
	close(release)
	// Output: running: 3
}

// doneHook is a context whose first Done call after arm runs hook first.
type doneHook struct {
	context.Context
	armed chan struct{} // closed to arm
	hook  func()
	fired bool
}

func (c *doneHook) Done() <-chan struct{} {
	select {
	case <-c.armed:
		if !c.fired {
			c.fired = true
			c.hook()
		}
	default:
	}
	return c.Context.Done()
}

// TestKeyedSubmitKeepsItsLane checks that a Submit waiting for room in a
// full lane keeps the lane while the queue's lock is released before it
// waits (to read the Done channels of waiting tasks' contexts, which may
// be tasks' of the same queue): were the lane to go idle and be evicted
// then, the call would be accepted into the evicted lane, and a later
// task of the same key, in a new lane, would run beside it.
func TestKeyedSubmitKeepsItsLane(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const idle = time.Second
		q := core.NewKeyedQueue[string](core.WithCapacity(1), core.WithIdleTimeout(idle))
		defer q.Close()
		gateA := make(chan struct{})
		if _, err := q.Submit(t.Context(), "k", func(context.Context) error { <-gateA; return nil }); err != nil {
			t.Fatal(err)
		}
		// B waits behind A, with a context that can end: a Submit that
		// finds the lane full reads its Done channel, with the lock
		// released. The hook ends A and B there, and lets the lane's idle
		// time pass.
		cctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		hb := &doneHook{Context: cctx, armed: make(chan struct{})}
		hb.hook = func() {
			close(gateA)
			time.Sleep(3 * idle)
		}
		if _, err := q.Submit(hb, "k", func(context.Context) error { return nil }); err != nil {
			t.Fatal(err)
		}
		close(hb.armed)
		var cRunning atomic.Bool
		gateC := make(chan struct{})
		if _, err := q.Submit(t.Context(), "k", func(context.Context) error {
			cRunning.Store(true)
			<-gateC
			cRunning.Store(false)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if !hb.fired {
			t.Fatal("the full lane's Submit did not read the waiting task's Done channel: the test does not test what it says")
		}
		d, err := q.Submit(t.Context(), "k", func(context.Context) error {
			if cRunning.Load() {
				t.Error("a task of key k runs while another of key k runs")
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		close(gateC)
		if err := d.Wait(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got := q.Stats().Lanes; got != 1 {
			t.Errorf("Stats().Lanes = %d with one key, want 1", got)
		}
	})
}

// errCounter is a cancellable context that counts its Err calls.
type errCounter struct {
	context.Context
	n atomic.Int64
}

func (c *errCounter) Err() error {
	c.n.Add(1)
	return c.Context.Err()
}

// TestFullQueueLooksOnce checks that Submit calls waiting on a full queue
// look at each waiting task's context once between them, not once each:
// a bounded queue under back-pressure, where every submit finds it full,
// stays O(1) a submit. Before, each call asked every waiting task's
// context for Err (and a KeyedQueue ranged over every lane, idle ones
// included).
func TestFullQueueLooksOnce(t *testing.T) {
	const capacity, callers = 8, 32
	nop := func(context.Context) error { return nil }
	for _, c := range []struct {
		name   string
		submit func(t *testing.T, gate <-chan struct{}) (fill, wait func(ctx context.Context) error, stop func())
	}{
		{"WorkQueue", func(t *testing.T, gate <-chan struct{}) (func(ctx context.Context) error, func(ctx context.Context) error, func()) {
			q := core.NewWorkQueue(1, core.WithCapacity(capacity))
			q.Go(context.Background(), func(context.Context) error { <-gate; return nil })
			submit := func(ctx context.Context) error { _, err := q.Submit(ctx, nop); return err }
			return submit, submit, func() { q.Drain(context.Background()) }
		}},
		{"KeyedQueue", func(t *testing.T, gate <-chan struct{}) (func(ctx context.Context) error, func(ctx context.Context) error, func()) {
			q := core.NewKeyedQueue[int](core.WithParallelism(1), core.WithTotalCapacity(capacity))
			q.Submit(context.Background(), -1, func(context.Context) error { <-gate; return nil })
			var key int
			submit := func(ctx context.Context) error {
				key++ // a lane per task, behind the running one
				_, err := q.Submit(ctx, key, nop)
				return err
			}
			return submit, submit, func() { q.Drain(context.Background()) }
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				gate := make(chan struct{})
				fill, wait, stop := c.submit(t, gate)
				pending := &errCounter{Context: t.Context()}
				for i := range capacity {
					if err := fill(pending); err != nil {
						t.Fatalf("Submit %d into the pending places = %v, want nil", i, err)
					}
				}
				before := pending.n.Load()
				errs := make(chan error, callers)
				for range callers {
					go func() { errs <- wait(t.Context()) }()
					synctest.Wait() // it waits for room
				}
				if got, want := pending.n.Load()-before, int64(capacity); got > want {
					t.Errorf("%d Submit calls waiting on a full queue made %d Err calls on the pending tasks' context, want at most %d (one look at each)", callers, got, want)
				}
				close(gate)
				for range callers {
					if err := <-errs; err != nil {
						t.Errorf("waiting Submit = %v, want nil", err)
					}
				}
				stop()
			})
		})
	}
}
