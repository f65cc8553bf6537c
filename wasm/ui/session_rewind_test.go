package ui_test

import (
	"cmp"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"sluice/core/trace"
	"sluice/wasm/sim"
	"sluice/wasm/ui"
)

// runState is what a person sees of a run at a moment: the counters and
// the panel, the whole event log, the lanes and every task.
type runState struct {
	Panel  ui.Panel
	Events []string
	Lanes  []trace.Lane
	Tasks  []taskView
	Runner []sim.TaskInfo
}

// taskView is a snapshot's task with its texts and lanes resolved.
type taskView struct {
	trace.Task
	Name, Key, Err string
	Lanes          []int
}

// taskViews returns the snapshot's tasks as taskViews.
func taskViews(snap *trace.Snapshot) []taskView {
	out := make([]taskView, len(snap.Tasks))
	for i := range snap.Tasks {
		x := &snap.Tasks[i]
		out[i] = taskView{Task: *x, Name: snap.Text(x.Name), Key: snap.Text(x.Key), Err: snap.Text(x.Err), Lanes: snap.TaskLanes(x)}
		out[i].Task.Name, out[i].Task.Key, out[i].Task.Err, out[i].Task.Lanes = trace.Text{}, trace.Text{}, trace.Text{}, trace.LaneList{}
	}
	return out
}

// stateOf takes a frame (as the page does after a seek or a step) and
// returns the session's state, without what says how it got there: the
// phase, the link (a played run logs its pauses), the rewind horizon, which
// log object holds the events (a seek makes another).
func stateOf(s *ui.Session) runState {
	s.Frame(0, ui.SpanFor)
	pn := s.Panel()
	// Goroutines counts the whole program's, the other session's too.
	pn.Phase, pn.Link, pn.Rewind, pn.Alert, pn.Log, pn.LogID, pn.Goroutines = "", "", ui.Rewind{}, "", nil, 0, 0
	snap := ui.SessionSnapshot(s)
	var events []string
	for _, e := range ui.SessionEvents(s) {
		events = append(events, fmt.Sprintf("%v %v %d %s key=%q lane=%d w=%d p=%d %s",
			e.Time.Sub(sim.Epoch), e.Kind, e.Task, e.Name, e.Key, e.Lane, e.Weight, e.Priority, e.Err))
	}
	return runState{Panel: pn, Events: events, Lanes: snap.Lanes, Tasks: taskViews(snap), Runner: ui.SessionTasks(s)}
}

// diffStates reports how got differs from want. Under the race detector,
// which reorders the goroutines of one instant, it compares the events of
// each instant in any order and the tasks whatever lane they took.
func diffStates(t *testing.T, what string, got, want runState) {
	t.Helper()
	if raceEnabled {
		got, want = loose(got), loose(want)
	}
	if len(got.Events) != len(want.Events) {
		t.Errorf("%s: %d events, want %d", what, len(got.Events), len(want.Events))
	}
	for i := range min(len(got.Events), len(want.Events)) {
		if got.Events[i] != want.Events[i] {
			t.Errorf("%s: event %d = %s, want %s", what, i+1, got.Events[i], want.Events[i])
			break
		}
	}
	if !reflect.DeepEqual(got.Panel, want.Panel) {
		t.Errorf("%s: panel\n%+v\nwant\n%+v", what, got.Panel, want.Panel)
	}
	if !reflect.DeepEqual(got.Lanes, want.Lanes) {
		t.Errorf("%s: lanes\n%+v\nwant\n%+v", what, got.Lanes, want.Lanes)
	}
	if !reflect.DeepEqual(got.Tasks, want.Tasks) {
		t.Errorf("%s: %d recorded tasks differ from a fresh run's %d", what, len(got.Tasks), len(want.Tasks))
		for i := range min(len(got.Tasks), len(want.Tasks)) {
			if !reflect.DeepEqual(got.Tasks[i], want.Tasks[i]) {
				t.Errorf("%s: task %+v, the fresh run's %+v", what, got.Tasks[i], want.Tasks[i])
				break
			}
		}
	}
	if !reflect.DeepEqual(got.Runner, want.Runner) {
		t.Errorf("%s: %d tasks of the runner differ from a fresh run's %d", what, len(got.Runner), len(want.Runner))
	}
}

// loose returns st with the events of each instant sorted, and the tasks
// in order of ID with no lanes (the recorder lists ended tasks in the
// order they ended).
func loose(st runState) runState {
	st.Events = slices.Clone(st.Events)
	for i := 0; i < len(st.Events); {
		at, _, _ := strings.Cut(st.Events[i], " ")
		j := i + 1
		for j < len(st.Events) && strings.HasPrefix(st.Events[j], at+" ") {
			j++
		}
		for k := i; k < j; k++ {
			st.Events[k] = laneField.ReplaceAllString(st.Events[k], "")
		}
		slices.Sort(st.Events[i:j])
		i = j
	}
	st.Tasks = slices.Clone(st.Tasks)
	for i := range st.Tasks {
		st.Tasks[i].Lane, st.Tasks[i].Lanes = 0, nil
	}
	slices.SortFunc(st.Tasks, func(a, b taskView) int { return cmp.Compare(a.ID, b.ID) })
	st.Runner = nil
	st.Lanes = nil
	return st
}

var laneField = regexp.MustCompile(` lane=\d+`)

// playTo plays s at 1× in frames of at most 100 ms until its clock
// reads at, or its run has finished.
func playTo(t *testing.T, s *ui.Session, at time.Duration) {
	t.Helper()
	if err := s.SetPlaying(true); err != nil {
		t.Fatal(err)
	}
	for range 100_000 {
		pn := s.Panel()
		if pn.Now >= at || pn.Phase == "finished" {
			return
		}
		s.Frame(min(100*time.Millisecond, at-pn.Now), ui.SpanFor)
	}
	t.Fatalf("the run did not reach %v", at)
}

// withWork plays preset id at 1× for 3 s and does what a person does
// meanwhile: a burst at 1 s, a cancel at 1.5 s, a limit change at 2 s;
// then plays it to its end (or 30 s), and returns the session and the
// scenario it recorded.
func withWork(t *testing.T, id string) (*ui.Session, sim.Scenario) {
	t.Helper()
	ps, ok := sim.PresetByID(id)
	if !ok {
		t.Fatalf("no preset %q", id)
	}
	s, err := ui.NewSession(ps.Scenario, ps.ID)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	s.SetSpeed(1)
	playTo(t, s, time.Second)
	b := sim.Burst{Count: 6, MinMS: 200, MaxMS: 900, Priority: sim.PriorityMix{Low: 1, Normal: 1, High: 1}, Outcome: sim.OutcomeMix{OK: 3, Fail: 1}, Keys: 3, Weight: 1}
	if k := sim.KindOf(ps.Scenario.Primitive); k != nil {
		k.Trim(&b)
	}
	if err := s.Submit(b); err != nil {
		t.Fatalf("a burst at 1 s: %v", err)
	}
	playTo(t, s, 1500*time.Millisecond)
	for _, x := range ui.SessionTasks(s) {
		if err := s.Cancel(x.Name); err == nil {
			break
		}
	}
	playTo(t, s, 2*time.Second)
	if pn := s.Panel(); pn.Limit > 0 {
		if err := s.SetLimit(pn.Limit + 1); err != nil {
			t.Fatalf("a limit change at 2 s: %v", err)
		}
	}
	playTo(t, s, 30*time.Second)
	sc, _ := s.Scenario()
	var did []string
	for _, st := range sc.Log {
		did = append(did, st.Do)
	}
	if got := strings.Join(did, " "); !strings.Contains(got, "burst cancel") || !strings.Contains(got, "limit") && ps.Scenario.Limit > 0 {
		t.Fatalf("the run's log holds %q, want a burst, a cancel and a limit change", got)
	}
	return s, sc
}

// fresh returns the state of a new session of sc played to at.
func fresh(t *testing.T, sc sim.Scenario, at time.Duration) runState {
	t.Helper()
	s, err := ui.NewSession(sc, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	playTo(t, s, at)
	return stateOf(s)
}

// TestSeekIsAFreshRun seeks a played run back and forth, before, at and
// after the person's actions: each moment shows what a fresh run of the
// scenario and its log played to that moment shows, the whole event log,
// counters, lanes and tasks.
func TestSeekIsAFreshRun(t *testing.T) {
	oneThread(t)
	for _, id := range []string{"semaphore", "keyed-devices", "workqueue-cancel", "shared-limit", "consumers"} {
		t.Run(id, func(t *testing.T) { seekIsAFreshRun(t, id, false) })
		t.Run(id+" from checkpoints", func(t *testing.T) { seekIsAFreshRun(t, id, true) })
		t.Run(id+" from checkpoints built a little at a time", func(t *testing.T) {
			// Each paused frame moves the checkpoint it builds by one
			// timer, or by 16 of a burst's submissions.
			defer ui.SetCheckpointBudget(time.Nanosecond)()
			seekIsAFreshRun(t, id, true)
		})
	}
}

// seekIsAFreshRun plays preset id with a person's work and seeks it back
// and forth; with checkpoints, it lets the paused run build them first
// (at 0 and at each fifth of its events).
func seekIsAFreshRun(t *testing.T, id string, checkpoints bool) {
	if checkpoints {
		defer ui.SetCheckpointFrom(1)()
	}
	s, sc := withWork(t, id)
	end := s.Panel().Now
	if checkpoints {
		// A paused run builds checkpoints, before any seek: the first
		// one back then starts from one.
		for range 100_000 { // built a little at a time, a frame moves a timer
			if len(ui.SessionCheckpoints(s)) >= 4 {
				break
			}
			s.Frame(0, ui.SpanFor)
		}
		if got := ui.SessionCheckpoints(s); len(got) < 4 {
			t.Fatalf("the paused run built checkpoints at %v, want 4", got)
		}
	}
	{
		{
			for _, at := range []time.Duration{1200 * time.Millisecond, 0, 2500 * time.Millisecond, 1500 * time.Millisecond, time.Second, end / 2, end, 700 * time.Millisecond} {
				if err := s.Seek(at); err != nil {
					t.Fatalf("Seek(%v): %v", at, err)
				}
				got := stateOf(s)
				if got.Panel.Now != min(at, end) {
					t.Errorf("after Seek(%v) the clock reads %v", at, got.Panel.Now)
				}
				diffStates(t, fmt.Sprintf("Seek(%v)", at), got, fresh(t, sc, at))
				if pn := s.Panel(); pn.Phase != "paused" && at < end || pn.Rewind.Horizon != end {
					t.Errorf("after Seek(%v): phase %q, horizon %v; want paused, %v", at, pn.Phase, pn.Rewind.Horizon, end)
				}
			}
			if got, _ := s.Scenario(); got.Encode() != sc.Encode() {
				t.Errorf("seeking changed the scenario's log:\n%+v\nwant\n%+v", got.Log, sc.Log)
			}
			// Played on from a moment, the run goes on as it went.
			if err := s.Seek(1200 * time.Millisecond); err != nil {
				t.Fatal(err)
			}
			playTo(t, s, 30*time.Second)
			diffStates(t, "played on from 1.2 s", stateOf(s), fresh(t, sc, 30*time.Second))
		}
	}
}

// TestStepBackThenStep steps back from moments of a played run and steps
// again: the run is where it was.
func TestStepBackThenStep(t *testing.T) {
	oneThread(t)
	s, _ := withWork(t, "semaphore")
	if err := s.Seek(1800 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		s.Step()
		before := stateOf(s)
		if !s.StepBack() {
			t.Fatalf("step %d: StepBack = false", i)
		}
		back := stateOf(s)
		if back.Panel.Now >= before.Panel.Now || len(back.Events) >= len(before.Events) {
			t.Errorf("step %d: StepBack from %v (%d events) went to %v (%d events), want earlier and fewer", i, before.Panel.Now, len(before.Events), back.Panel.Now, len(back.Events))
		}
		if !s.Step() {
			t.Fatalf("step %d: Step after StepBack = false", i)
		}
		diffStates(t, fmt.Sprintf("step %d: StepBack then Step", i), stateOf(s), before)
	}
	if err := s.Seek(0); err != nil {
		t.Fatal(err)
	}
	if s.StepBack() {
		t.Errorf("StepBack at 0 = true, want false: nothing happened before")
	}
}

// TestForkReplaysFromLink rewinds a played run to a moment before the
// person's later actions and adds a burst there: the later actions are
// dropped and the page says so, the burst is logged at that moment, and
// the link replays the forked run event for event.
func TestForkReplaysFromLink(t *testing.T) {
	oneThread(t)
	s, sc := withWork(t, "semaphore")
	if err := s.Seek(1250 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := s.Submit(sim.Burst{Count: 3, MinMS: 100, MaxMS: 300, Priority: sim.PriorityMix{High: 1}, Weight: 1}); err != nil {
		t.Fatal(err)
	}
	pn := s.Panel()
	if want := "Forked at 1.250 s: 2 later actions dropped"; pn.Rewind.Fork != want || pn.Rewind.Forks != 1 {
		t.Errorf("the fork's note = %q (%d), want %q (1)", pn.Rewind.Fork, pn.Rewind.Forks, want)
	}
	if pn.Rewind.Horizon != 1250*time.Millisecond {
		t.Errorf("after the fork the horizon is %v, want 1.25s", pn.Rewind.Horizon)
	}
	forked, _ := s.Scenario()
	var kept []string
	for _, st := range forked.Log {
		kept = append(kept, fmt.Sprintf("%s@%d", st.Do, st.AtMS))
	}
	if got, want := strings.Join(kept, " "), "burst@1000 burst@1250"; got != want {
		t.Errorf("the forked log holds %s, want %s (the original's was %d entries)", got, want, len(sc.Log))
	}
	playTo(t, s, 30*time.Second)
	want := stateOf(s)

	link := s.Panel().Link
	dec, err := sim.Decode(link)
	if err != nil {
		t.Fatalf("the fork's link does not decode: %v", err)
	}
	if dec.Encode() != link {
		t.Errorf("the fork's link does not encode back to itself")
	}
	diffStates(t, "the fork's link", fresh(t, dec, 30*time.Second), want)

	// A mark (a pause) at a past moment is no fork.
	if err := s.Seek(500 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	s.Step()
	if pn := s.Panel(); pn.Rewind.Forks != 1 {
		t.Errorf("a step at a past moment counted as a fork: %q", pn.Rewind.Fork)
	}
}

func TestMoment(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		bad  bool
	}{
		{"2.150", 2150 * time.Millisecond, false},
		{"2.15", 2150 * time.Millisecond, false},
		{"0", 0, false},
		{"2150ms", 2150 * time.Millisecond, false},
		{"1m5s", 65 * time.Second, false},
		{"-1", 0, true},
		{"3601", 0, true},
		{"NaN", 0, true},
		{"soon", 0, true},
	} {
		got, err := ui.ParseMoment(tc.in)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("ParseMoment(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.bad)
		}
	}
	if got := ui.FormatMoment(2150 * time.Millisecond); got != "2.150" {
		t.Errorf("FormatMoment(2.15s) = %q, want 2.150", got)
	}
}

// TestCheckpointsFollowTheEvents builds the checkpoints of a run that
// idles for 30 s and then gets busy: they split its events, not its
// time, so most of them fall in the busy part, where a seek would
// otherwise replay the most.
func TestCheckpointsFollowTheEvents(t *testing.T) {
	defer ui.SetCheckpointFrom(1)()
	sc := sim.Scenario{V: sim.Version, Primitive: sim.WorkQueue, Seed: 2, Limit: 4, Speed: 1,
		Bursts: []sim.Burst{{Count: 2, MinMS: 100, MaxMS: 200}, {AtMS: 30_000, Count: 300, MinMS: 100, MaxMS: 200}}}
	s, err := ui.NewSession(sc, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Seek(time.Hour); err != nil {
		t.Fatal(err)
	}
	end := s.Panel().Now
	if end < 35*time.Second {
		t.Fatalf("the run ends at %v, want after 35 s: the test wants a long busy part", end)
	}
	var at []time.Duration
	for range 20_000 {
		s.Frame(0, ui.SpanFor)
		if got := ui.SessionCheckpoints(s); len(got) > len(at) {
			at = got
		}
		if len(at) >= 4 {
			break // 0 and the fifths of the events (those at 30 s are one)
		}
	}
	busy := 0
	for _, a := range at {
		if a >= 30*time.Second {
			busy++
		}
	}
	if busy < len(at)-1 || len(at) < 4 {
		t.Errorf("checkpoints at %v: %d of %d in the busy part (30 s to %v), want all but the one at 0, of at least 4", at, busy, len(at), end)
	}
}

// TestCheckpointsSettle seeks a paused run back and forth, which parks
// the runs it leaves, and then lets it stand: once its set of
// checkpoints is full, the paused page builds no more (building one and
// stopping another would go on for as long as the page stays paused),
// but for one at 0, which it builds again when a seek has used it up
// (a seek before every checkpoint would replay what is due at 0, the
// costliest part of a run). The panel says whether it is still building.
func TestCheckpointsSettle(t *testing.T) {
	defer ui.SetCheckpointFrom(1)()
	s, _ := withWork(t, "workqueue-cancel")
	end := s.Panel().Now
	frames := func(n int) {
		for range n {
			s.Frame(0, ui.SpanFor)
		}
	}
	for i := range 40 {
		at := end * time.Duration(i*37%41) / 40 // back and forth over the run
		if err := s.Seek(at); err != nil {
			t.Fatal(err)
		}
		if i == 0 && !s.Panel().Rewind.Building {
			t.Errorf("after a seek to %v, with checkpoints at %v, the panel says none is being built", at, ui.SessionCheckpoints(s))
		}
		frames(300)
		if cps := ui.SessionCheckpoints(s); len(cps) == 0 || cps[0] != 0 {
			t.Fatalf("after a seek to %v and 300 frames, the checkpoints are at %v, want one at 0", at, cps)
		}
		if s.Panel().Rewind.Building {
			t.Fatalf("after a seek to %v and 300 frames, with checkpoints at %v, the panel says they are still being built", at, ui.SessionCheckpoints(s))
		}
	}
	before := ui.SessionCheckpointsBuilt(s)
	frames(2000)
	if got := ui.SessionCheckpointsBuilt(s); got != before {
		t.Errorf("standing paused, the page built %d more checkpoints (%d before), at %v; want none", got-before, before, ui.SessionCheckpoints(s))
	}
}

// TestGivenUpRunsStopOneAFrame acts on a run with checkpoints, which
// leaves them stale: each frame after stops one of them (stopping a run
// of 10,000 tasks takes a while), and closing the session stops those
// left (goleak checks that their goroutines end).
func TestGivenUpRunsStopOneAFrame(t *testing.T) {
	for _, closeEarly := range []bool{false, true} {
		t.Run(fmt.Sprintf("close early %v", closeEarly), func(t *testing.T) {
			defer ui.SetCheckpointFrom(1)()
			s, _ := withWork(t, "workqueue-cancel")
			if err := s.Seek(s.Panel().Now); err != nil {
				t.Fatal(err)
			}
			for range 2000 {
				if len(ui.SessionCheckpoints(s)) >= 4 {
					break
				}
				s.Frame(0, ui.SpanFor)
			}
			n := len(ui.SessionCheckpoints(s))
			if n < 4 {
				t.Fatalf("the paused run built checkpoints at %v, want 4", ui.SessionCheckpoints(s))
			}
			if err := s.SetLimit(3); err != nil { // an action: the checkpoints are stale
				t.Fatal(err)
			}
			if closeEarly {
				s.Close()
				return
			}
			for i := n; i > 0; i-- {
				s.Frame(0, ui.SpanFor)
				if got := ui.SessionGivenUp(s); got != i-1 {
					t.Fatalf("after %d frames, %d of %d stale checkpoints are left to stop; want %d", n-i+1, got, n, i-1)
				}
			}
		})
	}
}

// TestSeekTakesTheCheckpointBeingBuilt seeks back while the checkpoint
// at 0, used up by a seek there, is being built again, a little at a
// time: the seek goes on with it, half built as it is (its first burst
// partly submitted), rather than with a new run from 0, and the run
// shown is a fresh run's.
func TestSeekTakesTheCheckpointBeingBuilt(t *testing.T) {
	defer ui.SetCheckpointFrom(1)()
	defer ui.SetCheckpointBudget(time.Nanosecond)()
	s, sc := withWork(t, "consumers")
	end := s.Panel().Now
	if err := s.Seek(end); err != nil {
		t.Fatal(err)
	}
	for range 100_000 {
		if len(ui.SessionCheckpoints(s)) >= 4 {
			break
		}
		s.Frame(0, ui.SpanFor)
	}
	if err := s.Seek(0); err != nil { // uses up the one at 0
		t.Fatal(err)
	}
	// Played on from 0, the run parks nothing; the pause is logged, which
	// leaves the checkpoints stale.
	playTo(t, s, end/2)
	if err := s.SetPlaying(false); err != nil {
		t.Fatal(err)
	}
	for range 100 { // stops the stale ones, then starts building at 0
		if _, ok := ui.SessionBuilding(s); ok {
			break
		}
		s.Frame(0, ui.SpanFor)
	}
	if at, ok := ui.SessionBuilding(s); !ok || at != 0 {
		t.Fatalf("building a checkpoint: %v at %v; want one at 0 (checkpoints at %v)", ok, at, ui.SessionCheckpoints(s))
	}
	const back = 300 * time.Millisecond
	if err := s.Seek(back); err != nil {
		t.Fatal(err)
	}
	if at, ok := ui.SessionBuilding(s); ok {
		t.Errorf("after a seek back to %v, a checkpoint is still being built, at %v; want the seek to have taken it", back, at)
	}
	diffStates(t, fmt.Sprintf("Seek(%v) from the checkpoint being built", back), stateOf(s), fresh(t, sc, back))
}
