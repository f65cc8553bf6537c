package core

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
)

// Consume receives messages from msgs and calls handle for each, with at
// most [WithConcurrency](n) handlers running at once (default 1: messages
// are handled one at a time, in the order received). It blocks until msgs
// is closed and every handler has returned, and then returns nil; or until
// ctx ends, and then returns ctx.Err() once the handlers in flight have
// returned; a nil msgs blocks until ctx ends. It starts no goroutine that
// outlives it: the calling goroutine handles messages itself, and up to
// n-1 more goroutines are started as messages arrive faster than they are
// handled. With n > 1, messages are received in order but their handlers
// may start and end in any order.
//
// Each handler receives ctx. [WithSemaphore](s) makes each handler also
// hold one token of s, acquired at this consumer's [WithPriority] (default
// [Normal]) after the message was received, so that consumers sharing s
// share one global limit. The token, like the handler's slot, is released
// whatever the handler does, panics and runtime.Goexit included (a handler
// that calls runtime.Goexit is reported as failed with an error saying so,
// to OnError too). runtime.Goexit ends the goroutine the handler ran on:
// when that is the caller's (lane 0), Consume does not return, as with any
// function that calls it.
//
// [OnError](fn) receives each message whose handler returned an error, or
// panicked (the error is then a [*PanicError]; the panic goes no further),
// and each message received but not handled because ctx ended (the error
// is then ctx.Err()); so no received message goes unreported. fn runs on
// the handler's goroutine after the semaphore token was released, while
// the handler's concurrency slot is still held (a slow fn delays the next
// message that goroutine would take); it must not panic. Consume panics, with a message prefixed "core:", if handle is
// nil or fn does not take M.
//
// [WithObserver] reports each message as a task: Enqueued when received,
// Waiting when it waits for a semaphore token, Started, then Finished,
// Failed, Panicked or Canceled; Lane is the number of the goroutine that
// handled it, 0 for the caller's.
func Consume[M any](ctx context.Context, msgs <-chan M, handle func(context.Context, M) error, opts ...Option) error {
	if ctx == nil {
		panic("core: Consume with a nil context")
	}
	if handle == nil {
		panic("core: Consume handler is nil")
	}
	c := &consumer[M]{ctx: ctx, done: ctx.Done(), msgs: msgs, handle: handle, cfg: newConfig(opts)}
	if c.cfg.onError != nil {
		f, ok := c.cfg.onError.(func(M, error))
		if !ok {
			panic(fmt.Sprintf("core: OnError function is %T, want func(%v, error) for Consume's messages", c.cfg.onError, reflect.TypeFor[M]()))
		}
		c.onError = f
	}
	c.live.Store(1)
	c.loop(0)
	c.wg.Wait()
	if c.drained.Load() && !c.dropped.Load() {
		return nil
	}
	return ctx.Err()
}

type consumer[M any] struct {
	ctx     context.Context // Consume's; lives only as long as the call
	done    <-chan struct{}
	msgs    <-chan M
	handle  func(context.Context, M) error
	onError func(M, error)
	cfg     config

	wg      sync.WaitGroup // the goroutines started besides the caller's
	live    atomic.Int64   // goroutines handling messages, the caller's included
	idle    atomic.Int64   // goroutines waiting for a message
	ids     atomic.Uint64  // event task ids; only with an observer
	rt      rtQueue        // its label in execution traces (rtrace.go)
	drained atomic.Bool    // msgs was seen closed
	dropped atomic.Bool    // a message was received but not handled

	lanesMu sync.Mutex
	lanes   numSet // the lanes of the goroutines besides the caller's, less 1
}

// loop receives and handles messages until msgs is closed or ctx ends.
func (c *consumer[M]) loop(lane int) {
	for {
		select {
		case <-c.done:
			return
		default:
		}
		c.idle.Add(1)
		var (
			m  M
			ok bool
		)
		select {
		case m, ok = <-c.msgs:
		case <-c.done:
			c.idle.Add(-1)
			return
		}
		if !ok {
			c.idle.Add(-1)
			c.drained.Store(true)
			return
		}
		if c.idle.Add(-1) == 0 {
			// Nobody else is waiting for the next message: add a
			// goroutine if the limit allows, so that it need not wait
			// for this handler.
			c.grow()
		}
		c.run(lane, m)
	}
}

func (c *consumer[M]) grow() {
	limit := int64(c.cfg.concurrency)
	for n := c.live.Load(); n < limit; n = c.live.Load() {
		if c.live.CompareAndSwap(n, n+1) {
			// The smallest lane no live goroutine has: a goroutine that a
			// handler's runtime.Goexit ended gave its lane back.
			c.lanesMu.Lock()
			lane := c.lanes.take(true) + 1
			c.lanesMu.Unlock()
			c.wg.Add(1)
			go func() {
				defer c.wg.Done()
				defer func() { // also when a handler called runtime.Goexit
					c.lanesMu.Lock()
					c.lanes.put(lane-1, true)
					c.lanesMu.Unlock()
					c.live.Add(-1)
				}()
				c.loop(lane)
			}()
			return
		}
	}
}

// run handles one received message.
func (c *consumer[M]) run(lane int, m M) {
	obs := c.cfg.observer != nil
	var id uint64
	if obs {
		id = c.ids.Add(1)
		c.event(Enqueued, id, lane, nil)
	}
	rt := c.rt.enqueueMsg(c.ctx, c.cfg.priority)
	s := c.cfg.semaphore
	if err := c.ctx.Err(); err != nil {
		rt.end(TaskCanceled)
		c.drop(m, id, lane, err)
		return
	}
	if s != nil {
		if !s.TryAcquire(1) {
			if obs {
				c.event(Waiting, id, lane, nil)
			}
			if err := s.AcquirePriority(rt.ctxOr(c.ctx), 1, c.cfg.priority); err != nil {
				rt.end(TaskCanceled)
				c.drop(m, id, lane, err)
				return
			}
		}
	}
	if obs {
		c.event(Started, id, lane, nil)
	}
	rt.start(lane)
	err := call(func() error { return c.handle(rt.ctxOr(c.ctx), m) }, func() { c.end(m, id, lane, rt, errGoexit) })
	c.end(m, id, lane, rt, err)
}

// end finishes a handled message whose handler returned err (errGoexit
// when it called runtime.Goexit): its terminal event, reported before the
// token moves, so that an observer never sees the handler it wakes start
// before this one ended; the token back; then OnError.
func (c *consumer[M]) end(m M, id uint64, lane int, rt *rtTask, err error) {
	if c.cfg.observer != nil {
		_, kind := outcome(c.ctx.Err(), err)
		c.event(kind, id, lane, err)
	}
	rt.endErr(c.ctx, err)
	if s := c.cfg.semaphore; s != nil {
		s.Release(1)
	}
	if err != nil && c.onError != nil {
		c.onError(m, err)
	}
}

// drop reports a message that was received but not handled because ctx
// ended.
func (c *consumer[M]) drop(m M, id uint64, lane int, err error) {
	c.dropped.Store(true)
	if c.cfg.observer != nil {
		c.event(Canceled, id, lane, err)
	}
	if c.onError != nil {
		c.onError(m, err)
	}
}

func (c *consumer[M]) event(kind EventKind, id uint64, lane int, err error) {
	c.cfg.emit(Event{Kind: kind, Task: id, Priority: c.cfg.priority, Weight: 1, Lane: lane, Err: err})
}
