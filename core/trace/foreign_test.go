package trace_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"sluice/core"
	"sluice/core/trace"
)

// chromiumLike is a trace as Chromium writes it: two processes with named
// threads, nested and unterminated slices, and instant, flow, async,
// counter and sample events, which the model does not show.
const chromiumLike = `{"traceEvents":[
	{"ph":"M","pid":1,"tid":0,"name":"process_name","args":{"name":"Browser"}},
	{"ph":"M","pid":2,"tid":0,"name":"process_name","args":{"name":"Renderer"}},
	{"ph":"M","pid":1,"tid":11,"name":"thread_name","args":{"name":"CrBrowserMain"}},
	{"ph":"M","pid":2,"tid":21,"name":"thread_name","args":{"name":"CrRendererMain"}},
	{"ph":"X","pid":1,"tid":11,"ts":0,"dur":100,"name":"RunTask"},
	{"ph":"X","pid":1,"tid":11,"ts":10,"dur":50,"name":"Layout"},
	{"ph":"X","pid":1,"tid":11,"ts":20,"dur":10,"name":"Style"},
	{"ph":"B","pid":2,"tid":21,"ts":5,"name":"Parse"},
	{"ph":"B","pid":2,"tid":21,"ts":6,"name":"Script"},
	{"ph":"E","pid":2,"tid":21,"ts":40},
	{"ph":"i","pid":1,"tid":11,"ts":15,"name":"mark","s":"t"},
	{"ph":"I","pid":1,"tid":11,"ts":16,"name":"mark2"},
	{"ph":"s","pid":1,"tid":11,"ts":17,"id":1,"name":"flow"},
	{"ph":"f","pid":2,"tid":21,"ts":18,"id":1,"name":"flow","bp":"e"},
	{"ph":"b","pid":1,"tid":11,"ts":19,"id":"0x1","cat":"net","name":"Request"},
	{"ph":"e","pid":1,"tid":11,"ts":90,"id":"0x1","cat":"net","name":"Request"},
	{"ph":"C","pid":1,"tid":11,"ts":20,"name":"heap","args":{"used":5}},
	{"ph":"C","pid":1,"tid":11,"ts":30,"name":"heap","args":{"used":6}},
	{"ph":"P","pid":1,"tid":11,"ts":31,"name":"sample"},
	{"ph":"E","pid":1,"tid":12,"ts":32},
	{"ph":"i","pid":2,"tid":21,"ts":250,"name":"last","s":"g"}
]}`

// TestReadJSONUnshown reads another tool's trace and checks what it shows
// and says: lanes named by process and thread, one per nesting depth, no
// lane a trace does not have; the events not shown counted by kind; a
// slice that never ends running until the trace's last event.
func TestReadJSONUnshown(t *testing.T) {
	rec, err := trace.ReadJSON(strings.NewReader(chromiumLike))
	if err != nil {
		t.Fatal(err)
	}
	snap := rec.Snapshot(time.Time{})
	var lanes []string
	for _, l := range snap.Lanes {
		lanes = append(lanes, l.Name)
	}
	wantLanes := []string{"Browser / CrBrowserMain", "Browser / CrBrowserMain · depth 1", "Browser / CrBrowserMain · depth 2",
		"Renderer / CrRendererMain", "Renderer / CrRendererMain · depth 1"}
	if !slices.Equal(lanes, wantLanes) {
		t.Errorf("lanes %q, want %q", lanes, wantLanes)
	}
	depth := map[string]string{}
	for _, task := range snap.Tasks {
		depth[snap.Text(task.Name)] = snap.Lanes[task.Lane].Name
	}
	for name, lane := range map[string]string{"RunTask": "Browser / CrBrowserMain", "Layout": "Browser / CrBrowserMain · depth 1",
		"Style": "Browser / CrBrowserMain · depth 2", "Parse": "Renderer / CrRendererMain", "Script": "Renderer / CrRendererMain · depth 1"} {
		if depth[name] != lane {
			t.Errorf("%s on %q, want %q", name, depth[name], lane)
		}
	}
	if want := time.Unix(0, 250_000); !snap.End.Equal(want) {
		t.Errorf("the model ends at %v, want the trace's last event's time %v", snap.End, want)
	}
	for _, task := range snap.Tasks {
		if snap.Text(task.Name) == "Parse" && (task.State != core.TaskRunning || !task.Ended.IsZero()) {
			t.Errorf("the slice that never ends is %v, ended %v; want it running, with no end", task.State, task.Ended)
		}
	}
	u := rec.Unshown()
	want := trace.Unshown{Events: []trace.Count{{"instant", 3}, {"async", 2}, {"counter sample", 2}, {"flow", 2}, {"sample", 1}, {"unmatched end", 1}}, Unfinished: 1}
	if !slices.Equal(u.Events, want.Events) || u.Unfinished != want.Unfinished {
		t.Errorf("Unshown() = %+v, want %+v", u, want)
	}
	if u.Total() != 11 {
		t.Errorf("Total() = %d, want 11", u.Total())
	}
	if own := feed(trace.Config{}, simulate(simQueue, 1, 50, 2)); own.Unshown().Total() != 0 {
		t.Errorf("a Recorder's own model: Unshown() = %+v, want nothing", own.Unshown())
	}
}
