package sim

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"sluice/core"
)

// ErrSimulated is the error a task whose outcome is "fail" returns.
var ErrSimulated = errors.New("simulated failure")

// errStopped ends a task body that was about to sleep as the runner
// stopped.
var errStopped = errors.New("sim: the run has stopped")

// State is where a task of a run stands, as [TaskInfo] reports it.
type State string

// The states of a task. A task is made Scheduled (its burst is not due
// yet), is handed to the primitive (Submitting; for consume it first sits
// in its consumer's Backlog), and then follows the primitive's events:
// Pending, Waiting, Running, then Succeeded, Failed, Canceled or Panicked.
// Refused tasks were turned away (core.ErrFull, core.ErrClosed, or a run
// that was draining or closed); Withdrawn tasks were canceled before they
// reached the primitive.
const (
	StateScheduled  State = "scheduled"
	StateBacklog    State = "backlog"
	StateSubmitting State = "submitting"
	StatePending    State = "pending"
	StateWaiting    State = "waiting"
	StateRunning    State = "running"
	StateSucceeded  State = "succeeded"
	StateFailed     State = "failed"
	StateCanceled   State = "canceled"
	StatePanicked   State = "panicked"
	StateRefused    State = "refused"
	StateWithdrawn  State = "withdrawn"
)

// Ended reports whether s is final.
func (s State) Ended() bool {
	switch s {
	case StateSucceeded, StateFailed, StateCanceled, StatePanicked, StateRefused, StateWithdrawn:
		return true
	}
	return false
}

// TaskInfo describes one task of a run: what its burst asked of it and
// what happened to it. Times are virtual, since the run started; -1 when
// the step has not happened. Submitted is when the runner handed the task
// to the primitive (for consume, to its consumer's backlog), which is
// also when the primitive reported it Enqueued, unless it refused it.
type TaskInfo struct {
	Name                      string        // "t1", "t2", ... in the order tasks were made
	Burst                     int           // the scenario's burst it came from, from 0; -1 for Runner.Submit
	Priority                  core.Priority // its priority (for consume: its consumer's)
	Key                       string        // keyed: its key; consume: its consumer's name
	Weight                    int64         // semaphore tokens it holds; 1 for the others
	Duration                  time.Duration // how long its body sleeps (SlowFactor times more when slow)
	Outcome                   Outcome       // what its body does after sleeping
	State                     State
	Err                       string // its error's text once it failed, panicked, was canceled or refused
	Submitted, Started, Ended time.Duration
}

// phase is a task's state in the runner's bookkeeping, finer than State:
// it says whether the task's goroutine, or the primitive on its behalf, is
// doing something (busy) or waiting for time to move or for a slot.
type phase uint8

const (
	phScheduled  phase = iota // made; its burst is not due
	phBacklog                 // consume: in its consumer's backlog
	phSubmitting              // being handed to the primitive
	phQueued                  // Enqueued
	phWaiting                 // Waiting
	phRunning                 // Started; its body is not sleeping
	phSleeping                // its body sleeps on the clock
	phWoken                   // its body was woken (timer or cancel) and has not ended
	phEnded                   // a terminal event was seen
	phRefused                 // turned away
	phWithdrawn               // canceled before it reached the primitive
)

// live reports whether the primitive has the task, or is being given it.
func (p phase) live() bool { return p >= phSubmitting && p <= phWoken }

// pending reports whether the primitive has accepted the task and not
// started it.
func (p phase) pending() bool { return p == phQueued || p == phWaiting }

// running reports whether the task was started and has not ended.
func (p phase) running() bool { return p >= phRunning && p <= phWoken }

// final reports whether the task is done with.
func (p phase) final() bool { return p >= phEnded }

// task is one task of a run. The fields above the line are fixed when it
// is made; the others are guarded by Runner.mu.
type task struct {
	n           int
	name        string
	burst       int
	prio        core.Priority
	key         string
	weight      int64
	consumer    int // consume: index in consumers; else -1
	dur         time.Duration
	outcome     Outcome
	cancelAfter time.Duration

	phase    phase
	kicked   bool           // the runner canceled it; its wake-up is on its way
	end      core.EventKind // the terminal event's kind
	err      string
	id       uint64 // consume: the Task of its consumer's events
	at       time.Duration
	started  time.Duration
	ended    time.Duration
	cancel   func()     // cancels it: its context, or its core.Task
	deadline core.Timer // fires its cancel-after
}

func (t *task) state() State {
	switch t.phase {
	case phScheduled:
		return StateScheduled
	case phBacklog:
		return StateBacklog
	case phSubmitting:
		return StateSubmitting
	case phQueued:
		return StatePending
	case phWaiting:
		return StateWaiting
	case phRunning, phSleeping, phWoken:
		return StateRunning
	case phRefused:
		return StateRefused
	case phWithdrawn:
		return StateWithdrawn
	}
	switch t.end {
	case core.Finished:
		return StateSucceeded
	case core.Failed:
		return StateFailed
	case core.Panicked:
		return StatePanicked
	}
	return StateCanceled
}

func (t *task) info() TaskInfo {
	return TaskInfo{
		Name: t.name, Burst: t.burst, Priority: t.prio, Key: t.key, Weight: t.weight,
		Duration: t.dur, Outcome: t.outcome, State: t.state(), Err: t.err,
		Submitted: t.at, Started: t.started, Ended: t.ended,
	}
}

// taskNumber returns n for a name "tn", and 0 for any other string.
func taskNumber(name string) int {
	s, ok := strings.CutPrefix(name, "t")
	if !ok || s == "" || s[0] == '0' || s[0] == '+' || s[0] == '-' {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}

// body returns the function a task runs inside its primitive: sleep its
// duration on the virtual clock, then do what its outcome says.
func (r *Runner) body(t *task) func(context.Context) error {
	return func(ctx context.Context) error {
		if err := r.sleep(ctx, t); err != nil {
			return err
		}
		switch t.outcome {
		case OutcomeFail:
			return ErrSimulated
		case OutcomePanic:
			panic("simulated panic")
		}
		return nil
	}
}

// sleep blocks until the clock has moved t's duration, or ctx ends. It
// tells the bookkeeping that the task waits for time (phSleeping, not
// busy) and the wake-up tells it that the task is busy again; a task the
// runner has canceled (kicked) never starts sleeping, it waits for its
// context to end, which the canceler is about to do.
//
// It calls no method of ctx while holding the runner's lock: ctx is the
// primitive's, and a panic there would leave the lock held.
func (r *Runner) sleep(ctx context.Context, t *task) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	r.mu.Lock()
	if t.kicked {
		r.mu.Unlock()
		<-ctx.Done()
		return ctx.Err()
	}
	if r.stopped {
		r.mu.Unlock()
		return errStopped
	}
	woke := make(chan struct{})
	r.set(t, func() { t.phase = phSleeping })
	tm := r.clock.afterFunc(t.dur, uint64(t.n), func() {
		r.mu.Lock()
		if t.phase == phSleeping {
			r.set(t, func() { t.phase = phWoken })
		}
		r.mu.Unlock()
		close(woke)
	})
	r.mu.Unlock()
	select {
	case <-woke:
		return nil
	case <-ctx.Done():
		tm.Stop()
		return ctx.Err()
	}
}
