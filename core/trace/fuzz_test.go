package trace_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"sluice/core/trace"
)

// FuzzReadJSON checks that ReadJSON never panics, that its errors say
// "trace:", and that whatever it accepts round-trips: writing the model,
// reading that and writing again gives the same bytes and an equal model.
func FuzzReadJSON(f *testing.F) {
	// Small seeds: the fuzzer minimizes what it finds in time
	// proportional to the input's size.
	for i, kind := range []simKind{simQueue, simKeyed, simSemaphore} {
		evs := simulate(kind, uint64(i), 4, 2)
		f.Add(writeJSON(f, feed(trace.Config{MaxLog: 3}, evs)))
		f.Add(writeJSON(f, feed(trace.Config{MaxFinished: 2, MaxSamples: 3, MaxLog: 1}, evs[:len(evs)*2/3])))
	}
	for _, s := range []string{
		`[{"ph":"X","pid":1,"tid":1,"ts":0,"dur":10,"name":"a"},{"ph":"B","pid":1,"tid":"t","ts":2.5,"name":"b"},{"ph":"E","pid":1,"tid":"t","ts":4}`,
		`{"traceEvents":[{"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"main"}},{"ph":"X","pid":1,"tid":1,"ts":1e3,"dur":0.0005,"name":"x"}],"displayTimeUnit":"ns"}`,
		`{"traceEvents":[{"ph":"X","ts":1,"dur":-1}]}`,
		`{"traceEvents":[],"metadata":{"sluice":{"version":1,"end":5,"log":[{"kind":3,"t":1}]}}}`,
		`{"traceEvents":[{"ph":"X","pid":1,"tid":0,"ts":1,"dur":2,"cat":"task","name":"t","args":{"task":1,"seq":1,"state":"failed","error":"e"}},{"ph":"X","pid":2,"tid":0,"ts":0,"dur":1,"cat":"wait","name":"t","args":{"task":1,"seq":1,"state":"failed"}}],"metadata":{"sluice":{"version":1}}}`,
		`[1, "a", null, {}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := trace.ReadJSON(bytes.NewReader(data))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "trace: ") {
				t.Fatalf("ReadJSON error %q lacks the trace: prefix", err)
			}
			return
		}
		b1 := writeJSON(t, rec)
		back, err := trace.ReadJSON(bytes.NewReader(b1))
		if err != nil {
			t.Fatalf("ReadJSON(WriteJSON(ReadJSON(input))) = %v\n%s", err, b1)
		}
		if b2 := writeJSON(t, back); !bytes.Equal(b1, b2) {
			t.Fatalf("write -> read -> write differs at %s", firstDiff(b1, b2))
		}
		if got, want := back.Snapshot(time.Time{}), rec.Snapshot(time.Time{}); !reflect.DeepEqual(got, want) {
			t.Fatalf("model read back differs:\n%s", snapshotDiff(got, want))
		}
	})
}
