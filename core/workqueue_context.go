package core

import (
	"context"
	"fmt"
	"time"
)

// wqContext is a task seen as the context its function runs with. It
// costs no allocation of its own; it makes its Done channel only when asked
// for, and watches the submitter's context (its parent) only when that one
// can end and either the task was submitted with it or someone asked for
// Done. Its values and deadline are its parent's.
//
// A context that nobody asked for Done or AfterFunc is ended with one
// atomic operation when its function returns, and learns that the queue
// closed from the queue's closed flag; only a used one takes the mutex
// then, and is among the queue's listeners while its task runs.
type wqContext wqTask

// The bits of wqTask.st. The low two bits say why the context is done,
// which is the error Err returns, in two bits rather than an interface
// since it is nearly always one of two errors. They change once, from
// wqNotDone, with the mutex held. The bits from wqLaneShift up hold the
// task's lane, set once when it starts.
const (
	wqNotDone  = 0 // not done
	wqCanceled = 1 // done: context.Canceled
	wqDeadline = 2 // done: context.DeadlineExceeded
	wqOther    = 3 // done: ext.err
	wqWhy      = 3

	wqUsed   = 1 << 2 // Done or AfterFunc was called, or the parent is watched: ending takes the mutex
	wqListen = 1 << 3 // in, or on its way into, the queue's listeners
	wqEnded  = 1 << 4 // the function returned: done with context.Canceled unless done before

	wqLaneShift = 5
)

// wqContextExt holds a context's rarely needed parts.
type wqContextExt struct {
	stopParent func() bool // stops the watch on the parent; nil when not watching
	afters     wqAfters    // functions to call when done, from AfterFunc
	err        error       // when done with wqOther
}

type wqAfter struct {
	id uint64
	f  func()
}

// wqAfters is a context's list of AfterFunc functions, each with an id
// that its stop function removes it by.
type wqAfters struct {
	fs   []wqAfter
	next uint64
}

// add appends f and returns its id.
func (a *wqAfters) add(f func()) uint64 {
	a.next++
	a.fs = append(a.fs, wqAfter{id: a.next, f: f})
	return a.next
}

// remove takes out the function of id and reports whether it was there.
func (a *wqAfters) remove(id uint64) bool {
	for i, x := range a.fs {
		if x.id == id {
			a.fs = append(a.fs[:i], a.fs[i+1:]...)
			return true
		}
	}
	return false
}

// take empties the list and returns what it held.
func (a *wqAfters) take() []wqAfter {
	fs := a.fs
	a.fs = nil
	return fs
}

// wqContextKey is the Value key under which a wqContext returns itself.
type wqContextKey struct{}

// Deadline returns the submitter's context's deadline.
func (c *wqContext) Deadline() (time.Time, bool) { return c.parent.Deadline() }

// Value returns the submitter's context's value for key.
func (c *wqContext) Value(key any) any {
	if _, ok := key.(wqContextKey); ok {
		return c
	}
	return c.parent.Value(key)
}

// String describes the context, as the standard library's contexts do.
func (c *wqContext) String() string {
	return fmt.Sprintf("%v.WithWorkQueueTask(%d)", c.parent, c.task.id)
}

// Done returns a channel closed when the context is done.
func (c *wqContext) Done() <-chan struct{} {
	c.task.mu.Lock()
	if c.done == nil {
		c.done = make(chan struct{})
		listen := c.useLocked()
		if c.st.Load()&wqWhy != wqNotDone {
			close(c.done)
		}
		d := c.done
		c.task.mu.Unlock()
		if listen {
			c.listen()
		}
		return d
	}
	d := c.done
	c.task.mu.Unlock()
	return d
}

// Err returns nil until the context is done, then why.
func (c *wqContext) Err() error {
	s := c.st.Load()
	if s&(wqWhy|wqEnded) != 0 {
		return c.why(s)
	}
	if c.q.closed.Load() {
		return context.Canceled
	}
	if c.parent.Done() == nil {
		return nil // nothing else can end it
	}
	c.task.mu.Lock()
	defer c.task.mu.Unlock()
	s = c.st.Load()
	if s&(wqWhy|wqEnded) == 0 && (c.ext == nil || c.ext.stopParent == nil) {
		// The parent is not watched, so nobody waits on Done: look.
		if err := c.parent.Err(); err != nil {
			c.setWhyLocked(err)
			s = c.st.Load()
		}
	}
	return c.why(s)
}

// why returns the error that the state s stands for.
func (c *wqContext) why(s uint32) error {
	switch s & wqWhy {
	case wqCanceled:
		return context.Canceled
	case wqDeadline:
		return context.DeadlineExceeded
	case wqOther:
		return c.ext.err // written before the state that says so
	}
	if s&wqEnded != 0 {
		return context.Canceled
	}
	return nil
}

// setWhyLocked makes c done with err. It does not close done.
func (c *wqContext) setWhyLocked(err error) {
	switch err {
	case context.Canceled:
		c.st.Or(wqCanceled)
	case context.DeadlineExceeded:
		c.st.Or(wqDeadline)
	default:
		c.extLocked().err = err
		c.st.Or(wqOther)
	}
}

// useLocked marks c used, so that ending it takes the mutex, and makes
// sure that it ends with its parent and its queue. If the function has
// returned, the queue has closed or the parent has ended, c is done at
// once. Otherwise it reports whether the caller must call listen, after
// unlocking the mutex.
func (c *wqContext) useLocked() (listen bool) {
	s := c.st.Or(wqUsed)
	switch {
	case s&wqWhy != wqNotDone:
		return false
	case s&wqEnded != 0 || c.q.closed.Load():
		c.setWhyLocked(context.Canceled)
		return false
	}
	c.watchLocked(nil)
	if c.st.Load()&(wqWhy|wqListen) != 0 {
		return false
	}
	c.st.Or(wqListen)
	return true
}

// listen adds c to its queue's listeners, so that Close cancels it, unless
// its function has returned meanwhile. If the queue has closed, it cancels
// c at once.
func (c *wqContext) listen() {
	q := c.q
	q.mu.Lock()
	if c.st.Load()&wqEnded == 0 {
		if q.listeners == nil {
			q.listeners = make(map[*wqContext]struct{})
		}
		q.listeners[c] = struct{}{}
	}
	q.mu.Unlock()
	if q.closed.Load() {
		c.cancel(context.Canceled)
	}
}

// AfterFunc arranges for f to be called once the context is done, and is
// what lets contexts derived from this one cancel without a goroutine of
// their own. The returned stop function reports whether it stopped f from
// being called.
func (c *wqContext) AfterFunc(f func()) (stop func() bool) {
	c.task.mu.Lock()
	listen := c.useLocked()
	if c.st.Load()&wqWhy != wqNotDone {
		c.task.mu.Unlock()
		go f() // as context.AfterFunc does for a context already done
		return func() bool { return false }
	}
	ext := c.extLocked()
	id := ext.afters.add(f)
	c.task.mu.Unlock()
	if listen {
		c.listen()
	}
	return func() bool {
		c.task.mu.Lock()
		defer c.task.mu.Unlock()
		return c.ext != nil && c.ext.afters.remove(id)
	}
}

func (c *wqContext) extLocked() *wqContextExt {
	if c.ext == nil {
		c.ext = new(wqContextExt)
	}
	return c.ext
}

// watchParent makes c watch its parent before its task is submitted: when
// the parent ends, the task is canceled, pending or running.
func (c *wqContext) watchParent() {
	c.task.mu.Lock()
	c.st.Or(wqUsed)
	c.watchLocked((*wqTask)(c).parentDone)
	c.task.mu.Unlock()
}

// watchLocked starts watching the parent, if it can end and c is not
// already watching it, to call f when it ends (nil: cancel c). If the
// parent has ended, it makes c done instead.
func (c *wqContext) watchLocked(f func()) {
	if c.parent.Done() == nil || c.ext != nil && c.ext.stopParent != nil {
		return
	}
	if err := c.parent.Err(); err != nil {
		c.setWhyLocked(err)
		return
	}
	if f == nil {
		f = c.parentDone
	}
	c.extLocked().stopParent = context.AfterFunc(c.parent, f)
}

// parentDone cancels c when its parent ends.
func (c *wqContext) parentDone() { c.cancel(c.parent.Err()) }

// end makes c done, if it is not done yet, because its function returned
// or its task ended without running.
func (c *wqContext) end() {
	if c.st.Or(wqEnded)&wqUsed != 0 {
		c.cancel(context.Canceled)
	}
}

// cancel makes c done with err, if it is not done yet, stops watching the
// parent and calls the AfterFunc functions.
func (c *wqContext) cancel(err error) {
	c.task.mu.Lock()
	if c.st.Load()&wqWhy == wqNotDone {
		c.setWhyLocked(err)
		if c.done != nil {
			close(c.done)
		}
	}
	var stop func() bool
	var afters []wqAfter
	if c.ext != nil {
		stop, afters = c.ext.stopParent, c.ext.afters.take()
		c.ext.stopParent = nil
	}
	c.task.mu.Unlock()
	if stop != nil {
		stop()
	}
	for _, a := range afters {
		a.f()
	}
}
