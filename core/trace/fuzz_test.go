package trace_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"sluice/core/trace"
)

// maxSeed bounds the size of FuzzReadJSON's seeds. The fuzzer minimizes
// every input that finds new coverage before it goes on, trying a number
// of candidates quadratic in the input's size, each a whole run of the
// target; what it finds is about as large as the seed it mutated. Seeds of
// a few kilobytes (a trace of four tasks as WriteJSON writes it) held the
// worker in minimization for up to the minute -fuzzminimizetime allows,
// with no executions counted, and ended brief runs with "context deadline
// exceeded".
const maxSeed = 640

// fuzzSeeds are FuzzReadJSON's seeds: sluice's own format with slot and
// key lanes, waits, counters, the log and the metadata block, and other
// tools' traces, each at most maxSeed bytes.
var fuzzSeeds = []string{
	// A queue: a task that waited and failed, one running; a counter,
	// waits, throughput and the log.
	`{"traceEvents":[{"ph":"X","ts":1,"dur":2,"pid":2,"tid":0,"cat":"wait","args":{"task":1,"seq":1,"state":"failed"}},` +
		`{"ph":"X","ts":3,"dur":4.5,"pid":1,"tid":0,"cat":"task","args":{"task":1,"seq":1,"priority":1,"weight":2,"state":"failed"}},` +
		`{"ph":"X","ts":4,"dur":0,"pid":1,"tid":0,"cat":"task","args":{"task":2,"seq":2,"state":"running"}},` +
		`{"ph":"C","ts":3,"pid":1,"tid":0,"name":"running","args":{"value":1}}],` +
		`"metadata":{"sluice":{"version":1,"origin":7,"end":9,"config":{"maxFinished":2,"maxLog":1},"totals":{"submitted":2,"failed":1},` +
		`"waits":[{"priority":1,"waits":[2000]}],"throughput":[[0,1]],"log":[{"kind":2,"t":3,"task":1}]}}}`,
	// A key's lane, created and evicted, and a task canceled while it
	// waited.
	`{"traceEvents":[{"ph":"M","pid":1,"tid":3,"name":"thread_name","args":{"key":"k"}},` +
		`{"ph":"i","ts":0,"pid":1,"tid":3,"name":"lane created","s":"t"},` +
		`{"ph":"X","ts":1,"dur":1,"pid":1,"tid":3,"cat":"task","args":{"task":1,"seq":1,"key":"k","state":"succeeded"}},` +
		`{"ph":"i","ts":5,"pid":1,"tid":3,"name":"lane evicted","s":"t"},` +
		`{"ph":"X","ts":2,"dur":3,"pid":2,"tid":0,"cat":"wait","args":{"task":2,"seq":2,"state":"canceled"}},` +
		`{"ph":"C","ts":1,"pid":1,"tid":0,"name":"in use","args":{"value":3}}],` +
		`"metadata":{"sluice":{"version":1,"end":6,"config":{"maxSamples":3,"maxLanes":2}}}}`,
	// A holder of two tokens, on two tracks; a key whose lane was made
	// again, on one track.
	`{"traceEvents":[{"ph":"X","ts":1,"dur":2,"pid":1,"tid":0,"cat":"task","args":{"task":1,"seq":1,"weight":2,"state":"running"}},` +
		`{"ph":"X","ts":1,"dur":2,"pid":1,"tid":1,"cat":"task","args":{"task":1,"seq":1,"state":"running"}},` +
		`{"ph":"M","pid":1,"tid":2,"name":"thread_name","args":{"name":"k","key":"k","lanes":[2,3]}},` +
		`{"ph":"i","ts":1,"pid":1,"tid":2,"name":"lane created","args":{"lane":3}},` +
		`{"ph":"X","ts":2,"dur":1,"pid":1,"tid":2,"cat":"task","args":{"task":2,"seq":2,"key":"k","lane":3,"state":"succeeded"}}],` +
		`"metadata":{"sluice":{"version":1,"config":{"slotName":"token"}}}}`,
	`{"traceEvents":[],"metadata":{"sluice":{"version":1,"end":5,"log":[{"kind":3,"t":1}]}}}`,
	`{"traceEvents":[{"ph":"X","pid":1,"tid":0,"ts":1,"dur":2,"cat":"task","name":"t","args":{"task":1,"seq":1,"state":"failed","error":"e"}},{"ph":"X","pid":2,"tid":0,"ts":0,"dur":1,"cat":"wait","name":"t","args":{"task":1,"seq":1,"state":"failed"}}],"metadata":{"sluice":{"version":1}}}`,
	// Other tools' traces.
	`[{"ph":"X","pid":1,"tid":1,"ts":0,"dur":10,"name":"a"},{"ph":"B","pid":1,"tid":"t","ts":2.5,"name":"b"},{"ph":"E","pid":1,"tid":"t","ts":4}`,
	`{"traceEvents":[{"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"main"}},{"ph":"X","pid":1,"tid":1,"ts":1e3,"dur":0.0005,"name":"x"}],"displayTimeUnit":"ns"}`,
	`{"traceEvents":[{"ph":"X","ts":1,"dur":-1}]}`,
	`[1, "a", null, {}]`,
}

// FuzzReadJSON checks that ReadJSON never panics, that its errors say
// "trace:", and that whatever it accepts round-trips: writing the model,
// reading that and writing again gives the same bytes and an equal model.
func FuzzReadJSON(f *testing.F) {
	for _, s := range fuzzSeeds {
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

// The seeds stay small, and the ones in sluice's format are accepted, so
// that the fuzzer starts from traces that reach the model.
func TestFuzzSeeds(t *testing.T) {
	for i, s := range fuzzSeeds {
		if len(s) > maxSeed {
			t.Errorf("seed %d: %d bytes, want at most %d", i, len(s), maxSeed)
		}
		if _, err := trace.ReadJSON(strings.NewReader(s)); err != nil && strings.Contains(s, `"sluice":{`) {
			t.Errorf("seed %d: ReadJSON = %v, want a sluice trace", i, err)
		}
	}
}
