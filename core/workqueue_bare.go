package core

import (
	"context"
	"sync/atomic"
	"time"
)

// Go adds fn to the queue, as [WorkQueue.Submit] does, but returns no
// handle: only whether fn was accepted. It blocks, like Submit, only while
// the queue is at capacity, and returns the same errors (ctx.Err(),
// [ErrClosed], or [ErrFull] from one of the queue's own tasks), leaving the
// queue unchanged. fn's outcome is counted in [WorkQueue.Stats] and
// reported to an observer; nothing else sees its error or panic, so fn
// should deal with them itself. Tasks start in priority order, and in the
// order of their Go and Submit calls within a priority; Close cancels
// those not started.
//
// When ctx is [context.Background] and the queue has no observer, the task
// is bare: Go allocates nothing for it, and its function runs with a
// context that all the queue's bare tasks share, which has no values or
// deadline and is done once the queue is closed (also after fn returned).
// Otherwise fn's context is a task's own, as with Submit.
func (q *WorkQueue) Go(ctx context.Context, fn func(context.Context) error, opts ...TaskOption) error {
	if fn == nil {
		panic("core: WorkQueue.Go with a nil function")
	}
	if ctx == background && q.cfg.observer == nil {
		prio := Normal
		if len(opts) > 0 {
			prio = newTaskConfig(opts).priority
		}
		return q.goBare(fn, prio)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	t := newWQTask(q, ctx, fn)
	if len(opts) > 0 {
		t.options(opts)
	}
	return q.submit(ctx, t, true)
}

// background is context.Background(), for comparison.
var background = context.Background()

// goBare queues fn as a bare task of priority prio.
func (q *WorkQueue) goBare(fn func(context.Context) error, prio Priority) error {
	q.mu.Lock()
	if q.state != wqOpen || q.capacity != 0 {
		if err := q.admitLocked(background, true); err != nil {
			q.mu.Unlock()
			return err
		}
	}
	q.submitted++
	q.pending.pushBare(fn, prio)
	if q.workers < q.limit {
		q.workers++
		go q.workFn()
	}
	q.mu.Unlock()
	return nil
}

// runBare calls a bare task's function, on a worker that holds a slot.
func (q *WorkQueue) runBare(fn func(context.Context) error) TaskState {
	ctx := q.bareContext()
	state, _ := outcome(ctx, call(ctx, fn))
	return state
}

// bareContext returns the context of the queue's bare tasks.
func (q *WorkQueue) bareContext() *wqBareContext { return (*wqBareContext)(q) }

// wqBareContext is a queue seen as the context of its bare tasks. It is
// done, with context.Canceled, once the queue is closed.
type wqBareContext WorkQueue

// wqBare holds the bare tasks' context's Done channel and AfterFunc
// functions, made on first need; guarded by the queue's mutex.
type wqBare struct {
	done      atomic.Pointer[chan struct{}] // read without the lock once set
	afters    []wqAfter
	nextAfter uint64
}

// Deadline reports that there is no deadline.
func (c *wqBareContext) Deadline() (time.Time, bool) { return time.Time{}, false }

// Value returns nil: the context carries no values.
func (c *wqBareContext) Value(key any) any {
	if _, ok := key.(wqContextKey); ok {
		return c
	}
	return nil
}

// String describes the context, as the standard library's contexts do.
func (c *wqBareContext) String() string { return "context.Background.WithWorkQueue" }

// Err returns context.Canceled once the queue is closed, and nil before.
func (c *wqBareContext) Err() error {
	if c.closed.Load() {
		return context.Canceled
	}
	return nil
}

// Done returns a channel closed when the queue is closed.
func (c *wqBareContext) Done() <-chan struct{} {
	if p := c.bare.done.Load(); p != nil {
		return *p
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.bare.done.Load(); p != nil {
		return *p
	}
	done := make(chan struct{})
	if c.state == wqClosing {
		close(done)
	}
	c.bare.done.Store(&done)
	return done
}

// AfterFunc arranges for f to be called once the queue is closed, so that
// contexts derived from this one need no goroutine of their own. The
// returned stop function reports whether it stopped f from being called.
func (c *wqBareContext) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	if c.state == wqClosing {
		c.mu.Unlock()
		go f() // as context.AfterFunc does for a context already done
		return func() bool { return false }
	}
	c.bare.nextAfter++
	id := c.bare.nextAfter
	c.bare.afters = append(c.bare.afters, wqAfter{id: id, f: f})
	c.mu.Unlock()
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, a := range c.bare.afters {
			if a.id == id {
				c.bare.afters = append(c.bare.afters[:i], c.bare.afters[i+1:]...)
				return true
			}
		}
		return false
	}
}

// closeBareLocked makes the bare tasks' context done, as the queue closes,
// and returns the AfterFunc functions to call outside the lock.
func (q *WorkQueue) closeBareLocked() []wqAfter {
	if p := q.bare.done.Load(); p != nil {
		close(*p)
	}
	afters := q.bare.afters
	q.bare.afters = nil
	return afters
}
