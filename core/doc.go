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
// WorkQueue, Processor and KeyedQueue share one scheduler. [WithSemaphore]
// on any of them, and on Consume, makes a task also wait for a token of a
// Semaphore shared with other primitives: one global limit for them all.
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
// A task's function (or a Consume handler, or [Semaphore.Do]'s function)
// that panics does not crash the program: the panic is recovered, the task
// ends in [TaskPanicked] with a [*PanicError] (the value and the stack),
// which its waiter receives, and its slot and tokens are released; the
// primitive keeps running. A function that calls runtime.Goexit (as
// t.FailNow does) ends its goroutine, and its task ends failed with an
// error saying so, its slot and tokens released all the same. So whatever
// a function does, limits and counters stay right.
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
