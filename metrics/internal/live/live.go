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
	"sync"
	"sync/atomic"
	"time"

	"sluice/core"
)

// Outcomes names the outcomes of ended tasks, by their index in
// [Reading.Counts].
var Outcomes = [4]string{"finished", "failed", "canceled", "panicked"}

// RingSize is how many live tasks the ring holds by their number, which
// counts up per primitive: a queue's tasks are found there without a map,
// in the order they come. A task still live when the ring comes round to
// it again moves to a map.
const RingSize = 4096

// Timing says which time an event yields.
type Timing uint8

const (
	None Timing = iota // the event yields no time
	Wait               // a start: the time from enqueue to start
	Run                // an end: the time from start to end
)

// Tracker follows one primitive's live tasks. P is what the caller keeps
// per priority (its histograms), made once per priority by the function
// given to [New], under the Tracker's lock. Its methods are safe for
// concurrent use; an event costs a brief lock and a ring slot.
type Tracker[P any] struct {
	stats     atomic.Pointer[source]
	semaphore atomic.Bool
	outcomes  [4]atomic.Uint64 // by outcome index, from events

	mu      sync.Mutex
	epoch   time.Time       // event times are kept as offsets from it
	ring    *[RingSize]task // tasks seen enqueued and not ended, at Task % RingSize
	live    map[uint64]task // those a later task pushed out of the ring
	prios   map[core.Priority]P
	newPrio func(core.Priority) P
	queued  int64 // from events, for Consume
	running int64
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
		ring:    new([RingSize]task),
		live:    map[uint64]task{},
		prios:   map[core.Priority]P{},
		newPrio: newPrio,
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
	switch e.Kind {
	case core.Enqueued:
		at := e.Time.Sub(t.epoch)
		t.mu.Lock()
		s := &t.ring[e.Task%RingSize]
		if s.id != 0 {
			t.live[s.id] = *s // still live: out of the ring's way
		}
		*s = task{id: e.Task, enq: at, prio: e.Priority}
		t.queued++
		t.mu.Unlock()
	case core.Started:
		at := e.Time.Sub(t.epoch)
		t.mu.Lock()
		lt, ok := t.findLocked(e.Task)
		if !ok {
			t.mu.Unlock()
			return None, 0, p
		}
		t.queued--
		enq, pr := lt.enq, t.prioLocked(lt.prio)
		if t.semaphore.Load() {
			*lt = task{}
		} else {
			lt.start, lt.started = at, true
			t.running++
		}
		t.mu.Unlock()
		return Wait, at - enq, pr
	case core.Finished, core.Failed, core.Canceled, core.Panicked:
		t.outcomes[outcomeIndex(e.Kind)].Add(1)
		if e.Task == 0 {
			return None, 0, p
		}
		at := e.Time.Sub(t.epoch)
		t.mu.Lock()
		lt, ok := t.findLocked(e.Task)
		if !ok {
			t.mu.Unlock()
			return None, 0, p
		}
		x := *lt
		*lt = task{}
		if !x.started {
			t.queued--
			t.mu.Unlock()
			return None, 0, p
		}
		t.running--
		pr := t.prioLocked(x.prio)
		t.mu.Unlock()
		return Run, at - x.start, pr
	}
	return None, 0, p
}

// findLocked returns the live task id, in its ring slot: a task a later
// one pushed out into the map swaps places with that one. t.mu is held.
func (t *Tracker[P]) findLocked(id uint64) (*task, bool) {
	s := &t.ring[id%RingSize]
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

// prioLocked returns what is kept for priority p. t.mu is held.
func (t *Tracker[P]) prioLocked(p core.Priority) P {
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
// from the events otherwise. It does not block beyond the Stats call and
// a brief lock.
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
		t.mu.Lock()
		r.Queued, r.Running = t.queued, t.running
		t.mu.Unlock()
	}
	return r
}
