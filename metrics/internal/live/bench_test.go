package live_test

import (
	"testing"
	"time"

	"sluice/core"
	"sluice/metrics/internal/live"
)

// BenchmarkTracker follows tasks through their three events (enqueue,
// start, end) in batches of 10,000 enqueued before any starts, as a queue
// under a burst sees them, at three priorities. One op is one task.
func BenchmarkTracker(b *testing.B) {
	tr := live.New(func(p core.Priority) int { return int(p) })
	const batch = 10_000
	var es [3][batch]core.Event
	for i := range batch {
		p := core.Priority(i%3 - 1)
		for k, kind := range []core.EventKind{core.Enqueued, core.Started, core.Finished} {
			es[k][i] = core.Event{Kind: kind, Time: t0.Add(time.Duration(k) * time.Millisecond), Priority: p}
		}
	}
	b.ReportAllocs()
	id := uint64(0)
	for b.Loop() {
		// One op per task; each batch's events are replayed with new ids.
		i := int(id % batch)
		if i == 0 && id > 0 {
			for j := range batch {
				tr.Observe(withTask(es[1][j], id-batch+uint64(j)+1))
				tr.Observe(withTask(es[2][j], id-batch+uint64(j)+1))
			}
		}
		id++
		tr.Observe(withTask(es[0][i], id))
	}
}

func withTask(e core.Event, id uint64) core.Event { e.Task = id; return e }
