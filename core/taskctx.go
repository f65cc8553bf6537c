package core

import (
	"context"
	"time"
)

// taskCtx is a task seen as the context its function runs with: the one
// task-context implementation of every queue. It has its submitter's values
// and deadline, and is done when its submitter's context is, when its task is
// canceled, when its queue is closed, or when its function returns.
//
// It costs nothing until used: Err reads two atomics and the parent's Err;
// the Done channel is made on first call; and the submitter's context is
// watched (see watch) only while the task waits in a queue or while
// someone listens through Done or AfterFunc. context.WithCancel and
// friends use AfterFunc rather than a goroutine.
type taskCtx Task

// taskKey is the Value key under which a task's context, and every context
// derived from it, finds the task: nested calls use it to run in their
// caller's slot.
type taskKey struct{}

func (c *taskCtx) Deadline() (time.Time, bool) { return c.parent.Deadline() }

func (c *taskCtx) Value(key any) any {
	if key == (taskKey{}) {
		return (*Task)(c)
	}
	return c.parent.Value(key)
}

func (c *taskCtx) Err() error {
	switch c.why.Load() {
	case doneCanceled:
		return context.Canceled
	case doneParent:
		return c.parent.Err()
	}
	if c.e.closed.Load() {
		return context.Canceled
	}
	return c.parent.Err()
}

func (c *taskCtx) Done() <-chan struct{} {
	t := (*Task)(c)
	e := t.e
	e.mu.Lock()
	x := t.ext()
	if x.done == nil {
		x.done = make(chan struct{})
		if t.why.Load() != notDone {
			close(x.done)
		} else {
			e.listenLocked(t)
		}
	}
	d := x.done
	e.unlock()
	return d
}

// AfterFunc arranges for f to be called once the context is done; the
// returned function stops that and reports whether it did. It is the hook
// through which context.AfterFunc and context.WithCancel watch a task's
// context without a goroutine of their own; they pass functions that only
// cancel a context, so f is called synchronously, outside every lock.
func (c *taskCtx) AfterFunc(f func()) func() bool {
	t := (*Task)(c)
	e := t.e
	e.mu.Lock()
	if t.why.Load() != notDone {
		e.mu.Unlock()
		f()
		return func() bool { return false }
	}
	x := t.ext()
	x.afterSeq++
	id := x.afterSeq
	x.afters = append(x.afters, afterFunc{id, f})
	e.listenLocked(t)
	e.unlock()
	return func() bool {
		e.mu.Lock()
		defer e.mu.Unlock()
		for i, a := range x.afters {
			if a.id == id {
				x.afters = append(x.afters[:i], x.afters[i+1:]...)
				return true
			}
		}
		return false
	}
}
