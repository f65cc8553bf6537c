package trace_test

import (
	"bytes"
	"io"
	"runtime"
	"testing"
	"time"

	"sluice/core"
	"sluice/core/trace"
)

// liveRecorder returns a Recorder holding 10,000 finished tasks and 1,000
// live ones (200 running on 200 slots, 800 waiting), and the time of its
// latest event.
func liveRecorder() (*trace.Recorder, time.Time) {
	rec := trace.NewRecorder(trace.Config{})
	const slots = 200
	id := uint64(0)
	ts := t0
	for i := range 10_000 {
		id++
		ts = ts.Add(100 * time.Microsecond)
		p := core.Priority(i%3 - 1)
		rec.Observe(core.Event{Kind: core.Enqueued, Time: ts, Task: id, Priority: p, Weight: 1})
		rec.Observe(core.Event{Kind: core.Started, Time: ts, Task: id, Priority: p, Weight: 1, Lane: i % slots})
		rec.Observe(core.Event{Kind: core.Finished, Time: ts.Add(time.Millisecond), Task: id})
	}
	ts = ts.Add(time.Millisecond)
	for i := range 1000 {
		id++
		p := core.Priority(i%3 - 1)
		rec.Observe(core.Event{Kind: core.Enqueued, Time: ts, Task: id, Priority: p, Weight: 1})
		if i < slots {
			rec.Observe(core.Event{Kind: core.Started, Time: ts, Task: id, Priority: p, Weight: 1, Lane: i})
		}
	}
	return rec, ts
}

// BenchmarkSnapshot measures a snapshot of a Recorder with 1,000 live
// tasks and 10,000 finished ones: of everything; of a 100ms window, which
// holds the live tasks and 1,000 finished ones; of that window into a
// reused Snapshot; and a whole animation frame (ten events, then a reused
// window snapshot).
func BenchmarkSnapshot(b *testing.B) {
	rec, now := liveRecorder()
	const window = 100 * time.Millisecond
	from := now.Add(-window)
	b.Run("all", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			rec.Snapshot(now)
		}
	})
	b.Run("window", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			rec.SnapshotWindow(nil, now, from, now)
		}
	})
	b.Run("window-reuse", func(b *testing.B) {
		b.ReportAllocs()
		dst := rec.SnapshotWindow(nil, now, from, now)
		for b.Loop() {
			dst = rec.SnapshotWindow(dst, now, from, now)
		}
	})
	b.Run("frame", func(b *testing.B) {
		b.ReportAllocs()
		rec, now := liveRecorder()
		dst := rec.SnapshotWindow(nil, now, from, now)
		id := uint64(1 << 32)
		for b.Loop() {
			for range 5 { // a task ends, another starts
				id++
				now = now.Add(time.Microsecond)
				rec.Observe(core.Event{Kind: core.Started, Time: now, Task: id, Weight: 1, Lane: 1})
				rec.Observe(core.Event{Kind: core.Finished, Time: now, Task: id})
			}
			dst = rec.SnapshotWindow(dst, now, now.Add(-window), now)
		}
	})
}

// BenchmarkObserve measures recording one task's life (enqueued, started,
// finished) once the finished ring is full.
func BenchmarkObserve(b *testing.B) {
	rec, now := liveRecorder()
	b.ReportAllocs()
	id := uint64(1 << 32)
	for b.Loop() {
		id++
		now = now.Add(time.Microsecond)
		rec.Observe(core.Event{Kind: core.Enqueued, Time: now, Task: id, Weight: 1})
		rec.Observe(core.Event{Kind: core.Started, Time: now, Task: id, Weight: 1, Lane: 300})
		rec.Observe(core.Event{Kind: core.Finished, Time: now, Task: id})
	}
}

// BenchmarkWriteJSON measures writing a Recorder of 11,000 tasks.
func BenchmarkWriteJSON(b *testing.B) {
	rec, _ := liveRecorder()
	b.ReportAllocs()
	for b.Loop() {
		if err := rec.WriteJSON(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// ownTrace returns a trace of n tasks as WriteJSON writes it: a queue of 64
// slots whose tasks wait, run, fail with quoted errors, are canceled and
// carry names and priorities (simulate).
func ownTrace(b *testing.B, n int) []byte {
	b.Helper()
	rec := feed(trace.Config{MaxFinished: n, MaxOpen: n}, simulate(simQueue, 1, n, 64))
	var buf bytes.Buffer
	if err := rec.WriteJSON(&buf); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkReadJSON measures reading a trace of 200,000 tasks written by
// WriteJSON, and a foreign trace of as many complete events.
func BenchmarkReadJSON(b *testing.B) {
	const n = 200_000
	for _, in := range []struct {
		name string
		data func() []byte
	}{
		{"own-200k", func() []byte { return ownTrace(b, n) }},
		{"foreign-200k", func() []byte { return foreignTrace(n, 8, 5_000_000) }},
	} {
		b.Run(in.name, func(b *testing.B) {
			data := in.data()
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				rec, err := trace.ReadJSON(bytes.NewReader(data))
				if err != nil {
					b.Fatal(err)
				}
				if got := len(rec.Snapshot(time.Time{}).Tasks); got != n {
					b.Fatalf("read %d tasks, want %d", got, n)
				}
			}
		})
	}
}

// BenchmarkCollect measures a collection of the garbage collector with
// nothing of the trace's live, and while a snapshot of the 200,000 tasks
// of a trace written by WriteJSON is: the collector's cost of keeping a
// large trace in view (in WebAssembly it marks in one go, on the page's
// thread). Each op is one runtime.GC.
func BenchmarkCollect(b *testing.B) {
	data := ownTrace(b, 200_000)
	b.Run("empty", func(b *testing.B) {
		runtime.GC()
		for b.Loop() {
			runtime.GC()
		}
	})
	b.Run("snapshot-200k", func(b *testing.B) {
		rec, err := trace.ReadJSON(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		snap := rec.Snapshot(time.Time{})
		rec = nil
		runtime.GC()
		for b.Loop() {
			runtime.GC()
		}
		runtime.KeepAlive(snap)
	})
}
