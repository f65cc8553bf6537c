package trace_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"sluice/core/trace"
)

// foreignTrace writes a trace of n complete events on lanes threads, the
// first at ts first (microseconds), as another tool would.
func foreignTrace(n, lanes int, first int64) []byte {
	var b bytes.Buffer
	b.WriteString(`{"traceEvents":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		lane := i % lanes
		fmt.Fprintf(&b, `{"name":"job-%d","ph":"X","ts":%d,"dur":40,"pid":1,"tid":%d}`, i, first+int64(i/lanes)*50+int64(lane), lane+1)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

func TestReadJSONKeepsLargeForeignTraces(t *testing.T) {
	const n = 30_000
	first := int64(5_000_000) // 5 s after the trace's own zero
	rec, err := trace.ReadJSON(bytes.NewReader(foreignTrace(n, 4, first)))
	if err != nil {
		t.Fatal(err)
	}
	snap := rec.Snapshot(time.Time{})
	if got := len(snap.Tasks); got != n {
		t.Errorf("tasks kept = %d, want all %d", got, n)
	}
	if got := snap.Stats.Submitted; got != n {
		t.Errorf("Submitted = %d, want %d", got, n)
	}
	origin, ok := rec.Origin()
	if !ok || !origin.Equal(time.Unix(0, 0)) {
		t.Errorf("Origin() = %v, %v; want ts 0 of the file, the Unix epoch", origin, ok)
	}
	earliest := snap.Tasks[0].Started
	for i := range snap.Tasks {
		if s := snap.Tasks[i].Started; s.Before(earliest) {
			earliest = s
		}
	}
	if got, want := earliest.Time().Sub(origin), 5*time.Second; got != want {
		t.Errorf("first task starts %v after the origin, want %v: the trace's own times", got, want)
	}
	if live, ok := trace.NewRecorder(trace.Config{}).Origin(); ok {
		t.Errorf("a new Recorder's Origin() = %v, true; want false", live)
	}
}
