package core_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"sluice/core"
)

// inFlight counts functions running at once and keeps the peak.
type inFlight struct{ now, peak atomic.Int64 }

func (f *inFlight) enter() {
	n := f.now.Add(1)
	for p := f.peak.Load(); n > p && !f.peak.CompareAndSwap(p, n); p = f.peak.Load() {
	}
}

func (f *inFlight) leave() { f.now.Add(-1) }

// TestSharedLimit checks WithSemaphore on every primitive: two work queues,
// a processor, a keyed queue and a consumer share a limit of 3, each with
// more parallelism than that, and never run more than 3 functions at once,
// observed or not.
func TestSharedLimit(t *testing.T) {
	for _, observed := range []bool{false, true} {
		t.Run(fmt.Sprintf("observed=%v", observed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				sem := core.NewSemaphore(3)
				recs := make([]*recorder, 4) // one per queue: task ids are per queue
				shared := func(i int) []core.Option {
					opts := []core.Option{core.WithSemaphore(sem)}
					if observed {
						recs[i] = new(recorder)
						opts = append(opts, core.WithObserver(recs[i].observe))
					}
					return opts
				}
				var f inFlight
				work := func(ctx context.Context) error {
					f.enter()
					defer f.leave()
					time.Sleep(time.Millisecond)
					return nil
				}
				q1 := core.NewWorkQueue(4, shared(0)...)
				q2 := core.NewWorkQueue(4, shared(1)...)
				p := core.NewProcessor(4, func(ctx context.Context, i int) (int, error) { return i, work(ctx) }, shared(2)...)
				k := core.NewKeyedQueue[int](append(shared(3), core.WithParallelism(4))...)
				msgs := make(chan int)
				var wg sync.WaitGroup
				wg.Go(func() {
					core.Consume(t.Context(), msgs, func(ctx context.Context, _ int) error { return work(ctx) },
						core.WithConcurrency(4), core.WithSemaphore(sem))
				})
				for i := range 40 {
					q1.Go(t.Context(), work, core.WithPriority(core.Priority(i%3-1)))
					q2.Submit(t.Context(), work)
					p.Submit(t.Context(), i)
					k.Submit(t.Context(), i%5, work)
					msgs <- i
				}
				close(msgs)
				wg.Wait()
				for _, stop := range []func(context.Context) error{q1.Drain, q2.Drain, p.Drain, k.Drain} {
					if err := stop(t.Context()); err != nil {
						t.Fatal(err)
					}
				}
				if got := f.peak.Load(); got != 3 {
					t.Errorf("peak in flight across the primitives = %d, want 3 (the shared limit)", got)
				}
				if s := sem.Stats(); s.InUse != 0 || s.Waiters != 0 {
					t.Errorf("semaphore after the work = %+v, want nothing held or waiting", s)
				}
				for i, st := range []core.QueueStats{q1.Stats(), q2.Stats(), p.Stats(), k.Stats()} {
					if st.Succeeded != 40 {
						t.Errorf("queue %d: %+v, want 40 succeeded", i, st)
					}
				}
				for _, rec := range recs {
					if rec != nil {
						checkLives(t, rec.all())
					}
				}
			})
		})
	}
}

// TestSharedLimitPriority checks that a queue's tasks wait for the shared
// token at their own priority: with the token held, a High task submitted
// after a Low one to another queue gets it first.
func TestSharedLimitPriority(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sem := core.NewSemaphore(1)
		qa := core.NewWorkQueue(1, core.WithSemaphore(sem))
		qb := core.NewWorkQueue(1, core.WithSemaphore(sem))
		defer qa.Close()
		defer qb.Close()
		if err := sem.Acquire(t.Context(), 1); err != nil {
			t.Fatal(err)
		}
		var order []string
		var mu sync.Mutex
		add := func(s string) func(context.Context) error {
			return func(context.Context) error { mu.Lock(); order = append(order, s); mu.Unlock(); return nil }
		}
		qa.Go(t.Context(), add("low"), core.WithPriority(core.Low))
		synctest.Wait()
		qb.Go(t.Context(), add("high"), core.WithPriority(core.High))
		synctest.Wait()
		if s := qa.Stats(); s.Pending != 1 || s.Running != 0 {
			t.Errorf("queue A while the token is held = %+v, want 1 pending, 0 running", s)
		}
		sem.Release(1)
		qa.Drain(t.Context())
		qb.Drain(t.Context())
		if fmt.Sprint(order) != "[high low]" {
			t.Errorf("order = %v, want [high low]", order)
		}
	})
}

// TestSharedLimitCancel checks that a task canceled while it waits for the
// shared token never runs, and gives its slot back.
func TestSharedLimitCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sem := core.NewSemaphore(0)
		q := core.NewWorkQueue(1, core.WithSemaphore(sem))
		ran := false
		task, err := q.Submit(t.Context(), func(context.Context) error { ran = true; return nil })
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if st := task.State(); st != core.TaskPending {
			t.Errorf("state while waiting for a token = %v, want pending", st)
		}
		task.Cancel()
		if err := task.Wait(t.Context()); err != context.Canceled || ran {
			t.Errorf("Wait = %v (ran %v), want %v (ran false)", err, ran, context.Canceled)
		}
		sem.SetLimit(1)
		if err := q.Do(t.Context(), nop); err != nil {
			t.Errorf("Do after the cancel = %v, want nil", err)
		}
		q.Close()
		if s := sem.Stats(); s.InUse != 0 {
			t.Errorf("tokens held after Close = %d, want 0", s.InUse)
		}
	})
}

// ExampleWithSemaphore shares one limit between two work queues: each may
// run four tasks, but together they never run more than two.
func ExampleWithSemaphore() {
	ctx := context.Background()
	global := core.NewSemaphore(2)
	uploads := core.NewWorkQueue(4, core.WithSemaphore(global))
	thumbnails := core.NewWorkQueue(4, core.WithSemaphore(global))

	var f inFlight
	work := func(context.Context) error {
		f.enter()
		defer f.leave()
		time.Sleep(time.Millisecond)
		return nil
	}
	for range 10 {
		uploads.Go(ctx, work)
		thumbnails.Go(ctx, work, core.WithPriority(core.High))
	}
	uploads.Drain(ctx)
	thumbnails.Drain(ctx)
	fmt.Println("at most", f.peak.Load(), "at once")
	// Output: at most 2 at once
}

// TestSharedLimitTokensBackAtStop checks that Drain returns only once the
// shared tokens of the tasks it waited for are given back, on every path
// a task ends by: a worker, Do on the caller's goroutine, runtime.Goexit.
// The semaphore's observer sleeps on each release, which comes before the
// tokens move: a stop that did not wait for the release would be seen.
func TestSharedLimitTokensBackAtStop(t *testing.T) {
	work := func(context.Context) error { time.Sleep(time.Millisecond); return nil }
	cases := []struct {
		name string
		run  func(t *testing.T, opt core.Option) func(context.Context) error
	}{
		{"WorkQueue.Go", func(t *testing.T, opt core.Option) func(context.Context) error {
			q := core.NewWorkQueue(2, opt)
			for range 3 {
				q.Go(t.Context(), work)
			}
			return q.Drain
		}},
		{"WorkQueue.Do", func(t *testing.T, opt core.Option) func(context.Context) error {
			q := core.NewWorkQueue(2, opt)
			if err := q.Do(t.Context(), work); err != nil {
				t.Fatal(err)
			}
			return q.Drain
		}},
		{"Goexit", func(t *testing.T, opt core.Option) func(context.Context) error {
			q := core.NewWorkQueue(2, opt)
			q.Go(t.Context(), func(context.Context) error { runtime.Goexit(); return nil })
			return q.Drain
		}},
		{"Processor", func(t *testing.T, opt core.Option) func(context.Context) error {
			p := core.NewProcessor(2, func(ctx context.Context, i int) (int, error) { return i, work(ctx) }, opt)
			for i := range 3 {
				p.Submit(t.Context(), i)
			}
			return p.Drain
		}},
		{"KeyedQueue", func(t *testing.T, opt core.Option) func(context.Context) error {
			k := core.NewKeyedQueue[int](opt)
			for i := range 3 {
				k.Submit(t.Context(), i%2, work)
			}
			return k.Drain
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				sem := core.NewSemaphore(2, core.WithObserver(func(e core.Event) {
					if e.Kind == core.Finished {
						time.Sleep(time.Millisecond)
					}
				}))
				drain := c.run(t, core.WithSemaphore(sem))
				if err := drain(t.Context()); err != nil {
					t.Fatal(err)
				}
				if s := sem.Stats(); s.InUse != 0 {
					t.Errorf("semaphore as Drain returned = %+v, want no token held", s)
				}
			})
		})
	}
}
