package sim

import (
	"context"
	"errors"
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
