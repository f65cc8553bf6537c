package core

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// The layout of Semaphore.state. In fast mode the word is h<<genBits | g,
// with h tokens held, 0 <= h <= limit < fastLimit, and g the generation:
// every fast word is in [0, fastWord), but an excess lock-free Release turns
// it negative until it is undone. In locked mode the word is lockBit, less
// the tokens of the lock-free Releases that raced the switch; those are
// released again on cur, and the word is overwritten on the return to fast
// mode. A locked word stays far above fastWord: the Releases that race a
// switch subtract no more than the h of the last fast word, unless they
// are excess ones, and lockBit-fastWord is three times fastWord.
const (
	// genBits is the width of the generation, the low bits of
	// Semaphore.resizes: a state word loaded before a SetLimit never
	// equals one stored after it (short of 2^20 SetLimit calls between
	// the load and the compare-and-swap), so that a lock-free acquire
	// never pairs a count with a limit that was not in force with it.
	genBits = 20
	genMask = 1<<genBits - 1
	// fastLimit bounds the limits that allow fast mode: with a larger
	// limit every call takes the lock.
	fastLimit = 1 << 40
	fastWord  = fastLimit << genBits // every fast word is below it
	lockBit   = 1 << 62              // the state word in locked mode
)

// Semaphore is a weighted semaphore with priorities: callers acquire tokens,
// up to a limit, and release them when done. It is a drop-in for
// golang.org/x/sync/semaphore.Weighted: Acquire, TryAcquire and Release have
// the same signatures and semantics, and panic in the same cases (a
// negative count, a release of more than is held), though a Release that
// panics leaves the count as it was, where x/sync leaves it negative.
//
// Waiters are served in order of priority, then arrival (FIFO within a
// priority). There is no barging: a waiter at the head of the queue blocks
// smaller requests behind it, even when they would fit, so that large
// requests never starve. A waiter whose context ends never blocks the ones
// behind it. [WithAging] lets long waits raise a waiter's priority so that no
// priority starves.
//
// [Semaphore.Do] runs a function while holding tokens, releases them however
// it returns, and reports the call to an observer as one task.
//
// The uncontended paths take no lock and allocate nothing: while no waiter
// is queued and no more tokens are held than the limit, Acquire and
// TryAcquire are two loads (the count and the limit) and one
// compare-and-swap, and Release is one load and one atomic add. With
// [WithObserver] the paths are the same, with the observer's calls added:
// Started after a grant, Finished before a release, so that counters
// rebuilt from the events never pass the limit. Every call takes the lock
// while the limit is 2^40 tokens or more. A contended Acquire takes the
// lock, and joins the waiters in O(1) when it comes after the last one
// queued in priority order (any waiter of one priority), else in
// O(log waiters); each grant takes its waiter off in the same time.
//
// A Semaphore must not be copied after first use. Its methods are safe for
// concurrent use; tokens may be released by another goroutine than the one
// that acquired them.
type Semaphore struct {
	// state holds the count for the lock-free paths in fast mode: while
	// no waiter is queued, lim < fastLimit and 0 <= cur <= lim. It is then
	// h<<genBits | g, where h is the number of tokens held and g is
	// resizes&genMask. In locked mode (locked is set) it holds lockBit less
	// the adds of racing Releases, cur is the count, and the lock-free
	// paths defer to mu. See the constants above.
	state atomic.Int64
	// limitMirror is lim, readable without mu by the lock-free acquire paths.
	// It changes only in locked mode, together with the generation.
	limitMirror atomic.Int64
	ids         atomic.Uint64 // event task ids; used only with an observer
	canceled    atomic.Uint64 // waits ended by their context
	// spare is a waiter kept from a wait that ended, for the next one: a
	// wait ends with its waiter out of every queue and its channel empty,
	// so that a contended Acquire seldom allocates. It is kept per
	// semaphore, not shared, so that its channel stays with the goroutines
	// that use the semaphore (a testing/synctest bubble, say).
	spare atomic.Pointer[waiter]

	mu  sync.Mutex
	lim int64 // guarded by mu
	// cur is the number of tokens held, in locked mode; guarded by mu. It
	// exceeds lim after SetLimit shrank the limit below it. It is negative
	// only while an excess lock-free Release, whose add turned the fast word
	// negative, is being undone; nothing is granted meanwhile.
	cur    int64
	locked bool        // state is in locked mode; guarded by mu
	queue  waiterQueue // waiters that fit the limit, best first; guarded by mu
	parked []*waiter   // waiters asking for more than the limit; guarded by mu
	seq    uint64      // arrival counter; guarded by mu
	// resizes counts SetLimit calls, so that only the latest of
	// overlapping calls applies; its low genBits bits are the generation
	// of fast state words. Guarded by mu.
	resizes uint64

	cfg config
	rt  rtQueue // its label in execution traces (rtrace.go)
}

// NewSemaphore returns a semaphore with n tokens. It reads the options
// [WithAging], [WithObserver] and [WithClock]. A limit of 0 is allowed, as
// for x/sync: only Acquire(ctx, 0) then succeeds until SetLimit grows it. It
// panics if n is negative.
func NewSemaphore(n int64, opts ...Option) *Semaphore {
	if n < 0 {
		panic(fmt.Sprintf("core: semaphore limit %d is negative", n))
	}
	s := &Semaphore{cfg: newConfig(opts), lim: n}
	if n >= fastLimit {
		// A huge limit: the count does not fit a fast state word.
		s.locked = true
		s.state.Store(lockBit)
	}
	s.limitMirror.Store(n)
	return s
}

// Acquire takes n tokens at [Normal] priority, blocking until they are
// available or ctx ends. On success it returns nil. When ctx ends first,
// including when it had already ended before the call (even if tokens were
// free), Acquire returns ctx.Err() and leaves the semaphore unchanged. A
// request for more tokens than the limit waits until SetLimit makes room or
// ctx ends, without blocking other callers. It panics if n is negative.
func (s *Semaphore) Acquire(ctx context.Context, n int64) error {
	// The uncontended path, kept short: a context that can never end and
	// free tokens in fast mode. acquire says why the limit read is safe.
	if ctx == nil {
		panic("core: Semaphore.Acquire with a nil context")
	}
	if ctx.Done() == nil && n >= 0 {
		if w := s.state.Load(); uint64(w) < fastWord && n <= s.limitMirror.Load()-w>>genBits &&
			s.state.CompareAndSwap(w, w+n<<genBits) {
			if s.cfg.observer != nil {
				s.emitGranted(n, Normal, "")
			}
			return nil
		}
	}
	return s.AcquirePriority(ctx, n, Normal)
}

// AcquirePriority takes n tokens at priority p, blocking like [Semaphore.Acquire].
// Waiters are served highest priority first and in arrival order within a
// priority; with [WithAging] a waiter's effective priority grows as it
// waits. A waiter at the head of the queue blocks every waiter behind it,
// whatever their priority or size. When ctx ends it returns ctx.Err() and
// leaves the semaphore unchanged: tokens granted at the same moment are
// handed back. It panics if n is negative.
func (s *Semaphore) AcquirePriority(ctx context.Context, n int64, p Priority) error {
	if ctx == nil {
		panic("core: Semaphore.AcquirePriority with a nil context")
	}
	_, err := s.acquire(ctx, n, p, "")
	return err
}

// Do acquires n tokens, runs fn with ctx, and releases the tokens however
// fn returns. It blocks until the tokens are granted, as
// [Semaphore.AcquirePriority] does, at the priority given by [WithPriority]
// (Normal by default); when ctx ends first it returns ctx.Err() without
// running fn and leaves the semaphore unchanged. Otherwise it returns fn's
// error, or a [*PanicError] if fn panicked; the tokens are released also
// when fn calls runtime.Goexit (reported as Failed). Unlike a bare Acquire
// and Release, every event of the call, up to its terminal one, carries the
// same Task and the name given by [WithName], so an observer can follow
// each holder. It panics if ctx or fn is nil.
func (s *Semaphore) Do(ctx context.Context, n int64, fn func(context.Context) error, opts ...TaskOption) error {
	if ctx == nil || fn == nil {
		panic("core: Semaphore.Do with a nil context or function")
	}
	tc := newTaskConfig(opts)
	rt := s.rt.enqueueDo(ctx, tc, n)
	id, err := s.acquire(rt.ctxOr(ctx), n, tc.priority, tc.name)
	if err != nil {
		rt.end(TaskCanceled)
		return err
	}
	end := func(err error) {
		if s.cfg.observer != nil {
			// Reported before the tokens move, as Release does.
			_, kind := outcome(ctx.Err(), err)
			s.cfg.emit(Event{Kind: kind, Task: id, Name: tc.name, Priority: tc.priority, Weight: n, Err: err})
		}
		rt.endErr(ctx, err)
		s.release(n)
	}
	rt.start(0)
	err = call(func() error { return fn(rt.ctxOr(ctx)) }, func() { end(errGoexit) })
	end(err)
	return err
}

// acquire takes n tokens at priority p and returns the task id its events
// carried (0 without an observer).
func (s *Semaphore) acquire(ctx context.Context, n int64, p Priority, name string) (uint64, error) {
	if n < 0 {
		panic(fmt.Sprintf("core: semaphore acquire of %d tokens", n))
	}
	done := ctx.Done()
	if done != nil {
		select {
		case <-done:
			// The context ended before the call: fail even if tokens are free.
			s.canceled.Add(1)
			return 0, ctx.Err()
		default:
		}
	}
	for w := s.state.Load(); uint64(w) < fastWord && n <= s.limitMirror.Load()-w>>genBits; w = s.state.Load() {
		// The limit is read after the count, and a SetLimit in between
		// changes the generation, so the swap succeeds only if the
		// limit read was in force all along.
		if s.state.CompareAndSwap(w, w+n<<genBits) {
			if s.cfg.observer != nil {
				return s.emitGranted(n, p, name), nil
			}
			return 0, nil
		}
	}
	return s.acquireSlow(ctx, done, n, p, name)
}

// emitGranted reports a request granted at once and returns its task id.
func (s *Semaphore) emitGranted(n int64, p Priority, name string) uint64 {
	id := s.ids.Add(1)
	now := s.cfg.org.now()
	s.cfg.emit(Event{Kind: Enqueued, Time: now, Task: id, Name: name, Priority: p, Weight: n})
	s.cfg.emit(Event{Kind: Started, Time: now, Task: id, Name: name, Priority: p, Weight: n})
	return id
}

func (s *Semaphore) acquireSlow(ctx context.Context, done <-chan struct{}, n int64, p Priority, name string) (uint64, error) {
	s.lock()
	if s.queue.Len() == 0 && s.room() >= n {
		s.cur += n
		s.unlock()
		if s.cfg.observer != nil {
			return s.emitGranted(n, p, name), nil
		}
		return 0, nil
	}
	w := s.spare.Swap(nil)
	if w == nil {
		w = &waiter{ready: make(chan struct{}, 1)}
	}
	w.n, w.prio, w.seq, w.key, w.granted = n, p, s.seq, negPriority(p), false
	s.seq++
	if s.cfg.aging > 0 {
		w.key = agingKey(s.cfg.org.since(), p, s.cfg.aging)
	}
	if n > s.lim {
		s.park(w)
	} else {
		s.queue.push(w)
		// A higher priority than the head's makes w the head, and it may
		// fit where the old head did not.
		s.notify()
	}
	s.unlock()
	defer rtStop(rtWait(ctx))

	var id uint64
	ev := func(kind EventKind, err error) {
		if s.cfg.observer != nil {
			s.cfg.emit(Event{Kind: kind, Task: id, Name: name, Priority: p, Weight: n, Err: err})
		}
	}
	fail := func() (uint64, error) {
		s.canceled.Add(1)
		err := ctx.Err()
		ev(Canceled, err)
		return 0, err
	}
	if s.cfg.observer != nil {
		id = s.ids.Add(1)
	}
	ev(Enqueued, nil)
	ev(Waiting, nil)

	if done == nil {
		// A context that never ends: a plain receive, cheaper than a select.
		<-w.ready
		s.spare.Store(w)
		ev(Started, nil)
		return id, nil
	}
	select {
	case <-done:
		s.lock()
		switch {
		case w.granted:
			// Granted as the context ended: hand the tokens back, as a
			// Release does. The grant is in w.ready: take it, so that w
			// can be used again.
			<-w.ready
			s.releaseHeld(n)
		case w.index != -1:
			s.queue.remove(w)
			s.notify()
			s.unlock()
		default:
			s.unpark(w)
			s.notify()
			s.unlock()
		}
		s.spare.Store(w) // out of the queue, its grant taken if any: nobody else has it
		return fail()
	case <-w.ready:
		s.spare.Store(w)
		select {
		case <-done:
			// Granted, but the context ended too: prefer the failure, as
			// x/sync does, and hand the tokens back.
			s.release(n)
			return fail()
		default:
		}
		ev(Started, nil)
		return id, nil
	}
}

// TryAcquire takes n tokens if it can without waiting and reports whether it
// did. It fails, leaving the semaphore unchanged, when fewer than n tokens
// are free or when a caller is waiting for tokens that fit the limit (it
// never barges ahead of a waiter). It does not block. It panics if n is negative.
func (s *Semaphore) TryAcquire(n int64) bool {
	if n < 0 {
		panic(fmt.Sprintf("core: semaphore acquire of %d tokens", n))
	}
	for w := s.state.Load(); uint64(w) < fastWord; w = s.state.Load() {
		if n > s.limitMirror.Load()-w>>genBits {
			// Too few free tokens, if the limit read is the one that
			// goes with w: no SetLimit has run since w was loaded.
			if s.state.Load() == w {
				return false
			}
			continue
		}
		if s.state.CompareAndSwap(w, w+n<<genBits) {
			if s.cfg.observer != nil {
				s.emitGranted(n, Normal, "")
			}
			return true
		}
	}
	s.lock()
	ok := s.queue.Len() == 0 && s.room() >= n
	if ok {
		s.cur += n
	}
	s.unlock()
	if ok && s.cfg.observer != nil {
		s.emitGranted(n, Normal, "")
	}
	return ok
}

// Release returns n tokens and wakes the waiters at the head of the queue
// that now fit, in order. It does not block on other callers' waits. It
// panics, as x/sync does, if n is negative or more tokens are released than
// are held, and the panic leaves the count as it was. Tokens are not tied to
// the acquire that took them, so, as with x/sync, an excess release may
// instead make a later release of the same tokens panic; while an excess
// release is being undone, releases racing it may panic too. Those include
// the release at the end of [Semaphore.Do] and the hand-back of an acquire
// granted as its context ended. With an observer, Release reports a
// Finished event with Task 0 and Weight n before the tokens move.
func (s *Semaphore) Release(n int64) {
	if s.cfg.observer != nil && n >= 0 {
		// Reported before the tokens move, so that an observer never sees
		// the waiter they wake start before this release.
		s.cfg.emit(Event{Kind: Finished, Weight: n})
	}
	s.release(n)
}

// release returns n tokens as Release does, without its event: for Do,
// and for an acquire handing back tokens granted as its context ended.
func (s *Semaphore) release(n int64) {
	// The uncontended path, kept short. The unsigned comparisons send a
	// negative n, more than is held, and locked mode to the slow path.
	if w := s.state.Load(); uint64(n) <= uint64(w)>>genBits && uint64(w) < fastWord {
		if r := s.state.Add(-n << genBits); uint64(r) >= fastWord {
			s.releaseAdded(n, r)
		}
		return
	}
	s.releaseSlow(n)
}

func (s *Semaphore) releaseSlow(n int64) {
	if n < 0 {
		panic(fmt.Sprintf("core: semaphore release of %d tokens", n))
	}
	s.releaseLocked(n)
}

// releaseAdded finishes a release of n tokens whose atomic add left the
// state word at r, outside the fast range. The sign of r tells what the add
// hit: a fast word minus n is below fastWord, and a locked word minus the
// tokens of racing releases stays far above it.
func (s *Semaphore) releaseAdded(n, r int64) {
	s.lock()
	if r < 0 {
		// The add made a fast word negative: more was released than held,
		// by this call or a racing one; this call panics either way. The
		// add is in cur (lock, or an earlier one, swapped the word in):
		// undo it, and grant what the negative count held back meanwhile.
		s.cur += n
		s.notify()
		s.unlock()
		if n > 0 {
			panic("core: semaphore released more tokens than held")
		}
		return
	}
	// The add hit a locked word, whose content the next return to fast
	// mode overwrites: release in cur instead.
	s.releaseHeld(n)
}

// releaseLocked releases n tokens in locked mode.
func (s *Semaphore) releaseLocked(n int64) {
	s.lock()
	s.releaseHeld(n)
}

// releaseHeld takes n tokens off cur and wakes the waiters that now fit.
// The caller holds mu, in locked mode; releaseHeld unlocks it.
func (s *Semaphore) releaseHeld(n int64) {
	s.cur -= n
	if s.cur < 0 && n > 0 {
		s.cur += n
		s.unlock()
		panic("core: semaphore released more tokens than held")
	}
	s.notify()
	s.unlock()
}

// SetLimit changes the number of tokens to n. It does not wait. Growing the
// limit wakes the waiters that now fit at once, in queue order; shrinking it
// takes no tokens back: callers keep what they hold, and new acquires wait
// until enough is released to fit under the new limit. Waiters asking for
// more than the new limit stop blocking the queue until the limit grows
// again. When calls overlap, the last to take effect wins. An observer sees
// the Resized event of a growth before any start the growth allows, and
// that of a shrink once it took effect. It panics if n is negative.
func (s *Semaphore) SetLimit(n int64) {
	if n < 0 {
		panic(fmt.Sprintf("core: semaphore limit %d is negative", n))
	}
	s.lock()
	// A new generation: lock-free acquires that loaded the count before
	// this call cannot swap it under the new limit.
	s.resizes++
	call := s.resizes
	grow := n > s.lim
	if grow && s.cfg.observer != nil {
		// Report a growth before any waiter it wakes starts, so that an
		// observer never counts more tokens in use than it was told of.
		s.unlock()
		s.cfg.emit(Event{Kind: Resized, Weight: n})
		s.lock()
		if call != s.resizes {
			s.unlock() // a later call overtook this one
			return
		}
	}
	old := s.lim
	s.lim = n
	s.limitMirror.Store(n)
	switch {
	case n > old:
		kept := s.parked[:0]
		for _, w := range s.parked {
			if w.n <= n {
				s.queue.push(w)
			} else {
				kept = append(kept, w)
			}
		}
		clear(s.parked[len(kept):])
		s.parked = kept
	case n < old:
		for _, w := range s.queue.takeAll() {
			if w.n > n {
				s.park(w)
			} else {
				s.queue.push(w)
			}
		}
	}
	s.notify()
	s.unlock()
	if !grow && s.cfg.observer != nil {
		s.cfg.emit(Event{Kind: Resized, Weight: n})
	}
}

// Stats returns a snapshot of the semaphore's counters. It does not wait
// for tokens, only briefly for the internal lock.
func (s *Semaphore) Stats() SemaphoreStats {
	s.lock()
	st := SemaphoreStats{
		Limit:    s.lim,
		InUse:    s.cur,
		Waiters:  s.queue.Len() + len(s.parked),
		Canceled: s.canceled.Load(),
	}
	s.unlock()
	return st
}

// lock takes mu and enters locked mode: it swaps lockBit into state and
// the count it held into cur, so that the lock-free paths defer to mu until
// unlock. The swap also takes in any release that made the word negative.
func (s *Semaphore) lock() {
	s.mu.Lock()
	if !s.locked {
		s.cur = s.state.Swap(lockBit) >> genBits
		s.locked = true
	}
}

// unlock returns to fast mode when it can (no waiter queued, a limit
// below fastLimit, 0 <= cur <= lim), storing the count with the current
// generation, and releases mu. Otherwise state stays locked.
func (s *Semaphore) unlock() {
	if s.queue.Len() == 0 && s.lim < fastLimit && uint64(s.cur) <= uint64(s.lim) {
		s.state.Store(s.cur<<genBits | int64(s.resizes&genMask))
		s.locked = false
	}
	s.mu.Unlock()
}

// room returns how many more tokens may be granted: lim-cur, or -1, so
// that nothing is, while cur is negative. Callers hold mu, in locked mode.
func (s *Semaphore) room() int64 {
	if s.cur < 0 {
		return -1
	}
	return s.lim - s.cur
}

// notify grants tokens to the waiters at the head of the queue while they
// fit. It stops at the first that does not, so that large requests are not
// starved by smaller ones behind them. Callers hold mu, in locked mode.
func (s *Semaphore) notify() {
	for s.queue.Len() > 0 {
		w := s.queue.peek()
		if s.room() < w.n {
			return
		}
		s.cur += w.n
		s.queue.remove(w)
		w.granted = true
		w.ready <- struct{}{} // never blocks: one grant per wait, into a buffer of one
	}
}

func (s *Semaphore) park(w *waiter) {
	w.index = -1
	s.parked = append(s.parked, w)
}

func (s *Semaphore) unpark(w *waiter) {
	for i, p := range s.parked {
		if p == w {
			last := len(s.parked) - 1
			s.parked[i] = s.parked[last]
			s.parked[last] = nil
			s.parked = s.parked[:last]
			return
		}
	}
}

// negPriority is the key of priority p without aging: -p, lower first, with
// the lowest priority, whose negation overflows, last.
func negPriority(p Priority) int64 {
	if int64(p) == math.MinInt64 {
		return math.MaxInt64
	}
	return -int64(p)
}

// agingKey orders waiters under WithAging: arrival time minus d for each
// level of priority, so that a waiter is served as if one level higher for
// each d it has waited longer than another. Lower keys go first.
func agingKey(arrival time.Duration, p Priority, d time.Duration) int64 {
	boost := int64(p) * int64(d)
	if int64(p) != 0 && boost/int64(p) != int64(d) { // overflow
		if p > 0 {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	k := int64(arrival) - boost
	switch {
	case boost > 0 && k > int64(arrival):
		return math.MinInt64
	case boost < 0 && k < int64(arrival):
		return math.MaxInt64
	}
	return k
}

// waiter is one blocked Acquire. It is not pooled: its channel may belong to
// a testing/synctest bubble, and must not be reused outside it.
type waiter struct {
	n       int64
	prio    Priority
	key     int64 // the aging key with WithAging, else -prio: lower goes first
	seq     uint64
	index   int           // its place in the queue (see waiterQueue), or -1 when parked
	granted bool          // tokens were handed over; guarded by mu
	ready   chan struct{} // receives the grant; one slot, so that granting never blocks
}

// waiterHeap is a binary heap of waiters, best first: lowest key, then
// earliest arrival. The key is the aging key with WithAging, and the
// priority negated without. Its operations are written for *waiter rather
// than through container/heap's interface, whose calls do not inline: a
// push or pop costs log2(waiters) comparisons, each a few nanoseconds.
type waiterHeap struct{ ws []*waiter }

func (h *waiterHeap) Len() int { return len(h.ws) }

func waiterBefore(a, b *waiter) bool { return a.key < b.key || a.key == b.key && a.seq < b.seq }

// push adds w.
func (h *waiterHeap) push(w *waiter) {
	h.ws = append(h.ws, w)
	h.up(len(h.ws)-1, w)
}

// remove removes the waiter at position i.
func (h *waiterHeap) remove(i int) *waiter {
	w := h.ws[i]
	last := len(h.ws) - 1
	x := h.ws[last]
	h.ws[last] = nil
	h.ws = h.ws[:last]
	if i != last {
		h.down(i, x)
		if x.index == i {
			h.up(i, x)
		}
	}
	w.index = -1
	return w
}

// up puts w in the hole at position i, or above it.
func (h *waiterHeap) up(i int, w *waiter) {
	for i > 0 {
		p := (i - 1) / 2
		if !waiterBefore(w, h.ws[p]) {
			break
		}
		h.ws[i] = h.ws[p]
		h.ws[i].index = i
		i = p
	}
	h.ws[i], w.index = w, i
}

// down puts w in the hole at position i, or below it.
func (h *waiterHeap) down(i int, w *waiter) {
	n := len(h.ws)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && waiterBefore(h.ws[r], h.ws[c]) {
			c = r
		}
		if !waiterBefore(h.ws[c], w) {
			break
		}
		h.ws[i] = h.ws[c]
		h.ws[i].index = i
		i = c
	}
	h.ws[i], w.index = w, i
}

// waiterQueue holds the waiters that fit the limit, best first: lowest
// key, then earliest arrival. A waiter that comes after the last one
// queued in that order (every waiter of one priority, with or without
// WithAging) joins a FIFO, pushed and taken in O(1) as x/sync's list
// does; one that overtakes it (a higher priority, or a waiter back from
// parked) joins a binary heap. The best waiter is the better of the
// FIFO's head and the heap's top. A waiter's index is its heap position,
// or -2-i at the FIFO's place i; a removed waiter leaves a nil in the
// FIFO, skipped when the head reaches it.
type waiterQueue struct {
	heap    waiterHeap
	fifo    []*waiter // from head on, in order; nil: removed
	head    int
	live    int   // waiters in fifo
	lastKey int64 // the key and seq of the FIFO's last push
	lastSeq uint64
}

func (q *waiterQueue) Len() int { return q.heap.Len() + q.live }

// push adds w.
func (q *waiterQueue) push(w *waiter) {
	if q.live > 0 && (w.key < q.lastKey || w.key == q.lastKey && w.seq < q.lastSeq) {
		q.heap.push(w)
		return
	}
	w.index = -2 - len(q.fifo)
	q.fifo = append(q.fifo, w)
	q.live++
	q.lastKey, q.lastSeq = w.key, w.seq
}

// peek returns the best waiter. The queue is not empty.
func (q *waiterQueue) peek() *waiter {
	var f *waiter
	if q.live > 0 {
		f = q.fifo[q.head]
	}
	if q.heap.Len() > 0 && (f == nil || waiterBefore(q.heap.ws[0], f)) {
		return q.heap.ws[0]
	}
	return f
}

// remove takes w, queued, out of the queue.
func (q *waiterQueue) remove(w *waiter) {
	if w.index >= 0 {
		q.heap.remove(w.index)
		return
	}
	q.fifo[-2-w.index] = nil
	w.index = -1
	q.live--
	for q.head < len(q.fifo) && q.fifo[q.head] == nil {
		q.head++
	}
	switch {
	case q.live == 0:
		q.fifo, q.head = q.fifo[:0], 0
	case q.head >= 64 && 2*q.head >= len(q.fifo):
		// Move the live part to the front, so that the slice does not grow
		// with the waiters taken.
		n := copy(q.fifo, q.fifo[q.head:])
		clear(q.fifo[n:])
		q.fifo, q.head = q.fifo[:n], 0
		for i, x := range q.fifo {
			if x != nil {
				x.index = -2 - i
			}
		}
	}
}

// takeAll empties the queue and returns its waiters, best first.
func (q *waiterQueue) takeAll() []*waiter {
	ws := slices.Clone(q.heap.ws)
	for _, w := range q.fifo[q.head:] {
		if w != nil {
			ws = append(ws, w)
		}
	}
	slices.SortFunc(ws, func(a, b *waiter) int { return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.seq, b.seq)) })
	*q = waiterQueue{fifo: q.fifo[:0]}
	clear(q.fifo[:cap(q.fifo)])
	return ws
}
