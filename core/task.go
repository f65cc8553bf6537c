package core

import (
	"context"
	"sync/atomic"
	"time"
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

// job is what a task runs. A plain function is one (funcJob, stored in the
// interface without an allocation, since a func value is one pointer); a
// Processor's task is its own job, so that the task, its input and its
// result share one allocation.
type job interface{ run(t *Task) error }

type funcJob func(context.Context) error

func (f funcJob) run(t *Task) error { return f((*taskCtx)(t)) }

// Where a task is, guarded by its engine's mutex.
const (
	atNew     uint8 = iota // being accepted
	atQueued               // in the engine's pending queue
	atLane                 // behind its key lane's head
	atTaken                // holds a slot, waiting for its shared Semaphore's token
	atRunning              // its function runs
	atEnded                // terminal
)

// Why a task's context is done, in Task.why.
const (
	notDone      = iota
	doneCanceled // context.Canceled: Task.Cancel, the queue closed, or the function returned
	doneParent   // the submitter's context ended: its Err
	// whySettled is or-ed into why once the context's Done channel, if
	// made, is closed: see taskCtx.Err.
	whySettled = 4
)

// Task is a handle on one function submitted to a [WorkQueue], a
// [Processor] or a [KeyedQueue]. The same allocation is the context the
// function runs with (see taskCtx). Its methods are safe for concurrent use.
type Task struct {
	e *engine
	taskConfig
	id     uint64
	job    job
	parent context.Context // the submitter's context
	slot   int             // the Lane of its events
	lane   *lane           // KeyedQueue only

	state atomic.Uint32 // TaskState, for State without the lock
	why   atomic.Uint32 // notDone, doneCanceled or doneParent

	// Guarded by e.mu.
	at     uint8
	token  bool          // holds a token of the engine's Semaphore
	waited bool          // reported Waiting
	unseen bool          // waits, unwatched, with a parent that can end: in e.unseen
	pos    uint32        // its place in its level's ring, while atQueued
	err    error         // the outcome, once terminal
	x      *taskExt      // made on first need
	enq    time.Duration // when it was accepted, on the engine's clock, if it waited
	next   *Task         // in its lane's backlog
	w      *watch        // the watch it is listed in, if any
	wprev  *Task         // its neighbours in its watch's list, or in e.unseen
	wnext  *Task
}

// taskExt holds what few tasks need: the channels and AfterFunc functions
// of those someone waits for or listens to. ended is guarded by the
// engine's mu; done, afters and afterSeq by its ctxMu.
type taskExt struct {
	done     chan struct{} // closed when the context is done
	ended    chan struct{} // closed when terminal
	afters   []afterFunc
	afterSeq uint32
	listened bool // Done or AfterFunc was called: watched while running; guarded by mu
}

// newTask makes a task of e, its options applied, with ctx as its
// submitter's context. It does not ask ctx for its Done channel: that
// would allocate one for a request's fresh context, and a waiting task's
// context is looked at, not watched (see engine).
func newTask(e *engine, ctx context.Context, j job, opts []TaskOption) *Task {
	t := &Task{e: e, job: j, parent: ctx}
	t.taskConfig.apply(opts)
	return t
}

// endless reports whether ctx is one that never ends (Background or TODO),
// whose task the engine need not look at for cancellation.
func endless(ctx context.Context) bool {
	return ctx == context.Background() || ctx == context.TODO()
}

// ext returns t's taskExt, made on first need. The caller holds mu; the
// pointer is written under ctxMu too, for Err.
func (t *Task) ext() *taskExt {
	if t.x == nil {
		t.e.ctxMu.Lock()
		t.x = new(taskExt)
		t.e.ctxMu.Unlock()
	}
	return t.x
}

type afterFunc struct {
	id uint32
	f  func()
}

// ID returns the task's number, unique per primitive and the Task of its
// events.
func (t *Task) ID() uint64 { return t.id }

// Name returns the name given with [WithName].
func (t *Task) Name() string { return t.name }

// Priority returns the priority given with [WithPriority].
func (t *Task) Priority() Priority { return t.priority }

// State returns the task's current state. It does not block. A pending
// task whose submitter's context has ended is canceled here, if the queue
// had not found it yet, and reported canceled.
func (t *Task) State() TaskState {
	s := t.loadState()
	if s == TaskPending && t.parent.Err() != nil {
		t.e.cancel(t, doneParent)
		s = t.loadState()
	}
	return s
}

// loadState is the task's state as the engine last set it.
func (t *Task) loadState() TaskState { return TaskState(t.state.Load()) }

// Done returns a channel that is closed when the task reaches a terminal
// state. It does not block. For a pending task, the first call has the
// queue watch the submitter's context (one context.AfterFunc per
// distinct context), so that the channel closes as soon as it ends.
func (t *Task) Done() <-chan struct{} {
	var d <-chan struct{}
	if t.loadState() == TaskPending {
		d = t.parent.Done() // outside the lock: the parent may be a task's
	}
	e := t.e
	e.mu.Lock()
	ch := t.endedLocked()
	if d != nil && (t.at == atQueued || t.at == atLane) {
		select {
		case <-d:
			e.cancelLocked(t, doneParent)
		default:
			e.watchLocked(t, d)
		}
	}
	e.unlock()
	return ch
}

// ended returns the channel closed when t is terminal, without watching
// its submitter's context: for Do, whose caller watches it.
func (t *Task) ended() <-chan struct{} {
	t.e.mu.Lock()
	defer t.e.mu.Unlock()
	return t.endedLocked()
}

func (t *Task) endedLocked() <-chan struct{} {
	x := t.ext()
	if x.ended == nil {
		x.ended = make(chan struct{})
		if t.at == atEnded {
			close(x.ended)
		}
	}
	return x.ended
}

// Err returns nil until the task is terminal, then its outcome: nil, the
// function's error, a [*PanicError], or the context error that canceled it.
// It does not block. Like State, it cancels a pending task whose
// submitter's context has ended.
func (t *Task) Err() error {
	if !t.State().Terminal() {
		return nil
	}
	t.e.mu.Lock()
	defer t.e.mu.Unlock()
	return t.err
}

// Wait blocks until the task is terminal and returns [Task.Err], or until
// ctx ends and returns ctx.Err(). Ending the wait does not cancel the task.
// Called with the context of one of the same WorkQueue's or Processor's
// running tasks, Wait runs a still pending task at once in that task's
// slot, since waiting for it could wait for the caller's own slot.
func (t *Task) Wait(ctx context.Context) error {
	checkCtx(ctx, "Task.Wait")
	if t.State().Terminal() {
		return t.Err()
	}
	t.e.helpWait(ctx, t)
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
func (t *Task) Cancel() { t.e.cancel(t, doneCanceled) }
