package sim

import (
	"fmt"
	"strconv"
	"strings"

	"sluice/core"
)

// sharedBackend runs one core.WorkQueue per entry of Scenario.Consumers,
// each with its own parallelism, all drawing a token from one shared
// core.Semaphore (core.WithSemaphore) for each task they run. A task's
// priority is its queue's: it orders the queue's pending tasks and the
// semaphore's waiters.
//
// Each queue has its own observer and numbers its tasks itself; the
// observer finds the task by its name, counts it for its queue, and gives
// the event the queue's name as Key, so that the page draws one lane per
// queue slot.
type sharedBackend struct {
	sem    *core.Semaphore // shared; no observer: its grants show in the queues' events
	queues []*sharedQueue
}

// sharedQueue is one work queue. Its counts, from its events, are guarded
// by Runner.mu; the fields above the line are immutable.
type sharedQueue struct {
	name string
	par  int
	q    *core.WorkQueue

	pending, running int  // tasks Enqueued and not started; started and not ended
	enqueued, ended  int  // Enqueued events; terminal events
	closed           bool // the queue reported Closed
}

func newSharedBackend(r *Runner) *sharedBackend {
	b := &sharedBackend{sem: core.NewSemaphore(int64(r.sc.Limit), core.WithClock(r.clock))}
	for i, c := range r.sc.Consumers {
		sq := &sharedQueue{name: r.kind.GroupName(i), par: c.Concurrency}
		opts := []core.Option{
			core.WithSemaphore(b.sem),
			core.WithObserver(func(e core.Event) { b.observe(r, sq, e) }),
			core.WithClock(r.clock),
		}
		if r.sc.Capacity > 0 {
			opts = append(opts, core.WithCapacity(r.sc.Capacity))
		}
		sq.q = core.NewWorkQueue(c.Concurrency, opts...)
		b.queues = append(b.queues, sq)
	}
	return b
}

// observe is queue sq's observer.
func (b *sharedBackend) observe(r *Runner, sq *sharedQueue, e core.Event) {
	errText := errorText(e.Err)
	r.mu.Lock()
	if e.Task != 0 {
		if t := r.byName(e.Name); t != nil {
			p0 := t.phase
			r.apply(t, &e, errText)
			p1 := t.phase
			sq.pending += b2i(p1.pending()) - b2i(p0.pending())
			sq.running += b2i(p1.running()) - b2i(p0.running())
			sq.enqueued += b2i(p0 == phSubmitting && p1 == phQueued)
			sq.ended += b2i(p1 == phEnded && p0 != phEnded)
			e.Task = uint64(t.n)
		}
	} else if e.Kind == core.Closed {
		sq.closed = true
		r.logLocked(Message{At: r.now(), Text: fmt.Sprintf("%s has stopped: every task it accepted has ended", sq.name)})
		if b.drained(r) {
			r.closedSeen = true
		}
		r.checkDrained()
		r.gen++
		r.nudge()
	}
	e.Key = sq.name
	r.mu.Unlock()
	r.forward(e)
	r.flush()
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (b *sharedBackend) submit(r *Runner, t *task) {
	h, err := b.queues[t.consumer].q.TrySubmit(r.body(t), core.WithName(t.name), core.WithPriority(t.prio))
	r.submitted(t, h, err)
}

func (b *sharedBackend) snapshot() snapshot {
	s := snapshot{sem: b.sem.Stats(), queues: make([]core.QueueStats, len(b.queues))}
	for i, sq := range b.queues {
		s.queues[i] = sq.q.Stats()
	}
	return s
}

// quiet: each queue's counters agree with its events, the shared
// semaphore's tokens are held by the tasks that started, and every task a
// queue has taken into a free slot waits for a token: a queue with free
// slots takes its pending tasks at once, and such a task waits on the
// semaphore (counted in Pending) until it is granted one, which starts
// it. A drain or close that has nothing left to do in a queue must also
// have reported the queue Closed.
func (b *sharedBackend) quiet(r *Runner, s snapshot) bool {
	if s.sem.InUse != r.tokens {
		return false
	}
	taken := 0
	for i, sq := range b.queues {
		st := s.queues[i]
		if st.Pending != sq.pending || st.Running != sq.running || st.Submitted != uint64(sq.enqueued) ||
			st.Succeeded+st.Failed+st.Canceled+st.Panicked != uint64(sq.ended) {
			return false
		}
		taken += max(min(sq.pending, sq.par-sq.running), 0)
		if (r.draining || r.closing) && sq.pending+sq.running == 0 && !sq.closed {
			return false
		}
	}
	return s.sem.Waiters == taken
}

func (b *sharedBackend) refusal(r *Runner) string { return "" }

func (b *sharedBackend) drained(r *Runner) bool {
	for _, sq := range b.queues {
		if !sq.closed {
			return false
		}
	}
	return true
}

func (b *sharedBackend) setLimit(r *Runner, n int) error { return r.setSharedLimit(b.sem, n) }

// drain starts every queue's Drain, each on a goroutine of the runner's;
// completion shows as each queue's Closed.
func (b *sharedBackend) drain(r *Runner) {
	for _, sq := range b.queues {
		r.drainAsync(sq.q.Drain)
	}
}

// close closes every queue with closeQueues, busy until the last Close
// returns.
func (b *sharedBackend) close(r *Runner) { r.closeQueues(b.closeAll) }

func (b *sharedBackend) stop(r *Runner) { r.spawn(b.closeAll) }

// closeAll closes the queues one after the other; each Close cancels the
// queue's tasks and waits for them to return.
func (b *sharedBackend) closeAll() {
	for _, sq := range b.queues {
		sq.q.Close()
	}
}

// sharedKind is several core.WorkQueues drawing a token of one shared
// core.Semaphore for each task they run (core.WithSemaphore).
var sharedKind = &Kind{
	ID: Shared, Title: "WorkQueues + Semaphore", Noun: "work queues",
	LimitWhat: "the shared limit", LimitLabel: "Shared semaphore tokens", LimitHint: "one global limit for every queue's tasks", MinLimit: 1, Resizable: true,
	CapacityLabel: "Capacity (per queue)", CapacityHint: "WithCapacity: pending tasks each queue holds; 0: unbounded",
	Slots:  true,
	Groups: "queue", GroupSize: "parallelism", GroupSizeTitle: "NewWorkQueue(n, WithSemaphore(sem))",
	GroupsLabel:   "Work queues (parallelism, priority: any whole number)",
	DefaultGroups: []Consumer{{Concurrency: 3}, {Concurrency: 2, Priority: 1}},
	Signature: func(s Scenario) string {
		return fmt.Sprintf("WorkQueue ×%d, WithSemaphore(NewSemaphore(%d))", len(s.Consumers), s.Limit)
	},
	newBackend: func(r *Runner) backend { return newSharedBackend(r) },
	code: func(g *gen, s Scenario) {
		capacity := capacityOption(s)
		g.p("// One limit across the queues: each task takes a token of sem while it runs.")
		g.p("sem := core.NewSemaphore(%d, core.WithClock(r.clock))", s.Limit)
		var pars []string
		for _, c := range s.Consumers {
			pars = append(pars, strconv.Itoa(c.Concurrency))
		}
		g.p("var qs []*core.WorkQueue")
		g.p("for i, parallelism := range []int{%s} {", strings.Join(pars, ", "))
		g.p("name := \"queue-\" + strconv.Itoa(i+1)")
		g.p("qs = append(qs, core.NewWorkQueue(parallelism, core.WithSemaphore(sem), core.WithObserver(r.observe(name)), core.WithClock(r.clock)%s))", capacity)
		g.p("}")
		g.p(`r.submit = func(t *task) {
		h, err := qs[t.consumer].TrySubmit(r.body(t), core.WithName(t.name), core.WithPriority(t.prio))
		r.accepted(t, h, err)
		}
		setLimit := func(n int) {
		sem.SetLimit(int64(n))
		r.rest()
		}
		drain := func() {
		for _, q := range qs {
			r.goWait(func() { q.Drain(context.Background()) })
		}
		r.rest()
		}
		closeAll := func() {
		r.kickAll()
		r.goWait(func() {
			for _, q := range qs {
				q.Close()
			}
		})
		}
		stop := func() {
		for _, q := range qs {
			q.Close()
		}
		}`)
	},
}
