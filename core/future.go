package core

import "context"

// Future is a handle on one input submitted to a [Processor]: a [Task]
// that also carries the function's result. Its methods are safe for
// concurrent use.
type Future[Out any] struct {
	t   Task
	out Out // written by the function's goroutine before the task ends
}

// Wait blocks until the task is terminal and returns its result and error,
// or until ctx ends and returns the zero Out and ctx.Err(). Ending the wait
// does not cancel the task. The result is the function's, also when it
// returned an error; it is the zero Out when the function never ran or
// panicked. Called with the context of one of the processor's running
// tasks, Wait runs the task at once in that task's slot if it is still
// pending.
func (f *Future[Out]) Wait(ctx context.Context) (Out, error) {
	err := f.t.Wait(ctx)
	if !f.t.State().Terminal() {
		var zero Out
		return zero, err
	}
	return f.out, f.t.Err()
}

// Done returns a channel that is closed when the task reaches a terminal
// state. It does not block.
func (f *Future[Out]) Done() <-chan struct{} { return f.t.Done() }

// Err returns nil until the task is terminal, then its outcome: nil, the
// function's error, a [*PanicError], or the context error that canceled
// it. It does not block.
func (f *Future[Out]) Err() error { return f.t.Err() }

// Cancel asks the task to stop and does not wait for it, as [Task.Cancel]
// does.
func (f *Future[Out]) Cancel() { f.t.Cancel() }

// State returns the task's current state. It does not block.
func (f *Future[Out]) State() TaskState { return f.t.State() }

// ID returns the task's number, the Task of its events.
func (f *Future[Out]) ID() uint64 { return f.t.ID() }

// Name returns the name given with [WithName].
func (f *Future[Out]) Name() string { return f.t.Name() }

// Priority returns the priority given with [WithPriority].
func (f *Future[Out]) Priority() Priority { return f.t.Priority() }

// Task returns the future's task, for code that handles tasks of work
// queues and processors alike.
func (f *Future[Out]) Task() *Task { return &f.t }
