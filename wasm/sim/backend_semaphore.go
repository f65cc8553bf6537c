package sim

import (
	"context"

	"sluice/core"
)

// semBackend runs each task on a goroutine of the runner's, in
// Semaphore.Do with the task's weight, name and priority.
type semBackend struct {
	s *core.Semaphore
}

func newSemBackend(r *Runner) *semBackend {
	opts := []core.Option{core.WithObserver(r.observeEvent), core.WithClock(r.clock)}
	if r.sc.AgingMS > 0 {
		opts = append(opts, core.WithAging(ms(r.sc.AgingMS)))
	}
	return &semBackend{s: core.NewSemaphore(int64(r.sc.Limit), opts...)}
}

func (b *semBackend) submit(r *Runner, t *task) {
	ctx, cancel := context.WithCancel(context.Background())
	r.setCancel(t, cancel)
	body := r.body(t)
	r.spawn(func() {
		defer cancel()
		// Do's outcome is reported by its events; an error without
		// events means ctx ended before Do was called.
		b.s.Do(ctx, t.weight, body, core.WithName(t.name), core.WithPriority(t.prio))
		r.mu.Lock()
		if t.phase == phSubmitting {
			r.withdraw(t, "canceled before it was submitted")
			r.checkDrained()
		}
		r.mu.Unlock()
	})
}

func (b *semBackend) snapshot() snapshot { return snapshot{sem: b.s.Stats()} }

// quiet: every waiter the semaphore holds has reported Waiting and no
// grant is unreported (Waiters), and every token held belongs to a task
// that reported Started and has not reported its end (InUse): a task's
// end is reported before its tokens are released.
func (b *semBackend) quiet(r *Runner, s snapshot) bool {
	return s.sem.Waiters == r.waiting && s.sem.InUse == r.tokens
}

func (b *semBackend) refusal(r *Runner) string {
	switch {
	case r.closing:
		return "the semaphore was closed: a semaphore has no Close of its own, so the playground takes no new tasks after Close"
	case r.draining:
		return "the semaphore is draining: a semaphore has no Drain of its own, so the playground takes no new tasks while it drains"
	}
	return ""
}

func (b *semBackend) drained(r *Runner) bool { return r.live == 0 }

func (b *semBackend) setLimit(r *Runner, n int) error {
	b.s.SetLimit(int64(n))
	return nil
}

func (b *semBackend) drain(r *Runner) {}

func (b *semBackend) close(r *Runner) {
	r.CancelAll()
	r.logf(false, "", "the semaphore is closed: every task was canceled and new ones are refused (a semaphore has no Close of its own)")
}

func (b *semBackend) stop(r *Runner) {}
