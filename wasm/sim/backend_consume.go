package sim

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"sluice/core"
)

// consumeBackend runs one core.Consume per consumer, each over its own
// unbuffered channel, all drawing slots from one shared core.Semaphore.
//
// Messages wait in their consumer's backlog, in the runner, until the
// consumer can take one: the runner hands them over one at a time, with a
// send that never blocks, and only while the consumer has fewer messages
// in hand than its concurrency. Consume then reports the message as
// Enqueued from the goroutine that received it, and the runner pairs that
// event, which carries the consumer's own task number, with the message
// it has just handed over: one message in flight between the runner and
// a consumer at a time makes the pairing exact.
type consumeBackend struct {
	sem  *core.Semaphore // shared; no observer: its grants show in the consumers' events
	cons []*consumer
}

// consumer is one Consume call. Its fields are guarded by Runner.mu,
// except the immutable ones above the line.
type consumer struct {
	name string
	conc int
	prio core.Priority
	ch   chan *task // unbuffered: a send succeeds only when a handler goroutine takes it

	cancel   context.CancelFunc // ends the Consume call
	backlog  []*task            // messages not yet handed over, oldest first
	awaiting *task              // handed over, its Enqueued not yet seen
	byID     map[uint64]*task   // by the Task of this consumer's events, until they end
	inFlight int                // messages Enqueued and not ended
	closedCh bool               // ch is closed (drain)
	canceled bool               // its context was canceled (close, stop)
	exited   bool               // Consume returned
}

func newConsumeBackend(r *Runner) *consumeBackend {
	b := &consumeBackend{sem: core.NewSemaphore(int64(r.sc.Limit), core.WithClock(r.clock))}
	for i, c := range r.sc.Consumers {
		b.cons = append(b.cons, &consumer{
			name: r.kind.GroupName(i),
			conc: c.Concurrency,
			prio: core.Priority(c.Priority),
			ch:   make(chan *task),
			byID: make(map[uint64]*task),
		})
	}
	return b
}

// start starts each consumer's Consume call on a goroutine of the
// runner's.
func (b *consumeBackend) start(r *Runner) {
	handle := b.handler(r)
	for _, c := range b.cons {
		ctx, cancel := context.WithCancel(context.Background())
		c.cancel = cancel
		opts := []core.Option{
			core.WithConcurrency(c.conc),
			core.WithSemaphore(b.sem),
			core.WithPriority(c.prio),
			core.WithObserver(func(e core.Event) { b.observe(r, c, e) }),
			core.WithClock(r.clock),
		}
		r.spawn(func() {
			defer cancel()
			err := core.Consume(ctx, c.ch, handle, opts...)
			b.exited(r, c, err)
		})
	}
}

// handler is every consumer's handler: the task's body, with a context of
// its own so that one message can be canceled.
func (b *consumeBackend) handler(r *Runner) func(context.Context, *task) error {
	return func(ctx context.Context, t *task) error {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		r.setCancel(t, cancel)
		return r.body(t)(ctx)
	}
}

// observe is consumer c's observer.
func (b *consumeBackend) observe(r *Runner, c *consumer, e core.Event) {
	errText := errorText(e.Err)
	r.mu.Lock()
	var t *task
	if e.Kind == core.Enqueued {
		t, c.awaiting = c.awaiting, nil
		if t != nil {
			t.id = e.Task
			c.byID[e.Task] = t
		}
	} else if t = c.byID[e.Task]; t != nil && e.Kind.Terminal() {
		delete(c.byID, e.Task)
	}
	if t != nil {
		if e.Kind == core.Failed && t.kicked && errors.Is(e.Err, context.Canceled) {
			// Canceled by the person (or its cancel-after): Consume
			// reports a handler that returned its context's error as
			// Failed, since the consumer goes on, but for the page the
			// message was canceled, as a task of any other primitive is.
			e.Kind = core.Canceled
		}
		r.apply(t, &e, errText)
		e.Task = uint64(t.n)
		e.Name = t.name
	}
	e.Key = c.name
	r.mu.Unlock()
	r.forward(e)
	r.flush()
}

// exited records that c's Consume call returned.
func (b *consumeBackend) exited(r *Runner, c *consumer, err error) {
	r.mu.Lock()
	c.exited = true
	switch {
	case r.stopped:
	case err != nil:
		r.logLocked(Message{At: r.now(), Text: fmt.Sprintf("%s stopped: %v", c.name, err)})
	default:
		r.logLocked(Message{At: r.now(), Text: fmt.Sprintf("%s finished: its channel was closed and every message it took has been handled", c.name)})
	}
	r.checkDrained()
	r.gen++
	r.mu.Unlock()
	r.nudge()
	r.flush()
}

// submit puts t, which the runner has marked phBacklog, in its
// consumer's backlog; quiet hands it over when the consumer can take it.
func (b *consumeBackend) submit(r *Runner, t *task) {
	r.mu.Lock()
	if t.phase == phBacklog {
		c := b.cons[t.consumer]
		c.backlog = append(c.backlog, t)
	}
	r.mu.Unlock()
}

func (b *consumeBackend) snapshot() snapshot { return snapshot{sem: b.sem.Stats()} }

// quiet: the shared semaphore's waiters and tokens agree with the
// consumers' events (a handler reports Waiting before it queues for a
// token, and its end after it releases one), no consumer is about to
// return, and no message can be handed over: a consumer with fewer
// messages in hand than its concurrency always has a handler goroutine on
// its way to take the next one (Consume adds one whenever the last idle
// one takes a message). Otherwise it hands over the oldest message that
// can go, closes the channel of a draining consumer whose backlog is
// empty, or just reports false while a handler is on its way.
func (b *consumeBackend) quiet(r *Runner, s snapshot) bool {
	if s.sem.Waiters != r.waiting || s.sem.InUse != r.tokens {
		return false
	}
	var best *consumer
	for _, c := range b.cons {
		if c.awaiting != nil {
			return false
		}
		for len(c.backlog) > 0 && c.backlog[0].phase != phBacklog {
			c.backlog[0] = nil
			c.backlog = c.backlog[1:] // withdrawn
		}
		if c.closedCh || c.canceled {
			if !c.exited && c.inFlight == 0 {
				return false // Consume is returning
			}
			continue
		}
		if len(c.backlog) == 0 {
			if r.draining {
				close(c.ch)
				c.closedCh = true
				r.gen++
				return false
			}
			continue
		}
		if c.inFlight < c.conc && (best == nil || c.backlog[0].n < best.backlog[0].n) {
			best = c
		}
	}
	if best == nil {
		return true
	}
	t := best.backlog[0]
	select {
	case best.ch <- t:
		best.backlog[0] = nil
		best.backlog = best.backlog[1:]
		best.awaiting = t
		r.backlog--
		r.set(t, func() { t.phase = phSubmitting })
	default: // the handler goroutine is on its way
	}
	return false
}

func (b *consumeBackend) refusal(r *Runner) string {
	switch {
	case r.closing:
		return "the consumers were closed: their contexts are canceled"
	case r.draining:
		return "the consumers are draining: their channels take no new messages"
	}
	return ""
}

func (b *consumeBackend) drained(r *Runner) bool {
	for _, c := range b.cons {
		if !c.exited {
			return false
		}
	}
	return true
}

func (b *consumeBackend) setLimit(r *Runner, n int) error { return r.setSharedLimit(b.sem, n) }

// setSharedLimit resizes sem, the semaphore several primitives share. It
// has no observer, so the runner reports the change as a Resized event
// itself: before a growth, which may start tasks at once, and after a
// shrink, as a semaphore reports its own, so that the events never show
// more running than the limit they announce.
func (r *Runner) setSharedLimit(sem *core.Semaphore, n int) error {
	r.mu.Lock()
	grow := n > r.limit
	r.limit = n
	r.gen++
	r.mu.Unlock()
	ev := core.Event{Kind: core.Resized, Time: r.clock.Now(), Weight: int64(n)}
	if grow {
		r.forward(ev)
	}
	sem.SetLimit(int64(n))
	if !grow {
		r.forward(ev)
	}
	return nil
}

// drain is done by quiet, which closes each consumer's channel once its
// backlog is empty.
func (b *consumeBackend) drain(r *Runner) {}

// close withdraws every backlog, cancels every message in hand, and
// cancels every consumer's context.
func (b *consumeBackend) close(r *Runner) { b.cancelAll(r, "canceled when the consumers were closed") }

func (b *consumeBackend) stop(r *Runner) { b.cancelAll(r, "the run stopped before it was submitted") }

func (b *consumeBackend) cancelAll(r *Runner, why string) {
	var fns []func()
	r.mu.Lock()
	// Consumers first: a message waiting for a token counts as busy once
	// its consumer's context is canceled, since that wakes it.
	for _, c := range b.cons {
		if !c.canceled {
			c.canceled = true
			fns = append(fns, c.cancel)
		}
	}
	for _, t := range r.tasks {
		switch {
		case t.phase == phBacklog:
			r.withdraw(t, why)
		case t.phase.live() && !t.kicked:
			if f := r.kick(t); f != nil {
				fns = append(fns, f)
			}
		}
	}
	r.gen++
	r.mu.Unlock()
	for _, f := range fns {
		f()
	}
}

// consumeKind is core.Consume: consumers, each over its own channel,
// drawing their slots from one shared core.Semaphore.
var consumeKind = &Kind{
	ID: Consume, Title: "Consume", Noun: "consumers",
	LimitWhat: "limit", LimitLabel: "Shared semaphore tokens", LimitHint: "one global limit for every consumer", MinLimit: 1, Resizable: true,
	Groups: "consumer", GroupSize: "concurrency", GroupSizeTitle: "WithConcurrency",
	GroupsLabel:   "Consumers (concurrency, priority: any whole number)",
	DefaultGroups: []Consumer{{Concurrency: 2, Priority: 1}, {Concurrency: 2}},
	Signature: func(s Scenario) string {
		return fmt.Sprintf("Consume ×%d, WithSemaphore(NewSemaphore(%d))", len(s.Consumers), s.Limit)
	},
	newBackend: func(r *Runner) backend {
		r.consume = newConsumeBackend(r)
		return r.consume
	},
	runtime: consumeRuntime,
	code: func(g *gen, s Scenario) {
		var concs []string
		for _, c := range s.Consumers {
			concs = append(concs, strconv.Itoa(c.Concurrency))
		}
		g.p("// The consumers draw their slots from one semaphore: a global limit.")
		g.p("sem := core.NewSemaphore(%d, core.WithClock(r.clock))", s.Limit)
		g.p("var cons []*consumer")
		g.p("for i, concurrency := range []int{%s} {", strings.Join(concs, ", "))
		g.p(`	ctx, stop := context.WithCancel(context.Background())
		c := &consumer{name: "consumer-" + strconv.Itoa(i+1), conc: concurrency, ch: make(chan *task, 1), stop: stop, byID: map[uint64]*task{}}
		cons = append(cons, c)
		handle := func(ctx context.Context, t *task) error {
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			r.setCancel(t, cancel)
			return r.body(t)(ctx)
		}
		r.goWait(func() {
			defer stop()
			core.Consume(ctx, c.ch, handle, core.WithConcurrency(concurrency), core.WithSemaphore(sem), core.WithPriority(groups[i]), core.WithObserver(r.observeConsumer(c)), core.WithClock(r.clock))
		})
		}
		// Messages wait in their consumer's backlog until it can take one; they
		// are handed over one at a time, the oldest first.
		r.backlog = func(t *task) { cons[t.consumer].backlog = append(cons[t.consumer].backlog, t) }
		r.feed = func() bool { return r.feedConsumers(cons) }
		r.refusing = func() bool { return r.draining || r.closing }
		setLimit := func(n int) {
		sem.SetLimit(int64(n))
		r.rest()
		}
		// Drain: each consumer's channel is closed once its backlog is empty.
		drain := func() {
		r.mu.Lock()
		r.draining = true
		r.mu.Unlock()
		}
		// Close cancels every consumer and every message.
		closeAll := func() {
		var fns []func()
		r.mu.Lock()
		r.closing = true
		for _, c := range cons {
			if !c.canceled {
				c.canceled = true
				fns = append(fns, c.stop)
			}
		}
		for _, t := range r.tasks {
			switch {
			case t.state == "backlog":
				t.state = "withdrawn"
				r.counts["withdrawn"]++
			case t.live() && !t.kicked:
				t.kicked = true
				if t.cancel != nil {
					fns = append(fns, t.cancel)
				}
			}
		}
		r.mu.Unlock()
		for _, f := range fns {
			f()
		}
		}
		stop := func() {
		r.mu.Lock()
		for _, c := range cons {
			if !c.closed {
				c.closed = true
				close(c.ch)
			}
		}
		r.mu.Unlock()
		}`)
	},
}
