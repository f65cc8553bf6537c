package core

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// WorkQueue runs functions with at most N of them running at once, in
// priority order: the limited-parallelism work queue.
//
// Submitted functions that cannot start at once wait in a pending queue,
// highest [WithPriority] first and in submission order within a priority.
// [WithCapacity](n) bounds that queue: Submit and Do then wait for room, and
// TrySubmit fails with [ErrFull].
//
// A task's context is done when its submitter's context is done, when the
// task is canceled ([Task.Cancel]), when the queue is closed, or when its
// function returns. A task canceled before it starts never runs and ends
// with its submitter's context error, or [context.Canceled]. A function
// that panics ends its task with a [*PanicError]; its slot is released and
// the queue keeps running.
//
// Worker goroutines exist only while there is work: an idle queue holds
// none, and none outlive [WorkQueue.Close] or [WorkQueue.Drain].
//
// Calls made from inside one of the queue's own tasks, with the task's
// context (or one derived from it), never wait for a slot that their caller
// holds: Do runs its function at once in the caller's slot, [Task.Wait] on
// a task still pending runs it the same way, and a Submit that finds the
// queue full returns [ErrFull] rather than wait. Such nested tasks count as
// running alongside their caller.
//
// WorkQueue reads the options [WithCapacity], [WithObserver] and
// [WithClock]. Task events carry Lane, the worker slot the task ran on: a
// number below the parallelism at the time the task started (a nested task
// has its caller's). Its methods are safe for concurrent use.
type WorkQueue struct {
	// Read without the lock; kept away from it, since running tasks'
	// contexts read closed.
	closed   atomic.Bool // Close was called: running tasks' contexts are done
	cfg      config
	capacity int    // bound on accepted, not started tasks; 0: none
	workFn   func() // q.work, made once so that starting a worker allocates nothing
	proc     any    // the *Processor this queue is part of, if any

	mu        sync.Mutex
	state     wqState
	stopping  bool // the stop (Closed event, stopped closed) is claimed
	limit     int
	resizes   uint64 // SetParallelism calls so far, so that only the latest applies
	workers   int    // slots in use: worker goroutines and Do calls running inline
	pending   wqPending
	reserved  int                     // accepted tasks being announced, not yet queued
	emitting  int                     // calls reporting tasks' ends outside the lock
	listeners map[*wqContext]struct{} // running tasks' contexts with a Done channel or AfterFunc
	lanes     wqLanes
	bare      wqBare     // the bare tasks' context's parts
	batches   []*wqBatch // workers' batches that may hold tasks not taken
	rooms     wqRooms    // Submit calls waiting for room, oldest first
	granted   int        // room handed to woken waiters that have not yet come back
	nextID    uint64

	nrunning, maxRunning                             int
	submitted, succeeded, failed, canceled, panicked uint64

	stopped chan struct{} // closed once closed or drained and every worker has exited
}

type wqState uint8

const (
	wqOpen     wqState = iota
	wqDraining         // no new tasks; accepted ones finish
	wqClosing          // no new tasks; accepted ones are canceled
)

// errGoexit ends a task whose function called runtime.Goexit.
var errGoexit = errors.New("core: task function called runtime.Goexit")

// NewWorkQueue returns a queue that runs at most parallelism functions at
// once. It reads the options [WithCapacity], [WithObserver] and
// [WithClock]. It panics if parallelism < 1.
func NewWorkQueue(parallelism int, opts ...Option) *WorkQueue {
	q := new(WorkQueue)
	q.init(parallelism, opts)
	return q
}

func (q *WorkQueue) init(parallelism int, opts []Option) {
	if parallelism < 1 {
		panic(fmt.Sprintf("core: parallelism %d must be at least 1", parallelism))
	}
	q.cfg = newConfig(opts)
	q.capacity = q.cfg.capacity
	q.limit = parallelism
	q.workFn = q.work
	q.stopped = make(chan struct{})
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
	if fn == nil {
		panic("core: WorkQueue.Do with a nil function")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	t := newWQTask(q, ctx, fn, opts)
	return q.do(ctx, t)
}

// Submit adds fn to the queue and returns its [Task] without waiting for it
// to run. If the queue is at capacity, Submit blocks until there is room or
// ctx ends; called from one of the queue's own tasks, with its context, it
// returns [ErrFull] instead, since the room may need the caller's slot.
//
// ctx is the task's submitter context: if it ends before fn starts, fn never
// runs and the task ends canceled with ctx.Err(); if it ends while fn runs,
// fn's context is canceled. When Submit returns an error (ctx.Err(),
// [ErrClosed], or [ErrFull]) the queue is unchanged. Tasks start in
// priority order, and in the order of their Submit calls within a priority.
func (q *WorkQueue) Submit(ctx context.Context, fn func(context.Context) error, opts ...TaskOption) (*Task, error) {
	if fn == nil {
		panic("core: WorkQueue.Submit with a nil function")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t := newWQTask(q, ctx, fn, opts)
	if err := q.submit(ctx, t, true); err != nil {
		return nil, err
	}
	return &t.task, nil
}

// TrySubmit is Submit without a submitter context and without waiting: it
// returns [ErrFull] at once if the queue is at capacity, and [ErrClosed] if
// it is closed or draining. It never blocks.
func (q *WorkQueue) TrySubmit(fn func(context.Context) error, opts ...TaskOption) (*Task, error) {
	if fn == nil {
		panic("core: WorkQueue.TrySubmit with a nil function")
	}
	ctx := context.Background()
	t := newWQTask(q, ctx, fn, opts)
	if err := q.submit(ctx, t, false); err != nil {
		return nil, err
	}
	return &t.task, nil
}

// SetParallelism changes how many functions may run at once. Growing starts
// pending tasks at once; shrinking lets running functions finish and starts
// no more until fewer than n run. It does not block. When calls overlap, the
// last to take effect wins. An observer sees the Resized event of a growth
// before any start the growth allows, and that of a shrink once it took
// effect. It panics if n < 1.
func (q *WorkQueue) SetParallelism(n int) {
	if n < 1 {
		panic(fmt.Sprintf("core: parallelism %d must be at least 1", n))
	}
	q.mu.Lock()
	q.resizes++
	call := q.resizes
	grow := n > q.limit
	if grow && q.cfg.observer != nil {
		q.mu.Unlock()
		q.cfg.emit(Event{Kind: Resized, Weight: int64(n)})
		q.mu.Lock()
		if call != q.resizes {
			q.mu.Unlock() // a later call overtook this one
			return
		}
	}
	q.limit = n
	if q.workers > n {
		// Shrunk below the slots in use: batches start no more.
		for _, b := range q.batches {
			q.reclaimLocked(b, false)
		}
	}
	for spawn := min(n-q.workers, q.pending.len()+q.batchedLocked()); spawn > 0; spawn-- {
		q.workers++
		go q.workFn()
	}
	q.mu.Unlock()
	if !grow && q.cfg.observer != nil {
		q.cfg.emit(Event{Kind: Resized, Weight: int64(n)})
	}
}

// Close stops the queue: it refuses new tasks with [ErrClosed], cancels
// the pending ones (they never run, and end with [context.Canceled]),
// cancels the context of the running ones, and blocks until every running
// function has returned and every worker goroutine has exited. It returns
// nil. Close may be called more than once, from several goroutines, and
// after or during Drain; every call waits for the same stop. It must not
// be called from one of the queue's own tasks, which it would wait for.
func (q *WorkQueue) Close() error {
	q.mu.Lock()
	var dropped []*wqTask
	var running []*wqContext
	var afters []wqAfter
	announce := false
	if q.state != wqClosing {
		q.state = wqClosing
		q.closed.Store(true) // running tasks' Err reports it from now on
		afters = q.closeBareLocked()
		for _, b := range q.batches {
			q.reclaimLocked(b, true)
		}
		var bare int
		dropped, bare = q.pending.drain()
		q.canceled += uint64(bare)
		for _, t := range dropped {
			q.canceled++
			t.task.end(TaskCanceled, context.Canceled)
		}
		q.wakeRoomsLocked()
		for c := range q.listeners {
			running = append(running, c)
		}
		if len(dropped) > 0 && q.cfg.observer != nil {
			announce = true
			q.emitting++
		}
	}
	stop := q.stopLocked()
	q.mu.Unlock()
	for _, c := range running {
		c.cancel(context.Canceled)
	}
	for _, a := range afters {
		a.f()
	}
	for _, t := range dropped {
		t.ctx().end()
		if announce {
			q.event(Canceled, t, context.Canceled)
		}
	}
	if announce {
		stop = q.doneEmitting()
	}
	if stop {
		q.stop()
	}
	<-q.stopped
	return nil
}

// Drain stops the queue gracefully: it refuses new tasks with [ErrClosed]
// (Submit calls waiting for room get it too), lets every accepted task run
// to its end, and blocks until the last worker goroutine has exited. If ctx
// ends first, Drain returns ctx.Err() and the queue keeps draining in the
// background; a later Drain or Close waits for the same stop. Drain may be
// called more than once and from several goroutines. It must not be called
// from one of the queue's own tasks, which it would wait for.
func (q *WorkQueue) Drain(ctx context.Context) error {
	q.mu.Lock()
	if q.state == wqOpen {
		q.state = wqDraining
		q.wakeRoomsLocked()
	}
	stop := q.stopLocked()
	q.mu.Unlock()
	if stop {
		q.stop()
	}
	select {
	case <-q.stopped:
		return nil
	default:
	}
	select {
	case <-q.stopped:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Stats returns a snapshot of the queue's counters, in which Submitted is
// the sum of Pending, Running and the counts of ended tasks. It does not
// block on running tasks.
func (q *WorkQueue) Stats() QueueStats {
	q.mu.Lock()
	defer q.mu.Unlock()
	st := QueueStats{
		Parallelism: q.limit,
		Pending:     q.pending.len() + q.reserved,
		Running:     q.nrunning,
		Submitted:   q.submitted,
		Succeeded:   q.succeeded,
		Failed:      q.failed,
		Canceled:    q.canceled,
		Panicked:    q.panicked,
		MaxRunning:  q.maxRunning,
	}
	q.batchStatsLocked(&st)
	return st
}

// do runs t as Do does.
func (q *WorkQueue) do(ctx context.Context, t *wqTask) error {
	if lane, ok := q.caller(ctx); ok {
		return q.runNested(t, lane)
	}
	q.mu.Lock()
	if q.state == wqOpen && q.workers < q.limit && q.pending.len() == 0 && q.batchedLocked() == 0 &&
		q.reserved == 0 && q.rooms.head == nil && q.granted == 0 {
		// A free slot and nothing ahead: run fn here, on the caller's
		// goroutine, which would otherwise only wait.
		// t's Task never leaves Do, so it skips the Task's states:
		// only its function runs.
		q.workers++
		lane := q.takeLaneLocked()
		q.acceptLocked(t)
		q.startLocked()
		q.mu.Unlock()
		t.setLane(lane)
		if q.cfg.observer != nil {
			q.event(Enqueued, t, nil)
		}
		return q.runInline(t, lane)
	}
	if err := q.enqueueLocked(ctx, t, true, false); err != nil {
		return err
	}
	done := t.task.Done()
	select {
	case <-done:
	case <-ctx.Done():
		q.cancelTask(t, ctx.Err())
		<-done
	}
	return t.task.Err()
}

// runInline runs t, which holds a slot and lane, on the calling goroutine
// and then gives the slot up, or hands it to a new worker if tasks are
// pending.
func (q *WorkQueue) runInline(t *wqTask, lane int) error {
	cur := t // for the deferred call: still set if fn called runtime.Goexit
	defer func() {
		if cur != nil {
			q.abandon(cur, lane, true)
		}
	}()
	state, err := q.run(t)
	cur = nil
	q.mu.Lock()
	q.countEndLocked(t, state)
	q.leaveSlotLocked(lane)
	return err
}

// leaveSlotLocked gives up a slot and its lane, or hands them to a new
// worker if tasks are pending, unlocks q.mu, and stops the queue if that
// was the last thing it waited for.
func (q *WorkQueue) leaveSlotLocked(lane int) {
	q.putLaneLocked(lane)
	q.releaseSlotLocked()
	stop := q.stopLocked()
	q.mu.Unlock()
	if stop {
		q.stop()
	}
}

// runNested runs t at once on the calling goroutine, in the slot of the
// running task whose context the caller passed.
func (q *WorkQueue) runNested(t *wqTask, lane int) error {
	q.mu.Lock()
	if q.state != wqOpen {
		q.mu.Unlock()
		return ErrClosed
	}
	q.acceptLocked(t)
	t.task.begin(nil)
	q.startLocked()
	q.mu.Unlock()
	t.setLane(lane)
	if q.cfg.observer != nil {
		q.event(Enqueued, t, nil)
	}
	return q.runBorrowed(t)
}

// helpWait runs t, if it is still pending, on the calling goroutine when
// ctx is the context of one of the queue's running tasks: waiting for t
// there could wait for the caller's own slot.
func (q *WorkQueue) helpWait(ctx context.Context, t *wqTask) {
	lane, ok := q.caller(ctx)
	if !ok {
		return
	}
	q.mu.Lock()
	if !q.pending.remove(t) {
		q.mu.Unlock()
		return
	}
	if q.rooms.head != nil {
		q.grantLocked()
	}
	if err := q.beginTask(t); err != nil {
		q.endCanceledLocked(t, err) // unlocks
		return
	}
	q.startLocked()
	q.mu.Unlock()
	t.setLane(lane)
	q.runBorrowed(t)
}

// runBorrowed runs t, started in the slot of the caller's task, and ends
// it.
func (q *WorkQueue) runBorrowed(t *wqTask) error {
	cur := t
	defer func() {
		if cur != nil {
			q.abandon(cur, 0, false)
		}
	}()
	state, err := q.run(t)
	cur = nil
	q.mu.Lock()
	q.endLocked(t, state, err)
	q.mu.Unlock()
	return err
}

// submit accepts t, waiting for room if block is set, for Submit and
// TrySubmit: t's context watches the submitter's ctx from now on, so that
// t is canceled when ctx ends.
func (q *WorkQueue) submit(ctx context.Context, t *wqTask, block bool) error {
	watched := ctx.Done() != nil
	if watched {
		t.ctx().watchParent()
	}
	q.mu.Lock()
	if err := q.enqueueLocked(ctx, t, block, watched); err != nil {
		if watched {
			t.ctx().end()
		}
		return err
	}
	return nil
}

// enqueueLocked accepts t, waiting for room if block is set, and queues
// it. watched says whether t's context watches the submitter's, which may
// then have canceled it before it is queued. q.mu is held on entry and
// released on return, also on error.
func (q *WorkQueue) enqueueLocked(ctx context.Context, t *wqTask, block, watched bool) error {
	if q.state != wqOpen || q.capacity != 0 {
		if err := q.admitLocked(ctx, block); err != nil {
			q.mu.Unlock()
			return err
		}
	}
	q.acceptLocked(t)
	if q.cfg.observer != nil {
		// Announce t before anyone can start or cancel it, so that its
		// events reach the observer in order.
		wait := q.pending.len()+q.reserved >= q.limit-q.nrunning
		q.reserved++
		q.mu.Unlock()
		q.event(Enqueued, t, nil)
		if wait {
			q.event(Waiting, t, nil)
		}
		q.mu.Lock()
		q.reserved--
	}
	if q.state == wqClosing || watched && t.parent.Err() != nil {
		// Closed, or its submitter's context ended, before it was
		// queued: it ends without running.
		err := context.Canceled
		if q.state != wqClosing {
			err = t.parent.Err()
		}
		q.canceled++
		t.task.end(TaskCanceled, err)
		if q.rooms.head != nil {
			q.grantLocked()
		}
		announce := q.cfg.observer != nil
		if announce {
			q.emitting++
		}
		stop := q.stopLocked()
		q.mu.Unlock()
		t.ctx().end()
		if announce {
			q.event(Canceled, t, err)
			stop = q.doneEmitting()
		}
		if stop {
			q.stop()
		}
		return nil
	}
	q.pending.push(t)
	if len(q.batches) > 0 {
		q.preemptLocked(t.task.priority)
	}
	if q.workers < q.limit {
		q.workers++
		go q.workFn()
	}
	q.mu.Unlock()
	return nil
}

// admitLocked waits, if block is set, until the queue has room for one
// more task. q.mu is held on entry and on return, but released while
// waiting.
func (q *WorkQueue) admitLocked(ctx context.Context, block bool) error {
	for {
		if q.state != wqOpen {
			return ErrClosed
		}
		if q.capacity == 0 || q.rooms.head == nil && q.queuedLocked() < q.capacity {
			return nil
		}
		if _, nested := q.caller(ctx); !block || nested {
			return ErrFull
		}
		granted, err := q.waitRoomLocked(ctx)
		if err != nil || granted {
			return err
		}
	}
}

// queuedLocked counts the accepted tasks not started and the room promised
// to woken waiters.
func (q *WorkQueue) queuedLocked() int {
	return q.pending.len() + q.reserved + q.granted
}

// waitRoomLocked waits until a task leaves the pending queue and the room
// is handed to this caller (granted), or the queue stops, or ctx ends.
func (q *WorkQueue) waitRoomLocked(ctx context.Context) (granted bool, err error) {
	w := &wqRoom{ch: make(chan struct{})}
	q.rooms.push(w)
	q.mu.Unlock()
	select {
	case <-w.ch:
	case <-ctx.Done():
		err = ctx.Err()
	}
	q.mu.Lock()
	switch {
	case w.granted:
		q.granted--
		if err == nil && q.state == wqOpen {
			return true, nil
		}
		q.grantLocked() // hand the room on
	case w.queued:
		q.rooms.remove(w)
	}
	return false, err
}

// grantLocked hands free room to waiting Submit calls, oldest first.
func (q *WorkQueue) grantLocked() {
	for q.rooms.head != nil && q.queuedLocked() < q.capacity {
		w := q.rooms.head
		q.rooms.remove(w)
		w.granted = true
		q.granted++
		close(w.ch)
	}
}

// wakeRoomsLocked wakes every waiting Submit call after the queue stopped
// taking tasks.
func (q *WorkQueue) wakeRoomsLocked() {
	for w := q.rooms.head; w != nil; w = q.rooms.head {
		q.rooms.remove(w)
		close(w.ch)
	}
}

// acceptLocked counts t as submitted and numbers it.
func (q *WorkQueue) acceptLocked(t *wqTask) {
	q.nextID++
	t.task.id = q.nextID
	q.submitted++
}

// startLocked counts a task as running. Its runner sets its lane, after
// unlocking.
func (q *WorkQueue) startLocked() {
	q.nrunning++
	q.maxRunning = max(q.maxRunning, q.nrunning)
}

// endLocked counts the running task t as ended and wakes its waiters.
func (q *WorkQueue) endLocked(t *wqTask, state TaskState, err error) {
	q.countEndLocked(t, state)
	t.fn = nil
	t.task.end(state, err)
}

// countEndLocked counts the running task t (nil: a bare task) as ended in
// state, without ending its Task.
func (q *WorkQueue) countEndLocked(t *wqTask, state TaskState) {
	q.nrunning--
	switch state {
	case TaskSucceeded:
		q.succeeded++
	case TaskFailed:
		q.failed++
	case TaskPanicked:
		q.panicked++
	default:
		q.canceled++
	}
	if t != nil && t.st.Load()&wqListen != 0 {
		delete(q.listeners, t.ctx())
	}
}

// beginTask moves t, just taken from the pending queue, to running,
// unless it was canceled as it was taken: by Task.Cancel, or by its
// submitter's context, whose watch may not have caught up yet. It then
// returns the error to end t with. q.mu may be held or not.
func (q *WorkQueue) beginTask(t *wqTask) error {
	if p := t.parent; p.Done() != nil {
		if err := p.Err(); err != nil {
			return err
		}
	}
	if !t.task.begin(nil) {
		return context.Canceled
	}
	return nil
}

// endCanceledLocked ends t, taken from the pending queue but canceled as
// it was taken, with err, and unlocks q.mu.
func (q *WorkQueue) endCanceledLocked(t *wqTask, err error) {
	q.canceled++
	t.task.end(TaskCanceled, err)
	q.mu.Unlock()
	t.ctx().end()
	if q.cfg.observer != nil {
		q.event(Canceled, t, err)
	}
}

// takeLaneLocked returns the lowest free lane for a slot being taken. Only
// events show lanes: without an observer it is always 0, and costs
// nothing.
func (q *WorkQueue) takeLaneLocked() int {
	if q.cfg.observer == nil {
		return 0
	}
	return q.lanes.take()
}

// putLaneLocked gives back a lane from takeLaneLocked.
func (q *WorkQueue) putLaneLocked(lane int) {
	if q.cfg.observer != nil {
		q.lanes.put(lane)
	}
}

// releaseSlotLocked gives up a slot, or hands it to a new worker when
// tasks are pending and the limit allows.
func (q *WorkQueue) releaseSlotLocked() {
	if (q.pending.len() > 0 || q.batchedLocked() > 0) && q.workers <= q.limit {
		go q.workFn()
		return
	}
	q.exitLocked()
}

// work is a worker goroutine. It holds one slot and one lane while it
// lives, runs pending tasks until there are none (or the limit shrank below
// the slots in use), and exits.
func (q *WorkQueue) work() {
	var cur *wqTask // the task running, for the deferred call
	bare := false   // a bare task is running, for the deferred call
	var b *wqBatch  // this worker's batch, made on first need
	lane := 0
	defer func() {
		switch {
		case cur != nil:
			// cur's function called runtime.Goexit: end it and
			// give the slot up as the goroutine unwinds.
			q.abandon(cur, lane, true)
		case bare:
			q.abandonBare(lane, b)
		}
	}()
	var (
		now       time.Time // read before taking the lock, for batches
		ended     *wqTask   // the task that ran last, to end outside the lock
		endedBare bool      // the task that ran last was bare
		state     TaskState
		err       error
	)
	q.mu.Lock()
	lane = q.takeLaneLocked()
	for {
		if ended != nil || endedBare {
			q.countEndLocked(ended, state)
			endedBare = false
		}
		if b != nil {
			q.flushLocked(b)
			if b.index >= 0 && b.left() == 0 {
				q.dropLocked(b)
			}
		}
		var next wqEntry
		if q.workers <= q.limit && (q.pending.len() > 0 || len(q.batches) > 0) {
			if lane >= q.limit {
				// The limit shrank: move to the lowest free
				// lane, which is below it.
				q.putLaneLocked(lane)
				lane = q.takeLaneLocked()
			}
			queued := q.pending.len() > 0
			var prio Priority
			if queued {
				prio = q.pending.top().prio
			}
			if len(q.batches) > 0 {
				// Another worker's run goes first when nothing is
				// queued or it is of a higher priority than what is.
				next.fn = q.stealLocked(prio, queued)
			}
			if next.fn == nil && queued {
				next = q.pending.pop()
				if next.t == nil && q.capacity == 0 && q.pending.len() > 0 {
					if b == nil {
						b = &wqBatch{index: -1}
					}
					if b.index < 0 {
						q.fillLocked(b, prio, now)
					}
				}
			}
			if q.rooms.head != nil {
				q.grantLocked()
			}
			if !next.empty() {
				q.startLocked()
			}
		}
		if next.empty() && ended == nil {
			break
		}
		q.mu.Unlock()
		// Waiters wake, and the next task begins, outside the lock;
		// the worker gives its slot up only after a last look, so
		// that a drained queue has ended every task.
		if ended != nil {
			ended.fn = nil
			ended.task.end(state, err)
			ended = nil
		}
		if t := next.t; t != nil {
			if cerr := q.beginTask(t); cerr != nil {
				// Canceled as it was taken: it never runs.
				t.ctx().end()
				if q.cfg.observer != nil {
					q.event(Canceled, t, cerr)
				}
				state, err = TaskCanceled, cerr
			} else {
				t.setLane(lane)
				cur = t
				state, err = q.run(t)
				cur = nil
			}
			ended = t
		} else if next.fn != nil {
			bare = true
			state = q.runBare(next.fn)
			endedBare = true
			// Then the batch, in the same slot, while the limit
			// allows.
			for b != nil {
				fn := b.take(wqEnd(state))
				if fn == nil {
					break
				}
				state = q.runBare(fn)
			}
			bare = false
		}
		if b != nil {
			now = time.Now()
		}
		q.mu.Lock()
	}
	if b != nil && b.index >= 0 {
		q.reclaimLocked(b, false)
		q.dropLocked(b)
	}
	q.putLaneLocked(lane)
	q.exitLocked()
	stop := q.stopLocked()
	q.mu.Unlock()
	if stop {
		q.stop()
	}
}

// exitLocked gives up a worker's slot.
func (q *WorkQueue) exitLocked() {
	q.workers--
}

// run calls t's function, which has begun, and reports its start and end.
// It holds no lock.
func (q *WorkQueue) run(t *wqTask) (TaskState, error) {
	obs := q.cfg.observer != nil
	if obs {
		q.event(Started, t, nil)
	}
	err := call(t.ctx(), t.fn)
	state, kind := outcome(t.ctx(), err)
	t.ctx().end()
	if obs {
		q.event(kind, t, err)
	}
	return state, err
}

// abandon ends t, whose function called runtime.Goexit, as failed, and
// gives up its slot and lane if it held them.
func (q *WorkQueue) abandon(t *wqTask, lane int, slot bool) {
	t.ctx().end()
	if q.cfg.observer != nil {
		q.event(Failed, t, errGoexit)
	}
	q.mu.Lock()
	q.endLocked(t, TaskFailed, errGoexit)
	stop := false
	if slot {
		q.putLaneLocked(lane)
		q.releaseSlotLocked()
		stop = q.stopLocked()
	}
	q.mu.Unlock()
	if stop {
		q.stop()
	}
}

// abandonBare ends a bare task whose function called runtime.Goexit as
// failed, and gives up its worker's slot and lane, and its batch b (which
// may be nil). It takes q.mu and returns with it unlocked.
func (q *WorkQueue) abandonBare(lane int, b *wqBatch) {
	q.mu.Lock()
	q.countEndLocked(nil, TaskFailed)
	if b != nil {
		q.flushLocked(b)
		if b.index >= 0 {
			q.reclaimLocked(b, false)
			q.dropLocked(b)
		}
	}
	q.leaveSlotLocked(lane)
}

// cancelTask cancels t with err: a pending task leaves the queue and ends
// canceled; a running task's context is canceled; an ended task is left
// alone. A task accepted but not yet queued sees its context's error when
// it is queued.
func (q *WorkQueue) cancelTask(t *wqTask, err error) {
	q.mu.Lock()
	if !q.pending.remove(t) {
		q.mu.Unlock()
		t.ctx().cancel(err)
		return
	}
	q.canceled++
	t.task.end(TaskCanceled, err)
	if q.rooms.head != nil {
		q.grantLocked()
	}
	announce := q.cfg.observer != nil
	if announce {
		q.emitting++
	}
	q.mu.Unlock()
	t.ctx().end()
	if announce {
		q.event(Canceled, t, err)
		if q.doneEmitting() {
			q.stop()
		}
	}
}

// caller reports whether ctx is, or derives from, the context of one of
// the queue's running tasks, and that task's lane. The bare tasks' shared
// context counts as one of them, in lane 0: bare tasks exist only without
// an observer, and only events show lanes.
func (q *WorkQueue) caller(ctx context.Context) (lane int, ok bool) {
	for {
		switch c := ctx.Value(wqContextKey{}).(type) {
		case *wqContext:
			if c.q == q {
				if c.Err() != nil {
					return 0, false // ended, or canceled: the caller gives up anyway
				}
				return c.lane(), true
			}
			ctx = c.parent
		case *wqBareContext:
			return 0, (*WorkQueue)(c) == q && c.Err() == nil
		default:
			return 0, false
		}
	}
}

// doneEmitting ends a report made outside the lock and says whether the
// caller must stop the queue.
func (q *WorkQueue) doneEmitting() bool {
	q.mu.Lock()
	q.emitting--
	stop := q.stopLocked()
	q.mu.Unlock()
	return stop
}

// stopLocked reports whether the queue, closing or draining, has nothing
// left: no worker, no task, no report in progress. The first caller to see
// it must call stop.
func (q *WorkQueue) stopLocked() bool {
	if q.state == wqOpen || q.stopping || q.workers > 0 || q.pending.len() > 0 ||
		q.reserved > 0 || q.emitting > 0 {
		return false
	}
	q.stopping = true
	return true
}

// stop reports the queue closed and wakes Close and Drain.
func (q *WorkQueue) stop() {
	if q.cfg.observer != nil {
		q.cfg.emit(Event{Kind: Closed})
	}
	close(q.stopped)
}

// event reports one step of t to the observer.
func (q *WorkQueue) event(kind EventKind, t *wqTask, err error) {
	e := Event{Kind: kind, Task: t.task.id, Name: t.task.name, Priority: t.task.priority, Weight: 1, Err: err}
	if kind != Enqueued && kind != Waiting {
		e.Lane = t.lane()
	}
	q.cfg.emit(e)
}

// wqTask is one function submitted to a WorkQueue: the Task handle its
// callers get, and the context its function runs with, in a single
// allocation of 160 bytes. The context is the task itself seen as a
// wqContext; it shares the Task's mutex.
type wqTask struct {
	task   Task
	parent context.Context // the submitter's context
	q      *WorkQueue
	st     atomic.Uint32               // the context's state bits, and the lane from wqLaneShift up
	seq    uint32                      // its place in its pending level
	done   chan struct{}               // the context's Done channel, made on first need; guarded by task.mu
	ext    *wqContextExt               // the context's rarely needed parts, made on first need; guarded by task.mu
	fn     func(context.Context) error // nil once it returned; a Processor's procRun for its tasks
}

// newWQTask returns a task of q that runs fn with ctx as its submitter
// context, with the task options opts.
func newWQTask(q *WorkQueue, ctx context.Context, fn func(context.Context) error, opts []TaskOption) *wqTask {
	t := &wqTask{parent: ctx, q: q, fn: fn}
	t.task.owner = t
	if len(opts) > 0 {
		t.options(opts)
	}
	return t
}

// options applies a task's options.
func (t *wqTask) options(opts []TaskOption) {
	for _, o := range opts {
		switch o := o.(type) {
		case nil:
		case PriorityOption:
			t.task.priority = o.p // without a taskConfig, which would escape
		default:
			tc := taskConfig{priority: t.task.priority, name: t.task.name}
			o.applyTask(&tc)
			t.task.name, t.task.priority = tc.name, tc.priority
		}
	}
}

// ctx returns the context t's function runs with.
func (t *wqTask) ctx() *wqContext { return (*wqContext)(t) }

// lane returns the lane t runs in; it is set when t starts.
func (t *wqTask) lane() int { return int(t.st.Load() >> wqLaneShift) }

// setLane records the lane t runs in, once, before it runs. Lanes are
// below the number of slots in use, far below 1<<(32-wqLaneShift).
func (t *wqTask) setLane(lane int) {
	if lane != 0 {
		t.st.Or(uint32(lane) << wqLaneShift)
	}
}

// lane returns the lane of the task that c is the context of.
func (c *wqContext) lane() int { return (*wqTask)(c).lane() }

// cancelPending is the taskOwner hook of Task.Cancel on a pending task.
func (t *wqTask) cancelPending(_ *Task, err error) { t.q.cancelTask(t, err) }

// cancelRunning is the runCanceler hook of Task.Cancel on a running task.
func (t *wqTask) cancelRunning(err error) { t.ctx().cancel(err) }

// helpWait is the waitHelper hook of Task.Wait.
func (t *wqTask) helpWait(ctx context.Context) { t.q.helpWait(ctx, t) }

// parentDone cancels t when its submitter's context ends.
func (t *wqTask) parentDone() { t.q.cancelTask(t, t.parent.Err()) }

// wqLanes hands out lane numbers, lowest free first, so that while fewer
// than n slots are in use every lane in use is below n.
type wqLanes struct {
	free []int // min-heap of lanes given back
	next int   // lanes ever handed out
}

func (l *wqLanes) take() int {
	if len(l.free) == 0 {
		l.next++
		return l.next - 1
	}
	top := l.free[0]
	n := len(l.free) - 1
	l.free[0] = l.free[n]
	l.free = l.free[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && l.free[c+1] < l.free[c] {
			c++
		}
		if l.free[i] <= l.free[c] {
			break
		}
		l.free[i], l.free[c] = l.free[c], l.free[i]
		i = c
	}
	return top
}

func (l *wqLanes) put(lane int) {
	l.free = append(l.free, lane)
	for i := len(l.free) - 1; i > 0; {
		p := (i - 1) / 2
		if l.free[p] <= l.free[i] {
			break
		}
		l.free[i], l.free[p] = l.free[p], l.free[i]
		i = p
	}
}

// wqRoom is a Submit call waiting for room in the pending queue.
type wqRoom struct {
	ch         chan struct{} // closed when granted room or the queue stops
	prev, next *wqRoom
	queued     bool // in the list
	granted    bool // room was handed to it
}

// wqRooms is the list of waiting Submit calls, oldest first.
type wqRooms struct{ head, tail *wqRoom }

func (r *wqRooms) push(w *wqRoom) {
	w.prev, w.next, w.queued = r.tail, nil, true
	if r.tail == nil {
		r.head = w
	} else {
		r.tail.next = w
	}
	r.tail = w
}

func (r *wqRooms) remove(w *wqRoom) {
	if w.prev == nil {
		r.head = w.next
	} else {
		w.prev.next = w.next
	}
	if w.next == nil {
		r.tail = w.prev
	} else {
		w.next.prev = w.prev
	}
	w.prev, w.next, w.queued = nil, nil, false
}
