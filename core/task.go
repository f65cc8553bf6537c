package core

import (
	"context"
	"errors"
	"sync"
)

// TaskState is where a [Task] is in its life. A task moves from
// TaskPending to TaskRunning to one terminal state, or from TaskPending
// straight to TaskCanceled; it never leaves a terminal state.
type TaskState uint8

// The states of a task.
const (
	TaskPending   TaskState = iota // accepted, not started
	TaskRunning                    // its function is running
	TaskSucceeded                  // its function returned nil
	TaskFailed                     // its function returned an error
	TaskCanceled                   // canceled before or while running
	TaskPanicked                   // its function panicked
)

var taskStateNames = [...]string{"pending", "running", "succeeded", "failed", "canceled", "panicked"}

// String returns the state's lower-case name, such as "running".
func (s TaskState) String() string {
	if int(s) < len(taskStateNames) {
		return taskStateNames[s]
	}
	return "unknown"
}

// Terminal reports whether s ends a task's life.
func (s TaskState) Terminal() bool { return s >= TaskSucceeded }

// taskOwner is the primitive a Task was submitted to.
type taskOwner interface {
	// cancelPending removes t from the owner's pending work if it is
	// still there, and then ends it as canceled with err. If a worker has
	// already taken t, the worker sees the cancel request in t.begin and
	// ends t itself, so t ends exactly once.
	cancelPending(t *Task, err error)
}

// runCanceler is implemented by owners that cancel a running task's
// context themselves, without a CancelFunc given to begin. Task.Cancel
// calls cancelRunning(context.Canceled) on a running task.
type runCanceler interface {
	cancelRunning(err error)
}

// waitHelper is implemented by owners that may run a pending task on the
// goroutine that waits for it, when waiting could otherwise never end (the
// waiter holds the slot the task needs). Task.Wait calls helpWait before it
// blocks.
type waitHelper interface {
	helpWait(ctx context.Context)
}

// Task is a handle on one function submitted to a [WorkQueue] or a
// [KeyedQueue]. Its methods are safe for concurrent use.
type Task struct {
	id       uint64
	name     string
	priority Priority
	owner    taskOwner

	mu              sync.Mutex
	state           TaskState
	err             error
	done            chan struct{}      // made on first need, closed when terminal
	cancelRequested bool               // Cancel was called while pending
	cancelRun       context.CancelFunc // cancels the running function's context
}

func newTask(id uint64, cfg taskConfig, owner taskOwner) *Task {
	return &Task{id: id, name: cfg.name, priority: cfg.priority, owner: owner}
}

// ID returns the task's number, unique per primitive and the Task of its
// events.
func (t *Task) ID() uint64 { return t.id }

// Name returns the name given with [WithName].
func (t *Task) Name() string { return t.name }

// Priority returns the priority given with [WithPriority].
func (t *Task) Priority() Priority { return t.priority }

// State returns the task's current state. It does not block.
func (t *Task) State() TaskState {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.state
}

// Done returns a channel that is closed when the task reaches a terminal
// state. It does not block.
func (t *Task) Done() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done == nil {
		t.done = make(chan struct{})
		if t.state.Terminal() {
			close(t.done)
		}
	}
	return t.done
}

// Err returns nil until the task is terminal, then its outcome: nil, the
// function's error, a [*PanicError], or the context error that canceled it.
// It does not block.
func (t *Task) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// Wait blocks until the task is terminal and returns [Task.Err], or until
// ctx ends and returns ctx.Err(). Ending the wait does not cancel the task.
func (t *Task) Wait(ctx context.Context) error {
	t.mu.Lock()
	if t.state.Terminal() {
		err := t.err
		t.mu.Unlock()
		return err
	}
	t.mu.Unlock()
	if h, ok := t.owner.(waitHelper); ok {
		h.helpWait(ctx)
	}
	select {
	case <-t.Done():
		return t.Err()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Cancel asks the task to stop and does not wait for it. A pending task
// never runs and ends with context.Canceled; a running task's context is
// canceled and the task ends however its function returns. Cancel on a
// terminal task does nothing.
func (t *Task) Cancel() {
	t.mu.Lock()
	switch {
	case t.state == TaskPending:
		t.cancelRequested = true
		t.mu.Unlock()
		t.owner.cancelPending(t, context.Canceled)
	case t.state == TaskRunning && t.cancelRun != nil:
		cancel := t.cancelRun
		t.mu.Unlock()
		cancel()
	case t.state == TaskRunning:
		rc, ok := t.owner.(runCanceler)
		t.mu.Unlock()
		if ok {
			rc.cancelRunning(context.Canceled)
		}
	default:
		t.mu.Unlock()
	}
}

// begin moves t from pending to running and records cancel, which cancels
// the running function's context. It reports false when t was canceled
// while pending; the caller then ends t as canceled.
func (t *Task) begin(cancel context.CancelFunc) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.state != TaskPending || t.cancelRequested {
		return false
	}
	t.state = TaskRunning
	t.cancelRun = cancel
	return true
}

// end moves t to its terminal state and wakes its waiters. It must be
// called exactly once per task.
func (t *Task) end(state TaskState, err error) {
	t.mu.Lock()
	t.state = state
	t.err = err
	t.cancelRun = nil
	if t.done != nil {
		close(t.done)
	}
	t.mu.Unlock()
}

// outcome classifies a function's result as a terminal state and the
// event kind that reports it. runCtx is the context the function ran with:
// an error returned after it was canceled counts as canceled when it is,
// or wraps, the context's error.
func outcome(runCtx context.Context, err error) (TaskState, EventKind) {
	switch {
	case err == nil:
		return TaskSucceeded, Finished
	case isPanic(err):
		return TaskPanicked, Panicked
	case runCtx.Err() != nil && errors.Is(err, runCtx.Err()):
		return TaskCanceled, Canceled
	default:
		return TaskFailed, Failed
	}
}

func isPanic(err error) bool {
	_, ok := err.(*PanicError)
	return ok
}
