package gotrace_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"regexp"
	rtrace "runtime/trace"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"sluice/core"
	"sluice/core/trace"
	"sluice/wasm/gotrace"
)

func TestMain(m *testing.M) {
	// Under GOOS=js the runtime parks a goroutine in runtime.handleEvent
	// while JavaScript calls into Go; it belongs to the runtime.
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("runtime.handleEvent"))
}

// record runs a small service's work while tracing and returns the trace.
func record(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := rtrace.Start(&buf); err != nil {
		t.Fatal(err)
	}
	ctx, other := rtrace.NewTask(context.Background(), "http.request")
	q := core.NewWorkQueue(1)
	hold := make(chan struct{})
	first, _ := q.Submit(ctx, func(context.Context) error { <-hold; return nil }, core.WithName("first"))
	second, _ := q.Submit(ctx, func(context.Context) error { return errors.New("no") }, core.WithPriority(core.High))
	time.Sleep(20 * time.Millisecond) // the second task's wait, which the timeline must show
	close(hold)
	first.Wait(ctx)
	second.Wait(ctx)
	q.Close()
	k := core.NewKeyedQueue[string]()
	for _, key := range []string{"alice", "bob", "alice"} {
		k.Do(ctx, key, func(context.Context) error { return nil })
	}
	k.Close()
	s := core.NewSemaphore(3)
	s.Do(ctx, 2, func(context.Context) error { return nil })
	other.End()
	rtrace.Stop()
	return buf.Bytes()
}

func TestConvert(t *testing.T) {
	data := record(t)
	res, err := gotrace.Convert(bytes.NewReader(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Tasks != 6 {
		t.Errorf("%d tasks, want 6 (2 WorkQueue, 3 KeyedQueue, 1 Semaphore)", res.Tasks)
	}
	rec, err := trace.ReadJSON(bytes.NewReader(res.JSON))
	if err != nil {
		t.Fatalf("the JSON does not read back: %v", err)
	}
	snap := rec.Snapshot(time.Time{})
	var lanes []string
	for _, l := range snap.Lanes {
		lanes = append(lanes, l.Name)
	}
	for _, want := range []string{"· slot 1", "· alice", "· bob", "· holder 1"} {
		if !slices.ContainsFunc(lanes, func(s string) bool { return strings.HasSuffix(s, want) }) {
			t.Errorf("lanes %q: none ends in %q", lanes, want)
		}
	}
	if st := snap.Stats; st.Succeeded != 5 || st.Failed != 1 {
		t.Errorf("stats %+v: want 5 succeeded, 1 failed", st)
	}
	var waited time.Duration
	for _, task := range snap.Tasks {
		if task.Priority == core.High {
			waited = task.Started.Sub(task.Enqueued)
			if task.State != core.TaskFailed {
				t.Errorf("the high-priority task ended %v, want failed", task.State)
			}
		}
	}
	// Held for record's 20 ms sleep, as the browser's timer and clock
	// measure it (the first task's run took 17.4 ms of it in one GOOS=js
	// run): half the sleep is the bound.
	if waited < 10*time.Millisecond {
		t.Errorf("the second task waited %v on the timeline, want at least 10 of the 20 ms it was held", waited)
	}
	// Instances are numbered per process, in the order of their first
	// traced task: other tests' queues come first.
	for _, want := range []string{`WorkQueue \d+ ×2`, `KeyedQueue \d+ ×3`, `Semaphore \d+ ×1`} {
		if !regexp.MustCompile(want).MatchString(res.Summary) {
			t.Errorf("summary %q does not mention %q", res.Summary, want)
		}
	}
	for _, want := range []string{"goroutines", "proc", "http.request ×1"} {
		if !strings.Contains(res.Omitted, want) {
			t.Errorf("omitted %q does not mention %q", res.Omitted, want)
		}
	}
}

func TestConvertErrors(t *testing.T) {
	data := record(t)
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"cut short", data[:len(data)*2/3], "cut short"},
		{"not a trace", []byte("go 1.26 tracx\x00\x00\x00 nothing"), "not a Go execution trace"},
		{"another version", []byte("go 1.99 trace\x00\x00\x00"), "Go version"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := gotrace.Convert(bytes.NewReader(c.data), nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Convert: %v, want an error saying %q", err, c.want)
			}
		})
	}
	if !gotrace.IsGoTrace(data) || gotrace.IsGoTrace([]byte(`{"traceEvents":[]}`)) {
		t.Error("IsGoTrace: wrong on a trace or on JSON")
	}
}

// TestConvertFile converts the trace in $SLUICE_GOTRACE, if set: a check
// by hand on a real service's snapshot.
func TestConvertFile(t *testing.T) {
	path := os.Getenv("SLUICE_GOTRACE")
	if path == "" {
		t.Skip("SLUICE_GOTRACE not set")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := gotrace.Convert(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d tasks, %d events; %s Not shown: %s", res.Tasks, res.Events, res.Summary, res.Omitted)
}

// TestConvertLanes checks the goroutine and proc lanes: a lane for each
// goroutine that ran a sluice task and for each proc; each task's run
// drawn on its goroutine's lane, within its run, for no longer than it
// ran (a task blocked on a channel for 20 ms ran on a proc for far less);
// every piece on a proc's lane, and none on a goroutine's lane outside
// what that goroutine ran.
func TestConvertLanes(t *testing.T) {
	res, err := gotrace.Convert(bytes.NewReader(record(t)), nil)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := trace.ReadJSON(bytes.NewReader(res.JSON))
	if err != nil {
		t.Fatal(err)
	}
	snap := rec.Snapshot(time.Time{})
	l := res.Lanes
	procs := 0
	for _, n := range l.Names {
		switch {
		case strings.HasPrefix(n, "proc "):
			procs++
		case !strings.HasPrefix(n, "goroutine "):
			t.Errorf("lane %q: want a goroutine's or a proc's", n)
		}
	}
	if procs == 0 || procs == len(l.Names) {
		t.Fatalf("lanes %q: want goroutines' and procs'", l.Names)
	}
	onCPU := map[uint64]time.Duration{} // by task, on goroutine lanes
	onProcs := map[uint64]time.Duration{}
	for i, r := range l.Runs {
		if i > 0 && r.Start < l.Runs[i-1].Start {
			t.Fatalf("run %d starts before the one before it", i)
		}
		if r.Task == 0 {
			continue
		}
		if strings.HasPrefix(l.Names[r.Lane], "proc ") {
			onProcs[r.Task] += time.Duration(r.End - r.Start)
			if l.Names[r.Lane] != "proc "+strconv.FormatInt(r.P, 10) {
				t.Errorf("run %+v on lane %q", r, l.Names[r.Lane])
			}
		} else {
			onCPU[r.Task] += time.Duration(r.End - r.Start)
			if l.Names[r.Lane] != "goroutine "+strconv.FormatUint(r.G, 10) {
				t.Errorf("run %+v on lane %q", r, l.Names[r.Lane])
			}
		}
	}
	// A task that returns at once may begin and end at one tick of the
	// trace's clock (64 CPU cycles on amd64), and have no run drawn.
	drawn := 0
	for _, x := range snap.Tasks {
		ran := x.Ended.Sub(x.Started)
		got := onCPU[x.ID]
		if got > 0 {
			drawn++
		}
		if got > ran || onProcs[x.ID] != got {
			t.Errorf("task %d (%s): %v on its goroutine's lane, %v on procs' lanes; it ran %v", x.ID, snap.Text(x.Name), got, onProcs[x.ID], ran)
		}
		// The first task blocks while record sleeps 20 ms: its run is
		// long, and mostly off the proc. The browser's timer and clock
		// decide how long (17.4 ms in one GOOS=js run): half the sleep is
		// the bound.
		if snap.Text(x.Name) == "first" && (ran < 10*time.Millisecond || got <= 0 || got > ran/2) {
			t.Errorf("the first task ran %v, of which %v on a proc; want a run of over 10 ms, mostly blocked", ran, got)
		}
	}
	if drawn == 0 {
		t.Error("no task's run is drawn on its goroutine's lane")
	}
	if !strings.Contains(res.Summary, "goroutines that ran them") && !strings.Contains(res.Summary, "goroutine that ran them") {
		t.Errorf("summary %q does not say the goroutines are drawn", res.Summary)
	}
}
