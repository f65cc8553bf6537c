package sim

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"sluice/core"
)

// queueBackend runs tasks through a WorkQueue, a Processor or a
// KeyedQueue: tasks are submitted without blocking (TrySubmit, which
// refuses a task with ErrFull beyond the capacity) and run on the queue's
// own goroutines.
type queueBackend struct {
	q interface {
		Stats() core.QueueStats
		Close() error
		Drain(context.Context) error
	}
	try    func(t *task, body func(context.Context) error) (*core.Task, error)
	resize func(int) // nil when the primitive cannot be resized
	keyed  bool
}

// queueOptions returns the options a queue backend makes its primitive
// with: the runner's observer and clock, then extra, then the scenario's
// capacity, if it sets one.
func (r *Runner) queueOptions(extra ...core.Option) []core.Option {
	opts := append([]core.Option{core.WithObserver(r.observeEvent), core.WithClock(r.clock)}, extra...)
	if r.sc.Capacity > 0 {
		opts = append(opts, core.WithCapacity(r.sc.Capacity))
	}
	return opts
}

func newWorkQueueBackend(r *Runner) *queueBackend {
	q := core.NewWorkQueue(r.sc.Limit, r.queueOptions()...)
	return &queueBackend{
		q: q,
		try: func(t *task, body func(context.Context) error) (*core.Task, error) {
			return q.TrySubmit(body, core.WithName(t.name), core.WithPriority(t.prio))
		},
		resize: q.SetParallelism,
	}
}

func newProcessorBackend(r *Runner) *queueBackend {
	// The processor's function is the task's body; its result is the time
	// the task slept.
	p := core.NewProcessor(r.sc.Limit, func(ctx context.Context, t *task) (time.Duration, error) {
		return t.dur, r.body(t)(ctx)
	}, r.queueOptions()...)
	return &queueBackend{
		q: p,
		try: func(t *task, _ func(context.Context) error) (*core.Task, error) {
			f, err := p.TrySubmit(t, core.WithName(t.name), core.WithPriority(t.prio))
			if err != nil {
				return nil, err
			}
			return f.Task(), nil
		},
		resize: p.SetParallelism,
	}
}

func newKeyedBackend(r *Runner) *queueBackend {
	var opts []core.Option
	if r.sc.Limit > 0 {
		opts = append(opts, core.WithParallelism(r.sc.Limit))
	}
	if r.sc.IdleMS > 0 {
		opts = append(opts, core.WithIdleTimeout(ms(r.sc.IdleMS)))
	}
	q := core.NewKeyedQueue[string](r.queueOptions(opts...)...)
	return &queueBackend{
		q: q,
		try: func(t *task, body func(context.Context) error) (*core.Task, error) {
			// The task is canceled through its handle: the queue watches
			// no context for it.
			return q.TrySubmit(t.key, body, core.WithName(t.name), core.WithPriority(t.prio))
		},
		keyed: true,
	}
}

func (b *queueBackend) submit(r *Runner, t *task) {
	h, err := b.try(t, r.body(t))
	r.submitted(t, h, err)
}

// submitted records the outcome of handing t to a work queue: refused
// with err, or accepted as h, which is canceled at once if the runner
// canceled t meanwhile.
func (r *Runner) submitted(t *task, h *core.Task, err error) {
	if err == nil {
		r.setCancel(t, h.Cancel)
		return
	}
	r.mu.Lock()
	if t.phase == phSubmitting {
		r.refuseLocked(t, err)
		r.checkDrained()
	}
	r.mu.Unlock()
}

func (b *queueBackend) snapshot() snapshot { return snapshot{queue: b.q.Stats()} }

// quiet: the queue's counters agree with the events (a task taken by a
// worker, or ended, shows in the counters before its event), and no task
// is about to start: none is pending while a slot is free (a key lane is
// free, for the keyed queue). A drain or close that has nothing left to do
// must also have reported Closed.
func (b *queueBackend) quiet(r *Runner, s snapshot) bool {
	q := s.queue
	if q.Pending != r.pending || q.Running != r.running || q.Submitted != uint64(r.enqueued) ||
		q.Succeeded != uint64(r.outcomes[0]) || q.Failed != uint64(r.outcomes[1]) ||
		q.Canceled != uint64(r.outcomes[2]) || q.Panicked != uint64(r.outcomes[3]) {
		return false
	}
	if b.keyed {
		if q.Lanes != r.lanes {
			return false
		}
		if q.Parallelism == 0 || r.running < q.Parallelism {
			for _, k := range r.keys {
				if k.pending > 0 && k.running == 0 {
					return false
				}
			}
		}
	} else if r.pending > 0 && r.running < q.Parallelism {
		return false
	}
	if (r.draining || r.closing) && r.live == 0 && !r.closedSeen {
		return false
	}
	return true
}

func (b *queueBackend) refusal(r *Runner) string { return "" }

func (b *queueBackend) drained(r *Runner) bool { return r.closedSeen }

func (b *queueBackend) setLimit(r *Runner, n int) error {
	if b.resize == nil {
		return errors.New("the keyed queue's parallelism is set when it is made (core.WithParallelism) and cannot change while it runs: change the limit in the scenario and reset the run")
	}
	b.resize(n)
	return nil
}

// drain starts the queue's Drain on a goroutine of the runner's, blocked
// until the queue stops (Drain with a context that has already ended
// changes nothing). Completion shows as the Closed event.
func (b *queueBackend) drain(r *Runner) { r.drainAsync(b.q.Drain) }

// close closes the queue with closeQueues.
func (b *queueBackend) close(r *Runner) { r.closeQueues(func() { b.q.Close() }) }

func (b *queueBackend) stop(r *Runner) { r.spawn(func() { b.q.Close() }) }

// closeQueues is Close for the backends built on work queues: it kicks
// every live task (the queues' Close cancels them) and calls closeAll,
// which closes the queues, on a goroutine of the runner's that counts as
// busy until closeAll returns: Close waits only for the canceled tasks to
// return.
func (r *Runner) closeQueues(closeAll func()) {
	r.mu.Lock()
	for _, t := range r.tasks {
		if t.phase.live() && !t.kicked {
			r.kick(t)
		}
	}
	r.aux++
	r.mu.Unlock()
	r.spawn(func() {
		closeAll()
		r.mu.Lock()
		r.aux--
		r.gen++
		r.mu.Unlock()
		r.nudge()
	})
}

// workQueueKind is core.WorkQueue: tasks run in worker slots, in priority
// order.
var workQueueKind = &Kind{
	ID: WorkQueue, Title: "WorkQueue", Noun: "work queue",
	LimitWhat: "parallelism", LimitLabel: "Parallelism", LimitHint: "workers at once", MinLimit: 1, Resizable: true,
	CapacityLabel: "Capacity", CapacityHint: "WithCapacity: pending tasks held; 0: unbounded", Slots: true,
	Signature: func(s Scenario) string {
		return "WorkQueue(" + strconv.Itoa(s.Limit) + optList(capacityOpt(s)) + ")"
	},
	newBackend: func(r *Runner) backend { return newWorkQueueBackend(r) },
	code: func(g *gen, s Scenario) {
		g.p("q := core.NewWorkQueue(%d, core.WithObserver(r.observe(\"\")), core.WithClock(r.clock)%s)", s.Limit, capacityOption(s))
		g.p(`r.submit = func(t *task) {
h, err := q.TrySubmit(r.body(t), core.WithName(t.name), core.WithPriority(t.prio))
r.accepted(t, h, err)
}`)
		queueCode(g, true)
	},
}

// processorKind is core.Processor: a work queue whose tasks return a
// value, here the time they slept.
var processorKind = &Kind{
	ID: Processor, Title: "Processor", Noun: "processor",
	LimitWhat: "parallelism", LimitLabel: "Parallelism", LimitHint: "workers at once", MinLimit: 1, Resizable: true,
	CapacityLabel: "Capacity", CapacityHint: "WithCapacity: pending tasks held; 0: unbounded", Slots: true,
	Signature: func(s Scenario) string {
		return "Processor(" + strconv.Itoa(s.Limit) + optList(capacityOpt(s)) + ")"
	},
	newBackend: func(r *Runner) backend { return newProcessorBackend(r) },
	code: func(g *gen, s Scenario) {
		g.p("// The processor's function is the task's body; its result is the time it slept.")
		g.p("q := core.NewProcessor(%d, func(ctx context.Context, t *task) (time.Duration, error) {", s.Limit)
		g.p("return t.dur, r.body(t)(ctx)")
		g.p("}, core.WithObserver(r.observe(\"\")), core.WithClock(r.clock)%s)", capacityOption(s))
		g.p(`r.submit = func(t *task) {
f, err := q.TrySubmit(t, core.WithName(t.name), core.WithPriority(t.prio))
if err != nil {
r.accepted(t, nil, err)
return
}
r.accepted(t, f.Task(), nil)
}`)
		queueCode(g, true)
	},
}

// keyedKind is core.KeyedQueue: one lane per key, each key's tasks one
// at a time and in order.
var keyedKind = &Kind{
	ID: Keyed, Title: "KeyedQueue", Noun: "keyed queue",
	LimitWhat: "the keyed queue's parallelism", LimitLabel: "Parallelism across keys", LimitHint: "WithParallelism; 0: no limit",
	Idle: true, Keys: true,
	CapacityLabel: "Capacity (per key)", CapacityHint: "WithCapacity: pending tasks each key holds; 0: unbounded",
	Signature: func(s Scenario) string {
		var opts []string
		if s.Limit > 0 {
			opts = append(opts, "WithParallelism("+strconv.Itoa(s.Limit)+")")
		}
		if s.IdleMS > 0 {
			opts = append(opts, "WithIdleTimeout("+clockText(s.IdleMS)+")")
		}
		opts = append(opts, capacityOpt(s)...)
		return "KeyedQueue(" + strings.TrimPrefix(optList(opts), ", ") + ")"
	},
	newBackend: func(r *Runner) backend { return newKeyedBackend(r) },
	code: func(g *gen, s Scenario) {
		opts := ""
		if s.Limit > 0 {
			opts += fmt.Sprintf(", core.WithParallelism(%d)", s.Limit)
		}
		if s.IdleMS > 0 {
			opts += fmt.Sprintf(", core.WithIdleTimeout(%s)", durArg(s.IdleMS))
		}
		g.p("q := core.NewKeyedQueue[string](core.WithObserver(r.observe(\"\")), core.WithClock(r.clock)%s%s)", opts, capacityOption(s))
		g.p(`r.submit = func(t *task) {
h, err := q.TrySubmit(t.key, r.body(t), core.WithName(t.name), core.WithPriority(t.prio))
r.accepted(t, h, err)
}`)
		queueCode(g, false)
	},
}

// capacityOpt lists the scenario's WithCapacity option for a signature.
func capacityOpt(s Scenario) []string {
	if s.Capacity > 0 {
		return []string{"WithCapacity(" + strconv.Itoa(s.Capacity) + ")"}
	}
	return nil
}

// queueCode writes a queue's setLimit, drain, closeAll and stop. Drain
// runs on a goroutine of its own: it waits for the accepted work (and with
// a context that has already ended it would change nothing).
func queueCode(g *gen, resizable bool) {
	if !resizable {
		g.p(`setLimit := func(int) {} // the parallelism is fixed when the queue is made`)
	} else {
		g.p(`setLimit := func(n int) {
q.SetParallelism(n)
r.rest()
}`)
	}
	g.p(`// Drain stops taking tasks at once and waits for the accepted work: on
// a goroutine of its own, while the run goes on.
drain := func() {
r.goWait(func() { q.Drain(context.Background()) })
r.rest()
}`)
	g.p(`// Close cancels pending and running work and waits for it.
closeAll := func() {
r.kickAll()
r.goWait(func() { q.Close() })
}
stop := func() { q.Close() }`)
}
