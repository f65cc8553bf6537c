package trace

import (
	"cmp"
	"math"
	"time"

	"sluice/core"
)

// Task is one task of the timeline model, as held by a [Snapshot].
//
// A Task holds no pointer: its texts are [Text]s of its Snapshot
// (Snapshot.Text), its lanes are the Snapshot's (Snapshot.TaskLanes), and
// its times are [Stamp]s, not time.Time values, which point to their
// Location. The garbage collector then has nothing to mark in a snapshot's
// tasks, where with strings and times it followed seven pointers a task:
// with a snapshot of 200,000 tasks live, a collection took 8.8–9.0 ms on
// two cores, and takes 0.22 ms, as with none (BenchmarkCollect); in
// WebAssembly, whose collector marks in one go on the page's one thread,
// it took 51–56 ms, and takes 2 ms.
type Task struct {
	ID       uint64 // the Task of the task's events
	Name     Text   // its WithName, if given
	Priority core.Priority
	Weight   int64 // tokens for a Semaphore holder, 1 for a queued task
	Key      Text  // its KeyedQueue key, if any
	// Lane is the ID of the [Lane] the task ran on, or -1 if it never
	// started (or no lane could be kept for it, see Config.MaxLanes).
	Lane int
	// Lanes lists every lane the task held, Lanes[0] being Lane, when it
	// held more than one: a Semaphore holder of weight w > 1 holds w
	// slot lanes, one per token (at most 64). Snapshot.TaskLanes gives
	// them; it gives none for a task on one lane or none.
	Lanes LaneList
	// State is TaskPending while the task waits, TaskRunning while it runs
	// (or holds its tokens), and then its outcome. A task that never
	// started is pending or canceled.
	State    core.TaskState
	Enqueued Stamp // when it was first reported
	Started  Stamp // zero if it never started
	Ended    Stamp // zero while the task is open
	Err      Text  // the text of its error, if any
}

// Text is a string kept by a [Snapshot]: Snapshot.Text gives it, and
// Snapshot.AddText makes one. The zero Text is the empty string, in any
// snapshot. A Text holds no pointer (see [Task]).
type Text struct{ off, n uint32 }

// Len returns the length of the text in bytes.
func (x Text) Len() int { return int(x.n) }

// LaneList is the list of a task's lanes, kept by a [Snapshot]:
// Snapshot.TaskLanes gives it. The zero LaneList is empty.
type LaneList struct{ off, n uint32 }

// Len returns the number of lanes in the list.
func (l LaneList) Len() int { return int(l.n) }

// Stamp is a time of a [Task]: a time.Time as Unix nanoseconds, in the
// years 1823 to 2116 (times outside are clamped), which holds no pointer
// (see [Task]). The zero Stamp is no time, and is before every other.
// Stamps compare as the times they are; Time gives the time.Time, in UTC.
type Stamp struct {
	v int64 // the Unix nanoseconds with the sign bit flipped: 0 is no time
}

// StampOf returns t as a Stamp; the zero Stamp for the zero time.Time.
func StampOf(t time.Time) Stamp {
	if t.IsZero() {
		return Stamp{}
	}
	return stampOf(nanos(t))
}

// stampOf returns the Stamp of Unix nanoseconds ns; noTime gives the zero
// Stamp.
func stampOf(ns int64) Stamp { return Stamp{ns ^ math.MinInt64} }

// IsZero reports whether s is no time.
func (s Stamp) IsZero() bool { return s.v == 0 }

// UnixNano returns s as Unix nanoseconds; math.MinInt64 for the zero
// Stamp.
func (s Stamp) UnixNano() int64 { return s.v ^ math.MinInt64 }

// Time returns s as a time.Time in UTC; the zero time.Time for the zero
// Stamp.
func (s Stamp) Time() time.Time { return timeOf(s.UnixNano()) }

// Sub returns the duration s-u, as time.Time.Sub does: clamped to the
// Durations an int64 holds. Either being zero gives a meaningless
// duration, as with time.Time.
func (s Stamp) Sub(u Stamp) time.Duration {
	if s.IsZero() || u.IsZero() {
		return s.Time().Sub(u.Time())
	}
	return time.Duration(s.UnixNano() - u.UnixNano()) // both within ±2^62
}

// Add returns s+d, as a Stamp; the zero Stamp stays zero.
func (s Stamp) Add(d time.Duration) Stamp {
	if s.IsZero() {
		return s
	}
	return StampOf(s.Time().Add(d))
}

// Compare compares s and u: -1 if s is before u, +1 if after, 0 if they
// are the same time.
func (s Stamp) Compare(u Stamp) int { return cmp.Compare(s.UnixNano(), u.UnixNano()) }

// Before reports whether s is before u.
func (s Stamp) Before(u Stamp) bool { return s.UnixNano() < u.UnixNano() }

// After reports whether s is after u.
func (s Stamp) After(u Stamp) bool { return s.UnixNano() > u.UnixNano() }

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

// Time returns the sample's time, in UTC.
func (s Sample) Time() time.Time { return time.Unix(0, s.UnixNano).UTC() }

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
// SnapshotWindow for reuse). The times it gives are in UTC, but for Now,
// From and To, which are the caller's.
type Snapshot struct {
	Now      time.Time // the time the snapshot describes
	From, To time.Time // the window asked for; zero means unbounded
	End      time.Time // the latest event time recorded; zero if none

	// Tasks are the retained tasks whose span from Enqueued to Ended (or
	// Now, when open) overlaps the window: finished tasks in the order
	// they ended, then open tasks in the order they were first reported.
	// Their texts and lanes are this snapshot's: Text and TaskLanes.
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

	text  []byte // the Tasks' Texts
	lanes []int  // the Tasks' LaneLists
}

// Text returns the text x of one of the snapshot's tasks. It allocates
// the string, unless it is empty. It panics if x is not the snapshot's.
func (s *Snapshot) Text(x Text) string {
	if x.n == 0 {
		return ""
	}
	return string(s.text[x.off : x.off+x.n])
}

// AddText keeps str in the snapshot, for a task added to its Tasks, and
// returns its Text. It copies str, and panics if the snapshot's texts
// would exceed 4 GiB.
func (s *Snapshot) AddText(str string) Text {
	if str == "" {
		return Text{}
	}
	if uint64(len(s.text))+uint64(len(str)) > math.MaxUint32 {
		panic("trace: a snapshot's texts exceed 4 GiB")
	}
	x := Text{uint32(len(s.text)), uint32(len(str))}
	s.text = append(s.text, str...)
	return x
}

// TaskLanes returns the lanes t held, t being one of the snapshot's tasks,
// when it held more than one (see Task.Lanes); nil otherwise. The slice is
// the snapshot's.
func (s *Snapshot) TaskLanes(t *Task) []int {
	if t.Lanes.n == 0 {
		return nil
	}
	l := t.Lanes
	return s.lanes[l.off : l.off+l.n : l.off+l.n]
}

// AddLanes keeps lanes in the snapshot, for a task added to its Tasks, and
// returns their LaneList; an empty one for fewer than two lanes. It
// copies lanes.
func (s *Snapshot) AddLanes(lanes []int) LaneList {
	if len(lanes) < 2 {
		return LaneList{}
	}
	if uint64(len(s.lanes))+uint64(len(lanes)) > math.MaxUint32 {
		panic("trace: a snapshot's lanes exceed 2^32")
	}
	l := LaneList{uint32(len(s.lanes)), uint32(len(lanes))}
	s.lanes = append(s.lanes, lanes...)
	return l
}
