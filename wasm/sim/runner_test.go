package sim_test

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"sluice/core"
	"sluice/wasm/sim"
)

// scenarios are the presets, and a few more shapes the presets do not
// cover.
func scenarios() map[string]sim.Scenario {
	m := make(map[string]sim.Scenario)
	for _, p := range sim.Presets() {
		m[p.ID] = p.Scenario
	}
	mix := sim.OutcomeMix{OK: 5, Fail: 1, Panic: 1, Slow: 1}
	prio := sim.PriorityMix{Low: 1, Normal: 1, High: 1}
	m["processor"] = sim.Scenario{V: sim.Version, Primitive: sim.Processor, Seed: 7, Limit: 2, Capacity: 6,
		Bursts: []sim.Burst{
			{Count: 10, MinMS: 50, MaxMS: 300, Priority: prio, Outcome: mix},
			{AtMS: 400, Count: 5, MinMS: 50, MaxMS: 100, CancelAfterMS: 80},
		},
		Actions: []sim.Action{{AtMS: 600, Do: sim.ActionLimit, N: 4}, {AtMS: 900, Do: sim.ActionDrain}}}
	m["keyed-parallel"] = sim.Scenario{V: sim.Version, Primitive: sim.Keyed, Seed: 8, Limit: 2, IdleMS: 100,
		Bursts: []sim.Burst{
			{Count: 30, MinMS: 10, MaxMS: 60, Keys: 6, Outcome: mix},
			{AtMS: 700, Count: 10, MinMS: 10, MaxMS: 60, Keys: 3, CancelAfterMS: 50},
		},
		Actions: []sim.Action{{AtMS: 900, Do: sim.ActionCancelAll}}}
	m["semaphore-weights"] = sim.Scenario{V: sim.Version, Primitive: sim.Semaphore, Seed: 9, Limit: 4, AgingMS: 50,
		Bursts: []sim.Burst{
			{Count: 20, MinMS: 10, MaxMS: 80, Weight: 1, Priority: prio, Outcome: mix},
			{AtMS: 30, Count: 5, MinMS: 20, MaxMS: 40, Weight: 3, Priority: prio},
			{AtMS: 60, Count: 10, MinMS: 10, MaxMS: 30, Weight: 2, CancelAfterMS: 60},
		},
		Actions: []sim.Action{{AtMS: 200, Do: sim.ActionLimit, N: 6}, {AtMS: 400, Do: sim.ActionLimit, N: 3}}}
	m["consume-drain"] = sim.Scenario{V: sim.Version, Primitive: sim.Consume, Seed: 10, Limit: 2,
		Consumers: []sim.Consumer{{Concurrency: 4, Priority: 1}, {Concurrency: 1, Priority: -1}},
		Bursts: []sim.Burst{
			{Count: 12, MinMS: 20, MaxMS: 90, Outcome: mix},
			{AtMS: 50, Count: 6, MinMS: 20, MaxMS: 40, Consumer: 2, CancelAfterMS: 70},
			{AtMS: 500, Count: 3, MinMS: 20, MaxMS: 40},
		},
		Actions: []sim.Action{{AtMS: 100, Do: sim.ActionLimit, N: 3}, {AtMS: 300, Do: sim.ActionDrain}}}
	m["shared-drain"] = sim.Scenario{V: sim.Version, Primitive: sim.Shared, Seed: 11, Limit: 3, Capacity: 8,
		Consumers: []sim.Consumer{{Concurrency: 2}, {Concurrency: 2, Priority: 1}, {Concurrency: 1, Priority: -1}},
		Bursts: []sim.Burst{
			{Count: 15, MinMS: 20, MaxMS: 90, Outcome: mix},
			{AtMS: 50, Count: 12, MinMS: 20, MaxMS: 40, Consumer: 2, CancelAfterMS: 70},
			{AtMS: 500, Count: 3, MinMS: 20, MaxMS: 40},
		},
		Actions: []sim.Action{{AtMS: 100, Do: sim.ActionLimit, N: 2}, {AtMS: 200, Do: sim.ActionLimit, N: 4}, {AtMS: 300, Do: sim.ActionDrain}}}
	m["shared-close"] = sim.Scenario{V: sim.Version, Primitive: sim.Shared, Seed: 15, Limit: 2,
		Consumers: []sim.Consumer{{Concurrency: 2, Priority: -1}, {Concurrency: 1, Priority: 1}},
		Bursts:    []sim.Burst{{Count: 20, MinMS: 10, MaxMS: 60, Outcome: mix}},
		Actions:   []sim.Action{{AtMS: 80, Do: sim.ActionCancelAll}, {AtMS: 90, Do: sim.ActionClose}}}
	levels := []int{5, -3, 100}
	m["keyed-names"] = sim.Scenario{V: sim.Version, Primitive: sim.Keyed, Seed: 12, Limit: 500, IdleMS: 80,
		Bursts: []sim.Burst{
			{Count: 40, MinMS: 10, MaxMS: 60, Levels: levels, KeyNames: []string{"eu-west", "us-east", "東京"}, Outcome: mix},
			{AtMS: 300, Count: 10, MinMS: 10, MaxMS: 40, Keys: 2, CancelAfterMS: 30},
		}}
	m["workqueue-levels"] = sim.Scenario{V: sim.Version, Primitive: sim.WorkQueue, Seed: 13, Limit: 3,
		Bursts:  []sim.Burst{{Count: 30, MinMS: 10, MaxMS: 60, Levels: levels, Outcome: mix}},
		Actions: []sim.Action{{AtMS: 100, Do: sim.ActionLimit, N: 500}}}
	m["consume-priorities"] = sim.Scenario{V: sim.Version, Primitive: sim.Consume, Seed: 14, Limit: 3,
		Consumers: []sim.Consumer{{Concurrency: 500, Priority: 100}, {Concurrency: 2, Priority: -7}},
		Bursts:    []sim.Burst{{Count: 20, MinMS: 10, MaxMS: 60, Outcome: mix}}}
	return m
}

// start makes a runner for s with a checker, and stops it and verifies
// the checker when the test ends.
func start(t *testing.T, s sim.Scenario) (*sim.Runner, *checker) {
	t.Helper()
	c := newChecker(t, s)
	r, err := sim.NewRunner(s, sim.Config{Observe: c.observe})
	if err != nil {
		t.Fatalf("NewRunner = %v", err)
	}
	t.Cleanup(func() {
		r.Stop()
		r.Wait()
		c.verify(r.Stats())
	})
	return r, c
}

// stepToEnd steps r until no timer is pending, checking at each rest what
// the event stream alone cannot show.
func stepToEnd(t *testing.T, r *sim.Runner, s sim.Scenario) {
	t.Helper()
	for i := 0; r.Step(); i++ {
		if i > 100_000 {
			t.Fatalf("still stepping after %d steps", i)
		}
		atRest(t, r, s)
	}
}

func atRest(t *testing.T, r *sim.Runner, s sim.Scenario) {
	t.Helper()
	st := r.Stats()
	if s.Primitive == sim.Consume || s.Primitive == sim.Semaphore || s.Primitive == sim.Shared {
		if st.Semaphore.InUse > st.Semaphore.Limit && st.Semaphore.Limit >= int64(s.Limit) {
			t.Errorf("at %v: %d tokens in use, limit %d", st.Now, st.Semaphore.InUse, st.Semaphore.Limit)
		}
		if st.Semaphore.InUse != st.Tokens {
			t.Errorf("at rest at %v: the semaphore has %d tokens in use, the events say %d", st.Now, st.Semaphore.InUse, st.Tokens)
		}
	}
}

// checkEnd checks a run that has finished.
func checkEnd(t *testing.T, r *sim.Runner) {
	t.Helper()
	if !r.Finished() {
		t.Errorf("Finished = false after the last step")
	}
	st := r.Stats()
	if got := st.Succeeded + st.Failed + st.Canceled + st.Panicked; got != st.Submitted {
		t.Errorf("succeeded+failed+canceled+panicked = %d, submitted = %d", got, st.Submitted)
	}
	if got := st.Submitted + st.Refused + st.Withdrawn; got != st.Tasks {
		t.Errorf("submitted+refused+withdrawn = %d, tasks = %d", got, st.Tasks)
	}
	if st.Pending != 0 || st.Running != 0 || st.Scheduled != 0 || st.Backlog != 0 || st.Tokens != 0 {
		t.Errorf("at the end: %d pending, %d running, %d scheduled, %d in backlogs, %d tokens", st.Pending, st.Running, st.Scheduled, st.Backlog, st.Tokens)
	}
	switch st.Primitive {
	case sim.WorkQueue, sim.Processor, sim.Keyed:
		q := st.Queue
		if q.Submitted != uint64(st.Submitted) || q.Succeeded != uint64(st.Succeeded) || q.Failed != uint64(st.Failed) ||
			q.Canceled != uint64(st.Canceled) || q.Panicked != uint64(st.Panicked) || q.MaxRunning != st.MaxRunning {
			t.Errorf("the queue's counters %+v disagree with the run's %+v", q, st)
		}
		if q.Lanes != 0 || st.Lanes != 0 {
			t.Errorf("%d lanes (events: %d) left at the end", q.Lanes, st.Lanes)
		}
	case sim.Shared:
		var sum core.QueueStats
		for i, q := range st.Queues {
			if q.MaxRunning > q.Parallelism {
				t.Errorf("queue %d ran %d tasks at once, parallelism %d", i+1, q.MaxRunning, q.Parallelism)
			}
			sum.Submitted += q.Submitted
			sum.Succeeded += q.Succeeded
			sum.Failed += q.Failed
			sum.Canceled += q.Canceled
			sum.Panicked += q.Panicked
		}
		if sum.Submitted != uint64(st.Submitted) || sum.Succeeded != uint64(st.Succeeded) || sum.Failed != uint64(st.Failed) ||
			sum.Canceled != uint64(st.Canceled) || sum.Panicked != uint64(st.Panicked) {
			t.Errorf("the queues' counters %+v disagree with the run's %+v", sum, st)
		}
		if st.Semaphore.InUse != 0 || st.Semaphore.Waiters != 0 {
			t.Errorf("the shared semaphore ends with %+v", st.Semaphore)
		}
	case sim.Semaphore:
		if st.Semaphore.InUse != 0 || st.Semaphore.Waiters != 0 {
			t.Errorf("the semaphore ends with %+v", st.Semaphore)
		}
		if st.MaxTokens > int64(st.Semaphore.Limit) && st.MaxTokens > 6 {
			t.Errorf("MaxTokens = %d", st.MaxTokens)
		}
	}
	for _, m := range r.Messages() {
		if strings.Contains(m.Text, "did not come to rest") {
			t.Errorf("message: %s", m.Text)
		}
	}
	for _, ti := range r.Tasks() {
		switch ti.State {
		case sim.StateSucceeded, sim.StateFailed, sim.StatePanicked:
			// Virtual time is exact: a task that ran to its end ran
			// exactly its duration.
			if got := ti.Ended - ti.Started; got != ti.Duration && !(st.Primitive == sim.Consume && ti.Err == "context canceled") {
				t.Errorf("%s %s after %v, want its duration %v", ti.Name, ti.State, got, ti.Duration)
			}
		case sim.StateCanceled:
			if ti.Ended < 0 || ti.Started >= 0 && ti.Ended-ti.Started > ti.Duration {
				t.Errorf("%s canceled at %v after starting at %v, longer than its duration %v", ti.Name, ti.Ended, ti.Started, ti.Duration)
			}
		case sim.StateRefused, sim.StateWithdrawn:
			if ti.Started >= 0 {
				t.Errorf("%s %s but started at %v", ti.Name, ti.State, ti.Started)
			}
		default:
			t.Errorf("%s is still %s at the end", ti.Name, ti.State)
		}
		if ti.Started >= 0 && ti.Started < ti.Submitted {
			t.Errorf("%s started at %v before it was submitted at %v", ti.Name, ti.Started, ti.Submitted)
		}
	}
}

func TestScenariosRunToTheEnd(t *testing.T) {
	for name, s := range scenarios() {
		t.Run(name, func(t *testing.T) {
			r, _ := start(t, s)
			stepToEnd(t, r, s)
			checkEnd(t, r)
			if st := r.Stats(); st.Submitted == 0 && len(s.Bursts) > 0 {
				t.Errorf("nothing was submitted")
			}
		})
	}
}

func TestKeyedRunsEachKeyInOrder(t *testing.T) {
	for name, s := range scenarios() {
		if s.Primitive != sim.Keyed {
			continue
		}
		t.Run(name, func(t *testing.T) {
			r, _ := start(t, s)
			stepToEnd(t, r, s)
			last := make(map[string]sim.TaskInfo)
			for _, ti := range r.Tasks() {
				if ti.Started < 0 {
					continue
				}
				if p, ok := last[ti.Key]; ok && ti.Started < p.Ended {
					t.Errorf("%s (key %s) started at %v, before %s ended at %v", ti.Name, ti.Key, ti.Started, p.Name, p.Ended)
				}
				last[ti.Key] = ti
			}
		})
	}
}

// outcomes runs s to the end, by Step or by frames of Advance, and returns
// every task's fate.
func outcomes(t *testing.T, s sim.Scenario, frame time.Duration) []sim.TaskInfo {
	t.Helper()
	r, _ := start(t, s)
	if frame == 0 {
		stepToEnd(t, r, s)
	} else {
		for i := 0; !r.Finished(); i++ {
			if i > 1_000_000 {
				t.Fatalf("not finished after %d frames", i)
			}
			r.Advance(frame)
		}
	}
	return r.Tasks()
}

func TestDeterminism(t *testing.T) {
	for name, s := range scenarios() {
		t.Run(name, func(t *testing.T) {
			a := outcomes(t, s, 0)
			b := outcomes(t, s, 0)
			c := outcomes(t, s, sim.FrameStep(16*time.Millisecond, 3))
			for i := range a {
				if !reflect.DeepEqual(a[i], b[i]) {
					t.Errorf("second run: %+v\nfirst run: %+v", b[i], a[i])
				}
				if !reflect.DeepEqual(a[i], c[i]) {
					t.Errorf("played in frames: %+v\nstepped: %+v", c[i], a[i])
				}
			}
			if len(a) != len(b) || len(a) != len(c) {
				t.Errorf("runs made %d, %d and %d tasks", len(a), len(b), len(c))
			}
		})
	}
}

func TestDifferentSeedsDiffer(t *testing.T) {
	p, _ := sim.PresetByID("semaphore")
	a := outcomes(t, p.Scenario, 0)
	p.Scenario.Seed++
	b := outcomes(t, p.Scenario, 0)
	if reflect.DeepEqual(a, b) {
		t.Errorf("seeds %d and %d gave the same run", p.Scenario.Seed-1, p.Scenario.Seed)
	}
}

// sched is a scenario of n tasks of d each on primitive prim with limit 2.
func sched(prim string, n int, d int) sim.Scenario {
	s := sim.Scenario{V: sim.Version, Primitive: prim, Seed: 1, Limit: 2,
		Bursts: []sim.Burst{{Count: n, MinMS: d, MaxMS: d}}}
	switch prim {
	case sim.Keyed:
		s.Bursts[0].Keys = 2
	case sim.Consume:
		s.Consumers = []sim.Consumer{{Concurrency: 2}, {Concurrency: 2}}
	}
	return s
}

var allPrimitives = []string{sim.Semaphore, sim.WorkQueue, sim.Processor, sim.Keyed, sim.Consume}

func TestCancel(t *testing.T) {
	r, _ := start(t, sched(sim.Semaphore, 3, 100))
	r.Advance(0)
	state := func(name string) sim.TaskInfo {
		ti, ok := r.Task(name)
		if !ok {
			t.Fatalf("no task %s", name)
		}
		return ti
	}
	if s := state("t3").State; s != sim.StateWaiting {
		t.Fatalf("t3 is %s, want waiting", s)
	}
	if err := r.Cancel("t3"); err != nil {
		t.Fatalf("Cancel(t3) = %v", err)
	}
	if ti := state("t3"); ti.State != sim.StateCanceled || ti.Started != -1 || ti.Err != "context canceled" {
		t.Errorf("t3 after Cancel: %+v, want canceled without starting", ti)
	}
	r.Advance(40 * time.Millisecond)
	if err := r.Cancel("t1"); err != nil {
		t.Fatalf("Cancel(t1) = %v", err)
	}
	if ti := state("t1"); ti.State != sim.StateCanceled || ti.Ended != 40*time.Millisecond {
		t.Errorf("t1 after Cancel at 40ms: %+v, want canceled at 40ms", ti)
	}
	for _, tc := range []struct{ name, want string }{
		{"t1", "t1 has already ended: it was canceled"},
		{"t99", `there is no task "t99" in this run`},
		{"bogus", `there is no task "bogus" in this run`},
	} {
		if err := r.Cancel(tc.name); err == nil || err.Error() != tc.want {
			t.Errorf("Cancel(%s) = %v, want %q", tc.name, err, tc.want)
		}
	}
	r.Advance(time.Second)
	if ti := state("t2"); ti.State != sim.StateSucceeded {
		t.Errorf("t2 is %s, want succeeded", ti.State)
	}
	checkEnd(t, r)
}

func TestCancelBeforeSubmission(t *testing.T) {
	s := sched(sim.Consume, 6, 100)
	s.Consumers = []sim.Consumer{{Concurrency: 1}}
	s.Limit = 1
	s.Bursts = append(s.Bursts, sim.Burst{AtMS: 500, Count: 2, MinMS: 10, MaxMS: 10})
	r, _ := start(t, s)
	r.Advance(0)
	if ti, _ := r.Task("t5"); ti.State != sim.StateBacklog {
		t.Fatalf("t5 is %s, want backlog", ti.State)
	}
	if err := r.Cancel("t5"); err != nil {
		t.Fatalf("Cancel(t5) = %v", err)
	}
	if err := r.Cancel("t8"); err != nil { // its burst is not due
		t.Fatalf("Cancel(t8) = %v", err)
	}
	stepToEnd(t, r, s)
	for name, want := range map[string]sim.State{"t5": sim.StateWithdrawn, "t8": sim.StateWithdrawn, "t6": sim.StateSucceeded, "t7": sim.StateSucceeded} {
		if ti, _ := r.Task(name); ti.State != want {
			t.Errorf("%s is %s, want %s", name, ti.State, want)
		}
	}
	checkEnd(t, r)
}

func TestCancelAll(t *testing.T) {
	for _, prim := range allPrimitives {
		t.Run(prim, func(t *testing.T) {
			s := sched(prim, 10, 1000)
			s.Bursts = append(s.Bursts, sim.Burst{AtMS: 2000, Count: 2, MinMS: 10, MaxMS: 10, Keys: 1})
			r, _ := start(t, s)
			r.Advance(100 * time.Millisecond)
			if st := r.Stats(); st.Running == 0 {
				t.Fatalf("nothing running before CancelAll: %+v", st)
			}
			r.CancelAll()
			st := r.Stats()
			if st.Running != 0 || st.Pending != 0 || st.Backlog != 0 {
				t.Errorf("after CancelAll: %d running, %d pending, %d in backlogs", st.Running, st.Pending, st.Backlog)
			}
			if st.Now != 100*time.Millisecond {
				t.Errorf("CancelAll moved time to %v", st.Now)
			}
			if got := st.Canceled + st.Failed + st.Withdrawn; got != 10 {
				t.Errorf("canceled+failed+withdrawn = %d, want 10", got)
			}
			stepToEnd(t, r, s) // later bursts still come
			if st := r.Stats(); st.Succeeded != 2 {
				t.Errorf("%d tasks succeeded after CancelAll, want the 2 submitted later", st.Succeeded)
			}
			checkEnd(t, r)
		})
	}
}

func TestDrain(t *testing.T) {
	for _, prim := range allPrimitives {
		t.Run(prim, func(t *testing.T) {
			s := sched(prim, 4, 100)
			s.Bursts = append(s.Bursts, sim.Burst{AtMS: 150, Count: 2, MinMS: 10, MaxMS: 10, Keys: 1})
			r, _ := start(t, s)
			r.Advance(0)
			done := r.Drain()
			if again := r.Drain(); again != done {
				t.Errorf("a second Drain returned another channel")
			}
			select {
			case <-done:
				t.Fatalf("drained before the tasks finished")
			default:
			}
			if err := r.Submit(sim.Burst{Count: 1, MinMS: 5, MaxMS: 5, Keys: 1}); err != nil {
				t.Fatalf("Submit while draining = %v", err)
			}
			stepToEnd(t, r, s)
			select {
			case <-done:
			default:
				t.Fatalf("not drained at the end")
			}
			st := r.Stats()
			if st.Succeeded != 4 || st.Refused != 3 || !st.Drained {
				t.Errorf("after draining: %d succeeded, %d refused, drained %v; want 4, 3, true", st.Succeeded, st.Refused, st.Drained)
			}
			refused := 0
			for _, m := range r.Messages() {
				if m.Error && strings.Contains(m.Text, "refused") {
					refused++
					if (prim == sim.WorkQueue || prim == sim.Processor || prim == sim.Keyed) && !strings.Contains(m.Text, core.ErrClosed.Error()) {
						t.Errorf("message %q does not carry %q", m.Text, core.ErrClosed)
					}
				}
			}
			if refused != 3 {
				t.Errorf("%d refusal messages, want 3", refused)
			}
			checkEnd(t, r)
		})
	}
}

func TestClose(t *testing.T) {
	for _, prim := range allPrimitives {
		t.Run(prim, func(t *testing.T) {
			s := sched(prim, 6, 1000)
			s.Bursts = append(s.Bursts, sim.Burst{AtMS: 2000, Count: 2, MinMS: 10, MaxMS: 10, Keys: 1})
			r, _ := start(t, s)
			r.Advance(300 * time.Millisecond)
			r.Close()
			st := r.Stats()
			if st.Running != 0 || st.Pending != 0 || st.Now != 300*time.Millisecond {
				t.Errorf("after Close: %d running, %d pending at %v; want none at 300ms", st.Running, st.Pending, st.Now)
			}
			stepToEnd(t, r, s)
			if st := r.Stats(); st.Succeeded != 0 || st.Refused != 2 {
				t.Errorf("after Close: %d succeeded, %d refused; want 0 and the 2 submitted later", st.Succeeded, st.Refused)
			}
			checkEnd(t, r)
		})
	}
}

func TestSetLimit(t *testing.T) {
	for _, prim := range allPrimitives {
		t.Run(prim, func(t *testing.T) {
			s := sched(prim, 8, 100)
			s.Limit = 1
			if prim == sim.Keyed {
				s.Bursts[0].Keys = 8
			}
			r, c := start(t, s)
			r.Advance(0)
			err := r.SetLimit(3)
			if prim == sim.Keyed {
				if err == nil || !strings.Contains(err.Error(), "cannot change while it runs") {
					t.Errorf("SetLimit on the keyed queue = %v, want an error saying it cannot change", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("SetLimit(3) = %v", err)
			}
			st := r.Stats()
			if st.Running != 3 || st.Limit != 3 {
				t.Errorf("after SetLimit(3) at once: %d running, limit %d; want 3 and 3", st.Running, st.Limit)
			}
			c.mu.Lock()
			if fmt.Sprint(c.resized) != "[3]" {
				t.Errorf("Resized events with %v, want [3]", c.resized)
			}
			c.mu.Unlock()
			for _, n := range []int{0, sim.MaxLimit + 1} {
				if err := r.SetLimit(n); err == nil {
					t.Errorf("SetLimit(%d) = nil, want an error", n)
				}
			}
			stepToEnd(t, r, s)
			checkEnd(t, r)
		})
	}
}

func TestWorkQueueCapacity(t *testing.T) {
	s := sched(sim.WorkQueue, 5, 100)
	s.Limit = 1
	s.Capacity = 2
	r, _ := start(t, s)
	r.Advance(0)
	st := r.Stats()
	if st.Running != 1 || st.Pending != 2 || st.Refused != 2 {
		t.Errorf("%d running, %d pending, %d refused; want 1, 2, 2", st.Running, st.Pending, st.Refused)
	}
	full := 0
	for _, m := range r.Messages() {
		if m.Error && strings.Contains(m.Text, core.ErrFull.Error()) && strings.Contains(m.Text, "capacity of 2") {
			full++
		}
	}
	if full != 2 {
		t.Errorf("%d messages about a full queue, want 2: %v", full, r.Messages())
	}
	stepToEnd(t, r, s)
	checkEnd(t, r)
}

func TestKeyedCapacity(t *testing.T) {
	s := sched(sim.Keyed, 5, 100)
	s.Bursts[0].Keys = 1
	s.Capacity = 1
	r, _ := start(t, s)
	r.Advance(0)
	st := r.Stats()
	if st.Running != 1 || st.Pending != 1 || st.Refused != 3 {
		t.Errorf("%d running, %d pending, %d refused; want 1, 1, 3", st.Running, st.Pending, st.Refused)
	}
	full := 0
	for _, m := range r.Messages() {
		if m.Error && strings.Contains(m.Text, core.ErrFull.Error()) && strings.Contains(m.Text, "key device-1 already has its capacity of 1") {
			full++
		}
	}
	if full != 3 {
		t.Errorf("%d messages about a full key, want 3: %v", full, r.Messages())
	}
	stepToEnd(t, r, s)
	checkEnd(t, r)
}

func TestSubmit(t *testing.T) {
	s := sched(sim.Semaphore, 2, 100)
	r, _ := start(t, s)
	r.Advance(50 * time.Millisecond)
	if err := r.Submit(sim.Burst{Count: 3, MinMS: 10, MaxMS: 10}); err != nil {
		t.Fatalf("Submit = %v", err)
	}
	if err := r.Submit(sim.Burst{AtMS: 100, Count: 1, MinMS: 10, MaxMS: 10}); err != nil {
		t.Fatalf("Submit later = %v", err)
	}
	if ti, _ := r.Task("t3"); ti.Submitted != 50*time.Millisecond || ti.Burst != -1 {
		t.Errorf("t3 = %+v, want submitted at 50ms by Submit", ti)
	}
	var inv *sim.InvalidError
	if err := r.Submit(sim.Burst{Count: 0, MinMS: 1, MaxMS: 1}); !errors.As(err, &inv) {
		t.Errorf("Submit of an empty burst = %v, want an *InvalidError", err)
	}
	if err := r.Submit(sim.Burst{Count: 1, MinMS: 1, MaxMS: 1, Weight: 3}); err == nil || !strings.Contains(err.Error(), "the semaphore has only 2") {
		t.Errorf("Submit of a too heavy burst = %v", err)
	}
	if err := r.Submit(sim.Burst{Count: sim.MaxTasks, MinMS: 1, MaxMS: 1}); err == nil || !strings.Contains(err.Error(), "a run holds at most 10,000 tasks") {
		t.Errorf("Submit beyond MaxTasks = %v", err)
	}
	stepToEnd(t, r, s)
	if st := r.Stats(); st.Succeeded != 6 || st.Now != 160*time.Millisecond {
		t.Errorf("%d succeeded, ending at %v; want 6 at 160ms", st.Succeeded, st.Now)
	}
	checkEnd(t, r)
	r.Stop()
	if err := r.Submit(sim.Burst{Count: 1, MinMS: 1, MaxMS: 1}); err == nil || !strings.Contains(err.Error(), "stopped") {
		t.Errorf("Submit after Stop = %v, want an error", err)
	}
}

func TestStep(t *testing.T) {
	s := sim.Scenario{V: sim.Version, Primitive: sim.Semaphore, Seed: 1, Limit: 1,
		Bursts: []sim.Burst{{AtMS: 1000, Count: 1, MinMS: 250, MaxMS: 250}}}
	r, _ := start(t, s)
	for i, want := range []time.Duration{time.Second, 1250 * time.Millisecond} {
		if !r.Step() || r.Now() != want {
			t.Fatalf("step %d: now %v, want %v", i, r.Now(), want)
		}
	}
	if r.Step() {
		t.Errorf("Step with nothing pending = true")
	}
	if r.Now() != 1250*time.Millisecond || !r.Finished() {
		t.Errorf("after the last step: now %v, finished %v", r.Now(), r.Finished())
	}
	r.Advance(-time.Second) // counts as 0
	r.Advance(time.Second)
	if r.Now() != 1250*time.Millisecond {
		t.Errorf("Advance(1s) from 1.25s, after the run ended: now %v, want the end, 1.25s", r.Now())
	}
}

func TestMessages(t *testing.T) {
	p, _ := sim.PresetByID("workqueue-cancel")
	var mu sync.Mutex
	var got []sim.Message
	r, err := sim.NewRunner(p.Scenario, sim.Config{OnMessage: func(m sim.Message) {
		mu.Lock()
		got = append(got, m)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Wait()
	defer r.Stop()
	for r.Step() {
	}
	msgs := r.Messages()
	mu.Lock()
	if !reflect.DeepEqual(got, msgs) {
		t.Errorf("OnMessage got %d messages, Messages has %d", len(got), len(msgs))
	}
	mu.Unlock()
	var text []string
	for _, m := range msgs {
		text = append(text, m.Text)
	}
	all := strings.Join(text, "\n")
	for _, want := range []string{
		"failed: simulated failure",
		"panicked: core: task panicked: simulated panic (the work queue released its slot and kept running)",
		"its cancel-after of 1.2 s ran out",
		"the scenario closes the work queue",
		"the work queue has stopped",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no message contains %q; messages:\n%s", want, all)
		}
	}
}

func TestStopMidRun(t *testing.T) {
	for name, s := range scenarios() {
		t.Run(name, func(t *testing.T) {
			r, _ := start(t, s)
			r.Advance(700 * time.Millisecond)
			stopped := r.Now() // 700 ms, or the last event's time if the run ended before
			r.Stop()
			r.Stop()
			r.Wait()
			st := r.Stats()
			if !st.Stopped || st.Running != 0 || st.Pending != 0 {
				t.Errorf("after Stop and Wait: %+v", st)
			}
			if r.Step() {
				t.Errorf("Step after Stop = true")
			}
			r.Advance(time.Second)
			if r.Now() != stopped {
				t.Errorf("Advance after Stop moved time to %v", r.Now())
			}
			select {
			case <-r.Drain():
			default:
				t.Errorf("Drain after Stop returned a channel that is not closed")
			}
		})
	}
}

func TestLargeRun(t *testing.T) {
	n := sim.MaxTasks
	if testing.Short() {
		n = 1000
	}
	const limit = 64
	s := sim.Scenario{V: sim.Version, Primitive: sim.WorkQueue, Seed: 11, Limit: limit,
		Bursts: []sim.Burst{{Count: n, MinMS: 1, MaxMS: 100, Priority: sim.PriorityMix{Low: 1, Normal: 1, High: 1}}}}
	r, _ := start(t, s)
	steps := 0
	for r.Step() {
		steps++
	}
	checkEnd(t, r)
	if st := r.Stats(); st.Succeeded != n || st.MaxRunning != limit {
		t.Errorf("%d succeeded, at most %d running; want %d and %d", st.Succeeded, st.MaxRunning, n, limit)
	}
}

func TestNewRunnerRefusesInvalid(t *testing.T) {
	s := sched(sim.Semaphore, 1, 1)
	s.Limit = 0
	var inv *sim.InvalidError
	if r, err := sim.NewRunner(s, sim.Config{}); !errors.As(err, &inv) || r != nil {
		t.Errorf("NewRunner(invalid) = %v, %v; want nil and an *InvalidError", r, err)
	}
}

func TestStats(t *testing.T) {
	s := sched(sim.Consume, 6, 100)
	r, _ := start(t, s)
	r.Advance(0)
	st := r.Stats()
	if st.Primitive != sim.Consume || st.Semaphore.Limit != 2 || st.Semaphore.InUse != 2 || st.Running != 2 || st.Goroutines < 3 {
		t.Errorf("Stats = %+v", st)
	}
	if st.Tasks != 6 || st.Submitted+st.Backlog != 6 {
		t.Errorf("Stats = %+v, want 6 tasks sent", st)
	}
	if got := r.Scenario(); !reflect.DeepEqual(got, s) {
		t.Errorf("Scenario() = %+v, want %+v", got, s)
	}
	names := slices.Collect(func(yield func(string) bool) {
		for _, ti := range r.Tasks() {
			if !yield(ti.Name) {
				return
			}
		}
	})
	if fmt.Sprint(names) != "[t1 t2 t3 t4 t5 t6]" {
		t.Errorf("task names %v", names)
	}
}

func TestLimitsAbove64(t *testing.T) {
	for _, tc := range []struct {
		prim  string
		limit int
	}{
		{sim.Semaphore, 500}, {sim.WorkQueue, 500}, {sim.Processor, 2000}, {sim.Keyed, 500}, {sim.Consume, 500},
	} {
		t.Run(tc.prim, func(t *testing.T) {
			// 700 tasks: more than the smaller limits, few enough for the
			// race detector's goroutine limit.
			const n = 700
			s := sim.Scenario{V: sim.Version, Primitive: tc.prim, Seed: 21, Limit: tc.limit,
				Bursts: []sim.Burst{{Count: n, MinMS: 100, MaxMS: 200}}}
			switch tc.prim {
			case sim.Keyed:
				s.Bursts[0].Keys = sim.MaxKeys
			case sim.Consume:
				s.Consumers = []sim.Consumer{{Concurrency: 2000}}
			}
			r, _ := start(t, s)
			stepToEnd(t, r, s)
			checkEnd(t, r)
			st := r.Stats()
			want := min(tc.limit, n)
			if tc.prim == sim.Keyed {
				want = st.MaxRunning // bounded by the keys that have work
			}
			if st.Succeeded != n || st.MaxRunning != want || st.MaxRunning > tc.limit {
				t.Errorf("%d succeeded, at most %d running; want %d and %d", st.Succeeded, st.MaxRunning, n, want)
			}
			if tc.prim == sim.Keyed && st.MaxRunning <= 64 {
				t.Errorf("at most %d keys ran at once; want more than 64 with a limit of %d", st.MaxRunning, tc.limit)
			}
		})
	}
}

func TestLevelsAndKeyNames(t *testing.T) {
	levels := []int{5, -3, 100}
	names := []string{"eu-west", "us-east", "東京"}
	for _, prim := range []string{sim.Semaphore, sim.WorkQueue, sim.Processor, sim.Keyed} {
		t.Run(prim, func(t *testing.T) {
			s := sim.Scenario{V: sim.Version, Primitive: prim, Seed: 5, Limit: 2,
				Bursts: []sim.Burst{{Count: 60, MinMS: 10, MaxMS: 50, Levels: levels, KeyNames: names}}}
			if prim != sim.Keyed {
				s.Bursts[0].KeyNames = nil
			}
			r, _ := start(t, s)
			stepToEnd(t, r, s)
			checkEnd(t, r)
			seenPrio := make(map[core.Priority]int)
			seenKey := make(map[string]int)
			for _, ti := range r.Tasks() {
				seenPrio[ti.Priority]++
				seenKey[ti.Key]++
			}
			for _, l := range levels {
				if seenPrio[core.Priority(l)] == 0 {
					t.Errorf("no task got priority %d; tasks by priority: %v", l, seenPrio)
				}
			}
			if len(seenPrio) != len(levels) {
				t.Errorf("tasks by priority: %v, want only %v", seenPrio, levels)
			}
			if prim == sim.Keyed {
				for _, k := range names {
					if seenKey[k] == 0 {
						t.Errorf("no task got key %q; tasks by key: %v", k, seenKey)
					}
				}
				if len(seenKey) != len(names) {
					t.Errorf("tasks by key: %v, want only %q", seenKey, names)
				}
			}
			if st := r.Stats(); st.Succeeded != 60 {
				t.Errorf("%d succeeded, want 60", st.Succeeded)
			}
		})
	}
}

func TestLevelsOrderTheQueue(t *testing.T) {
	// One worker, every task submitted at once: after the first, tasks
	// start highest level first, as core orders any int priority.
	s := sim.Scenario{V: sim.Version, Primitive: sim.WorkQueue, Seed: 3, Limit: 1,
		Bursts: []sim.Burst{{Count: 30, MinMS: 10, MaxMS: 10, Levels: []int{5, -3, 100, 1_000_000}}}}
	r, _ := start(t, s)
	stepToEnd(t, r, s)
	checkEnd(t, r)
	ts := r.Tasks()
	slices.SortFunc(ts, func(a, b sim.TaskInfo) int { return int(a.Started - b.Started) })
	for i := 2; i < len(ts); i++ {
		if ts[i].Priority > ts[i-1].Priority {
			t.Errorf("%s (priority %d) started after %s (priority %d)", ts[i].Name, ts[i].Priority, ts[i-1].Name, ts[i-1].Priority)
		}
	}
}

func TestMixDrawsAsBefore(t *testing.T) {
	// A burst without levels or key names draws exactly what it drew
	// before they existed, so that old links replay as they did.
	s := sim.Scenario{V: sim.Version, Primitive: sim.Keyed, Seed: 4, Limit: 0,
		Bursts: []sim.Burst{{Count: 6, MinMS: 200, MaxMS: 500, Keys: 4, Priority: sim.PriorityMix{Normal: 1, High: 1}}}}
	r, err := sim.NewRunner(s, sim.Config{})
	if err != nil {
		t.Fatalf("NewRunner = %v", err)
	}
	defer func() { r.Stop(); r.Wait() }()
	var got []string
	for _, ti := range r.Tasks() {
		got = append(got, fmt.Sprintf("%s/%d/%v", ti.Key, ti.Priority, ti.Duration))
	}
	const want = "[device-3/1/493ms device-4/1/481ms device-1/0/427ms device-2/1/359ms device-3/1/478ms device-1/1/313ms]" // as drawn before
	if fmt.Sprint(got) != want {
		t.Errorf("draws = %v, want %s", got, want)
	}
}

// TestCancelConsumeMessage cancels a message a consumer is handling, and
// one waiting for a token: both count as canceled, as a canceled task of
// any other primitive does, and their end events say Canceled.
func TestCancelConsumeMessage(t *testing.T) {
	s := sim.Scenario{V: sim.Version, Primitive: sim.Consume, Seed: 1, Limit: 1,
		Consumers: []sim.Consumer{{Concurrency: 2}},
		Bursts:    []sim.Burst{{Count: 3, MinMS: 100, MaxMS: 100}}}
	var mu sync.Mutex
	ends := map[string]core.EventKind{}
	r, err := sim.NewRunner(s, sim.Config{Observe: func(e core.Event) {
		if e.Kind.Terminal() {
			mu.Lock()
			ends[e.Name] = e.Kind
			mu.Unlock()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { r.Stop(); r.Wait() }()
	r.Advance(10 * time.Millisecond)
	for _, name := range []string{"t1", "t2"} { // running, waiting for the token
		if err := r.Cancel(name); err != nil {
			t.Fatalf("Cancel(%s) = %v", name, err)
		}
	}
	r.Advance(time.Second)
	st := r.Stats()
	if st.Canceled != 2 || st.Failed != 0 || st.Succeeded != 1 {
		t.Errorf("canceled %d, failed %d, succeeded %d; want 2, 0, 1", st.Canceled, st.Failed, st.Succeeded)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, name := range []string{"t1", "t2"} {
		if ends[name] != core.Canceled {
			t.Errorf("%s ended with %v, want Canceled", name, ends[name])
		}
		if ti, _ := r.Task(name); ti.State != sim.StateCanceled {
			t.Errorf("%s is %s, want canceled", name, ti.State)
		}
	}
}

// TestEndTimeIndependentOfSpeed plays a preset to its end in frames of
// 16 ms and of 160 ms (1x and 10x): it ends at the same virtual time, its
// last event's.
func TestEndTimeIndependentOfSpeed(t *testing.T) {
	p, _ := sim.PresetByID("workqueue-cancel")
	var ends []time.Duration
	for _, step := range []time.Duration{16 * time.Millisecond, 160 * time.Millisecond, 1700 * time.Millisecond} {
		r, err := sim.NewRunner(p.Scenario, sim.Config{})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 10_000 && !r.Finished(); i++ {
			r.Advance(step)
		}
		r.Advance(step) // a frame after the end moves nothing
		ends = append(ends, r.Now())
		r.Stop()
		r.Wait()
	}
	if ends[0] != ends[1] || ends[0] != ends[2] {
		t.Errorf("the run ended at %v in frames of 16 ms, %v of 160 ms, %v of 1.7 s; want one time", ends[0], ends[1], ends[2])
	}
}

// TestAdvanceForCutAnywhere cuts every AdvanceFor at once (its time is
// up before it starts), so that each call moves the run by one timer or
// by 16 submissions of a burst, and checks that the run ends as one
// moved by Advance does: the same tasks, times and outcomes, the same
// messages. "cut-burst" has a burst of 100 tasks at 0 and an action of
// the log taken right after it at 0, which a cut burst must not let in
// before its last task.
func TestAdvanceForCutAnywhere(t *testing.T) {
	all := scenarios()
	all["cut-burst"] = sim.Scenario{V: sim.Version, Primitive: sim.WorkQueue, Seed: 3, Limit: 2,
		Bursts: []sim.Burst{{Count: 100, MinMS: 10, MaxMS: 50}},
		Log:    []sim.Step{{Seq: 1, Fired: 1, Do: sim.StepCancel, Task: "t90"}}}
	for name, s := range all {
		t.Run(name, func(t *testing.T) {
			w, _ := start(t, s)
			for i := 0; !w.Finished(); i++ {
				if i > 1_000_000 {
					t.Fatalf("not finished after %d frames", i)
				}
				w.Advance(20 * time.Millisecond)
			}
			want, wantMsgs := w.Tasks(), w.Messages()
			r, _ := start(t, s)
			cuts := 0
			for i := 0; !r.Finished(); i++ {
				if i > 1_000_000 {
					t.Fatalf("not finished after %d calls", i)
				}
				if !r.AdvanceFor(20*time.Millisecond, time.Time{}.Add(1)) {
					cuts++
				}
			}
			got := r.Tasks()
			if !reflect.DeepEqual(got, want) {
				t.Errorf("cut %d times, the run's tasks differ from one moved by Advance:\ngot  %+v\nwant %+v", cuts, got, want)
			}
			if got := r.Messages(); !reflect.DeepEqual(got, wantMsgs) {
				t.Errorf("the run's messages differ from one moved by Advance:\ngot  %+v\nwant %+v", got, wantMsgs)
			}
			if cuts == 0 {
				t.Errorf("AdvanceFor with its time up never stopped early")
			}
		})
	}
}
