package trace_test

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
	"time"

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

// TestSnapshotPausing takes the snapshot of Recorders with open and
// finished tasks and counter samples: pause is called every few hundred
// tasks or samples with a share of the work that grows from 0 to 1, and
// the snapshot is the one Snapshot takes, at the latest time and at an
// earlier one.
func TestSnapshotPausing(t *testing.T) {
	for _, c := range []struct {
		name string
		rec  *trace.Recorder
	}{
		{"finished and open", feed(trace.Config{MaxFinished: 10_000}, simulate(simQueue, 1, 10_000, 8)[:25_000])},
		{"keyed", feed(trace.Config{MaxFinished: 10_000}, simulate(simKeyed, 2, 5_000, 4))},
		{"empty", trace.NewRecorder(trace.Config{})},
	} {
		for _, now := range []time.Time{{}, at(100)} {
			t.Run(fmt.Sprintf("%s/now %v", c.name, !now.IsZero()), func(t *testing.T) {
				var calls []float64
				got := c.rec.SnapshotPausing(now, func(done float64) { calls = append(calls, done) })
				want := c.rec.Snapshot(now)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("SnapshotPausing(%v) differs from Snapshot: got %d tasks, %d samples of running, want %d and %d",
						now, len(got.Tasks), len(got.Counters[trace.TrackRunning]), len(want.Tasks), len(want.Counters[trace.TrackRunning]))
				}
				units := len(want.Tasks)
				for _, s := range want.Counters {
					units += len(s)
				}
				if min := units/256 - 1; len(calls) < min {
					t.Errorf("pause called %d times for %d tasks and samples, want one per 256 at least (%d)", len(calls), units, min)
				}
				for i, d := range calls {
					if d <= 0 || d > 1 || (i > 0 && d < calls[i-1]) {
						t.Fatalf("pause called with %v after %v: want a share that grows within (0, 1]", d, calls[max(i-1, 0)])
					}
				}
			})
		}
	}
	t.Run("nil pause", func(t *testing.T) {
		rec := feed(trace.Config{}, simulate(simQueue, 3, 1_000, 4))
		if got, want := rec.SnapshotPausing(time.Time{}, nil), rec.Snapshot(time.Time{}); !reflect.DeepEqual(got, want) {
			t.Errorf("SnapshotPausing with a nil pause differs from Snapshot")
		}
	})
}
