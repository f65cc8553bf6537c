package ui

import (
	"fmt"
	"strings"
	"time"

	"sluice/core"
	"sluice/core/trace"
)

// unshownNotes says what another tool's trace holds that the timeline
// does not show ("137,012 events: 120,000 instant, 17,000 flow, 12
// async", after the page's "Not shown:") and which of its slices never
// end.
func unshownNotes(u trace.Unshown) []string {
	var notes []string
	if n := u.Total(); n > 0 {
		kinds := make([]string, 0, len(u.Events))
		for _, c := range u.Events {
			kinds = append(kinds, formatCount(c.N)+" "+c.What)
		}
		notes = append(notes, fmt.Sprintf("%s %s: %s (the timeline draws slices, complete or begun and ended, as tasks)",
			formatCount(n), plural(n, "event", "events"), strings.Join(kinds, ", ")))
	}
	if n := u.Unfinished; n > 0 {
		notes = append(notes, fmt.Sprintf("%s %s in the trace: drawn as running up to its last event",
			formatCount(n), plural(n, "slice never ends", "slices never end")))
	}
	return notes
}

// traceRate is a loaded trace's throughput: the tasks that ended, over the
// trace's span from its first task to its last event (a trace of 0.25 s
// that ended 3 tasks ran 12 a second, whatever window a recorder
// measures over).
func traceRate(st trace.Stats, first, end time.Time) float64 {
	span := end.Sub(first)
	if span <= 0 {
		return 0
	}
	ended := st.Succeeded + st.Failed + st.Canceled + st.Panicked
	return float64(ended) / span.Seconds()
}

// traceFacts is what settleTrace finds of a loaded trace.
type traceFacts struct {
	start  time.Time       // its earliest time (its tasks' first Enqueued, or a lane's first Created)
	levels []core.Priority // its tasks' priorities, sorted, at most maxShownLevels (traceLevels)
	waited bool            // some task waited before it started (traceWaited)
	// pending are the indices of its tasks that still wait, in order:
	// the queue a frame of it draws.
	pending []int32
}

// settleEvery is how many tasks settleTrace goes over between
// calls of its pause function.
const settleEvery = 4096

// settleTrace goes once over the snapshot of a loaded trace, in slices
// between calls of pause (with done 1), and finds its facts. ok is false
// when the trace holds no tasks.
func settleTrace(snap *trace.Snapshot, pause func(float64)) (f traceFacts, ok bool) {
	var first time.Time
	see := func(t time.Time) {
		if !t.IsZero() && (first.IsZero() || t.Before(first)) {
			first = t
		}
	}
	for i := range snap.Tasks {
		if i%settleEvery == settleEvery-1 {
			pause(1)
		}
		x := &snap.Tasks[i]
		see(x.Enqueued.Time())
		if len(f.levels) < maxShownLevels {
			f.levels = addLevel(f.levels, x.Priority)
		}
		if !f.waited {
			f.waited = waited(x)
		}
		if x.State == core.TaskPending {
			f.pending = append(f.pending, int32(i))
		}
	}
	for i := range snap.Lanes {
		see(snap.Lanes[i].Created)
	}
	f.start = first
	return f, len(snap.Tasks) > 0
}
