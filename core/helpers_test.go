package core_test

import (
	"slices"
	"sync"
	"testing"

	"sluice/core"
)

// recorder collects events; it is safe for concurrent use.
type recorder struct {
	mu     sync.Mutex
	events []core.Event
}

func (r *recorder) observe(e core.Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *recorder) all() []core.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// kinds returns the kinds of the events of task id, in order.
func (r *recorder) kinds(id uint64) []core.EventKind {
	var ks []core.EventKind
	for _, e := range r.all() {
		if e.Task == id {
			ks = append(ks, e.Kind)
		}
	}
	return ks
}

// checkLives checks that each task's events make one valid life:
// Enqueued, perhaps Waiting, then Started and one of Finished, Failed,
// Panicked or Canceled, or Canceled alone.
func checkLives(t *testing.T, events []core.Event) {
	t.Helper()
	byTask := map[uint64][]core.EventKind{}
	for _, e := range events {
		if e.Task != 0 {
			byTask[e.Task] = append(byTask[e.Task], e.Kind)
		}
	}
	for id, ks := range byTask {
		rest := ks
		ok := len(rest) > 0 && rest[0] == core.Enqueued
		if ok {
			rest = rest[1:]
		}
		if ok && len(rest) > 0 && rest[0] == core.Waiting {
			rest = rest[1:]
		}
		switch {
		case !ok:
		case len(rest) == 1:
			ok = rest[0] == core.Canceled
		case len(rest) == 2:
			ok = rest[0] == core.Started && rest[1].Terminal()
		default:
			ok = false
		}
		if !ok {
			t.Errorf("task %d events = %v, want enqueued, [waiting], started, terminal (or canceled alone)", id, ks)
		}
	}
}
