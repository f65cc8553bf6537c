package core

import "time"

// SemaphoreStats is a snapshot of a [Semaphore]'s counters.
type SemaphoreStats struct {
	Limit    int64  // the current limit
	InUse    int64  // tokens held
	Waiters  int    // callers blocked in Acquire
	Canceled uint64 // acquires that returned their context's error
}

// QueueStats is a snapshot of a [WorkQueue]'s, [Processor]'s or
// [KeyedQueue]'s counters. Submitted always equals Pending + Running +
// Succeeded + Failed + Canceled + Panicked.
type QueueStats struct {
	Parallelism int // the limit on running tasks; 0 means unlimited
	Pending     int // accepted, not started
	Running     int
	Submitted   uint64
	Succeeded   uint64
	Failed      uint64
	Canceled    uint64
	Panicked    uint64
	MaxRunning  int // the most tasks that ran at once
	Lanes       int // live key lanes, KeyedQueue only
	// OldestPending is how long the oldest pending task has waited, on
	// the queue's clock; 0 when none waits. In a KeyedQueue it is the
	// oldest of the tasks next in line in the scheduler and at the heads
	// of the key lanes.
	OldestPending time.Duration
}
