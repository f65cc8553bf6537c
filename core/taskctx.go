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
// watched (see watch) only while someone listens through Done or
// AfterFunc. context.WithCancel and friends use AfterFunc rather than a
// goroutine.
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

// Err keeps the context package's contract to the letter: it returns nil
// while Done is open, and a non-nil error once Done is closed. A task's
// context is canceled under the engine's ctxMu (the reason stored, the
// channel closed, then the reason marked settled), so a reason seen before
// it is settled waits for ctxMu; and a submitter context or a queue seen
// done before the task's context caught up cancels it here rather than
// report an error while Done is still open. Err never takes the engine's
// main lock, so the engine may call it, through a submitter context
// derived from one of its own tasks', with that lock held. While nothing
// is done Err reads two atomics and the parent's Err.
func (c *taskCtx) Err() error {
	t := (*Task)(c)
	w := t.why.Load()
	if w == notDone {
		var why uint32
		switch {
		case c.e.closed.Load():
			why = doneCanceled
		case c.parent.Err() != nil:
			why = doneParent
		default:
			return nil
		}
		for _, f := range c.e.cancelCtx(t, why) {
			f()
		}
		w = t.why.Load()
	} else if w&whySettled == 0 {
		c.e.ctxMu.Lock() // the canceler holds it until Done is closed
		c.e.ctxMu.Unlock()
	}
	return t.ctxErr(w)
}

// ctxErr is the error of a task context done for why.
func (t *Task) ctxErr(why uint32) error {
	switch why &^ whySettled {
	case doneCanceled:
		return context.Canceled
	case doneParent:
		return t.parent.Err()
	}
	return nil
}

// ctxErrLocked is what the task's context's Err returns, for the engine
// deciding a task's outcome under its lock.
func (t *Task) ctxErrLocked() error {
	if w := t.why.Load(); w != notDone {
		return t.ctxErr(w)
	}
	if t.e.closed.Load() {
		return context.Canceled
	}
	return t.parent.Err()
}

func (c *taskCtx) Done() <-chan struct{} {
	t := (*Task)(c)
	e := t.e
	pd := t.parent.Done() // outside the lock: the parent may be a task's
	e.mu.Lock()
	x := t.ext()
	e.ctxMu.Lock()
	d := x.done
	fresh := d == nil
	if fresh {
		d = make(chan struct{})
		x.done = d
		if t.why.Load() != notDone {
			close(d) // settled: the canceler held ctxMu
		}
	}
	e.ctxMu.Unlock()
	x.listened = true
	if fresh && t.why.Load() == notDone {
		if e.closed.Load() || t.parent.Err() != nil {
			e.cancelCtxLocked(t, t.doneReason())
		} else {
			e.listenLocked(t, pd)
		}
	}
	e.unlock()
	return d
}

// doneReason is why t's context is done when nothing has marked it yet:
// its submitter's context ended, or the queue closed.
func (t *Task) doneReason() uint32 {
	if t.parent.Err() != nil {
		return doneParent
	}
	return doneCanceled
}

// AfterFunc arranges for f to be called once the context is done; the
// returned function stops that and reports whether it did. It is the hook
// through which context.AfterFunc and context.WithCancel watch a task's
// context without a goroutine of their own; they pass functions that only
// cancel a context, so f is called, outside every lock, by whoever ends
// the context. On a context already done it calls f in a goroutine of its
// own, as context.AfterFunc does: the context package calls AfterFunc
// holding the lock of the context it derives, which f takes.
func (c *taskCtx) AfterFunc(f func()) func() bool {
	t := (*Task)(c)
	e := t.e
	pd := t.parent.Done() // outside the lock: the parent may be a task's
	e.mu.Lock()
	x := t.ext()
	e.ctxMu.Lock()
	if t.why.Load() != notDone {
		e.ctxMu.Unlock()
		e.mu.Unlock()
		go f()
		return func() bool { return false }
	}
	x.afterSeq++
	id := x.afterSeq
	x.listened = true
	x.afters = append(x.afters, afterFunc{id, f})
	e.ctxMu.Unlock()
	e.listenLocked(t, pd)
	e.unlock()
	return func() bool {
		e.ctxMu.Lock()
		defer e.ctxMu.Unlock()
		for i, a := range x.afters {
			if a.id == id {
				x.afters = append(x.afters[:i], x.afters[i+1:]...)
				return true
			}
		}
		return false
	}
}
