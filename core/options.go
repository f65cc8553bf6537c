package core

import (
	"fmt"
	"sync/atomic"
	"time"
)

// Option configures a primitive. Each option's doc says which primitives
// read it; the others ignore it.
type Option interface {
	apply(*config)
}

// TaskOption configures one task passed to Do, Submit, TrySubmit or Process.
type TaskOption interface {
	applyTask(*taskConfig)
}

// config is the union of every primitive's settings.
type config struct {
	observer      func(Event)
	clock         Clock
	aging         time.Duration // Semaphore; 0: no aging
	capacity      int           // WorkQueue, Processor, KeyedQueue (per key); 0: unbounded
	totalCapacity int           // KeyedQueue, all keys together; 0: unbounded
	parallelism   int           // KeyedQueue across keys; 0: unlimited
	idleTimeout   time.Duration // KeyedQueue
	concurrency   int           // Consume
	semaphore     *Semaphore    // every queue, and Consume
	priority      Priority      // Consume, on semaphore
	onError       any           // Consume: func(M, error)
	emitting      *serial       // with an observer: emit's calls one at a time
	org           origin        // clock, and its time when the primitive was made
}

// DefaultIdleTimeout is how long a KeyedQueue lane stays without work before
// it is removed, unless WithIdleTimeout says otherwise.
const DefaultIdleTimeout = 30 * time.Second

func newConfig(opts []Option) config {
	c := config{clock: wallClock{}, idleTimeout: DefaultIdleTimeout, concurrency: 1}
	for _, o := range opts {
		if o != nil {
			o.apply(&c)
		}
	}
	if c.observer != nil {
		c.emitting = &serial{wake: make(chan struct{}, 1)}
	}
	c.org = newOrigin(c.clock)
	return c
}

// emit reports e to the observer, if any, stamping its time: for the
// primitives without an engine (Semaphore, Consume), one call at a time, so
// that an observer is never called from two goroutines at once, whichever
// primitive it observes. Callers must not hold a lock.
func (c *config) emit(e Event) {
	if c.observer == nil {
		return
	}
	if e.Time.IsZero() {
		e.Time = c.org.now()
	}
	c.emitting.lock()
	defer c.emitting.unlock()
	c.observer(e)
}

type taskConfig struct {
	priority Priority
	name     string
}

func newTaskConfig(opts []TaskOption) taskConfig {
	var t taskConfig
	t.apply(opts)
	return t
}

func (t *taskConfig) apply(opts []TaskOption) {
	for _, o := range opts {
		if o != nil {
			o.applyTask(t)
		}
	}
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

type taskOptionFunc func(*taskConfig)

func (f taskOptionFunc) applyTask(t *taskConfig) { f(t) }

// WithObserver reports every step of the primitive to fn, as an [Event]. fn is
// called outside every lock, in event order for each task, and never from
// two goroutines at once; it must not call into the primitive it observes
// but for Stats (see the package doc). It must not block for long, since the
// primitive waits for it. A nil fn costs nothing. Read by every primitive.
func WithObserver(fn func(Event)) Option {
	return optionFunc(func(c *config) { c.observer = fn })
}

// WithClock replaces the wall clock for aging, idle timeouts and event
// times. A nil clock keeps the wall clock. Read by every primitive.
func WithClock(clk Clock) Option {
	return optionFunc(func(c *config) {
		if clk != nil {
			c.clock = clk
		}
	})
}

// WithAging raises a Semaphore waiter's effective priority by one level for
// each d it has waited, so that no priority starves. d <= 0 disables aging
// (the default). Read by Semaphore.
func WithAging(d time.Duration) Option {
	return optionFunc(func(c *config) { c.aging = max(d, 0) })
}

// WithCapacity bounds the pending (not yet running) tasks at n: Submit blocks
// until there is room and TrySubmit returns [ErrFull]. For a KeyedQueue the
// bound is per key. n <= 0 means unbounded (the default). Read by WorkQueue,
// Processor and KeyedQueue.
func WithCapacity(n int) Option {
	return optionFunc(func(c *config) { c.capacity = max(n, 0) })
}

// WithTotalCapacity bounds the pending tasks of all a KeyedQueue's keys
// together at n, as [WithCapacity] bounds each key's: Submit blocks until
// there is room and TrySubmit returns [ErrFull]. n <= 0 means unbounded
// (the default). Read by KeyedQueue.
func WithTotalCapacity(n int) Option {
	return optionFunc(func(c *config) { c.totalCapacity = max(n, 0) })
}

// WithParallelism caps how many KeyedQueue tasks run at once across all
// keys. n <= 0 means unlimited (the default). Read by KeyedQueue.
func WithParallelism(n int) Option {
	return optionFunc(func(c *config) { c.parallelism = max(n, 0) })
}

// WithIdleTimeout sets how long a KeyedQueue lane stays without work before
// it is removed; the default is [DefaultIdleTimeout]. It panics if d <= 0.
// Read by KeyedQueue.
func WithIdleTimeout(d time.Duration) Option {
	if d <= 0 {
		panic(fmt.Sprintf("core: idle timeout %v must be positive", d))
	}
	return optionFunc(func(c *config) { c.idleTimeout = d })
}

// WithConcurrency sets how many handlers Consume runs at once; the default
// is 1, which handles messages one by one, in order. It panics if n < 1.
// Read by Consume.
func WithConcurrency(n int) Option {
	if n < 1 {
		panic(fmt.Sprintf("core: concurrency %d must be at least 1", n))
	}
	return optionFunc(func(c *config) { c.concurrency = n })
}

// WithSemaphore makes a primitive draw one token of s for each running task
// or handler, in addition to its own limit, so that every queue and
// consumer sharing s shares one global limit. A task starts only when its
// queue has a slot for it and s grants it a token, at the task's priority
// (a consumer's [WithPriority]); it holds the token until its function
// returns, and a task canceled while it waits for the token never runs.
// A task's end is reported before its token moves on, and Drain and Close
// return with every token of the queue's tasks given back.
// Read by WorkQueue, Processor, KeyedQueue and Consume.
func WithSemaphore(s *Semaphore) Option {
	return optionFunc(func(c *config) { c.semaphore = s })
}

// OnError makes Consume call fn with each message whose handler returned an
// error or panicked (the error is then a *PanicError). fn is called from the
// handler's goroutine, after its slot was released. M must be Consume's
// message type, or Consume panics. Read by Consume.
func OnError[M any](fn func(M, error)) Option {
	return optionFunc(func(c *config) { c.onError = fn })
}

// PriorityOption is returned by [WithPriority]. It is both a [TaskOption]
// (the priority of one task) and an [Option] (the priority of a consumer's
// requests on its shared semaphore).
type PriorityOption struct{ p Priority }

func (o PriorityOption) apply(c *config)         { c.priority = o.p }
func (o PriorityOption) applyTask(t *taskConfig) { t.priority = o.p }

// WithPriority sets the priority of a task among pending tasks (higher runs
// first, FIFO within a priority), or of a Consume's requests on the
// semaphore given to WithSemaphore.
func WithPriority(p Priority) PriorityOption { return PriorityOption{p} }

// WithName labels a task for observers: it is the Name of the task's events.
func WithName(name string) TaskOption {
	return taskOptionFunc(func(t *taskConfig) { t.name = name })
}

// serial is a mutex whose waiters block on a channel, so that in a
// testing/synctest bubble they are durably blocked (a sync.Mutex waiter is
// not, and a bubble whose observer sleeps would never advance its clock).
// Uncontended it is one compare-and-swap to lock and one swap to unlock.
// state is 0 when free, 1 when held, 2 when held and someone may wait.
type serial struct {
	state atomic.Int32
	wake  chan struct{} // one slot: a wake-up for a waiter, which then tries again
}

func (l *serial) lock() {
	if l.state.CompareAndSwap(0, 1) {
		return
	}
	for l.state.Swap(2) != 0 {
		<-l.wake
	}
}

func (l *serial) unlock() {
	if l.state.Swap(0) == 2 {
		select {
		case l.wake <- struct{}{}:
		default: // a wake-up is pending already; its waiter tries again
		}
	}
}
