package ui

import (
	"fmt"
	"strings"
	"time"

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
