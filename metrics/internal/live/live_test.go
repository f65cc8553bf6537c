package live_test

import (
	"context"
	"testing"
	"time"

	"go.uber.org/goleak"

	"sluice/core"
	"sluice/metrics/internal/live"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var t0 = time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)

func ev(k core.EventKind, task uint64, ms int, p core.Priority) core.Event {
	return core.Event{Kind: k, Task: task, Time: t0.Add(time.Duration(ms) * time.Millisecond), Priority: p}
}

// TestTracker follows tasks from their events: a start yields the wait, an
// end the run time, with the priority's value; more live tasks than the
// ring holds at first (it grows), and than it holds at most (the rest go
// to a map), are still found; the counts and gauges come from the events
// when no primitive is watched.
func TestTracker(t *testing.T) {
	made := map[core.Priority]int{}
	tr := live.New(func(p core.Priority) core.Priority { made[p]++; return p })
	tr.SetMaxRing(2 * live.RingSize)
	const n = 2*live.RingSize + 100 // the ring grows once; the first 100 are pushed out of it
	for i := uint64(1); i <= n; i++ {
		tr.Observe(ev(core.Enqueued, i, 0, core.Priority(i%2)))
	}
	for i := uint64(1); i <= n; i++ {
		what, d, p := tr.Observe(ev(core.Started, i, 10, core.Priority(i%2)))
		if what != live.Wait || d != 10*time.Millisecond || p != core.Priority(i%2) {
			t.Fatalf("task %d's start: %v %v %v, want a wait of 10ms at priority %d", i, what, d, p, i%2)
		}
	}
	if r := tr.Read(); r.Source != live.Events || r.Queued != 0 || r.Running != n {
		t.Errorf("Read() = %+v, want from events, 0 queued, %d running", r, n)
	}
	kinds := []core.EventKind{core.Finished, core.Failed, core.Canceled, core.Panicked}
	for i := uint64(1); i <= n; i++ {
		what, d, _ := tr.Observe(ev(kinds[i%4], i, 25, 0))
		if what != live.Run || d != 15*time.Millisecond {
			t.Fatalf("task %d's end: %v %v, want a run of 15ms", i, what, d)
		}
	}
	r := tr.Read()
	if r.Running != 0 || r.Counts != [4]uint64{n / 4, n / 4, n / 4, n / 4} {
		t.Errorf("Read() = %+v, want 0 running and %d of each outcome", r, n/4)
	}
	if made[0] != 1 || made[1] != 1 {
		t.Errorf("the priority values were made %v times, want once each", made)
	}
	// A task canceled before it started yields no time; an unknown task
	// changes nothing.
	tr.Observe(ev(core.Enqueued, n+1, 0, 0))
	if what, _, _ := tr.Observe(ev(core.Canceled, n+1, 5, 0)); what != live.None {
		t.Errorf("a task canceled while queued yields %v, want none", what)
	}
	if what, _, _ := tr.Observe(ev(core.Started, 999_999, 5, 0)); what != live.None {
		t.Errorf("an unknown task's start yields %v, want none", what)
	}
	if r := tr.Read(); r.Queued != 0 {
		t.Errorf("%d queued after the canceled task, want 0", r.Queued)
	}
}

// TestTrackerWatch reads a queue's and a Semaphore's Stats, and follows a
// Semaphore's holders no further than their start.
func TestTrackerWatch(t *testing.T) {
	tr := live.New(func(core.Priority) struct{} { return struct{}{} })
	q := core.NewWorkQueue(2, core.WithObserver(func(e core.Event) { tr.Observe(e) }))
	if !tr.Watch(q) {
		t.Fatal("Watch(WorkQueue) = false")
	}
	for range 5 {
		q.Do(context.Background(), func(context.Context) error { return nil })
	}
	q.Close()
	if r := tr.Read(); r.Source != live.Queue || r.Counts[0] != 5 || r.Limit != 2 {
		t.Errorf("Read() = %+v, want a queue's, 5 finished, limit 2", r)
	}

	st := live.New(func(core.Priority) struct{} { return struct{}{} })
	s := core.NewSemaphore(3, core.WithObserver(func(e core.Event) {
		if what, _, _ := st.Observe(e); what == live.Run {
			t.Errorf("a Semaphore's release yielded a run time")
		}
	}))
	st.Watch(s)
	s.Acquire(context.Background(), 2)
	if r := st.Read(); r.Source != live.Semaphore || r.Tokens != 2 || r.Limit != 3 {
		t.Errorf("Read() = %+v, want a Semaphore's, 2 tokens of 3", r)
	}
	s.Release(2)
	if st.Watch(42) {
		t.Error("Watch(42) = true")
	}
}

// TestTrackerReadWhileObserving reads a queue's tracker while its events
// come, as a scrape does: under the race detector, no race; the counts
// come from the queue's Stats, the gauges never below zero.
func TestTrackerReadWhileObserving(t *testing.T) {
	tr := live.New(func(core.Priority) struct{} { return struct{}{} })
	q := core.NewWorkQueue(4, core.WithObserver(func(e core.Event) { tr.Observe(e) }))
	tr.Watch(q)
	done := make(chan struct{})
	read := make(chan struct{})
	go func() {
		defer close(read)
		for {
			if r := tr.Read(); r.Queued < 0 || r.Running < 0 {
				t.Errorf("Read() = %+v while observing", r)
			}
			select {
			case <-done:
				return
			default:
			}
		}
	}()
	ctx := context.Background()
	for range 2000 {
		q.Go(ctx, func(context.Context) error { return nil })
	}
	q.Drain(ctx)
	close(done)
	<-read
	q.Close()
	if r := tr.Read(); r.Counts[0] != 2000 || r.Queued != 0 || r.Running != 0 {
		t.Errorf("Read() = %+v after 2,000 tasks, want 2,000 finished, none queued or running", r)
	}
}
