package core

import "context"

// Processor is a [WorkQueue] whose tasks are calls of one function on
// different inputs, each returning a result: at most N calls run at once,
// pending calls start in priority order, and each caller gets its own
// result.
//
// Everything [WorkQueue] says holds for Processor: capacity, a shared
// [WithSemaphore], cancellation, panics, nested calls, observing, Close and
// Drain. A call costs one allocation, its [Future], which holds the task,
// the input and the result, whatever its context. Its methods are safe
// for concurrent use.
type Processor[In, Out any] struct {
	e  *engine
	fn func(context.Context, In) (Out, error)
}

// NewProcessor returns a processor that runs fn on at most parallelism inputs
// at once. It reads the options [WithCapacity], [WithSemaphore],
// [WithObserver] and [WithClock]. It panics if parallelism < 1 or fn is nil.
func NewProcessor[In, Out any](parallelism int, fn func(context.Context, In) (Out, error), opts ...Option) *Processor[In, Out] {
	checkParallelism(parallelism)
	if fn == nil {
		panic("core: NewProcessor with a nil function")
	}
	return &Processor[In, Out]{e: newEngine(parallelism, newConfig(opts)), fn: fn}
}

// procJob is one call: the Future, its input, and the processor, in one
// allocation that is also the task's job.
type procJob[In, Out any] struct {
	f  Future[Out]
	in In
	p  *Processor[In, Out]
}

func (j *procJob[In, Out]) run(t *Task) error {
	out, err := j.p.fn((*taskCtx)(t), j.in)
	j.f.out = out
	return err
}

func (p *Processor[In, Out]) newJob(ctx context.Context, in In, opts []TaskOption, what string) *procJob[In, Out] {
	checkCtx(ctx, what)
	j := &procJob[In, Out]{in: in, p: p}
	j.f.futureTask = Task{e: p.e, job: j, parent: ctx}
	j.f.futureTask.taskConfig.apply(opts)
	return j
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
	j := p.newJob(ctx, in, opts, "Processor.Process")
	if err := ctx.Err(); err != nil {
		var zero Out
		return zero, err
	}
	err := p.e.do(ctx, &j.f.futureTask)
	return j.f.out, err
}

// Submit adds a call on in and returns its [Future] without waiting for it,
// as [WorkQueue.Submit] does: it blocks only while the processor is at
// capacity, and ctx is the call's submitter context.
func (p *Processor[In, Out]) Submit(ctx context.Context, in In, opts ...TaskOption) (*Future[Out], error) {
	j := p.newJob(ctx, in, opts, "Processor.Submit")
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := p.e.submit(ctx, &j.f.futureTask, true); err != nil {
		return nil, err
	}
	return &j.f, nil
}

// TrySubmit is Submit without a submitter context and without waiting: it
// returns [ErrFull] at once if the processor is at capacity, and
// [ErrClosed] if it is closed or draining. It never blocks.
func (p *Processor[In, Out]) TrySubmit(in In, opts ...TaskOption) (*Future[Out], error) {
	j := p.newJob(context.Background(), in, opts, "Processor.TrySubmit")
	if err := p.e.submit(j.f.futureTask.parent, &j.f.futureTask, false); err != nil {
		return nil, err
	}
	return &j.f, nil
}

// SetParallelism changes how many calls may run at once, as
// [WorkQueue.SetParallelism] does.
func (p *Processor[In, Out]) SetParallelism(n int) {
	checkParallelism(n)
	p.e.setLimit(n)
}

// Close stops the processor, canceling pending and running calls, and
// waits, as [WorkQueue.Close] does.
func (p *Processor[In, Out]) Close() error { return p.e.close() }

// Drain stops the processor once every accepted call has returned, as
// [WorkQueue.Drain] does.
func (p *Processor[In, Out]) Drain(ctx context.Context) error {
	return p.e.drain(ctx, "Processor.Drain")
}

// Stats returns a snapshot of the processor's counters, as
// [WorkQueue.Stats] does.
func (p *Processor[In, Out]) Stats() QueueStats { return p.e.stats() }
