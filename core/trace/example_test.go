package trace_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"sluice/core"
	"sluice/core/trace"
)

// A Recorder observes a primitive and is snapshotted, here at 60ms. In a
// service, the events come from the primitive itself:
//
//	rec := trace.NewRecorder(trace.Config{})
//	q := core.NewWorkQueue(2, core.WithObserver(rec.Observe))
//
// This example feeds by hand the events of a two-slot queue running three
// tasks, then writes the trace JSON and reads it back.
func ExampleRecorder() {
	start := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return start.Add(time.Duration(n) * time.Millisecond) }
	rec := trace.NewRecorder(trace.Config{})
	for _, e := range []core.Event{
		{Kind: core.Resized, Time: ms(0), Weight: 2},
		{Kind: core.Enqueued, Time: ms(0), Task: 1, Name: "resize", Weight: 1},
		{Kind: core.Started, Time: ms(0), Task: 1, Weight: 1, Lane: 0},
		{Kind: core.Enqueued, Time: ms(1), Task: 2, Name: "upload", Weight: 1},
		{Kind: core.Started, Time: ms(1), Task: 2, Weight: 1, Lane: 1},
		{Kind: core.Enqueued, Time: ms(2), Task: 3, Name: "notify", Priority: core.High, Weight: 1},
		{Kind: core.Waiting, Time: ms(2), Task: 3, Priority: core.High, Weight: 1},
		{Kind: core.Finished, Time: ms(40), Task: 1},
		{Kind: core.Started, Time: ms(40), Task: 3, Priority: core.High, Weight: 1, Lane: 0},
		{Kind: core.Failed, Time: ms(55), Task: 2, Err: errors.New("timeout")},
	} {
		rec.Observe(e)
	}

	now := ms(60)
	s := rec.Snapshot(now)
	for _, t := range s.Tasks {
		end := t.Ended
		if t.Open() {
			end = trace.StampOf(now)
		}
		fmt.Printf("%-6s on %s: waited %v, ran %v, %v\n",
			s.Text(t.Name), s.Lanes[t.Lane].Name, t.Started.Sub(t.Enqueued), end.Sub(t.Started), strings.TrimSpace(t.State.String()+" "+s.Text(t.Err)))
	}
	st := s.Stats
	fmt.Printf("running %d of %d, succeeded %d, failed %d, max running %d\n",
		st.Running, st.Limit, st.Succeeded, st.Failed, st.MaxRunning)
	for _, w := range st.Waits {
		fmt.Printf("%v priority waits: p50 %v, p95 %v\n", w.Priority, w.P50, w.P95)
	}

	var buf bytes.Buffer
	if err := rec.WriteJSON(&buf); err != nil {
		fmt.Println(err)
	}
	back, err := trace.ReadJSON(&buf)
	if err != nil {
		fmt.Println(err)
	}
	fmt.Println("tasks read back:", len(back.Snapshot(now).Tasks))
	// Output:
	// resize on slot 1: waited 0s, ran 40ms, succeeded
	// upload on slot 2: waited 0s, ran 54ms, failed timeout
	// notify on slot 1: waited 38ms, ran 20ms, running
	// running 1 of 2, succeeded 1, failed 1, max running 2
	// high priority waits: p50 38ms, p95 38ms
	// normal priority waits: p50 0s, p95 0s
	// tasks read back: 3
}

// ReadJSON also reads traces written by other tools: complete events and
// begin/end pairs become tasks on the lanes of their threads.
func ExampleReadJSON() {
	const other = `[
		{"ph":"M","pid":1,"tid":7,"name":"thread_name","args":{"name":"worker"}},
		{"ph":"X","pid":1,"tid":7,"ts":0,"dur":1500,"name":"decode"},
		{"ph":"B","pid":1,"tid":8,"ts":500,"name":"fetch"},
		{"ph":"E","pid":1,"tid":8,"ts":2500}
	]`
	rec, err := trace.ReadJSON(strings.NewReader(other))
	if err != nil {
		fmt.Println(err)
		return
	}
	s := rec.Snapshot(time.Time{})
	for _, t := range s.Tasks {
		fmt.Printf("%s on %s: %v\n", s.Text(t.Name), s.Lanes[t.Lane].Name, t.Ended.Sub(t.Started))
	}
	_, err = trace.ReadJSON(strings.NewReader(`{"traceEvents":[{"ph":"X","ts":"soon"}]}`))
	fmt.Println(err)
	// Output:
	// decode on worker: 1.5ms
	// fetch on thread 8: 2ms
	// trace: event 0: ts: want a number, got "soon"
}
