package sim

import (
	"context"
	"fmt"
	"sync"
	"time"

	"sluice/core"
)

// Epoch is the virtual time at which every run starts, so that event times
// are the same from one run of a scenario to the next.
var Epoch = time.Date(2000, time.January, 1, 0, 0, 0, 0, time.UTC)

// Clock is a virtual clock: a [core.Clock] whose time moves only when its
// owner calls [Clock.Advance] or [Clock.Step]. The playground gives it to
// every primitive through core.WithClock, and task bodies sleep on it, so
// that a run can be played at any speed, paused, or stepped one timer at a
// time.
//
// Timers fire in deadline order, and in the order they were set (by
// AfterFunc or Reset) when deadlines are equal. Each timer's function is
// called from the goroutine that called Advance or Step, never from
// AfterFunc or Reset, and never while the clock's lock is held, so it may
// use the clock.
//
// A Clock is safe for concurrent use; time should be moved by one goroutine.
type Clock struct {
	mu     sync.Mutex
	now    time.Time
	timers timerHeap
	seq    uint64 // order of setting, for equal deadlines
	fired  int    // timers fired so far
}

// NewClock returns a clock that reads start until it is advanced.
func NewClock(start time.Time) *Clock {
	return &Clock{now: start}
}

// Now returns the clock's current time. It does not block beyond the
// clock's lock.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc arranges for f to be called, from the goroutine that advances
// the clock, once the clock has moved d past the current time. A d of zero
// or less fires on the next Advance or Step. It returns a [core.Timer]
// whose Stop and Reset behave as for a *time.Timer made by time.AfterFunc.
// It does not block and never calls f itself. It panics if f is nil.
func (c *Clock) AfterFunc(d time.Duration, f func()) core.Timer {
	return c.afterFunc(d, 0, f)
}

// afterFunc is AfterFunc with an ordering key: among timers with the same
// deadline, those with a lower key fire first, then those set first. The
// runner sets its task sleeps with the task's number, so that sleeps set
// by goroutines that ran at the same virtual moment fire in an order that
// does not depend on how those goroutines were scheduled.
func (c *Clock) afterFunc(d time.Duration, key uint64, f func()) *timer {
	if f == nil {
		panic("sim: Clock.AfterFunc with a nil function")
	}
	t := &timer{c: c, f: f, key: key, index: -1}
	c.mu.Lock()
	c.schedule(t, d)
	c.mu.Unlock()
	return t
}

// schedule puts t in the heap to fire d from now. c.mu must be held.
func (c *Clock) schedule(t *timer, d time.Duration) {
	t.when = c.now.Add(max(d, 0))
	t.seq = c.seq
	c.seq++
	c.timers.push(t)
}

// Advance moves the clock forward by d, firing every timer whose deadline
// falls within, one at a time in deadline order: before each timer fires,
// Now reads its deadline. Timers set by the functions it calls fire too if
// their deadline is within the span. When it returns, Now reads the
// starting time plus d. It blocks while the timers' functions run. It
// panics if d is negative.
func (c *Clock) Advance(d time.Duration) {
	if d < 0 {
		panic(fmt.Sprintf("sim: Clock.Advance(%v): time cannot go back", d))
	}
	target := c.Now().Add(d)
	for c.fireNext(target, true) {
	}
	c.advanceTo(target)
}

// advanceTo sets the time to target unless it is already later.
func (c *Clock) advanceTo(target time.Time) {
	c.mu.Lock()
	if c.now.Before(target) {
		c.now = target
	}
	c.mu.Unlock()
}

// Step moves the clock to the deadline of the next timer, if that is in
// the future, and fires that timer alone: one event at a time. It reports
// false, without moving the clock, if no timer is pending. It blocks while
// the timer's function runs.
func (c *Clock) Step() bool {
	return c.fireNext(time.Time{}, false)
}

// fireNext fires the first pending timer if bounded is false or its
// deadline is not after limit, and reports whether it fired one.
func (c *Clock) fireNext(limit time.Time, bounded bool) bool {
	c.mu.Lock()
	if len(c.timers.ts) == 0 {
		c.mu.Unlock()
		return false
	}
	t := c.timers.ts[0]
	if bounded && t.when.After(limit) {
		c.mu.Unlock()
		return false
	}
	c.timers.remove(0)
	if c.now.Before(t.when) {
		c.now = t.when
	}
	c.fired++
	f := t.f
	c.mu.Unlock()
	f()
	return true
}

// Fired returns how many timers have fired so far: a count of the run's
// events that, with the time, places a moment of the run exactly (see
// [Step]). It does not block beyond the clock's lock.
func (c *Clock) Fired() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fired
}

// Next returns the deadline of the next pending timer, and false if none
// is pending. It does not block beyond the clock's lock.
func (c *Clock) Next() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.timers.ts) == 0 {
		return time.Time{}, false
	}
	return c.timers.ts[0].when, true
}

// Pending returns the number of timers set and not yet fired or stopped.
func (c *Clock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers.ts)
}

// Sleep blocks until the clock has moved d past the current time and
// returns nil, or until ctx ends and returns ctx.Err(), stopping its timer.
// If ctx has already ended it returns ctx.Err() at once; otherwise a d of
// zero or less returns nil at once.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	ch := make(chan struct{})
	t := c.afterFunc(d, 0, func() { close(ch) })
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		t.Stop()
		return ctx.Err()
	}
}

// timer is a Clock's [core.Timer].
type timer struct {
	c     *Clock
	f     func()
	when  time.Time
	key   uint64
	seq   uint64
	index int // in the heap; -1 when not pending
}

// Stop prevents the timer from firing and reports whether it did so:
// false if the timer had already fired or been stopped. It does not wait
// for a function already called to return.
func (t *timer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	if t.index < 0 {
		return false
	}
	t.c.timers.remove(t.index)
	return true
}

// Reset makes the timer fire d from the clock's current time, whether or
// not it had fired or been stopped, and reports whether it was pending.
// It counts as set anew for the order among equal deadlines.
func (t *timer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	pending := t.index >= 0
	if pending {
		t.c.timers.remove(t.index)
	}
	t.c.schedule(t, d)
	return pending
}

// timerHeap is a binary min-heap of timers on (when, key, seq).
type timerHeap struct{ ts []*timer }

func (h *timerHeap) less(a, b *timer) bool {
	if !a.when.Equal(b.when) {
		return a.when.Before(b.when)
	}
	if a.key != b.key {
		return a.key < b.key
	}
	return a.seq < b.seq
}

func (h *timerHeap) push(t *timer) {
	t.index = len(h.ts)
	h.ts = append(h.ts, t)
	h.up(t.index)
}

func (h *timerHeap) remove(i int) {
	t := h.ts[i]
	last := len(h.ts) - 1
	if i != last {
		h.swap(i, last)
	}
	h.ts[last] = nil
	h.ts = h.ts[:last]
	if i != last && !h.down(i) {
		h.up(i)
	}
	t.index = -1
}

func (h *timerHeap) swap(i, j int) {
	h.ts[i], h.ts[j] = h.ts[j], h.ts[i]
	h.ts[i].index = i
	h.ts[j].index = j
}

func (h *timerHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(h.ts[i], h.ts[p]) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h *timerHeap) down(i int) bool {
	start := i
	for {
		l := 2*i + 1
		if l >= len(h.ts) {
			break
		}
		m := l
		if r := l + 1; r < len(h.ts) && h.less(h.ts[r], h.ts[l]) {
			m = r
		}
		if !h.less(h.ts[m], h.ts[i]) {
			break
		}
		h.swap(i, m)
		i = m
	}
	return i > start
}
