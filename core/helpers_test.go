package core_test

import (
	"slices"
	"sync"

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
