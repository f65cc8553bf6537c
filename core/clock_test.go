package core_test

import (
	"sync"
	"time"

	"sluice/core"
)

// jumpClock is a core.Clock that moves only when told to, and may jump
// forwards or backwards. Its timers fire when the clock is set at or past
// their time, each on a goroutine of its own, as the Clock contract asks;
// a timer whose time the clock jumps back from waits until the clock gets
// there again. It is safe for concurrent use.
type jumpClock struct {
	mu     sync.Mutex
	now    time.Time
	timers map[*jumpTimer]struct{} // armed timers
}

func newJumpClock(start time.Time) *jumpClock {
	return &jumpClock{now: start, timers: map[*jumpTimer]struct{}{}}
}

// jumpTimer is a timer of a jumpClock.
type jumpTimer struct {
	c  *jumpClock
	f  func()
	at time.Time // guarded by c.mu
}

func (c *jumpClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc arranges for f to run on its own goroutine once the clock is
// set at or past now+d.
func (c *jumpClock) AfterFunc(d time.Duration, f func()) core.Timer {
	t := &jumpTimer{c: c, f: f}
	c.mu.Lock()
	t.at = c.now.Add(d)
	c.timers[t] = struct{}{}
	c.mu.Unlock()
	c.fire()
	return t
}

// Set moves the clock to now, forwards or backwards, and fires the timers
// that are due.
func (c *jumpClock) Set(now time.Time) {
	c.mu.Lock()
	c.now = now
	c.mu.Unlock()
	c.fire()
}

// Add moves the clock by d, which may be negative.
func (c *jumpClock) Add(d time.Duration) { c.Set(c.Now().Add(d)) }

// fire starts the functions of the timers that are due.
func (c *jumpClock) fire() {
	c.mu.Lock()
	var due []func()
	for t := range c.timers {
		if !t.at.After(c.now) {
			delete(c.timers, t)
			due = append(due, t.f)
		}
	}
	c.mu.Unlock()
	for _, f := range due {
		go f()
	}
}

// Stop disarms the timer and reports whether it was armed.
func (t *jumpTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	_, armed := t.c.timers[t]
	delete(t.c.timers, t)
	return armed
}

// Reset arms the timer again for d from the clock's time and reports
// whether it was armed.
func (t *jumpTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	_, armed := t.c.timers[t]
	t.at = t.c.now.Add(d)
	t.c.timers[t] = struct{}{}
	t.c.mu.Unlock()
	t.c.fire()
	return armed
}
