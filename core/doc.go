// Package core provides async coordination primitives for limiting and
// ordering concurrent work:
//
//   - [Semaphore]: a weighted semaphore with priorities and aging, a drop-in
//     for golang.org/x/sync/semaphore.Weighted.
//   - [WorkQueue]: runs at most N functions at once, in priority order;
//     [WorkQueue.Go] submits without a handle.
//   - [Processor]: a typed WorkQueue whose tasks return results.
//   - [KeyedQueue]: tasks with the same key run one at a time, in order;
//     idle keys are evicted.
//   - [Consume]: handles messages from a channel with bounded concurrency.
//
// WorkQueue, Processor and KeyedQueue share one scheduler: a pending queue
// ordered by priority then arrival, slots, and worker goroutines that exist
// only while there is work. [WithSemaphore] on any of them, and on
// Consume, makes a task also wait for a token of a Semaphore shared with
// other primitives: one global limit across queues and consumers.
//
// # Contracts shared by every primitive
//
// Blocking calls take a context.Context first. When the context ends a wait,
// the call returns ctx.Err() unwrapped and leaves the primitive as it was
// before the call.
//
// Programmer errors (a limit below 1, a negative weight, releasing more than
// is held, a nil function or context) panic with a message prefixed
// "core:". Everything else is an error value: [ErrClosed], [ErrFull], a
// task's own error, or a [*PanicError] when a task panicked.
//
// # Panics and runtime.Goexit
//
// A task's function (or a Consume handler, or the function given to
// [Semaphore.Do]) that panics does not crash the program: the panic is
// recovered on the goroutine that ran it, the task ends in
// [TaskPanicked] with a [*PanicError] holding the value and the stack, its
// waiter receives that error, and its slot and any tokens are released;
// the primitive keeps running. A function that calls runtime.Goexit (as
// t.FailNow does) ends its goroutine as Goexit promises, but its task ends
// failed with an error saying so, and its slot and tokens are released all
// the same; a Do call on that goroutine never returns. So whatever a
// function does, the primitive's limits and counters stay right.
//
// # Observing
//
// [WithObserver] reports each step of a primitive as an [Event]. Observing
// adds the observer's calls and nothing else: the primitive takes the same
// paths with or without one. A queue's observer is called outside every
// lock and never from two goroutines at once, with the events in the order
// the queue's state changed (so counters rebuilt from them never pass the
// limit). A call that changed the queue returns, and a task's function
// starts, only once the observer has seen the change, though another of
// the queue's goroutines may have delivered it. So a queue's observer must
// not submit to, cancel in, resize or stop that queue (Stats is fine): it
// would wait for itself. [WithClock] replaces the wall clock used for
// aging, idle timeouts and event times, so that a simulation can run in
// scaled or paused time.
//
// core imports only the standard library and runs unchanged on servers and
// in WebAssembly.
package core
