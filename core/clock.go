package core

import "time"

// Clock is the source of time for a primitive: aging, idle timeouts and
// event times. The default is the wall clock, read as the primitive's
// creation time plus the monotonic time elapsed since (time.Since, which in
// some sandboxes costs half what time.Now does); a wall clock set back or
// forward meanwhile does not move event times. A simulation, such as the
// playground, supplies a virtual clock through [WithClock] to run in scaled
// or paused time.
//
// Implementations must be safe for concurrent use. AfterFunc must not call f
// synchronously, and must call it at most once unless the timer is Reset.
type Clock interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a timer created by [Clock.AfterFunc]. Stop and Reset behave as
// for *time.Timer.
type Timer interface {
	Stop() bool
	Reset(d time.Duration) bool
}

type wallClock struct{}

// origin is a primitive's clock and the time it read when the primitive
// was made: the origin of its durations.
type origin struct {
	clock Clock
	at    time.Time
	wall  bool // clock is the wall clock: read the monotonic clock alone
}

func newOrigin(c Clock) origin {
	_, wall := c.(wallClock)
	return origin{clock: c, at: c.Now(), wall: wall}
}

// since returns the time elapsed since the origin.
func (o *origin) since() time.Duration {
	if o.wall {
		return time.Since(o.at)
	}
	return o.clock.Now().Sub(o.at)
}

// time returns the clock's time d after the origin.
func (o *origin) time(d time.Duration) time.Time { return o.at.Add(d) }

// now returns the clock's time.
func (o *origin) now() time.Time { return o.time(o.since()) }

func (wallClock) Now() time.Time { return time.Now() }

func (wallClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
