package core

import (
	"context"
	"unsafe"
)

// Processor is a [WorkQueue] whose tasks are calls of one function on
// different inputs, each returning a result: at most N calls run at once,
// pending calls start in priority order, and each caller gets its own
// result.
//
// Everything [WorkQueue] says holds for Processor: capacity, cancellation,
// panics, nested calls, observing, Close and Drain. Its methods are safe for
// concurrent use.
type Processor[In, Out any] struct {
	q   WorkQueue
	fn  func(context.Context, In) (Out, error)
	run func(context.Context) error // procRun[In, Out], made once
}

// NewProcessor returns a processor that runs fn on at most parallelism
// inputs at once. It reads the options [WithCapacity], [WithObserver] and
// [WithClock]. It panics if parallelism < 1 or fn is nil.
func NewProcessor[In, Out any](parallelism int, fn func(context.Context, In) (Out, error), opts ...Option) *Processor[In, Out] {
	if fn == nil {
		panic("core: NewProcessor with a nil function")
	}
	p := &Processor[In, Out]{fn: fn, run: procRun[In, Out]}
	p.q.init(parallelism, opts)
	p.q.proc = p
	return p
}

// Process runs the function on in and returns its result, blocking until
// it has returned, exactly as [WorkQueue.Do] runs a function: at once on
// the calling goroutine when a slot is free and nothing is pending,
// otherwise in turn. If ctx ends before the call starts, it never happens
// and Process returns the zero Out and ctx.Err(); if ctx ends during the
// call, the call's context is canceled and Process returns what it
// returns. Process returns [ErrClosed] once the processor is closed or
// draining, and a [*PanicError] if the function panicked.
func (p *Processor[In, Out]) Process(ctx context.Context, in In, opts ...TaskOption) (Out, error) {
	if err := ctx.Err(); err != nil {
		var zero Out
		return zero, err
	}
	t := p.newTask(ctx, in, opts)
	err := p.q.do(ctx, &t.t)
	return t.out, err
}

// Submit adds a call on in and returns its [Future] without waiting for it,
// as [WorkQueue.Submit] does: it blocks only while the processor is at
// capacity, and ctx is the call's submitter context.
func (p *Processor[In, Out]) Submit(ctx context.Context, in In, opts ...TaskOption) (*Future[Out], error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t := p.newTask(ctx, in, opts)
	if err := p.q.submit(ctx, &t.t, true); err != nil {
		return nil, err
	}
	return &t.Future, nil
}

// TrySubmit is Submit without a submitter context and without waiting: it
// returns [ErrFull] at once if the processor is at capacity, and
// [ErrClosed] if it is closed or draining. It never blocks.
func (p *Processor[In, Out]) TrySubmit(in In, opts ...TaskOption) (*Future[Out], error) {
	ctx := context.Background()
	t := p.newTask(ctx, in, opts)
	if err := p.q.submit(ctx, &t.t, false); err != nil {
		return nil, err
	}
	return &t.Future, nil
}

// SetParallelism changes how many calls may run at once, as
// [WorkQueue.SetParallelism] does. It panics if n < 1.
func (p *Processor[In, Out]) SetParallelism(n int) { p.q.SetParallelism(n) }

// Close stops the processor, canceling pending and running calls, and
// blocks until every call has returned, as [WorkQueue.Close] does.
func (p *Processor[In, Out]) Close() error { return p.q.Close() }

// Drain stops the processor once every accepted call has returned, as
// [WorkQueue.Drain] does.
func (p *Processor[In, Out]) Drain(ctx context.Context) error { return p.q.Drain(ctx) }

// Stats returns a snapshot of the processor's counters.
func (p *Processor[In, Out]) Stats() QueueStats { return p.q.Stats() }

// procTask is one call of a Processor: its Future (with the task and the
// result) and its input, in a single allocation. Its function is its
// queue's Processor's.
type procTask[In, Out any] struct {
	Future[Out]
	in In
}

func (p *Processor[In, Out]) newTask(ctx context.Context, in In, opts []TaskOption) *procTask[In, Out] {
	t := &procTask[In, Out]{in: in}
	t.t.fn = p.run
	t.t.parent = ctx
	t.t.q = &p.q
	t.t.task.owner = t
	if len(opts) > 0 {
		t.t.options(opts)
	}
	return t
}

// The hooks of Task, for the task's owner, which is the procTask: they are
// the embedded wqTask's.

func (t *procTask[In, Out]) cancelPending(_ *Task, err error) { t.t.cancelPending(nil, err) }
func (t *procTask[In, Out]) cancelRunning(err error)          { t.t.cancelRunning(err) }
func (t *procTask[In, Out]) helpWait(ctx context.Context)     { t.t.helpWait(ctx) }

// run is the task's function: it calls fn on the input, which it lets go
// of, and keeps the result.
func (t *procTask[In, Out]) run(ctx context.Context) error {
	in := t.in
	var zero In
	t.in = zero
	out, err := t.t.q.proc.(*Processor[In, Out]).fn(ctx, in)
	t.out = out
	return err
}

// procRun is the function of every task of a Processor[In, Out]. The
// context it runs with is its task's, a *wqContext, which is the task's
// wqTask, the first field of its Future, the first field of its procTask.
func procRun[In, Out any](ctx context.Context) error {
	t := (*procTask[In, Out])(unsafe.Pointer(ctx.(*wqContext)))
	return t.run(ctx)
}
