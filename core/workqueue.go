package core

import (
	"context"
	"fmt"
)

// WorkQueue runs functions with at most N of them running at once, in
// priority order: the limited-parallelism work queue.
//
// Submitted functions that cannot start at once wait in a pending queue,
// highest [WithPriority] first and in submission order within a priority.
// [WithCapacity](n) bounds that queue: Submit and Do then wait for room, and
// TrySubmit fails with [ErrFull] (only when n tasks wait, never while a slot
// is free). [WithSemaphore](s) makes every task also hold a token of s while
// it runs, at its priority: a limit shared with other queues and consumers.
//
// A task's context is done when its submitter's context is done, when the
// task is canceled ([Task.Cancel]), when the queue is closed, or when its
// function returns. A task canceled before it starts never runs and ends
// with its submitter's context error, or [context.Canceled]. The queue
// does not watch the submitter's context of a task that waits: it looks at
// it when the task's turn comes, when the task's handle is read
// ([Task.State], [Task.Err]), when [WorkQueue.Stats] is read, and when a
// submit finds the queue full; the task ends canceled (reported Canceled
// to an observer) at the first of these. A [Task.Done] or [Task.Wait]
// caller, and a blocked Do, are woken as soon as that context ends. Panics
// and runtime.Goexit follow the package's panic policy.
//
// Worker goroutines exist only while there is work (on four or more cores
// an idle worker spins for a few microseconds before it exits): an idle
// queue holds none, and none outlive [WorkQueue.Close] or
// [WorkQueue.Drain]. A task costs one allocation (the [Task], which is also
// its context) and two acquisitions of the queue's lock, whatever its
// context: a context of the task's own (a request's) costs the queue
// nothing more. Waiting on a pending task's handle ([Task.Done],
// [Task.Wait]) has its submitter's context watched: one context.AfterFunc
// for all the watched tasks of one context, whose four allocations (its
// context, its stop function, the children map it adds to the parent, and
// the parent's Done channel if nobody asked for it before) a context of
// the task's own pays for itself. Stats, and a TrySubmit that finds the
// queue full, look at the context of every waiting task whose context can
// end (not Background or TODO): an Err call each, or one look at the Done
// channel of a context already watched. A Submit that finds the queue
// full looks at those not watched yet and, before it waits, has them
// watched, so that calls waiting on a full queue look at each task once
// between them.
//
// Calls made from inside one of the queue's own tasks, with the task's
// context (or one derived from it), never wait for a slot that their caller
// holds: Do runs its function at once in the caller's slot, [Task.Wait] on
// a task still pending runs it the same way, and a Submit that finds the
// queue full returns [ErrFull] rather than wait. Such nested tasks count as
// running alongside their caller, and hold no token of their own.
//
// WorkQueue reads the options [WithCapacity], [WithSemaphore],
// [WithObserver] and [WithClock]. Task events carry Lane, the worker slot
// the task ran on: a number below the parallelism at the time the task
// started (a nested task has its caller's). Its methods are safe for
// concurrent use.
type WorkQueue struct{ e *engine }

// NewWorkQueue returns a queue that runs at most parallelism functions at
// once. It reads the options [WithCapacity], [WithSemaphore],
// [WithObserver] and [WithClock]. It panics if parallelism < 1.
func NewWorkQueue(parallelism int, opts ...Option) *WorkQueue {
	checkParallelism(parallelism)
	return &WorkQueue{newEngine(parallelism, newConfig(opts))}
}

func checkParallelism(n int) {
	if n < 1 {
		panic(fmt.Sprintf("core: parallelism %d must be at least 1", n))
	}
}

func (q *WorkQueue) newTask(ctx context.Context, fn func(context.Context) error, opts []TaskOption, what string) *Task {
	checkCtx(ctx, what)
	if fn == nil {
		panic("core: " + what + " with a nil function")
	}
	return newTask(q.e, ctx, funcJob(fn), opts)
}

// Do runs fn in the queue and returns its error, blocking until fn has
// returned. When a slot is free and no task is pending, fn runs at once on
// the calling goroutine; otherwise it waits its turn like a submitted task,
// and Do first waits for room if the queue is at capacity.
//
// If ctx ends before fn starts, fn never runs and Do returns ctx.Err(). If
// ctx ends while fn runs, fn's context is canceled and Do still waits for
// fn, returning what it returns. Do returns [ErrClosed] once the queue is
// closed or draining, and a [*PanicError] if fn panicked. Called with the
// context of one of the queue's own running tasks, Do runs fn at once in
// that task's slot.
func (q *WorkQueue) Do(ctx context.Context, fn func(context.Context) error, opts ...TaskOption) error {
	t := q.newTask(ctx, fn, opts, "WorkQueue.Do")
	if err := ctx.Err(); err != nil {
		return err
	}
	return q.e.do(ctx, t)
}

// Submit adds fn to the queue and returns its [Task] without waiting for it
// to run. If the queue is at capacity, Submit blocks until there is room or
// ctx ends; called from one of the queue's own tasks, with its context, it
// returns [ErrFull] instead, since the room may need the caller's slot.
//
// ctx is the task's submitter context: if it ends before fn starts, fn never
// runs and the task ends canceled with ctx.Err(); if it ends while fn runs,
// fn's context is canceled. When Submit returns an error (ctx.Err(),
// [ErrClosed], or [ErrFull]) the queue is unchanged. Tasks start in priority
// order, and in the order of their Submit and Go calls within a priority.
func (q *WorkQueue) Submit(ctx context.Context, fn func(context.Context) error, opts ...TaskOption) (*Task, error) {
	t := q.newTask(ctx, fn, opts, "WorkQueue.Submit")
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := q.e.submit(ctx, t, true); err != nil {
		return nil, err
	}
	return t, nil
}

// Go adds fn to the queue, as [WorkQueue.Submit] does, but returns no
// handle: only whether fn was accepted. It blocks, like Submit, only while
// the queue is at capacity, and returns the same errors (ctx.Err(),
// [ErrClosed], or [ErrFull] from one of the queue's own tasks), leaving the
// queue unchanged. fn's outcome is counted in [WorkQueue.Stats] and
// reported to an observer; nothing else sees its error or panic, so fn
// should deal with them itself. Tasks start in priority order, and in the
// order of their Go and Submit calls within a priority; Close cancels the
// tasks not started.
func (q *WorkQueue) Go(ctx context.Context, fn func(context.Context) error, opts ...TaskOption) error {
	t := q.newTask(ctx, fn, opts, "WorkQueue.Go")
	if err := ctx.Err(); err != nil {
		return err
	}
	return q.e.submit(ctx, t, true)
}

// TrySubmit is Submit without a submitter context and without waiting: it
// returns [ErrFull] at once if the queue is at capacity, and [ErrClosed] if
// it is closed or draining. It never blocks.
func (q *WorkQueue) TrySubmit(fn func(context.Context) error, opts ...TaskOption) (*Task, error) {
	t := q.newTask(context.Background(), fn, opts, "WorkQueue.TrySubmit")
	if err := q.e.submit(t.parent, t, false); err != nil {
		return nil, err
	}
	return t, nil
}

// SetParallelism changes how many functions may run at once. Growing starts
// pending tasks at once; shrinking lets running functions finish and starts
// no more until fewer than n run. It does not block. An observer sees the
// Resized event before any start a growth allows. It panics if n < 1.
func (q *WorkQueue) SetParallelism(n int) {
	checkParallelism(n)
	q.e.setLimit(n)
}

// Close stops the queue: it refuses new tasks with [ErrClosed], cancels
// the pending ones (they never run, and end with [context.Canceled]),
// cancels the context of the running ones, and blocks until every running
// function has returned and every worker goroutine has exited. It returns
// nil. Close may be called more than once, from several goroutines, and
// after or during Drain; every call waits for the same stop. It must not
// be called from one of the queue's own tasks, which it would wait for.
func (q *WorkQueue) Close() error { return q.e.close() }

// Drain stops the queue gracefully: it refuses new tasks with [ErrClosed]
// (Submit calls waiting for room get it too), lets every accepted task run
// to its end, and blocks until the last worker goroutine has exited. If ctx
// ends first, Drain returns ctx.Err() and the queue keeps draining in the
// background; a later Drain or Close waits for the same stop. Drain may be
// called more than once and from several goroutines. It must not be called
// from one of the queue's own tasks, which it would wait for.
func (q *WorkQueue) Drain(ctx context.Context) error { return q.e.drain(ctx, "WorkQueue.Drain") }

// Stats returns a snapshot of the queue's counters, in which Submitted is
// the sum of Pending, Running and the counts of ended tasks. It does not
// block on running tasks. It first cancels the waiting tasks whose
// submitter's context has ended, so that they count as canceled; that
// costs an Err call per waiting task whose context can end and is not
// watched, and a look at the Done channel of each watched context.
func (q *WorkQueue) Stats() QueueStats { return q.e.stats() }
