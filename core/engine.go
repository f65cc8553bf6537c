package core

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/bits"
	"runtime"
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
// A waiting task's submitter context is looked at, not watched: when the
// task's turn comes (a task whose context ended never runs), when its
// handle is read (State, Err), when Stats is read, and when a submit finds
// the queue full (sweepLocked, which looks at the tasks of the unseen
// list). So a request's own context costs a queue nothing until then. A
// task that someone waits for (Task.Done and Wait, a Submit call waiting
// for room, or its function's context's Done or AfterFunc) is listed in
// the watch of its submitter's context (one context.AfterFunc per distinct
// context), which cancels the whole list when that context ends; it
// leaves the unseen list, so that Submit calls waiting on a full queue
// look at each waiting task once between them, not once each.
//
// Events are appended under the lock, in the order the state changed; the
// goroutine that made them hands them, as one batch, to whichever goroutine
// holds the right to deliver, taking that right itself when nobody does,
// and goes on once they are delivered (see flush). So the observer sees one
// total order, never from two goroutines at once, counters rebuilt from
// its events never pass the limit, and a task's Started has been seen
// before its function runs.
type engine struct {
	cfg    config
	closed atomic.Bool // Close was called: task contexts report Canceled
	sem    *Semaphore  // WithSemaphore: a token per running task
	keys   laneMap     // the KeyedQueue's shard, for lanes; nil for the others
	// pool is the slot count that a sharded KeyedQueue's engines share
	// (slots.go), instead of limit and active; nil for the others. bit is
	// this engine's bit in its starved set, shard its index, and kick
	// pool.kick(shard), made once.
	pool  *slots
	bit   uint64
	shard int
	kick  func()
	rt    *rtQueue // its label in execution traces (rtrace.go); a KeyedQueue's shards share one

	mu sync.Mutex
	// ctxMu guards the parts of task contexts that Err may change without
	// mu (why, a task's taskExt pointer, and its done and afters); it is
	// taken after mu, or alone.
	ctxMu    sync.Mutex
	state    engState
	limit    int // slots; 0: unlimited
	active   int // slots held: workers and Do calls running inline
	capacity int // WithCapacity (WorkQueue) or WithTotalCapacity (KeyedQueue): bound on queued; 0: none
	laneCap  int // KeyedQueue: WithCapacity, a bound per key; 0: none
	pending  pendingQueue
	queued   int // accepted, waiting for a slot: in pending or in lane backlogs
	taken    int // holding a slot, waiting for a token (or about to begin)
	spinning int // workers without a slot looking for work: see spin
	maxSpin  int // the most that spin at once
	// tokenWait lists the tasks that hold a slot and wait for a token of
	// the shared Semaphore, for OldestPending; at most the limit.
	tokenWait []*Task
	rooms     []*room
	watches   map[<-chan struct{}]*watch
	// spareWatches holds stopped watches for reuse (see watch).
	spareWatches chan *watch
	nums         numSet // free worker slot numbers (lane numbers in a KeyedQueue)
	nextID       uint64
	// unseen lists the waiting tasks whose submitter's context can end and
	// is not watched (Task.unseen), linked through their wprev and wnext,
	// newest first: while it is nil, sweepLocked has nothing to look at.
	unseen *Task

	nrunning, maxRunning                             int
	submitted, succeeded, failed, canceled, panicked uint64

	events    []evRec       // appended under mu; see unlockDelivering
	stamp     time.Duration // if stamped, the time read before this holder of mu took it (lockStamped)
	stamped   bool
	lastEv    time.Duration // the time of the latest event
	appended  uint64        // events appended so far
	post      []postOp      // to run once e.mu is released: see unlock
	spawns    []*Task       // tasks taken for new workers, which unlock starts
	stopReady bool          // stopped: close stopped once the events are out
	stopped   chan struct{}

	// The events' delivery (see flush). evMu guards pend, spareBufs and
	// evWaiters.
	delivered atomic.Uint64 // events delivered so far
	// dstate is, in one word, the right to deliver (dsEmitting: a
	// goroutine delivers, the only one that calls the observer), the
	// count of batches in pend (in units of dsPend) and that of the
	// goroutines in evWaiters (in units of dsParked).
	dstate    atomic.Uint64
	evMu      sync.Mutex
	pend      []*evBuf   // batches waiting for delivery, in event order
	spareBufs []*evBuf   // delivered batches' buffers, for reuse
	evWaiters []evWaiter // goroutines parked until the events up to seq are delivered
}

const (
	dsEmitting = 1
	dsPend     = 1 << 1
	dsParked   = 1 << 32
	dsPendMask = dsParked - dsPend
)

// evBuf is a batch of events queued for delivery.
type evBuf struct {
	evs []evRec
}

// evRec is an event as recorded under the lock: what the Event needs that
// may change later, and the task for the rest (its number, name and
// priority, which do not). deliver makes the Event, outside the lock.
type evRec struct {
	t    *Task // nil for lane and queue events
	key  string
	err  error
	at   time.Duration // since the clock's origin
	lane int           // the Event's Lane; its Weight for Resized
	kind EventKind
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
	e := &engine{cfg: cfg, limit: limit, sem: cfg.semaphore, capacity: cfg.capacity, stopped: make(chan struct{}), maxSpin: spinners(),
		spareWatches: make(chan *watch, maxSpareWatches), rt: new(rtQueue)}
	return e
}

// now is the time since the engine was made, on its clock.
func (e *engine) now() time.Duration { return e.cfg.org.since() }

// postOp is a call unlock makes once e.mu is released: f, or the arming
// (arm set) or stopping of watch w.
type postOp struct {
	f   func()
	w   *watch
	arm bool
}

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
	t.enq = e.now() // read before the lock, to keep the clock out of it
	e.mu.Lock()
	e.stamp, e.stamped = t.enq, true
	err := e.enterLocked(ctx, t, nil, block)
	e.unlock()
	return err
}

// enterLocked accepts t into the queue (and lane l, if not nil), waiting
// first, if block is set, until there is room. A waiting call is accepted
// by the one that makes room, in the order the calls came, so that no call
// overtakes an earlier one. e.mu is held on entry and on return.
//
// A call about to wait first has every waiting task's context watched
// (watchWaitingLocked), and a call granted room while others still wait
// has its own task's watched, so that the room a task whose context ends
// makes reaches the waiting calls at once.
func (e *engine) enterLocked(ctx context.Context, t *Task, l *lane, block bool) error {
	for looked := false; ; looked = true {
		if !e.openLocked() {
			return ErrClosed
		}
		if !e.fitsLocked(l) {
			// Tasks whose context ended make room. A call that will wait
			// need not look at the watched ones: their watch makes the
			// room, and wakes it, when their context ends.
			e.sweepLocked(!block || e.caller(ctx) != nil)
		}
		if e.fitsLocked(l) && !e.behindLocked(l) {
			t.lane = l
			e.acceptLocked(t)
			return nil
		}
		if !block || e.caller(ctx) != nil {
			return ErrFull
		}
		if looked {
			break
		}
		if l != nil {
			l.entering++ // the lane stays while the lock is released
		}
		released := e.watchWaitingLocked()
		if l != nil {
			l.entering--
		}
		if !released {
			break
		}
		// It released the lock: look again.
	}
	r := &room{ch: make(chan struct{}, 1), t: t, lane: l}
	e.rooms = append(e.rooms, r)
	if l != nil {
		l.waiting++
	}
	e.unlock() // with what a sweep above did: its events, its spawns
	d := ctx.Done()
	var err error
	select {
	case <-r.ch:
	case <-d:
		err = ctx.Err()
	}
	e.mu.Lock()
	if r.granted {
		switch {
		case t.at != atQueued && t.at != atLane:
		case err != nil:
			// Accepted as ctx ended: the task ends canceled now.
			e.cancelLocked(t, doneParent)
		case len(e.rooms) > 0:
			e.watchLocked(t, d)
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

// watchWaitingLocked has the context of every waiting task that can end,
// and is not watched yet, watched, for a Submit call about to wait for
// room. It releases e.mu to read the contexts' Done channels (one may be a
// task's of this very queue) and to arm the watches, and reports whether
// it did; it costs nothing when no waiting task's context can end. A
// watched task leaves the unseen list, so each waiting task is looked at
// here once, however many calls wait.
func (e *engine) watchWaitingLocked() bool {
	if e.unseen == nil {
		return false
	}
	var ts []*Task
	for t := e.unseen; t != nil; t = t.wnext {
		ts = append(ts, t)
	}
	e.unlock() // with what a sweep before did: its events, its spawns
	ds := make([]<-chan struct{}, len(ts))
	for i, t := range ts {
		ds[i] = t.parent.Done()
	}
	e.mu.Lock()
	for i, t := range ts {
		switch {
		case t.at != atQueued && t.at != atLane:
		case ds[i] == nil:
			e.seenLocked(t) // its context never ends: nothing to look at
		default:
			e.watchLocked(t, ds[i])
		}
	}
	e.unlock() // arms the watches
	e.mu.Lock()
	return true
}

// openLocked reports whether the engine takes new tasks: a shard only
// while its whole queue does.
func (e *engine) openLocked() bool {
	return e.state == engOpen && (e.pool == nil || !e.pool.stopping.Load())
}

// fitsLocked reports whether one more task fits the capacity, and lane l's.
func (e *engine) fitsLocked(l *lane) bool {
	if e.capacity > 0 && e.queued+e.taken >= e.capacity {
		return false
	}
	return l == nil || e.laneCap == 0 || l.pendingCount() < e.laneCap
}

// behindLocked reports whether an earlier Submit waits for the room a new
// one would take: any waiting Submit in a WorkQueue (they wait only while
// it is full), and one for the same lane in a KeyedQueue (the queue as a
// whole grants waiting calls as soon as it has room, so others wait only
// for their own full lane).
func (e *engine) behindLocked(l *lane) bool {
	if l != nil {
		return l.waiting > 0
	}
	return len(e.rooms) > 0
}

func (e *engine) dropRoom(r *room) {
	e.rooms = slices.DeleteFunc(e.rooms, func(x *room) bool { return x == r })
}

// grantLocked accepts the tasks of waiting Submit calls that now fit,
// oldest first, and wakes those calls, while the engine takes new tasks: a
// shard not closed yet grants nothing once its queue's Close or Drain has
// begun (another shard's task canceled by the Close may have left room).
func (e *engine) grantLocked() {
	for i := 0; i < len(e.rooms) && e.openLocked(); {
		r := e.rooms[i]
		if !e.fitsLocked(r.lane) {
			if e.capacity > 0 && e.queued+e.taken >= e.capacity {
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
		r.t.enq = e.now() // its wait for room is not pending time
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
		t.lane.push(t)
		e.seeLaterLocked(t)
		e.waitingLocked(t)
		return
	}
	if t.lane != nil {
		t.lane.active = t
	}
	e.readyLocked(t)
	e.spawnLocked()
	if t.at == atQueued {
		e.seeLaterLocked(t)
		e.waitingLocked(t)
	}
}

// seeLaterLocked lists t, left waiting, among the unseen tasks that
// sweepLocked looks at, unless its submitter's context never ends.
func (e *engine) seeLaterLocked(t *Task) {
	if t.unseen || t.w != nil || endless(t.parent) {
		return
	}
	t.unseen = true
	link(&e.unseen, t)
}

// seenLocked takes t out of the unseen list: it begins, ends, or is
// watched.
func (e *engine) seenLocked(t *Task) {
	if t.unseen {
		t.unseen = false
		unlink(&e.unseen, t)
	}
}

// link puts t first in the list at *head, linked through wprev and wnext:
// a watch's tasks, or the unseen ones.
func link(head **Task, t *Task) {
	t.wprev, t.wnext = nil, *head
	if *head != nil {
		(*head).wprev = t
	}
	*head = t
}

// unlink takes t out of the list at *head.
func unlink(head **Task, t *Task) {
	if t.wprev != nil {
		t.wprev.wnext = t.wnext
	} else {
		*head = t.wnext
	}
	if t.wnext != nil {
		t.wnext.wprev = t.wprev
	}
	t.wprev, t.wnext = nil, nil
}

// sweepLocked cancels the waiting tasks whose submitter's context has
// ended, oldest first: the engine does not watch a waiting task's context
// unless someone waits for the task, it looks at it here (for Stats, and
// for a submit that finds the queue full), when the task's turn comes,
// and when its handle is read. It costs one Err call per unseen task, and
// nothing while there is none; with watched set, it also looks at the
// Done channel of each watched context (a watched task is canceled by its
// watch, after its context ends: this is for the calls that must see it
// at once, Stats and TrySubmit).
func (e *engine) sweepLocked(watched bool) {
	var ended []*Task
	for t := e.unseen; t != nil; t = t.wnext {
		if t.parent.Err() != nil {
			ended = append(ended, t)
		}
	}
	if watched {
		for d, w := range e.watches {
			if d == nil {
				continue // lists no waiting task
			}
			select {
			case <-d:
			default:
				continue
			}
			for t := w.head; t != nil; t = t.wnext {
				if t.at == atQueued || t.at == atLane {
					ended = append(ended, t)
				}
			}
		}
	}
	if len(ended) == 0 {
		return
	}
	slices.SortFunc(ended, func(a, b *Task) int { return cmp.Compare(a.id, b.id) })
	for _, t := range ended {
		if t.at == atQueued || t.at == atLane {
			e.endPendingLocked(t, doneParent)
		}
	}
	e.spawnLocked()
	e.maybeStopLocked()
}

// numberLocked counts t as submitted, numbers it and reports it.
func (e *engine) numberLocked(t *Task) {
	if e.pool != nil {
		t.id = e.pool.ids.Add(1)
	} else {
		e.nextID++
		t.id = e.nextID
	}
	e.submitted++
	t.slot = -1
	e.rtEnqueue(t)
	e.ev(Enqueued, t, nil)
}

// readyLocked puts t, accepted, in the pending queue. A task from a
// lane's backlog is counted for sweepLocked already; acceptLocked counts a
// new one if it stays there.
func (e *engine) readyLocked(t *Task) {
	if t.at != atLane {
		e.queued++
	}
	t.at = atQueued
	e.pending.push(t)
}

// spawnLocked starts a worker for each pending task a free slot allows.
// A task it takes may end there, canceled (its context ended while it
// waited), so a caller that may run while
// the engine drains calls maybeStopLocked after it: nothing else would
// stop the engine.
func (e *engine) spawnLocked() {
	for e.state < engStopped {
		if e.pending.len() <= e.spinning {
			return // the spinning workers take these: no goroutine to start
		}
		if !e.slotLocked() {
			return
		}
		t := e.takeLocked(e.nums.take(e.keys == nil))
		if t == nil {
			return
		}
		e.spawns = append(e.spawns, t) // started by unlock, once the events are out
	}
}

// slotLocked reports whether a free slot allows one more worker; in a
// shard, it takes the slot from the shared count (takeLocked gives it back
// if nothing is pending).
func (e *engine) slotLocked() bool {
	if e.pool != nil {
		return e.pool.take(e)
	}
	return e.limit == 0 || e.active < e.limit
}

// putSlotLocked gives a shard's slot back to the shared count, and has
// the starved shards, if any, kicked once e.mu is released.
func (e *engine) putSlotLocked() {
	if e.pool == nil {
		return
	}
	e.pool.used.Add(-1)
	if e.pool.starved.Load() != 0 {
		e.post = append(e.post, postOp{f: e.kick})
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
			e.putSlotLocked()
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
		if e.sem != nil {
			e.tokenWait = append(e.tokenWait, t) // still pending: no room made
			return t
		}
		if e.beginLocked(t) {
			return t
		}
		// The slot stays counted while t ends: the room its end makes may
		// start a task, which must not take this slot too.
		e.endLocked(t, TaskCanceled, t.cause())
		e.active--
	}
}

// beginLocked moves the taken task t to running, unless it was canceled
// as it was taken.
func (e *engine) beginLocked(t *Task) bool {
	if t.why.Load() != notDone || e.state == engClosing || e.pool != nil && e.pool.closing.Load() || t.parent.Err() != nil {
		return false
	}
	e.untakeLocked(t)
	e.seenLocked(t)
	if t.w != nil && (t.x == nil || !t.x.listened) {
		// Running, its context is checked by Err itself; the watch was for
		// the wait.
		e.unwatchLocked(t)
	}
	t.at = atRunning
	t.state.Store(uint32(TaskRunning))
	e.nrunning++
	e.maxRunning = max(e.maxRunning, e.nrunning)
	if e.pool != nil {
		e.pool.started()
	}
	e.ev(Started, t, nil)
	if len(e.rooms) > 0 {
		e.grantLocked() // one pending task fewer
	}
	return true
}

// untakeLocked counts t, taken, out of the taken tasks.
func (e *engine) untakeLocked(t *Task) {
	e.taken--
	if e.sem == nil {
		return
	}
	for i, x := range e.tokenWait {
		if x == t {
			e.tokenWait = slices.Delete(e.tokenWait, i, i+1)
			return
		}
	}
}

// cause is the error a task canceled before it ran ends with.
func (t *Task) cause() error {
	if w := t.why.Load() &^ whySettled; w == doneParent || w == notDone && t.parent.Err() != nil {
		return t.parent.Err()
	}
	return context.Canceled
}

// work is a worker goroutine: it holds one slot, runs t and then the next
// pending tasks, and leaves when there are none, the limit shrank below
// the slots in use, or the queue is closing.
func (e *engine) work(t *Task) {
	ran := 0 // tasks run in a row in e's shard
	for t != nil {
		if t.e != e {
			e, ran = t.e, 0 // a sharded KeyedQueue's worker moves between shards
		}
		ran++
		slot := t.slot
		if t.at == atTaken {
			switch e.acquireToken(t) {
			case tokCanceled:
				e.mu.Lock()
				e.endLocked(t, TaskCanceled, t.cause())
				t = e.next(slot, ran)
				continue
			case tokRequeued:
				e.mu.Lock()
				e.leaveLocked(slot)
				e.unlock()
				return
			}
		}
		err := e.call(t, true)
		e.lockStamped()
		e.finishLocked(t, err)
		e.giveTokenLocked(t)
		t = e.next(slot, ran)
	}
}

// next returns the worker's next task, taken into a slot, or nil when the
// worker is to exit: the one pending, or one found spinning. e.mu is held
// on entry and released on return.
func (e *engine) next(slot, ran int) *Task {
	t, spin, handOff := e.leaveOrNextLocked(slot, ran)
	e.unlock()
	switch {
	case spin:
		t = e.spin()
	case handOff:
		t = e.pool.handOff(e)
	}
	return t
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

// What acquireToken did.
const (
	tokBegun    = iota // t holds a token and runs
	tokCanceled        // t was canceled first
	tokRequeued        // a shrink left no room: t is back at the head of the queue
)

// acquireToken gets t, taken, a token of the shared Semaphore at its
// priority, reporting Waiting if it has to wait, and begins it. If a
// SetParallelism shrink made while t waited left no room for it (the slots
// running tasks hold are as many as the limit), t goes back to the head of
// the pending queue and its token back to the Semaphore; the caller then
// gives up its slot.
func (e *engine) acquireToken(t *Task) int {
	if !e.sem.TryAcquire(1) {
		e.mu.Lock()
		e.waitingLocked(t)
		e.unlock()
		if err := e.sem.AcquirePriority((*taskCtx)(t), 1, t.priority); err != nil {
			return tokCanceled
		}
	}
	e.mu.Lock()
	if e.limit > 0 && e.active-e.taken >= e.limit && t.why.Load() == notDone && e.state < engClosing {
		e.untakeLocked(t)
		e.queued++
		t.at = atQueued
		e.pending.pushFront(t)
		e.unlock()
		e.sem.Release(1)
		return tokRequeued
	}
	ok := e.beginLocked(t)
	t.token = ok
	e.unlock()
	if !ok {
		e.sem.Release(1)
		return tokCanceled
	}
	return tokBegun
}

// waitingLocked reports t Waiting, once in its life.
func (e *engine) waitingLocked(t *Task) {
	if !t.waited {
		t.waited = true
		e.ev(Waiting, t, nil)
	}
}

// leaveOrNextLocked returns the next task for the worker holding slot, or
// gives the slot up and returns nil; or, in a shard while another shard
// waits for a slot, keeps the slot for that shard (handOff).
func (e *engine) leaveOrNextLocked(slot, ran int) (next *Task, spin, handOff bool) {
	if e.state < engClosing && e.pool != nil && !e.pool.over() && (ran >= shardTurn || e.pending.len() == 0) && e.pool.othersStarved(e) {
		e.active--
		if e.pending.len() > 0 {
			e.pool.starved.Or(e.bit) // this shard's turn comes after the others'
		}
		e.maybeStopLocked()
		return nil, false, true
	}
	// A worker whose slot number a shrink left out of range leaves too, so
	// that the lanes of events stay below the limit.
	if e.state < engClosing && e.keepSlotLocked(slot) {
		e.active--
		if t := e.takeLocked(slot); t != nil {
			return t, false, false
		}
		if e.state == engOpen && e.spinning < e.maxSpin {
			e.spinning++
			return nil, true, false
		}
		e.maybeStopLocked()
		return nil, false, false
	}
	e.leaveLocked(slot)
	return nil, false, false
}

// shardTurn is how many tasks in a row a sharded KeyedQueue's worker
// runs in its shard, while another shard waits for a slot, before it takes
// its slot there.
const shardTurn = 8

// keepSlotLocked reports whether the worker holding slot may take the next
// task: not if a shrink left more slots than the limit.
func (e *engine) keepSlotLocked(slot int) bool {
	if e.pool != nil {
		return !e.pool.over()
	}
	return e.limit == 0 || e.active <= e.limit && (e.keys != nil || slot < e.limit)
}

// spinRounds is how long a worker spins for work (see spin): a round is
// one runtime.Gosched. How many spin at once, a queue's maxSpin, is a
// quarter of GOMAXPROCS when the queue is made: none on fewer than four
// cores, where a spinning worker would take a core from the submitters.
const spinRounds = 64

// spinners is the maxSpin of new queues; tests set it.
var spinners = func() int { return runtime.GOMAXPROCS(0) / 4 }

// spin is a worker that found nothing pending, counted in spinning: for a
// few rounds it yields and looks for a pending task that a free slot
// allows (spawnLocked leaves that many for spinners rather than start a
// goroutine), and returns it, taken; or nil when it gives up, the worker
// then exiting. The check at the end is under the lock, so a task left for
// it is never stranded.
func (e *engine) spin() *Task {
	for i := 0; ; i++ {
		last := i == spinRounds
		if !last {
			runtime.Gosched()
			if e.pending.len() == 0 {
				continue
			}
		}
		e.mu.Lock()
		var t *Task
		if e.state < engClosing && e.pending.len() > 0 && e.slotLocked() {
			e.spinning--
			t = e.takeLocked(e.nums.take(e.keys == nil))
			if t == nil {
				e.spinning++ // canceled as it was taken: go on
			}
		}
		if t != nil {
			e.unlock()
			return t
		}
		if last {
			e.spinning--
			e.spawnLocked() // what was left for this spinner
			e.maybeStopLocked()
			e.unlock()
			return nil
		}
		e.unlock()
	}
}

// call runs t's function through the guarded call; if it calls
// runtime.Goexit, t ends failed as its goroutine unwinds, and the slot that
// goroutine held is given up if slot is set (not for a nested task, which
// runs in its caller's).
func (e *engine) call(t *Task, slot bool) error {
	return call(func() error {
		t.rtStart()
		return t.job.run(t)
	}, func() { e.goexit(t, slot) })
}

// finishLocked ends t, which ran and returned err.
func (e *engine) finishLocked(t *Task, err error) {
	state, _ := outcome(t.ctxErrLocked(), err)
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
func outcome(ctxErr, err error) (TaskState, EventKind) {
	switch {
	case err == nil:
		return TaskSucceeded, Finished
	case isPanic(err):
		return TaskPanicked, Panicked
	case err == errGoexit:
		return TaskFailed, Failed
	case ctxErr != nil && errors.Is(err, ctxErr):
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
		e.untakeLocked(t)
	case atRunning:
		e.nrunning--
		if e.pool != nil {
			e.pool.ended()
		}
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
	e.seenLocked(t)
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
	// Without a taskExt (made only under mu, which the caller holds) there
	// is no channel to close and no function to call: one swap does it.
	if t.x == nil && t.why.CompareAndSwap(notDone, why|whySettled) {
		return
	}
	for _, f := range e.cancelCtx(t, why) {
		e.post = append(e.post, postOp{f: f})
	}
}

// cancelCtx marks t's context done for why, unless it is already, closes
// its Done channel, and returns its AfterFunc functions, for the caller to
// call outside every lock, latest first (as deferred calls run: a function
// waiting for an earlier derived context can then not stop a later one's
// before it ran). It takes ctxMu, never mu, so that a task context's Err
// can call it.
func (e *engine) cancelCtx(t *Task, why uint32) []func() {
	if t.why.Load()&whySettled != 0 {
		return nil
	}
	e.ctxMu.Lock()
	defer e.ctxMu.Unlock()
	w := t.why.Load()
	if w&whySettled != 0 {
		return nil
	}
	if w == notDone {
		w = why
		t.why.Store(w)
	}
	x := t.x
	if x == nil {
		t.why.Store(w | whySettled)
		return nil
	}
	if x.done != nil {
		close(x.done)
	}
	t.why.Store(w | whySettled)
	var fs []func()
	for i := len(x.afters) - 1; i >= 0; i-- {
		fs = append(fs, x.afters[i].f)
	}
	x.afters = nil
	return fs
}

// cancel cancels t for why: a pending task ends at once, a running one has
// its context canceled.
func (e *engine) cancel(t *Task, why uint32) {
	e.mu.Lock()
	e.cancelLocked(t, why)
	e.unlock()
}

// cancelLocked is cancel with e.mu held.
func (e *engine) cancelLocked(t *Task, why uint32) {
	switch t.at {
	case atQueued, atLane:
		e.endPendingLocked(t, why)
		e.spawnLocked()
		e.maybeStopLocked()
	case atTaken, atRunning:
		e.cancelCtxLocked(t, why)
	}
}

// endPendingLocked ends t, waiting, canceled for why, with its cause; the
// caller starts the workers the room it made allows.
func (e *engine) endPendingLocked(t *Task, why uint32) {
	t.why.Store(why) // for cause; endLocked keeps it
	e.endLocked(t, TaskCanceled, t.cause())
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
		if ran, err := e.runInline(t); ran {
			return err
		}
		// A shrink put t back in the queue: wait for it there.
	} else {
		e.mu.Unlock()
		if err := e.submit(ctx, t, true); err != nil {
			return err
		}
	}
	select {
	case <-t.ended():
	case <-ctx.Done():
		e.cancel(t, doneParent)
		<-t.ended()
	}
	return t.Err()
}

// runInline runs t, which holds a slot, on the calling goroutine, then
// gives the slot up (to a new worker if tasks are pending). It reports
// false, with the slot given up, when a shrink put t back in the queue
// as it got its token.
func (e *engine) runInline(t *Task) (bool, error) {
	slot := t.slot
	if t.at == atTaken {
		switch e.acquireToken(t) {
		case tokCanceled:
			e.mu.Lock()
			e.endLocked(t, TaskCanceled, t.cause())
			e.leaveLocked(slot)
			e.unlock()
			return true, t.err
		case tokRequeued:
			e.mu.Lock()
			e.leaveLocked(slot)
			e.unlock()
			return false, nil
		}
	}
	err := e.call(t, true)
	e.mu.Lock()
	e.finishLocked(t, err)
	e.giveTokenLocked(t)
	e.leaveLocked(slot)
	e.unlock()
	return true, err
}

// leaveLocked gives up a slot: a worker's, or a Do call's.
func (e *engine) leaveLocked(slot int) {
	e.active--
	e.nums.put(slot, e.keys == nil)
	e.putSlotLocked()
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
	if t != nil && t.e == e && t.loadState() == TaskRunning {
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
	err := e.call(t, false)
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
	e.maybeStopLocked()
	e.unlock()
}

// close stops the engine: it refuses new tasks, cancels pending ones and
// the contexts of running ones, and waits for the stop.
func (e *engine) close() error { return closeEngines(e) }

// closeEngines closes the engines (a sharded KeyedQueue's), every one
// before it waits for any.
func closeEngines(es ...*engine) error {
	if p := es[0].pool; p != nil {
		p.stopping.Store(true)
		p.closing.Store(true)
	}
	for _, e := range es {
		e.beginClose()
	}
	<-stoppedCh(es)
	return nil
}

// stoppedCh is closed once the engines (one, or a sharded KeyedQueue's)
// have stopped: a sharded queue's once every shard has, and its lanes are
// gone.
func stoppedCh(es []*engine) <-chan struct{} {
	if p := es[0].pool; p != nil {
		return p.done
	}
	return es[0].stopped
}

func (e *engine) beginClose() {
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
}

// drain stops the engine once every accepted task has ended, and waits
// for that or for ctx.
func (e *engine) drain(ctx context.Context, what string) error { return drainEngines(ctx, what, e) }

// drainEngines drains the engines (a sharded KeyedQueue's): every one
// starts draining before it waits for any.
func drainEngines(ctx context.Context, what string, es ...*engine) error {
	checkCtx(ctx, what)
	stopped := stoppedCh(es)
	if err := ctx.Err(); err != nil {
		select {
		case <-stopped:
			return nil
		default:
			return err // the queue as it was
		}
	}
	if p := es[0].pool; p != nil {
		p.stopping.Store(true)
	}
	for _, e := range es {
		e.mu.Lock()
		if e.state == engOpen {
			e.state = engDraining
			e.wakeRoomsLocked()
		}
		e.maybeStopLocked()
		e.unlock()
	}
	select {
	case <-stopped:
		return nil
	default:
	}
	select {
	case <-stopped:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// maybeStopLocked stops the engine once it is closing or draining and
// nothing is left: the lanes are reported evicted, then the engine Closed.
func (e *engine) maybeStopLocked() {
	if e.state == engOpen || e.state == engStopped || e.active > 0 || e.nrunning > 0 || e.queued > 0 || e.taken > 0 || e.spinning > 0 {
		return
	}
	e.state = engStopped
	if e.pool != nil {
		// A shard keeps its lanes until the last one stops.
		if e.pool.live.Add(-1) == 0 {
			e.post = append(e.post, postOp{f: e.pool.stop})
		}
	} else if e.keys != nil {
		e.keys.evictAllLocked()
	}
	e.pending = pendingQueue{}
	e.rooms = nil
	e.ev(Closed, nil, nil)
	if len(e.events) == 0 {
		close(e.stopped)
	} else {
		e.stopReady = true // by unlock, once the Closed event is delivered
	}
}

func (e *engine) stats() QueueStats { return statsEngines(e) }

// statsEngines returns the counters of the engines (a sharded
// KeyedQueue's) as one snapshot: it holds every engine's lock at once,
// taken in order.
//
// Each engine first cancels its waiting tasks whose submitter's context
// has ended (sweepLocked), under its own lock alone, so that Pending and
// Canceled count them as canceled.
func statsEngines(es ...*engine) QueueStats {
	for _, e := range es {
		e.mu.Lock()
		e.sweepLocked(true)
		e.unlock()
	}
	for _, e := range es {
		e.mu.Lock()
	}
	var st QueueStats
	now := es[0].now()
	for _, e := range es {
		st.Pending += e.queued + e.taken
		st.Running += e.nrunning
		st.Submitted += e.submitted
		st.Succeeded += e.succeeded
		st.Failed += e.failed
		st.Canceled += e.canceled
		st.Panicked += e.panicked
		if o := e.pending.oldest(); o != nil {
			st.OldestPending = max(st.OldestPending, now-o.enq)
		}
		for _, t := range e.tokenWait {
			st.OldestPending = max(st.OldestPending, now-t.enq)
		}
		if e.keys != nil {
			e.keys.statsLocked(&st, now)
		}
	}
	if p := es[0].pool; p != nil {
		st.Parallelism, st.MaxRunning = int(p.limit.Load()), int(p.maxRunning.Load())
	} else {
		st.Parallelism, st.MaxRunning = es[0].limit, es[0].maxRunning
	}
	for _, e := range es {
		e.mu.Unlock()
	}
	return st
}

// lockStamped takes e.mu with the time its events will carry, read before
// taking it when there is an observer.
func (e *engine) lockStamped() {
	if e.cfg.observer == nil {
		e.mu.Lock()
		return
	}
	now := e.now()
	e.mu.Lock()
	e.stamp, e.stamped = now, true
}

// evAt is the time of an event appended now: the time read before the
// lock was taken, if it was, else the clock's; never before the previous
// event's, so that event times follow the order of the events.
func (e *engine) evAt() time.Duration {
	d := e.stamp
	if !e.stamped {
		d = e.now()
	}
	e.lastEv = max(e.lastEv, d)
	return e.lastEv
}

// newEv appends an event of kind, stamped now, and returns it to be
// filled in. There is an observer.
func (e *engine) newEv(kind EventKind) *evRec {
	e.events = append(e.events, evRec{kind: kind, at: e.evAt()})
	e.appended++
	return &e.events[len(e.events)-1]
}

// ev appends an event for t (nil for queue events) if there is an observer.
func (e *engine) ev(kind EventKind, t *Task, err error) {
	if e.cfg.observer == nil {
		return
	}
	x := e.newEv(kind)
	x.err = err
	if t != nil {
		x.t, x.lane = t, max(t.slot, 0)
		if t.lane != nil {
			x.key, x.lane = t.lane.keyStr, t.lane.num
		}
	} else if kind == Resized {
		x.lane = e.limit
	}
}

// laneEv appends a lane event for l if there is an observer.
func (e *engine) laneEv(kind EventKind, l *lane) {
	if e.cfg.observer != nil {
		x := e.newEv(kind)
		x.key, x.lane = l.keyStr, l.num
	}
}

// unlock releases e.mu and delivers the events appended under it (see
// unlockDelivering), then runs the calls that must not be made under the
// lock: the cancel functions of contexts derived from tasks', and the
// arming and stopping of watches (their context may be a task's of this
// very queue).
func (e *engine) unlock() {
	e.stamped = false
	var buf [4]*Task
	spawns := append(buf[:0], e.spawns...)
	e.spawns = slices.Delete(e.spawns, 0, len(e.spawns)) // zeroes what it drops
	var pbuf [4]postOp
	post := append(pbuf[:0], e.post...)
	e.post = slices.Delete(e.post, 0, len(e.post))
	if len(e.events) == 0 {
		e.mu.Unlock()
	} else {
		e.unlockDelivering()
	}
	for _, op := range post {
		switch {
		case op.f != nil:
			op.f()
		case op.arm:
			e.arm(op.w)
		default:
			e.unarm(op.w)
		}
	}
	for _, t := range spawns {
		go e.work(t)
	}
}

// batchEvents is how many events unlockDelivering copies to its stack.
const batchEvents = 4

// unlockDelivering takes the events appended under e.mu as a batch,
// releases e.mu and returns once the batch is delivered (see flush). When
// nobody delivers and no batch waits, it delivers its batch itself, from
// a copy on its stack (so that the engine's buffer stays with the lock's
// holders); else it queues the batch for the goroutine delivering.
func (e *engine) unlockDelivering() {
	var buf [batchEvents]evRec
	to := e.appended
	stop := e.stopReady
	e.stopReady = false
	var evs []evRec
	if len(e.events) <= batchEvents && e.takeRight(true) {
		evs = append(buf[:0], e.events...)
		clear(e.events)
		e.events = e.events[:0]
	} else {
		e.queueLocked()
	}
	e.mu.Unlock()
	if evs != nil {
		e.deliver(evs)
		e.release()
	} else {
		e.flush(to)
	}
	if stop {
		close(e.stopped)
	}
}

// queueLocked queues the events appended under e.mu as a batch; a batch
// larger than the spare buffers' bound takes the engine's buffer with it.
func (e *engine) queueLocked() {
	e.evMu.Lock()
	var b *evBuf
	if n := len(e.spareBufs); n > 0 {
		b = e.spareBufs[n-1]
		e.spareBufs[n-1] = nil
		e.spareBufs = e.spareBufs[:n-1]
	} else {
		b = new(evBuf)
	}
	if len(e.events) > maxSpareEvents {
		b.evs, e.events = e.events, nil
	} else {
		b.evs = append(b.evs, e.events...)
		clear(e.events)
		e.events = e.events[:0]
	}
	e.pend = append(e.pend, b)
	e.evMu.Unlock()
	e.dstate.Add(dsPend)
}

// flush returns once the events up to seq are delivered. The goroutine
// that holds the right to deliver (dsEmitting) delivers every batch queued,
// in order, its own or not, so that a goroutine that queued a batch and
// then lost its processor holds nobody up; one that finds nobody
// delivering takes the right; one that finds somebody looks a few times,
// since an observer is quick, yields a few times, then parks until the
// deliverer wakes it.
func (e *engine) flush(seq uint64) {
	for i := 0; e.delivered.Load() < seq; i++ {
		switch {
		case e.takeRight(false):
			e.deliverQueued()
			e.release()
		case i < deliveryLooks:
		case i < deliveryLooks+deliverySpins:
			runtime.Gosched()
		default:
			e.park(seq)
		}
	}
}

// deliverQueued delivers the queued batches, in order, until none is
// left, and keeps their buffers for reuse. Its caller holds the right to
// deliver.
func (e *engine) deliverQueued() {
	var done *evBuf // the batch delivered last, kept under the next pop's lock
	for {
		e.evMu.Lock()
		if done != nil && len(e.spareBufs) < maxSpareList {
			e.spareBufs = append(e.spareBufs, done)
		}
		if len(e.pend) == 0 {
			e.pend = e.pend[:0:min(cap(e.pend), maxSpareList)] // reuse the array from its start
			e.evMu.Unlock()
			return
		}
		b := e.pend[0]
		e.pend[0] = nil
		e.pend = e.pend[1:]
		e.evMu.Unlock()
		e.dstate.Add(^uint64(dsPend - 1)) // minus dsPend
		e.deliver(b.evs)
		if e.dstate.Load() >= dsParked {
			e.wake()
		}
		done = nil
		if cap(b.evs) <= maxSpareEvents { // a burst's buffer goes with it
			clear(b.evs)
			b.evs = b.evs[:0]
			done = b
		}
	}
}

// takeRight takes the right to deliver if nobody holds it and, if first
// is set, no batch is queued (the caller's batch is then the next).
func (e *engine) takeRight(first bool) bool {
	st := e.dstate.Load()
	busy := uint64(dsEmitting)
	if first {
		busy |= dsPendMask
	}
	return st&busy == 0 && e.dstate.CompareAndSwap(st, st|dsEmitting)
}

// release gives up the right to deliver once no batch is queued and no
// goroutine is parked: a goroutine that queued a batch while this one
// delivered found the right taken, and counts on this one.
func (e *engine) release() {
	for {
		switch st := e.dstate.Load(); {
		case st&dsPendMask != 0:
			e.deliverQueued()
		case st >= dsParked:
			e.wake()
		case e.dstate.CompareAndSwap(st, st&^dsEmitting):
			return
		}
	}
}

// deliver hands evs to the observer and counts them delivered. Its caller
// holds the right to deliver.
func (e *engine) deliver(evs []evRec) {
	for i := range evs {
		r := &evs[i]
		x := Event{Kind: r.kind, Time: e.cfg.org.time(r.at), Key: r.key, Lane: r.lane, Err: r.err}
		if t := r.t; t != nil {
			x.Task, x.Name, x.Priority, x.Weight = t.id, t.name, t.priority, 1
		} else if r.kind == Resized {
			x.Weight, x.Lane = int64(r.lane), 0
		}
		e.cfg.observer(x)
	}
	e.delivered.Add(uint64(len(evs)))
}

// maxSpareEvents bounds the event buffers kept between batches, so that an
// observed queue does not keep the memory of its largest batch.
const maxSpareEvents = 256

// wake wakes the parked goroutines whose events are delivered. Its caller
// holds the right to deliver.
func (e *engine) wake() {
	e.evMu.Lock()
	seq := e.delivered.Load()
	ws := e.evWaiters[:0]
	for _, w := range e.evWaiters {
		if w.seq <= seq {
			e.dstate.Add(^uint64(dsParked - 1)) // minus dsParked
			close(w.ch)
		} else {
			ws = append(ws, w)
		}
	}
	clear(e.evWaiters[len(ws):])
	e.evWaiters = ws
	if len(ws) == 0 && cap(ws) > maxSpareList {
		e.evWaiters = nil
	}
	e.evMu.Unlock()
}

// park waits until the events up to seq are delivered. It counts itself
// in dstate before it looks at delivered again, and a deliverer adds to
// delivered before it gives up the right to deliver, which it keeps while
// a goroutine is parked, so that one of the two sees the other. A
// goroutine parks only once its batch is queued: the deliverer delivers
// it before it gives up the right.
func (e *engine) park(seq uint64) {
	e.evMu.Lock()
	e.dstate.Add(dsParked)
	if e.delivered.Load() >= seq {
		e.dstate.Add(^uint64(dsParked - 1))
		e.evMu.Unlock()
		return
	}
	w := evWaiter{seq, make(chan struct{})}
	e.evWaiters = append(e.evWaiters, w)
	e.evMu.Unlock()
	<-w.ch
}

// deliveryLooks is how many times flush looks before it yields (the
// deliverer is most often running on another core), and deliverySpins
// how many times it yields before it parks.
const (
	deliveryLooks = 200
	deliverySpins = 4
)

// maxSpareList bounds the lists of the delivery (parked goroutines, queued
// batches, spare buffers) kept once emptied.
const maxSpareList = 16

// watch lists the tasks whose submitter's context has one Done channel,
// and cancels them when it ends. A waiting task is listed only while
// someone waits for it: a caller of its handle's Done (or Wait), or a
// Submit call waiting for room (see enterLocked); a running or taken one
// while someone asked for its context's Done channel or gave it an
// AfterFunc. The watch of a nil channel lists only the latter, for Close.
//
// A watch of a channel that can close is armed with context.AfterFunc
// outside the lock (arm: the context may be a task's of this very queue)
// and stopped outside it once it empties. Which of the two comes first is
// settled by one compare-and-swap (st), never by taking the lock again.
// An engine keeps a few stopped watches, with their callbacks, for reuse
// (spareWatches), so that arming one costs only context.AfterFunc's own
// allocations.
type watch struct {
	done <-chan struct{}
	ctx  context.Context // the context to arm on, until armed
	fire func()          // its AfterFunc callback, made once: e.fire(w)
	stop func() bool     // AfterFunc's stop, once armed
	st   atomic.Uint32   // watchNew, then watchArmed (by arm) or watchDead (when emptied)
	head *Task
	n    int
	dead bool // out of the map: emptied, or fired
}

const (
	watchNew uint32 = iota
	watchArmed
	watchDead
)

// maxSpareWatches is how many stopped watches an engine keeps for reuse.
const maxSpareWatches = 16

// watchLocked lists t in the watch of d, its submitter's context's Done
// channel, read by the caller before it took the lock (the context may be
// a task's of this very queue).
func (e *engine) watchLocked(t *Task, d <-chan struct{}) {
	if t.w != nil || d == nil && t.at != atRunning && t.at != atTaken {
		return // listed already, or pending on a context that never ends
	}
	w := e.watches[d]
	if w == nil {
		if d == nil {
			w = &watch{}
		} else {
			select {
			case w = <-e.spareWatches:
			default:
				w = e.newWatch()
			}
			w.done, w.ctx, w.dead = d, t.parent, false
			w.st.Store(watchNew)
			e.post = append(e.post, postOp{w: w, arm: true})
		}
		if e.watches == nil {
			e.watches = make(map[<-chan struct{}]*watch)
		}
		e.watches[d] = w
	}
	e.seenLocked(t) // watched, it leaves the unseen list and its links
	t.w = w
	link(&w.head, t)
	w.n++
}

// newWatch makes a watch with its callback.
func (e *engine) newWatch() *watch {
	w := new(watch)
	w.fire = func() { e.fire(w) }
	return w
}

// listenLocked lists t for its context's Done or AfterFunc, in the watch
// of d, its submitter's context's Done channel.
func (e *engine) listenLocked(t *Task, d <-chan struct{}) {
	e.watchLocked(t, d)
	if e.closed.Load() && t.at != atEnded {
		e.cancelCtxLocked(t, doneCanceled)
	}
}

func (e *engine) unwatchLocked(t *Task) {
	w := t.w
	unlink(&w.head, t)
	t.w = nil
	w.n--
	if w.n == 0 {
		delete(e.watches, w.done)
		w.dead = true
		// Armed: stop it once the lock is released; not yet: arm will.
		if w.done != nil && w.st.Swap(watchDead) == watchArmed {
			e.post = append(e.post, postOp{w: w})
		}
	}
}

// arm watches w's context, outside the lock.
func (e *engine) arm(w *watch) {
	w.stop = context.AfterFunc(w.ctx, w.fire)
	w.ctx = nil
	if !w.st.CompareAndSwap(watchNew, watchArmed) {
		e.unarm(w) // emptied meanwhile
	}
}

// unarm stops w's AfterFunc, outside the lock, and keeps w for reuse
// unless its callback started (it may be running).
func (e *engine) unarm(w *watch) {
	if w.stop() {
		w.stop, w.done = nil, nil
		select {
		case e.spareWatches <- w:
		default:
		}
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
			e.endPendingLocked(t, doneParent)
		case atTaken, atRunning:
			e.cancelCtxLocked(t, doneParent)
		}
		t = next
	}
	e.spawnLocked()
	e.maybeStopLocked()
	e.unlock()
}

// trimLocked lets go of the buffers that a busy time grew, in an engine
// without a task: a KeyedQueue's shard whose last lane was evicted. Only
// lock holders take spare watches, so taking them here never blocks.
func (e *engine) trimLocked() {
	e.pending.free()
	e.rooms, e.tokenWait, e.spawns = emptied(e.rooms), emptied(e.tokenWait), emptied(e.spawns)
	e.post = emptied(e.post)
	if len(e.watches) == 0 {
		e.watches = nil // a map does not shrink; watchLocked makes another
	}
	for range len(e.spareWatches) {
		<-e.spareWatches
	}
}

// emptied returns s, or nil if s is empty, to let go of its array.
func emptied[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

// numSet hands out the smallest free number: worker slots, or key lanes.
// It is a bitmap, trimmed as the highest numbers are given back, so it
// holds one bit per number up to the highest in use: a few KiB for a
// hundred thousand lanes, whatever is left of them.
type numSet struct {
	used []uint64 // bit n%64 of word n/64 is set while n is in use
	low  int      // every word below low is full
	n    int      // numbers in use
}

func (s *numSet) take(use bool) int {
	if !use {
		return 0
	}
	s.n++
	for i := s.low; i < len(s.used); i++ {
		if w := s.used[i]; w != ^uint64(0) {
			b := bits.TrailingZeros64(^w)
			s.used[i] = w | 1<<b
			s.low = i
			return i*64 + b
		}
	}
	s.used = append(s.used, 1)
	s.low = len(s.used) - 1
	return s.low * 64
}

func (s *numSet) put(n int, use bool) {
	if !use || n < 0 {
		return
	}
	i := n / 64
	if i >= len(s.used) || s.used[i]&(1<<(n%64)) == 0 {
		panic(fmt.Sprintf("core: internal error: number %d given back twice", n))
	}
	s.used[i] &^= 1 << (n % 64)
	s.n--
	s.low = min(s.low, i)
	if s.n == 0 {
		*s = numSet{} // every number is free: start again, holding nothing
		return
	}
	end := len(s.used)
	for end > 0 && s.used[end-1] == 0 {
		end--
	}
	s.used = s.used[:end]
	if cap(s.used) > 64 && cap(s.used) > 4*end {
		s.used = slices.Clone(s.used) // let the memory of a peak go
	}
}

func checkCtx(ctx context.Context, what string) {
	if ctx == nil {
		panic(fmt.Sprintf("core: %s with a nil context", what))
	}
}
