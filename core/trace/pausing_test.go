package trace_test

import (
	"bytes"
	"testing"

	"sluice/core/trace"
)

// TestReadJSONPausing reads large traces, a Recorder's and another
// tool's (bare, and with other fields): pause is called every few hundred events with a share
// of the work that grows from 0 to 1, and the model read is the one
// ReadJSON reads.
func TestReadJSONPausing(t *testing.T) {
	own := writeJSON(t, feed(trace.Config{MaxFinished: 10_000}, simulate(simQueue, 1, 10_000, 8)))
	foreign := foreignTrace(10_000, 4, 0)
	other := append(bytes.TrimSuffix(foreignTrace(10_000, 4, 0), []byte("]}")), []byte(`],"displayTimeUnit":"ns","traceEvents2":{"a":[1e400]}}`)...)
	for _, c := range []struct {
		name string
		data []byte
	}{{"own", own}, {"foreign", foreign}, {"other fields", other}} {
		t.Run(c.name, func(t *testing.T) {
			var calls []float64
			got, err := trace.ReadJSONPausing(bytes.NewReader(c.data), func(done float64) { calls = append(calls, done) })
			if err != nil {
				t.Fatal(err)
			}
			want, err := trace.ReadJSON(bytes.NewReader(c.data))
			if err != nil {
				t.Fatal(err)
			}
			if g, w := writeJSON(t, got), writeJSON(t, want); !bytes.Equal(g, w) {
				t.Errorf("ReadJSONPausing's model differs from ReadJSON's at %s", firstDiff(g, w))
			}
			// At least one call per 256 events (10,000 events, each
			// parsed then built into the model).
			if len(calls) < 2*10_000/256 {
				t.Errorf("pause called %d times, want one per 256 events at least", len(calls))
			}
			for i, d := range calls {
				if d < 0 || d > 1 || (i > 0 && d < calls[i-1]) {
					t.Fatalf("pause called with %v after %v: want a share that grows within [0, 1]", d, calls[max(i-1, 0)])
				}
			}
			if len(calls) > 0 && calls[len(calls)-1] < 0.9 {
				t.Errorf("the last pause says %v of the work done, want nearly all", calls[len(calls)-1])
			}
		})
	}
}
