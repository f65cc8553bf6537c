package core

import "context"

// Future is a handle on one input submitted to a [Processor]: a [Task]
// that also carries the function's result. It has the Task's methods (Done,
// Err, Cancel, State, ID, Name, Priority), and its own Wait. Its methods
// are safe for concurrent use.
type Future[Out any] struct {
	futureTask
	out Out // written by the function's goroutine before the task ends
}

// futureTask is Task under another name, so that Future can have both the
// Task's methods and a method named Task.
type futureTask = Task

// Wait blocks until the task is terminal and returns its result and error, or
// until ctx ends and returns the zero Out and ctx.Err(). Ending the wait does
// not cancel the task. The result is the function's, also when it returned an
// error; it is the zero Out when the function never ran or panicked. Called
// with the context of one of the processor's running tasks, Wait runs the task
// at once in that task's slot if it is still pending.
func (f *Future[Out]) Wait(ctx context.Context) (Out, error) {
	checkCtx(ctx, "Future.Wait")
	err := f.futureTask.Wait(ctx)
	if !f.State().Terminal() {
		var zero Out
		return zero, err
	}
	return f.out, f.Err()
}

// Task returns the future's task, for code that handles tasks of work
// queues and processors alike.
func (f *Future[Out]) Task() *Task { return &f.futureTask }
