package core

import "time"

// EventKind says which step of a primitive an [Event] reports.
type EventKind uint8

// The kinds of events a primitive reports. A task's life is Enqueued, then
// Waiting when it cannot start at once, then Started, then exactly one of
// Finished, Failed, Canceled or Panicked. A task canceled before it started
// goes straight from Enqueued or Waiting to Canceled; one whose submitter's
// context ended while it waited is reported Canceled when the queue sees
// that (see [WorkQueue]).
const (
	Enqueued    EventKind = iota + 1 // accepted by the primitive
	Waiting                          // queued behind the limit
	Started                          // running, or holding its tokens
	Finished                         // returned nil, or released its tokens
	Failed                           // returned an error
	Canceled                         // its context ended, or the primitive closed
	Panicked                         // panicked; Err is a *PanicError
	LaneCreated                      // a KeyedQueue lane was created for Key
	LaneEvicted                      // a KeyedQueue lane for Key was removed when idle
	Resized                          // the limit changed; Weight is the new limit
	Closed                           // the primitive was closed or finished draining
)

var eventKindNames = [...]string{
	Enqueued:    "enqueued",
	Waiting:     "waiting",
	Started:     "started",
	Finished:    "finished",
	Failed:      "failed",
	Canceled:    "canceled",
	Panicked:    "panicked",
	LaneCreated: "lane-created",
	LaneEvicted: "lane-evicted",
	Resized:     "resized",
	Closed:      "closed",
}

// String returns the kind's lower-case name, such as "started".
func (k EventKind) String() string {
	if int(k) < len(eventKindNames) && eventKindNames[k] != "" {
		return eventKindNames[k]
	}
	return "unknown"
}

// Terminal reports whether k ends a task's life.
func (k EventKind) Terminal() bool {
	return k == Finished || k == Failed || k == Canceled || k == Panicked
}

// Event is one step of a primitive, reported to the function given to
// [WithObserver].
type Event struct {
	Kind     EventKind
	Time     time.Time // from the primitive's clock (see WithClock); never before the previous event's of a queue
	Task     uint64    // unique per primitive, from 1; 0 for lane and primitive events
	Name     string    // the task's WithName, if given
	Priority Priority
	Weight   int64  // tokens for a Semaphore, 1 for a task, the new limit for Resized
	Key      string // fmt.Sprint of the key, KeyedQueue only
	Lane     int    // the worker slot or key lane the task ran on
	Err      error  // the task's error, for Failed, Canceled and Panicked
}
