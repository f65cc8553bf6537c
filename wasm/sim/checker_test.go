package sim_test

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"sluice/core"
	"sluice/wasm/sim"
)

// checker observes a run's events and checks, event by event, what a
// person watching the timeline relies on: each task's events come in
// order and end once; no more tasks (or tokens) run at once than the
// limit allows; a key never runs two tasks at once; a consumer never runs
// more than its concurrency, nor a shared work queue more than its
// parallelism.
type checker struct {
	t    *testing.T
	prim string
	conc map[string]int // consume: each consumer's concurrency

	mu       sync.Mutex
	limit    int64 // the highest limit so far; 0: none
	tasks    map[uint64]*seen
	running  int
	tokens   int64
	maxRun   int
	maxTok   int64
	perKey   map[string]int
	lanes    int
	ends     map[core.EventKind]int
	resized  []int64
	closed   int
	problems []string
}

type seen struct {
	name     string
	weight   int64
	key      string
	enqueued bool
	waiting  bool
	started  bool
	ended    bool
}

func newChecker(t *testing.T, s sim.Scenario) *checker {
	c := &checker{
		t: t, prim: s.Primitive, limit: int64(s.Limit), conc: make(map[string]int),
		tasks: make(map[uint64]*seen), perKey: make(map[string]int), ends: make(map[core.EventKind]int),
	}
	for i, cs := range s.Consumers {
		c.conc[sim.KindOf(s.Primitive).GroupName(i)] = cs.Concurrency
	}
	return c
}

func (c *checker) failf(format string, args ...any) {
	if len(c.problems) < 20 {
		c.problems = append(c.problems, fmt.Sprintf(format, args...))
	}
}

func (c *checker) observe(e core.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch e.Kind {
	case core.Resized:
		c.resized = append(c.resized, e.Weight)
		c.limit = max(c.limit, e.Weight)
		return
	case core.LaneCreated:
		c.lanes++
		return
	case core.LaneEvicted:
		c.lanes--
		if c.lanes < 0 {
			c.failf("lane %s evicted more often than created", e.Key)
		}
		return
	case core.Closed:
		c.closed++
		return
	}
	if e.Task == 0 {
		c.failf("%v event with Task 0", e.Kind)
		return
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(e.Name, "t")); err != nil || uint64(n) != e.Task {
		c.failf("%v event of Task %d has Name %q; want Task to be the number in the name", e.Kind, e.Task, e.Name)
	}
	s := c.tasks[e.Task]
	if s == nil {
		s = &seen{name: e.Name, weight: e.Weight, key: e.Key}
		c.tasks[e.Task] = s
	}
	if s.ended {
		c.failf("%s: %v after its end", s.name, e.Kind)
		return
	}
	if c.prim == sim.Consume && !strings.HasPrefix(e.Key, "consumer-") {
		c.failf("%s: consume event with Key %q, want the consumer's name", s.name, e.Key)
	}
	if c.prim == sim.Shared && !strings.HasPrefix(e.Key, "queue-") {
		c.failf("%s: shared event with Key %q, want the work queue's name", s.name, e.Key)
	}
	switch e.Kind {
	case core.Enqueued:
		if s.enqueued {
			c.failf("%s: enqueued twice", s.name)
		}
		s.enqueued = true
	case core.Waiting:
		if !s.enqueued || s.started || s.waiting {
			c.failf("%s: waiting out of order", s.name)
		}
		s.waiting = true
	case core.Started:
		if !s.enqueued || s.started {
			c.failf("%s: started out of order", s.name)
		}
		s.started = true
		c.running++
		c.tokens += s.weight
		c.maxRun = max(c.maxRun, c.running)
		c.maxTok = max(c.maxTok, c.tokens)
		c.perKey[s.key]++
		switch c.prim {
		case sim.Semaphore:
			if c.tokens > c.limit {
				c.failf("%s started: %d tokens held, limit %d", s.name, c.tokens, c.limit)
			}
		case sim.WorkQueue, sim.Processor:
			if int64(c.running) > c.limit {
				c.failf("%s started: %d running, parallelism %d", s.name, c.running, c.limit)
			}
		case sim.Keyed:
			if c.perKey[s.key] > 1 {
				c.failf("%s started while key %s was running another task", s.name, s.key)
			}
			if c.limit > 0 && int64(c.running) > c.limit {
				c.failf("%s started: %d running, parallelism %d", s.name, c.running, c.limit)
			}
		case sim.Consume:
			if c.perKey[s.key] > c.conc[s.key] {
				c.failf("%s started: %s runs %d messages, concurrency %d", s.name, s.key, c.perKey[s.key], c.conc[s.key])
			}
		case sim.Shared:
			if c.perKey[s.key] > c.conc[s.key] {
				c.failf("%s started: %s runs %d tasks, parallelism %d", s.name, s.key, c.perKey[s.key], c.conc[s.key])
			}
			if int64(c.running) > c.limit {
				c.failf("%s started: %d running across the queues, shared limit %d", s.name, c.running, c.limit)
			}
		}
	case core.Finished, core.Failed, core.Canceled, core.Panicked:
		if !s.enqueued {
			c.failf("%s: ended before it was enqueued", s.name)
		}
		s.ended = true
		c.ends[e.Kind]++
		if s.started {
			c.running--
			c.tokens -= s.weight
			c.perKey[s.key]--
		}
	default:
		c.failf("unexpected %v event", e.Kind)
	}
}

// verify reports the problems seen, and checks that the counts of the
// events agree with the run's.
func (c *checker) verify(st sim.Stats) {
	c.t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.problems {
		c.t.Error(p)
	}
	if got, want := c.ends[core.Finished], st.Succeeded; got != want {
		c.t.Errorf("Finished events = %d, Stats.Succeeded = %d", got, want)
	}
	if got, want := c.ends[core.Failed], st.Failed; got != want {
		c.t.Errorf("Failed events = %d, Stats.Failed = %d", got, want)
	}
	if got, want := c.ends[core.Canceled], st.Canceled; got != want {
		c.t.Errorf("Canceled events = %d, Stats.Canceled = %d", got, want)
	}
	if got, want := c.ends[core.Panicked], st.Panicked; got != want {
		c.t.Errorf("Panicked events = %d, Stats.Panicked = %d", got, want)
	}
	// Consume reports a message's end after it releases its token, so the
	// next message's start may be reported first: the peaks of the event
	// stream then depend on scheduling (see the runner tests).
	if got, want := c.maxRun, st.MaxRunning; got != want && c.prim != sim.Consume {
		c.t.Errorf("most running seen in events = %d, Stats.MaxRunning = %d", got, want)
	}
}
