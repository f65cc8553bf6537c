package sim_test

import (
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"sluice/core"
	"sluice/wasm/sim"
)

// eventLog collects a run's events as text, in the order reported.
type eventLog struct {
	mu sync.Mutex
	es []string
}

func (l *eventLog) observe(e core.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	// Not the lane: which of several free slots a task takes at one
	// instant follows, on a machine of several cores, the order the
	// goroutines run in.
	l.es = append(l.es, fmt.Sprintf("%v %v t%d key=%q w=%d p=%d err=%v",
		e.Time.Sub(sim.Epoch), e.Kind, e.Task, e.Key, e.Weight, e.Priority, e.Err))
}

func (l *eventLog) events() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.es...)
}

// recorder drives a runner as a person would and writes what they did in a
// log, as the playground's session does.
type recorder struct {
	t   *testing.T
	r   *sim.Runner
	log []sim.Step
}

func (rc *recorder) note(st sim.Step) {
	st.Seq = len(rc.log) + 1
	st.AtMS = int(rc.r.Now() / time.Millisecond)
	st.Fired = rc.r.Clock().Fired()
	rc.log = append(rc.log, st)
}

func (rc *recorder) burst(b sim.Burst) {
	rc.t.Helper()
	rc.note(sim.Step{Do: sim.StepBurst, Burst: &b})
	if err := rc.r.Submit(b); err != nil {
		rc.t.Fatalf("Submit = %v", err)
	}
}

func (rc *recorder) cancel(name string) {
	rc.t.Helper()
	rc.note(sim.Step{Do: sim.StepCancel, Task: name})
	if err := rc.r.Cancel(name); err != nil {
		rc.t.Fatalf("Cancel(%s) = %v", name, err)
	}
}

func (rc *recorder) act(do string, n int) {
	rc.t.Helper()
	rc.note(sim.Step{Do: do, N: n})
	switch do {
	case sim.ActionCancelAll:
		rc.r.CancelAll()
	case sim.ActionDrain:
		rc.r.Drain()
	case sim.ActionClose:
		rc.r.Close()
	case sim.ActionLimit:
		if err := rc.r.SetLimit(n); err != nil {
			rc.t.Fatalf("SetLimit(%d) = %v", n, err)
		}
	}
}

// runOut plays r to its end in frames of 7 ms.
func runOut(t *testing.T, r *sim.Runner) {
	t.Helper()
	for i := 0; !r.Finished(); i++ {
		if i > 1_000_000 {
			t.Fatalf("the run did not finish: %+v", r.Stats())
		}
		r.Advance(7 * time.Millisecond)
	}
}

// outcome is what a replay must reproduce: every task, the counters and
// the whole event log.
type outcome struct {
	Tasks  []sim.TaskInfo
	Events []string
	Stats  sim.Stats
}

func finish(t *testing.T, r *sim.Runner, l *eventLog) outcome {
	t.Helper()
	runOut(t, r)
	st := r.Stats()
	st.Goroutines, st.Now = 0, 0
	o := outcome{Tasks: r.Tasks(), Events: l.events(), Stats: st}
	r.Stop()
	r.Wait()
	return o
}

func compare(t *testing.T, got, want outcome) {
	t.Helper()
	if !reflect.DeepEqual(got.Stats, want.Stats) {
		t.Errorf("replayed counters = %+v\nwant %+v", got.Stats, want.Stats)
	}
	if len(got.Tasks) != len(want.Tasks) {
		t.Fatalf("replay made %d tasks, want %d", len(got.Tasks), len(want.Tasks))
	}
	for i := range got.Tasks {
		if !reflect.DeepEqual(got.Tasks[i], want.Tasks[i]) {
			t.Errorf("replayed task %d = %+v\nwant %+v", i+1, got.Tasks[i], want.Tasks[i])
			break
		}
	}
	ge, we := byInstant(got.Events), byInstant(want.Events)
	if len(ge) != len(we) {
		t.Errorf("replay reported %d events, want %d", len(ge), len(we))
	}
	for i := range min(len(ge), len(we)) {
		if ge[i] != we[i] {
			t.Errorf("replayed event %d = %s, want %s", i, ge[i], we[i])
			break
		}
	}
}

// byInstant sorts the events of each instant among themselves: core
// reports some events of one instant from several goroutines at once (a
// keyed queue's Close cancels every lane's task together), in an order
// that is not fixed from run to run; the instants, and what happened at
// each, are.
func byInstant(es []string) []string {
	es = slices.Clone(es)
	for i := 0; i < len(es); {
		at, _, _ := strings.Cut(es[i], " ")
		j := i + 1
		for j < len(es) && strings.HasPrefix(es[j], at+" ") {
			j++
		}
		slices.Sort(es[i:j])
		i = j
	}
	return es
}

// replayOf runs sc with log and returns its outcome; the log also goes
// through a link, as a reload does.
func replayOf(t *testing.T, sc sim.Scenario, log []sim.Step) outcome {
	t.Helper()
	sc.Log = log
	dec, err := sim.Decode(sc.Encode())
	if err != nil {
		t.Fatalf("the log does not go through a link: %v", err)
	}
	var l eventLog
	r, err := sim.NewRunner(dec, sim.Config{Observe: l.observe})
	if err != nil {
		t.Fatalf("NewRunner = %v", err)
	}
	return finish(t, r, &l)
}

// oneThread runs the test's goroutines on one thread, as the playground's
// run in WebAssembly. With several threads, two goroutines of one instant
// can race where the run does not settle them in turn (a cancel-all that
// cancels a semaphore waiter just as a release wakes it), so that two runs
// of one scenario may differ by that race.
func oneThread(t *testing.T) {
	prev := runtime.GOMAXPROCS(1)
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
}

func TestLogReplaysEventForEvent(t *testing.T) {
	sem, _ := sim.PresetByID("semaphore")
	wq, _ := sim.PresetByID("workqueue-cancel")
	keyed, _ := sim.PresetByID("keyed-devices")
	cons, _ := sim.PresetByID("consumers")
	small := sim.Burst{Count: 10, MinMS: 300, MaxMS: 1200, Priority: sim.PriorityMix{Low: 1, Normal: 2, High: 1}}
	for _, tc := range []struct {
		name string
		sc   sim.Scenario
		play func(rc *recorder)
	}{
		{
			// The run of the report: let it finish, cancel all, add a
			// burst, with the clock stopped.
			name: "cancel all then burst, paused", sc: sem.Scenario,
			play: func(rc *recorder) {
				runOut(rc.t, rc.r)
				rc.act(sim.ActionCancelAll, 0)
				rc.burst(small)
			},
		},
		{
			name: "mid-run clicks while playing", sc: sem.Scenario,
			play: func(rc *recorder) {
				rc.r.Advance(650 * time.Millisecond)
				rc.act(sim.ActionCancelAll, 0)
				rc.burst(small)
				rc.r.Advance(200 * time.Millisecond)
				rc.cancel("t20")
				rc.act(sim.ActionLimit, 5)
				rc.r.Advance(333 * time.Millisecond)
				rc.burst(sim.Burst{Count: 3, MinMS: 100, MaxMS: 200, Weight: 2})
			},
		},
		{
			// Acting between two events of one instant, after a Step.
			name: "acts between steps", sc: wq.Scenario,
			play: func(rc *recorder) {
				for range 9 {
					rc.r.Step()
				}
				rc.cancel("t12")
				rc.r.Step()
				rc.burst(small)
				for range 5 {
					rc.r.Step()
				}
				rc.act(sim.ActionLimit, 1)
				rc.r.Step()
				rc.act(sim.ActionDrain, 0)
			},
		},
		{
			// Two tasks end at the same instant; the person steps to
			// the first end and cancels the other.
			name: "acts between two events of one instant",
			sc: sim.Scenario{V: sim.Version, Primitive: sim.WorkQueue, Seed: 1, Limit: 2,
				Bursts: []sim.Burst{{Count: 3, MinMS: 100, MaxMS: 100}}},
			play: func(rc *recorder) {
				rc.r.Step()
				rc.r.Step()
				rc.cancel("t2")
				rc.act(sim.ActionLimit, 1)
			},
		},
		{
			name: "keyed cancel and close", sc: keyed.Scenario,
			play: func(rc *recorder) {
				rc.r.Advance(410 * time.Millisecond)
				rc.cancel("t7")
				rc.burst(sim.Burst{Count: 20, MinMS: 50, MaxMS: 90, Keys: 5})
				rc.r.Advance(100 * time.Millisecond)
				rc.act(sim.ActionClose, 0)
			},
		},
		{
			name: "consumers limit and drain", sc: cons.Scenario,
			play: func(rc *recorder) {
				rc.r.Advance(500 * time.Millisecond)
				rc.act(sim.ActionLimit, 2)
				rc.burst(sim.Burst{Count: 6, MinMS: 50, MaxMS: 90, Consumer: 3})
				rc.cancel("t30")
				rc.r.Advance(900 * time.Millisecond)
				rc.act(sim.ActionDrain, 0)
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			oneThread(t)
			var l eventLog
			r, err := sim.NewRunner(tc.sc, sim.Config{Observe: l.observe})
			if err != nil {
				t.Fatalf("NewRunner = %v", err)
			}
			rc := &recorder{t: t, r: r}
			tc.play(rc)
			want := finish(t, r, &l)
			got := replayOf(t, tc.sc, rc.log)
			compare(t, got, want)
			// And again: a replay of a replay is the same run.
			compare(t, replayOf(t, tc.sc, rc.log), want)
		})
	}
}

func TestLogReplayStepsOneEntryAtATime(t *testing.T) {
	sc := sim.Scenario{V: sim.Version, Primitive: sim.WorkQueue, Seed: 1, Limit: 1,
		Log: []sim.Step{
			{Seq: 1, Do: sim.StepBurst, Burst: &sim.Burst{Count: 2, MinMS: 100, MaxMS: 100}},
			{Seq: 2, AtMS: 100, Fired: 1, Do: sim.StepPause},
			{Seq: 3, AtMS: 100, Fired: 1, Do: sim.StepCancel, Task: "t2"},
		}}
	r, err := sim.NewRunner(sc, sim.Config{})
	if err != nil {
		t.Fatalf("NewRunner = %v", err)
	}
	defer func() { r.Stop(); r.Wait() }()
	if !r.Step() || r.Stats().Running != 1 {
		t.Fatalf("after one step: %+v, want the burst submitted and t1 running", r.Stats())
	}
	if !r.Step() || r.Stats().Succeeded != 1 || r.Stats().Running != 1 {
		t.Fatalf("after two steps: %+v, want t1 done and t2 running", r.Stats())
	}
	// The pause changes nothing and is not a step of its own.
	if !r.Step() || r.Stats().Canceled != 1 {
		t.Fatalf("after three steps: %+v, want t2 canceled", r.Stats())
	}
	runOut(t, r)
	if st := r.Stats(); st.Succeeded != 1 || st.Canceled != 1 || st.Now != 100*time.Millisecond {
		t.Errorf("at the end: %+v, want 1 done, 1 canceled at 100 ms", st)
	}
}

func TestVersion1LinksKeepTheirOrder(t *testing.T) {
	// In version 1 a burst and an action of one instant ran burst first;
	// a version-1 link still does.
	v1 := pack(`{"v":1,"primitive":"semaphore","seed":2,"limit":1,` +
		`"bursts":[{"count":2,"minMs":100,"maxMs":100},{"at":500,"count":3,"minMs":100,"maxMs":100}],` +
		`"actions":[{"at":500,"do":"cancel-all"}]}`)
	sc, err := sim.Decode(v1)
	if err != nil {
		t.Fatalf("Decode = %v", err)
	}
	if sc.V != sim.Version || sc.Log != nil || len(sc.Bursts) != 2 || len(sc.Actions) != 1 {
		t.Fatalf("Decode = %+v, want the bursts and action as they were, no log", sc)
	}
	r, err := sim.NewRunner(sc, sim.Config{})
	if err != nil {
		t.Fatalf("NewRunner = %v", err)
	}
	runOut(t, r)
	st := r.Stats()
	r.Stop()
	r.Wait()
	// The second burst is submitted, then canceled at once.
	if st.Succeeded != 2 || st.Canceled != 3 {
		t.Errorf("a version-1 link ran %d done, %d canceled; want 2 done, 3 canceled as before", st.Succeeded, st.Canceled)
	}
}

func TestValidateLog(t *testing.T) {
	b := &sim.Burst{Count: 2, MinMS: 5, MaxMS: 9}
	base := func() sim.Scenario {
		return sim.Scenario{V: sim.Version, Primitive: sim.Semaphore, Seed: 1, Limit: 2,
			Log: []sim.Step{{Seq: 1, Do: sim.StepBurst, Burst: b}, {Seq: 2, AtMS: 10, Fired: 2, Do: sim.StepCancel, Task: "t1"}}}
	}
	if err := base().Validate(); err != nil {
		t.Fatalf("Validate = %v, want nil", err)
	}
	for _, tc := range []struct {
		name string
		edit func(*sim.Scenario)
		want string
	}{
		{"seq", func(s *sim.Scenario) { s.Log[1].Seq = 5 }, "log entry 2: its sequence number must be 2; it is 5"},
		{"order", func(s *sim.Scenario) { s.Log[0].AtMS = 50 }, "log entry 2: it comes before the entry ahead of it"},
		{"kind", func(s *sim.Scenario) { s.Log[1].Do = "explode"; s.Log[1].Task = "" }, `log entry 2: unknown entry "explode"`},
		{"task", func(s *sim.Scenario) { s.Log[1].Task = "x" }, `log entry 2: a cancel names a task such as "t7"; "x" is not one`},
		{"no burst", func(s *sim.Scenario) { s.Log[0].Burst = nil }, "log entry 1: a burst entry needs its burst"},
		{"weight", func(s *sim.Scenario) { s.Log[0].Burst = &sim.Burst{Count: 1, MinMS: 1, MaxMS: 1, Weight: 3} }, "log entry 1: each task asks for 3 tokens but the semaphore has only 2"},
		{"limit", func(s *sim.Scenario) { s.Log[1] = sim.Step{Seq: 2, Do: sim.ActionLimit, N: -3} }, "log entry 2: the new limit must be between 1 and 10,000; it is -3"},
		{"tasks", func(s *sim.Scenario) {
			s.Bursts = []sim.Burst{{Count: 9_999, MinMS: 1, MaxMS: 1}}
		}, "a scenario can hold at most 10,000 tasks in all; its bursts ask for 10,001"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := base()
			tc.edit(&s)
			err := s.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate = %v, want it to contain %q", err, tc.want)
			}
		})
	}
	// A weight above the first limit is fine once the log raised it.
	s := base()
	s.Log = []sim.Step{{Seq: 1, Do: sim.ActionLimit, N: 4}, {Seq: 2, Do: sim.StepBurst, Burst: &sim.Burst{Count: 1, MinMS: 1, MaxMS: 1, Weight: 3}}}
	if err := s.Validate(); err != nil {
		t.Errorf("Validate = %v, want nil for a burst after the log raised the limit", err)
	}
}
