package trace_test

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"sync"
	"testing"
	"time"

	"sluice/core"
	"sluice/core/trace"
)

// span is the part of a Task most tests check.
type span struct {
	ID                       uint64
	Lane                     int
	State                    core.TaskState
	Enqueued, Started, Ended time.Time
	Err                      string
}

func spans(s *trace.Snapshot) []span {
	out := make([]span, len(s.Tasks))
	for i, t := range s.Tasks {
		out[i] = span{t.ID, t.Lane, t.State, t.Enqueued.Time(), t.Started.Time(), t.Ended.Time(), s.Text(t.Err)}
	}
	return out
}

func samples(pairs ...float64) []trace.Sample {
	var out []trace.Sample
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, trace.Sample{UnixNano: at(pairs[i]).UnixNano(), Value: int64(pairs[i+1])})
	}
	return out
}

var none time.Time

func TestRecorderModel(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name      string
		events    []core.Event
		now       time.Time
		wantTasks []span
		wantLanes []trace.Lane
		check     func(t *testing.T, s *trace.Snapshot)
	}{{
		name: "work queue with two slots",
		events: []core.Event{
			{Kind: core.Resized, Time: at(0), Weight: 2},
			{Kind: core.Enqueued, Time: at(0), Task: 1, Weight: 1, Name: "a"},
			{Kind: core.Started, Time: at(0), Task: 1, Weight: 1, Lane: 0},
			{Kind: core.Enqueued, Time: at(1), Task: 2, Weight: 1},
			{Kind: core.Started, Time: at(1), Task: 2, Weight: 1, Lane: 1},
			{Kind: core.Enqueued, Time: at(2), Task: 3, Weight: 1, Priority: core.High},
			{Kind: core.Waiting, Time: at(2), Task: 3, Weight: 1, Priority: core.High},
			{Kind: core.Failed, Time: at(5), Task: 1, Err: boom},
			{Kind: core.Started, Time: at(5), Task: 3, Weight: 1, Lane: 0, Priority: core.High},
			{Kind: core.Finished, Time: at(6), Task: 2},
		},
		now: at(10),
		wantTasks: []span{
			{1, 0, core.TaskFailed, at(0), at(0), at(5), "boom"},
			{2, 1, core.TaskSucceeded, at(1), at(1), at(6), ""},
			{3, 0, core.TaskRunning, at(2), at(5), none, ""},
		},
		wantLanes: []trace.Lane{
			{ID: 0, Name: "slot 1", Slot: 0},
			{ID: 1, Name: "slot 2", Slot: 1},
		},
		check: func(t *testing.T, s *trace.Snapshot) {
			if got, want := s.Counters[trace.TrackRunning], samples(0, 1, 1, 2, 6, 1); !reflect.DeepEqual(got, want) {
				t.Errorf("running = %v, want %v", got, want)
			}
			if got, want := s.Counters[trace.TrackWaiting], samples(0, 0, 2, 1, 5, 0); !reflect.DeepEqual(got, want) {
				t.Errorf("waiting = %v, want %v", got, want)
			}
			if got, want := s.Counters[trace.TrackLimit], samples(0, 2); !reflect.DeepEqual(got, want) {
				t.Errorf("limit = %v, want %v", got, want)
			}
			st := s.Stats
			st.Waits = nil
			want := trace.Stats{Submitted: 3, Succeeded: 1, Failed: 1, Running: 1, InUse: 1, Limit: 2,
				MaxRunning: 2, MaxInUse: 2, Throughput: 0.2}
			if !reflect.DeepEqual(st, want) {
				t.Errorf("stats = %+v, want %+v", st, want)
			}
			if got, want := s.End, at(6); !got.Equal(want) {
				t.Errorf("End = %v, want %v", got, want)
			}
			if got, want := len(s.Log), 10; got != want {
				t.Errorf("len(Log) = %d, want %d", got, want)
			}
			if got, want := s.Log[7], (trace.Entry{Kind: core.Failed, Time: at(5), Task: 1, Err: "boom"}); got != want {
				t.Errorf("Log[7] = %+v, want %+v", got, want)
			}
		},
	}, {
		name: "keyed queue lanes",
		events: []core.Event{
			{Kind: core.LaneCreated, Time: at(0), Key: "a"},
			{Kind: core.Enqueued, Time: at(0), Task: 1, Key: "a", Weight: 1},
			{Kind: core.Started, Time: at(0), Task: 1, Key: "a", Weight: 1, Lane: 7},
			{Kind: core.Enqueued, Time: at(1), Task: 2, Key: "a", Weight: 1},
			{Kind: core.Waiting, Time: at(1), Task: 2, Key: "a", Weight: 1},
			{Kind: core.Enqueued, Time: at(1), Task: 3, Key: "b", Weight: 1},
			{Kind: core.Started, Time: at(1), Task: 3, Key: "b", Weight: 1}, // no LaneCreated seen
			{Kind: core.Finished, Time: at(2), Task: 1, Key: "a"},
			{Kind: core.Started, Time: at(2), Task: 2, Key: "a", Weight: 1},
			{Kind: core.Finished, Time: at(3), Task: 2, Key: "a"},
			{Kind: core.Finished, Time: at(3), Task: 3, Key: "b"},
			{Kind: core.LaneEvicted, Time: at(8), Key: "a"},
			{Kind: core.LaneCreated, Time: at(9), Key: "a"},
		},
		now: at(10),
		wantTasks: []span{
			{1, 0, core.TaskSucceeded, at(0), at(0), at(2), ""},
			{2, 0, core.TaskSucceeded, at(1), at(2), at(3), ""},
			{3, 1, core.TaskSucceeded, at(1), at(1), at(3), ""},
		},
		wantLanes: []trace.Lane{
			{ID: 0, Name: "a", Key: "a", Slot: -1, Created: at(0), Evicted: at(8)},
			{ID: 1, Name: "b", Key: "b", Slot: -1},
			{ID: 2, Name: "a", Key: "a", Slot: -1, Created: at(9)},
		},
		check: func(t *testing.T, s *trace.Snapshot) {
			if got, want := s.Counters[trace.TrackLanes], samples(0, 1, 1, 2, 8, 1, 9, 2); !reflect.DeepEqual(got, want) {
				t.Errorf("lanes = %v, want %v", got, want)
			}
			if got, want := s.Stats.Lanes, 2; got != want {
				t.Errorf("Stats.Lanes = %d, want %d", got, want)
			}
		},
	}, {
		name: "semaphore holders",
		events: []core.Event{
			{Kind: core.Started, Time: at(0), Task: 1, Weight: 2},
			{Kind: core.Started, Time: at(1), Task: 2, Weight: 1},
			{Kind: core.Started, Time: at(2), Task: 3, Weight: 2},
			{Kind: core.Finished, Time: at(3), Weight: 1}, // the weight-1 holder: task 2
			{Kind: core.Started, Time: at(4), Task: 4, Weight: 3},
			{Kind: core.Finished, Time: at(5), Weight: 5}, // no such weight: the oldest, task 1
			{Kind: core.Finished, Time: at(6), Weight: 2}, // task 3
			{Kind: core.Finished, Time: at(7), Weight: 3}, // task 4
			{Kind: core.Finished, Time: at(8), Weight: 1}, // no holder: dropped
		},
		now: at(10),
		wantTasks: []span{
			{2, 2, core.TaskSucceeded, at(1), at(1), at(3), ""}, // slot 3: 1 and 2 held by task 1
			{1, 0, core.TaskSucceeded, at(0), at(0), at(5), ""}, // slots 1 and 2
			{3, 3, core.TaskSucceeded, at(2), at(2), at(6), ""}, // slots 4 and 5
			{4, 5, core.TaskSucceeded, at(4), at(4), at(7), ""}, // 3 is free, but not 3 in a row: 6 to 8
		},
		wantLanes: []trace.Lane{
			{ID: 0, Name: "slot 1", Slot: 0},
			{ID: 1, Name: "slot 2", Slot: 1},
			{ID: 2, Name: "slot 3", Slot: 2},
			{ID: 3, Name: "slot 4", Slot: 3},
			{ID: 4, Name: "slot 5", Slot: 4},
			{ID: 5, Name: "slot 6", Slot: 5},
			{ID: 6, Name: "slot 7", Slot: 6},
			{ID: 7, Name: "slot 8", Slot: 7},
		},
		check: func(t *testing.T, s *trace.Snapshot) {
			if got, want := s.Counters[trace.TrackInUse], samples(0, 2, 1, 3, 2, 5, 3, 4, 4, 7, 5, 5, 6, 3, 7, 0); !reflect.DeepEqual(got, want) {
				t.Errorf("in use = %v, want %v", got, want)
			}
			if got, want := s.Stats.MaxInUse, int64(7); got != want {
				t.Errorf("MaxInUse = %d, want %d", got, want)
			}
			if got, want := s.Stats.Dropped, uint64(1); got != want {
				t.Errorf("Dropped = %d, want %d", got, want)
			}
		},
	}, {
		name: "canceled while waiting and odd sequences",
		events: []core.Event{
			{Kind: core.Enqueued, Time: at(1), Task: 1, Weight: 1},
			{Kind: core.Waiting, Time: at(1), Task: 1, Weight: 1},
			{Kind: core.Canceled, Time: at(4), Task: 1, Err: errors.New("context canceled")},
			{Kind: core.Enqueued, Time: at(2), Task: 2, Weight: 1},
			{Kind: core.Started, Time: at(1), Task: 2, Weight: 1}, // earlier than enqueued: raised
			{Kind: core.Started, Time: at(3), Task: 2, Weight: 1}, // second start: dropped
			{Kind: core.Panicked, Time: at(5), Task: 2, Err: &core.PanicError{Value: "x"}},
			{Kind: core.Finished, Time: at(6), Task: 3}, // never reported: ran for no time
			{Kind: core.Started, Time: at(6)},           // no task: dropped
			{Kind: core.Enqueued, Task: 4, Weight: 1},   // no time: the latest seen
			{Kind: core.Canceled, Time: at(7), Task: 4}, // canceled while pending
		},
		now: at(10),
		wantTasks: []span{
			{1, -1, core.TaskCanceled, at(1), none, at(4), "context canceled"},
			{2, 0, core.TaskPanicked, at(2), at(2), at(5), "core: task panicked: x"},
			{3, 0, core.TaskSucceeded, at(6), at(6), at(6), ""},
			{4, -1, core.TaskCanceled, at(6), none, at(7), ""},
		},
		wantLanes: []trace.Lane{{ID: 0, Name: "slot 1", Slot: 0}},
		check: func(t *testing.T, s *trace.Snapshot) {
			st := s.Stats
			if st.Submitted != 4 || st.Succeeded != 1 || st.Canceled != 2 || st.Panicked != 1 || st.Dropped != 2 {
				t.Errorf("stats = %+v, want 4 submitted, 1 succeeded, 2 canceled, 1 panicked, 2 dropped", st)
			}
			if st.Running != 0 || st.Waiting != 0 || st.InUse != 0 {
				t.Errorf("stats = %+v, want nothing running or waiting", st)
			}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := feed(trace.Config{}, tt.events)
			s := rec.Snapshot(tt.now)
			if got := spans(s); !reflect.DeepEqual(got, tt.wantTasks) {
				t.Errorf("tasks =\n%v\nwant\n%v", got, tt.wantTasks)
			}
			if !reflect.DeepEqual(s.Lanes, tt.wantLanes) {
				t.Errorf("lanes =\n%+v\nwant\n%+v", s.Lanes, tt.wantLanes)
			}
			if tt.check != nil {
				tt.check(t, s)
			}
		})
	}
}

func TestRecorderTaskFields(t *testing.T) {
	rec := feed(trace.Config{}, []core.Event{
		{Kind: core.Enqueued, Time: at(0), Task: 9, Priority: core.Low, Weight: 3},
		{Kind: core.Waiting, Time: at(0), Task: 9, Name: "late name", Key: "k", Priority: core.Low, Weight: 3},
	})
	s := rec.Snapshot(at(1))
	got := views(s)
	want := []view{{ID: 9, Name: "late name", Priority: core.Low, Weight: 3, Key: "k", Lane: -1,
		State: core.TaskPending, Enqueued: at(0)}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tasks = %+v, want %+v", got, want)
	}
	if !s.Tasks[0].Open() {
		t.Errorf("Open() = false for a pending task, want true")
	}
}

func TestSnapshotWindow(t *testing.T) {
	var events []core.Event
	for i := range 10 { // task i runs from 10i to 10i+5 on slot 0
		id := uint64(i + 1)
		events = append(events,
			core.Event{Kind: core.Enqueued, Time: at(float64(10 * i)), Task: id, Weight: 1},
			core.Event{Kind: core.Started, Time: at(float64(10 * i)), Task: id, Weight: 1},
			core.Event{Kind: core.Finished, Time: at(float64(10*i + 5)), Task: id})
	}
	events = append(events,
		core.Event{Kind: core.Enqueued, Time: at(100), Task: 11, Weight: 1},
		core.Event{Kind: core.Started, Time: at(100), Task: 11, Weight: 1})
	rec := feed(trace.Config{}, events)
	tests := []struct {
		from, to  time.Time
		wantIDs   []uint64
		wantFirst time.Time // first running sample
	}{
		{none, none, []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, at(0)},
		{at(33), at(52), []uint64{4, 5, 6}, at(30)},
		{at(35), at(40), []uint64{4, 5}, at(35)},
		{at(95), none, []uint64{10, 11}, at(95)},
		{at(110), none, []uint64{11}, at(100)}, // open until now, 120
		{at(200), none, nil, at(100)},
		{none, at(4), []uint64{1}, at(0)},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%v-%v", tt.from.Sub(t0), tt.to.Sub(t0)), func(t *testing.T) {
			s := rec.SnapshotWindow(nil, at(120), tt.from, tt.to)
			var ids []uint64
			for _, task := range s.Tasks {
				ids = append(ids, task.ID)
			}
			if !reflect.DeepEqual(ids, tt.wantIDs) {
				t.Errorf("task ids = %v, want %v", ids, tt.wantIDs)
			}
			run := s.Counters[trace.TrackRunning]
			if len(run) == 0 || !run[0].Time().Equal(tt.wantFirst) {
				t.Errorf("running samples = %v, want the first at %v", run, tt.wantFirst.Sub(t0))
			}
			for _, x := range run[1:] {
				if !tt.to.IsZero() && x.Time().After(tt.to) {
					t.Errorf("sample %v after the window's end %v", x, tt.to)
				}
			}
		})
	}
}

func TestSnapshotReuse(t *testing.T) {
	rec := feed(trace.Config{}, simulate(simQueue, 1, 300, 4))
	want := rec.SnapshotWindow(nil, at(100), at(50), at(150))
	dst := rec.Snapshot(at(200)) // larger: its slices are reused
	got := rec.SnapshotWindow(dst, at(100), at(50), at(150))
	if got != dst {
		t.Errorf("SnapshotWindow(dst) returned a new snapshot, want dst")
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("reused snapshot differs from a new one")
	}
	allocs := testing.AllocsPerRun(20, func() { rec.SnapshotWindow(dst, at(100), at(50), at(150)) })
	if allocs != 0 {
		t.Errorf("SnapshotWindow with dst allocates %v times, want 0", allocs)
	}
}

func TestWaitPercentiles(t *testing.T) {
	var events []core.Event
	id := uint64(0)
	add := func(p core.Priority, wait time.Duration) {
		id++
		events = append(events,
			core.Event{Kind: core.Enqueued, Time: t0, Task: id, Priority: p, Weight: 1},
			core.Event{Kind: core.Started, Time: t0.Add(wait), Task: id, Priority: p, Weight: 1},
			core.Event{Kind: core.Finished, Time: t0.Add(wait), Task: id})
	}
	for i := 1; i <= 100; i++ { // normal: 1ms .. 100ms
		add(core.Normal, time.Duration(i)*time.Millisecond)
	}
	for i := 1; i <= 20; i++ { // high: 0 and 19 times 10ms
		add(core.High, time.Duration(min(i-1, 1))*10*time.Millisecond)
	}
	add(core.Low, 7*time.Second)
	rec := feed(trace.Config{}, events)
	got := rec.Snapshot(at(1)).Stats.Waits
	want := []trace.WaitStats{
		{Priority: core.High, Count: 20, P50: 10 * time.Millisecond, P95: 10 * time.Millisecond, Max: 10 * time.Millisecond},
		{Priority: core.Normal, Count: 100, P50: 50 * time.Millisecond, P95: 95 * time.Millisecond, Max: 100 * time.Millisecond},
		{Priority: core.Low, Count: 1, P50: 7 * time.Second, P95: 7 * time.Second, Max: 7 * time.Second},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("waits =\n%+v\nwant\n%+v", got, want)
	}

	// Only the last WaitSamples of a priority count.
	rec = feed(trace.Config{WaitSamples: 10}, events)
	got = rec.Snapshot(at(1)).Stats.Waits
	if w := got[1]; w.Count != 10 || w.P50 != 95*time.Millisecond || w.Max != 100*time.Millisecond {
		t.Errorf("normal waits with WaitSamples 10 = %+v, want 10 samples, p50 95ms, max 100ms", w)
	}
}

func TestThroughputAndOldestWait(t *testing.T) {
	var events []core.Event
	for i := range 100 { // one task ends every 100ms from 0 to 9.9s
		id := uint64(i + 1)
		ts := at(float64(100 * i))
		events = append(events,
			core.Event{Kind: core.Started, Time: ts, Task: id, Weight: 1},
			core.Event{Kind: core.Finished, Time: ts, Task: id})
	}
	events = append(events,
		core.Event{Kind: core.Enqueued, Time: at(2000), Task: 1000, Weight: 1},
		core.Event{Kind: core.Enqueued, Time: at(3000), Task: 1001, Weight: 1},
		core.Event{Kind: core.Started, Time: at(3000), Task: 1001, Weight: 1})
	rec := feed(trace.Config{ThroughputWindow: 2 * time.Second}, events)
	tests := []struct {
		now            time.Time
		wantThroughput float64
		wantOldest     time.Duration
	}{
		{at(9999), 10, 7999 * time.Millisecond}, // 20 tasks in the last 2s
		{at(11000), 4.5, 9 * time.Second},       // 9.1s to 9.9s
		{at(30000), 0, 28 * time.Second},
	}
	for _, tt := range tests {
		s := rec.Snapshot(tt.now)
		if got := s.Stats.Throughput; got != tt.wantThroughput {
			t.Errorf("Throughput at %v = %v, want %v", tt.now.Sub(t0), got, tt.wantThroughput)
		}
		if got := s.Stats.OldestWait; got != tt.wantOldest {
			t.Errorf("OldestWait at %v = %v, want %v", tt.now.Sub(t0), got, tt.wantOldest)
		}
	}
}

func TestRecorderBounded(t *testing.T) {
	cfg := trace.Config{MaxFinished: 100, MaxOpen: 50, MaxSamples: 64, MaxLanes: 8, MaxLog: 16, WaitSamples: 32}
	rec := trace.NewRecorder(cfg)
	id := uint64(0)
	for round := range 2000 {
		key := fmt.Sprintf("key-%d", round) // a new key every round: lanes churn
		ts := at(float64(round))
		rec.Observe(core.Event{Kind: core.LaneCreated, Time: ts, Key: key})
		for range 5 {
			id++
			rec.Observe(core.Event{Kind: core.Enqueued, Time: ts, Task: id, Key: key, Weight: 1, Priority: core.Priority(round)})
			rec.Observe(core.Event{Kind: core.Started, Time: ts, Task: id, Key: key, Weight: 1, Priority: core.Priority(round)})
			rec.Observe(core.Event{Kind: core.Finished, Time: ts.Add(time.Microsecond), Task: id, Key: key})
		}
		rec.Observe(core.Event{Kind: core.LaneEvicted, Time: ts.Add(time.Millisecond / 2), Key: key})
	}
	for range 80 { // beyond MaxOpen: dropped
		id++
		rec.Observe(core.Event{Kind: core.Enqueued, Time: at(3000), Task: id, Weight: 1})
	}
	s := rec.Snapshot(at(4000))
	if got, want := len(s.Tasks), 100+50; got != want {
		t.Errorf("len(Tasks) = %d, want %d", got, want)
	}
	if got := len(s.Lanes); got > 100/5+1 {
		t.Errorf("len(Lanes) = %d, want at most %d: evicted lanes without retained tasks are dropped", got, 100/5+1)
	}
	for k, tr := range s.Counters {
		if len(tr) > 64 {
			t.Errorf("len(Counters[%v]) = %d, want at most 64", trace.Track(k), len(tr))
		}
	}
	if got, want := len(s.Log), 16; got != want {
		t.Errorf("len(Log) = %d, want %d", got, want)
	}
	if got, want := len(s.Stats.Waits), 64; got != want {
		t.Errorf("len(Waits) = %d, want %d priorities", got, want)
	}
	if got, want := s.Stats.Submitted, uint64(2000*5+50); got != want {
		t.Errorf("Submitted = %d, want %d", got, want)
	}
	if got, want := s.Stats.Succeeded, uint64(2000*5); got != want {
		t.Errorf("Succeeded = %d, want %d (totals count dropped tasks)", got, want)
	}
	if s.Stats.Dropped < 30 {
		t.Errorf("Dropped = %d, want at least the 30 tasks beyond MaxOpen", s.Stats.Dropped)
	}
	// Every retained task's lane is retained.
	lanes := make(map[int]bool)
	for _, l := range s.Lanes {
		lanes[l.ID] = true
	}
	for _, task := range s.Tasks {
		if task.Lane >= 0 && !lanes[task.Lane] {
			t.Fatalf("task %d ran on lane %d, which is not in Lanes", task.ID, task.Lane)
		}
	}
}

func TestMaxLanes(t *testing.T) {
	var events []core.Event
	for i := range 5 {
		id := uint64(i + 1)
		events = append(events, core.Event{Kind: core.Started, Time: at(0), Task: id, Key: fmt.Sprint("k", i), Weight: 1})
	}
	s := feed(trace.Config{MaxLanes: 3}, events).Snapshot(at(1))
	var got []int
	for _, task := range s.Tasks {
		got = append(got, task.Lane)
	}
	if want := []int{0, 1, 2, -1, -1}; !reflect.DeepEqual(got, want) {
		t.Errorf("lanes of the tasks = %v, want %v", got, want)
	}
	if got, want := s.Stats.Dropped, uint64(2); got != want {
		t.Errorf("Dropped = %d, want %d", got, want)
	}
}

type panickyErr struct{}

func (panickyErr) Error() string { panic("no text") }

func TestObserveErrorTextPanics(t *testing.T) {
	rec := feed(trace.Config{}, []core.Event{
		{Kind: core.Started, Time: at(0), Task: 1, Weight: 1},
		{Kind: core.Failed, Time: at(1), Task: 1, Err: panickyErr{}},
	})
	s := rec.Snapshot(at(1))
	got := s.Text(s.Tasks[0].Err)
	if want := "(Error method panicked: no text)"; got != want {
		t.Errorf("Err = %q, want %q", got, want)
	}
}

func TestConfigDefaults(t *testing.T) {
	got := trace.NewRecorder(trace.Config{MaxLog: 1 << 30, ThroughputWindow: time.Nanosecond}).Config()
	want := trace.Config{Name: "sluice", SlotName: "slot", MaxFinished: 10_000, MaxOpen: 100_000, MaxSamples: 10_000,
		MaxLanes: 4096, MaxLog: 1 << 16, WaitSamples: 1000, ThroughputWindow: time.Millisecond}
	if got != want {
		t.Errorf("Config() = %+v, want %+v", got, want)
	}
}

// TestRecorderConcurrent records from several goroutines while others take
// snapshots and write the trace; run it with -race.
func TestRecorderConcurrent(t *testing.T) {
	const workers, perWorker = 4, 300
	rec := trace.NewRecorder(trace.Config{MaxFinished: 500})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for range 2 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			var dst *trace.Snapshot
			for {
				select {
				case <-stop:
					return
				default:
				}
				dst = rec.SnapshotWindow(dst, time.Time{}, time.Time{}, time.Time{})
				if dst.Stats.Running < 0 || dst.Stats.Waiting < 0 {
					t.Errorf("negative counts: %+v", dst.Stats)
					return
				}
				// Under GOOS=js there is one thread and no preemption:
				// yield, or the writers never run.
				runtime.Gosched()
			}
		}()
	}
	readers.Add(1)
	go func() { // and one that writes the trace
		defer readers.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := rec.WriteJSON(io.Discard); err != nil {
				t.Errorf("WriteJSON = %v", err)
				return
			}
			runtime.Gosched()
		}
	}()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWorker {
				id := uint64(w*perWorker + i + 1)
				ts := at(float64(i))
				rec.Observe(core.Event{Kind: core.Enqueued, Time: ts, Task: id, Weight: 1})
				rec.Observe(core.Event{Kind: core.Started, Time: ts, Task: id, Weight: 1, Lane: w})
				kind := core.Finished
				if i%3 == 0 {
					kind = core.Failed
				}
				rec.Observe(core.Event{Kind: kind, Time: ts.Add(time.Millisecond), Task: id})
			}
		}()
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	s := rec.Snapshot(time.Time{})
	if got, want := s.Stats.Submitted, uint64(workers*perWorker); got != want {
		t.Errorf("Submitted = %d, want %d", got, want)
	}
	if got, want := s.Stats.Succeeded+s.Stats.Failed, uint64(workers*perWorker); got != want {
		t.Errorf("Succeeded+Failed = %d, want %d", got, want)
	}
	if s.Stats.Running != 0 || s.Stats.Waiting != 0 {
		t.Errorf("Running, Waiting = %d, %d, want 0, 0", s.Stats.Running, s.Stats.Waiting)
	}
	if got, want := len(s.Tasks), 500; got != want {
		t.Errorf("len(Tasks) = %d, want %d", got, want)
	}
	if s.Stats.MaxRunning < 1 || s.Stats.MaxRunning > workers {
		t.Errorf("MaxRunning = %d, want between 1 and %d", s.Stats.MaxRunning, workers)
	}
}
