package trace

import (
	"time"

	"sluice/core"
)

// Task is one task of the timeline model, as held by a [Snapshot].
type Task struct {
	ID       uint64 // the Task of the task's events
	Name     string // its WithName, if given
	Priority core.Priority
	Weight   int64  // tokens for a Semaphore holder, 1 for a queued task
	Key      string // its KeyedQueue key, if any
	// Lane is the ID of the [Lane] the task ran on, or -1 if it never
	// started (or no lane could be kept for it, see Config.MaxLanes).
	Lane int
	// Lanes lists every lane the task held, Lanes[0] being Lane, when it
	// held more than one: a Semaphore holder of weight w > 1 holds w
	// slot lanes, one per token (at most 64). It is nil for a task on one
	// lane or none.
	Lanes []int
	// State is TaskPending while the task waits, TaskRunning while it runs
	// (or holds its tokens), and then its outcome. A task that never
	// started is pending or canceled.
	State    core.TaskState
	Enqueued time.Time // when it was first reported
	Started  time.Time // zero if it never started
	Ended    time.Time // zero while the task is open
	Err      string    // the text of its error, if any
}

// Open reports whether the task is still waiting or running.
func (t *Task) Open() bool { return !t.State.Terminal() }

// Lane is one row of the timeline: a worker slot, a KeyedQueue key, or one
// of the slots that concurrent Semaphore holders occupy.
type Lane struct {
	// ID is the Task.Lane of the tasks that ran on it, and its thread id
	// in the JSON trace. IDs are given in order of creation.
	ID int
	// Name labels the lane: Config.SlotName and the slot numbered from 1
	// ("slot 1", "token 3"), the key, or a loaded trace's thread name.
	Name string
	Key  string // the KeyedQueue key; "" for slot lanes
	// Slot is the worker slot (the events' Lane) of a slot lane, from 0,
	// and -1 for a key lane. Tasks that would overlap on one slot, such as
	// Semaphore holders, are put on the lowest free slot instead, and a
	// holder of weight w > 1 on w free slots (see Recorder.Observe).
	Slot    int
	Created time.Time // its LaneCreated event; zero if none was seen
	Evicted time.Time // its LaneEvicted event; zero while the lane is live
}

// Track names a counter track.
type Track int

// The counter tracks.
const (
	TrackRunning Track = iota // running tasks (Semaphore: holders)
	TrackWaiting              // tasks accepted and not started: the queue depth
	TrackInUse                // the sum of the running tasks' weights: tokens in use
	TrackLanes                // live KeyedQueue lanes
	TrackLimit                // the limit, from Resized events
	NumTracks                 // the number of tracks
)

var trackNames = [NumTracks]string{"running", "waiting", "in use", "lanes", "limit"}

// String returns the track's name, as used for its counter events in the
// JSON trace: "running", "waiting", "in use", "lanes" or "limit".
func (t Track) String() string {
	if t >= 0 && t < NumTracks {
		return trackNames[t]
	}
	return "unknown"
}

// Sample is a counter track's value from its time on, until the next
// sample. The time is kept as Unix nanoseconds, not as a time.Time, so
// that samples hold no pointer (a time.Time points to its Location): the
// million samples of a large trace's snapshot then cost the garbage
// collector nothing to mark, where as times they cost it a scan of 32 MB.
type Sample struct {
	UnixNano int64 // the sample's time, as time.Time.UnixNano gives it
	Value    int64
}

// Time returns the sample's time, in the local time zone.
func (s Sample) Time() time.Time { return time.Unix(0, s.UnixNano) }

// Entry is one event of the event log: the [core.Event] as observed, with
// its error as text.
type Entry struct {
	Kind     core.EventKind
	Time     time.Time // the event's time; an event without one gets the latest time seen
	Task     uint64
	Name     string
	Priority core.Priority
	Weight   int64
	Key      string
	Lane     int // the event's Lane, as reported
	Err      string
}

// WaitStats summarizes how long the recently started tasks of one priority
// waited between being enqueued and starting.
type WaitStats struct {
	Priority core.Priority
	Count    int // tasks summarized: the last Config.WaitSamples started
	P50, P95 time.Duration
	Max      time.Duration
}

// Stats are the model's aggregates.
type Stats struct {
	// Totals over the whole run, including tasks no longer retained.
	Submitted uint64 // tasks reported
	Succeeded uint64
	Failed    uint64
	Canceled  uint64
	Panicked  uint64
	// Dropped counts events the model could not place: events that do not
	// fit a task's life (a second start, a release with no holder), and
	// tasks, lanes or priorities beyond the Config bounds.
	Dropped uint64

	Running    int   // tasks running now
	Waiting    int   // tasks waiting now
	InUse      int64 // the sum of the running tasks' weights
	Limit      int64 // the last Resized limit; 0 if none was seen
	Lanes      int   // live KeyedQueue lanes
	MaxRunning int   // the most tasks that ran at once
	MaxInUse   int64 // the most tokens held at once

	// OldestWait is how long the oldest waiting task has waited at the
	// snapshot's Now; 0 if none waits.
	OldestWait time.Duration
	// Throughput is the rate, per second, at which tasks that had started
	// ended over the Config.ThroughputWindow before Now, counted in 32
	// steps of the window. Only the window before the latest end is
	// kept: for a Now earlier than that, it counts fewer tasks.
	Throughput float64
	// Waits has one entry per priority seen, highest priority first.
	Waits []WaitStats
}

// Snapshot is a copy of a Recorder's model. Nothing else refers to its
// slices, and the Recorder never changes it: the caller may keep it, read
// it from several goroutines, or modify it (unless it passes it back to
// SnapshotWindow for reuse).
type Snapshot struct {
	Now      time.Time // the time the snapshot describes
	From, To time.Time // the window asked for; zero means unbounded
	End      time.Time // the latest event time recorded; zero if none

	// Tasks are the retained tasks whose span from Enqueued to Ended (or
	// Now, when open) overlaps the window: finished tasks in the order
	// they ended, then open tasks in the order they were first reported.
	Tasks []Task
	// Lanes are the live lanes and the evicted lanes some retained task
	// ran on, by ID.
	Lanes []Lane
	// Counters holds each track's samples in the window, oldest first,
	// starting with the last sample at or before From, if any, so that
	// the value is known across the whole window. Consecutive samples have
	// increasing times and different values; before a track's first
	// sample its value is unknown (0 for all but TrackLimit).
	Counters [NumTracks][]Sample
	Log      []Entry // the last Config.MaxLog events, oldest first
	Stats    Stats
}
