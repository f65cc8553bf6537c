package trace_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"sluice/core"
	"sluice/core/trace"
)

// writeJSON returns rec's JSON trace.
func writeJSON(t testing.TB, rec *trace.Recorder) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := rec.WriteJSON(&b); err != nil {
		t.Fatalf("WriteJSON: %v", err)
	}
	return b.Bytes()
}

// firstDiff describes where a and b first differ.
func firstDiff(a, b []byte) string {
	al, bl := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := range min(len(al), len(bl)) {
		if !bytes.Equal(al[i], bl[i]) {
			return fmt.Sprintf("line %d:\n%s\nvs\n%s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("%d lines vs %d lines", len(al), len(bl))
}

// checkRoundTrip writes rec, reads it back and checks that the model read
// equals rec's (in snapshots at several times and windows, and config) and
// that writing it again gives the same bytes. It returns the model read.
func checkRoundTrip(t *testing.T, rec *trace.Recorder) *trace.Recorder {
	t.Helper()
	b1 := writeJSON(t, rec)
	got, err := trace.ReadJSON(bytes.NewReader(b1))
	if err != nil {
		t.Fatalf("ReadJSON(WriteJSON()) = %v", err)
	}
	if b2 := writeJSON(t, got); !bytes.Equal(b1, b2) {
		t.Errorf("write -> read -> write differs at %s", firstDiff(b1, b2))
	}
	if file, err := trace.ReadAll(bytes.NewReader(b1)); err != nil || !bytes.Equal(file, b1) {
		t.Errorf("ReadAll read %d bytes of %d (%v)", len(file), len(b1), err)
	} else if parsed, err := trace.ParseJSON(file, nil); err != nil {
		t.Errorf("ParseJSON(WriteJSON()) = %v", err)
	} else if b3 := writeJSON(t, parsed); !bytes.Equal(b1, b3) {
		t.Errorf("write -> ParseJSON -> write differs at %s", firstDiff(b1, b3))
	}
	if g, w := got.Config(), rec.Config(); g != w {
		t.Errorf("Config() = %+v, want %+v", g, w)
	}
	end := rec.Snapshot(time.Time{}).End
	for _, v := range []struct{ now, from, to time.Time }{
		{},
		{end.Add(time.Second), time.Time{}, time.Time{}},
		{end, end.Add(-5 * time.Millisecond), end},
		{end.Add(-time.Millisecond), end.Add(-20 * time.Millisecond), end.Add(-10 * time.Millisecond)},
	} {
		want := rec.SnapshotWindow(nil, v.now, v.from, v.to)
		g := got.SnapshotWindow(nil, v.now, v.from, v.to)
		if !reflect.DeepEqual(g, want) {
			t.Errorf("snapshot (now %v, window %v to %v) of the model read differs:\n%s",
				v.now, v.from, v.to, snapshotDiff(g, want))
		}
	}
	return got
}

// snapshotDiff describes the first difference between two snapshots.
func snapshotDiff(got, want *trace.Snapshot) string {
	switch {
	case !reflect.DeepEqual(got.Tasks, want.Tasks):
		for i := range min(len(got.Tasks), len(want.Tasks)) {
			if !reflect.DeepEqual(got.Tasks[i], want.Tasks[i]) {
				return fmt.Sprintf("Tasks[%d] = %+v\nwant %+v", i, got.Tasks[i], want.Tasks[i])
			}
		}
		return fmt.Sprintf("%d tasks, want %d", len(got.Tasks), len(want.Tasks))
	case !reflect.DeepEqual(got.Lanes, want.Lanes):
		return fmt.Sprintf("Lanes = %+v\nwant %+v", got.Lanes, want.Lanes)
	case !reflect.DeepEqual(got.Counters, want.Counters):
		return fmt.Sprintf("Counters = %+v\nwant %+v", got.Counters, want.Counters)
	case !reflect.DeepEqual(got.Log, want.Log):
		return fmt.Sprintf("Log = %+v\nwant %+v", got.Log, want.Log)
	case !reflect.DeepEqual(got.Stats, want.Stats):
		return fmt.Sprintf("Stats = %+v\nwant %+v", got.Stats, want.Stats)
	}
	return fmt.Sprintf("%+v\nwant %+v", got, want)
}

func TestRoundTrip(t *testing.T) {
	small := trace.Config{Name: "small \"bounds\"", MaxFinished: 40, MaxOpen: 30, MaxSamples: 25, MaxLanes: 5,
		MaxLog: 7, WaitSamples: 6, ThroughputWindow: 50 * time.Millisecond}
	tests := []struct {
		name   string
		cfg    trace.Config
		events []core.Event
	}{
		{"empty", trace.Config{}, nil},
		{"lane events only", trace.Config{}, []core.Event{
			{Kind: core.LaneCreated, Time: at(1), Key: "a"},
			{Kind: core.LaneCreated, Time: at(2), Key: "b"},
			{Kind: core.LaneEvicted, Time: at(3), Key: "a"}, // no task ran on it: dropped
			{Kind: core.Closed, Time: at(4)},
		}},
		{"queue", trace.Config{}, simulate(simQueue, 1, 400, 3)},
		{"queue cut short", trace.Config{}, simulate(simQueue, 2, 400, 3)[:700]},
		{"keyed", trace.Config{}, simulate(simKeyed, 3, 400, 4)},
		{"keyed cut short", trace.Config{}, simulate(simKeyed, 4, 400, 4)[:900]},
		{"semaphore", trace.Config{}, simulate(simSemaphore, 5, 400, 4)},
		{"semaphore cut short", trace.Config{}, simulate(simSemaphore, 6, 400, 4)[:500]},
		{"queue, small bounds", small, simulate(simQueue, 7, 400, 3)},
		{"keyed, small bounds", small, simulate(simKeyed, 8, 400, 4)[:1000]},
		{"reused task ids", trace.Config{}, []core.Event{
			{Kind: core.Enqueued, Time: at(0), Task: 1, Weight: 1},
			{Kind: core.Canceled, Time: at(1), Task: 1},
			{Kind: core.Started, Time: at(2), Task: 1, Weight: 1},
			{Kind: core.Finished, Time: at(3), Task: 1},
			{Kind: core.Enqueued, Time: at(3), Task: 1, Weight: 1},
			{Kind: core.Waiting, Time: at(3), Task: 1, Weight: 1},
			{Kind: core.Started, Time: at(4), Task: 1, Weight: 1},
			{Kind: core.Failed, Time: at(5), Task: 1},
			{Kind: core.Enqueued, Time: at(5), Task: 1, Weight: 1},
			{Kind: core.Waiting, Time: at(5), Task: 1, Weight: 1},
		}},
		{"odd strings and times", trace.Config{}, []core.Event{
			{Kind: core.Enqueued, Time: time.Unix(-5, 123), Task: 1, Name: "ünï\u2028cødé\x01\"\\</>&", Key: "k\n", Weight: 1},
			{Kind: core.Started, Time: time.Unix(-5, 124), Task: 1, Key: "k\n", Weight: 1},
			{Kind: core.Failed, Time: time.Unix(3, 999_999_999), Task: 1, Err: errors.New("multi\nline\ttab")},
			{Kind: core.Enqueued, Time: time.Unix(1<<40, 1), Task: 2, Priority: math.MaxInt32, Weight: math.MaxInt64},
			{Kind: core.Started, Time: time.Unix(1<<40, 1), Task: 2, Priority: math.MaxInt32, Weight: math.MaxInt64, Lane: 1 << 20},
			{Kind: core.Enqueued, Time: time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), Task: math.MaxUint64, Priority: math.MinInt32},
			{Kind: core.EventKind(200), Time: time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC)},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkRoundTrip(t, feed(tt.cfg, tt.events))
		})
	}
}

func TestRoundTripInvalidUTF8(t *testing.T) {
	rec := feed(trace.Config{}, []core.Event{
		{Kind: core.Started, Time: at(0), Task: 1, Name: "bad \xff\xfe name", Weight: 1},
	})
	b1 := writeJSON(t, rec)
	got, err := trace.ReadJSON(bytes.NewReader(b1))
	if err != nil {
		t.Fatalf("ReadJSON = %v", err)
	}
	if s := got.Snapshot(time.Time{}); true {
		name, want := s.Text(s.Tasks[0].Name), "bad \ufffd\ufffd name"
		if name != want {
			t.Errorf("Name = %q, want %q", name, want)
		}
	}
	if b2 := writeJSON(t, got); !bytes.Equal(b1, b2) {
		t.Errorf("write -> read -> write differs at %s", firstDiff(b1, b2))
	}
}

// jsonTrace is a trace as a viewer sees it.
type jsonTrace struct {
	TraceEvents []struct {
		Ph   string         `json:"ph"`
		Ts   *float64       `json:"ts"`
		Dur  *float64       `json:"dur"`
		Pid  *int           `json:"pid"`
		Tid  *int           `json:"tid"`
		Name string         `json:"name"`
		Cat  string         `json:"cat"`
		S    string         `json:"s"`
		Args map[string]any `json:"args"`
	} `json:"traceEvents"`
	Metadata map[string]any `json:"metadata"`
}

func TestWriteJSONFormat(t *testing.T) {
	rec := feed(trace.Config{Name: "orders"}, simulate(simKeyed, 11, 300, 3))
	snap := rec.Snapshot(time.Time{})
	var tr jsonTrace
	if err := json.Unmarshal(writeJSON(t, rec), &tr); err != nil {
		t.Fatalf("output is not a JSON trace object: %v", err)
	}
	type thread struct{ pid, tid int }
	names := make(map[thread]string)
	slicesOn := make(map[thread][][2]float64) // start, end
	phases := make(map[string]int)
	runs := make(map[uint64]int) // task -> tid of its run
	for i, e := range tr.TraceEvents {
		if e.Ts == nil || e.Pid == nil || e.Tid == nil || e.Name == "" {
			t.Fatalf("event %d lacks ts, pid, tid or name: %+v", i, e)
		}
		phases[e.Ph]++
		th := thread{*e.Pid, *e.Tid}
		switch e.Ph {
		case "M":
			if e.Name == "thread_name" || e.Name == "process_name" {
				if _, ok := e.Args["name"].(string); !ok {
					t.Errorf("event %d: %s without args.name", i, e.Name)
				}
			}
			if e.Name == "thread_name" {
				names[th] = e.Args["name"].(string)
			}
			if e.Name == "process_name" && *e.Pid == 1 && e.Args["name"] != "orders" {
				t.Errorf("process name = %v, want orders", e.Args["name"])
			}
		case "X":
			if e.Dur == nil || *e.Dur < 0 {
				t.Fatalf("event %d: complete event without a non-negative dur: %+v", i, e)
			}
			if e.Cat != "task" && e.Cat != "wait" {
				t.Errorf("event %d: cat = %q, want task or wait", i, e.Cat)
			}
			if (e.Cat == "task") != (*e.Pid == 1) {
				t.Errorf("event %d: cat %s in process %d", i, e.Cat, *e.Pid)
			}
			if _, ok := names[th]; !ok {
				t.Errorf("event %d: thread %v has no thread_name", i, th)
			}
			slicesOn[th] = append(slicesOn[th], [2]float64{*e.Ts, *e.Ts + *e.Dur})
			for _, k := range []string{"task", "priority", "weight", "state"} {
				if _, ok := e.Args[k]; !ok {
					t.Errorf("event %d: args lack %s: %v", i, k, e.Args)
				}
			}
			if e.Cat == "task" {
				lane := *e.Tid // or, for a key's later lane on the key's track, args.lane
				if l, ok := e.Args["lane"].(float64); ok {
					lane = int(l)
				}
				runs[uint64(e.Args["task"].(float64))] = lane
			}
		case "C":
			if _, ok := e.Args["value"].(float64); !ok || *e.Pid != 1 {
				t.Errorf("event %d: counter without a value in process 1: %+v", i, e)
			}
			if !slices.Contains([]string{"running", "waiting", "in use", "lanes", "limit"}, e.Name) {
				t.Errorf("event %d: counter %q", i, e.Name)
			}
		case "i":
			if e.S != "t" || (e.Name != "lane created" && e.Name != "lane evicted") {
				t.Errorf("event %d: instant %+v", i, e)
			}
		default:
			t.Errorf("event %d: phase %q", i, e.Ph)
		}
	}
	// Slices on one thread must not overlap, or viewers misdraw them.
	for th, ss := range slicesOn {
		slices.SortFunc(ss, func(a, b [2]float64) int { return cmp.Compare(a[0], b[0]) })
		for i := 1; i < len(ss); i++ {
			if ss[i][0] < ss[i-1][1]-1e-6 {
				t.Errorf("on %v, a slice %v starts before the previous one %v ends", th, ss[i], ss[i-1])
			}
		}
	}
	for _, ph := range []string{"M", "X", "C", "i"} {
		if phases[ph] == 0 {
			t.Errorf("no %q events", ph)
		}
	}
	for _, task := range snap.Tasks {
		if tid, ok := runs[task.ID]; task.Lane >= 0 && (!ok || tid != task.Lane) {
			t.Errorf("task %d ran on lane %d; its run event is on lane %d (found %v)", task.ID, task.Lane, tid, ok)
		}
	}
	if _, ok := tr.Metadata["sluice"].(map[string]any); !ok {
		t.Errorf("metadata.sluice missing: %v", tr.Metadata)
	}
}

func TestWriteJSONError(t *testing.T) {
	rec := feed(trace.Config{}, simulate(simQueue, 1, 2000, 2))
	want := errors.New("disk full")
	if err := rec.WriteJSON(failingWriter{want}); err != want {
		t.Errorf("WriteJSON to a failing writer = %v, want %v", err, want)
	}
}

type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }

func TestReadJSONForeign(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		wantTasks []view
		wantLanes []trace.Lane
	}{{
		name: "array without its closing bracket",
		in: `[{"ph":"M","pid":7,"tid":"main","name":"thread_name","args":{"name":"main thread"}},
			{"ph":"X","pid":7,"tid":"main","ts":10,"dur":5,"name":"parse","args":{"n":[1,2]}},
			{"ph":"B","pid":7,"tid":2,"ts":12.5,"name":"io"},
			{"ph":"E","pid":7,"tid":2,"ts":20},
			{"ph":"B","pid":7,"tid":2,"ts":30,"name":"open"},
			{"ph":"s","id":1,"pid":7,"tid":2,"ts":1},
			{"ph":"C","pid":7,"ts":3,"name":"mem","args":{"x":"y"}},
			{"ph":"E","pid":9,"tid":9,"ts":3},`,
		wantTasks: []view{
			{ID: 1, Name: "parse", Weight: 1, Lane: 0, State: core.TaskSucceeded,
				Enqueued: time.Unix(0, 10_000).UTC(), Started: time.Unix(0, 10_000).UTC(), Ended: time.Unix(0, 15_000).UTC()},
			{ID: 2, Name: "io", Weight: 1, Lane: 1, State: core.TaskSucceeded,
				Enqueued: time.Unix(0, 12_500).UTC(), Started: time.Unix(0, 12_500).UTC(), Ended: time.Unix(0, 20_000).UTC()},
			{ID: 3, Name: "open", Weight: 1, Lane: 1, State: core.TaskRunning,
				Enqueued: time.Unix(0, 30_000).UTC(), Started: time.Unix(0, 30_000).UTC()},
		},
		wantLanes: []trace.Lane{{ID: 0, Name: "main thread", Slot: 0}, {ID: 1, Name: "thread 2", Slot: 1}},
	}, {
		name: "object with other keys",
		in: `{"displayTimeUnit":"ns","otherData":{"v":"1"},"traceEvents":[
			{"ph":"X","pid":1,"tid":1,"ts":0,"dur":10,"name":"a"},
			{"ph":"X","pid":1,"tid":1,"ts":10,"name":"b"},
			{"ph":"X","pid":1,"tid":1,"ts":2,"dur":1,"name":"nested"}],
			"metadata":{"x":[1,2]},"stackFrames":{}}`,
		wantTasks: []view{
			{ID: 2, Name: "nested", Weight: 1, Lane: 1, State: core.TaskSucceeded,
				Enqueued: time.Unix(0, 2000).UTC(), Started: time.Unix(0, 2000).UTC(), Ended: time.Unix(0, 3000).UTC()},
			{ID: 1, Name: "a", Weight: 1, Lane: 0, State: core.TaskSucceeded,
				Enqueued: time.Unix(0, 0).UTC(), Started: time.Unix(0, 0).UTC(), Ended: time.Unix(0, 10_000).UTC()},
			{ID: 3, Name: "b", Weight: 1, Lane: 0, State: core.TaskSucceeded,
				Enqueued: time.Unix(0, 10_000).UTC(), Started: time.Unix(0, 10_000).UTC(), Ended: time.Unix(0, 10_000).UTC()},
		},
		wantLanes: []trace.Lane{{ID: 0, Name: "thread 1", Slot: 0}, {ID: 1, Name: "thread 1 · depth 1", Slot: 1}},
	}, {
		name:      "empty",
		in:        `{"traceEvents":[]}`,
		wantTasks: []view{},
		wantLanes: []trace.Lane{},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, err := trace.ReadJSON(strings.NewReader(tt.in))
			if err != nil {
				t.Fatalf("ReadJSON = %v", err)
			}
			s := rec.Snapshot(time.Time{})
			if got := views(s); !reflect.DeepEqual(got, tt.wantTasks) && (len(got) > 0 || len(tt.wantTasks) > 0) {
				t.Errorf("tasks =\n%+v\nwant\n%+v", got, tt.wantTasks)
			}
			if !reflect.DeepEqual(s.Lanes, tt.wantLanes) && (len(s.Lanes) > 0 || len(tt.wantLanes) > 0) {
				t.Errorf("lanes = %+v, want %+v", s.Lanes, tt.wantLanes)
			}
			checkRoundTrip(t, rec)
		})
	}
}

// own wraps events in a trace with sluice metadata.
func own(events string, meta string) string {
	if meta == "" {
		meta = `{"version":1}`
	}
	return `{"traceEvents":[` + events + `],"metadata":{"sluice":` + meta + `}}`
}

func TestReadJSONHostile(t *testing.T) {
	run := func(id int, tid, ts, dur, state, extra string) string {
		return fmt.Sprintf(`{"ph":"X","pid":1,"tid":%s,"ts":%s,"dur":%s,"name":"t","cat":"task","args":{"task":%d,"seq":%[4]d,"state":%q%s}}`,
			tid, ts, dur, id, state, extra)
	}
	wait := func(id int, ts, dur, state string) string {
		return fmt.Sprintf(`{"ph":"X","pid":2,"tid":0,"ts":%s,"dur":%s,"name":"t","cat":"wait","args":{"task":%d,"seq":%[3]d,"state":%q}}`,
			ts, dur, id, state)
	}
	tests := []struct {
		name, in, want string
	}{
		{"empty", ``, "trace: unexpected end of input"},
		{"not JSON", `hello`, "trace: not valid JSON at byte 1"},
		{"null", `null`, "trace: not a trace: want a JSON object or array"},
		{"number", `42`, "trace: not a trace"},
		{"string", `"traceEvents"`, "trace: not a trace"},
		{"object without events", `{"a":1}`, "trace: not a trace: no traceEvents"},
		{"events not an array", `{"traceEvents":{}}`, "trace: traceEvents: want an array"},
		{"truncated object", `{"traceEvents":[{"ph":"X","ts":1}`, "trace: unexpected end of input"},
		{"truncated string", `{"traceEvents":[{"ph":"X`, "trace: event 0: unexpected end of input"},
		{"trailing data", `{"traceEvents":[]} {}`, "trace: unexpected data after the trace"},
		{"event not an object", `[1]`, "trace: event 0: want an object, got number"},
		{"missing ph", `[{"ts":1}]`, "trace: event 0: missing ph"},
		{"ph not a string", `[{"ph":5}]`, "trace: event 0: ph: want a string, got number"},
		{"missing ts", `[{"ph":"X"},{"ph":"B"}]`, "trace: event 0: missing ts"},
		{"null ts", `[{"ph":"C","ts":null}]`, "trace: event 0: missing ts"},
		{"ts a string", `[{"ph":"M"},{"ph":"X","ts":"1"}]`, `trace: event 1: ts: want a number, got "1"`},
		{"ts an object", `[{"ph":"i","ts":{}}]`, "trace: event 0: ts: want a number, got {}"},
		{"negative dur", `[{"ph":"X","ts":1,"dur":-0.001}]`, "trace: event 0: negative dur -0.001"},
		{"NaN dur", `[{"ph":"X","ts":1,"dur":NaN}]`, "trace: event 0: not valid JSON"},
		{"huge ts", `[{"ph":"X","ts":1e999}]`, "trace: event 0: ts: 1e999 out of range"},
		{"long ts", `[{"ph":"X","ts":123456789012345678901234567890}]`, "out of range"},
		{"ts past int64", `[{"ph":"X","ts":9223372036854775.808}]`, "trace: event 0: ts: 9223372036854775.808 out of range"},
		{"ts past 2116", `[{"ph":"X","ts":4611686018427388}]`, "trace: event 0: time out of range"},
		{"ts before 1823", `[{"ph":"B","ts":-4611686018427388}]`, "trace: event 0: time out of range"},
		{"dur past 2116", `[{"ph":"X","ts":0,"dur":4.7e15}]`, "trace: event 0: time out of range"},
		{"dur past int64", `[{"ph":"X","ts":0,"dur":1e16}]`, "trace: event 0: dur: 1e16 out of range"},
		{"pid a fraction", `[{"ph":"X","ts":1,"pid":1.5}]`, "trace: event 0: pid: want an integer or a string, got 1.5"},
		{"tid an object", `[{"ph":"X","ts":1,"tid":{}}]`, "trace: event 0: tid: want an integer or a string, got {}"},
		{"deep nesting", `[` + strings.Repeat(`[`, 20000), "trace: event 0: not valid JSON"},
		{"version", own(``, `{"version":2}`), "trace: metadata: unsupported sluice trace version 2"},
		{"version a string", own(``, `{"version":"1"}`), "trace: metadata: version: want an integer in range, got string"},
		{"metadata not an object", own(``, `5`), "trace: metadata: want an object, got number"},
		{"origin", own(``, `{"version":1,"origin":9223372036854775807}`), "trace: metadata: origin out of range"},
		{"end", own(``, `{"version":1,"origin":4611686018427387000,"end":1000}`), "trace: metadata: end: time out of range"},
		{"end overflows", own(``, `{"version":1,"origin":4611686018427387000,"end":9223372036854775807}`), "trace: metadata: end: time out of range"},
		{"log time", own(``, `{"version":1,"log":[{"kind":1,"t":-9223372036854775808}]}`), "trace: metadata: log 0: time out of range"},
		{"log kind", own(``, `{"version":1,"log":[{"kind":256,"t":0}]}`), "trace: metadata: log.kind: want a non-negative integer in range, got number 256"},
		{"negative wait", own(``, `{"version":1,"waits":[{"priority":1,"waits":[5,-1]}]}`), "trace: metadata: wait -1 out of range"},
		{"throughput", own(``, `{"version":1,"throughput":[[1,-1]]}`), "trace: metadata: throughput [1 -1] out of range"},
		{"span without task", own(`{"ph":"X","ts":1,"cat":"task","args":{"state":"running"}}`, ``), "trace: event 0: args: missing task"},
		{"span with task 0", own(run(0, "0", "1", "1", "running", ""), ``), "trace: event 0: args: missing task"},
		{"span without args", own(`{"ph":"X","ts":1,"cat":"wait"}`, ``), "trace: event 0: missing args"},
		{"span args not an object", own(`{"ph":"X","ts":1,"cat":"wait","args":[]}`, ``), "trace: event 0: args: want an object, got array"},
		{"task a string", own(`{"ph":"X","ts":1,"cat":"task","args":{"task":"1"}}`, ``), "trace: event 0: args: task: want a non-negative integer in range, got string"},
		{"negative task", own(`{"ph":"X","ts":1,"cat":"task","args":{"task":-1}}`, ``), "trace: event 0: args: task: want a non-negative integer in range, got number -1"},
		{"priority too big", own(run(1, "0", "1", "1", "running", `,"priority":1e30`), ``), "trace: event 0: args: priority: want an integer in range"},
		{"missing seq", own(`{"ph":"X","ts":1,"cat":"task","args":{"task":1,"state":"running"}}`, ``), "trace: event 0: args: missing seq"},
		{"missing state", own(`{"ph":"X","ts":1,"cat":"task","args":{"task":1,"seq":1}}`, ``), "trace: event 0: args: missing state"},
		{"seq of two tasks", own(run(1, "0", "1", "1", "succeeded", "")+","+strings.Replace(wait(2, "0", "1", "succeeded"), `"seq":2`, `"seq":1`, 1), ``), "trace: event 1: seq 1 is task 1 and task 2"},
		{"unknown state", own(run(1, "0", "1", "1", "dancing", ""), ``), `trace: event 0: args: unknown state "dancing"`},
		{"runs twice", own(run(1, "0", "1", "1", "succeeded", "")+","+run(1, "0", "5", "1", "succeeded", ""), ``), "trace: event 1: task 1 runs twice"},
		{"waits twice", own(wait(1, "1", "1", "canceled")+","+wait(1, "1", "1", "canceled"), ``), "trace: event 1: task 1 waits twice"},
		{"run on a named thread", own(run(1, `"main"`, "1", "1", "running", ""), ``), "trace: event 0: tid: want a lane number"},
		{"run on a negative lane", own(run(1, "-2", "1", "1", "running", ""), ``), "trace: event 0: tid: want a lane number"},
		{"run on a huge lane", own(run(1, "9007199254740992", "1", "1", "running", ""), ``), "trace: event 0: tid: want a lane number"},
		{"span time out of range", own(run(1, "0", "1", "1", "running", ""), `{"version":1,"origin":4611686018427387000}`), "trace: event 0: ts: time out of range"},
		{"pending but ran", own(run(1, "0", "1", "1", "pending", ""), ``), "trace: task 1: pending, but it ran"},
		{"succeeded but never ran", own(wait(1, "1", "1", "succeeded"), ``), "trace: task 1: succeeded, but it never ran"},
		{"waits after it starts", own(run(1, "0", "1", "1", "succeeded", "")+","+wait(1, "2", "1", "succeeded"), ``), "trace: task 1: waits after it starts"},
		{"thread name args", own(`{"ph":"M","pid":1,"tid":3,"name":"thread_name","args":{"name":7}}`, ``), "trace: event 0: args: name: want a string, got number"},
		{"lane evicted first", own(`{"ph":"i","pid":1,"tid":3,"ts":5,"name":"lane created"},{"ph":"i","pid":1,"tid":3,"ts":4,"name":"lane evicted"}`, ``), "trace: lane 3: evicted before it was created"},
		{"counter without value", own(`{"ph":"C","pid":1,"ts":1,"name":"running","args":{}}`, ``), "trace: event 0: args: missing value"},
		{"counter without args", own(`{"ph":"C","pid":1,"ts":1,"name":"running"}`, ``), "trace: event 0: missing args"},
		{"thread name without args", own(`{"ph":"M","pid":1,"tid":0,"name":"thread_name"}`, ``), "trace: event 0: missing args"},
		{"dur overflows", own(run(1, "0", "-1", "9223372036854775", "running", ""), ``), "trace: event 0: dur: time out of range"},
		{"counter value a string", own(`{"ph":"C","pid":1,"ts":1,"name":"running","args":{"value":"3"}}`, ``), "trace: event 0: args: value: want an integer in range, got string"},
		{"counter value a fraction", own(`{"ph":"C","pid":1,"ts":1,"name":"limit","args":{"value":2.5}}`, ``), "trace: event 0: args: value: want an integer in range, got number 2.5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, err := trace.ReadJSON(strings.NewReader(tt.in))
			if err == nil {
				t.Fatalf("ReadJSON(%.60q) = %v, nil; want an error containing %q", tt.in, rec, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "trace: ") {
				t.Errorf("ReadJSON(%.60q) error = %q, want it to contain %q", tt.in, err, tt.want)
			}
		})
	}
}

// repeatReader yields head, then body forever.
type repeatReader struct {
	head, body []byte
	off        int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(r.head) > 0 {
			c := copy(p[n:], r.head)
			r.head = r.head[c:]
			n += c
			continue
		}
		c := copy(p[n:], r.body[r.off:])
		r.off = (r.off + c) % len(r.body)
		n += c
	}
	return n, nil
}

func TestReadJSONLimits(t *testing.T) {
	t.Run("size", func(t *testing.T) {
		if raceEnabled {
			t.Skip("reads 128 MiB, minutes under the race detector, in one goroutine: the run without it (make test's GOOS=js step) reads them")
		}
		body := []byte(`{"ph":"Z","pad":"` + strings.Repeat("x", 4000) + `"},`)
		_, err := trace.ReadJSON(&repeatReader{head: []byte("["), body: body})
		if want := fmt.Sprintf("trace: input larger than %d bytes", trace.MaxJSONSize); err == nil || err.Error() != want {
			t.Errorf("ReadJSON(endless input) = %v, want %q", err, want)
		}
	})
	t.Run("announced size", func(t *testing.T) {
		// A reader that tells its length is refused unread.
		_, err := trace.ReadJSON(&sizedReader{Reader: strings.NewReader("[]"), n: trace.MaxJSONSize + 1})
		if want := fmt.Sprintf("trace: input larger than %d bytes", trace.MaxJSONSize); err == nil || err.Error() != want {
			t.Errorf("ReadJSON(a reader of %d bytes) = %v, want %q", trace.MaxJSONSize+1, err, want)
		}
	})
	t.Run("events", func(t *testing.T) {
		if testing.Short() {
			t.Skip("reads a million events")
		}
		if raceEnabled {
			t.Skip("reads a million events, minutes under the race detector, in one goroutine: the run without it (make test's GOOS=js step) reads them")
		}
		_, err := trace.ReadJSON(&repeatReader{head: []byte("["), body: []byte(`{"ph":"Z"},`)})
		if want := fmt.Sprintf("trace: more than %d events", trace.MaxJSONEvents); err == nil || err.Error() != want {
			t.Errorf("ReadJSON(endless events) = %v, want %q", err, want)
		}
	})
	t.Run("reader error", func(t *testing.T) {
		want := errors.New("connection reset")
		_, err := trace.ReadJSON(io.MultiReader(strings.NewReader(`{"traceEvents":[`), errReader{want}))
		if !errors.Is(err, want) && (err == nil || !strings.Contains(err.Error(), want.Error())) {
			t.Errorf("ReadJSON(failing reader) = %v, want it to report %v", err, want)
		}
	})
}

// sizedReader reads Reader, and tells n as the length left to read.
type sizedReader struct {
	io.Reader
	n int
}

func (r *sizedReader) Len() int { return r.n }

// A reader that tells the length left to read is read whole, even when it
// tells too little or too much.
func TestReadJSONSizedReader(t *testing.T) {
	rec := feed(trace.Config{}, simulate(simKeyed, 3, 200, 3))
	data := writeJSON(t, rec)
	want := rec.Snapshot(time.Time{})
	for _, n := range []int{0, 1, len(data) / 2, len(data) - 1, len(data), len(data) + 1, 2 * len(data), -1} {
		got, err := trace.ReadJSON(&sizedReader{Reader: io.MultiReader(bytes.NewReader(data[:len(data)/3]), bytes.NewReader(data[len(data)/3:])), n: n})
		if err != nil {
			t.Errorf("Len %d: ReadJSON = %v", n, err)
			continue
		}
		if snap := got.Snapshot(time.Time{}); !reflect.DeepEqual(snap, want) {
			t.Errorf("Len %d: the model read differs:\n%s", n, snapshotDiff(snap, want))
		}
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }
