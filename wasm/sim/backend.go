package sim

import "sluice/core"

// backend is what the runner needs of one kind of primitive. Methods
// marked "r.mu held" are called with the runner's lock held and must not
// call into the primitive in a way that reports events; the others are
// called without it.
type backend interface {
	// submit hands t (phSubmitting) to the primitive; for consume, t
	// (phBacklog) goes to its consumer's backlog.
	submit(r *Runner, t *task)
	// snapshot reads the primitive's counters.
	snapshot() snapshot
	// quiet reports whether the primitive is at rest, given counters read
	// while the runner's bookkeeping did not change (r.mu held). For
	// consume it may hand a message over and report false.
	quiet(r *Runner, s snapshot) bool
	// refusal says why the run refuses new tasks on the primitive's
	// behalf, or "" to let the primitive decide (r.mu held).
	refusal(r *Runner) string
	// drained reports whether a drain has finished (r.mu held).
	drained(r *Runner) bool
	// setLimit resizes the primitive, or says why it cannot.
	setLimit(r *Runner, n int) error
	// drain, close and stop start draining, closing and tearing down;
	// none waits for virtual time.
	drain(r *Runner)
	close(r *Runner)
	stop(r *Runner)
}

// snapshot is a primitive's counters.
type snapshot struct {
	queue  core.QueueStats
	sem    core.SemaphoreStats
	queues []core.QueueStats // shared: each work queue's, in order
}
