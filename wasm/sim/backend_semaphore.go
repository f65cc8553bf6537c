package sim

import (
	"context"
	"fmt"
	"strconv"

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

// semaphoreKind is core.Semaphore: each task is a goroutine in
// Semaphore.Do holding its weight in tokens.
var semaphoreKind = &Kind{
	ID: Semaphore, Title: "Semaphore", Noun: "semaphore",
	LimitWhat: "limit", LimitLabel: "Limit (tokens)", LimitHint: "core.NewSemaphore(n)", MinLimit: 1, Resizable: true,
	Aging: true, Weights: true, Tokens: true,
	Signature: func(s Scenario) string {
		var opts []string
		if s.AgingMS > 0 {
			opts = append(opts, "WithAging("+clockText(s.AgingMS)+")")
		}
		return "Semaphore(" + strconv.Itoa(s.Limit) + optList(opts) + ")"
	},
	newBackend: func(r *Runner) backend { return newSemBackend(r) },
	code: func(g *gen, s Scenario) {
		aging := ""
		if s.AgingMS > 0 {
			aging = fmt.Sprintf(", core.WithAging(%s)", durArg(s.AgingMS))
		}
		g.p("sem := core.NewSemaphore(%d, core.WithObserver(r.observe(\"\")), core.WithClock(r.clock)%s)", s.Limit, aging)
		g.p(`// Each task is a goroutine in Semaphore.Do; the next one is submitted
		// once it has queued, so that waiters queue in arrival order.
		r.submit = func(t *task) {
		ctx, cancel := context.WithCancel(context.Background())
		r.setCancel(t, cancel)
		t.queued = make(chan struct{})
		r.goWait(func() {
			defer cancel()
			sem.Do(ctx, t.weight, r.body(t), core.WithName(t.name), core.WithPriority(t.prio))
			r.mu.Lock()
			if t.state == "submitting" {
				t.state = "withdrawn" // canceled before it queued
				r.counts["withdrawn"]++
			}
			r.mu.Unlock()
			t.once.Do(func() { close(t.queued) })
		})
		<-t.queued
		}
		// A semaphore has no Drain or Close of its own: the run refuses new tasks.
		r.refusing = func() bool { return r.draining || r.closing }
		setLimit := func(n int) {
		sem.SetLimit(int64(n))
		r.rest()
		}
		drain := func() {
		r.mu.Lock()
		r.draining = true
		r.mu.Unlock()
		}
		closeAll := func() {
		r.mu.Lock()
		r.closing = true
		r.mu.Unlock()
		r.cancelAll()
		}
		stop := func() {}`)
	},
}
