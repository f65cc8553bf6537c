package ui

import (
	"bytes"
	"reflect"
	"slices"
	"testing"
	"time"

	"sluice/core"
	"sluice/core/trace"
)

// settleTrace finds what a pass of each over a loaded trace's snapshot
// would: its first time, its levels and whether a task waited; it pauses
// every few thousand tasks or samples.
func TestSettleTrace(t *testing.T) {
	for _, c := range []struct {
		name       string
		data       []byte
		wantWaited bool
	}{
		{"own", largeOwnTrace(20_000), true},
		{"foreign", largeTrace(20_000), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec, err := trace.ReadJSON(bytes.NewReader(c.data))
			if err != nil {
				t.Fatal(err)
			}
			snap, orig := rec.Snapshot(time.Time{}), rec.Snapshot(time.Time{})
			pauses := 0
			f, ok := settleTrace(snap, func(done float64) {
				pauses++
				if done != 1 {
					t.Fatalf("pause(%v), want pause(1)", done)
				}
			})
			if !ok {
				t.Fatal("settleTrace found no tasks")
			}
			if units := len(snap.Tasks); pauses < units/settleEvery {
				t.Errorf("%d pauses over %d tasks, want one per %d at least", pauses, units, settleEvery)
			}
			var first time.Time
			var prios []core.Priority
			for i := range orig.Tasks {
				o := &orig.Tasks[i]
				if first.IsZero() || o.Enqueued.Time().Before(first) {
					first = o.Enqueued.Time()
				}
				prios = append(prios, o.Priority)
			}
			for i := range orig.Lanes {
				if c := orig.Lanes[i].Created; !c.IsZero() && c.Before(first) {
					first = c
				}
			}
			if !f.start.Equal(first) {
				t.Errorf("start = %v, want %v", f.start, first)
			}
			if want := traceLevels(prios); !slices.Equal(f.levels, want) {
				t.Errorf("levels = %v, want %v", f.levels, want)
			}
			if f.waited != c.wantWaited || f.waited != traceWaited(orig) {
				t.Errorf("waited = %v, want %v", f.waited, c.wantWaited)
			}
			if !reflect.DeepEqual(snap, orig) {
				t.Error("settleTrace changed the snapshot")
			}
		})
	}
	t.Run("no tasks", func(t *testing.T) {
		if _, ok := settleTrace(trace.NewRecorder(trace.Config{}).Snapshot(time.Time{}), func(float64) {}); ok {
			t.Error("settleTrace found tasks in an empty snapshot")
		}
	})
}

// A frame of a loaded trace lays its queue out from the waiting tasks its
// loader found, as it would from every task's state.
func TestLayoutQueueSettled(t *testing.T) {
	// Tasks of three priorities, one in three still waiting at the end.
	rec := trace.NewRecorder(trace.Config{MaxFinished: 3000})
	first := time.Unix(1_700_000_000, 0)
	for i := range 3000 {
		e := core.Event{Task: uint64(i + 1), Priority: core.Priority(i%3 - 1), Weight: 1, Kind: core.Enqueued, Time: first.Add(time.Duration(i) * time.Microsecond)}
		rec.Observe(e)
		if i%3 == 0 {
			continue
		}
		e.Kind, e.Lane = core.Started, i%4
		rec.Observe(e)
		e.Kind, e.Time = core.Finished, e.Time.Add(time.Microsecond)
		rec.Observe(e)
	}
	var buf bytes.Buffer
	if err := rec.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		data []byte
	}{{"waiting", buf.Bytes()}, {"no waits", largeTrace(3000)}} {
		t.Run(c.name, func(t *testing.T) {
			s, err := NewSession(defaultScenarioForBench(), "")
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if err := s.LoadTrace(bytes.NewReader(c.data), "t.json"); err != nil {
				t.Fatal(err)
			}
			f := s.Frame(0, defaultSpan)
			if f.Loaded == nil || !f.Loaded.settled {
				t.Fatal("the loaded trace's frame has no settled queue")
			}
			settled, plain := newTimeline(false), newTimeline(false)
			unsettled := *f.Loaded
			unsettled.settled, unsettled.pending, unsettled.noWaits = false, nil, false
			settled.layoutQueue(f.Snap, f.Levels, true, f.Loaded)
			plain.layoutQueue(f.Snap, f.Levels, true, &unsettled)
			if settled.queueNone != plain.queueNone || !slices.Equal(settled.queueRows, plain.queueRows) {
				t.Errorf("settled: none %v, rows %v; from every task: none %v, rows %v",
					settled.queueNone, settled.queueRows, plain.queueNone, plain.queueRows)
			}
			n := 0
			for r := range settled.queue {
				n += len(settled.queue[r])
				if !slices.Equal(settled.queue[r], plain.queue[r]) {
					t.Errorf("row %d: settled %d tasks, from every task %d", r, len(settled.queue[r]), len(plain.queue[r]))
				}
			}
			if want := map[string]int{"waiting": 1000, "no waits": 0}[c.name]; n != want {
				t.Errorf("%d tasks queued, want %d", n, want)
			}
		})
	}
}
