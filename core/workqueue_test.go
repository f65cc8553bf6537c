package core_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"sluice/core"
)

// count returns how many events of kind were recorded.
func (r *recorder) count(kind core.EventKind) int {
	n := 0
	for _, e := range r.all() {
		if e.Kind == kind {
			n++
		}
	}
	return n
}

// wqGate is a task function that reports that it started, then blocks
// until released.
type wqGate struct {
	started chan struct{}
	release chan struct{}
}

func newWQGate() *wqGate {
	return &wqGate{started: make(chan struct{}), release: make(chan struct{})}
}

func (g *wqGate) fn(context.Context) error {
	close(g.started)
	<-g.release
	return nil
}

func wqNop(context.Context) error { return nil }

// wqMustPanic checks that f panics with a message that starts with "core:".
func wqMustPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		v := recover()
		if s, ok := v.(string); !ok || len(s) < 5 || s[:5] != "core:" {
			t.Errorf("%s panicked with %v, want a message starting with \"core:\"", name, v)
		}
	}()
	f()
}

// wqCheckStats checks the accounting identity of a QueueStats snapshot.
func wqCheckStats(t *testing.T, s core.QueueStats) {
	t.Helper()
	sum := uint64(s.Pending+s.Running) + s.Succeeded + s.Failed + s.Canceled + s.Panicked
	if s.Submitted != sum {
		t.Errorf("stats %+v: Submitted = %d, want Pending+Running+Succeeded+Failed+Canceled+Panicked = %d", s, s.Submitted, sum)
	}
}

func TestWorkQueueProgrammerErrors(t *testing.T) {
	wqMustPanic(t, "NewWorkQueue(0)", func() { core.NewWorkQueue(0) })
	q := core.NewWorkQueue(1)
	defer q.Close()
	wqMustPanic(t, "SetParallelism(0)", func() { q.SetParallelism(0) })
	wqMustPanic(t, "Do(nil)", func() { q.Do(t.Context(), nil) })
	wqMustPanic(t, "Submit(nil)", func() { q.Submit(t.Context(), nil) })
	wqMustPanic(t, "TrySubmit(nil)", func() { q.TrySubmit(nil) })
}

func TestWorkQueueDo(t *testing.T) {
	ctx := t.Context()
	t.Run("returns the function's error", func(t *testing.T) {
		q := core.NewWorkQueue(2)
		defer q.Close()
		want := errors.New("boom")
		if err := q.Do(ctx, func(context.Context) error { return want }); err != want {
			t.Errorf("Do = %v, want %v", err, want)
		}
		ran := false
		if err := q.Do(ctx, func(context.Context) error { ran = true; return nil }); err != nil || !ran {
			t.Errorf("Do = %v (ran %v), want nil (ran true)", err, ran)
		}
		s := q.Stats()
		wqCheckStats(t, s)
		if s.Submitted != 2 || s.Failed != 1 || s.Succeeded != 1 {
			t.Errorf("stats = %+v, want 2 submitted, 1 failed, 1 succeeded", s)
		}
	})
	t.Run("context already done", func(t *testing.T) {
		q := core.NewWorkQueue(1)
		defer q.Close()
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		ran := false
		if err := q.Do(cctx, func(context.Context) error { ran = true; return nil }); err != context.Canceled || ran {
			t.Errorf("Do = %v (ran %v), want %v (ran false)", err, ran, context.Canceled)
		}
		if s := q.Stats(); s.Submitted != 0 {
			t.Errorf("Stats().Submitted = %d, want 0", s.Submitted)
		}
	})
	t.Run("waits its turn, and gives up when its context ends first", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := core.NewWorkQueue(1)
			defer q.Close()
			g := newWQGate()
			q.Submit(t.Context(), g.fn)
			<-g.started
			cctx, cancel := context.WithTimeout(t.Context(), time.Second)
			defer cancel()
			ran := false
			err := q.Do(cctx, func(context.Context) error { ran = true; return nil })
			if err != context.DeadlineExceeded || ran {
				t.Errorf("Do = %v (ran %v), want %v (ran false)", err, ran, context.DeadlineExceeded)
			}
			close(g.release)
			if err := q.Do(t.Context(), wqNop); err != nil {
				t.Errorf("Do after the gate = %v, want nil", err)
			}
		})
	})
	t.Run("context ends while fn runs", func(t *testing.T) {
		q := core.NewWorkQueue(1)
		defer q.Close()
		cctx, cancel := context.WithCancel(ctx)
		err := q.Do(cctx, func(ctx context.Context) error {
			cancel()
			<-ctx.Done()
			return fmt.Errorf("stopped: %w", ctx.Err())
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Do = %v, want an error wrapping %v", err, context.Canceled)
		}
		if s := q.Stats(); s.Canceled != 1 {
			t.Errorf("Stats().Canceled = %d, want 1", s.Canceled)
		}
	})
}

func TestWorkQueueSubmit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		var rec recorder
		q := core.NewWorkQueue(1, core.WithObserver(rec.observe))
		g := newWQGate()
		first, err := q.Submit(ctx, g.fn, core.WithName("first"))
		if err != nil {
			t.Fatalf("Submit = %v, want nil", err)
		}
		<-g.started
		want := errors.New("second failed")
		second, _ := q.Submit(ctx, func(context.Context) error { return want }, core.WithName("second"), core.WithPriority(core.High))
		if got := first.State(); got != core.TaskRunning {
			t.Errorf("first.State() = %v, want %v", got, core.TaskRunning)
		}
		if got := second.State(); got != core.TaskPending {
			t.Errorf("second.State() = %v, want %v", got, core.TaskPending)
		}
		if second.Err() != nil {
			t.Errorf("second.Err() = %v before it ran, want nil", second.Err())
		}
		if second.Name() != "second" || second.Priority() != core.High || second.ID() != first.ID()+1 {
			t.Errorf("second: name %q, priority %v, id %d; want \"second\", high, %d", second.Name(), second.Priority(), second.ID(), first.ID()+1)
		}
		select {
		case <-second.Done():
			t.Errorf("second.Done() closed before it ran")
		default:
		}
		close(g.release)
		if err := second.Wait(ctx); err != want {
			t.Errorf("second.Wait = %v, want %v", err, want)
		}
		<-second.Done()
		if err := first.Wait(ctx); err != nil {
			t.Errorf("first.Wait = %v, want nil", err)
		}
		if first.State() != core.TaskSucceeded || second.State() != core.TaskFailed {
			t.Errorf("states = %v, %v; want succeeded, failed", first.State(), second.State())
		}
		q.Close()
		if got, want := rec.kinds(second.ID()), []core.EventKind{core.Enqueued, core.Waiting, core.Started, core.Failed}; !slices.Equal(got, want) {
			t.Errorf("second's events = %v, want %v", got, want)
		}
		if got, want := rec.kinds(first.ID()), []core.EventKind{core.Enqueued, core.Started, core.Finished}; !slices.Equal(got, want) {
			t.Errorf("first's events = %v, want %v", got, want)
		}
		for _, e := range rec.all() {
			if e.Task == second.ID() && (e.Name != "second" || e.Priority != core.High || e.Weight != 1) {
				t.Errorf("event %+v: want name second, priority high, weight 1", e)
			}
			if e.Kind == core.Failed && e.Err != want {
				t.Errorf("failed event's Err = %v, want %v", e.Err, want)
			}
		}
	})
}

// wqClock is a Clock that stands still.
type wqClock struct{ now time.Time }

func (c wqClock) Now() time.Time { return c.now }

func (c wqClock) AfterFunc(d time.Duration, f func()) core.Timer { return time.AfterFunc(d, f) }

func TestWorkQueueObserver(t *testing.T) {
	var rec recorder
	at := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	p := core.NewProcessor(1, upper, core.WithObserver(rec.observe), core.WithClock(wqClock{at}))
	if _, err := p.Process(t.Context(), "a", core.WithName("one")); err != nil {
		t.Fatal(err)
	}
	p.SetParallelism(3)
	p.Process(t.Context(), "")
	p.Close()
	var kinds []core.EventKind
	for _, e := range rec.all() {
		kinds = append(kinds, e.Kind)
		if !e.Time.Equal(at) {
			t.Errorf("%v event at %v, want the clock's %v", e.Kind, e.Time, at)
		}
	}
	want := []core.EventKind{core.Enqueued, core.Started, core.Finished, core.Resized, core.Enqueued, core.Started, core.Failed, core.Closed}
	if !slices.Equal(kinds, want) {
		t.Errorf("events = %v, want %v", kinds, want)
	}
	events := rec.all()
	if e := events[0]; e.Name != "one" || e.Task != 1 || e.Weight != 1 {
		t.Errorf("first event = %+v, want task 1 named one, weight 1", e)
	}
	if e := events[3]; e.Weight != 3 || e.Task != 0 {
		t.Errorf("resized event = %+v, want weight 3, task 0", e)
	}
	if e := events[6]; e.Err == nil || e.Err.Error() != "empty" {
		t.Errorf("failed event's Err = %v, want empty", e.Err)
	}
}

func TestWorkQueueCapacity(t *testing.T) {
	t.Run("TrySubmit never blocks", func(t *testing.T) {
		q := core.NewWorkQueue(1, core.WithCapacity(1))
		defer q.Close()
		g := newWQGate()
		if _, err := q.TrySubmit(g.fn); err != nil {
			t.Fatalf("TrySubmit = %v, want nil", err)
		}
		<-g.started
		if _, err := q.TrySubmit(wqNop); err != nil {
			t.Errorf("TrySubmit with room = %v, want nil", err)
		}
		if _, err := q.TrySubmit(wqNop); err != core.ErrFull {
			t.Errorf("TrySubmit when full = %v, want %v", err, core.ErrFull)
		}
		s := q.Stats()
		wqCheckStats(t, s)
		if s.Pending != 1 || s.Running != 1 || s.Submitted != 2 {
			t.Errorf("stats = %+v, want 1 pending, 1 running, 2 submitted", s)
		}
		close(g.release)
	})
	t.Run("Submit waits for room, in order", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx := t.Context()
			q := core.NewWorkQueue(1, core.WithCapacity(1))
			defer q.Close()
			g := newWQGate()
			q.Submit(ctx, g.fn)
			<-g.started
			var mu sync.Mutex
			var order []int
			add := func(i int) func(context.Context) error {
				return func(context.Context) error {
					mu.Lock()
					order = append(order, i)
					mu.Unlock()
					return nil
				}
			}
			q.Submit(ctx, add(0))
			var wg sync.WaitGroup
			for i := 1; i <= 3; i++ {
				wg.Go(func() {
					if _, err := q.Submit(ctx, add(i)); err != nil {
						t.Errorf("Submit(%d) = %v, want nil", i, err)
					}
				})
				synctest.Wait() // Submit i waits behind the earlier ones
			}
			if s := q.Stats(); s.Submitted != 2 || s.Pending != 1 {
				t.Errorf("stats while full = %+v, want 2 submitted, 1 pending", s)
			}
			close(g.release)
			wg.Wait()
			q.Drain(ctx)
			if want := []int{0, 1, 2, 3}; !slices.Equal(order, want) {
				t.Errorf("order = %v, want %v", order, want)
			}
		})
	})
	t.Run("Submit gives up when its context ends", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := core.NewWorkQueue(1, core.WithCapacity(1))
			defer q.Close()
			g := newWQGate()
			q.Submit(t.Context(), g.fn)
			<-g.started
			q.Submit(t.Context(), wqNop)
			cctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			if _, err := q.Submit(cctx, wqNop); err != context.DeadlineExceeded {
				t.Errorf("Submit when full = %v, want %v", err, context.DeadlineExceeded)
			}
			if s := q.Stats(); s.Submitted != 2 {
				t.Errorf("Stats().Submitted = %d, want 2", s.Submitted)
			}
			close(g.release)
			// The room it gave up goes to the next caller.
			if _, err := q.Submit(t.Context(), wqNop); err != nil {
				t.Errorf("Submit after the gate = %v, want nil", err)
			}
		})
	})
}

func TestWorkQueuePriority(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		q := core.NewWorkQueue(1)
		defer q.Close()
		g := newWQGate()
		q.Submit(ctx, g.fn)
		<-g.started
		prios := []core.Priority{0, 2, -1, 2, 1, 0, -1, 7, -7, 1}
		var order []string
		for i, p := range prios {
			name := fmt.Sprintf("%d/%d", p, i)
			q.Submit(ctx, func(context.Context) error {
				order = append(order, name)
				return nil
			}, core.WithPriority(p))
		}
		close(g.release)
		q.Drain(ctx)
		want := []string{"7/7", "2/1", "2/3", "1/4", "1/9", "0/0", "0/5", "-1/2", "-1/6", "-7/8"}
		if !slices.Equal(order, want) {
			t.Errorf("order = %v, want %v", order, want)
		}
	})
}

// TestWorkQueueLimit runs many short tasks from several goroutines while
// the parallelism changes, and checks through the observer that no more
// tasks run at once than the limit allows.
func TestWorkQueueLimit(t *testing.T) {
	var running, bound, peak atomic.Int64
	var over atomic.Int64
	started := map[uint64]bool{}
	var mu sync.Mutex
	observe := func(e core.Event) {
		switch {
		case e.Kind == core.Started:
			mu.Lock()
			started[e.Task] = true
			mu.Unlock()
			n := running.Add(1)
			if n > bound.Load() {
				over.Add(1)
			}
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
		case e.Kind.Terminal():
			mu.Lock()
			s := started[e.Task]
			mu.Unlock()
			if s {
				running.Add(-1)
			}
		}
	}
	bound.Store(3)
	q := core.NewWorkQueue(3, core.WithObserver(observe))
	defer q.Close()
	task := func(context.Context) error {
		for range 3 {
			runtime.Gosched()
		}
		return nil
	}
	submit := func(n int) {
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for range n / 4 {
					if _, err := q.Submit(t.Context(), task); err != nil {
						t.Errorf("Submit = %v", err)
						return
					}
				}
			})
		}
		wg.Wait()
	}
	setLimit := func(n int) {
		if int64(n) > bound.Load() {
			bound.Store(int64(n))
			q.SetParallelism(n)
			return
		}
		q.SetParallelism(n)
		// Tasks started under the old limit may still run; once the
		// events say fewer than n do, no more than n ever will. (The
		// events, not Stats: they may reach the observer after the
		// state changed.)
		for running.Load() > int64(n) {
			runtime.Gosched()
		}
		bound.Store(int64(n))
	}
	for _, n := range []int{5, 1, 8, 2, 4} {
		submit(2000)
		setLimit(n)
	}
	submit(2000)
	if err := q.Drain(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := over.Load(); n > 0 {
		t.Errorf("%d tasks started while the limit was already reached", n)
	}
	s := q.Stats()
	wqCheckStats(t, s)
	if s.Succeeded != 12000 || s.MaxRunning > 8 || int64(s.MaxRunning) < peak.Load() {
		t.Errorf("stats = %+v (observed peak %d), want 12000 succeeded, MaxRunning at most 8 and at least the peak", s, peak.Load())
	}
}

func TestWorkQueueSetParallelism(t *testing.T) {
	t.Run("growing starts pending tasks at once", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var rec recorder
			q := core.NewWorkQueue(1, core.WithObserver(rec.observe))
			defer q.Close()
			gates := make([]*wqGate, 4)
			for i := range gates {
				gates[i] = newWQGate()
				q.Submit(t.Context(), gates[i].fn)
			}
			<-gates[0].started
			q.SetParallelism(4)
			for _, g := range gates {
				<-g.started
			}
			if s := q.Stats(); s.Running != 4 || s.Parallelism != 4 {
				t.Errorf("stats = %+v, want 4 running of 4", s)
			}
			for _, g := range gates {
				close(g.release)
			}
			q.Drain(t.Context())
			var resized []int64
			lanes := map[int]bool{}
			for _, e := range rec.all() {
				switch e.Kind {
				case core.Resized:
					resized = append(resized, e.Weight)
				case core.Started:
					if e.Lane < 0 || e.Lane >= 4 || lanes[e.Lane] {
						t.Errorf("task %d started in lane %d, want a free lane below 4", e.Task, e.Lane)
					}
					lanes[e.Lane] = true
				}
			}
			if !slices.Equal(resized, []int64{4}) {
				t.Errorf("resized events' weights = %v, want [4]", resized)
			}
		})
	})
	t.Run("shrinking lets running tasks finish", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var rec recorder
			q := core.NewWorkQueue(3, core.WithObserver(rec.observe))
			defer q.Close()
			gates := make([]*wqGate, 6)
			for i := range gates {
				gates[i] = newWQGate()
				q.Submit(t.Context(), gates[i].fn)
			}
			for _, g := range gates[:3] {
				<-g.started
			}
			q.SetParallelism(1)
			close(gates[0].release)
			close(gates[1].release)
			synctest.Wait()
			if s := q.Stats(); s.Running != 1 || s.Pending != 3 {
				t.Errorf("stats = %+v, want 1 running (the third gate) and 3 pending", s)
			}
			close(gates[2].release)
			<-gates[3].started
			synctest.Wait()
			if s := q.Stats(); s.Running != 1 {
				t.Errorf("Stats().Running = %d, want 1", s.Running)
			}
			for _, g := range gates[3:] {
				close(g.release)
			}
			q.Drain(t.Context())
			for _, e := range rec.all() {
				if e.Kind == core.Started && e.Task > 3 && e.Lane != 0 {
					t.Errorf("task %d started in lane %d after shrinking to 1, want lane 0", e.Task, e.Lane)
				}
			}
		})
	})
}

func TestWorkQueueCancel(t *testing.T) {
	t.Run("pending task never runs", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var rec recorder
			q := core.NewWorkQueue(1, core.WithObserver(rec.observe))
			defer q.Close()
			g := newWQGate()
			q.Submit(t.Context(), g.fn)
			<-g.started
			ran := false
			task, _ := q.Submit(t.Context(), func(context.Context) error { ran = true; return nil })
			task.Cancel()
			if err := task.Wait(t.Context()); err != context.Canceled {
				t.Errorf("Wait = %v, want %v", err, context.Canceled)
			}
			if task.State() != core.TaskCanceled {
				t.Errorf("State() = %v, want %v", task.State(), core.TaskCanceled)
			}
			task.Cancel() // a no-op now
			close(g.release)
			q.Drain(t.Context())
			if ran {
				t.Errorf("canceled pending task ran")
			}
			if got, want := rec.kinds(task.ID()), []core.EventKind{core.Enqueued, core.Waiting, core.Canceled}; !slices.Equal(got, want) {
				t.Errorf("events = %v, want %v", got, want)
			}
			s := q.Stats()
			wqCheckStats(t, s)
			if s.Canceled != 1 {
				t.Errorf("Stats().Canceled = %d, want 1", s.Canceled)
			}
		})
	})
	t.Run("running task's context is canceled", func(t *testing.T) {
		q := core.NewWorkQueue(1)
		defer q.Close()
		started := make(chan struct{})
		task, _ := q.Submit(t.Context(), func(ctx context.Context) error {
			close(started)
			<-ctx.Done()
			return ctx.Err()
		})
		<-started
		task.Cancel()
		if err := task.Wait(t.Context()); err != context.Canceled || task.State() != core.TaskCanceled {
			t.Errorf("Wait = %v, state %v; want %v, canceled", err, task.State(), context.Canceled)
		}
		// A task that ignores the cancellation ends as it returns.
		started = make(chan struct{})
		task, _ = q.Submit(t.Context(), func(ctx context.Context) error {
			close(started)
			<-ctx.Done()
			return nil
		})
		<-started
		task.Cancel()
		if err := task.Wait(t.Context()); err != nil || task.State() != core.TaskSucceeded {
			t.Errorf("Wait = %v, state %v; want nil, succeeded", err, task.State())
		}
	})
	t.Run("submitter's context", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := core.NewWorkQueue(1)
			defer q.Close()
			g := newWQGate()
			q.Submit(t.Context(), g.fn)
			<-g.started
			cctx, cancel := context.WithTimeout(t.Context(), time.Second)
			defer cancel()
			ran := false
			pending, _ := q.Submit(cctx, func(context.Context) error { ran = true; return nil })
			time.Sleep(2 * time.Second)
			if err := pending.Err(); err != context.DeadlineExceeded || ran {
				t.Errorf("pending task's Err = %v (ran %v), want %v (ran false)", err, ran, context.DeadlineExceeded)
			}
			if s := q.Stats(); s.Pending != 0 || s.Canceled != 1 {
				t.Errorf("stats = %+v, want 0 pending, 1 canceled", s)
			}
			close(g.release)

			cctx2, cancel2 := context.WithTimeout(t.Context(), time.Second)
			defer cancel2()
			running, _ := q.Submit(cctx2, func(ctx context.Context) error {
				<-ctx.Done()
				return ctx.Err()
			})
			if err := running.Wait(t.Context()); err != context.DeadlineExceeded || running.State() != core.TaskCanceled {
				t.Errorf("running task's Wait = %v, state %v; want %v, canceled", err, running.State(), context.DeadlineExceeded)
			}
		})
	})
	t.Run("thousands of pending tasks on one context", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := core.NewWorkQueue(1)
			defer q.Close()
			g := newWQGate()
			q.Submit(t.Context(), g.fn)
			<-g.started
			cctx, cancel := context.WithCancel(t.Context())
			var ran atomic.Int64
			tasks := make([]*core.Task, 5000)
			for i := range tasks {
				tasks[i], _ = q.Submit(cctx, func(context.Context) error { ran.Add(1); return nil }, core.WithPriority(core.Priority(i%3)))
			}
			cancel()
			for _, task := range tasks {
				if err := task.Wait(t.Context()); err != context.Canceled {
					t.Fatalf("Wait = %v, want %v", err, context.Canceled)
				}
			}
			s := q.Stats()
			wqCheckStats(t, s)
			if s.Pending != 0 || s.Canceled != 5000 {
				t.Errorf("stats = %+v, want 0 pending, 5000 canceled", s)
			}
			close(g.release)
			q.Drain(t.Context())
			if ran.Load() != 0 {
				t.Errorf("%d canceled tasks ran", ran.Load())
			}
		})
	})
}

func TestWorkQueuePanic(t *testing.T) {
	var rec recorder
	q := core.NewWorkQueue(1, core.WithObserver(rec.observe))
	defer q.Close()
	cause := errors.New("cause")
	task, _ := q.Submit(t.Context(), func(context.Context) error { panic(cause) })
	err := task.Wait(t.Context())
	var pe *core.PanicError
	if !errors.As(err, &pe) || pe.Value != cause || len(pe.Stack) == 0 || !errors.Is(err, cause) {
		t.Fatalf("Wait = %v, want a *PanicError with value %v and a stack", err, cause)
	}
	if task.State() != core.TaskPanicked {
		t.Errorf("State() = %v, want %v", task.State(), core.TaskPanicked)
	}
	// The slot was released: the queue keeps running, also inline.
	if err := q.Do(t.Context(), wqNop); err != nil {
		t.Errorf("Do after a panic = %v, want nil", err)
	}
	if err := q.Do(t.Context(), func(context.Context) error { panic("inline") }); !errors.As(err, &pe) || pe.Value != "inline" {
		t.Errorf("Do of a panicking function = %v, want a *PanicError", err)
	}
	s := q.Stats()
	wqCheckStats(t, s)
	if s.Panicked != 2 || s.Succeeded != 1 || s.Running != 0 {
		t.Errorf("stats = %+v, want 2 panicked, 1 succeeded, 0 running", s)
	}
	if got := rec.kinds(task.ID()); !slices.Equal(got, []core.EventKind{core.Enqueued, core.Started, core.Panicked}) {
		t.Errorf("events = %v, want enqueued, started, panicked", got)
	}
}

func TestWorkQueueGoexit(t *testing.T) {
	q := core.NewWorkQueue(1)
	defer q.Close()
	task, _ := q.Submit(t.Context(), func(context.Context) error { runtime.Goexit(); return nil })
	if err := task.Wait(t.Context()); err == nil || task.State() != core.TaskFailed {
		t.Errorf("Wait = %v, state %v; want an error, failed", err, task.State())
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		q.Do(t.Context(), func(context.Context) error { runtime.Goexit(); return nil })
		t.Errorf("Do returned after its function called runtime.Goexit")
	}()
	<-done
	// Both slots were given back.
	if err := q.Do(t.Context(), wqNop); err != nil {
		t.Errorf("Do = %v, want nil", err)
	}
	s := q.Stats()
	wqCheckStats(t, s)
	if s.Failed != 2 || s.Running != 0 {
		t.Errorf("stats = %+v, want 2 failed, 0 running", s)
	}
}

func TestWorkQueueClose(t *testing.T) {
	t.Run("cancels pending and running tasks", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var rec recorder
			q := core.NewWorkQueue(2, core.WithObserver(rec.observe))
			var running []*core.Task
			for range 2 {
				task, _ := q.Submit(t.Context(), func(ctx context.Context) error {
					<-ctx.Done()
					return ctx.Err()
				})
				running = append(running, task)
			}
			// This one never asks for Done, and sees Close through Err.
			polled, _ := q.Submit(t.Context(), func(ctx context.Context) error {
				for ctx.Err() == nil {
					time.Sleep(time.Millisecond)
				}
				return ctx.Err()
			})
			ran := false
			pending, _ := q.Submit(t.Context(), func(context.Context) error { ran = true; return nil })
			q.SetParallelism(3)
			synctest.Wait()
			if err := q.Close(); err != nil {
				t.Errorf("Close = %v, want nil", err)
			}
			for _, task := range append(running, polled, pending) {
				if task.State() != core.TaskCanceled || task.Err() != context.Canceled {
					t.Errorf("task %d after Close: %v, %v; want canceled, %v", task.ID(), task.State(), task.Err(), context.Canceled)
				}
			}
			if ran {
				t.Errorf("pending task ran after Close")
			}
			events := rec.all()
			checkLives(t, events)
			if last := events[len(events)-1]; last.Kind != core.Closed || rec.count(core.Closed) != 1 {
				t.Errorf("last event = %v, want the only closed event", last.Kind)
			}
		})
	})
	t.Run("twice and concurrently, with Drain", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var rec recorder
			q := core.NewWorkQueue(1, core.WithObserver(rec.observe))
			g := newWQGate()
			q.Submit(t.Context(), g.fn)
			<-g.started
			var wg sync.WaitGroup
			for range 3 {
				wg.Go(func() { q.Close() })
				wg.Go(func() {
					if err := q.Drain(t.Context()); err != nil {
						t.Errorf("Drain = %v, want nil", err)
					}
				})
			}
			synctest.Wait() // everyone waits for the gate
			close(g.release)
			wg.Wait()
			q.Close()
			if err := q.Drain(t.Context()); err != nil {
				t.Errorf("Drain after Close = %v, want nil", err)
			}
			if n := rec.count(core.Closed); n != 1 {
				t.Errorf("%d closed events, want 1", n)
			}
		})
	})
	t.Run("refuses new tasks", func(t *testing.T) {
		for _, stop := range []string{"Close", "Drain"} {
			t.Run(stop, func(t *testing.T) {
				q := core.NewWorkQueue(1)
				if stop == "Close" {
					q.Close()
				} else {
					q.Drain(t.Context())
				}
				if _, err := q.Submit(t.Context(), wqNop); err != core.ErrClosed {
					t.Errorf("Submit = %v, want %v", err, core.ErrClosed)
				}
				if _, err := q.TrySubmit(wqNop); err != core.ErrClosed {
					t.Errorf("TrySubmit = %v, want %v", err, core.ErrClosed)
				}
				if err := q.Do(t.Context(), wqNop); err != core.ErrClosed {
					t.Errorf("Do = %v, want %v", err, core.ErrClosed)
				}
				if s := q.Stats(); s.Submitted != 0 {
					t.Errorf("Stats().Submitted = %d, want 0", s.Submitted)
				}
			})
		}
	})
}

func TestWorkQueueDrain(t *testing.T) {
	t.Run("finishes every accepted task", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var rec recorder
			q := core.NewWorkQueue(2, core.WithCapacity(2), core.WithObserver(rec.observe))
			var done atomic.Int64
			g := newWQGate()
			q.Submit(t.Context(), g.fn)
			<-g.started
			for range 3 {
				q.Submit(t.Context(), func(context.Context) error {
					time.Sleep(time.Second)
					done.Add(1)
					return nil
				})
			}
			blocked := make(chan error)
			go func() {
				_, err := q.Submit(t.Context(), wqNop)
				blocked <- err
			}()
			synctest.Wait()
			drained := make(chan error)
			go func() { drained <- q.Drain(t.Context()) }()
			if err := <-blocked; err != core.ErrClosed {
				t.Errorf("Submit waiting for room during Drain = %v, want %v", err, core.ErrClosed)
			}
			close(g.release)
			if err := <-drained; err != nil {
				t.Errorf("Drain = %v, want nil", err)
			}
			if n := done.Load(); n != 3 {
				t.Errorf("%d tasks done after Drain, want 3", n)
			}
			events := rec.all()
			checkLives(t, events)
			if last := events[len(events)-1]; last.Kind != core.Closed {
				t.Errorf("last event = %v, want closed", last.Kind)
			}
		})
	})
	t.Run("context ends first", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := core.NewWorkQueue(1)
			task, _ := q.Submit(t.Context(), func(context.Context) error {
				time.Sleep(time.Hour)
				return nil
			})
			cctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			if err := q.Drain(cctx); err != context.DeadlineExceeded {
				t.Errorf("Drain = %v, want %v", err, context.DeadlineExceeded)
			}
			if task.State() != core.TaskRunning {
				t.Errorf("task state = %v, want still running", task.State())
			}
			if _, err := q.Submit(t.Context(), wqNop); err != core.ErrClosed {
				t.Errorf("Submit while draining = %v, want %v", err, core.ErrClosed)
			}
			if err := q.Drain(t.Context()); err != nil {
				t.Errorf("second Drain = %v, want nil", err)
			}
			if task.State() != core.TaskSucceeded {
				t.Errorf("task state = %v, want succeeded", task.State())
			}
		})
	})
}

// TestWorkQueueDeadlocks runs the shapes that make work queues hang:
// each runs in a synctest bubble, which reports a deadlock rather than
// hang.
func TestWorkQueueDeadlocks(t *testing.T) {
	t.Run("Submit blocked on a full queue, tasks waiting on their context, then Close", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := core.NewWorkQueue(2, core.WithCapacity(2))
			waiting := func(ctx context.Context) error {
				<-ctx.Done()
				return ctx.Err()
			}
			for range 4 {
				if _, err := q.Submit(t.Context(), waiting); err != nil {
					t.Fatalf("Submit = %v, want nil", err)
				}
			}
			blocked := make(chan error)
			for range 2 {
				go func() {
					_, err := q.Submit(t.Context(), waiting)
					blocked <- err
				}()
			}
			synctest.Wait()
			q.Close()
			for range 2 {
				if err := <-blocked; err != core.ErrClosed {
					t.Errorf("blocked Submit = %v, want %v", err, core.ErrClosed)
				}
			}
			s := q.Stats()
			wqCheckStats(t, s)
			if s.Canceled != 4 {
				t.Errorf("stats = %+v, want 4 canceled", s)
			}
		})
	})
	t.Run("Close with thousands of tasks queued", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := core.NewWorkQueue(1)
			g := newWQGate()
			q.Submit(t.Context(), g.fn)
			<-g.started
			var ran atomic.Int64
			tasks := make([]*core.Task, 10000)
			for i := range tasks {
				tasks[i], _ = q.Submit(t.Context(), func(context.Context) error { ran.Add(1); return nil }, core.WithPriority(core.Priority(i%5)))
			}
			closed := make(chan struct{})
			go func() {
				q.Close()
				close(closed)
			}()
			for _, task := range tasks {
				if err := task.Wait(t.Context()); err != context.Canceled {
					t.Fatalf("Wait = %v, want %v", err, context.Canceled)
				}
			}
			close(g.release)
			<-closed
			if ran.Load() != 0 {
				t.Errorf("%d tasks ran after Close", ran.Load())
			}
			s := q.Stats()
			wqCheckStats(t, s)
			if s.Canceled != 10000 || s.Succeeded != 1 {
				t.Errorf("stats = %+v, want 10000 canceled, 1 succeeded", s)
			}
		})
	})
	t.Run("task submits to its own queue at parallelism 1, capacity 1", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var rec recorder
			q := core.NewWorkQueue(1, core.WithCapacity(1), core.WithObserver(rec.observe))
			defer q.Close()
			var steps []string
			err := q.Do(t.Context(), func(ctx context.Context) error {
				first, err := q.Submit(ctx, func(context.Context) error { steps = append(steps, "first"); return nil })
				if err != nil {
					return fmt.Errorf("first Submit: %w", err)
				}
				if _, err := q.Submit(ctx, wqNop); err != core.ErrFull {
					return fmt.Errorf("second Submit = %v, want %v", err, core.ErrFull)
				}
				if _, err := q.TrySubmit(wqNop); err != core.ErrFull {
					return fmt.Errorf("TrySubmit = %v, want %v", err, core.ErrFull)
				}
				// Do runs at once in this task's slot, and so does
				// a Do from inside that one.
				err = q.Do(ctx, func(ctx context.Context) error {
					steps = append(steps, "do")
					return q.Do(ctx, func(context.Context) error { steps = append(steps, "do in do"); return nil })
				})
				if err != nil {
					return fmt.Errorf("Do: %w", err)
				}
				// Waiting for the pending task runs it here too.
				if err := first.Wait(ctx); err != nil {
					return fmt.Errorf("Wait: %w", err)
				}
				steps = append(steps, "waited")
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if want := []string{"do", "do in do", "first", "waited"}; !slices.Equal(steps, want) {
				t.Errorf("steps = %v, want %v", steps, want)
			}
			var lanes []int
			for _, e := range rec.all() {
				if e.Kind == core.Started {
					lanes = append(lanes, e.Lane)
				}
			}
			if !slices.Equal(lanes, []int{0, 0, 0, 0}) {
				t.Errorf("lanes of the started tasks = %v, want all 0", lanes)
			}
			checkLives(t, rec.all())
			s := q.Stats()
			wqCheckStats(t, s)
			if s.Succeeded != 4 || s.Running != 0 {
				t.Errorf("stats = %+v, want 4 succeeded", s)
			}
		})
	})
}

func TestWorkQueueContext(t *testing.T) {
	type key struct{}
	t.Run("values, deadline and end", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := core.NewWorkQueue(1)
			defer q.Close()
			parent, cancel := context.WithTimeout(context.WithValue(t.Context(), key{}, "v"), time.Hour)
			defer cancel()
			var kept context.Context
			err := q.Do(parent, func(ctx context.Context) error {
				kept = ctx
				if ctx.Value(key{}) != "v" {
					return fmt.Errorf("Value = %v, want v", ctx.Value(key{}))
				}
				want, _ := parent.Deadline()
				if d, ok := ctx.Deadline(); !ok || !d.Equal(want) {
					return fmt.Errorf("Deadline = %v, %v; want %v, true", d, ok, want)
				}
				if ctx.Err() != nil {
					return fmt.Errorf("Err = %v while running, want nil", ctx.Err())
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if kept.Err() != context.Canceled {
				t.Errorf("Err after the function returned = %v, want %v", kept.Err(), context.Canceled)
			}
			select {
			case <-kept.Done():
			default:
				t.Errorf("Done not closed after the function returned")
			}
		})
	})
	t.Run("derived contexts and AfterFunc", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := core.NewWorkQueue(1)
			defer q.Close()
			started := make(chan struct{})
			var after atomic.Bool
			task, _ := q.Submit(t.Context(), func(ctx context.Context) error {
				child, cancel := context.WithCancel(ctx)
				defer cancel()
				stop := context.AfterFunc(ctx, func() { after.Store(true) })
				defer stop()
				never := context.AfterFunc(ctx, func() { t.Errorf("stopped AfterFunc ran") })
				never()
				close(started)
				<-child.Done()
				return child.Err()
			})
			<-started
			task.Cancel()
			if err := task.Wait(t.Context()); err != context.Canceled {
				t.Errorf("Wait = %v, want %v", err, context.Canceled)
			}
			synctest.Wait()
			if !after.Load() {
				t.Errorf("AfterFunc on the task's context did not run")
			}
		})
	})
	t.Run("Close ends contexts that are waited on", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := core.NewWorkQueue(2)
			started := make(chan struct{}, 2)
			var tasks []*core.Task
			for range 2 {
				task, _ := q.Submit(t.Context(), func(ctx context.Context) error {
					d := ctx.Done()
					started <- struct{}{}
					<-d
					return ctx.Err()
				})
				tasks = append(tasks, task)
			}
			<-started
			<-started
			q.Close()
			for _, task := range tasks {
				if task.Err() != context.Canceled {
					t.Errorf("task %d: Err = %v, want %v", task.ID(), task.Err(), context.Canceled)
				}
			}
		})
	})
}

func TestWorkQueueNoIdleGoroutines(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	q := core.NewWorkQueue(4)
	var tasks []*core.Task
	for range 1000 {
		task, _ := q.Submit(t.Context(), func(context.Context) error {
			runtime.Gosched()
			return nil
		})
		tasks = append(tasks, task)
	}
	for _, task := range tasks {
		task.Wait(t.Context())
	}
	// No Close: the workers exit by themselves once the work is done.
	// (Under GOOS=js the runtime's handleEvent goroutine may come and go.)
	goleak.VerifyNone(t, opt, goleak.IgnoreAnyFunction("runtime.handleEvent"))
	q.Close()
}

// TestWorkQueueStress runs wqStressTasks tasks with random priorities and
// outcomes (success, error, panic, canceled before start through its
// context or its Task, canceled while running) and checks that each ends
// exactly once, as planned, with its events in order, and that the
// counters add up, also while the queue runs.
func TestWorkQueueStress(t *testing.T) {
	const par, batch = 4, 1000
	total := wqStressTasks
	const (
		planOK = iota
		planErr
		planPanic
		planCancelCtx  // submitter's context canceled while pending
		planCancelTask // Task.Cancel while pending
		planCancelRun  // Task.Cancel while running
		nPlans
	)
	maxID := total + par*(total/batch+1) + 1
	type life struct {
		stage   atomic.Int32 // 1 enqueued, 2 started, 3 ended
		started atomic.Bool
		ended   atomic.Int32
		kind    atomic.Int32
		broken  atomic.Bool
	}
	lives := make([]life, maxID+1)
	observe := func(e core.Event) {
		if e.Task == 0 {
			return
		}
		l := &lives[e.Task]
		switch {
		case e.Kind == core.Enqueued:
			if !l.stage.CompareAndSwap(0, 1) {
				l.broken.Store(true)
			}
		case e.Kind == core.Waiting:
			if l.stage.Load() != 1 {
				l.broken.Store(true)
			}
		case e.Kind == core.Started:
			l.started.Store(true)
			if !l.stage.CompareAndSwap(1, 2) {
				l.broken.Store(true)
			}
		case e.Kind.Terminal():
			l.ended.Add(1)
			l.kind.Store(int32(e.Kind))
			if s := l.stage.Swap(3); s != 2 && !(s == 1 && e.Kind == core.Canceled) {
				l.broken.Store(true)
			}
		}
	}
	q := core.NewWorkQueue(par, core.WithObserver(observe))
	stopStats := make(chan struct{})
	statsDone := make(chan struct{})
	go func() {
		defer close(statsDone)
		for {
			select {
			case <-stopStats:
				return
			default:
			}
			s := q.Stats()
			if sum := uint64(s.Pending+s.Running) + s.Succeeded + s.Failed + s.Canceled + s.Panicked; sum != s.Submitted {
				t.Errorf("stats %+v do not add up", s)
				return
			}
			runtime.Gosched()
		}
	}()

	rng := rand.New(rand.NewPCG(1, 2))
	errPlanned := errors.New("planned")
	type entry struct {
		plan int
		task *core.Task
		ran  atomic.Bool
	}
	entries := make([]*entry, 0, total)
	for len(entries) < total {
		gates := make([]*wqGate, par)
		for i := range gates {
			gates[i] = newWQGate()
			q.Submit(t.Context(), gates[i].fn, core.WithPriority(-100))
		}
		for _, g := range gates {
			<-g.started
		}
		round := entries[len(entries):len(entries)]
		var cancels []context.CancelFunc
		for range min(batch, total-len(entries)) {
			e := &entry{plan: rng.IntN(nPlans)}
			ctx := t.Context()
			if e.plan == planCancelCtx {
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				cancels = append(cancels, cancel)
			}
			fn := func(ctx context.Context) error {
				e.ran.Store(true)
				switch e.plan {
				case planErr:
					return fmt.Errorf("task: %w", errPlanned)
				case planPanic:
					panic(e)
				case planCancelRun:
					e.task.Cancel()
					<-ctx.Done()
					return ctx.Err()
				}
				return nil
			}
			var err error
			if e.plan != planCancelCtx && rng.IntN(10) == 0 {
				e.task, err = q.TrySubmit(fn, core.WithPriority(core.Priority(rng.IntN(5)-2)))
			} else {
				e.task, err = q.Submit(ctx, fn, core.WithPriority(core.Priority(rng.IntN(5)-2)))
			}
			if err != nil {
				t.Fatalf("Submit = %v", err)
			}
			round = append(round, e)
		}
		entries = entries[:len(entries)+len(round)]
		for _, e := range round {
			if e.plan == planCancelTask {
				e.task.Cancel()
			}
		}
		for _, cancel := range cancels {
			cancel()
		}
		for _, g := range gates {
			close(g.release)
		}
	}
	if err := q.Drain(t.Context()); err != nil {
		t.Fatal(err)
	}
	close(stopStats)
	<-statsDone

	var want core.QueueStats
	want.Succeeded = uint64(par * ((total + batch - 1) / batch)) // the gates
	want.Submitted = want.Succeeded + uint64(total)
	for i, e := range entries {
		id := e.task.ID()
		l := &lives[id]
		if l.broken.Load() || l.ended.Load() != 1 {
			t.Fatalf("task %d (plan %d): events out of order, or %d terminal events", i, e.plan, l.ended.Load())
		}
		var wantState core.TaskState
		var wantKind core.EventKind
		wantRan := true
		switch e.plan {
		case planOK:
			wantState, wantKind = core.TaskSucceeded, core.Finished
			want.Succeeded++
		case planErr:
			wantState, wantKind = core.TaskFailed, core.Failed
			want.Failed++
			if !errors.Is(e.task.Err(), errPlanned) {
				t.Errorf("task %d: Err = %v, want %v", i, e.task.Err(), errPlanned)
			}
		case planPanic:
			wantState, wantKind = core.TaskPanicked, core.Panicked
			want.Panicked++
			var pe *core.PanicError
			if !errors.As(e.task.Err(), &pe) || pe.Value != e {
				t.Errorf("task %d: Err = %v, want its *PanicError", i, e.task.Err())
			}
		case planCancelCtx, planCancelTask, planCancelRun:
			wantState, wantKind, wantRan = core.TaskCanceled, core.Canceled, e.plan == planCancelRun
			want.Canceled++
			if e.task.Err() != context.Canceled {
				t.Errorf("task %d: Err = %v, want %v", i, e.task.Err(), context.Canceled)
			}
		}
		if e.task.State() != wantState || core.EventKind(l.kind.Load()) != wantKind || e.ran.Load() != wantRan {
			t.Errorf("task %d (plan %d): state %v, event %v, ran %v; want %v, %v, %v",
				i, e.plan, e.task.State(), core.EventKind(l.kind.Load()), e.ran.Load(), wantState, wantKind, wantRan)
		}
		if l.started.Load() != wantRan {
			t.Errorf("task %d: started event %v, want %v", i, l.started.Load(), wantRan)
		}
	}
	got := q.Stats()
	wqCheckStats(t, got)
	if got.Submitted != want.Submitted || got.Succeeded != want.Succeeded || got.Failed != want.Failed ||
		got.Panicked != want.Panicked || got.Canceled != want.Canceled || got.Pending != 0 || got.Running != 0 {
		t.Errorf("stats = %+v, want %+v", got, want)
	}
	if got.MaxRunning > par {
		t.Errorf("MaxRunning = %d, want at most %d", got.MaxRunning, par)
	}
}

// A WorkQueue runs at most N functions at once. Submit hands a function over
// and returns a Task to wait on; Do runs one and returns its error.
func ExampleWorkQueue() {
	ctx := context.Background()
	q := core.NewWorkQueue(2) // at most two functions run at once
	defer q.Close()

	squares := make([]int, 5)
	var tasks []*core.Task
	for i := range squares {
		task, err := q.Submit(ctx, func(ctx context.Context) error {
			squares[i] = i * i
			return nil
		})
		if err != nil {
			fmt.Println("submit:", err)
			return
		}
		tasks = append(tasks, task)
	}
	for _, task := range tasks {
		task.Wait(ctx)
	}
	fmt.Println(squares)

	err := q.Do(ctx, func(ctx context.Context) error {
		return errors.New("no luck")
	})
	fmt.Println("Do:", err)
	// Output:
	// [0 1 4 9 16]
	// Do: no luck
}

// Pending tasks start highest priority first, and in submission order
// within a priority.
func ExampleWorkQueue_priority() {
	ctx := context.Background()
	q := core.NewWorkQueue(1)

	started := make(chan struct{})
	release := make(chan struct{})
	q.Submit(ctx, func(ctx context.Context) error {
		close(started)
		<-release // hold the only slot while the others queue up
		return nil
	})
	<-started
	for _, job := range []struct {
		name string
		prio core.Priority
	}{{"report", core.Low}, {"invoice", core.Normal}, {"alert", core.High}, {"receipt", core.Normal}} {
		q.Submit(ctx, func(ctx context.Context) error {
			fmt.Println(job.name)
			return nil
		}, core.WithPriority(job.prio))
	}
	close(release)
	q.Drain(ctx) // run everything accepted, then stop
	// Output:
	// alert
	// invoice
	// receipt
	// report
}

// TestWorkQueueObservedParallelism checks that an observer counting running
// tasks from events never sees more than the last parallelism it was told
// of while SetParallelism grows the queue under load: a growth is reported
// before the tasks it starts.
func TestWorkQueueObservedParallelism(t *testing.T) {
	var mu sync.Mutex
	limit, running := int64(1), 0
	q := core.NewWorkQueue(1, core.WithClock(jitterClock{}), core.WithObserver(func(e core.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case e.Kind == core.Resized:
			limit = e.Weight
		case e.Kind == core.Started:
			running++
			if int64(running) > limit {
				t.Errorf("task %d started with %d running, parallelism %d", e.Task, running, limit)
			}
		case e.Kind.Terminal() && e.Task != 0:
			running--
		}
	}))
	ctx := context.Background()
	for range 400 {
		if _, err := q.Submit(ctx, func(context.Context) error {
			runtime.Gosched()
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	for n := range 16 {
		q.SetParallelism(2 + n)
		runtime.Gosched()
	}
	if err := q.Drain(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestWorkQueueWaitAllocations counts what a task that waits with a
// context of its own costs, as the WorkQueue doc states it: the task, the
// context's Done channel and context.AfterFunc's four allocations, the
// watch being one the queue reuses.
func TestWorkQueueWaitAllocations(t *testing.T) {
	q := core.NewWorkQueue(1)
	defer q.Close()
	release := make(chan struct{})
	if err := q.Go(t.Context(), func(context.Context) error { <-release; return nil }); err != nil {
		t.Fatal(err)
	}
	defer close(release)
	fn := func(context.Context) error { return nil }
	submit := func() {
		ctx, cancel := context.WithCancel(context.Background())
		task, err := q.Submit(ctx, fn)
		if err != nil {
			t.Fatal(err)
		}
		task.Cancel() // it waits behind the blocked task: this ends it
		cancel()
	}
	got := testing.AllocsPerRun(200, submit)
	// context.WithCancel's own two, then the queue's one, the Task: a
	// waiting task's context is looked at, not watched.
	if want := 2.0 + 1; got > want {
		t.Errorf("allocations of a waiting task with its own context = %v, want at most %v", got, want)
	}
}
