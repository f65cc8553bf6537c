package ui

import (
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"sluice/core"
	"sluice/core/trace"
)

// maxEvents bounds the events an eventLog keeps: a run's 10,000 tasks
// report at most a few events each, and its lanes a few more.
const maxEvents = 100_000

// eventLog is the whole event log of a run, or of a loaded trace: every
// event, oldest first, and the person's filter over all of it. Events
// arrive from the primitive's goroutines; the filter is kept up to date
// incrementally, so that a panel scans only what is new.
type eventLog struct {
	mu        sync.Mutex
	primitive string
	origin    time.Time // time 0 of the times shown
	entries   []trace.Entry
	dropped   int // events beyond maxEvents, not kept

	query   string
	scanned int   // entries matched against query so far
	matched []int // their indices that match

	id uint64 // tells this log from the run's others (Panel.LogID)

	// muted: the run is being stopped for good, and its recorder and
	// log take no more events (see runSet.stop).
	muted atomic.Bool
}

// eventLogs numbers the logs made.
var eventLogs atomic.Uint64

func newEventLog(primitive string, origin time.Time, entries []trace.Entry) *eventLog {
	return &eventLog{primitive: primitive, origin: origin, entries: entries, id: eventLogs.Add(1)}
}

// add records an event. It does not block beyond the log's lock.
func (l *eventLog) add(e core.Event) {
	errText := ""
	if e.Err != nil {
		errText = e.Err.Error()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.entries) >= maxEvents {
		l.dropped++
		return
	}
	l.entries = append(l.entries, trace.Entry{Kind: e.Kind, Time: e.Time, Task: e.Task, Name: e.Name,
		Priority: e.Priority, Weight: e.Weight, Key: e.Key, Lane: e.Lane, Err: errText})
}

// count returns how many events the log has had, kept or not.
func (l *eventLog) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries) + l.dropped
}

// setQuery sets the filter.
func (l *eventLog) setQuery(q string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if q != l.query {
		l.query, l.scanned, l.matched = q, 0, l.matched[:0]
	}
}

// latest returns the latest n entries that match the filter, oldest
// first, how many match in all, and how many events the log has.
func (l *eventLog) latest(n int) (out []trace.Entry, matching, total int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	total = len(l.entries) + l.dropped
	if l.query == "" {
		return slices.Clone(l.entries[max(len(l.entries)-n, 0):]), total, total
	}
	m := l.scanLocked()
	return l.spanLocked(m-n, m), m, total
}

// span returns the entries that match the filter from the from-th match
// (oldest first, from 0) to the to-th, of those the log keeps.
func (l *eventLog) span(from, to int) []trace.Entry {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.scanLocked()
	return l.spanLocked(from, to)
}

// scanLocked brings the filter's matches up to date, and returns how many
// entries the log keeps that match.
func (l *eventLog) scanLocked() int {
	if l.query == "" {
		return len(l.entries)
	}
	for ; l.scanned < len(l.entries); l.scanned++ {
		e := &l.entries[l.scanned]
		if matches(l.query, entryFields(l.primitive, l.origin, e)...) {
			l.matched = append(l.matched, l.scanned)
		}
	}
	return len(l.matched)
}

func (l *eventLog) spanLocked(from, to int) []trace.Entry {
	n := len(l.entries)
	if l.query != "" {
		n = len(l.matched)
	}
	from, to = max(from, 0), min(to, n)
	if from >= to {
		return nil
	}
	if l.query == "" {
		return slices.Clone(l.entries[from:to])
	}
	out := make([]trace.Entry, to-from)
	for i, j := range l.matched[from:to] {
		out[i] = l.entries[j]
	}
	return out
}

// entryFields are what the event log shows of an entry, which its filter
// searches: its time, task, what happened and details.
func entryFields(primitive string, origin time.Time, e *trace.Entry) []string {
	what := e.Name
	if what == "" && e.Task != 0 {
		what = "#" + strconv.FormatUint(e.Task, 10)
	}
	return []string{formatAt(e.Time.Sub(origin)), what, eventVerb(e.Kind), logDetail(primitive, e.Kind, e.Key, e.Lane, e.Weight, e.Priority, e.Err)}
}
