package core

import "context"

// Semaphore is a weighted semaphore with priorities. (Stub: the
// implementation is being written; the API is final.)
type Semaphore struct{ cfg config }

// NewSemaphore returns a semaphore with n tokens.
func NewSemaphore(n int64, opts ...Option) *Semaphore { return &Semaphore{cfg: newConfig(opts)} }

// Acquire takes n tokens at Normal priority.
func (s *Semaphore) Acquire(ctx context.Context, n int64) error { return nil }

// AcquirePriority takes n tokens at priority p.
func (s *Semaphore) AcquirePriority(ctx context.Context, n int64, p Priority) error { return nil }

// TryAcquire takes n tokens if it can without waiting.
func (s *Semaphore) TryAcquire(n int64) bool { return true }

// Release returns n tokens.
func (s *Semaphore) Release(n int64) {}

// SetLimit changes the number of tokens.
func (s *Semaphore) SetLimit(n int64) {}

// Stats returns a snapshot of the counters.
func (s *Semaphore) Stats() SemaphoreStats { return SemaphoreStats{} }
