package sim

import (
	"time"

	"sluice/core"
)

// EventLine writes an event of a task of a run of primitive as the
// page's event log shows it and the programs of [Scenario.GoCode] print
// it: the virtual time since the run started, the task's name, what
// happened and the details, separated by two spaces.
func EventLine(primitive string, at time.Duration, e core.Event) string {
	return eventLine(slots(primitive), at, e)
}

// FormatAt writes a time since the run started, to the microsecond, as
// the event log does: "0s", "250µs", "1.25ms", "1.5s", "2m30s".
func FormatAt(d time.Duration) string { return formatAt(d) }

// EventVerb says what an event of kind k reports, as the event log does:
// "enqueued", "started", "lane evicted".
func EventVerb(k core.EventKind) string { return eventVerb(k) }

// EventDetail writes the details of an event as the event log does.
func EventDetail(primitive string, k core.EventKind, key string, lane int, weight int64, prio core.Priority, err string) string {
	return eventDetail(slots(primitive), k, key, lane, weight, prio, err)
}

// slots reports whether primitive runs its tasks in numbered worker
// slots.
func slots(primitive string) bool {
	k := KindOf(primitive)
	return k != nil && k.Slots
}
