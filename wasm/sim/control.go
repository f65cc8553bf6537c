package sim

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"sluice/core"
)

// Submit adds a burst of tasks to the run: now if b.AtMS is 0, else that
// long from now. Their parameters are drawn from the run's random source,
// after the scenario's own bursts. It returns an *InvalidError if the
// burst is not valid for the run's primitive (the weight is checked
// against the current limit), and an error if the run would then hold more
// than MaxTasks tasks or has stopped. Tasks the primitive refuses
// (core.ErrFull, core.ErrClosed) are reported as messages. It returns once
// the tasks submitted now have been handed over and the run is at rest.
func (r *Runner) Submit(b Burst) error {
	r.mu.Lock()
	sc := r.sc
	sc.Limit = r.limit
	made, stopped := len(r.tasks), r.stopped
	r.mu.Unlock()
	if ps := b.problems(sc); len(ps) > 0 {
		return &InvalidError{Problems: ps}
	}
	if stopped {
		return errors.New("the run has stopped: reset it to run more work")
	}
	if made+b.Count > MaxTasks {
		return fmt.Errorf("a run holds at most %s tasks; this one has %s, and the burst asks for %s more", num(MaxTasks), num(made), num(b.Count))
	}
	ts := r.makeTasks(b, -1)
	if b.AtMS > 0 {
		r.clock.AfterFunc(ms(b.AtMS), func() { r.fire(ts) })
		return nil
	}
	r.settle()
	r.fire(ts)
	r.flush()
	return nil
}

// Cancel cancels the task with the given name, as a click on its bar
// does, and returns once the run is at rest. A task not yet submitted (its
// burst is not due, or it is in its consumer's backlog) is withdrawn. A
// waiting or pending task leaves the queue without running; a running
// task's context is canceled and it ends however its body returns. For
// consume, a message its consumer has taken stops as soon as its handler
// runs; Consume reports it Failed with context.Canceled, since the
// consumer itself goes on, and the runner reports it Canceled, as the
// page counts it. It returns an error naming the problem if
// there is no such task or it has already ended. Its message says the
// task was canceled by you; a replay of the scenario's log says by which
// entry of the log instead, since the person watching a replay did not
// cancel it.
func (r *Runner) Cancel(name string) error {
	return r.cancelBy(name, "you")
}

// cancelBy is Cancel, whose message says who canceled the task.
func (r *Runner) cancelBy(name, who string) error {
	r.mu.Lock()
	t := r.byName(name)
	if t == nil {
		r.mu.Unlock()
		return fmt.Errorf("there is no task %q in this run", name)
	}
	if t.phase.final() {
		st := t.state()
		r.mu.Unlock()
		return fmt.Errorf("%s has already ended: it %s", name, map[State]string{
			StateSucceeded: "succeeded", StateFailed: "failed", StateCanceled: "was canceled",
			StatePanicked: "panicked", StateRefused: "was refused", StateWithdrawn: "was withdrawn",
		}[st])
	}
	if t.kicked {
		r.mu.Unlock()
		return fmt.Errorf("%s is already being canceled", name)
	}
	r.logTaskLocked(false, t, "%s canceled by %s", name, who)
	r.mu.Unlock()
	r.cancel([]*task{t})
	r.settle()
	r.flush()
	return nil
}

// cancel cancels ts: withdraws those not yet submitted and kicks the
// others.
func (r *Runner) cancel(ts []*task) {
	var fns []func()
	r.mu.Lock()
	for _, t := range ts {
		switch {
		case t.phase == phScheduled || t.phase == phBacklog:
			r.withdraw(t, "canceled before it was submitted")
		case t.phase.live() && !t.kicked:
			if f := r.kick(t); f != nil {
				fns = append(fns, f)
			}
		}
	}
	r.mu.Unlock()
	for _, f := range fns {
		f()
	}
}

// CancelAll cancels every task the run has submitted and not ended,
// waiting ones first and then running ones (so that no waiting task
// starts in a slot freed by the cancels), and returns once the run is at
// rest. Bursts not yet due stay scheduled.
func (r *Runner) CancelAll() {
	r.cancelWhere(func(t *task) bool { return t.phase == phBacklog || t.phase == phSubmitting || t.phase.pending() })
	r.settle()
	r.cancelWhere(func(t *task) bool { return t.phase.live() })
	r.settle()
	r.flush()
}

func (r *Runner) cancelWhere(match func(*task) bool) {
	r.mu.Lock()
	var ts []*task
	for _, t := range r.tasks {
		if match(t) {
			ts = append(ts, t)
		}
	}
	r.mu.Unlock()
	r.cancel(ts)
}

// Perform does a person's action, as the page's buttons do: a.Do is
// ActionLimit (with a.N), ActionCancelAll, ActionDrain or ActionClose, and
// a.AtMS is ignored. It logs a message saying what the person did (SetLimit
// logs its own); a replay of the scenario's log does each of its entries
// the same way, with the same messages, save that they name the entry of
// the log that did it rather than "you". It returns SetLimit's error,
// having changed and logged nothing, and an error for any other kind of
// action. It returns once the run is at rest.
func (r *Runner) Perform(a Action) error {
	return r.performBy(a, "you")
}

// performBy is Perform, whose message says who did the action.
func (r *Runner) performBy(a Action, who string) error {
	switch a.Do {
	case ActionLimit:
		return r.SetLimit(a.N)
	case ActionCancelAll:
		r.logf(false, "", "%s canceled every task", who)
		r.CancelAll()
	case ActionDrain:
		r.logf(false, "", "%s asked the %s to drain: it takes no new tasks and finishes those it has", who, r.noun())
		r.Drain()
	case ActionClose:
		r.logf(false, "", "%s closed the %s", who, r.noun())
		r.Close()
	default:
		return fmt.Errorf("there is no action %q", a.Do)
	}
	return nil
}

// SetLimit changes the primitive's limit at run time: Semaphore.SetLimit,
// WorkQueue/Processor SetParallelism, or SetLimit on the semaphore
// consumers share. Growing starts waiting work at once; shrinking lets
// running work finish. It returns an error, changing nothing, when n is
// outside 1..MaxLimit, the run has stopped, or the primitive cannot be
// resized (the keyed queue's parallelism is fixed when it is made). It
// returns once the run is at rest.
func (r *Runner) SetLimit(n int) error {
	if n < 1 || n > MaxLimit {
		return errors.New(limitProblem("the limit", n, 1))
	}
	if r.isStopped() {
		return errors.New("the run has stopped: reset it to change the limit")
	}
	if err := r.b.setLimit(r, n); err != nil {
		return err
	}
	r.logf(false, "", "the limit is now %d", n)
	r.settle()
	r.flush()
	return nil
}

// Drain stops the run taking new work and lets every accepted task
// finish: WorkQueue/Processor/KeyedQueue Drain; for consume, each
// consumer's channel is closed once the messages already sent to it have
// been handed over, so that Consume returns; for the semaphore, which has
// no drain of its own, the run refuses new tasks. It does not wait: the
// returned channel is closed once the run has drained (also reported as a
// message, and for the queues by their Closed event), or once the run is
// stopped. Calling it again returns the same channel.
func (r *Runner) Drain() <-chan struct{} {
	r.mu.Lock()
	if r.draining || r.stopped {
		ch := r.drained
		r.mu.Unlock()
		return ch
	}
	r.draining = true
	r.gen++
	r.mu.Unlock()
	r.b.drain(r)
	r.mu.Lock()
	r.checkDrained()
	r.mu.Unlock()
	r.settle()
	r.flush()
	return r.drained
}

// Close aborts the run's work, as the page's Close button does:
// WorkQueue/Processor/KeyedQueue Close (pending tasks are canceled without
// running, running ones have their context canceled); for consume, every
// consumer's context is canceled and Consume returns; for the semaphore,
// which has no Close of its own, every task is canceled and new ones are
// refused. It does not wait for virtual time: it returns once the run is
// at rest, by which time every task has ended. Later tasks are refused.
func (r *Runner) Close() {
	r.mu.Lock()
	if r.closing || r.stopped {
		r.mu.Unlock()
		return
	}
	r.closing = true
	r.gen++
	r.mu.Unlock()
	r.b.close(r)
	r.settle()
	r.flush()
}

// Stop ends the run: it withdraws tasks not yet submitted, cancels every
// other task, and closes the primitive, without waiting. Time no longer
// moves. Call Wait to wait for every goroutine the runner started. It may
// be called more than once.
func (r *Runner) Stop() {
	var fns []func()
	r.mu.Lock()
	if r.stopped {
		r.mu.Unlock()
		return
	}
	r.stopped = true
	for _, t := range r.tasks {
		switch {
		case t.phase == phScheduled || t.phase == phBacklog:
			r.withdraw(t, "the run stopped before it was submitted")
		case t.phase.live():
			if f := r.kick(t); f != nil {
				fns = append(fns, f)
			}
		}
	}
	if !r.drainDone {
		r.drainDone = true
		close(r.drained)
	}
	r.mu.Unlock()
	for _, f := range fns {
		f()
	}
	r.b.stop(r)
	r.nudge()
	r.flush()
}

// Wait blocks until every goroutine the runner started has returned: the
// tasks' goroutines, the primitive's Close and Drain calls, and the
// consumers. Call it after Stop, or after the run has drained or closed.
func (r *Runner) Wait() {
	r.wg.Wait()
	r.flush()
}

// Stats is a snapshot of a run's counters.
type Stats struct {
	Primitive string
	Now       time.Duration // virtual time since the run started
	Limit     int           // tokens or parallelism now; 0: no limit (keyed)

	// The runner's counts, from the primitive's events.
	Tasks      int // tasks made so far, scheduled ones included
	Scheduled  int // made; their burst is not due yet
	Backlog    int // consume: sent, not yet taken by their consumer
	Submitted  int // accepted by the primitive (Enqueued events)
	Pending    int // accepted, not started; Waiting ones included
	Waiting    int // reported Waiting
	Running    int
	Succeeded  int
	Failed     int
	Canceled   int
	Panicked   int
	Refused    int // turned away by the primitive or the run
	Withdrawn  int // canceled before they were submitted
	MaxRunning int // the most tasks running at once
	Tokens     int64
	MaxTokens  int64 // semaphore: the most tokens held at once
	Lanes      int   // keyed: live lanes

	// The primitive's own counters: Queue for the work queue, processor
	// and keyed queue; Semaphore for the semaphore, and for consume and
	// shared the semaphore the consumers or work queues share; Queues for
	// shared, each work queue's in order.
	Queue     core.QueueStats
	Semaphore core.SemaphoreStats
	Queues    []core.QueueStats

	Goroutines int // runtime.NumGoroutine: every live goroutine of the program

	Draining, Drained, Closing, Stopped bool
}

// Stats returns a snapshot of the run's counters. It does not block
// beyond short locks.
func (r *Runner) Stats() Stats {
	snap := r.b.snapshot()
	r.mu.Lock()
	st := Stats{
		Primitive:  r.sc.Primitive,
		Now:        r.now(),
		Limit:      r.limit,
		Tasks:      len(r.tasks),
		Scheduled:  r.sched,
		Backlog:    r.backlog,
		Submitted:  r.enqueued,
		Pending:    r.pending,
		Waiting:    r.waiting,
		Running:    r.running,
		Succeeded:  r.outcomes[0],
		Failed:     r.outcomes[1],
		Canceled:   r.outcomes[2],
		Panicked:   r.outcomes[3],
		Refused:    r.refused,
		Withdrawn:  r.drawn,
		MaxRunning: r.maxRun,
		Tokens:     r.tokens,
		MaxTokens:  r.maxTok,
		Lanes:      r.lanes,
		Queue:      snap.queue,
		Semaphore:  snap.sem,
		Queues:     snap.queues,
		Draining:   r.draining,
		Drained:    r.drainDone && r.draining,
		Closing:    r.closing,
		Stopped:    r.stopped,
	}
	r.mu.Unlock()
	st.Goroutines = runtime.NumGoroutine()
	return st
}
