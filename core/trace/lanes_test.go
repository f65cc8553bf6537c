package trace_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"sluice/core"
	"sluice/core/trace"
)

// hold and release are a Semaphore holder's start and end, at ms.
func hold(id uint64, w int64, ms float64) []core.Event {
	return []core.Event{
		{Kind: core.Enqueued, Time: at(ms), Task: id, Name: fmt.Sprintf("h%d", id), Weight: w},
		{Kind: core.Started, Time: at(ms), Task: id, Name: fmt.Sprintf("h%d", id), Weight: w},
	}
}

func release(id uint64, ms float64) []core.Event {
	return []core.Event{{Kind: core.Finished, Time: at(ms), Task: id}}
}

func limit(n int64) []core.Event {
	return []core.Event{{Kind: core.Resized, Time: at(0), Weight: n}}
}

// heldLanes returns, for each task of snap by name, the names of the
// lanes it holds, and checks that Lane and Lanes agree.
func heldLanes(t *testing.T, snap *trace.Snapshot) map[string][]string {
	t.Helper()
	names := make(map[int]string)
	for _, l := range snap.Lanes {
		names[l.ID] = l.Name
	}
	got := make(map[string][]string)
	for i := range snap.Tasks {
		x := &snap.Tasks[i]
		ids, name := snap.TaskLanes(x), snap.Text(x.Name)
		switch {
		case x.Lane < 0:
			continue
		case ids == nil:
			ids = []int{x.Lane}
		case len(ids) < 2 || ids[0] != x.Lane:
			t.Errorf("task %s: Lane %d, Lanes %v: want Lanes nil, or Lane first of two or more", name, x.Lane, ids)
		}
		for _, id := range ids {
			got[name] = append(got[name], names[id])
		}
	}
	return got
}

func TestSemaphoreHolderLanes(t *testing.T) {
	tokens := func(ns ...int) []string {
		var s []string
		for _, n := range ns {
			s = append(s, fmt.Sprintf("token %d", n))
		}
		return s
	}
	tests := []struct {
		name   string
		events [][]core.Event
		want   map[string][]string
	}{{
		name:   "weight 3 of 3 holds every token",
		events: [][]core.Event{limit(3), hold(1, 3, 1)},
		want:   map[string][]string{"h1": tokens(1, 2, 3)},
	}, {
		name:   "its tokens are free again when it ends",
		events: [][]core.Event{limit(3), hold(1, 3, 1), release(1, 2), hold(2, 1, 3), hold(3, 2, 3)},
		want:   map[string][]string{"h1": tokens(1, 2, 3), "h2": tokens(1), "h3": tokens(2, 3)},
	}, {
		name: "the lowest run of free tokens",
		events: [][]core.Event{limit(5), hold(1, 1, 1), hold(2, 1, 1), hold(3, 1, 1),
			release(1, 2), release(3, 2), hold(4, 2, 3)},
		want: map[string][]string{"h1": tokens(1), "h2": tokens(2), "h3": tokens(3), "h4": tokens(3, 4)},
	}, {
		name: "the lowest free tokens when no run of them is free",
		events: [][]core.Event{limit(3), hold(1, 1, 1), hold(2, 1, 1), hold(3, 1, 1),
			release(1, 2), release(3, 2), hold(4, 2, 3)},
		want: map[string][]string{"h1": tokens(1), "h2": tokens(2), "h3": tokens(3), "h4": tokens(1, 3)},
	}, {
		name: "limit unknown: the lanes seen count as the limit",
		events: [][]core.Event{hold(1, 1, 1), hold(2, 1, 1), hold(3, 1, 1),
			release(1, 2), release(3, 2), hold(4, 2, 3), hold(5, 2, 4)},
		want: map[string][]string{"h1": tokens(1), "h2": tokens(2), "h3": tokens(3), "h4": tokens(1, 3), "h5": tokens(4, 5)},
	}, {
		name: "a release of Task 0 frees every token of its holder",
		events: [][]core.Event{limit(3), hold(1, 3, 1),
			{{Kind: core.Finished, Time: at(2), Weight: 3}}, hold(2, 2, 3)},
		want: map[string][]string{"h1": tokens(1, 2, 3), "h2": tokens(1, 2)},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := feed(trace.Config{SlotName: "token"}, slices.Concat(tt.events...))
			got := heldLanes(t, rec.Snapshot(time.Time{}))
			for name, want := range tt.want {
				if !slices.Equal(got[name], want) {
					t.Errorf("%s holds %q, want %q", name, got[name], want)
				}
			}
			checkRoundTrip(t, rec)
		})
	}
	t.Run("at most 64 lanes", func(t *testing.T) {
		rec := feed(trace.Config{}, slices.Concat(limit(1000), hold(1, 1000, 1)))
		snap := rec.Snapshot(time.Time{})
		if got := len(snap.TaskLanes(&snap.Tasks[0])); got != 64 {
			t.Errorf("a holder of 1000 tokens holds %d lanes, want 64", got)
		}
		if got := snap.Stats.InUse; got != 1000 {
			t.Errorf("Stats.InUse = %d, want 1000", got)
		}
	})
	t.Run("snapshots do not share Lanes", func(t *testing.T) {
		rec := feed(trace.Config{}, slices.Concat(limit(3), hold(1, 3, 1)))
		s1 := rec.Snapshot(time.Time{})
		s1.TaskLanes(&s1.Tasks[0])[1] = 99
		if s2 := rec.Snapshot(time.Time{}); !slices.Equal(s2.TaskLanes(&s2.Tasks[0]), []int{0, 1, 2}) {
			got := s2.TaskLanes(&s2.Tasks[0])
			t.Errorf("after a snapshot's Lanes changed, the next snapshot's are %v, want [0 1 2]", got)
		}
	})
}

// traceEvents decodes a JSON trace's events.
func traceEvents(t *testing.T, b []byte) []struct {
	Ph   string         `json:"ph"`
	Ts   *float64       `json:"ts"`
	Dur  *float64       `json:"dur"`
	Pid  *int           `json:"pid"`
	Tid  *int           `json:"tid"`
	Name string         `json:"name"`
	Cat  string         `json:"cat"`
	S    string         `json:"s"`
	Args map[string]any `json:"args"`
} {
	t.Helper()
	var tr jsonTrace
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatalf("output is not a JSON trace object: %v", err)
	}
	return tr.TraceEvents
}

// threadNames returns the thread names of process 1 by tid, and fails if
// a tid is named twice.
func threadNames(t *testing.T, b []byte) map[int]string {
	t.Helper()
	names := make(map[int]string)
	for _, e := range traceEvents(t, b) {
		if e.Ph == "M" && e.Name == "thread_name" && *e.Pid == 1 {
			if old, dup := names[*e.Tid]; dup {
				t.Errorf("tid %d named %q and %q", *e.Tid, old, e.Args["name"])
			}
			names[*e.Tid], _ = e.Args["name"].(string)
		}
	}
	return names
}

func TestWriteJSONHolderTracks(t *testing.T) {
	rec := feed(trace.Config{SlotName: "token"}, slices.Concat(limit(3), hold(1, 1, 0), release(1, 1), hold(2, 3, 2), release(2, 5)))
	b := writeJSON(t, rec)
	names := threadNames(t, b)
	var on []string
	for _, e := range traceEvents(t, b) {
		if e.Ph == "X" && e.Cat == "task" && e.Name == "h2" {
			on = append(on, names[*e.Tid])
			if *e.Ts != 2000 || *e.Dur != 3000 {
				t.Errorf("h2 on %s from %vµs for %vµs, want from 2000µs for 3000µs", names[*e.Tid], *e.Ts, *e.Dur)
			}
		}
	}
	if want := []string{"token 1", "token 2", "token 3"}; !slices.Equal(on, want) {
		t.Errorf("the weight-3 holder's slices are on %q, want %q", on, want)
	}
	back := checkRoundTrip(t, rec)
	snap := back.Snapshot(time.Time{})
	if got := len(snap.Tasks); got != 2 {
		t.Fatalf("read back %d tasks, want 2", got)
	}
	if got := heldLanes(t, snap)["h2"]; !slices.Equal(got, on) {
		t.Errorf("read back, h2 holds %q, want %q", got, on)
	}

	t.Run("a second run at other times is refused", func(t *testing.T) {
		bad := strings.Replace(string(b), `"ts":2000,"pid":1,"tid":2,"dur":3000`, `"ts":2000,"pid":1,"tid":2,"dur":2500`, 1)
		if bad == string(b) {
			t.Fatalf("the trace has no slice of h2 on tid 2 to change:\n%s", b)
		}
		if _, err := trace.ReadJSON(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "runs twice") {
			t.Errorf("ReadJSON of a task with two different runs = %v, want an error saying it runs twice", err)
		}
	})
}

func TestWriteJSONLaneNames(t *testing.T) {
	tests := []struct {
		name   string
		cfg    trace.Config
		events []core.Event
		want   []string
	}{
		{"slots from 1", trace.Config{}, simulate(simQueue, 1, 50, 3), []string{"slot 1", "slot 2", "slot 3"}},
		{"tokens from 1", trace.Config{SlotName: "token"}, slices.Concat(limit(2), hold(1, 2, 1)), []string{"token 1", "token 2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := feed(tt.cfg, tt.events)
			var got []string
			for _, l := range rec.Snapshot(time.Time{}).Lanes {
				got = append(got, l.Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("lanes named %q, want %q", got, tt.want)
			}
			names := threadNames(t, writeJSON(t, rec))
			got = got[:0]
			for tid := range len(names) {
				got = append(got, names[tid])
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("threads named %q, want %q", got, tt.want)
			}
			back := checkRoundTrip(t, rec)
			if g := back.Config().SlotName; g != tt.cfg.SlotName && tt.cfg.SlotName != "" {
				t.Errorf("read back, SlotName = %q, want %q", g, tt.cfg.SlotName)
			}
		})
	}
}

func TestReadJSONOldLaneNames(t *testing.T) {
	// Traces written before lanes were numbered from 1 name slot s "slot s".
	in := own(`{"ph":"M","pid":1,"tid":0,"name":"thread_name","args":{"name":"slot 0","key":"","slot":0}},
		{"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"slot 1","key":"","slot":1}},
		{"ph":"M","pid":1,"tid":2,"name":"thread_name","args":{"name":"device-1","key":"device-1","slot":-1}}`, "")
	rec, err := trace.ReadJSON(strings.NewReader(in))
	if err != nil {
		t.Fatalf("ReadJSON = %v", err)
	}
	var got []string
	for _, l := range rec.Snapshot(time.Time{}).Lanes {
		got = append(got, l.Name)
	}
	if want := []string{"slot 1", "slot 2", "device-1"}; !slices.Equal(got, want) {
		t.Errorf("lanes named %q, want %q", got, want)
	}
}

func TestWriteJSONKeyTrack(t *testing.T) {
	task := func(id uint64, key string, from, to float64) []core.Event {
		return []core.Event{
			{Kind: core.Enqueued, Time: at(from), Task: id, Key: key, Weight: 1},
			{Kind: core.Started, Time: at(from), Task: id, Key: key, Weight: 1},
			{Kind: core.Finished, Time: at(to), Task: id, Key: key},
		}
	}
	lane := func(k core.EventKind, key string, ms float64) []core.Event {
		return []core.Event{{Kind: k, Time: at(ms), Key: key}}
	}
	rec := feed(trace.Config{}, slices.Concat(
		lane(core.LaneCreated, "a", 0), task(1, "a", 0, 1), lane(core.LaneCreated, "b", 0), task(2, "b", 0, 2),
		lane(core.LaneEvicted, "a", 3), lane(core.LaneCreated, "a", 4), task(3, "a", 4, 5),
		lane(core.LaneEvicted, "a", 6), lane(core.LaneCreated, "a", 7), task(4, "a", 7, 8),
	))
	snap := rec.Snapshot(time.Time{})
	var aLanes []int
	for _, l := range snap.Lanes {
		if l.Key == "a" {
			aLanes = append(aLanes, l.ID)
		}
	}
	if len(aLanes) != 3 {
		t.Fatalf("key a has lanes %v, want 3", aLanes)
	}
	b := writeJSON(t, rec)
	names := threadNames(t, b)
	tids := make(map[int]bool) // of key a's events
	instants := 0
	for _, e := range traceEvents(t, b) {
		switch {
		case e.Ph == "X" && e.Cat == "task" && e.Args["key"] == "a", e.Ph == "i" && e.Args["key"] == "a":
			tids[*e.Tid] = true
		}
		if e.Ph == "i" && e.Args["key"] == "a" {
			instants++
		}
	}
	if len(tids) != 1 {
		t.Errorf("key a's slices and instants are on tids %v, want one", tids)
	}
	for tid := range tids {
		if names[tid] != "a" {
			t.Errorf("key a's track is named %q, want a", names[tid])
		}
	}
	if instants != 5 {
		t.Errorf("key a has %d lane instants on its track, want 5 (3 created, 2 evicted)", instants)
	}
	if got, want := len(names), 2; got != want {
		t.Errorf("%d threads named (%v), want %d: one per key", got, names, want)
	}
	back := checkRoundTrip(t, rec)
	var backA []int
	for _, l := range back.Snapshot(time.Time{}).Lanes {
		if l.Key == "a" {
			backA = append(backA, l.ID)
		}
	}
	if !slices.Equal(backA, aLanes) {
		t.Errorf("read back, key a has lanes %v, want %v", backA, aLanes)
	}
	if b2 := writeJSON(t, back); !bytes.Equal(b, b2) {
		t.Errorf("written again, the trace differs at %s", firstDiff(b, b2))
	}
}
