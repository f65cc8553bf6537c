package ui_test

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"sluice/core"
	"sluice/core/trace"
	"sluice/wasm/sim"
	"sluice/wasm/ui"
)

// runToEnd plays s at 10× in frames of 100 ms until its run has nothing
// left to do, and returns the last panel.
func runToEnd(t *testing.T, s *ui.Session) ui.Panel {
	t.Helper()
	s.SetSpeed(10)
	if err := s.SetPlaying(true); err != nil {
		t.Fatal(err)
	}
	for range 5000 {
		s.Frame(100*time.Millisecond, ui.SpanFor)
		if pn := s.Panel(); pn.Finished && pn.Phase == "finished" {
			return pn
		}
	}
	t.Fatalf("the run did not finish: %+v", s.Panel())
	return ui.Panel{}
}

func totalTasks(sc sim.Scenario) int {
	n := 0
	for _, b := range sc.Bursts {
		n += b.Count
	}
	return n
}

// checkEnded checks a finished run's counters against the tasks it was
// given and its limit, and the recorder's totals against the runner's.
func checkEnded(t *testing.T, pn ui.Panel, tasks int) {
	t.Helper()
	if pn.Tasks != tasks {
		t.Errorf("tasks = %d, want %d (every task of the scenario)", pn.Tasks, tasks)
	}
	if pn.Running != 0 || pn.Waiting != 0 || pn.Scheduled != 0 {
		t.Errorf("running, waiting, scheduled = %d, %d, %d at the end, want 0", pn.Running, pn.Waiting, pn.Scheduled)
	}
	ended := pn.Succeeded + pn.Failed + pn.Canceled + pn.Panicked + pn.Refused + pn.Withdrawn
	if ended != tasks {
		t.Errorf("succeeded+failed+canceled+panicked+refused+withdrawn = %d, want %d", ended, tasks)
	}
	if pn.MaxLimit > 0 && pn.MaxRunning > pn.MaxLimit {
		t.Errorf("max running = %d, more than the limit %d", pn.MaxRunning, pn.MaxLimit)
	}
	if pn.Primitive == sim.Semaphore && pn.MaxTokens > int64(pn.MaxLimit) {
		t.Errorf("max tokens = %d, more than the limit %d", pn.MaxTokens, pn.MaxLimit)
	}
	if pn.MaxRunning < 1 {
		t.Errorf("max running = %d: nothing ran", pn.MaxRunning)
	}
	tr := pn.Trace
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"succeeded", int(tr.Succeeded), pn.Succeeded},
		{"failed", int(tr.Failed), pn.Failed},
		{"canceled", int(tr.Canceled), pn.Canceled},
		{"panicked", int(tr.Panicked), pn.Panicked},
		{"max running", tr.MaxRunning, pn.MaxRunning},
		{"running", tr.Running, 0},
		{"waiting", tr.Waiting, 0},
	} {
		if c.got != c.want {
			t.Errorf("recorder's %s = %d, runner's %d", c.name, c.got, c.want)
		}
	}
	if tr.Dropped != 0 {
		t.Errorf("the recorder dropped %d events", tr.Dropped)
	}
}

func TestPresetsRunToTheEnd(t *testing.T) {
	for _, ps := range sim.Presets() {
		t.Run(ps.ID, func(t *testing.T) {
			s, err := ui.NewSession(ps.Scenario, ps.ID)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			pn := runToEnd(t, s)
			checkEnded(t, pn, totalTasks(ps.Scenario))
			if pn.Preset != ps.ID {
				t.Errorf("preset = %q, want %q", pn.Preset, ps.ID)
			}
			want := ps.Scenario
			want.Speed = 10 // runToEnd plays at 10×
			if pn.Link != want.Encode() {
				t.Errorf("link = %q, want the preset's scenario at 10× %q", pn.Link, want.Encode())
			}

			// A run is reproducible: the same scenario gives every task the
			// same times and outcome. (Which free lane a task takes among
			// several started at the same instant depends on the order the
			// goroutines report in, which is not fixed on a multi-core
			// machine.)
			first := taskTimes(s)
			if err := s.Reset(); err != nil {
				t.Fatal(err)
			}
			again := runToEnd(t, s)
			if second := taskTimes(s); second != first {
				t.Errorf("a second run of the preset differs:\n%s\nwant\n%s", second, first)
			}
			if again.Succeeded != pn.Succeeded || again.Failed != pn.Failed || again.Canceled != pn.Canceled || again.Now != pn.Now {
				t.Errorf("second run ended %+v, want the first's %+v", again, pn)
			}
		})
	}
}

func TestSubmit(t *testing.T) {
	wq := sim.Scenario{V: sim.Version, Primitive: sim.WorkQueue, Seed: 1, Limit: 4}
	sem := sim.Scenario{V: sim.Version, Primitive: sim.Semaphore, Seed: 1, Limit: 2}
	keyed := sim.Scenario{V: sim.Version, Primitive: sim.Keyed, Seed: 1, IdleMS: 100}
	burst := func(n int) sim.Burst { return sim.Burst{Count: n, MinMS: 10, MaxMS: 50} }
	for _, tc := range []struct {
		name string
		sc   sim.Scenario
		b    sim.Burst
		want string // in the error; "" for none
	}{
		{"one task", wq, burst(1), ""},
		{"no task", wq, burst(0), "at least one task"},
		{"too many", wq, burst(50_000), "at most 10,000 tasks"},
		{"negative duration", wq, sim.Burst{Count: 1, MinMS: -5, MaxMS: 10}, "shortest duration"},
		{"too heavy", sem, sim.Burst{Count: 1, MinMS: 10, MaxMS: 10, Weight: 3}, "only 2"},
		{"keyed without keys", keyed, burst(3), "key set"},
		{"keyed", keyed, sim.Burst{Count: 3, MinMS: 10, MaxMS: 10, Keys: 2}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ui.NewSession(tc.sc, "")
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			err = s.Submit(tc.b)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Submit = %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Submit = %v, want an error saying %q", err, tc.want)
			case tc.want != "":
				var inv *sim.InvalidError
				if !errors.As(err, &inv) {
					t.Errorf("Submit's error is %T, want a *sim.InvalidError", err)
				}
				if strings.Contains(err.Error(), "burst 1") {
					t.Errorf("Submit's error %q speaks of a burst number", err)
				}
				return
			}
			pn := runToEnd(t, s)
			checkEnded(t, pn, tc.b.Count)
		})
	}
}

// TestBigBurst hands 10,000 tasks over in chunks, one per frame, at the
// same virtual time, and refuses more.
func TestBigBurst(t *testing.T) {
	sc := sim.Scenario{V: sim.Version, Primitive: sim.WorkQueue, Seed: 7, Limit: 64}
	s, err := ui.NewSession(sc, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Submit(sim.Burst{Count: sim.MaxTasks, MinMS: 1, MaxMS: 5}); err != nil {
		t.Fatal(err)
	}
	pn := s.Panel()
	if got, want := pn.Scheduled, sim.MaxTasks-ui.ChunkSize; got != want {
		t.Errorf("after Submit, %d tasks still to hand over, want %d", got, want)
	}
	if err := s.Submit(sim.Burst{Count: 1, MinMS: 1, MaxMS: 1}); err == nil || !strings.Contains(err.Error(), "at most 10,000") {
		t.Errorf("a task beyond the run's 10,000 = %v, want refused", err)
	}
	s.SetPlaying(true)
	for range sim.MaxTasks/ui.ChunkSize - 1 {
		f := s.Frame(100*time.Millisecond, ui.SpanFor)
		if f.Now != 0 {
			t.Fatalf("virtual time moved to %v while the burst was handed over", f.Now)
		}
	}
	if pn := s.Panel(); pn.Tasks != sim.MaxTasks || pn.Scheduled != 0 {
		t.Errorf("after the hand-over: %d tasks, %d scheduled; want %d and 0", pn.Tasks, pn.Scheduled, sim.MaxTasks)
	}
	pn = runToEnd(t, s)
	checkEnded(t, pn, sim.MaxTasks)
}

// TestRecorded checks that a person's bursts and clicks go into the
// scenario at the time they happened, so that the link replays them.
func TestRecorded(t *testing.T) {
	ps, _ := sim.PresetByID("semaphore")
	s, err := ui.NewSession(ps.Scenario, ps.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.SetPlaying(true)
	for range 5 {
		s.Frame(100*time.Millisecond, ui.SpanFor) // 500 ms at 1×
	}
	b := sim.Burst{Count: 3, MinMS: 100, MaxMS: 200, Weight: 2}
	if err := s.Submit(b); err != nil {
		t.Fatal(err)
	}
	if err := s.SetLimit(4); err != nil {
		t.Fatal(err)
	}
	if err := s.CancelAll(); err != nil {
		t.Fatal(err)
	}
	sc, preset := s.Scenario()
	if preset != "" {
		t.Errorf("preset = %q after the person's changes, want none", preset)
	}
	if len(sc.Log) != 3 {
		t.Fatalf("the log holds %+v, want the burst, the limit and the cancel-all", sc.Log)
	}
	if st := sc.Log[0]; st.Seq != 1 || st.AtMS != 500 || st.Do != sim.StepBurst || st.Burst == nil || st.Burst.Count != 3 || st.Burst.Weight != 2 || st.Fired == 0 {
		t.Errorf("recorded burst = %+v, want 3 tasks of weight 2 at 500 ms, first, after some events", st)
	}
	fired := sc.Log[0].Fired
	want := []sim.Step{{Seq: 2, AtMS: 500, Fired: fired, Do: sim.ActionLimit, N: 4}, {Seq: 3, AtMS: 500, Fired: fired, Do: sim.ActionCancelAll}}
	if sc.Log[1] != want[0] || sc.Log[2] != want[1] {
		t.Errorf("recorded actions = %+v, want %+v", sc.Log[1:], want)
	}
	// The link carries the recorded scenario.
	got, err := sim.Decode(s.Panel().Link)
	if err != nil {
		t.Fatalf("the panel's link does not decode: %v", err)
	}
	if got.Encode() != sc.Encode() {
		t.Errorf("the link holds %+v, want %+v", got, sc)
	}
	if err := s.Cancel("t1"); err == nil {
		t.Errorf("Cancel of an ended task = nil, want an error")
	}
	if pn := s.Panel(); pn.Unlinked != "" {
		t.Errorf("Unlinked = %q before any single cancel", pn.Unlinked)
	}
}

func TestCancel(t *testing.T) {
	sc := sim.Scenario{V: sim.Version, Primitive: sim.WorkQueue, Seed: 1, Limit: 1,
		Bursts: []sim.Burst{{Count: 3, MinMS: 1000, MaxMS: 1000}}}
	s, err := ui.NewSession(sc, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.SetPlaying(true)
	s.Frame(10*time.Millisecond, ui.SpanFor)
	for _, name := range []string{"t1", "t3"} { // running, waiting
		if err := s.Cancel(name); err != nil {
			t.Errorf("Cancel(%s) = %v", name, err)
		}
	}
	for _, name := range []string{"t1", "t99", "x"} {
		if err := s.Cancel(name); err == nil {
			t.Errorf("Cancel(%s) = nil, want an error", name)
		}
	}
	pn := runToEnd(t, s)
	checkEnded(t, pn, 3)
	if pn.Canceled != 2 || pn.Succeeded != 1 {
		t.Errorf("canceled, succeeded = %d, %d; want 2, 1", pn.Canceled, pn.Succeeded)
	}
	if pn.Unlinked != "" {
		t.Errorf("Unlinked = %q after single cancels: the link holds them", pn.Unlinked)
	}
	sc, _ = s.Scenario()
	var cancels []string
	for _, st := range sc.Log {
		if st.Do == sim.StepCancel {
			cancels = append(cancels, st.Task)
		}
	}
	if !slices.Equal(cancels, []string{"t1", "t3"}) {
		t.Errorf("the log cancels %v, want t1 and t3", cancels)
	}
}

// TestReloadReplaysTheRun plays a run with clicks at odd frame times and
// speeds, then opens its link in a new session, as a reload does: the
// counters and the whole event log are the same.
func TestReloadReplaysTheRun(t *testing.T) {
	oneThread(t)
	ps, _ := sim.PresetByID("semaphore")
	s, err := ui.NewSession(ps.Scenario, ps.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.SetSpeed(4.7)
	s.SetPlaying(true)
	frames := func(n int) {
		for range n {
			s.Frame(16667*time.Microsecond, ui.SpanFor)
		}
	}
	frames(9)
	s.SetPlaying(false)
	if err := s.CancelAll(); err != nil {
		t.Fatal(err)
	}
	if err := s.Submit(sim.Burst{Count: 10, MinMS: 300, MaxMS: 900}); err != nil {
		t.Fatal(err)
	}
	s.Step()
	s.Step()
	if err := s.Cancel("t19"); err != nil {
		t.Fatal(err)
	}
	s.SetPlaying(true)
	frames(5)
	if err := s.SetLimit(2); err != nil {
		t.Fatal(err)
	}
	if err := s.Submit(sim.Burst{Count: 1200, MinMS: 10, MaxMS: 30}); err != nil {
		t.Fatal(err)
	}
	frames(1)
	if err := s.Drain(); err != nil {
		t.Fatal(err)
	}
	first := runToEnd(t, s)
	sc, _ := s.Scenario()

	again, err := sim.Decode(first.Link)
	if err != nil {
		t.Fatalf("the link does not decode: %v", err)
	}
	if again.Encode() != sc.Encode() {
		t.Errorf("the link holds %+v, want %+v", again, sc)
	}
	r, err := ui.NewSession(again, "")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.SetSpeed(0.3) // another speed, another frame rate
	r.SetPlaying(true)
	second := runToEnd(t, r)
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"tasks", second.Tasks, first.Tasks}, {"succeeded", second.Succeeded, first.Succeeded},
		{"failed", second.Failed, first.Failed}, {"canceled", second.Canceled, first.Canceled},
		{"panicked", second.Panicked, first.Panicked}, {"refused", second.Refused, first.Refused},
		{"withdrawn", second.Withdrawn, first.Withdrawn}, {"max running", second.MaxRunning, first.MaxRunning},
	} {
		if c.got != c.want {
			t.Errorf("replayed %s = %d, want %d", c.name, c.got, c.want)
		}
	}
	if first.Canceled == 0 || first.Succeeded == 0 {
		t.Errorf("the run canceled %d and finished %d tasks; the test wants some of each", first.Canceled, first.Succeeded)
	}
	var a, b bytes.Buffer
	if err := s.WriteTrace(&a); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteTrace(&b); err != nil {
		t.Fatal(err)
	}
	// Every task of the trace the same, its times included. (On a machine
	// of several cores, the order of the events of one instant, and so
	// which of several free lanes a task is drawn on, follows the order
	// its goroutine reports in.)
	tasks := func(buf *bytes.Buffer) []taskView {
		rec, err := trace.ReadJSON(buf)
		if err != nil {
			t.Fatal(err)
		}
		ts := taskViews(rec.Snapshot(time.Time{}))
		for i := range ts {
			ts[i].Lane, ts[i].Lanes = 0, nil
		}
		// Events of one instant (a cancel-all's) come in goroutine order.
		slices.SortFunc(ts, func(x, y taskView) int { return cmp.Compare(x.ID, y.ID) })
		return ts
	}
	want, got := tasks(&a), tasks(&b)
	if len(got) != len(want) || len(want) == 0 {
		t.Fatalf("the replay's trace holds %d tasks, the run's %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("the replay's task %d = %+v, the run's %+v", i, got[i], want[i])
			break
		}
	}
}

// TestRefusals checks that core's ErrFull and ErrClosed reach the person
// as an alert.
func TestRefusals(t *testing.T) {
	sc := sim.Scenario{V: sim.Version, Primitive: sim.WorkQueue, Seed: 1, Limit: 1, Capacity: 2}
	s, err := ui.NewSession(sc, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Panel()
	if err := s.Submit(sim.Burst{Count: 6, MinMS: 1000, MaxMS: 1000}); err != nil {
		t.Fatal(err)
	}
	pn := s.Panel()
	if pn.Refused == 0 || !strings.Contains(pn.Alert, "refused") {
		t.Errorf("after overfilling the queue: refused %d, alert %q; want refusals and an alert", pn.Refused, pn.Alert)
	}
	if again := s.Panel(); again.Alert != "" {
		t.Errorf("the same refusals alerted twice: %q", again.Alert)
	}
	if err := s.CloseRun(); err != nil {
		t.Fatal(err)
	}
	if err := s.Submit(sim.Burst{Count: 1, MinMS: 10, MaxMS: 10}); err != nil {
		t.Fatal(err)
	}
	if pn := s.Panel(); !strings.Contains(pn.Alert, "closed") {
		t.Errorf("alert after submitting to a closed queue = %q, want it to say closed", pn.Alert)
	}
}

// TestRefusalAlertCountsAll submits a burst larger than ChunkSize to a
// closed queue, taking a panel after each chunk as the page does: the
// last alert counts every refused task, as the refused counter does, not
// the last chunk's.
func TestRefusalAlertCountsAll(t *testing.T) {
	sc := sim.Scenario{V: sim.Version, Primitive: sim.WorkQueue, Seed: 1, Limit: 1}
	s, err := ui.NewSession(sc, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CloseRun(); err != nil {
		t.Fatal(err)
	}
	const n = 1520 // three chunks and a part
	if n <= 3*ui.ChunkSize {
		t.Fatalf("ChunkSize is %d: the burst must take more than three chunks", ui.ChunkSize)
	}
	if err := s.Submit(sim.Burst{Count: n, MinMS: 10, MaxMS: 10}); err != nil {
		t.Fatal(err)
	}
	var pn ui.Panel
	alert := ""
	for range 10 {
		s.Frame(16*time.Millisecond, 10*time.Second)
		if pn = s.Panel(); pn.Alert != "" {
			alert = pn.Alert
		}
	}
	if pn.Refused != n {
		t.Fatalf("refused counter = %d, want %d", pn.Refused, n)
	}
	if want := "1,520 tasks were refused"; !strings.Contains(alert, want) {
		t.Errorf("last alert = %q, want it to say %q, as the counter does", alert, want)
	}
}

func TestLoadTrace(t *testing.T) {
	ps, _ := sim.PresetByID("consumers")
	s, err := ui.NewSession(ps.Scenario, ps.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	live := runToEnd(t, s)
	var buf bytes.Buffer
	if err := s.WriteTrace(&buf); err != nil {
		t.Fatal(err)
	}
	if err := s.LoadTrace(bytes.NewReader(buf.Bytes()), "run.json"); err != nil {
		t.Fatalf("LoadTrace of the run's own trace: %v", err)
	}
	pn := s.Panel()
	if pn.Phase != "replay" || pn.Replay != "run.json" {
		t.Errorf("phase, replay = %q, %q; want replay of run.json", pn.Phase, pn.Replay)
	}
	if pn.Succeeded != live.Succeeded || pn.Failed != live.Failed || pn.MaxRunning != live.MaxRunning {
		t.Errorf("replay shows %d succeeded, %d failed, %d max running; the run had %d, %d, %d",
			pn.Succeeded, pn.Failed, pn.MaxRunning, live.Succeeded, live.Failed, live.MaxRunning)
	}
	f := s.Frame(16*time.Millisecond, ui.SpanFor)
	if !f.Replay || len(f.Snap.Tasks) != pn.Tasks {
		t.Errorf("replay frame: replay %v with %d tasks, want all %d", f.Replay, len(f.Snap.Tasks), pn.Tasks)
	}
	if err := s.Submit(sim.Burst{Count: 1, MinMS: 1, MaxMS: 1}); err == nil {
		t.Errorf("Submit in replay = nil, want the trace to be read-only")
	}
	var again bytes.Buffer
	if err := s.WriteTrace(&again); err != nil || !bytes.Equal(again.Bytes(), buf.Bytes()) {
		t.Errorf("the loaded trace written again differs (err %v)", err)
	}
	if got := s.TraceName(); got != "run.json" {
		t.Errorf("TraceName() of run.json = %q, want it kept", got)
	}
	// A Go execution trace is loaded as the JSON timeline read from it,
	// and saved as JSON.
	if err := s.LoadTrace(bytes.NewReader(buf.Bytes()), "service.out"); err != nil {
		t.Fatal(err)
	}
	if got := s.TraceName(); got != "service.json" {
		t.Errorf("TraceName() of service.out = %q, want service.json", got)
	}
	s.BackToLive()
	if pn := s.Panel(); pn.Phase == "replay" {
		t.Errorf("phase after BackToLive = %q", pn.Phase)
	}
}

func TestLoadBadTrace(t *testing.T) {
	ps := sim.Presets()[0]
	s, err := ui.NewSession(ps.Scenario, ps.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for name, input := range map[string]string{
		"empty":        "",
		"not json":     "hello, world",
		"wrong type":   `{"traceEvents": 5}`,
		"deep":         strings.Repeat("[", 100_000),
		"no tasks":     `{"traceEvents": []}`,
		"bad duration": `[{"ph":"X","ts":0,"dur":-5,"pid":1,"tid":1,"name":"x"}]`,
		"huge":         `[` + strings.Repeat(" ", trace.MaxJSONSize+1) + `]`,
	} {
		err := s.LoadTrace(strings.NewReader(input), name+".json")
		if err == nil {
			t.Errorf("%s: LoadTrace = nil, want an error", name)
			continue
		}
		if !strings.HasPrefix(err.Error(), name+".json") {
			t.Errorf("%s: error %q does not name the file", name, err)
		}
	}
	if pn := s.Panel(); pn.Phase == "replay" {
		t.Errorf("a bad trace left the session in replay")
	}
}

// TestLoadRefusesBadScenario keeps the run when a scenario cannot run.
func TestLoadRefusesBadScenario(t *testing.T) {
	ps := sim.Presets()[0]
	s, err := ui.NewSession(ps.Scenario, ps.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	bad := ps.Scenario
	bad.Limit = 20_000
	if err := s.Load(bad, ""); err == nil {
		t.Fatalf("Load of a limit of 20,000 = nil, want the problem")
	}
	if _, preset := s.Scenario(); preset != ps.ID {
		t.Errorf("after a refused Load the preset is %q, want %q kept", preset, ps.ID)
	}
}

// taskTimes describes every task of the session's run: its times and
// outcome.
func taskTimes(s *ui.Session) string {
	f := s.Frame(0, time.Hour)
	tasks := taskViews(f.Snap)
	slices.SortFunc(tasks, func(a, b taskView) int { return int(a.ID) - int(b.ID) })
	var b strings.Builder
	for _, x := range tasks {
		fmt.Fprintf(&b, "%s %v %v %v %v %v\n", x.Name, x.Priority, x.State,
			x.Enqueued.Time().Sub(f.Origin), x.Started.Time().Sub(f.Origin), x.Ended.Time().Sub(f.Origin))
	}
	return b.String()
}

// TestThroughputOverTheRun runs 20 tasks that all end within the first
// 0.4 s: the throughput is over the run's length, not over a 10 s window
// most of which has not happened.
func TestThroughputOverTheRun(t *testing.T) {
	sc := sim.Scenario{V: sim.Version, Primitive: sim.WorkQueue, Seed: 1, Limit: 20,
		Bursts: []sim.Burst{{Count: 20, MinMS: 400, MaxMS: 400}}}
	s, err := ui.NewSession(sc, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.SetPlaying(true); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		s.Frame(100*time.Millisecond, 10*time.Second)
	}
	pn := s.Panel()
	if pn.Succeeded != 20 {
		t.Fatalf("succeeded %d by %v, want 20", pn.Succeeded, pn.Now)
	}
	want := 20 / pn.Now.Seconds()
	if pn.Throughput < want*0.9 || pn.Throughput > want*1.1 {
		t.Errorf("throughput %.1f/s after 20 tasks in %v, want about %.1f/s", pn.Throughput, pn.Now, want)
	}
}

// TestEventLogKeepsTheRun runs 300 tasks, some 1,200 events: the event log
// counts them all, and its filter searches all of them, the earliest
// included, not only the latest events shown.
func TestEventLogKeepsTheRun(t *testing.T) {
	sc := sim.Scenario{V: sim.Version, Primitive: sim.WorkQueue, Seed: 1, Limit: 50,
		Bursts: []sim.Burst{{Count: 300, MinMS: 10, MaxMS: 10}}}
	s, err := ui.NewSession(sc, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.SetPlaying(true); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		s.Frame(100*time.Millisecond, 10*time.Second)
	}
	pn := s.Panel()
	if pn.Succeeded != 300 {
		t.Fatalf("succeeded %d, want 300", pn.Succeeded)
	}
	if pn.LogTotal < 900 || pn.LogMatches != pn.LogTotal || len(pn.Log) != 200 {
		t.Errorf("log: %d events, %d matching, %d shown; want every event of the run (900 or more), all matching, 200 shown", pn.LogTotal, pn.LogMatches, len(pn.Log))
	}
	s.SetLogQuery("t1 started")
	pn = s.Panel()
	// t1, t10..t19 and t100..t199 started: 111 events.
	if pn.LogMatches != 111 || len(pn.Log) != 111 {
		t.Fatalf("filter “t1 started”: %d matching, %d shown; want 111", pn.LogMatches, len(pn.Log))
	}
	if first := pn.Log[0]; first.Name != "t1" || first.Kind != core.Started {
		t.Errorf("the earliest match is %s %v, want t1 started", first.Name, first.Kind)
	}
}

// TestLoadProtobufTrace loads a Perfetto protobuf trace and a Go execution
// trace: the page names the format and says how to get JSON, instead of
// "not valid JSON at byte 1".
func TestLoadProtobufTrace(t *testing.T) {
	s, err := ui.NewSession(sim.Presets()[0].Scenario, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tc := range []struct {
		name          string
		data          []byte
		want, notWant []string
	}{
		{"trace.pftrace", []byte{0x0a, 0x1c, 0x82, 0x01, 0x05, 0x0a, 0x03, 'f', 'o', 'o', 0x88, 0x01, 0x01},
			[]string{"Perfetto protobuf", "traceconv json", "Go execution traces"}, nil},
		// The page reads Go execution traces in a worker; this reader,
		// which takes JSON, sends a person there.
		{"trace.out", []byte("go 1.23 trace\x00\x00\x00\x01"),
			[]string{"Go execution trace", "go tool trace", "Go-trace worker", "Load trace"}, []string{"does not read"}},
	} {
		err := s.LoadTrace(bytes.NewReader(tc.data), tc.name)
		if err == nil {
			t.Errorf("%s loaded", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("loading %s: %q, want it to say %q", tc.name, err, w)
			}
		}
		for _, w := range tc.notWant {
			if strings.Contains(err.Error(), w) {
				t.Errorf("loading %s: %q, want it not to say %q", tc.name, err, w)
			}
		}
	}
}
