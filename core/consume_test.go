package core_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"sluice/core"
)

// feed returns a closed channel holding 0..n-1.
func feed(n int) chan int {
	ch := make(chan int, n)
	for i := range n {
		ch <- i
	}
	close(ch)
	return ch
}

// peak tracks how many handlers run at once.
type peak struct{ now, max atomic.Int32 }

func (p *peak) enter() {
	n := p.now.Add(1)
	for m := p.max.Load(); n > m && !p.max.CompareAndSwap(m, n); m = p.max.Load() {
	}
}

func (p *peak) leave() { p.now.Add(-1) }

func TestConsumeDefaultIsSerialInOrder(t *testing.T) {
	var p peak
	var got []int
	err := core.Consume(context.Background(), feed(200), func(ctx context.Context, m int) error {
		p.enter()
		defer p.leave()
		got = append(got, m)
		return nil
	})
	if err != nil {
		t.Fatalf("Consume = %v, want nil", err)
	}
	if want := 200; len(got) != want {
		t.Fatalf("handled %d messages, want %d", len(got), want)
	}
	for i, m := range got {
		if m != i {
			t.Fatalf("message %d was %d, want %d", i, m, i)
		}
	}
	if got := p.max.Load(); got != 1 {
		t.Errorf("peak handlers = %d, want 1", got)
	}
}

func TestConsumeConcurrency(t *testing.T) {
	for _, n := range []int{2, 8} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var p peak
				var handled atomic.Int32
				err := core.Consume(t.Context(), feed(50), func(ctx context.Context, m int) error {
					p.enter()
					defer p.leave()
					time.Sleep(time.Duration(1+m%3) * time.Millisecond)
					handled.Add(1)
					return nil
				}, core.WithConcurrency(n))
				if err != nil {
					t.Fatalf("Consume = %v, want nil", err)
				}
				if got := handled.Load(); got != 50 {
					t.Errorf("handled %d, want 50", got)
				}
				if got := p.max.Load(); got != int32(n) {
					t.Errorf("peak handlers = %d, want %d", got, n)
				}
				if got := p.now.Load(); got != 0 {
					t.Errorf("%d handlers still running after Consume returned", got)
				}
			})
		})
	}
}

// TestConsumeStartsGoroutinesOnDemand checks that a consumer with a high
// limit and a slow trickle of messages does not start a goroutine per slot.
func TestConsumeStartsGoroutinesOnDemand(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		msgs := make(chan int)
		var maxLane atomic.Int64
		observe := func(e core.Event) {
			if e.Kind == core.Started && int64(e.Lane) > maxLane.Load() {
				maxLane.Store(int64(e.Lane))
			}
		}
		base := 0
		errc := make(chan error)
		go func() {
			errc <- core.Consume(t.Context(), msgs, func(context.Context, int) error { return nil },
				core.WithConcurrency(1000), core.WithObserver(observe))
		}()
		synctest.Wait()
		base = runtime.NumGoroutine()
		for i := range 100 {
			msgs <- i
			synctest.Wait()
		}
		if got := runtime.NumGoroutine() - base; got > 1 {
			t.Errorf("Consume started %d goroutines for a trickle, want at most 1", got)
		}
		close(msgs)
		if err := <-errc; err != nil {
			t.Errorf("Consume = %v, want nil", err)
		}
		if got := maxLane.Load(); got > 1 {
			t.Errorf("highest lane = %d, want at most 1", got)
		}
	})
}

func TestConsumeContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		msgs := make(chan int) // never closed
		var inFlight, returned atomic.Int32
		go func() {
			for i := 0; ; i++ {
				select {
				case msgs <- i:
				case <-ctx.Done():
					return
				}
			}
		}()
		time.AfterFunc(time.Second, cancel)
		err := core.Consume(ctx, msgs, func(ctx context.Context, m int) error {
			inFlight.Add(1)
			<-ctx.Done()
			time.Sleep(time.Second) // Consume waits for this
			returned.Add(1)
			return nil
		}, core.WithConcurrency(4))
		if err != context.Canceled {
			t.Errorf("Consume = %v, want %v", err, context.Canceled)
		}
		if in, out := inFlight.Load(), returned.Load(); in != 4 || out != 4 {
			t.Errorf("handlers started %d, returned %d before Consume returned; want 4 and 4", in, out)
		}
	})
}

func TestConsumeReportsDroppedMessages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		sem := core.NewSemaphore(1)
		sem.Acquire(ctx, 1) // no token for the consumer
		msgs := make(chan string, 1)
		msgs <- "stuck"
		var got []string
		time.AfterFunc(time.Second, cancel)
		err := core.Consume(ctx, msgs, func(context.Context, string) error {
			t.Error("handler ran without a token")
			return nil
		}, core.WithSemaphore(sem), core.OnError(func(m string, err error) {
			got = append(got, fmt.Sprint(m, ": ", err))
		}))
		if err != context.Canceled {
			t.Errorf("Consume = %v, want %v", err, context.Canceled)
		}
		if want := []string{"stuck: context canceled"}; !slices.Equal(got, want) {
			t.Errorf("OnError calls = %q, want %q", got, want)
		}
	})
}

func TestConsumeErrorsAndPanics(t *testing.T) {
	sem := core.NewSemaphore(2)
	var mu sync.Mutex
	var failures []string
	var panicked *core.PanicError
	err := core.Consume(context.Background(), feed(6), func(ctx context.Context, m int) error {
		switch m % 3 {
		case 1:
			return fmt.Errorf("bad %d", m)
		case 2:
			panic(fmt.Sprintf("panic %d", m))
		}
		return nil
	}, core.WithConcurrency(3), core.WithSemaphore(sem), core.OnError(func(m int, err error) {
		mu.Lock()
		defer mu.Unlock()
		failures = append(failures, err.Error())
		var pe *core.PanicError
		if errors.As(err, &pe) {
			panicked = pe
		}
	}))
	if err != nil {
		t.Fatalf("Consume = %v, want nil", err)
	}
	slices.Sort(failures)
	want := []string{"bad 1", "bad 4", "core: task panicked: panic 2", "core: task panicked: panic 5"}
	if !slices.Equal(failures, want) {
		t.Errorf("OnError errors = %q, want %q", failures, want)
	}
	if panicked == nil || len(panicked.Stack) == 0 {
		t.Errorf("OnError got no *PanicError with a stack")
	}
	if got := sem.Stats().InUse; got != 0 {
		t.Errorf("semaphore tokens in use after Consume = %d, want 0", got)
	}
}

func TestConsumeEvents(t *testing.T) {
	var rec recorder
	err := core.Consume(context.Background(), feed(3), func(ctx context.Context, m int) error {
		if m == 1 {
			return errors.New("bad")
		}
		return nil
	}, core.WithObserver(rec.observe), core.WithPriority(core.High))
	if err != nil {
		t.Fatal(err)
	}
	want := []core.EventKind{
		core.Enqueued, core.Started, core.Finished,
		core.Enqueued, core.Started, core.Failed,
		core.Enqueued, core.Started, core.Finished,
	}
	events := rec.all()
	var got []core.EventKind
	for _, e := range events {
		got = append(got, e.Kind)
		if e.Priority != core.High || e.Weight != 1 || e.Lane != 0 || e.Task < 1 || e.Task > 3 {
			t.Errorf("event = %+v, want priority high, weight 1, lane 0, task 1..3", e)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("events = %v, want %v", got, want)
	}
	checkLives(t, events)
}

func TestConsumeOptionMisuse(t *testing.T) {
	wantPanic := func(t *testing.T, f func()) {
		t.Helper()
		defer func() {
			t.Helper()
			if v, _ := recover().(string); !strings.HasPrefix(v, "core:") {
				t.Errorf("panic = %q, want a core: message", v)
			}
		}()
		f()
	}
	t.Run("OnError type", func(t *testing.T) {
		wantPanic(t, func() {
			core.Consume(context.Background(), feed(1), func(context.Context, int) error { return nil },
				core.OnError(func(string, error) {}))
		})
	})
	t.Run("nil handler", func(t *testing.T) {
		wantPanic(t, func() { core.Consume[int](context.Background(), feed(1), nil) })
	})
}

// TestConsumeSharedSemaphore runs three consumers sharing a semaphore of
// 4: never more than 4 handlers run in all, and the High consumer's
// messages wait less than the Normal one's, which wait less than the Low
// one's.
func TestConsumeSharedSemaphore(t *testing.T) {
	var low, normal, high time.Duration // mean waits, in virtual time
	synctest.Test(t, func(t *testing.T) {
		const (
			limit    = 4
			messages = 40
		)
		sem := core.NewSemaphore(limit)
		var p peak
		prios := []core.Priority{core.Low, core.Normal, core.High}
		waits := make([]time.Duration, len(prios))
		var wg sync.WaitGroup
		for i, prio := range prios {
			var mu sync.Mutex
			enq := map[uint64]time.Time{}
			observe := func(e core.Event) {
				mu.Lock()
				defer mu.Unlock()
				switch e.Kind {
				case core.Enqueued:
					enq[e.Task] = e.Time
				case core.Started:
					waits[i] += e.Time.Sub(enq[e.Task])
				}
			}
			wg.Go(func() {
				err := core.Consume(t.Context(), feed(messages), func(ctx context.Context, m int) error {
					p.enter()
					defer p.leave()
					time.Sleep(10 * time.Millisecond)
					return nil
				}, core.WithConcurrency(limit), core.WithSemaphore(sem), core.WithPriority(prio), core.WithObserver(observe))
				if err != nil {
					t.Errorf("Consume = %v, want nil", err)
				}
			})
		}
		wg.Wait()
		if got := p.max.Load(); got != limit {
			t.Errorf("peak handlers across consumers = %d, want %d", got, limit)
		}
		low, normal, high = waits[0]/messages, waits[1]/messages, waits[2]/messages
		if !(high < normal && normal < low) {
			t.Errorf("mean waits high %v, normal %v, low %v; want high < normal < low", high, normal, low)
		}
		if got := sem.Stats().InUse; got != 0 {
			t.Errorf("tokens in use after the consumers returned = %d, want 0", got)
		}
	})
	// Logged outside the bubble: under js/wasm, output written from a
	// bubble can call back into Go from JavaScript, which a bubble forbids.
	t.Logf("mean wait: low %v, normal %v, high %v", low, normal, high)
}

func ExampleConsume() {
	msgs := make(chan string)
	go func() {
		defer close(msgs)
		for _, m := range []string{"a", "b", "c"} {
			msgs <- m
		}
	}()
	// The default concurrency, 1, handles messages one at a time, in order.
	err := core.Consume(context.Background(), msgs, func(ctx context.Context, m string) error {
		fmt.Println("handled", m)
		return nil
	})
	fmt.Println("Consume returned", err)
	// Output:
	// handled a
	// handled b
	// handled c
	// Consume returned <nil>
}

func ExampleConsume_sharedSemaphore() {
	// Two consumers, each allowed 3 handlers at once, share a global
	// limit of 4.
	global := core.NewSemaphore(4)
	var running, peakRunning atomic.Int32
	handle := func(ctx context.Context, order int) error {
		n := running.Add(1)
		for p := peakRunning.Load(); n > p && !peakRunning.CompareAndSwap(p, n); p = peakRunning.Load() {
		}
		time.Sleep(time.Millisecond)
		running.Add(-1)
		if order == 13 {
			return errors.New("unlucky")
		}
		return nil
	}
	var wg sync.WaitGroup
	for _, prio := range []core.Priority{core.High, core.Low} {
		wg.Go(func() {
			core.Consume(context.Background(), feed(20), handle,
				core.WithConcurrency(3), core.WithSemaphore(global), core.WithPriority(prio),
				core.OnError(func(order int, err error) { fmt.Println(prio, "order", order, "failed:", err) }))
		})
	}
	wg.Wait()
	fmt.Println("at most 4 at once:", peakRunning.Load() <= 4)
	// Unordered output:
	// high order 13 failed: unlucky
	// low order 13 failed: unlucky
	// at most 4 at once: true
}
