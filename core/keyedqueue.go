package core

import (
	"cmp"
	"context"
	"fmt"
	"hash/maphash"
	"runtime"
	"runtime/trace"
	"slices"
	"time"
)

// KeyedQueue runs functions one at a time per key, in submission order, and
// functions of different keys in parallel: think of readings from many
// devices, where one device's readings must be handled in order and
// different devices at once.
//
// Each key gets a lane on its first task: a FIFO of the key's pending
// tasks, which hands only its head to the queue's scheduler (the one
// WorkQueue uses), so that a key with a long backlog takes turns with the
// others, one task each, and never starves them. A lane without work holds
// no goroutine, and is removed once it has had no work for the idle timeout
// ([WithIdleTimeout], default [DefaultIdleTimeout]); after that nothing of
// it remains, and a queue whose lanes are all removed holds no more memory
// than when it was made, but for an observed queue's event buffer (room
// for up to 256 events): each shard lets go of its lane map, pending
// queue, timer, context watches and buffers once its last lane goes. A
// task submitted while its lane is being removed is never lost, and never
// runs before or alongside the lane's earlier tasks.
//
// To scale with cores, a queue made without [WithObserver],
// [WithTotalCapacity] or [WithSemaphore] is split into GOMAXPROCS shards
// (at most 64), each a scheduler of its own for the keys whose hash picks
// it, sharing the parallelism cap through atomic counts: keys take their
// turns within their shard, and the shards take turns for the slots (up
// to eight tasks a turn), so no key waits behind more than a turn of
// another shard's backlog either. The queue then costs GOMAXPROCS
// schedulers (1.3 KB each, measured) when made, and a submit hashes its
// key once (hash/maphash).
//
// [WithParallelism](n) caps the tasks running at once across all keys (0,
// the default, means no cap); [KeyedQueue.SetParallelism] changes it.
// [WithCapacity](n) bounds each key's pending tasks and
// [WithTotalCapacity](n) those of all keys together: Submit blocks until
// there is room. [WithSemaphore](s) makes every task also hold a token of
// s while it runs, a limit shared with other queues.
//
// A task's context is canceled when its submitter's context ends, when the
// task is canceled, or when the queue is closed, and after its function
// returns. A task canceled before it starts never runs. As in a
// [WorkQueue], the submitter's context of a waiting task is looked at, not
// watched: the task ends canceled when its turn comes, or earlier when its
// handle, Stats, or a submit that finds its lane or the queue full looks
// at it. Panics follow the package's panic policy.
//
// A task must not wait for a later task of its own key, which could only
// start after it. With [WithParallelism], tasks that wait for other tasks
// of the queue can hold every slot and wait forever; give such work its own
// queue.
//
// Task events carry the task's Key (fmt.Sprint of the key) and Lane, a
// small number that identifies the key's lane while it lives (the smallest
// free one when it is created; in a sharded queue, whose lanes only
// execution traces name, the smallest free one of its shard, times the
// shards, plus the shard's index). Lane events (LaneCreated, LaneEvicted)
// have Task 0: a key's LaneCreated comes before its tasks' events, its
// LaneEvicted after them and before a new LaneCreated for the key. A
// Submit refused for a key without a lane leaves none, and no lane event.
// When the queue stops, each remaining lane is reported evicted, then the
// queue Closed. The Clock's methods may be called with the queue's lock held.
// Its methods are safe for concurrent use.
type KeyedQueue[K comparable] struct {
	shards  []*keyShard[K]
	engines []*engine // the shards' engines
	seed    maphash.Seed
	pool    *slots // the shards' shared slot count; nil for one shard
}

// keyShard is the lanes of the keys that hash to it, with the engine that
// schedules them.
type keyShard[K comparable] struct {
	e     *engine
	lanes map[K]*lane // guarded by e.mu
	idx   int         // lane numbers are idx + n*(a number free in the shard)
	n     int         // the queue's shards

	// The idle list: lanes without work, oldest first. One timer fires for
	// its head.
	idleHead, idleTail *lane
	timer              Timer
	armed              bool
	lastNow            time.Duration // time never goes back
	peak               int           // the most lanes since the map was last rebuilt
	sweep              func()
}

// lane is one key's FIFO. Guarded by the engine's mutex.
type lane struct {
	owner      any // its *keyLane[K], which holds the key: no boxing of K
	keyStr     string
	num        int
	head, tail *Task // backlog behind active, oldest first; ended ones are skipped
	n          int   // backlog tasks not ended
	active     *Task // the task handed to the scheduler, nil when idle
	waiting    int   // Submit calls waiting for room in the lane
	shown      bool  // LaneCreated reported: a task was accepted in it
	// entering counts the Submit calls that hold the lane while the lock
	// is released before they wait (see enterLocked): like waiting ones,
	// they keep it from idling.
	entering int32

	idleAt       time.Duration
	iprev, inext *lane
	idle         bool // in the idle list
}

// keyLane is a lane and its key, made as one allocation.
type keyLane[K comparable] struct {
	lane
	key K
}

// keyOf returns l's key.
func keyOf[K comparable](l *lane) K { return l.owner.(*keyLane[K]).key }

func (l *lane) busy() bool { return l.active != nil }

// claimed reports whether a Submit call waits for room in l, or holds it
// on its way there.
func (l *lane) claimed() bool { return l.waiting > 0 || l.entering > 0 }

// pendingCount counts the lane's tasks that have not started.
func (l *lane) pendingCount() int {
	n := l.n
	if l.active != nil && l.active.at < atRunning {
		n++
	}
	return n
}

func (l *lane) push(t *Task) {
	t.next = nil
	if l.tail == nil {
		l.head = t
	} else {
		l.tail.next = t
	}
	l.tail = t
	l.n++
}

// pop removes and returns the oldest backlog task not ended, or nil.
func (l *lane) pop() *Task {
	for t := l.head; t != nil; t = l.head {
		l.head = t.next
		t.next = nil
		if l.head == nil {
			l.tail = nil
		}
		if t.at == atLane {
			return t
		}
	}
	return nil
}

// NewKeyedQueue returns an empty queue. It reads the options
// [WithParallelism], [WithIdleTimeout], [WithCapacity],
// [WithTotalCapacity], [WithSemaphore], [WithObserver] and [WithClock]; the
// others are ignored. It starts no goroutine.
func NewKeyedQueue[K comparable](opts ...Option) *KeyedQueue[K] {
	return newKeyedQueue[K](runtime.GOMAXPROCS(0), opts)
}

// newKeyedQueue makes a queue of up to shards shards: one with an
// observer, a total capacity or a shared Semaphore.
func newKeyedQueue[K comparable](shards int, opts []Option) *KeyedQueue[K] {
	cfg := newConfig(opts)
	n := 1
	if cfg.observer == nil && cfg.totalCapacity == 0 && cfg.semaphore == nil {
		n = min(max(shards, 1), maxShards)
	}
	k := &KeyedQueue[K]{seed: maphash.MakeSeed()}
	if n > 1 {
		k.pool = &slots{}
		k.pool.limit.Store(int64(cfg.parallelism))
	}
	for i := range n {
		s := &keyShard[K]{lanes: make(map[K]*lane), idx: i, n: n}
		s.e = newEngine(cfg.parallelism, cfg)
		s.e.capacity = cfg.totalCapacity
		s.e.laneCap = cfg.capacity
		s.e.keys = s
		s.sweep = s.evictIdle
		if k.pool != nil {
			e := s.e
			e.pool, e.bit, e.shard, e.limit, e.maxSpin = k.pool, 1<<i, i, 0, 0
			if i > 0 {
				e.rt = k.engines[0].rt // one queue in execution traces
			}
			e.kick = func() { k.pool.kick(i) }
		}
		k.shards = append(k.shards, s)
		k.engines = append(k.engines, s.e)
	}
	if k.pool != nil {
		k.pool.engines, k.pool.done = k.engines, make(chan struct{})
		k.pool.live.Store(int32(n))
	}
	return k
}

// shard returns the shard of key.
func (k *KeyedQueue[K]) shard(key K) *keyShard[K] {
	if len(k.shards) == 1 {
		return k.shards[0]
	}
	return k.shards[maphash.Comparable(k.seed, key)%uint64(len(k.shards))]
}

// Do runs fn after key's earlier tasks and blocks until it has returned,
// then returns its error: nil, fn's error, or a [*PanicError]. fn receives
// a context that is canceled when ctx ends or the queue is closed.
//
// If ctx ends before fn starts, fn never runs and Do returns ctx.Err(); if
// it ends while fn runs, Do still waits for fn to return. When the queue
// is at capacity, Do first waits for room. Do returns [ErrClosed], without
// running fn, if the queue is closed or draining, and ctx.Err() if ctx has
// already ended. It panics if fn is nil.
func (k *KeyedQueue[K]) Do(ctx context.Context, key K, fn func(context.Context) error, opts ...TaskOption) error {
	t, err := k.submit(ctx, key, fn, opts, true, "KeyedQueue.Do")
	if err != nil {
		return err
	}
	select {
	case <-t.ended():
	case <-ctx.Done():
		t.e.cancel(t, doneParent)
		<-t.ended()
	}
	return t.Err()
}

// Submit adds fn to key's lane and returns its [Task] without waiting for
// it to run. Tasks submitted to one key run one at a time, in the order of
// their Submit calls (of calls that do not overlap), even across the
// lane's eviction and re-creation.
//
// Submit blocks only when key's lane, or the queue, is at capacity; it then
// waits, in order with the other waiting Submit calls, until there is room
// or ctx ends. When ctx ends first, Submit returns ctx.Err() and the queue
// is unchanged. If ctx ends after Submit returned and before fn started,
// fn never runs and the task ends canceled with ctx.Err(), when the queue
// sees it (see [KeyedQueue]; at once for a caller of [Task.Done],
// [Task.Wait] or [Task.State]). Submit returns [ErrClosed] if the queue is
// closed or draining, including while waiting for room. It panics if fn is
// nil.
func (k *KeyedQueue[K]) Submit(ctx context.Context, key K, fn func(context.Context) error, opts ...TaskOption) (*Task, error) {
	return k.submit(ctx, key, fn, opts, true, "KeyedQueue.Submit")
}

// TrySubmit adds fn to key's lane like [KeyedQueue.Submit], but never
// blocks: when key's lane or the queue is at capacity (or other Submit
// calls are waiting for that room), it returns [ErrFull] and the queue is
// unchanged. The task's context is canceled only by the queue or
// [Task.Cancel]. It returns [ErrClosed] if the queue is closed or draining,
// and panics if fn is nil.
func (k *KeyedQueue[K]) TrySubmit(key K, fn func(context.Context) error, opts ...TaskOption) (*Task, error) {
	return k.submit(context.Background(), key, fn, opts, false, "KeyedQueue.TrySubmit")
}

func (q *KeyedQueue[K]) submit(ctx context.Context, key K, fn func(context.Context) error, opts []TaskOption, block bool, what string) (*Task, error) {
	checkCtx(ctx, what)
	if fn == nil {
		panic("core: " + what + " with a nil function")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	k := q.shard(key)
	e := k.e
	t := newTask(e, ctx, funcJob(fn), opts)
	t.enq = e.now() // read before the lock, to keep the clock out of it
	e.mu.Lock()
	ks := ""
	if (e.cfg.observer != nil || trace.IsEnabled()) && k.lanes[key] == nil {
		// A new lane's events and trace name the key with fmt.Sprint,
		// which may call the key's String method: not under the lock.
		e.mu.Unlock()
		ks = fmt.Sprint(key)
		e.mu.Lock()
	}
	if !e.openLocked() {
		e.mu.Unlock()
		return nil, ErrClosed
	}
	e.stamp, e.stamped = t.enq, true
	l := k.lanes[key]
	if l == nil {
		kl := &keyLane[K]{key: key}
		kl.owner, kl.num, kl.keyStr = kl, k.idx+k.n*e.nums.take(true), ks
		l = &kl.lane
		k.lanes[key] = l
		k.peak = max(k.peak, len(k.lanes))
	}
	k.unidle(l)
	if err := e.enterLocked(ctx, t, l, block); err != nil {
		if !l.busy() && !l.claimed() && e.state == engOpen {
			if l.shown {
				k.goIdle(l) // back to idling
			} else {
				k.evict(l) // never used: as if it had not been made
			}
		}
		e.unlock()
		return nil, err
	}
	e.unlock()
	return t, nil
}

// SetParallelism changes how many tasks may run at once across all keys; 0
// means no cap. Growing starts pending tasks at once; shrinking lets
// running tasks finish and starts no more until fewer than n run. It does
// not block. It panics if n < 0.
func (k *KeyedQueue[K]) SetParallelism(n int) {
	if n < 0 {
		panic(fmt.Sprintf("core: parallelism %d is negative", n))
	}
	if k.pool == nil {
		k.engines[0].setLimit(n)
		return
	}
	k.pool.limit.Store(int64(n))
	for _, e := range k.engines {
		e.mu.Lock()
		e.spawnLocked()
		e.maybeStopLocked()
		e.unlock()
	}
}

// Close stops the queue: Submit and Do return [ErrClosed] from then on,
// including calls waiting for capacity; pending tasks end canceled with
// [context.Canceled] without running; running tasks have their context
// canceled. Close blocks until every task has ended and every lane is
// removed, and returns nil. It may be called more than once,
// concurrently, and during or after Drain; every call waits. It must not
// be called from one of the queue's tasks, which it would wait for.
func (k *KeyedQueue[K]) Close() error { return closeEngines(k.engines...) }

// Drain stops accepting tasks (Submit and Do return [ErrClosed], including
// calls waiting for capacity), lets every accepted task run, in order per
// key, then removes every lane and stops the queue. It blocks until the
// queue has stopped and returns nil, or until ctx ends and returns
// ctx.Err(); the queue then goes on draining, and Close may abort it. If
// ctx has already ended, Drain returns ctx.Err() and changes nothing. It
// may be called more than once, concurrently, and after Close. It must not
// be called from one of the queue's tasks, which it would wait for.
func (k *KeyedQueue[K]) Drain(ctx context.Context) error {
	return drainEngines(ctx, "KeyedQueue.Drain", k.engines...)
}

// Stats returns a snapshot of the queue's counters, with Lanes, the live
// key lanes. OldestPending walks the lanes, so Stats costs O(lanes). It
// first cancels the waiting tasks whose submitter's context has ended, as
// [WorkQueue.Stats] does. It does not block on running tasks.
func (k *KeyedQueue[K]) Stats() QueueStats { return statsEngines(k.engines...) }

// laneMap is what the engine asks of a KeyedQueue, with e.mu held.
type laneMap interface {
	nextLocked(l *lane)
	dropBacklogsLocked()
	evictAllLocked()
	statsLocked(st *QueueStats, now time.Duration)
	keyString(l *lane) string
}

// keyString names l's key as its events do, fmt.Sprint of it. It may call
// the key's String method: the engine calls it under its lock only for a
// lane made before tracing started (see rtEnqueueTraced).
func (k *keyShard[K]) keyString(l *lane) string { return fmt.Sprint(keyOf[K](l)) }

// nextLocked hands l's next task to the scheduler after its active task
// ended, or lets l idle.
func (k *keyShard[K]) nextLocked(l *lane) {
	l.active = nil
	if t := l.pop(); t != nil {
		l.n--
		l.active = t
		k.e.readyLocked(t)
		return
	}
	if !l.claimed() && k.e.state < engStopped {
		k.goIdle(l)
	}
}

func (k *keyShard[K]) dropBacklogsLocked() {
	for _, l := range k.lanes {
		for t := l.pop(); t != nil; t = l.pop() {
			k.e.endLocked(t, TaskCanceled, context.Canceled)
		}
	}
}

// statsLocked adds the live lanes to st, and to OldestPending the age of
// each lane's oldest pending task: its head, if not running (in the
// scheduler, perhaps behind younger tasks of other keys, or waiting for a
// token), else the first of its backlog.
func (k *keyShard[K]) statsLocked(st *QueueStats, now time.Duration) {
	st.Lanes += len(k.lanes)
	for _, l := range k.lanes {
		if a := l.active; a != nil && a.at < atRunning {
			st.OldestPending = max(st.OldestPending, now-a.enq)
			continue
		}
		for t := l.head; t != nil; t = t.next {
			if t.at == atLane {
				st.OldestPending = max(st.OldestPending, now-t.enq)
				break
			}
		}
	}
}

// goIdle puts l, without work, at the tail of the idle list, and arms the
// timer if it was not.
func (k *keyShard[K]) goIdle(l *lane) {
	if l.idle {
		return
	}
	now := k.now()
	l.idleAt, l.idle = now, true
	l.iprev, l.inext = k.idleTail, nil
	if k.idleTail == nil {
		k.idleHead = l
	} else {
		k.idleTail.inext = l
	}
	k.idleTail = l
	if !k.armed {
		k.arm(k.e.cfg.idleTimeout)
	}
}

// unidle takes l out of the idle list.
func (k *keyShard[K]) unidle(l *lane) {
	if !l.idle {
		return
	}
	if l.iprev == nil {
		k.idleHead = l.inext
	} else {
		l.iprev.inext = l.inext
	}
	if l.inext == nil {
		k.idleTail = l.iprev
	} else {
		l.inext.iprev = l.iprev
	}
	l.iprev, l.inext, l.idle = nil, nil, false
}

func (k *keyShard[K]) now() time.Duration {
	k.lastNow = max(k.lastNow, k.e.now())
	return k.lastNow
}

func (k *keyShard[K]) arm(d time.Duration) {
	k.armed = true
	if k.timer == nil {
		k.timer = k.e.cfg.clock.AfterFunc(d, k.sweep)
	} else {
		k.timer.Reset(d)
	}
}

// evictIdle removes the lanes idle for the timeout, and re-arms the timer
// for the next one.
func (k *keyShard[K]) evictIdle() {
	e := k.e
	e.mu.Lock()
	k.armed = false
	now := k.now()
	// A draining or closing queue keeps its lanes until it stops, then
	// reports them all evicted.
	for l := k.idleHead; l != nil && e.state == engOpen; l = k.idleHead {
		if due := l.idleAt + e.cfg.idleTimeout; due > now {
			k.arm(due - now)
			break
		}
		k.evict(l)
	}
	if len(k.lanes) == 0 && !k.armed {
		k.timer = nil // it has fired: a new lane's idling makes another
	}
	e.unlock()
}

func (k *keyShard[K]) evict(l *lane) {
	k.unidle(l)
	delete(k.lanes, keyOf[K](l))
	k.e.nums.put(l.num/k.n, true)
	if l.shown {
		k.e.laneEv(LaneEvicted, l)
	}
	// A map does not shrink: rebuild it once it holds a quarter of its
	// peak, and once it is empty, so that the memory of evicted lanes goes.
	n := len(k.lanes)
	if n < k.peak/4 || n == 0 {
		m := make(map[K]*lane, n)
		for key, l := range k.lanes {
			m[key] = l
		}
		k.lanes, k.peak = m, n
	}
	if n == 0 {
		k.e.trimLocked() // no lane, so no task: the shard is as it was made
	}
}

func (k *keyShard[K]) evictAllLocked() {
	ls := make([]*lane, 0, len(k.lanes))
	for _, l := range k.lanes {
		ls = append(ls, l)
	}
	slices.SortFunc(ls, func(a, b *lane) int { return cmp.Compare(a.num, b.num) })
	for _, l := range ls {
		k.evict(l)
	}
	if k.timer != nil {
		k.timer.Stop()
	}
	k.armed = false
}
