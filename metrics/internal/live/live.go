// Package live follows a sluice/core primitive's live tasks from its
// observer's events, and reads its Stats, for the metrics modules
// (sluice/metrics/prom and sluice/metrics/otel), which differ only in the
// instruments they feed.
//
// A [Tracker] keeps each task seen enqueued and not yet ended, so that a
// start yields its wait and an end its run time; it counts outcomes, and
// tasks queued and running, from the events (for Consume, which has no
// Stats); and [Tracker.Read] reads the primitive's Stats when it has
// them. It starts no goroutines.
package live

import (
	"sync/atomic"
	"time"

	"sluice/core"
)

// Outcomes names the outcomes of ended tasks, by their index in
// [Reading.Counts].
var Outcomes = [4]string{"finished", "failed", "canceled", "panicked"}

// RingSize is how many live tasks the ring holds by their number at
// first, and MaxRingSize at most: a queue's tasks are found there without
// a map, in the order they come (their numbers count up per primitive).
// A task that finds its slot taken by one still live doubles the ring,
// up to MaxRingSize; beyond it, the live task moves to a map.
const (
	RingSize    = 4096
	MaxRingSize = 1 << 17
)

// priorities is the range of priorities kept in an array, from
// -priorities to priorities; others are kept in a map.
const priorities = 16

// Timing says which time an event yields.
type Timing uint8

const (
	None Timing = iota // the event yields no time
	Wait               // a start: the time from enqueue to start
	Run                // an end: the time from start to end
)

// Tracker follows one primitive's live tasks. P is what the caller keeps
// per priority (its histograms), made once per priority by the function
// given to [New], from Observe.
//
// Observe must not be called from two goroutines at once, which is how
// sluice/core calls an observer (one primitive's events, in order, never
// from two goroutines at once): it takes no lock, and an event costs a
// ring slot, found by the task's number, and no atomic add for a queue
// (whose counts Read takes from its Stats); a Semaphore's ends, and
// Consume's events, add to atomic counts. Watch and Read may be called
// from any goroutine, at any time.
type Tracker[P any] struct {
	stats     atomic.Pointer[source]
	semaphore atomic.Bool
	outcomes  [4]atomic.Uint64 // by outcome index, from events
	queued    atomic.Int64     // from events, for Consume
	running   atomic.Int64

	// Observe's alone.
	epoch   time.Time       // event times are kept as offsets from it
	ring    []task          // tasks seen enqueued and not ended, at Task % len(ring), a power of two
	live    map[uint64]task // those a later task pushed out of the ring
	prioArr [2*priorities + 1]struct {
		v    P
		made bool
	} // by priority + priorities
	prios   map[core.Priority]P // priorities beyond the array's
	newPrio func(core.Priority) P
	maxRing int // MaxRingSize; less in tests
}

// source reads a primitive's Stats.
type source struct {
	queue func() core.QueueStats
	sem   func() core.SemaphoreStats
}

// task is a task seen enqueued and not ended: id 0 is an empty ring slot.
// Times are offsets from the epoch.
type task struct {
	id         uint64
	enq, start time.Duration
	prio       core.Priority
	started    bool
}

// New returns a Tracker that makes what it keeps per priority with
// newPrio.
func New[P any](newPrio func(core.Priority) P) *Tracker[P] {
	return &Tracker[P]{
		epoch:   time.Now(),
		ring:    make([]task, RingSize),
		live:    map[uint64]task{},
		prios:   map[core.Priority]P{},
		newPrio: newPrio,
		maxRing: MaxRingSize,
	}
}

// Watch tells t the primitive it follows: anything with Stats()
// core.QueueStats (a WorkQueue, Processor or KeyedQueue) or
// core.SemaphoreStats (a Semaphore). It reports false, and changes
// nothing, for anything else.
func (t *Tracker[P]) Watch(p any) bool {
	switch p := p.(type) {
	case interface{ Stats() core.QueueStats }:
		t.stats.Store(&source{queue: p.Stats})
	case interface{ Stats() core.SemaphoreStats }:
		t.semaphore.Store(true)
		t.stats.Store(&source{sem: p.Stats})
	default:
		return false
	}
	return true
}

// Observe records e and returns the time it yields, if any, with what the
// caller keeps for the task's priority: a start yields its wait; the end
// of a task that started, its run time (a Semaphore's holders are not
// followed past their start: a release names no task).
func (t *Tracker[P]) Observe(e core.Event) (what Timing, d time.Duration, p P) {
	// The counts and gauges that Read takes from the events, for what
	// has no Stats (Consume) or no outcome counts (a Semaphore): a
	// queue's events cost no atomic add.
	src := t.stats.Load()
	gauges := src == nil
	switch e.Kind {
	case core.Enqueued:
		at := e.Time.Sub(t.epoch)
		s := t.slot(e.Task)
		if s.id != 0 {
			t.live[s.id] = *s // still live: out of the ring's way
		}
		*s = task{id: e.Task, enq: at, prio: e.Priority}
		if gauges {
			t.queued.Add(1)
		}
	case core.Started:
		at := e.Time.Sub(t.epoch)
		lt, ok := t.find(e.Task)
		if !ok {
			return None, 0, p
		}
		enq, pr := lt.enq, t.prio(lt.prio)
		if t.semaphore.Load() {
			*lt = task{}
		} else {
			lt.start, lt.started = at, true
		}
		if gauges {
			t.queued.Add(-1)
			t.running.Add(1)
		}
		return Wait, at - enq, pr
	case core.Finished, core.Failed, core.Canceled, core.Panicked:
		if src == nil || src.queue == nil {
			t.outcomes[outcomeIndex(e.Kind)].Add(1)
		}
		if e.Task == 0 {
			return None, 0, p
		}
		at := e.Time.Sub(t.epoch)
		lt, ok := t.find(e.Task)
		if !ok {
			return None, 0, p
		}
		x := *lt
		*lt = task{}
		if !x.started {
			if gauges {
				t.queued.Add(-1)
			}
			return None, 0, p
		}
		if gauges {
			t.running.Add(-1)
		}
		return Run, at - x.start, t.prio(x.prio)
	}
	return None, 0, p
}

// slot returns the ring slot of a new task id: free, or taken by a live
// task when the ring has grown to its largest.
func (t *Tracker[P]) slot(id uint64) *task {
	for {
		s := &t.ring[id&uint64(len(t.ring)-1)]
		if s.id == 0 || len(t.ring) >= t.maxRing {
			return s
		}
		t.grow()
	}
}

// growLocked doubles the ring: a task at slot i goes to i or i + the old
// size, which no other task of the old ring takes; the tasks in the map
// come back to the ring where their slot is free.
func (t *Tracker[P]) grow() {
	ring := make([]task, 2*len(t.ring))
	mask := uint64(len(ring) - 1)
	for _, x := range t.ring {
		if x.id != 0 {
			ring[x.id&mask] = x
		}
	}
	for id, x := range t.live {
		if s := &ring[id&mask]; s.id == 0 {
			*s = x
			delete(t.live, id)
		}
	}
	t.ring = ring
}

// findLocked returns the live task id, in its ring slot: a task a later
// one pushed out into the map swaps places with that one.
func (t *Tracker[P]) find(id uint64) (*task, bool) {
	s := &t.ring[id&uint64(len(t.ring)-1)]
	if s.id == id {
		return s, true
	}
	lt, ok := t.live[id]
	if !ok {
		return nil, false
	}
	delete(t.live, id)
	if s.id != 0 {
		t.live[s.id] = *s
	}
	*s = lt
	return s, true
}

// prio returns what is kept for priority p, made on first use.
func (t *Tracker[P]) prio(p core.Priority) P {
	if p >= -priorities && p <= priorities {
		x := &t.prioArr[p+priorities]
		if !x.made {
			x.v, x.made = t.newPrio(p), true
		}
		return x.v
	}
	v, ok := t.prios[p]
	if !ok {
		v = t.newPrio(p)
		t.prios[p] = v
	}
	return v
}

func outcomeIndex(k core.EventKind) int {
	switch k {
	case core.Finished:
		return 0
	case core.Failed:
		return 1
	case core.Canceled:
		return 2
	}
	return 3
}

// Source says where a Reading's gauges come from.
type Source uint8

const (
	Events    Source = iota // the observer's events (Consume): Queued and Running
	Queue                   // a queue's Stats: all but Tokens
	Semaphore               // a Semaphore's Stats: Queued, Limit and Tokens
)

// Reading is a primitive's counts and gauges, read now.
type Reading struct {
	Source Source
	// Counts are the tasks ended, by outcome (Outcomes): from a queue's
	// Stats, else from the events.
	Counts                                [4]uint64
	Queued, Running, Limit, Lanes, Tokens int64
	OldestPending                         time.Duration
}

// Read reads the primitive's Stats, if Watch was given it, and the counts
// from the events otherwise. It does not block beyond the Stats call.
func (t *Tracker[P]) Read() Reading {
	var r Reading
	for i := range r.Counts {
		r.Counts[i] = t.outcomes[i].Load()
	}
	src := t.stats.Load()
	switch {
	case src != nil && src.queue != nil:
		st := src.queue()
		r.Source = Queue
		r.Counts = [4]uint64{st.Succeeded, st.Failed, st.Canceled, st.Panicked}
		r.Queued, r.Running, r.Limit = int64(st.Pending), int64(st.Running), int64(st.Parallelism)
		r.OldestPending, r.Lanes = st.OldestPending, int64(st.Lanes)
	case src != nil && src.sem != nil:
		st := src.sem()
		r.Source = Semaphore
		r.Queued, r.Limit, r.Tokens = int64(st.Waiters), st.Limit, st.InUse
	default:
		r.Queued, r.Running = t.queued.Load(), t.running.Load()
	}
	return r
}
