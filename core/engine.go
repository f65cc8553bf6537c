package core

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// engine is the one scheduler that WorkQueue, Processor and KeyedQueue
// share: a pending queue ordered by priority then arrival, a limit on slots,
// worker goroutines that exist only while there is work, one task type
// (Task, which is also the task's context) and one lock.
//
// A task's life: accepted (an id, Enqueued); queued (Waiting) unless a slot
// is free and nothing is queued; taken by a slot; with a shared Semaphore,
// given a token at its priority; begun (Started); run; ended. A worker that
// ends a task takes the next one in the same critical section, so a busy
// queue costs two lock acquisitions per task: one to accept it, one to end
// it and begin the next.
//
// Canceled work is found without polling: a task that waits in the queue,
// or whose context someone listens to, is listed in the watch of its
// submitter's context (one context.AfterFunc per distinct context, not per
// task), which cancels the whole list when that context ends.
//
// Events are appended under the lock, in the order the state changed, and
// delivered outside it by whichever goroutine finds them there and nobody
// delivering; a goroutine that made events goes on only once they are
// delivered. So the observer sees one total order, never from two
// goroutines at once, counters rebuilt from its events never pass the
// limit, and a task's Started has been seen before its function runs.
type engine struct {
	cfg    config
	closed atomic.Bool // Close was called: task contexts report Canceled
	sem    *Semaphore  // WithSemaphore: a token per running task
	keys   laneMap     // the KeyedQueue, for lanes; nil for the others
	epoch  time.Time
	rt     rtQueue // its label in execution traces (rtrace.go)

	mu       sync.Mutex
	state    engState
	limit    int // slots; 0: unlimited
	active   int // slots held: workers and Do calls running inline
	capacity int // WithCapacity (WorkQueue) or WithTotalCapacity (KeyedQueue): bound on queued; 0: none
	laneCap  int // KeyedQueue: WithCapacity, a bound per key; 0: none
	pending  pendingQueue
	queued   int // accepted, waiting for a slot: in pending or in lane backlogs
	taken    int // holding a slot, waiting for a token
	rooms    []*room
	watches  map[<-chan struct{}]*watch
	nums     numSet // free worker slot numbers (lane numbers in a KeyedQueue)
	nextID   uint64

	nrunning, maxRunning                             int
	submitted, succeeded, failed, canceled, panicked uint64

	events, spare []Event
	emitting      bool
	appended      uint64     // events appended so far
	delivered     uint64     // events delivered so far
	evWaiters     []evWaiter // goroutines waiting until the events up to seq are delivered
	post          []func()   // to run once e.mu is released: see unlock
	spawns        []*Task    // tasks taken for new workers, which unlock starts
	stopReady     bool       // stopped: close stopped once the events are out
	stopped       chan struct{}
}

type engState uint8

const (
	engOpen     engState = iota
	engDraining          // no new tasks; accepted ones finish
	engClosing           // no new tasks; accepted ones are canceled
	engStopped           // every task ended and every worker left
)

// errGoexit ends a task whose function called runtime.Goexit.
var errGoexit = errors.New("core: task function called runtime.Goexit")

func newEngine(limit int, cfg config) *engine {
	e := &engine{cfg: cfg, limit: limit, sem: cfg.semaphore, capacity: cfg.capacity, stopped: make(chan struct{})}
	e.epoch = cfg.clock.Now()
	return e
}

func (e *engine) now() time.Duration { return e.cfg.clock.Now().Sub(e.epoch) }

type evWaiter struct {
	seq uint64
	ch  chan struct{}
}

// room is a Submit call waiting for room in the queue, or in its lane.
type room struct {
	ch      chan struct{} // one slot: the grant, or a wake-up when the queue stops
	t       *Task
	lane    *lane
	granted bool // t was accepted
}

// submit accepts t, waiting for room if block is set, and queues it or
// starts it. On error the queue is unchanged.
func (e *engine) submit(ctx context.Context, t *Task, block bool) error {
	e.mu.Lock()
	err := e.enterLocked(ctx, t, nil, block)
	e.unlock()
	return err
}

// enterLocked accepts t into the queue (and lane l, if not nil), waiting
// first, if block is set, until there is room. A waiting call is accepted
// by the one that makes room, in the order the calls came, so that no call
// overtakes an earlier one. e.mu is held on entry and on return.
func (e *engine) enterLocked(ctx context.Context, t *Task, l *lane, block bool) error {
	if e.state != engOpen {
		return ErrClosed
	}
	if e.fitsLocked(l) && !e.behindLocked(l) {
		t.lane = l
		e.acceptLocked(t)
		return nil
	}
	if !block || e.caller(ctx) != nil {
		return ErrFull
	}
	r := &room{ch: make(chan struct{}, 1), t: t, lane: l}
	e.rooms = append(e.rooms, r)
	if l != nil {
		l.waiting++
	}
	e.mu.Unlock()
	var err error
	select {
	case <-r.ch:
	case <-ctx.Done():
		err = ctx.Err()
	}
	e.mu.Lock()
	if r.granted {
		// Accepted. If ctx ended meanwhile, the task ends canceled now
		// rather than when the watch on ctx catches up.
		if err != nil && (t.at == atQueued || t.at == atLane) {
			t.why.Store(doneParent)
			e.endLocked(t, TaskCanceled, err)
			e.spawnLocked()
		}
		return nil
	}
	if l != nil {
		l.waiting--
	}
	e.dropRoom(r)
	if err == nil {
		err = ErrClosed // woken by Close or Drain
	}
	return err
}

// fitsLocked reports whether one more task fits the capacity, and lane l's.
func (e *engine) fitsLocked(l *lane) bool {
	if e.capacity > 0 && e.queued >= e.capacity {
		return false
	}
	return l == nil || e.laneCap == 0 || l.pendingCount() < e.laneCap
}

// behindLocked reports whether an earlier Submit waits for the room a new
// one would take.
func (e *engine) behindLocked(l *lane) bool {
	if len(e.rooms) == 0 {
		return false
	}
	if e.capacity > 0 {
		return true
	}
	return l != nil && l.waiting > 0
}

func (e *engine) dropRoom(r *room) {
	e.rooms = slices.DeleteFunc(e.rooms, func(x *room) bool { return x == r })
}

// grantLocked accepts the tasks of waiting Submit calls that now fit,
// oldest first, and wakes those calls.
func (e *engine) grantLocked() {
	for i := 0; i < len(e.rooms) && e.state == engOpen; {
		r := e.rooms[i]
		if !e.fitsLocked(r.lane) {
			if e.capacity > 0 && e.queued >= e.capacity {
				return
			}
			i++ // its lane is full; others may not be
			continue
		}
		e.rooms = append(e.rooms[:i], e.rooms[i+1:]...)
		r.granted = true
		if r.lane != nil {
			r.lane.waiting--
		}
		r.t.lane = r.lane
		e.acceptLocked(r.t)
		r.ch <- struct{}{}
	}
}

// wakeRoomsLocked wakes every waiting Submit call once the queue stopped
// taking tasks.
func (e *engine) wakeRoomsLocked() {
	for _, r := range e.rooms {
		r.ch <- struct{}{}
	}
	e.rooms = nil
}

// acceptLocked numbers t, reports it, and queues it (in its lane, for a
// keyed task) or starts it.
func (e *engine) acceptLocked(t *Task) {
	if l := t.lane; l != nil && !l.shown {
		l.shown = true
		e.laneEv(LaneCreated, l)
	}
	e.numberLocked(t)
	if t.lane != nil && t.lane.busy() {
		e.queued++
		t.at = atLane
		t.enq = e.now()
		t.lane.push(t)
		e.watchLocked(t)
		e.ev(Waiting, t, nil)
		return
	}
	if t.lane != nil {
		t.lane.active = t
	}
	e.readyLocked(t)
	e.spawnLocked()
	if t.at == atQueued {
		e.ev(Waiting, t, nil)
	}
}

// numberLocked counts t as submitted, numbers it and reports it.
func (e *engine) numberLocked(t *Task) {
	e.nextID++
	t.id = e.nextID
	e.submitted++
	t.slot = -1
	e.rtEnqueue(t)
	e.ev(Enqueued, t, nil)
}

// readyLocked puts t, accepted, in the pending queue.
func (e *engine) readyLocked(t *Task) {
	if t.at != atLane {
		e.queued++
		t.enq = e.now()
		e.watchLocked(t)
	}
	t.at = atQueued
	e.pending.push(t)
}

// spawnLocked starts a worker for each pending task a free slot allows.
func (e *engine) spawnLocked() {
	for e.state < engStopped && (e.limit == 0 || e.active < e.limit) {
		t := e.takeLocked(e.nums.take(e.keys == nil))
		if t == nil {
			return
		}
		e.spawns = append(e.spawns, t) // started by unlock, once the events are out
	}
}

// takeLocked takes the next pending task into a slot, numbered slot, and
// begins it unless it must wait for a token. It returns nil, and gives the
// slot up, when nothing is pending.
func (e *engine) takeLocked(slot int) *Task {
	for {
		t := e.pending.pop()
		if t == nil {
			e.nums.put(slot, e.keys == nil)
			return nil
		}
		e.queued--
		e.active++
		t.at = atTaken
		e.taken++
		if t.lane != nil {
			t.slot = t.lane.num
		} else {
			t.slot = slot
		}
		if len(e.rooms) > 0 {
			e.grantLocked()
		}
		if e.sem != nil || e.beginLocked(t) {
			return t
		}
		e.active--
		e.endLocked(t, TaskCanceled, t.cause())
	}
}

// beginLocked moves the taken task t to running, unless it was canceled
// as it was taken.
func (e *engine) beginLocked(t *Task) bool {
	if t.why.Load() != notDone || e.state == engClosing || t.pdone != nil && t.parent.Err() != nil {
		return false
	}
	e.taken--
	t.at = atRunning
	t.state.Store(uint32(TaskRunning))
	e.nrunning++
	e.maxRunning = max(e.maxRunning, e.nrunning)
	e.ev(Started, t, nil)
	if t.lane != nil && len(e.rooms) > 0 {
		e.grantLocked() // a lane's pending count fell
	}
	return true
}

// cause is the error a task canceled before it ran ends with.
func (t *Task) cause() error {
	if t.why.Load() == doneParent || t.why.Load() == notDone && t.parent.Err() != nil {
		return t.parent.Err()
	}
	return context.Canceled
}

// work is a worker goroutine: it holds one slot, runs t and then the next
// pending tasks, and leaves when there are none, the limit shrank below
// the slots in use, or the queue is closing.
func (e *engine) work(t *Task) {
	slot := t.slot
	var cur *Task
	defer func() {
		if cur != nil {
			e.goexit(cur, true)
		}
	}()
	for t != nil {
		if t.at == atTaken && !e.acquireToken(t) {
			e.mu.Lock()
			e.endLocked(t, TaskCanceled, t.cause())
			t = e.leaveOrNextLocked(slot)
			e.unlock()
			continue
		}
		cur = t
		err := e.call(t)
		cur = nil
		e.mu.Lock()
		e.finishLocked(t, err)
		e.giveTokenLocked(t)
		t = e.leaveOrNextLocked(slot)
		e.unlock()
	}
}

// giveTokenLocked gives back the shared token t, ended, held, if any, with
// e.mu released: after t's end is delivered (the task it wakes starts
// later) and before t's slot is free (Drain and Close wait for the slots).
func (e *engine) giveTokenLocked(t *Task) {
	if !t.token {
		return
	}
	t.token = false
	e.unlock()
	e.sem.Release(1)
	e.mu.Lock()
}

// acquireToken gets t, taken, a token of the shared Semaphore at its
// priority and begins it. It reports false when t was canceled first.
func (e *engine) acquireToken(t *Task) bool {
	if !e.sem.TryAcquire(1) {
		if err := e.sem.AcquirePriority((*taskCtx)(t), 1, t.priority); err != nil {
			return false
		}
	}
	e.mu.Lock()
	ok := e.beginLocked(t)
	t.token = ok
	e.unlock()
	if !ok {
		e.sem.Release(1)
	}
	return ok
}

// leaveOrNextLocked returns the next task for the worker holding slot, or
// gives the slot up and returns nil.
func (e *engine) leaveOrNextLocked(slot int) *Task {
	// A worker whose slot number a shrink left out of range leaves too, so
	// that the lanes of events stay below the limit.
	if e.state < engClosing && (e.limit == 0 || e.active <= e.limit && (e.keys != nil || slot < e.limit)) {
		e.active--
		if t := e.takeLocked(slot); t != nil {
			return t
		}
		e.maybeStopLocked()
		return nil
	}
	e.leaveLocked(slot)
	return nil
}

// call runs t's function and turns a panic into a *PanicError.
func (e *engine) call(t *Task) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Value: v, Stack: debug.Stack()}
		}
	}()
	t.rtStart()
	return t.job.run(t)
}

// finishLocked ends t, which ran and returned err.
func (e *engine) finishLocked(t *Task, err error) {
	state, _ := outcome((*taskCtx)(t), err)
	e.endLocked(t, state, err)
}

// goexit ends t, whose function called runtime.Goexit, as its goroutine
// unwinds, and gives up the slot that goroutine held, if slot is set.
func (e *engine) goexit(t *Task, slot bool) {
	e.mu.Lock()
	e.endLocked(t, TaskFailed, errGoexit)
	e.giveTokenLocked(t)
	if slot {
		e.leaveLocked(t.slot)
	}
	e.unlock()
}

// outcome classifies a function's result as a terminal state and the
// event kind that reports it: an error returned after the context was
// canceled counts as canceled when it is, or wraps, the context's error.
func outcome(ctx context.Context, err error) (TaskState, EventKind) {
	switch {
	case err == nil:
		return TaskSucceeded, Finished
	case isPanic(err):
		return TaskPanicked, Panicked
	case err == errGoexit:
		return TaskFailed, Failed
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return TaskCanceled, Canceled
	}
	return TaskFailed, Failed
}

var stateKinds = [...]EventKind{TaskSucceeded: Finished, TaskFailed: Failed, TaskCanceled: Canceled, TaskPanicked: Panicked}

// endLocked moves t to its terminal state from wherever it is, counts it,
// wakes its waiters, ends its context and reports it. For a keyed task it
// hands its lane's next task to the queue.
func (e *engine) endLocked(t *Task, state TaskState, err error) {
	switch t.at {
	case atQueued:
		e.pending.remove(t)
		e.queued--
	case atLane:
		e.queued--
		t.lane.n--
	case atTaken:
		e.taken--
	case atRunning:
		e.nrunning--
	}
	wasActive := t.lane != nil && t.lane.active == t
	t.at = atEnded
	switch state {
	case TaskSucceeded:
		e.succeeded++
	case TaskFailed:
		e.failed++
	case TaskPanicked:
		e.panicked++
	default:
		e.canceled++
	}
	t.err = err
	t.state.Store(uint32(state))
	t.rtEnd(state)
	e.cancelCtxLocked(t, doneCanceled)
	if t.w != nil {
		e.unwatchLocked(t)
	}
	if t.x != nil && t.x.ended != nil {
		close(t.x.ended)
	}
	e.ev(stateKinds[state], t, err)
	t.job = nil
	if wasActive {
		e.keys.nextLocked(t.lane)
	}
	if len(e.rooms) > 0 {
		e.grantLocked()
	}
}

// cancelCtxLocked marks t's context done for why, closes its Done channel
// and has its AfterFunc functions called once the lock is released. They
// are called synchronously, as a context cancels its children: the context
// package's own AfterFunc and WithCancel pass functions that only cancel a
// context (AfterFunc starts the user's function in a goroutine itself).
func (e *engine) cancelCtxLocked(t *Task, why uint32) {
	if t.why.Load() != notDone {
		return
	}
	t.why.Store(why)
	x := t.x
	if x == nil {
		return
	}
	if x.done != nil {
		close(x.done)
	}
	// Latest first, as deferred calls run: a function waiting for an earlier
	// derived context can then not stop a later one's before it ran.
	for i := len(x.afters) - 1; i >= 0; i-- {
		e.post = append(e.post, x.afters[i].f)
	}
	x.afters = nil
}

// cancel cancels t for why: a pending task ends at once, a running one has
// its context canceled.
func (e *engine) cancel(t *Task, why uint32) {
	e.mu.Lock()
	switch t.at {
	case atQueued, atLane:
		t.why.Store(why) // for cause; endLocked keeps it
		e.endLocked(t, TaskCanceled, t.cause())
		e.spawnLocked()
		e.maybeStopLocked()
	case atTaken, atRunning:
		e.cancelCtxLocked(t, why)
	}
	e.unlock()
}

// do runs t as Do does: nested in the caller's slot, inline on the calling
// goroutine when a slot is free and nothing waits, or through the queue.
func (e *engine) do(ctx context.Context, t *Task) error {
	if c := e.caller(ctx); c != nil {
		return e.runNested(c, t)
	}
	e.mu.Lock()
	if t.lane == nil && e.state == engOpen && e.pending.len() == 0 && len(e.rooms) == 0 && (e.limit == 0 || e.active < e.limit) {
		e.numberLocked(t)
		e.queued++ // takeLocked counts it out
		e.pending.push(t)
		t.at = atQueued
		got := e.takeLocked(e.nums.take(e.keys == nil))
		e.unlock()
		if got == nil {
			return t.err // canceled as it was taken; the slot is given back
		}
		return e.runInline(t)
	}
	e.mu.Unlock()
	if err := e.submit(ctx, t, true); err != nil {
		return err
	}
	select {
	case <-t.Done():
	case <-ctx.Done():
		e.cancel(t, doneParent)
		<-t.Done()
	}
	return t.Err()
}

// runInline runs t, which holds a slot, on the calling goroutine, then
// gives the slot up (to a new worker if tasks are pending).
func (e *engine) runInline(t *Task) error {
	slot := t.slot
	cur := t
	defer func() {
		if cur != nil {
			e.goexit(cur, true)
		}
	}()
	if t.at == atTaken && !e.acquireToken(t) {
		cur = nil
		e.mu.Lock()
		e.endLocked(t, TaskCanceled, t.cause())
		e.leaveLocked(slot)
		e.unlock()
		return t.err
	}
	err := e.call(t)
	cur = nil
	e.mu.Lock()
	e.finishLocked(t, err)
	e.giveTokenLocked(t)
	e.leaveLocked(slot)
	e.unlock()
	return err
}

// leaveLocked gives up a slot: a worker's, or a Do call's.
func (e *engine) leaveLocked(slot int) {
	e.active--
	e.nums.put(slot, e.keys == nil)
	e.spawnLocked()
	e.maybeStopLocked()
}

// caller returns the running task of this queue whose context (or one
// derived from it) ctx is, or nil. KeyedQueue tasks never nest: a key's
// tasks run one at a time.
func (e *engine) caller(ctx context.Context) *Task {
	if e.keys != nil {
		return nil
	}
	var t *Task
	if c, ok := ctx.(*taskCtx); ok {
		t = (*Task)(c)
	} else if v, ok := ctx.Value(taskKey{}).(*Task); ok {
		t = v
	}
	if t != nil && t.e == e && t.State() == TaskRunning {
		return t
	}
	return nil
}

// runNested runs t at once on the calling goroutine, in the slot of c.
func (e *engine) runNested(c, t *Task) error {
	e.mu.Lock()
	if e.state != engOpen {
		e.mu.Unlock()
		return ErrClosed
	}
	e.numberLocked(t)
	ok := e.borrowLocked(c, t)
	e.unlock()
	if !ok {
		return t.err
	}
	return e.runBorrowed(t)
}

// borrowLocked begins t in the slot of c, or ends it canceled if it was
// canceled first, and reports which.
func (e *engine) borrowLocked(c, t *Task) bool {
	t.slot, t.at = c.slot, atTaken
	e.taken++
	if e.beginLocked(t) {
		return true
	}
	e.endLocked(t, TaskCanceled, t.cause())
	return false
}

// runBorrowed runs t, begun in the slot of its caller's task, and ends it.
func (e *engine) runBorrowed(t *Task) error {
	cur := t
	defer func() {
		if cur != nil {
			e.goexit(cur, false)
		}
	}()
	err := e.call(t)
	cur = nil
	e.mu.Lock()
	e.finishLocked(t, err)
	e.maybeStopLocked()
	e.unlock()
	return err
}

// helpWait runs t, if it is still pending, on the calling goroutine when
// ctx is the context of one of the queue's running tasks: waiting for t
// there could wait for the caller's own slot.
func (e *engine) helpWait(ctx context.Context, t *Task) {
	c := e.caller(ctx)
	if c == nil {
		return
	}
	e.mu.Lock()
	if t.at != atQueued {
		e.mu.Unlock()
		return
	}
	e.pending.remove(t)
	e.queued--
	if len(e.rooms) > 0 {
		e.grantLocked()
	}
	ok := e.borrowLocked(c, t)
	e.unlock()
	if ok {
		e.runBorrowed(t)
	}
}

func (e *engine) setLimit(n int) {
	e.mu.Lock()
	e.limit = n
	e.ev(Resized, nil, nil)
	e.spawnLocked()
	e.unlock()
}

// close stops the engine: it refuses new tasks, cancels pending ones and
// the contexts of running ones, and waits for the stop.
func (e *engine) close() error {
	e.mu.Lock()
	if e.state < engClosing {
		e.state = engClosing
		e.closed.Store(true)
		e.wakeRoomsLocked()
		if e.keys != nil {
			e.keys.dropBacklogsLocked()
		}
		for t := e.pending.pop(); t != nil; t = e.pending.pop() {
			e.queued--
			t.at = atNew // out of the queue already
			e.endLocked(t, TaskCanceled, context.Canceled)
		}
		for _, w := range e.watches {
			for t := w.head; t != nil; t = t.wnext {
				e.cancelCtxLocked(t, doneCanceled)
			}
		}
		e.maybeStopLocked()
	}
	e.unlock()
	<-e.stopped
	return nil
}

// drain stops the engine once every accepted task has ended, and waits
// for that or for ctx.
func (e *engine) drain(ctx context.Context, what string) error {
	checkCtx(ctx, what)
	e.mu.Lock()
	if e.state == engOpen {
		e.state = engDraining
		e.wakeRoomsLocked()
	}
	e.maybeStopLocked()
	e.unlock()
	select {
	case <-e.stopped:
		return nil
	default:
	}
	select {
	case <-e.stopped:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// maybeStopLocked stops the engine once it is closing or draining and
// nothing is left: the lanes are reported evicted, then the engine Closed.
func (e *engine) maybeStopLocked() {
	if e.state == engOpen || e.state == engStopped || e.active > 0 || e.nrunning > 0 || e.queued > 0 || e.taken > 0 {
		return
	}
	e.state = engStopped
	if e.keys != nil {
		e.keys.evictAllLocked()
	}
	e.pending = pendingQueue{}
	e.rooms = nil
	e.ev(Closed, nil, nil)
	e.stopReady = true
	if !e.emitting && len(e.events) == 0 {
		e.stopReady = false
		close(e.stopped)
	}
}

func (e *engine) stats() QueueStats {
	e.mu.Lock()
	defer e.mu.Unlock()
	st := QueueStats{
		Parallelism: e.limit,
		Pending:     e.queued + e.taken,
		Running:     e.nrunning,
		Submitted:   e.submitted,
		Succeeded:   e.succeeded,
		Failed:      e.failed,
		Canceled:    e.canceled,
		Panicked:    e.panicked,
		MaxRunning:  e.maxRunning,
	}
	if o := e.pending.oldest(); o != nil {
		st.OldestPending = max(e.now()-o.enq, 0)
	}
	if e.keys != nil {
		e.keys.statsLocked(&st, e.now())
	}
	return st
}

// ev appends an event for t (nil for queue events) if there is an observer.
func (e *engine) ev(kind EventKind, t *Task, err error) {
	if e.cfg.observer == nil {
		return
	}
	x := Event{Kind: kind, Time: e.cfg.clock.Now(), Err: err}
	if t != nil {
		x.Task, x.Name, x.Priority, x.Weight, x.Lane = t.id, t.name, t.priority, 1, max(t.slot, 0)
		if t.lane != nil {
			x.Key = t.lane.keyStr
			x.Lane = t.lane.num
		}
	} else if kind == Resized {
		x.Weight = int64(e.limit)
	}
	e.events = append(e.events, x)
	e.appended++
}

// laneEv appends a lane event for l if there is an observer.
func (e *engine) laneEv(kind EventKind, l *lane) {
	if e.cfg.observer != nil {
		e.events = append(e.events, Event{Kind: kind, Time: e.cfg.clock.Now(), Key: l.keyStr, Lane: l.num})
		e.appended++
	}
}

// unlock releases e.mu, first delivering the events appended under it (or
// waiting for the goroutine delivering to deliver them), then runs the calls
// that must not be made under the lock: the cancel functions of contexts
// derived from tasks', and the arming and stopping of watches (their context
// may be a task's of this very queue).
func (e *engine) unlock() {
	var buf [4]*Task
	spawns := append(buf[:0], e.spawns...)
	e.spawns = slices.Delete(e.spawns, 0, len(e.spawns)) // zeroes what it drops
	post := e.post
	e.post = nil
	switch {
	case len(e.events) == 0:
		e.mu.Unlock()
	case !e.emitting:
		e.deliver()
	default:
		// Another goroutine delivers: wait until it has delivered these
		// events too, so that no caller goes on (into a task's function,
		// say) before the observer has seen what it did.
		w := evWaiter{e.appended, make(chan struct{})}
		e.evWaiters = append(e.evWaiters, w)
		e.mu.Unlock()
		<-w.ch
	}
	for _, f := range post {
		f()
	}
	for _, t := range spawns {
		go e.work(t)
	}
}

// deliver hands the events to the observer until there are none, then
// releases e.mu.
func (e *engine) deliver() {
	e.emitting = true
	for len(e.events) > 0 {
		evs := e.events
		e.events = e.spare[:0]
		e.mu.Unlock()
		for i := range evs {
			e.cfg.observer(evs[i])
		}
		e.mu.Lock()
		e.delivered += uint64(len(evs))
		clear(evs)
		e.spare = evs[:0]
		ws := e.evWaiters[:0]
		for _, w := range e.evWaiters {
			if w.seq <= e.delivered {
				close(w.ch)
			} else {
				ws = append(ws, w)
			}
		}
		clear(e.evWaiters[len(ws):])
		e.evWaiters = ws
	}
	e.emitting = false
	if e.stopReady {
		e.stopReady = false
		close(e.stopped)
	}
	e.mu.Unlock()
}

// watch lists the tasks whose submitter's context has one Done channel,
// and cancels them when it ends. A task is listed while it waits in the
// queue (if its context can end), and while it runs if someone asked for
// its Done channel or gave it an AfterFunc; the watch of a nil channel
// lists only the latter, for Close.
type watch struct {
	done <-chan struct{}
	stop func() bool // set once armed
	head *Task
	n    int
	dead bool // out of the map: emptied, or fired
}

func (e *engine) watchLocked(t *Task) {
	if t.w != nil || t.pdone == nil && t.at != atRunning && t.at != atTaken {
		return // listed already, or pending on a context that never ends
	}
	d := t.pdone
	w := e.watches[d]
	if w == nil {
		w = &watch{done: d}
		if e.watches == nil {
			e.watches = make(map[<-chan struct{}]*watch)
		}
		e.watches[d] = w
		if d != nil {
			ctx := t.parent
			e.post = append(e.post, func() { e.arm(w, ctx) })
		}
	}
	t.w = w
	t.wnext = w.head
	if w.head != nil {
		w.head.wprev = t
	}
	w.head = t
	w.n++
}

// listenLocked lists t, running, for its context's Done or AfterFunc.
func (e *engine) listenLocked(t *Task) {
	e.watchLocked(t)
	if e.closed.Load() && t.at != atEnded {
		e.cancelCtxLocked(t, doneCanceled)
	}
}

func (e *engine) unwatchLocked(t *Task) {
	w := t.w
	if t.wprev != nil {
		t.wprev.wnext = t.wnext
	} else {
		w.head = t.wnext
	}
	if t.wnext != nil {
		t.wnext.wprev = t.wprev
	}
	t.w, t.wprev, t.wnext = nil, nil, nil
	w.n--
	if w.n == 0 {
		delete(e.watches, w.done)
		w.dead = true
		if w.stop != nil {
			e.post = append(e.post, func() { w.stop() })
		}
	}
}

// arm watches ctx for w, outside the lock.
func (e *engine) arm(w *watch, ctx context.Context) {
	stop := context.AfterFunc(ctx, func() { e.fire(w) })
	e.mu.Lock()
	dead := w.dead
	w.stop = stop
	e.mu.Unlock()
	if dead {
		stop()
	}
}

// fire cancels the tasks of w, whose context ended.
func (e *engine) fire(w *watch) {
	e.mu.Lock()
	if w.dead {
		e.mu.Unlock()
		return
	}
	for t := w.head; t != nil; {
		next := t.wnext
		switch t.at {
		case atQueued, atLane:
			t.why.Store(doneParent)
			e.endLocked(t, TaskCanceled, t.parent.Err())
		case atTaken, atRunning:
			e.cancelCtxLocked(t, doneParent)
		}
		t = next
	}
	e.spawnLocked()
	e.maybeStopLocked()
	e.unlock()
}

// numSet hands out the smallest free number: worker slots, or key lanes.
type numSet struct {
	free intHeap
	next int
}

func (s *numSet) take(use bool) int {
	if !use {
		return 0
	}
	if len(s.free) == 0 {
		s.next++
		return s.next - 1
	}
	return heap.Pop(&s.free).(int)
}

func (s *numSet) put(n int, use bool) {
	if !use || n < 0 {
		return
	}
	if len(s.free)+1 == s.next {
		*s = numSet{} // every number is free: start again, holding nothing
		return
	}
	heap.Push(&s.free, n)
}

type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func checkCtx(ctx context.Context, what string) {
	if ctx == nil {
		panic(fmt.Sprintf("core: %s with a nil context", what))
	}
}
