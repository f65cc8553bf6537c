package core

import (
	"context"
	"sync/atomic"
	"time"
	"unsafe"
)

// Go adds fn to the queue, as [WorkQueue.Submit] does, but returns no
// handle: only whether fn was accepted. It blocks, like Submit, only while
// the queue is at capacity, and returns the same errors (ctx.Err(),
// [ErrClosed], or [ErrFull] from one of the queue's own tasks), leaving the
// queue unchanged. fn's outcome is counted in [WorkQueue.Stats] and
// reported to an observer; nothing else sees its error or panic, so fn
// should deal with them itself. Close cancels the tasks not started.
//
// When ctx is [context.Background] and the queue has no observer, the task
// is bare: Go allocates nothing for it, and its function runs with a
// context that all the queue's bare tasks share, which has no values or
// deadline and is done once the queue is closed (also after fn returned).
// Otherwise fn's context is a task's own, as with Submit.
//
// Tasks are taken in priority order, and in the order of their Go and
// Submit calls within a priority. A worker that finds a run of short bare
// tasks takes up to 64 at once and starts them one after another without
// the queue's lock, which is what makes bare tasks cheap; so a bare task
// may start after a later one of the same priority that another worker
// took. A task of another priority is never held up by them or overtakes
// them out of turn, a free worker takes from another's run rather than
// wait, and runs grow only while their tasks take microseconds, so long
// tasks go one at a time.
func (q *WorkQueue) Go(ctx context.Context, fn func(context.Context) error, opts ...TaskOption) error {
	if fn == nil {
		panic("core: WorkQueue.Go with a nil function")
	}
	if isBackground(ctx) && q.cfg.observer == nil {
		prio := Normal
		if len(opts) > 0 {
			prio = newTaskConfig(opts).priority
		}
		return q.goBare(fn, prio)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	t := newWQTask(q, ctx, fn, opts)
	return q.submit(ctx, t, true)
}

// background is context.Background(), for comparison.
var background = context.Background()

// isBackground reports whether ctx is context.Background(). It compares
// the two words of the interface values, the dynamic type and the data
// pointer, which is far cheaper than ==, a runtime call for a dynamic type
// that is not a pointer. Equal words mean the same type and value; a
// Background that does not match word for word only misses the bare path.
func isBackground(ctx context.Context) bool {
	c, bg := (*[2]unsafe.Pointer)(unsafe.Pointer(&ctx)), (*[2]unsafe.Pointer)(unsafe.Pointer(&background))
	return c[0] == bg[0] && c[1] == bg[1]
}

// goBare queues fn as a bare task of priority prio.
func (q *WorkQueue) goBare(fn func(context.Context) error, prio Priority) error {
	q.mu.Lock()
	if q.state != wqOpen || q.capacity != 0 {
		if err := q.admitLocked(background, true); err != nil {
			q.mu.Unlock()
			return err
		}
	}
	q.submitted++
	q.pending.pushBare(fn, prio)
	if len(q.batches) > 0 {
		q.preemptLocked(prio)
	}
	if q.workers < q.limit {
		q.workers++
		go q.workFn()
	}
	q.mu.Unlock()
	return nil
}

// runBare calls a bare task's function, on a worker that holds a slot.
func (q *WorkQueue) runBare(fn func(context.Context) error) TaskState {
	ctx := q.bareContext()
	state, _ := outcome(ctx, call(ctx, fn))
	return state
}

// bareContext returns the context of the queue's bare tasks.
func (q *WorkQueue) bareContext() *wqBareContext { return (*wqBareContext)(q) }

// wqBareContext is a queue seen as the context of its bare tasks. It is
// done, with context.Canceled, once the queue is closed.
type wqBareContext WorkQueue

// wqBare holds the bare tasks' context's Done channel and AfterFunc
// functions, made on first need; guarded by the queue's mutex.
type wqBare struct {
	done   atomic.Pointer[chan struct{}] // read without the lock once set
	afters wqAfters
}

// Deadline reports that there is no deadline.
func (c *wqBareContext) Deadline() (time.Time, bool) { return time.Time{}, false }

// Value returns nil: the context carries no values.
func (c *wqBareContext) Value(key any) any {
	if _, ok := key.(wqContextKey); ok {
		return c
	}
	return nil
}

// String describes the context, as the standard library's contexts do.
func (c *wqBareContext) String() string { return "context.Background.WithWorkQueue" }

// Err returns context.Canceled once the queue is closed, and nil before.
func (c *wqBareContext) Err() error {
	if c.closed.Load() {
		return context.Canceled
	}
	return nil
}

// Done returns a channel closed when the queue is closed.
func (c *wqBareContext) Done() <-chan struct{} {
	if p := c.bare.done.Load(); p != nil {
		return *p
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.bare.done.Load(); p != nil {
		return *p
	}
	done := make(chan struct{})
	if c.state == wqClosing {
		close(done)
	}
	c.bare.done.Store(&done)
	return done
}

// AfterFunc arranges for f to be called once the queue is closed, so that
// contexts derived from this one need no goroutine of their own. The
// returned stop function reports whether it stopped f from being called.
func (c *wqBareContext) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	if c.state == wqClosing {
		c.mu.Unlock()
		go f() // as context.AfterFunc does for a context already done
		return func() bool { return false }
	}
	id := c.bare.afters.add(f)
	c.mu.Unlock()
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.bare.afters.remove(id)
	}
}

// closeBareLocked makes the bare tasks' context done, as the queue closes,
// and returns the AfterFunc functions to call outside the lock.
func (q *WorkQueue) closeBareLocked() []wqAfter {
	if p := q.bare.done.Load(); p != nil {
		close(*p)
	}
	return q.bare.afters.take()
}

// Batches. A worker that takes a bare task from the pending queue while
// more bare tasks of the same priority follow it may take up to
// wqBatchMax of them at once into its batch, and then start them one after
// another without the queue's lock: this is what makes a stream of short
// bare tasks cheap. The tasks of a batch start in their order, but a task
// of another worker, taken later, may start while they wait; how many a
// worker takes grows only while its batches run quickly (within
// wqBatchWindow), so that long tasks go one by one as without batches.
// What a batch holds is never lost or held back: a worker with nothing else
// to do, or with only tasks of lower priority queued, takes from another's
// batch; a task of higher priority sends the batches of lower priority
// back to the queue's head; a shrink of the parallelism below the slots in
// use sends every batch back; and Close cancels them.
const (
	wqBatchMax    = 64
	wqBatchWindow = 20 * time.Microsecond
)

// wqBatch is a worker's batch of bare tasks. Its owner takes tasks from it
// without the lock; anyone else only with the lock.
//
// One word holds how many tasks were taken and how the owner's tasks ended,
// so that the owner takes its next task and counts the end of the last in
// one atomic step, and Stats, which reads the word under the lock, never
// sees a task that is neither waiting, nor running, nor ended. The fields
// are wqBatchBits wide, enough for wqBatchMax and a few takes past the end;
// the owner moves the ends to the queue's counters whenever it takes the
// lock, before the batch is filled again.
type wqBatch struct {
	word  atomic.Uint64 // taken | succeeded | failed | canceled | panicked, wqBatchBits each
	n     int64         // tasks in fns; guarded by the queue's mutex
	prio  Priority      // guarded by the queue's mutex
	index int           // in the queue's batches, or -1; guarded by the queue's mutex
	fns   [wqBatchMax]func(context.Context) error

	// The owner's own state, not shared.
	size int       // how many tasks to take next
	last time.Time // when it last took tasks
}

// The fields of wqBatch.word.
const (
	wqBatchBits  = 8
	wqBatchField = 1<<wqBatchBits - 1
)

// wqEnd returns one end in state s, as added to a batch word.
func wqEnd(s TaskState) uint64 {
	switch s {
	case TaskSucceeded:
		return 1 << (1 * wqBatchBits)
	case TaskFailed:
		return 1 << (2 * wqBatchBits)
	case TaskPanicked:
		return 1 << (4 * wqBatchBits)
	default:
		return 1 << (3 * wqBatchBits)
	}
}

// wqEnds returns the counts of ends in a batch word.
func wqEnds(w uint64) (succeeded, failed, canceled, panicked uint64) {
	return w >> (1 * wqBatchBits) & wqBatchField, w >> (2 * wqBatchBits) & wqBatchField,
		w >> (3 * wqBatchBits) & wqBatchField, w >> (4 * wqBatchBits) & wqBatchField
}

// flushLocked moves the ends counted in b to the queue's counters. Only
// b's owner calls it, under the lock: nobody else counts ends in b.
func (q *WorkQueue) flushLocked(b *wqBatch) {
	for {
		w := b.word.Load()
		if w>>wqBatchBits == 0 {
			return
		}
		if b.word.CompareAndSwap(w, w&wqBatchField) {
			s, f, c, p := wqEnds(w)
			q.succeeded += s
			q.failed += f
			q.canceled += c
			q.panicked += p
			return
		}
	}
}

// take takes the next task of b, or returns nil, counting nothing, when
// none is left. ends is added to the word with it: the owner's step counts
// the end of the task it ran last (wqEnd), which, when none is left, is
// counted with the lock instead; another worker, with the lock, passes 0.
func (b *wqBatch) take(ends uint64) func(context.Context) error {
	for {
		w := b.word.Load()
		i := int64(w & wqBatchField)
		if i >= b.n {
			return nil
		}
		if b.word.CompareAndSwap(w, w+1+ends) {
			fn := b.fns[i]
			b.fns[i] = nil
			return fn
		}
	}
}

// left returns how many tasks of b are not taken.
func (b *wqBatch) left() int64 { return max(0, b.n-int64(b.word.Load()&wqBatchField)) }

// fillLocked lets b take more of the bare tasks that follow one of
// priority prio just taken, as many as its size allows, and registers it
// with the queue if it took any. now is the time its worker last took the
// lock (zero the first time), read before, so as not to hold the lock
// longer. Batches are only for queues without a
// capacity, whose pending count must stay exact.
func (q *WorkQueue) fillLocked(b *wqBatch, prio Priority, now time.Time) {
	if b.size == 0 || now.Sub(b.last) > wqBatchWindow {
		b.size = 1 // new, or the last batch ran slowly: take one
	} else {
		b.size = min(2*b.size, wqBatchMax)
	}
	b.last = now
	if b.size == 1 {
		return
	}
	n := q.pending.popBare(b.fns[:b.size-1], prio)
	if n == 0 {
		return
	}
	b.n, b.prio = int64(n), prio
	b.word.Store(0) // its ends were flushed before
	b.index = len(q.batches)
	q.batches = append(q.batches, b)
}

// dropLocked unregisters b, whose tasks are all taken and whose ends are
// counted; only its owner does, so that Stats sees every batch whose
// owner may still count ends in it.
func (q *WorkQueue) dropLocked(b *wqBatch) {
	if b.index < 0 {
		return
	}
	last := len(q.batches) - 1
	q.batches[b.index] = q.batches[last]
	q.batches[b.index].index = b.index
	q.batches[last] = nil
	q.batches = q.batches[:last]
	b.index = -1
}

// reclaimLocked takes back the tasks of b not taken yet and returns how
// many there were: they go back to the head of the pending queue, or, if
// cancel is set, end canceled. b stays registered, empty, for its owner
// to drop.
func (q *WorkQueue) reclaimLocked(b *wqBatch, cancel bool) int {
	var i int64
	for {
		w := b.word.Load()
		i = int64(w & wqBatchField)
		if i >= b.n || b.word.CompareAndSwap(w, w&^wqBatchField|uint64(b.n)) {
			break
		}
	}
	left := 0
	for j := b.n - 1; j >= i; j-- {
		if !cancel {
			q.pending.pushFrontBare(b.fns[j], b.prio)
		}
		b.fns[j] = nil
		left++
	}
	if cancel {
		q.canceled += uint64(left)
	}
	return left
}

// preemptLocked sends the batches of priority below prio back to the head
// of the pending queue, when a task of priority prio has just been queued.
func (q *WorkQueue) preemptLocked(prio Priority) {
	for _, b := range q.batches {
		if b.prio < prio {
			q.reclaimLocked(b, false)
		}
	}
}

// stealLocked takes a task from another worker's batch, for a worker
// that would otherwise take the first queued task, of priority above if
// queued is set, or find none. It takes only from a batch of a higher
// priority than that task, so that a batch never holds back a task that a
// queued one of lower priority overtakes; among equals the queued one
// goes, so that workers keep their own batches. It returns nil if there is
// no such task.
func (q *WorkQueue) stealLocked(above Priority, queued bool) func(context.Context) error {
	for _, b := range q.batches {
		if queued && b.prio <= above {
			continue
		}
		if fn := b.take(0); fn != nil {
			return fn
		}
	}
	return nil
}

// batchedLocked counts the tasks waiting in batches.
func (q *WorkQueue) batchedLocked() int {
	n := int64(0)
	for _, b := range q.batches {
		n += b.left()
	}
	return int(n)
}

// batchStatsLocked adds to st what batches hold: the tasks not taken, as
// pending, and the ends counted in them. It reads each batch's word once,
// so that a task its owner takes meanwhile is counted once.
func (q *WorkQueue) batchStatsLocked(st *QueueStats) {
	for _, b := range q.batches {
		w := b.word.Load()
		st.Pending += int(max(0, b.n-int64(w&wqBatchField)))
		s, f, c, p := wqEnds(w)
		st.Succeeded += s
		st.Failed += f
		st.Canceled += c
		st.Panicked += p
	}
}
