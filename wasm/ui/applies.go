package ui

import (
	"sluice/core"
	"sluice/core/trace"
)

// traceWaited reports whether any task of a loaded trace waited before it
// started, or waits still: a trace the playground wrote, or a Go trace of
// sluice tasks, has a queue to show; another tool's trace, whose slices
// start as they begin, has none, and the page then shows no waiting rows,
// waiting track, waiting or oldest-wait counters, or table of waits.
func traceWaited(snap *trace.Snapshot) bool {
	for i := range snap.Tasks {
		if waited(&snap.Tasks[i]) {
			return true
		}
	}
	return false
}

// waited reports whether a task of a loaded trace waited before it
// started, or waits.
func waited(x *trace.Task) bool {
	switch {
	case x.State == core.TaskPending:
		return true
	case !x.Started.IsZero() && x.Started.After(x.Enqueued):
		return true
	case x.Started.IsZero() && !x.Ended.IsZero() && x.Ended.After(x.Enqueued):
		return true // it gave up waiting
	}
	return false
}
