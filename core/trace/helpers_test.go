package trace_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"sluice/core"
	"sluice/core/trace"
)

// t0 is the start of every synthetic run.
var t0 = time.Unix(1_700_000_000, 0).UTC()

// at returns t0 plus ms milliseconds.
func at(ms float64) time.Time { return t0.Add(time.Duration(ms * float64(time.Millisecond))) }

// view is a snapshot's task as plain values, its texts and lanes
// resolved and its times in UTC, for comparing.
type view struct {
	ID                       uint64
	Name                     string
	Priority                 core.Priority
	Weight                   int64
	Key                      string
	Lane                     int
	Lanes                    []int
	State                    core.TaskState
	Enqueued, Started, Ended time.Time
	Err                      string
}

// views returns the snapshot's tasks as views.
func views(s *trace.Snapshot) []view {
	out := make([]view, len(s.Tasks))
	for i := range s.Tasks {
		t := &s.Tasks[i]
		out[i] = view{t.ID, s.Text(t.Name), t.Priority, t.Weight, s.Text(t.Key), t.Lane, s.TaskLanes(t), t.State,
			t.Enqueued.Time(), t.Started.Time(), t.Ended.Time(), s.Text(t.Err)}
	}
	return out
}

// feed records events into a new Recorder bounded by cfg.
func feed(cfg trace.Config, events []core.Event) *trace.Recorder {
	rec := trace.NewRecorder(cfg)
	for _, e := range events {
		rec.Observe(e)
	}
	return rec
}

// simKind selects what simulate imitates.
type simKind int

const (
	simQueue     simKind = iota // a WorkQueue with slots
	simKeyed                    // a KeyedQueue: lanes per key, created and evicted
	simSemaphore                // a Semaphore: weights, releases with Task 0
)

// simulate returns a consistent event sequence of n tasks on a primitive
// of the given kind with the given slots, reproducible from seed: tasks
// arrive, wait when every slot is busy, may be canceled while waiting, and
// end in every possible way.
func simulate(kind simKind, seed uint64, n, slots int) []core.Event {
	rng := rand.New(rand.NewPCG(seed, 7))
	const ms = int64(time.Millisecond)
	var evs []core.Event
	emit := func(ns int64, e core.Event) {
		e.Time = t0.Add(time.Duration(ns))
		evs = append(evs, e)
	}
	emit(0, core.Event{Kind: core.Resized, Weight: int64(slots)})
	free := make([]int64, slots)      // when each slot frees
	keyFree := make(map[string]int64) // when each key's lane is idle
	live := make(map[string]bool)
	const idle = 3 * ms
	arrival := int64(0)
	for id := uint64(1); id <= uint64(n); id++ {
		arrival += rng.Int64N(ms)
		e := core.Event{Task: id, Priority: core.Priority(rng.IntN(3) - 1), Weight: 1}
		if rng.IntN(4) == 0 {
			e.Name = fmt.Sprintf("job-%d", id)
		}
		if kind == simSemaphore {
			e.Weight = 1 + rng.Int64N(3)
		}
		s := slices.Index(free, slices.Min(free))
		start := max(arrival, free[s])
		if kind == simKeyed {
			e.Key = fmt.Sprintf("k%d", rng.IntN(6))
			if live[e.Key] && arrival > keyFree[e.Key]+idle {
				emit(keyFree[e.Key]+idle, core.Event{Kind: core.LaneEvicted, Key: e.Key})
				live[e.Key] = false
			}
			if !live[e.Key] {
				emit(arrival, core.Event{Kind: core.LaneCreated, Key: e.Key})
				live[e.Key] = true
			}
			start = max(start, keyFree[e.Key])
		}
		e.Kind = core.Enqueued
		emit(arrival, e)
		if start > arrival {
			e.Kind = core.Waiting
			emit(arrival, e)
			if rng.IntN(8) == 0 {
				e.Kind, e.Err = core.Canceled, errors.New("context canceled")
				emit(arrival+(start-arrival)/2, e)
				continue
			}
		}
		end := start + rng.Int64N(4*ms)
		free[s] = end
		if kind == simKeyed {
			keyFree[e.Key] = end
		}
		e.Kind, e.Lane = core.Started, s
		if kind == simSemaphore {
			e.Lane = 0
		}
		emit(start, e)
		switch o := rng.IntN(10); {
		case kind == simSemaphore:
			emit(end, core.Event{Kind: core.Finished, Weight: e.Weight})
		case o == 0:
			e.Kind, e.Err = core.Failed, errors.New("failed: \"quoted\"\n\tline")
			emit(end, e)
		case o == 1:
			e.Kind, e.Err = core.Panicked, &core.PanicError{Value: "boom"}
			emit(end, e)
		case o == 2:
			e.Kind, e.Err = core.Canceled, errors.New("context deadline exceeded")
			emit(end, e)
		default:
			e.Kind, e.Err = core.Finished, nil
			emit(end, e)
		}
		if id%50 == 0 {
			emit(arrival, core.Event{Kind: core.Resized, Weight: int64(slots + rng.IntN(3))})
		}
	}
	slices.SortStableFunc(evs, func(a, b core.Event) int { return a.Time.Compare(b.Time) })
	return evs
}
