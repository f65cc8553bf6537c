package core

import (
	"cmp"
	"context"
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"time"
)

// KeyedQueue runs functions one at a time per key, in submission order, and
// functions of different keys in parallel: think of readings from many
// devices, where one device's readings must be handled in order and
// different devices at once.
//
// Each key gets a lane on its first task. A lane with work runs its tasks on
// a worker goroutine; a lane without work holds no goroutine, and is removed
// once it has had no work for the idle timeout ([WithIdleTimeout], default
// [DefaultIdleTimeout]). After removal nothing of it remains: no goroutine,
// no timer, no queue. A task submitted while its lane is being removed is
// never lost, and never runs before or alongside the lane's earlier tasks.
//
// [WithParallelism](n) caps the tasks running at once across all keys (0,
// the default, means no cap). Keys waiting for a slot take turns, one task
// each, so that a key with a long backlog cannot starve the others.
// [WithCapacity](n) bounds each key's pending tasks: Submit blocks until
// there is room.
//
// A task's context is canceled when its submitter's context ends, when the
// task is canceled, or when the queue is closed, and after its function
// returns. A task canceled before it starts never runs. A panicking task
// ends with a [*PanicError]; the queue keeps running.
//
// A task must not wait for a later task of its own key, which could only
// start after it. With [WithParallelism], tasks that wait for other tasks
// of the queue can hold every slot and wait forever; give such work its own
// queue.
//
// KeyedQueue reads the options [WithParallelism], [WithIdleTimeout],
// [WithCapacity], [WithObserver] and [WithClock]. Its methods are safe for
// concurrent use. Task events carry the task's Key (fmt.Sprint of the key)
// and Lane, a small number that identifies the key's lane while it lives
// (the smallest free one when it is created). Lane events (LaneCreated,
// LaneEvicted) have Task 0: a key's LaneCreated comes before its tasks'
// events, its LaneEvicted after them and before a new LaneCreated for the
// key. When the queue stops, each remaining lane is reported evicted, then
// the queue Closed. The Clock's methods may be called with the queue's
// lock held.
type KeyedQueue[K comparable] struct {
	cfg   config
	sweep func() // k.evictIdle, made once for the idle timer

	mu    sync.Mutex
	state queueState
	lanes map[K]*lane[K] // every lane, and evicted ones not yet reported gone
	peak  int            // the map's largest size since it was last rebuilt
	live  int            // lanes not evicted

	readyHead, readyTail *lane[K] // lanes with pending tasks and no worker, oldest first

	// The idle list holds the lanes that became idle, in the order of
	// their linkAt; a lane that gets work again stays in it until the
	// timer's function passes it, so that going idle and busy again costs
	// little. Times are durations since epoch, read from the clock.
	idleHead, idleTail *lane[K]
	epoch              time.Time
	wall               bool          // the clock is the wall clock
	lastNow            time.Duration // the latest time read; time never goes back
	timer              Timer         // fires for the head of the idle list; nil until first needed
	timerArmed         bool          // the timer will call evictIdle

	workers  int // worker goroutines
	inflight int // accepted tasks whose end has not been fully reported
	nextID   uint64
	nums     laneNums // lane numbers, handed out only with an observer

	pending, running, maxRunning                     int
	submitted, succeeded, failed, canceled, panicked uint64

	stopped chan struct{} // closed when the queue has stopped
}

type queueState uint8

const (
	queueOpen     queueState = iota
	queueDraining            // no new tasks; accepted ones finish
	queueClosing             // no new tasks; accepted ones are canceled
	queueStopped             // every task has ended and every lane is gone
)

// lane is one key's queue. Its fields are guarded by KeyedQueue.mu, except
// q, key and x (immutable).
type lane[K comparable] struct {
	q   *KeyedQueue[K]
	key K
	x   *laneExt[K] // only with an observer or a capacity

	// Pending tasks in submission order, linked through next. Tasks
	// canceled while pending stay in the list, marked removed, until they
	// reach its head or the lane empties: npending counts the others.
	head, tail *keyedTask[K]
	npending   int
	cur        *keyedTask[K] // the task taken by a worker, if any
	inflight   int           // accepted tasks whose end is not yet fully reported

	nextReady *lane[K] // in the ready list

	idlePrev, idleNext *lane[K]      // in the idle list
	linkAt             time.Duration // when it was put in the idle list
	idleAt             time.Duration // when it last became idle; not before linkAt

	ready   bool // in the ready list
	idle    bool // has no work
	linked  bool // in the idle list, perhaps busy again since
	evicted bool
}

// laneExt holds the parts of a lane needed only with an observer (num,
// keyStr, created, gone, numMoved) or a capacity (the waiting Submit
// calls). Its fields are guarded by KeyedQueue.mu, except num (immutable)
// and keyStr (written before created is closed).
type laneExt[K comparable] struct {
	num                int           // the Lane of events
	keyStr             string        // fmt.Sprint(key)
	created            chan struct{} // closed once LaneCreated is reported
	gone               chan struct{} // closed once LaneEvicted is reported
	numMoved           bool          // num went to the key's next lane
	waitHead, waitTail *keyedTask[K] // Submit calls waiting for capacity, in order
}

// keyedTask is one submitted function, with its Task handle and the
// context it runs with, in one allocation.
type keyedTask[K comparable] struct {
	Task
	ctx     keyedCtx
	lane    *lane[K]
	fn      func(context.Context) error // nil once it has ended
	next    *keyedTask[K]               // in the lane's pending or waiting list
	where   taskWhere                   // guarded by the queue's mu
	capGone bool
	// last says whether its lane had no other pending task when it was
	// taken; set then, under the queue's mu, and read by its worker.
	last bool
}

type taskWhere uint8

const (
	taskNew        taskWhere = iota // not yet accepted
	taskCapWaiting                  // Submit waits for room in its lane
	taskQueued                      // pending in its lane
	taskTaken                       // taken by a worker
	taskRemoved                     // canceled while pending, or refused
)

// NewKeyedQueue returns an empty queue. It reads the options
// [WithParallelism], [WithIdleTimeout], [WithCapacity], [WithObserver] and
// [WithClock]; the others are ignored. It starts no goroutine.
func NewKeyedQueue[K comparable](opts ...Option) *KeyedQueue[K] {
	k := &KeyedQueue[K]{
		cfg:     newConfig(opts),
		lanes:   make(map[K]*lane[K]),
		stopped: make(chan struct{}),
	}
	k.sweep = k.evictIdle
	_, k.wall = k.cfg.clock.(wallClock)
	k.epoch = k.cfg.clock.Now()
	return k
}

// Do runs fn after key's earlier tasks and blocks until it has returned,
// then returns its error: nil, fn's error, or a [*PanicError]. fn receives
// a context that is canceled when ctx ends or the queue is closed.
//
// If ctx ends before fn starts, fn never runs and Do returns ctx.Err(); if
// it ends while fn runs, Do still waits for fn to return. When the queue
// has [WithCapacity] and key's lane is full, Do first waits for room. Do
// returns [ErrClosed], without running fn, if the queue is closed or
// draining, and ctx.Err() if ctx has already ended. It panics if fn is nil.
func (k *KeyedQueue[K]) Do(ctx context.Context, key K, fn func(context.Context) error, opts ...TaskOption) error {
	it, err := k.submit(ctx, key, fn, opts, false)
	if err != nil {
		return err
	}
	done := it.Done()
	if cd := ctx.Done(); cd != nil {
		select {
		case <-done:
		case <-cd:
			k.cancelTask(it, ctx.Err())
			<-done
		}
	} else {
		<-done
	}
	return it.Err()
}

// Submit adds fn to key's lane and returns its [Task] without waiting for
// it to run. Tasks submitted to one key run one at a time, in the order of
// their Submit calls (of calls that do not overlap), even across the
// lane's eviction and re-creation.
//
// Submit blocks only when the queue has [WithCapacity] and key's lane is
// full; it then waits, in order with other waiting Submit calls of the same
// key, until there is room or ctx ends. When ctx ends first, Submit returns
// ctx.Err() and the queue is unchanged. If ctx ends after Submit returned
// and before fn started, the task ends canceled with ctx.Err() at once, and
// fn never runs. Submit returns [ErrClosed] if the queue is closed or
// draining, including while waiting for room. It panics if fn is nil.
func (k *KeyedQueue[K]) Submit(ctx context.Context, key K, fn func(context.Context) error, opts ...TaskOption) (*Task, error) {
	it, err := k.submit(ctx, key, fn, opts, true)
	if err != nil {
		return nil, err
	}
	return &it.Task, nil
}

// TrySubmit adds fn to key's lane like [KeyedQueue.Submit], but never
// blocks: when the queue has [WithCapacity] and key's lane is full (or other
// Submit calls are waiting for room in it), it returns [ErrFull] and the
// queue is unchanged. The task's context is canceled only by the queue or
// [Task.Cancel]. It returns [ErrClosed] if the queue is closed or draining,
// and panics if fn is nil.
func (k *KeyedQueue[K]) TrySubmit(key K, fn func(context.Context) error, opts ...TaskOption) (*Task, error) {
	it, err := k.submitTry(context.Background(), key, fn, opts, false, true)
	if err != nil {
		return nil, err
	}
	return &it.Task, nil
}

// submit accepts fn into key's lane. watch makes the end of ctx cancel the
// task at once, even while it is pending; Do watches ctx itself.
func (k *KeyedQueue[K]) submit(ctx context.Context, key K, fn func(context.Context) error, opts []TaskOption, watch bool) (*keyedTask[K], error) {
	return k.submitTry(ctx, key, fn, opts, watch, false)
}

// submitTry is submit; with try, a full lane refuses the task with ErrFull
// instead of waiting for room.
func (k *KeyedQueue[K]) submitTry(ctx context.Context, key K, fn func(context.Context) error, opts []TaskOption, watch, try bool) (*keyedTask[K], error) {
	if fn == nil {
		panic("core: KeyedQueue task function is nil")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	it := &keyedTask[K]{fn: fn}
	it.owner = it
	it.ctx.parent = ctx
	if len(opts) > 0 {
		tc := newTaskConfig(opts)
		it.name, it.priority = tc.name, tc.priority
	}
	obs := k.cfg.observer != nil
	if obs {
		it.ctx.extend().enq = make(chan struct{})
	}
	if watch && ctx.Done() != nil && !it.ctx.watch(func() { k.cancelTask(it, ctx.Err()) }) {
		return nil, ctx.Err() // ctx has just ended
	}

	k.mu.Lock()
	if k.state != queueOpen || it.where == taskRemoved {
		err := ErrClosed
		if it.where == taskRemoved {
			err = ctx.Err() // ctx ended during the call
		}
		k.mu.Unlock()
		it.ctx.cancel(context.Canceled)
		return nil, err
	}
	l := k.lanes[key]
	var prevGone chan struct{}
	created := false
	if l == nil || l.evicted {
		old := l
		l = k.newLane(key, old)
		if old != nil {
			prevGone = old.x.gone
		}
		created = true
	}
	it.lane = l
	if c := k.cfg.capacity; c > 0 && (l.npending >= c || l.x.waitHead != nil) {
		if try {
			// A lane created by this call is empty, so it is never full:
			// nothing to undo but the task's context.
			k.mu.Unlock()
			it.ctx.cancel(context.Canceled)
			return nil, ErrFull
		}
		return k.waitRoom(ctx, it)
	}
	start := k.accept(l, it)
	k.mu.Unlock()
	if start {
		go k.work(it)
	}
	if obs {
		k.announce(it, created, prevGone, !start)
	}
	return it, nil
}

// waitRoom waits, with k.mu held on entry and released on return, until
// it's lane has room for it and accepts it, or ctx ends, or the queue stops
// accepting tasks.
func (k *KeyedQueue[K]) waitRoom(ctx context.Context, it *keyedTask[K]) (*keyedTask[K], error) {
	l := it.lane
	it.where = taskCapWaiting
	it.ctx.extend().wake = make(chan struct{})
	if l.x.waitTail == nil {
		l.x.waitHead = it
	} else {
		l.x.waitTail.next = it
	}
	l.x.waitTail = it
	k.mu.Unlock()

	select {
	case <-it.ctx.ext.wake:
	case <-ctx.Done():
	}

	k.mu.Lock()
	switch it.where {
	case taskCapWaiting: // ctx ended first
		l.removeWaiter(it)
		it.where = taskRemoved
		k.mu.Unlock()
		it.ctx.cancel(context.Canceled)
		return nil, ctx.Err()
	case taskRemoved: // the queue stopped accepting
		if it.id != 0 {
			k.mu.Unlock()
			if k.cfg.observer != nil {
				k.announce(it, false, nil, true)
			}
			return it, nil
		}
		k.mu.Unlock()
		it.ctx.cancel(context.Canceled)
		if it.capGone {
			return nil, ctx.Err()
		}
		return nil, ErrClosed
	}
	// Accepted by admitWaiters, perhaps as ctx ended; the task is then
	// canceled like any pending task whose context ended.
	k.mu.Unlock()
	if k.cfg.observer != nil {
		k.announce(it, false, nil, true)
	}
	return it, nil
}

// newLane creates key's lane, replacing old, an evicted lane of the key
// not yet reported gone, if any. k.mu must be held.
func (k *KeyedQueue[K]) newLane(key K, old *lane[K]) *lane[K] {
	l := &lane[K]{q: k, key: key}
	if k.cfg.observer != nil || k.cfg.capacity > 0 {
		l.x = new(laneExt[K])
	}
	if k.cfg.observer != nil {
		if old != nil {
			// The key keeps its lane number.
			l.x.num, old.x.numMoved = old.x.num, true
		} else {
			l.x.num = k.nums.get()
		}
		l.x.created = make(chan struct{})
	}
	k.lanes[key] = l
	k.live++
	k.peak = max(k.peak, len(k.lanes))
	return l
}

// accept adds it to l's pending tasks and reports whether it starts at
// once on a new worker, which the caller must then start. k.mu must be
// held.
func (k *KeyedQueue[K]) accept(l *lane[K], it *keyedTask[K]) (start bool) {
	k.enqueue(l, it)
	if l.cur != nil || l.ready {
		return false
	}
	if p := k.cfg.parallelism; p == 0 || k.workers < p {
		k.workers++
		k.take(l)
		return true
	}
	k.pushReady(l)
	return false
}

// enqueue appends it to l's pending tasks. k.mu must be held.
func (k *KeyedQueue[K]) enqueue(l *lane[K], it *keyedTask[K]) {
	k.nextID++
	it.id = k.nextID
	it.where = taskQueued
	if l.tail == nil {
		l.head = it
	} else {
		l.tail.next = it
	}
	l.tail = it
	l.npending++
	l.inflight++
	k.pending++
	k.inflight++
	k.submitted++
	l.idle = false
}

// take moves l's first pending task to its worker and returns it. l must
// have a pending task. k.mu must be held.
func (k *KeyedQueue[K]) take(l *lane[K]) *keyedTask[K] {
	it := l.head
	for {
		// Pointer writes cost more while the collector runs: skip
		// those that change nothing.
		if l.head = it.next; l.head == nil {
			l.tail = nil
		} else {
			it.next = nil
		}
		if it.where == taskQueued {
			break
		}
		it = l.head // skip a task canceled while pending
	}
	l.npending--
	it.where = taskTaken
	it.last = l.npending == 0
	l.cur = it
	k.pending--
	k.running++
	k.maxRunning = max(k.maxRunning, k.running)
	if l.x != nil && l.x.waitHead != nil {
		k.admitWaiters(l)
	}
	return it
}

// admitWaiters accepts the Submit calls waiting for room in l, in order,
// while there is room. k.mu must be held.
func (k *KeyedQueue[K]) admitWaiters(l *lane[K]) {
	for l.x.waitHead != nil && l.npending < k.cfg.capacity {
		w := l.x.waitHead
		l.x.waitHead = w.next
		if l.x.waitHead == nil {
			l.x.waitTail = nil
		}
		w.next = nil
		k.enqueue(l, w)
		close(w.ctx.ext.wake)
	}
}

// removeWaiter removes it from l's waiting Submit calls. k.mu must be held.
func (l *lane[K]) removeWaiter(it *keyedTask[K]) {
	var prev *keyedTask[K]
	for w := l.x.waitHead; w != it; w = w.next {
		prev = w
	}
	if prev == nil {
		l.x.waitHead = it.next
	} else {
		prev.next = it.next
	}
	if l.x.waitTail == it {
		l.x.waitTail = prev
	}
	it.next = nil
}

// clearRemoved unlinks the canceled tasks left in l's pending list once no
// pending task remains. k.mu must be held.
func (l *lane[K]) clearRemoved() {
	for it := l.head; it != nil; {
		next := it.next
		it.next = nil
		it = next
	}
	l.head, l.tail = nil, nil
}

// announce reports a newly accepted task (and its lane, if the task created
// it) to the observer, then lets the task's later events be reported.
func (k *KeyedQueue[K]) announce(it *keyedTask[K], created bool, prevGone chan struct{}, waiting bool) {
	l := it.lane
	if created {
		if prevGone != nil {
			<-prevGone // the key's previous lane is reported gone first
		}
		l.x.keyStr = fmt.Sprint(l.key)
		k.cfg.emit(Event{Kind: LaneCreated, Key: l.x.keyStr, Lane: l.x.num})
		close(l.x.created)
	} else {
		<-l.x.created
	}
	k.event(Enqueued, it, nil)
	if waiting {
		k.event(Waiting, it, nil)
	}
	close(it.ctx.ext.enq)
}

func (k *KeyedQueue[K]) event(kind EventKind, it *keyedTask[K], err error) {
	k.cfg.emit(Event{
		Kind: kind, Task: it.id, Name: it.name, Priority: it.priority, Weight: 1,
		Key: it.lane.x.keyStr, Lane: it.lane.x.num, Err: err,
	})
}

// cancelPending is the taskOwner hook of Task.Cancel.
func (it *keyedTask[K]) cancelPending(_ *Task, err error) { it.lane.q.cancelTask(it, err) }

// cancelRunning is the runCanceler hook of Task.Cancel.
func (it *keyedTask[K]) cancelRunning(err error) { it.ctx.cancel(err) }

// halt cancels it, which its worker has taken, with err: it keeps the
// task from starting, or cancels the context its function runs with.
func (it *keyedTask[K]) halt(err error) {
	it.ctx.cancel(err) // first, so that a task kept from starting ends with err
	it.Task.mu.Lock()
	if it.state == TaskPending {
		it.cancelRequested = true
	}
	it.Task.mu.Unlock()
}

// cancelTask cancels it with err: a pending task leaves its lane and ends
// canceled; a task taken by a worker has its context canceled, which keeps
// it from starting, or tells its function to stop.
func (k *KeyedQueue[K]) cancelTask(it *keyedTask[K], err error) {
	k.mu.Lock()
	switch it.where {
	case taskNew: // ctx ended during Submit, which refuses the task
		it.where = taskRemoved
		k.mu.Unlock()
		return
	case taskTaken:
		k.mu.Unlock()
		it.halt(err)
		return
	case taskQueued:
	case taskCapWaiting:
		it.lane.removeWaiter(it)
		it.where = taskRemoved
		it.capGone = true
		k.mu.Unlock()
		return
	default:
		k.mu.Unlock()
		return
	}
	l := it.lane
	it.where = taskRemoved // stays in the list until it reaches its head
	l.npending--
	k.pending--
	k.canceled++
	if l.x != nil && l.x.waitHead != nil {
		k.admitWaiters(l)
	}
	if l.npending == 0 && l.ready {
		var prev *lane[K]
		for c := k.readyHead; c != nil; prev, c = c, c.nextReady {
			if c == l {
				if prev == nil {
					k.readyHead = c.nextReady
				} else {
					prev.nextReady = c.nextReady
				}
				if k.readyTail == c {
					k.readyTail = prev
				}
				c.nextReady = nil
				c.ready = false
				break
			}
		}
	}
	k.mu.Unlock()

	k.endCanceled(it, err)
	k.mu.Lock()
	l.inflight--
	k.inflight--
	k.settle(l, -1)
	fin := k.finishing()
	k.mu.Unlock()
	if fin {
		k.finish()
	}
}

// endCanceled ends a task that never ran.
func (k *KeyedQueue[K]) endCanceled(it *keyedTask[K], err error) {
	it.ctx.cancel(err)
	if k.cfg.observer != nil {
		<-it.ctx.ext.enq
		k.event(Canceled, it, err)
	}
	it.fn = nil
	it.end(TaskCanceled, err)
}

// settle marks a lane that has no work idle, as of at if it is not
// negative, and puts it into the idle list. k.mu must be held.
func (k *KeyedQueue[K]) settle(l *lane[K], at time.Duration) {
	if l.inflight > 0 || l.ready || l.idle || l.evicted || k.state != queueOpen {
		return
	}
	if l.head != nil {
		l.clearRemoved()
	}
	l.idle = true
	l.idleAt = k.now(at)
	if l.linked {
		return // the timer's function will see the new idleAt
	}
	l.linkAt = l.idleAt
	l.linked = true
	l.idlePrev = k.idleTail
	if k.idleTail == nil {
		k.idleHead = l
	} else {
		k.idleTail.idleNext = l
	}
	k.idleTail = l
	if !k.timerArmed {
		k.arm(k.cfg.idleTimeout)
	}
}

// elapsed reads the clock, as a duration since epoch. It needs no lock.
func (k *KeyedQueue[K]) elapsed() time.Duration {
	if k.wall {
		return time.Since(k.epoch) // reads only the monotonic clock
	}
	return k.cfg.clock.Now().Sub(k.epoch)
}

// now returns at, or the clock's time if at is negative, but never less
// than the time it last returned. k.mu must be held.
func (k *KeyedQueue[K]) now(at time.Duration) time.Duration {
	d := at
	if d < 0 {
		d = k.elapsed()
	}
	if d < k.lastNow {
		d = k.lastNow
	}
	k.lastNow = d
	return d
}

// unlinkHead removes the head of the idle list. k.mu must be held.
func (k *KeyedQueue[K]) unlinkHead() *lane[K] {
	l := k.idleHead
	k.idleHead = l.idleNext
	if k.idleHead == nil {
		k.idleTail = nil
	} else {
		k.idleHead.idlePrev = nil
	}
	l.idleNext = nil
	l.linked = false
	return l
}

// relink puts back in the idle list, in order, lanes that became idle
// again after they were linked, now linked as of that time. k.mu must be
// held.
func (k *KeyedQueue[K]) relink(ls []*lane[K]) {
	slices.SortFunc(ls, func(a, b *lane[K]) int { return cmp.Compare(a.idleAt, b.idleAt) })
	// Insert from the latest, walking back from the tail: the lanes they
	// go after became idle recently, so the walk is short.
	cur := k.idleTail
	for i := len(ls) - 1; i >= 0; i-- {
		l := ls[i]
		for cur != nil && cur.linkAt > l.idleAt {
			cur = cur.idlePrev
		}
		l.linkAt = l.idleAt
		l.linked = true
		l.idlePrev = cur
		if cur == nil {
			l.idleNext = k.idleHead
			k.idleHead = l
		} else {
			l.idleNext = cur.idleNext
			cur.idleNext = l
		}
		if l.idleNext == nil {
			k.idleTail = l
		} else {
			l.idleNext.idlePrev = l
		}
	}
}

// arm makes the idle timer call evictIdle after d. k.mu must be held; the
// Clock contract forbids AfterFunc to call back synchronously.
func (k *KeyedQueue[K]) arm(d time.Duration) {
	k.timerArmed = true
	if k.timer == nil {
		k.timer = k.cfg.clock.AfterFunc(d, k.sweep)
	} else {
		k.timer.Reset(d)
	}
}

func (k *KeyedQueue[K]) pushReady(l *lane[K]) {
	l.ready = true
	if k.readyTail == nil {
		k.readyHead = l
	} else {
		k.readyTail.nextReady = l
	}
	k.readyTail = l
}

// next takes the first pending task of the first ready lane, skipping
// lanes whose pending tasks were all canceled. k.mu must be held.
func (k *KeyedQueue[K]) next() *keyedTask[K] {
	for l := k.readyHead; l != nil; l = k.readyHead {
		if k.readyHead = l.nextReady; k.readyHead == nil {
			k.readyTail = nil
		} else {
			l.nextReady = nil
		}
		l.ready = false
		if l.npending > 0 {
			return k.take(l)
		}
		k.settle(l, -1)
	}
	return nil
}

// work is a worker goroutine: it runs it, then the first task of each
// ready lane in turn, and exits when no lane is ready.
func (k *KeyedQueue[K]) work(it *keyedTask[K]) {
	var running *keyedTask[K] // whose function is running
	defer func() {
		if running != nil {
			// The function called runtime.Goexit: end its task and
			// leave the rest of the work to a new worker.
			if next := k.complete(running, TaskFailed, Failed, errGoexit); next != nil {
				go k.work(next)
			} else {
				k.retire(false)
			}
		}
	}()
	for it != nil {
		state, kind, err := k.run(it, &running)
		if it = k.complete(it, state, kind, err); it == nil {
			it = k.retire(true)
		}
	}
}

// run runs the function of it, a taken task, unless it was canceled, and
// returns the outcome. running is set while the function runs.
func (k *KeyedQueue[K]) run(it *keyedTask[K], running **keyedTask[K]) (TaskState, EventKind, error) {
	if k.cfg.observer != nil {
		<-it.ctx.ext.enq
	}
	if p := it.ctx.parent; p.Done() != nil {
		if err := p.Err(); err != nil {
			// The submitter's context ended, and its watch may not have
			// run yet: the task was canceled before it started.
			it.halt(err)
		}
	}
	if !it.begin(nil) {
		err := it.ctx.Err()
		if err == nil {
			err = context.Canceled
		}
		return TaskCanceled, Canceled, err
	}
	if k.cfg.observer != nil {
		k.event(Started, it, nil)
	}
	*running = it
	err := call(&it.ctx, it.fn)
	*running = nil
	state, kind := outcome(&it.ctx, err)
	return state, kind, err
}

// complete ends it, which its worker took, and returns the worker's next
// task, if any.
func (k *KeyedQueue[K]) complete(it *keyedTask[K], state TaskState, kind EventKind, err error) *keyedTask[K] {
	it.ctx.cancel(context.Canceled)
	if k.cfg.observer != nil {
		k.event(kind, it, err)
	}
	l := it.lane
	at := time.Duration(-1)
	if it.last {
		// Its lane is likely to become idle: read the clock before
		// taking the lock, which it then need not hold as long. The
		// lane has had no work since the function returned.
		at = k.elapsed()
	}
	k.mu.Lock()
	k.running--
	switch state {
	case TaskSucceeded:
		k.succeeded++
	case TaskFailed:
		k.failed++
	case TaskPanicked:
		k.panicked++
	default:
		k.canceled++
	}
	l.cur = nil
	l.inflight--
	k.inflight--
	if l.npending > 0 {
		if k.state <= queueDraining {
			k.pushReady(l) // behind the other ready lanes: keys take turns
		}
	} else {
		k.settle(l, at)
	}
	next := k.next()
	k.mu.Unlock()

	it.fn = nil
	it.end(state, err)
	return next
}

// retire is called by a worker that found no ready lane: it returns the
// next task if one became ready meanwhile, or ends the worker. With
// linger, the worker first lets other goroutines run, since a submitter
// may be about to give it work.
func (k *KeyedQueue[K]) retire(linger bool) *keyedTask[K] {
	if linger {
		runtime.Gosched()
	}
	k.mu.Lock()
	it := k.next()
	if it == nil {
		k.workers--
	}
	fin := k.finishing()
	k.mu.Unlock()
	if fin {
		k.finish()
	}
	return it
}

// evictIdle is the idle timer's function: it removes the lanes idle for
// the idle timeout and sets the timer for the next one.
func (k *KeyedQueue[K]) evictIdle() {
	obs := k.cfg.observer != nil
	timeout := k.cfg.idleTimeout
	var gone, again []*lane[K]
	k.mu.Lock()
	if k.state != queueOpen {
		k.timerArmed = false
		k.mu.Unlock()
		return
	}
	now := k.now(-1)
	for k.idleHead != nil && k.idleHead.linkAt+timeout <= now {
		l := k.unlinkHead()
		if !l.idle {
			continue // busy again; linked again when it next becomes idle
		}
		if l.idleAt+timeout > now {
			again = append(again, l) // became idle again since it was linked
			continue
		}
		l.idle = false
		l.evicted = true
		k.live--
		if obs {
			// Keep the map entry until LaneEvicted is reported, so that a
			// new lane for the key is reported created after it.
			l.x.gone = make(chan struct{})
			gone = append(gone, l)
		} else {
			k.forget(l)
		}
	}
	if len(again) > 0 {
		k.relink(again)
	}
	if l := k.idleHead; l != nil {
		k.arm(l.linkAt + timeout - now)
	} else {
		k.timerArmed = false
	}
	k.mu.Unlock()

	if len(gone) == 0 {
		return
	}
	for _, l := range gone {
		k.cfg.emit(Event{Kind: LaneEvicted, Key: l.x.keyStr, Lane: l.x.num})
		close(l.x.gone)
	}
	k.mu.Lock()
	if k.state != queueStopped {
		for _, l := range gone {
			if !l.x.numMoved {
				k.nums.put(l.x.num)
			}
			if k.lanes[l.key] == l {
				k.forget(l)
			}
		}
	}
	k.mu.Unlock()
}

// forget deletes l's map entry, rebuilding the map when it has shrunk
// well below its peak, since a Go map never gives back its memory. k.mu
// must be held.
func (k *KeyedQueue[K]) forget(l *lane[K]) {
	delete(k.lanes, l.key)
	n := len(k.lanes)
	switch {
	case n == 0 && k.peak > 8:
		k.lanes = make(map[K]*lane[K])
		k.peak = 0
	case k.peak >= 1024 && n <= k.peak/8:
		m := make(map[K]*lane[K], n)
		for key, v := range k.lanes {
			m[key] = v
		}
		k.lanes, k.peak = m, n
	}
}

// Close stops the queue: Submit and Do return [ErrClosed] from then on,
// including calls waiting for capacity; pending tasks end canceled with
// [context.Canceled] without running; running tasks have their context
// canceled. Close blocks until every task has ended and every lane is
// removed, and returns nil. It may be called more than once,
// concurrently, and during or after Drain; every call waits. It must not
// be called from one of the queue's tasks, which it would wait for.
func (k *KeyedQueue[K]) Close() error {
	k.mu.Lock()
	if k.state >= queueClosing {
		k.mu.Unlock()
		<-k.stopped
		return nil
	}
	k.state = queueClosing
	var dropped, taken []*keyedTask[K]
	for _, l := range k.lanes {
		for it := l.head; it != nil; it = it.next {
			if it.where == taskQueued {
				it.where = taskRemoved
				dropped = append(dropped, it)
			}
		}
		k.pending -= l.npending
		k.canceled += uint64(l.npending)
		l.npending = 0
		l.clearRemoved()
		k.refuseWaiters(l)
		if l.cur != nil {
			taken = append(taken, l.cur)
		}
		l.ready, l.nextReady = false, nil
	}
	k.readyHead, k.readyTail = nil, nil
	fin := k.finishing()
	k.mu.Unlock()

	for _, it := range taken {
		it.halt(context.Canceled)
	}
	// Report in submission order, lane by lane.
	for _, it := range dropped {
		k.endCanceled(it, context.Canceled)
	}
	if len(dropped) > 0 {
		k.mu.Lock()
		for _, it := range dropped {
			it.lane.inflight--
		}
		k.inflight -= len(dropped)
		fin = k.finishing()
		k.mu.Unlock()
	}
	if fin {
		k.finish()
	}
	<-k.stopped
	return nil
}

// Drain stops accepting tasks (Submit and Do return [ErrClosed], including
// calls waiting for capacity), lets every accepted task run, in order per
// key, then removes every lane and stops the queue. It blocks until the
// queue has stopped and returns nil, or until ctx ends and returns
// ctx.Err(); the queue then goes on draining, and Close may abort it. If
// ctx has already ended, Drain returns ctx.Err() and changes nothing. It
// may be called more than once, concurrently, and after Close. It must not
// be called from one of the queue's tasks, which it would wait for.
func (k *KeyedQueue[K]) Drain(ctx context.Context) error {
	select {
	case <-k.stopped:
		return nil
	default:
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	k.mu.Lock()
	fin := false
	if k.state == queueOpen {
		k.state = queueDraining
		if k.cfg.capacity > 0 {
			for _, l := range k.lanes {
				k.refuseWaiters(l)
			}
		}
		fin = k.finishing()
	}
	k.mu.Unlock()
	if fin {
		k.finish()
	}
	select {
	case <-k.stopped:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// refuseWaiters wakes l's Submit calls waiting for capacity with
// ErrClosed. k.mu must be held.
func (k *KeyedQueue[K]) refuseWaiters(l *lane[K]) {
	if l.x == nil {
		return
	}
	for w := l.x.waitHead; w != nil; w = l.x.waitHead {
		l.x.waitHead, w.next = w.next, nil
		w.where = taskRemoved
		close(w.ctx.ext.wake)
	}
	l.x.waitTail = nil
}

// finishing reports whether the queue is done with its last task, and if
// so marks it stopped; the caller must then call finish. k.mu must be
// held.
func (k *KeyedQueue[K]) finishing() bool {
	if k.state == queueOpen || k.state == queueStopped || k.inflight > 0 || k.workers > 0 {
		return false
	}
	k.state = queueStopped
	return true
}

// finish removes every lane, stops the idle timer, reports the lanes'
// removal and the queue's closing, and wakes Close and Drain.
func (k *KeyedQueue[K]) finish() {
	obs := k.cfg.observer != nil
	var lanes, gone []*lane[K]
	k.mu.Lock()
	if obs {
		for _, l := range k.lanes {
			if l.evicted {
				gone = append(gone, l)
			} else {
				lanes = append(lanes, l)
			}
		}
	}
	k.lanes, k.peak, k.live = nil, 0, 0
	k.idleHead, k.idleTail = nil, nil
	k.nums = laneNums{}
	if k.timer != nil {
		k.timer.Stop()
	}
	k.timerArmed = false
	k.mu.Unlock()

	if obs {
		for _, l := range gone {
			<-l.x.gone
		}
		slices.SortFunc(lanes, func(a, b *lane[K]) int { return cmp.Compare(a.x.num, b.x.num) })
		for _, l := range lanes {
			k.cfg.emit(Event{Kind: LaneEvicted, Key: l.x.keyStr, Lane: l.x.num})
		}
		k.cfg.emit(Event{Kind: Closed})
	}
	close(k.stopped)
}

// Stats returns a snapshot of the queue's counters; Lanes is the number of
// live lanes. It does not block on running tasks.
func (k *KeyedQueue[K]) Stats() QueueStats {
	k.mu.Lock()
	defer k.mu.Unlock()
	return QueueStats{
		Parallelism: k.cfg.parallelism,
		Pending:     k.pending,
		Running:     k.running,
		Submitted:   k.submitted,
		Succeeded:   k.succeeded,
		Failed:      k.failed,
		Canceled:    k.canceled,
		Panicked:    k.panicked,
		MaxRunning:  k.maxRunning,
		Lanes:       k.live,
	}
}

// keyedCtx is the context a KeyedQueue task runs with. It lives inside the
// task, so it costs no allocation of its own. It makes its Done channel
// only when asked for it, and watches the submitter's context, its parent,
// only when that can end and either Submit asked for it or someone waits on
// Done or registers with AfterFunc. Its deadline and values are its
// parent's.
type keyedCtx struct {
	parent context.Context
	mu     sync.Mutex
	ext    *keyedExt // made on first need; see keyedExt
	why    ctxWhy    // guarded by mu
}

// ctxWhy says whether, and why, a keyedCtx has ended.
type ctxWhy uint8

const (
	ctxLive     ctxWhy = iota
	ctxCanceled        // Err is context.Canceled
	ctxParent          // Err is the parent's
)

// keyedExt holds the rarely needed parts of a task and its context. The
// pointer to it is set before the task is accepted, or later by the
// context's methods under its mu, which can only happen once the task's
// function has its context.
type keyedExt struct {
	enq  chan struct{} // closed once Enqueued is reported; only with an observer
	wake chan struct{} // closed when a wait for capacity ends

	// Guarded by the context's mu:
	done       chan struct{} // the context's Done channel
	stopParent func() bool   // ends the watch on the parent; nil when not watching
	afters     []*func()     // functions registered with AfterFunc
}

// extend returns c.ext, made if need be. c.mu must be held, or the task
// not yet accepted.
func (c *keyedCtx) extend() *keyedExt {
	if c.ext == nil {
		c.ext = new(keyedExt)
	}
	return c.ext
}

// Deadline returns the parent's deadline.
func (c *keyedCtx) Deadline() (time.Time, bool) { return c.parent.Deadline() }

// Value returns the parent's value for key.
func (c *keyedCtx) Value(key any) any { return c.parent.Value(key) }

// Done returns a channel that is closed when the context ends.
func (c *keyedCtx) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.extend()
	if e.done == nil {
		e.done = make(chan struct{})
		if c.why != ctxLive {
			close(e.done)
		} else {
			c.watchLocked(c.parentDone) // closes done if the parent ended
		}
	}
	return e.done
}

// Err returns nil until the context has ended, then why.
func (c *keyedCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.why == ctxLive && (c.ext == nil || c.ext.stopParent == nil) && c.parent.Err() != nil {
		// Nobody watches the parent, so nobody waits on Done: look.
		c.why = ctxParent
	}
	switch c.why {
	case ctxCanceled:
		return context.Canceled
	case ctxParent:
		return c.parent.Err()
	}
	return nil
}

// AfterFunc arranges for f to be called, on its own goroutine, once the
// context ends, as context.AfterFunc does. It lets the contexts derived
// from this one end with it without a goroutine each.
func (c *keyedCtx) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	c.watchLocked(c.parentDone)
	if c.why != ctxLive {
		c.mu.Unlock()
		go f()
		return func() bool { return false }
	}
	pf := &f
	e := c.extend()
	e.afters = append(e.afters, pf)
	c.mu.Unlock()
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		if i := slices.Index(e.afters, pf); i >= 0 {
			e.afters = slices.Delete(e.afters, i, i+1)
			return true
		}
		return false
	}
}

// watch makes the end of the parent call f, if the parent can end. It
// reports false if the parent has ended already; c has then ended.
func (c *keyedCtx) watch(f func()) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.watchLocked(f)
	return c.why == ctxLive
}

// watchLocked starts watching the parent with f, if c is live, the parent
// can end and is not watched yet. If the parent has ended, it ends c
// instead. c.mu must be held.
func (c *keyedCtx) watchLocked(f func()) {
	if c.why != ctxLive || c.parent.Done() == nil || c.ext != nil && c.ext.stopParent != nil {
		return
	}
	if c.parent.Err() != nil {
		c.endLocked(ctxParent)
		return
	}
	c.extend().stopParent = context.AfterFunc(c.parent, f)
}

func (c *keyedCtx) parentDone() { c.cancel(c.parent.Err()) }

// endLocked ends c for why, unless it has ended already. c.mu must be
// held.
func (c *keyedCtx) endLocked(why ctxWhy) {
	if c.why != ctxLive {
		return
	}
	c.why = why
	if c.ext != nil && c.ext.done != nil {
		close(c.ext.done)
	}
}

// cancel ends c, unless it has ended already, and stops watching the
// parent. err is context.Canceled or the parent's error, which Err then
// returns.
func (c *keyedCtx) cancel(err error) {
	why := ctxParent
	if err == context.Canceled {
		why = ctxCanceled
	}
	c.mu.Lock()
	c.endLocked(why)
	var (
		stop   func() bool
		afters []*func()
	)
	if e := c.ext; e != nil {
		stop, afters = e.stopParent, e.afters
		e.stopParent, e.afters = nil, nil
	}
	c.mu.Unlock()
	if stop != nil {
		stop()
	}
	for _, f := range afters {
		go (*f)()
	}
}

// laneNums hands out the smallest free lane number, so that lane numbers
// stay small while keys come and go. Its memory follows the highest number
// in use.
type laneNums struct {
	used []uint64 // bit b of word w: number 64*w+b is in use
	full []uint64 // bit b of word w: used[64*w+b] is full
}

func (n *laneNums) get() int {
	w := len(n.used)
	for i, f := range n.full {
		if f != ^uint64(0) {
			w = 64*i + bits.TrailingZeros64(^f)
			break
		}
	}
	if w == len(n.used) {
		n.used = append(n.used, 0)
		if w/64 == len(n.full) {
			n.full = append(n.full, 0)
		}
	}
	b := bits.TrailingZeros64(^n.used[w])
	n.used[w] |= 1 << b
	if n.used[w] == ^uint64(0) {
		n.full[w/64] |= 1 << (w % 64)
	}
	return 64*w + b
}

func (n *laneNums) put(num int) {
	w, b := num/64, num%64
	if w >= len(n.used) {
		return
	}
	n.used[w] &^= 1 << b
	n.full[w/64] &^= 1 << (w % 64)
	u := len(n.used)
	for u > 0 && n.used[u-1] == 0 {
		u--
	}
	if u == len(n.used) {
		return
	}
	f := (u + 63) / 64
	if u <= cap(n.used)/4 {
		n.used = slices.Clip(slices.Clone(n.used[:u]))
		n.full = slices.Clip(slices.Clone(n.full[:f]))
	} else {
		n.used, n.full = n.used[:u], n.full[:f]
	}
}
