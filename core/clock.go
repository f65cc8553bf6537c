package core

import "time"

// Clock is the source of time for a primitive: aging, idle timeouts and
// event times. The default is the wall clock. A simulation, such as the
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

func (wallClock) Now() time.Time { return time.Now() }

func (wallClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
